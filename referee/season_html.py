"""The season page (``kaisa season``): the standings, each player's shots (caroms, pots by ball,
fouls by kind) and the list of matches. One self-contained file in the match report's style
(:mod:`referee.html_report`'s CSS), readable on a phone (wide tables scroll sideways, the
player's name staying in view) and printable on A4. Drawn from a :class:`referee.season.Season`
alone."""

from __future__ import annotations

import html
from datetime import UTC, datetime

from referee.html_report import CSS
from referee.season import FOUL_KINDS, POT_BALLS, RUNNING, MatchRow, PlayerStats, Season

SEASON_CSS = """
.scroll{overflow-x:auto;-webkit-overflow-scrolling:touch;margin:.3em 0}
table.stats{border-collapse:collapse;font-size:.9em;min-width:100%}
.stats td,.stats th{border-bottom:1px solid #ddd;padding:4px 6px;text-align:right;
white-space:nowrap}
.stats th{vertical-align:bottom;font-weight:600;white-space:normal;min-width:3.2em}
.stats .name{text-align:left;position:sticky;left:0;background:#fff;white-space:normal;
min-width:6em}
.list td,.list th{text-align:left;white-space:normal}
.list .name{position:static;overflow-wrap:anywhere;min-width:0}
.list td:first-child{white-space:nowrap}
.stats tr.running td{color:#555;font-style:italic}
.note{background:#f3f3f3;border-left:4px solid #888;padding:6px 8px;margin:8px 0;
font-size:.92em}
dl.terms{font-size:.88em;color:#333}
dl.terms dt{font-weight:600;margin-top:.4em}
dl.terms dd{margin:0 0 0 1em}
@media (max-width:560px){.stats{font-size:.85em}.stats td,.stats th{padding:3px 4px}}
@media print{.scroll{overflow:visible}.stats{font-size:8.5pt}.stats .name{position:static}
.stats tr{break-inside:avoid}}
"""

FOUL_HEADINGS = {f: f.value.replace("_", " ") for f in FOUL_KINDS}
POT_WORDS = {"W": "white", "R": "red", "Y": "yellow"}


def render_season(season: Season, source: str = "") -> str:
    """The whole page; ``source``: what it was made from (the journal, the folder)."""
    esc = html.escape
    counts = season.counts()
    dates = sorted(m.date for m in season.matches if m.date)
    span = (f"{dates[0]} to {dates[-1]}" if dates and dates[0] != dates[-1] else
            dates[0] if dates else "dates unknown")
    made = datetime.now(UTC).date().isoformat()
    n = len(season.matches)
    out = [
        "<!doctype html><html lang=en><head><meta charset=utf-8><meta name=viewport "
        'content="width=device-width,initial-scale=1">'
        f"<title>Kaisa season: {n} match{'es' if n != 1 else ''} ({esc(span)})</title>"
        f"<style>{CSS}{SEASON_CSS}</style></head><body>",
        f"<h1>Kaisa season: {n} match{'es' if n != 1 else ''}</h1>",
        f"<p class=meta>{esc(span)} &middot; {len(season.players)} players"
        + (f" &middot; from {esc(source)}" if source else "") + f" &middot; made {made}</p>",
        f"<p class=meta>{counts['finished']} finished &middot; {counts['ended']} with no "
        f"result &middot; {counts[RUNNING]} running</p>",
    ]
    if season.per_seat:
        out.append("<p class=note>Some matches have no players' names: there \"Player 1\" "
                   "(who plays W1) and \"Player 2\" (W2) are seats, not people, and their "
                   "totals add up every unnamed match. Name the players with --players or a "
                   "matches file (--matches).</p>")
    if counts[RUNNING]:
        are = "es are" if counts[RUNNING] != 1 else " is"
        out.append(f"<p class=note>{counts[RUNNING]} match{are} still running: listed below as "
                   "such, counted in no one's wins or losses (the shots so far are counted).</p>")
    out.append("<h2>Standings</h2>" + _standings(season.players))
    out.append("<h2>Shots</h2>" + _shots(season.players))
    out.append("<h2>Matches</h2>" + _matches(season.matches))
    out.append(TERMS)
    out.append("<footer>Made by kaisa-referee from its verdicts; a human referee has the last "
               "word.</footer></body></html>")
    return "\n".join(out)


def _table(head: list[str], rows: list[str], css: str = "stats") -> str:
    return (f"<div class=scroll><table class=\"{css}\"><thead><tr>" + "".join(head)
            + "</tr></thead><tbody>" + "".join(rows) + "</tbody></table></div>")


def _th(text: str, title: str = "", name: bool = False) -> str:
    css = " class=name" if name else ""
    tip = f' title="{html.escape(title, quote=True)}"' if title else ""
    return f"<th{css}{tip}>{html.escape(text)}</th>"


def _row(player: str, cells: list[object]) -> str:
    attr = html.escape(player, quote=True)
    return (f'<tr data-player="{attr}"><td class=name>{html.escape(player)}</td>'
            + "".join(f"<td>{html.escape(str(c))}</td>" for c in cells) + "</tr>")


def _standings(players: tuple[PlayerStats, ...]) -> str:
    head = [_th("player", name=True), _th("matches"), _th("won"), _th("lost"),
            _th("no result", "refereed to the end of the record without a winner"),
            _th("running"), _th("innings"), _th("points", "made at the table"),
            _th("average", "points per inning"), _th("best inning")]
    rows = [_row(p.name, [p.matches, p.won, p.lost, p.no_result, p.running, p.innings,
                          p.points, f"{p.average:.2f}", p.best_inning]) for p in players]
    return _table(head, rows)


def _shots(players: tuple[PlayerStats, ...]) -> str:
    kinds = [f for f in FOUL_KINDS if any(p.fouls[f] for p in players)]
    head = [_th("player", name=True), _th("shots"), _th("caroms"),
            *(_th(f"{POT_WORDS[b]} pots") for b in POT_BALLS), _th("fouls"),
            *(_th(FOUL_HEADINGS[f]) for f in kinds), _th("penalty points")]
    rows = [_row(p.name, [p.shots, p.caroms, *(p.pots[b] for b in POT_BALLS), p.foul_count,
                          *(p.fouls[f] for f in kinds), p.penalty_points]) for p in players]
    return _table(head, rows)


def _matches(matches: tuple[MatchRow, ...]) -> str:
    head = [_th("date"), "<th class=name>match</th>", _th("players"), _th("result"),
            _th("shots")]
    rows = []
    for m in matches:
        css = " class=running" if m.status == RUNNING else ""
        ident = f" (match {m.match_id})" if m.match_id is not None else ""
        rows.append(
            f"<tr{css}><td>{html.escape(m.date or '?')}</td><td class=name>"
            f"{html.escape(m.name or m.source or '?')}{html.escape(ident)}</td>"
            f"<td>{html.escape(m.players[0])} &ndash; {html.escape(m.players[1])}</td>"
            f"<td>{html.escape(m.result)}"
            + (f" (score corrected {m.corrections}&times;)" if m.corrections else "")
            + f"</td><td>{m.shots}</td></tr>")
    return _table(head, rows, "stats list")


TERMS = """<h2>What is counted</h2><dl class=terms>
<dt>points</dt><dd>what the player's own shots scored at the table. A match started from
another score, a score corrected by hand and penalties are not in it (penalties have their own
column), so points and final scores can differ.</dd>
<dt>inning</dt><dd>a player's run of shots at the table until the turn passes (or the match is
won, or its record ends). The average is points per inning; the best inning is the most points
made in one.</dd>
<dt>caroms</dt><dd>the carom balls of the player's scoring shots (a pot off two balls counts
two).</dd>
<dt>pots</dt><dd>the scoring pots, by the ball that scored (white: the opponent's).</dd>
<dt>fouls</dt><dd>each foul of each shot, by kind (one shot can have two); penalty points: the
penalties those shots incurred.</dd>
<dt>no result</dt><dd>a match refereed to the end of its record (a clip, a session cut short)
without a winner. Running: still being refereed, or stopped before its end.</dd>
</dl>"""
