"""The HTML match report: a referee's sheet. A header (file, date, players, final score, the rules
in words), the score sheet, then per shot what happened and why it scored what it did (with the
rule book's section), what to put back where, a top-down diagram in the cloth's colour, and the
stills at the strike and after the shot. One self-contained file (inline SVG and CSS), readable
on a phone and printable on A4.

It is drawn from the match report dict alone, so any saved report can be rendered again. Shots
may carry ``paths`` ({ball: [[x_mm, y_mm], ...]}), ``still_jpeg_b64`` and
``still_after_jpeg_b64`` when they come from video; the report may carry ``cloth_rgb`` (the
cloth's colour measured in the video), ``players`` and ``date``. Each is drawn when present.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import PurePath
from typing import Any

from referee.describe import (
    DEFAULT_PLAYERS,
    describe,
    explain,
    respot_notes,
    rules_in_words,
)
from rules import (
    Cushion,
    EventType,
    Flag,
    KaisaError,
    Pocket,
    RuleOptions,
    ShotFacts,
    Spot,
    TableSpec,
    Verdict,
)

BALL_FILL = {"W1": "#f4f1e6", "W2": "#f4f1e6", "R1": "#c8102e", "R2": "#c8102e", "Y": "#f2c500"}
DEFAULT_CLOTH = (46, 125, 79)  # a billiard green, when the report does not know the cloth
RAIL = "#4a2f1a"
SCALE = 0.2  # SVG units per mm: a 3550 mm table is 710 units wide
MARGIN = 190.0  # mm of rail drawn around the playing field (room for the pockets' names)
POCKETS = frozenset(p.value for p in Pocket)
LABEL = 30  # SVG units: about 13 px on a 400 px phone, where the diagram is ~360 px wide
BALL_DRAWN = 1.5  # balls are drawn this much larger than their size, to be seen on a phone
DIAGRAM_SPOT = {Spot.POINT1: "point 1", Spot.POINT2: "point 2", Spot.POINT3: "point 3",
                Spot.CUSHION_HEAD: "head cushion", Spot.CUSHION_FOOT: "foot cushion"}
FLAG_WORDS = {
    Flag.UNCALLED: "no call was known",
    Flag.EXTRA_POT: "another ball dropped as well",
    Flag.WRONG_POCKET: "the called ball dropped in another pocket",
    Flag.NOT_HIT: "the called ball dropped untouched",
    Flag.PENALTY_BUST: "penalty not given: it would pass the target",
    Flag.POSITIONS_ESTIMATED: "a ball's final place was not measured (estimated)",
    Flag.CAMERA_CONFLICT: "the camera's facts contradicted the game state: to be confirmed",
    Flag.NOT_JUDGED: "not judged: the operator judges this shot",
}

CSS = """
*{box-sizing:border-box}
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0 auto;
max-width:880px;padding:10px;color:#1d1d1d;line-height:1.4;font-size:16px}
h1{font-size:1.35em;margin:.2em 0;overflow-wrap:anywhere}
h2{font-size:1.1em;margin:1.2em 0 .4em;border-bottom:2px solid #333}
.meta{color:#444;margin:.2em 0}
.final{font-size:1.15em;margin:.5em 0}
.win{font-weight:bold;color:#06600f}
.rules{font-size:.9em;color:#333;margin:.3em 0 .6em;padding-left:1.2em}
table.sheet{border-collapse:collapse;width:100%;font-size:.9em}
.sheet td,.sheet th{border-bottom:1px solid #ddd;padding:4px 4px;text-align:left;
vertical-align:top}
.sheet .n{text-align:right;white-space:nowrap}
.foul{color:#b00000}
.legend{display:flex;flex-wrap:wrap;gap:4px 14px;font-size:.85em;margin:.4em 0;
align-items:center}
.legend span{overflow-wrap:anywhere}
.legend svg{width:auto;height:16px;vertical-align:-3px}
.shot{border:1px solid #bbb;border-radius:6px;margin:14px 0;padding:10px}
.shot h3{font-size:1.05em;margin:0 0 4px}
.outcome{margin:0 0 6px;font-weight:600}
.why{margin:0 0 6px}
.respot{background:#fff7d6;border:2px dashed #b58900;border-radius:6px;padding:6px 8px;
margin:6px 0}
.respot b{display:block}
.respot ul{margin:2px 0 0;padding-left:1.1em}
.chip{display:inline-block;min-width:1.9em;text-align:center;border-radius:9px;
padding:0 4px;margin-right:4px;font-weight:bold;border:1px solid #333;font-size:.85em}
figure{margin:6px 0}
figcaption{font-size:.8em;color:#555}
.diagram svg{width:100%;height:auto;display:block}
.pics{display:grid;grid-template-columns:minmax(0,3fr) minmax(0,2fr);gap:10px;align-items:start}
.stills{display:grid;grid-template-columns:minmax(0,1fr);gap:6px}
.stills img{width:100%;height:auto;display:block;border-radius:4px}
.notes{color:#555;font-size:.85em;margin:4px 0 0}
video{width:100%}
footer{color:#555;font-size:.85em;margin:16px 0}
@media (max-width:560px){
body{padding:6px;font-size:15px}
.shot{padding:7px}
.pics{grid-template-columns:minmax(0,1fr)}
.sheet .t{display:none}
}
@media print{
@page{size:A4;margin:12mm}
*{-webkit-print-color-adjust:exact;print-color-adjust:exact}
body{max-width:none;padding:0;font-size:10pt}
video,.video{display:none}
a{color:inherit;text-decoration:none}
h2{break-after:avoid}
.sheet tr,.shot{break-inside:avoid}
.shot{margin:6mm 0;padding:3mm}
.pics{grid-template-columns:minmax(0,3fr) minmax(0,2fr)}
}
"""


def _hex(rgb: Sequence[int]) -> str:
    return "#" + "".join(f"{max(0, min(255, int(v))):02x}" for v in rgb[:3])


def cloth_colour(report: Mapping[str, Any]) -> str:
    """The diagrams' cloth: the colour measured in the video (``cloth_rgb``), else green."""
    rgb = report.get("cloth_rgb")
    if (isinstance(rgb, Sequence) and len(rgb) == 3
            and all(isinstance(v, int | float) and not isinstance(v, bool) for v in rgb)):
        return _hex([int(v) for v in rgb])
    return _hex(DEFAULT_CLOTH)


def _light(colour: str) -> bool:
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return 0.299 * r + 0.587 * g + 0.114 * b > 150


def _text(x: float, y: float, words: str, size: float = LABEL, anchor: str = "middle",
          fill: str = "#fff", halo: str = "#000", rotate: float = 0.0) -> str:
    turn = f' transform="rotate({rotate:g} {x:.1f} {y:.1f})"' if rotate else ""
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size:g}" fill="{fill}" '
            f'text-anchor="{anchor}" dominant-baseline="central" stroke="{halo}" '
            f'stroke-width="{size / 6:.1f}" paint-order="stroke" font-family="sans-serif"'
            f'{turn}>{html.escape(words)}</text>')


def table_svg(table: TableSpec, shot: Mapping[str, Any], verdict: Verdict,
              cloth: str = "#2e7d4f", rest: Mapping[str, Sequence[float]] | None = None) -> str:
    """Top-down picture, head cushion at the left: the pockets' and cushions' names, where the
    balls stopped, their paths, the pockets balls dropped in (the scored one ringed in gold),
    and the respot boxes (which ball goes to which point)."""
    L, W = table.length_mm, table.width_mm
    r = table.ball_radius_mm * BALL_DRAWN
    m = MARGIN * SCALE

    def xy(p: Sequence[float]) -> tuple[float, float]:
        # Table frame -> picture: x to the right, y (toward the left cushion) upward.
        return ((p[0] + MARGIN) * SCALE, (W - p[1] + MARGIN) * SCALE)

    w, h = (L + 2 * MARGIN) * SCALE, (W + 2 * MARGIN) * SCALE
    ink = "#000" if _light(cloth) else "#fff"  # marks on the cloth
    parts = [
        f'<svg viewBox="0 0 {w:.0f} {h:.0f}" xmlns="http://www.w3.org/2000/svg" '
        f'role="img" aria-label="the table after the shot">',
        f'<rect width="{w:.0f}" height="{h:.0f}" fill="{RAIL}" rx="10"/>',
        f'<rect x="{m}" y="{m}" width="{L * SCALE}" height="{W * SCALE}" fill="{cloth}"/>',
    ]
    hx, _ = xy((table.house_line_x, 0))
    parts.append(f'<line x1="{hx}" y1="{m}" x2="{hx}" y2="{h - m}" stroke="{ink}" '
                 'stroke-opacity=".45" stroke-width="1.5"/>')
    for spot in (Spot.POINT1, Spot.POINT2, Spot.POINT3):
        cx, cy = xy(table.spot_xy(spot))
        parts.append(f'<circle cx="{cx}" cy="{cy}" r="2.5" fill="{ink}" fill-opacity=".6"/>')
    # names: pockets on the rail beside their mouths, cushions along their rails
    gold = "#ffc400"
    scored_pocket = verdict.pocket
    for pocket in Pocket:
        cx, cy = xy(table.pocket_xy(pocket))
        mouth = table.pocket_mouth_mm(pocket) * SCALE * 0.75
        parts.append(f'<circle cx="{cx}" cy="{cy}" r="{mouth:.1f}" fill="#0b0b0b"'
                     + (f' stroke="{gold}" stroke-width="5"' if pocket is scored_pocket else "")
                     + f'><title>{pocket.value}</title></circle>')
        top = cy < h / 2
        ty = m / 2 if top else h - m / 2
        if pocket.is_middle:
            tx, anchor = cx + mouth + 6, "start"
        else:
            left = cx < w / 2
            tx, anchor = (cx + mouth + 6, "start") if left else (cx - mouth - 6, "end")
        parts.append(_text(tx, ty, pocket.value, anchor=anchor,
                           fill=gold if pocket is scored_pocket else "#f3e6cc"))
    for name, (tx, ty, turn) in {
        Cushion.HEAD: (m / 2, h / 2, -90.0), Cushion.FOOT: (w - m / 2, h / 2, 90.0),
        Cushion.LEFT: (m + L * SCALE * 0.25, m / 2, 0.0),
        Cushion.RIGHT: (m + L * SCALE * 0.25, h - m / 2, 0.0),
    }.items():
        parts.append(_text(tx, ty, f"{name.value} cushion", size=LABEL * 0.8, fill="#e8d5b0",
                           rotate=turn))
    for ball, path in (shot.get("paths") or {}).items():
        if len(path) < 2:
            continue
        points = " ".join(f"{a:.1f},{b:.1f}" for a, b in (xy(p) for p in path))
        colour = BALL_FILL.get(ball, "#fff")
        sx, sy = xy(path[0])  # where it was struck or hit from: a ring
        parts.append(f'<polyline points="{points}" fill="none" stroke="#000" '
                     'stroke-opacity=".55" stroke-width="5" stroke-linejoin="round"/>'
                     f'<polyline points="{points}" fill="none" stroke="{colour}" '
                     'stroke-width="2.5" stroke-linejoin="round"/>'
                     f'<circle cx="{sx:.1f}" cy="{sy:.1f}" r="{r * SCALE:.1f}" fill="none" '
                     f'stroke="#000" stroke-width="4" stroke-opacity=".55"/>'
                     f'<circle cx="{sx:.1f}" cy="{sy:.1f}" r="{r * SCALE:.1f}" fill="none" '
                     f'stroke="{colour}" stroke-width="2"/>')
    # balls that dropped, shown in their pockets
    for event in shot.get("events") or []:
        if event.get("type") != EventType.POCKET.value or event.get("pocket") not in POCKETS:
            continue
        cx, cy = xy(table.pocket_xy(Pocket(event["pocket"])))
        ball = str(event.get("ball"))
        parts.append(f'<circle cx="{cx}" cy="{cy}" r="{r * SCALE:.1f}" '
                     f'fill="{BALL_FILL.get(ball, "#fff")}" stroke="#000" stroke-width=".8">'
                     f'<title>{html.escape(ball)} in {event["pocket"]}</title></circle>')
    # Where the balls stopped (``rest``, worked out by the caller from the state before the shot
    # and its final positions); without it, the shot's final positions or the referee's places.
    respotted = {rs.ball.value for rs in verdict.respots}
    finals = dict(rest) if rest is not None else (shot.get("final_positions") or {
        b.value: p for b, p in verdict.positions_after.items() if b.value not in respotted})
    box = 3.2 * r * SCALE  # a respot box's side
    field = (m, m, w - m, h - m)
    taken: list[tuple[float, float, float, float]] = []  # what a label must not cover
    for p in finals.values():
        cx, cy = xy(p)
        taken.append((cx - r * SCALE, cy - r * SCALE, cx + r * SCALE, cy + r * SCALE))
    for respot in verdict.respots:
        cx, cy = xy(respot.xy_mm)
        taken.append((cx - box / 2, cy - box / 2, cx + box / 2, cy + box / 2))

    def label_at(cx: float, cy: float, gap: float, words: str, size: float
                 ) -> tuple[float, float]:
        """A place for a label beside (cx, cy), inside the field, over no ball, box or label:
        above, else below, right or left (above when none is free)."""
        tw, th = 0.6 * size * len(words), size
        tries = []
        for dx, dy in ((0, -1), (0, 1), (1, 0), (-1, 0)):
            x = cx + dx * (gap + tw / 2 + 2)
            y = cy + dy * (gap + th * 0.6)
            x = min(max(x, field[0] + tw / 2 + 2), field[2] - tw / 2 - 2)
            y = min(max(y, field[1] + th / 2 + 1), field[3] - th / 2 - 1)
            tries.append((x, y, (x - tw / 2, y - th / 2, x + tw / 2, y + th / 2)))
        free = [(x, y, a) for x, y, a in tries
                if not any(a[0] < t[2] and t[0] < a[2] and a[1] < t[3] and t[1] < a[3]
                           for t in taken)]
        x, y, area = (free or tries)[0]
        taken.append(area)
        return x, y

    for ball, p in finals.items():
        cx, cy = xy(p)
        parts.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{r * SCALE:.1f}" '
                     f'fill="{BALL_FILL.get(ball, "#fff")}" stroke="#000" stroke-width="1">'
                     f'<title>{html.escape(ball)}</title></circle>')
    # the respot boxes: a dashed box round the place, the ball's ghost, "Y → point 2"
    for respot in verdict.respots:
        cx, cy = xy(respot.xy_mm)
        ball = respot.ball.value
        parts.append(
            f'<rect x="{cx - box / 2:.1f}" y="{cy - box / 2:.1f}" width="{box:.1f}" '
            f'height="{box:.1f}" fill="none" stroke="{gold}" stroke-width="2.5" '
            f'stroke-dasharray="5 3"><title>put {ball} here</title></rect>'
            f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{r * SCALE:.1f}" '
            f'fill="{BALL_FILL[ball]}" fill-opacity=".55" stroke="{gold}" stroke-width="1.5"/>')
        words = f"{ball} \u2192 {DIAGRAM_SPOT[respot.spot]}"
        tx, ty = label_at(cx, cy, box / 2, words, LABEL * 0.9)
        parts.append(_text(tx, ty, words, size=LABEL * 0.9, fill=gold, halo="#000"))
    for ball, p in finals.items():
        cx, cy = xy(p)
        tx, ty = label_at(cx, cy, r * SCALE, ball, LABEL * 0.85)
        parts.append(_text(tx, ty, ball, size=LABEL * 0.85, fill="#fff", halo="#000"))
    parts.append("</svg>")
    return "".join(parts)


def legend_html(cloth: str) -> str:
    """What the diagrams' marks mean (once, above the shots)."""

    def swatch(body: str, width: int = 22) -> str:
        return (f'<svg viewBox="0 0 {width} 16" width="{width}" height="16" '
                f'xmlns="http://www.w3.org/2000/svg">{body}</svg>')

    def ball(fill: str) -> str:
        return swatch(f'<circle cx="8" cy="8" r="6.5" fill="{fill}" stroke="#000"/>', 16)

    items = [
        f"{ball(BALL_FILL['W1'])} W1, W2: the whites (player 1's, player 2's)",
        f"{ball(BALL_FILL['R1'])} R1, R2: the reds",
        f"{ball(BALL_FILL['Y'])} Y: the yellow (kaisa)",
        swatch('<line x1="9" y1="8" x2="21" y2="8" stroke="#000" stroke-width="4"/>'
               f'<line x1="9" y1="8" x2="21" y2="8" stroke="{BALL_FILL["R1"]}" '
               f'stroke-width="2"/><circle cx="5" cy="8" r="4" fill="none" '
               f'stroke="{BALL_FILL["R1"]}" stroke-width="2"/>')
        + " a ball's path, from the ring where it started",
        swatch('<rect x="2" y="1" width="14" height="14" fill="none" stroke="#b58900" '
               'stroke-width="2" stroke-dasharray="3 2"/>', 18) + " put the ball back here",
        swatch('<circle cx="8" cy="8" r="5" fill="#111" stroke="#ffc400" stroke-width="2.5"/>',
               16) + " pocket of the scoring ball",
        swatch(f'<rect width="22" height="16" fill="{cloth}"/><line x1="8" y1="0" x2="8" '
               'y2="16" stroke="#fff" stroke-opacity=".6"/><circle cx="16" cy="8" r="2" '
               'fill="#fff"/>') + " house line, points 1-3",
        "head cushion at the left; HR, HL, MR, ML, FR, FL: the pockets; balls drawn 1.5 "
        "times their size",
    ]
    return "<div class=legend>" + "".join(f"<span>{i}</span>" for i in items) + "</div>"


def _names(report: Mapping[str, Any], players: Sequence[str] | None) -> tuple[str, str]:
    given = players if players is not None else report.get("players")
    if (isinstance(given, Sequence) and not isinstance(given, str) and len(given) == 2
            and all(isinstance(n, str) and n.strip() for n in given)):
        return (given[0].strip(), given[1].strip())
    return DEFAULT_PLAYERS


def _clock(t: float) -> str:
    return f"{int(t // 60)}:{t % 60:04.1f}"


def _options(report: Mapping[str, Any], table: TableSpec) -> RuleOptions:
    rules = dict(report.get("rules") or {})
    rules["table"] = table.to_dict()
    try:
        return RuleOptions.from_mapping(rules)
    except KaisaError:  # a report from another version: the words fall back to the defaults
        return RuleOptions(table=table)


def render_html(report: Mapping[str, Any], players: Sequence[str] | None = None) -> str:
    """The whole report page. ``players``: the two players' names (else the report's
    ``players``, else "Player 1" and "Player 2")."""
    table = TableSpec.from_value(report["table"])
    options = _options(report, table)
    names = _names(report, players)
    cloth = cloth_colour(report)
    shots = report.get("shots", [])
    final = report.get("final") or {}
    score = final.get("score", {})
    esc = html.escape
    source = report.get("video") or report.get("source") or ""
    file_name = PurePath(str(source)).name if source else "match"
    date = str(report.get("date") or datetime.now(UTC).date().isoformat())
    title = f"Kaisa match report: {file_name}"
    out = [
        "<!doctype html><html lang=en><head><meta charset=utf-8><meta name=viewport "
        f'content="width=device-width,initial-scale=1"><title>{esc(title)} ({esc(date)})'
        f"</title><style>{CSS}</style></head><body>",
        f"<h1>Kaisa match report: {esc(file_name)}</h1>",
        f"<p class=meta>{esc(date)} &middot; {esc(names[0])} (W1) against {esc(names[1])} "
        f"(W2)</p>",
    ]
    winner = report.get("winner")
    won = (f" &middot; <span class=win>{esc(names[winner - 1])} wins</span>"
           if winner in (1, 2) else "")
    out.append(f"<p class=final>Final score: {esc(names[0])} <b>{score.get('1', '?')}</b> : "
               f"<b>{score.get('2', '?')}</b> {esc(names[1])}{won}</p>")
    out.append("<p class=meta>Rules applied:</p><ul class=rules>"
               + "".join(f"<li>{esc(w)}</li>" for w in rules_in_words(options)) + "</ul>")
    video = report.get("annotated_video")
    if video:  # a path relative to the page when the page was written with it
        src = html.escape(str(video), quote=True)
        out.append(f"<p class=video>Annotated video: <a href=\"{src}\">"
                   f"{esc(str(video).rsplit('/', 1)[-1])}</a></p>"
                   f"<video controls preload=metadata src=\"{src}\"></video>")
    out.append(
        "<h2>Score sheet</h2><table class=sheet><tr><th class=n>#</th><th class=t>time</th>"
        "<th>player</th><th>call</th><th>result</th><th class=n>pts</th>"
        "<th class=n>score</th></tr>"
    )
    cards = []
    shot_no = 0
    positions = _start_positions(report, table)  # the balls on the table before each shot
    for shot in shots:
        if "correction" in shot:
            c = shot["correction"]
            out.append(
                f"<tr><td></td><td class=t></td><td colspan=4>score corrected by the referee: "
                f"{esc(c.get('reason', ''))}</td><td class=n>{c['score']['1']}:"
                f"{c['score']['2']}</td></tr>"
            )
            cards.append(f"<p class=notes>Score corrected by the referee to {c['score']['1']}:"
                         f"{c['score']['2']}: {esc(c.get('reason', ''))}</p>")
            continue
        shot_no += 1
        verdict = Verdict.from_dict(shot["verdict"])
        facts = ShotFacts.from_dict({"events": shot["events"], "call": shot.get("call")})
        t = facts.strike.t
        call = verdict.called.to_dict() if verdict.called else None
        call_text = f"{call['ball']} {call['pocket']}" if call else "-"
        short = describe(verdict).split("  ")[0]
        css = " class=foul" if verdict.fouls else ""
        shooter = names[verdict.shooter - 1]
        net = verdict.points - verdict.penalty
        out.append(
            f"<tr><td class=n><a href='#s{shot_no}'>{shot_no}</a></td>"
            f"<td class=t>{_clock(t)}</td><td>{esc(shooter)}</td>"
            f"<td>{esc(call_text)}</td><td{css}>{esc(short)}</td>"
            f"<td class=n>{net:+d}</td><td class=n>{verdict.score[0]}:{verdict.score[1]}</td>"
            "</tr>"
        )
        gone = {e.ball.value for e in facts.events
                if e.type in (EventType.POCKET, EventType.OFF_TABLE)}
        rest = {b: p for b, p in positions.items() if b not in gone}
        rest.update(shot.get("final_positions") or {})
        cards.append(_card(shot_no, shot, verdict, facts, options, names, table, cloth, rest))
        positions = {b.value: list(p) for b, p in verdict.positions_after.items()}
    out.append("</table>")
    out.append("<h2>Shots</h2>" + legend_html(cloth))
    out.extend(cards)
    out.append("<footer>&sect; numbers are the sections of the rule book the program applies "
               "(docs/rules.md of kaisa-referee). Positions were measured from the video; a "
               "human referee has the last word.</footer>")
    out.append("</body></html>")
    return "\n".join(out)


def _start_positions(report: Mapping[str, Any], table: TableSpec) -> dict[str, Any]:
    """The balls on the table at the report's start (the opening layout when it has none)."""
    start = report.get("start")
    given = start.get("positions") if isinstance(start, Mapping) else None
    if isinstance(given, Mapping):
        return {str(b): p for b, p in given.items()}
    return {"R1": list(table.spot_xy(Spot.POINT1)), "Y": list(table.spot_xy(Spot.POINT2)),
            "R2": list(table.spot_xy(Spot.POINT3))}


def _card(no: int, shot: Mapping[str, Any], verdict: Verdict, facts: ShotFacts,
          options: RuleOptions, names: Sequence[str], table: TableSpec, cloth: str,
          rest: Mapping[str, Sequence[float]]) -> str:
    esc = html.escape
    shooter = names[verdict.shooter - 1]
    if verdict.winner is not None:
        turn = f"{names[verdict.winner - 1]} wins"
    elif verdict.turn_passes:
        turn = f"{names[verdict.opponent - 1]} to play"
    else:
        turn = f"{shooter} plays again"
    net = verdict.points - verdict.penalty
    foul = (" <span class=foul>(" + esc(describe(verdict).split("  ")[0]) + ")</span>"
            if verdict.fouls or verdict.penalty else "")
    parts = [
        f"<article class=shot id=s{no}><h3>Shot {no} &middot; {_clock(facts.strike.t)} "
        f"&middot; {esc(shooter)} ({verdict.cue_ball.value})</h3>",
        f"<p class=outcome>{net:+d} &middot; score {verdict.score[0]}:{verdict.score[1]} "
        f"&middot; {esc(turn)}{foul}</p>",
        f"<p class=why>{esc(explain(verdict, facts, options, names))}</p>",
    ]
    notes = respot_notes(verdict, facts, names)
    if notes:
        parts.append("<div class=respot><b>Put back</b><ul>" + "".join(
            f"<li><span class=chip style=\"background:{BALL_FILL[b]};color:"
            f"{'#000' if b in ('W1', 'W2', 'Y') else '#fff'}\">{b}</span>{esc(text)}</li>"
            for b, text in notes) + "</ul></div>")
    parts.append(f"<div class=pics><figure class=diagram>"
                 f"{table_svg(table, shot, verdict, cloth, rest)}<figcaption>Seen from above, head "
                 "cushion at the left: where the balls stopped and their paths.</figcaption>"
                 "</figure>")
    stills = [(shot.get("still_jpeg_b64"), "At the strike"),
              (shot.get("still_after_jpeg_b64"), "After the shot")]
    if any(s for s, _ in stills):
        parts.append("<div class=stills>" + "".join(
            f"<figure><img alt='video still: {caption.lower()}' "
            f"src='data:image/jpeg;base64,{still}'><figcaption>{caption}</figcaption></figure>"
            for still, caption in stills if still) + "</div>")
    parts.append("</div>")
    remarks = [FLAG_WORDS[f] for f in verdict.flags
               if f not in (Flag.UNCALLED, Flag.EXTRA_POT)]  # (those are told above)
    for w in shot.get("placement_warnings") or []:
        remarks.append(_placement_words(w))
    remarks += [f"camera: {note}" for note in shot.get("left_out") or []]
    remarks += [f"camera conflict: {note}" for note in _listed(shot.get("conflicts"))]
    remarks += [f"camera conflict, settled by the operator's override: {note}"
                for note in _listed(shot.get("conflicts_overridden"))]
    if remarks:
        parts.append(f"<p class=notes>Notes: {esc('; '.join(remarks))}</p>")
    parts.append("</article>")
    return "".join(parts)


def _listed(notes: object) -> list[str]:
    """A report's list of notes (a camera's conflicts), or none when it holds something else."""
    return [str(n) for n in notes] if isinstance(notes, list) else []


def _placement_words(warning: Mapping[str, Any]) -> str:
    ball, problem = warning.get("ball", "?"), warning.get("problem")
    if problem == "off_target" and isinstance(warning.get("distance_mm"), int | float):
        return f"before this shot {ball} was {warning['distance_mm']:.0f} mm from its spot"
    if problem == "missing":
        return f"before this shot {ball} was not put back"
    if problem == "outside_house":
        return f"before this shot {ball} (in hand) was placed outside the house"
    return f"placement of {ball}: {problem}"
