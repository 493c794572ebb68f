"""The HTML match report: a score sheet and, per shot, a top-down picture and the verdict in
words. One self-contained file (inline SVG and CSS) that reads well on a phone.

It is drawn from the match report dict alone, so any saved report can be rendered again. Shots
may carry ``paths`` ({ball: [[x_mm, y_mm], ...]}) and ``still_jpeg_b64`` when they come from
video; both are drawn when present.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

from referee.describe import describe
from rules import Pocket, Spot, TableSpec, Verdict

BALL_FILL = {"W1": "#f4f1e6", "W2": "#f4f1e6", "R1": "#c8102e", "R2": "#c8102e", "Y": "#f2c500"}
SCALE = 0.2  # SVG units per mm: a 3550 mm table is 710 units wide
MARGIN = 40.0  # mm of rail drawn around the playing field

CSS = """
body{font-family:system-ui,sans-serif;margin:0 auto;max-width:820px;padding:8px;color:#222}
h1{font-size:1.3em} table.sheet{border-collapse:collapse;width:100%;font-size:.9em}
.sheet td,.sheet th{border-bottom:1px solid #ddd;padding:3px 4px;text-align:left}
.sheet .n{text-align:right} .foul{color:#b00} .shot{border:1px solid #ccc;border-radius:6px;
margin:12px 0;padding:8px} .shot h2{font-size:1em;margin:0 0 6px} svg{width:100%;height:auto}
.still{width:100%;margin-top:6px} .win{font-weight:bold;color:#070}
.flags{color:#666;font-size:.85em}
"""


def table_svg(table: TableSpec, shot: Mapping[str, Any], verdict: Verdict) -> str:
    """Top-down picture, head cushion at the left: where balls stopped, paths, pots, respots."""
    L, W, r = table.length_mm, table.width_mm, table.ball_radius_mm

    def xy(p: Sequence[float]) -> tuple[float, float]:
        # Table frame -> picture: x to the right, y (toward the left cushion) upward.
        return ((p[0] + MARGIN) * SCALE, (W - p[1] + MARGIN) * SCALE)

    w, h = (L + 2 * MARGIN) * SCALE, (W + 2 * MARGIN) * SCALE
    parts = [
        f'<svg viewBox="0 0 {w:.0f} {h:.0f}" xmlns="http://www.w3.org/2000/svg" '
        f'role="img" aria-label="table after the shot">',
        f'<rect width="{w:.0f}" height="{h:.0f}" fill="#6b4423" rx="6"/>',
        f'<rect x="{MARGIN * SCALE}" y="{MARGIN * SCALE}" width="{L * SCALE}" '
        f'height="{W * SCALE}" fill="#2e7d4f"/>',
    ]
    hx, _ = xy((table.house_line_x, 0))
    parts.append(
        f'<line x1="{hx}" y1="{MARGIN * SCALE}" x2="{hx}" y2="{(W + MARGIN) * SCALE}" '
        'stroke="#ffffff55" stroke-width="1"/>'
    )
    for spot in (Spot.POINT1, Spot.POINT2, Spot.POINT3):
        cx, cy = xy(table.spot_xy(spot))
        parts.append(f'<circle cx="{cx}" cy="{cy}" r="1.5" fill="#ffffff88"/>')
    for pocket in Pocket:
        cx, cy = xy(table.pocket_xy(pocket))
        hit = verdict.pocket is pocket
        parts.append(
            f'<circle cx="{cx}" cy="{cy}" r="{table.pocket_mouth_mm(pocket) * SCALE * 0.7}"'
            f' fill="{"#ffcc00" if hit else "#111"}"/>'
        )
    for ball, path in (shot.get("paths") or {}).items():
        points = " ".join(f"{a:.1f},{b:.1f}" for a, b in (xy(p) for p in path))
        parts.append(
            f'<polyline points="{points}" fill="none" stroke="{BALL_FILL.get(ball, "#fff")}"'
            ' stroke-width="1.2" stroke-opacity=".8"/>'
        )
    # Where the balls stopped; without measured positions, where the referee placed them.
    respotted = {r.ball.value for r in verdict.respots}
    finals = shot.get("final_positions") or {
        b.value: p for b, p in verdict.positions_after.items() if b.value not in respotted}
    for ball, p in finals.items():
        cx, cy = xy(p)
        parts.append(
            f'<circle cx="{cx}" cy="{cy}" r="{r * SCALE}" fill="{BALL_FILL[ball]}" '
            f'stroke="#000" stroke-width=".5"><title>{ball}</title></circle>'
        )
        parts.append(
            f'<text x="{cx}" y="{cy - r * SCALE - 1.5}" font-size="7" fill="#fff" '
            f'text-anchor="middle">{ball}</text>'
        )
    for respot in verdict.respots:
        cx, cy = xy(respot.xy_mm)
        parts.append(
            f'<circle cx="{cx}" cy="{cy}" r="{r * SCALE}" fill="none" '
            f'stroke="{BALL_FILL[respot.ball.value]}" stroke-width="1.2" '
            f'stroke-dasharray="2 1.5"><title>put {respot.ball.value} here</title>'
            "</circle>"
        )
    parts.append("</svg>")
    return "".join(parts)


def render_html(report: Mapping[str, Any]) -> str:
    """The whole report page."""
    table = TableSpec.from_value(report["table"])
    shots = report.get("shots", [])
    final = report.get("final") or {}
    score = final.get("score", {})
    esc = html.escape
    title = f"Kaisa match report - {esc(str(report.get('source', '')))}"
    out = [
        f"<!doctype html><html lang=en><head><meta charset=utf-8><meta name=viewport "
        f'content="width=device-width,initial-scale=1"><title>{title}</title>'
        f"<style>{CSS}</style></head><body><h1>{title}</h1>"
    ]
    winner = report.get("winner")
    out.append(
        f"<p>Final score <b>{score.get('1', '?')}:{score.get('2', '?')}</b>"
        + (f" - <span class=win>player {winner} wins</span>" if winner else "")
        + f" &middot; rules: {esc(_rules_line(report.get('rules') or {}))}</p>"
    )
    video = report.get("annotated_video")
    if video:  # a path relative to the page when the page was written with it
        src = html.escape(str(video), quote=True)
        out.append(
            f"<p>Annotated video: <a href=\"{src}\">{esc(str(video).rsplit('/', 1)[-1])}</a></p>"
            f"<video class=still controls preload=metadata src=\"{src}\"></video>"
        )
    out.append(
        "<table class=sheet><tr><th class=n>#</th><th>time</th><th>player</th>"
        "<th>call</th><th>result</th><th class=n>pts</th><th class=n>score</th></tr>"
    )
    cards = []
    shot_no = 0
    for shot in shots:
        if "correction" in shot:
            c = shot["correction"]
            out.append(
                f"<tr><td></td><td></td><td colspan=4>score corrected by the referee: "
                f"{esc(c.get('reason', ''))}</td><td class=n>{c['score']['1']}:"
                f"{c['score']['2']}</td></tr>"
            )
            continue
        shot_no += 1
        verdict = Verdict.from_dict(shot["verdict"])
        t = shot["events"][0]["t"] if shot.get("events") else 0.0
        call = verdict.called.to_dict() if verdict.called else None
        call_text = f"{call['ball']} {call['pocket']}" if call else "-"
        words = esc(describe(verdict))
        css = " class=foul" if verdict.fouls else ""
        out.append(
            f"<tr><td class=n><a href='#s{shot_no}'>{shot_no}</a></td>"
            f"<td>{int(t // 60)}:{t % 60:04.1f}</td><td>P{verdict.shooter}</td>"
            f"<td>{esc(call_text)}</td><td{css}>{words.split('  ')[0]}</td>"
            f"<td class=n>{verdict.points - (verdict.penalty if verdict.penalty else 0):+d}"
            f"</td><td class=n>{verdict.score[0]}:{verdict.score[1]}</td></tr>"
        )
        still = shot.get("still_jpeg_b64")
        flags = ", ".join(f.value for f in verdict.flags)
        cards.append(
            f"<div class=shot id=s{shot_no}><h2>Shot {shot_no} &middot; player "
            f"{verdict.shooter} ({verdict.cue_ball.value}) &middot; {int(t // 60)}:{t % 60:04.1f}"
            f"</h2>{table_svg(table, shot, verdict)}<p>{words}</p>"
            + (f"<p class=flags>flags: {esc(flags)}</p>" if flags else "")
            + (
                f"<img class=still alt='video still' src='data:image/jpeg;base64,{still}'>"
                if still
                else ""
            )
            + "</div>"
        )
    out.append("</table>")
    out.extend(cards)
    out.append("</body></html>")
    return "\n".join(out)


def _rules_line(rules: Mapping[str, Any]) -> str:
    keys = ("calls", "banks", "penalty", "yellow_twice", "finish", "extra_pot_ends_turn")
    table = rules.get("table", {})
    name = table.get("name", "") if isinstance(table, Mapping) else str(table)
    return ", ".join(f"{k}={rules[k]}" for k in keys if k in rules) + (
        f", table={name}" if name else ""
    )
