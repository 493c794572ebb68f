"""The HTML report as a referee's sheet (referee/html_report.py): names, date and file name in
the header, the rules in words, per shot the explanation, the respot box on the diagram and in
words, the diagram in the cloth's colour with pocket and cushion names, a legend, both stills,
and print CSS for A4."""

from __future__ import annotations

import html
import re
from typing import Any

from referee.describe import explain
from referee.html_report import DEFAULT_CLOTH, render_html
from rules import GameState, RuleOptions, ShotFacts, advance, judge
from tests.rules.builders import hit, midgame, pot, shot, strike


def _report(*facts: ShotFacts, state: GameState | None = None, **extra: Any) -> dict[str, Any]:
    """A match report as app.match_report writes it, of the shots ``facts`` played in turn."""
    state = state or midgame()
    start = state
    shots = []
    for f in facts:
        verdict = judge(state, f)
        shots.append({**f.to_dict(), "verdict": verdict.to_dict()})
        state = advance(state, verdict)
    return {"format": "kaisa-match-report/1", "video": None, "source": "/home/x/clips/m.json",
            "table": state.options.table.to_dict(), "rules": state.options.to_dict(),
            "start": start.to_dict(), "shots": shots, "final": state.to_dict(),
            "winner": state.winner, **extra}


def _diagram(page: str) -> str:
    """The first shot's diagram."""
    start = page.index('aria-label="the table after the shot"')
    return page[start:page.index("</svg>", start)]


POT_R1 = shot(strike("W1"), hit("W1", "R1"), pot("R1", "FL"), call="R FL")


def test_the_title_names_the_file_not_its_path_and_the_header_the_date_and_players():
    page = render_html(_report(POT_R1, date="2026-12-06"), players=["Anna", "Boris"])
    title = re.search(r"<title>(.*?)</title>", page)
    assert title is not None and "m.json" in title.group(1)
    assert "/home/x" not in page
    assert "2026-12-06" in page
    assert "Anna (W1) against Boris (W2)" in page
    assert "<td>Anna</td>" in page  # the score sheet's player column


def test_names_come_from_the_argument_then_the_report_then_the_defaults():
    report = _report(POT_R1)
    assert "Player 1 (W1) against Player 2 (W2)" in render_html(report)
    report["players"] = ["Kari", "Lasse"]
    assert "Kari (W1) against Lasse (W2)" in render_html(report)
    assert "Anna (W1) against Boris (W2)" in render_html(report, players=["Anna", "Boris"])
    assert "Player 1 (W1)" in render_html(report, players=["only one"])  # refused: defaults


def test_the_winner_is_named():
    state = midgame(score=(57, 40))
    page = render_html(_report(POT_R1, state=state), players=["Anna", "Boris"])
    assert "<span class=win>Anna wins</span>" in page


def test_each_shot_is_explained_in_its_card():
    facts = shot(strike("W1"), hit("W1", "R1"), hit("W1", "Y"), pot("R1", "FL"), call="R FL")
    report = _report(facts)
    page = render_html(report, players=["Anna", "Boris"])
    verdict = judge(midgame(), facts)
    assert html.escape(explain(verdict, facts, RuleOptions(), ("Anna", "Boris"))) in page
    assert "= 9 points (§4)" in page


def test_the_rules_read_as_words():
    page = render_html(_report(POT_R1))
    rules = re.sub(r"<[^>]+>", " ", page[page.index("Rules applied"):page.index("Score sheet")])
    assert "extra balls pocketed do not end the turn" in rules
    assert "=" not in rules and "False" not in rules and "extra_pot" not in rules


def test_the_respot_box_is_drawn_and_labelled_on_the_diagram_and_said_in_words():
    page = render_html(_report(POT_R1))
    svg = _diagram(page)
    assert "<title>put R1 here</title>" in svg and "stroke-dasharray" in svg
    assert "R1 \u2192 point 1</text>" in svg
    box = page[page.index("<div class=respot>"):]
    assert "R1 on point 1 (front spot): pocketed" in box


def test_the_diagram_has_the_clothes_colour_pocket_and_cushion_names_and_a_legend():
    default = "#{:02x}{:02x}{:02x}".format(*DEFAULT_CLOTH)
    assert f'fill="{default}"' in render_html(_report(POT_R1))
    page = render_html(_report(POT_R1, cloth_rgb=[30, 60, 200]))
    assert 'fill="#1e3cc8"' in page and f'fill="{default}"' not in page
    svg = _diagram(page)
    for name in ("HR", "HL", "MR", "ML", "FR", "FL"):
        assert f">{name}</text>" in svg
    for cushion in ("head", "foot", "left", "right"):
        assert f">{cushion} cushion</text>" in svg
    assert "<div class=legend>" in page and "put the ball back here" in page


def test_both_stills_are_shown_when_the_report_has_them():
    report = _report(POT_R1)
    report["shots"][0]["still_jpeg_b64"] = "QUJD"
    report["shots"][0]["still_after_jpeg_b64"] = "REVG"
    page = render_html(report)
    assert "base64,QUJD'><figcaption>At the strike" in page
    assert "base64,REVG'><figcaption>After the shot" in page
    del report["shots"][0]["still_after_jpeg_b64"]
    assert "After the shot</figcaption>" not in render_html(report)


def test_the_page_fits_a_phone_and_prints_on_a4():
    page = render_html(_report(POT_R1))
    assert 'name=viewport content="width=device-width,initial-scale=1"' in page
    assert "@media (max-width:560px)" in page
    printed = page[page.index("@media print"):]
    assert "size:A4" in printed and "break-inside:avoid" in printed


def test_the_diagram_shows_every_ball_on_the_table_not_only_those_that_moved():
    # POT_R1 gives no final positions: the balls that took no part stay where the state had them
    svg = _diagram(render_html(_report(POT_R1)))
    for ball in ("W1", "W2", "Y", "R2"):
        assert f"<title>{ball}</title></circle>" in svg
    assert "<title>R1</title>" not in svg and "<title>R1 in FL</title>" in svg  # in its pocket
    labels = re.findall(r'<text x="([\d.]+)" y="([\d.]+)"[^>]*>(W1|W2|Y|R2|R1 \u2192 point 1)<',
                        svg)
    assert len(labels) == 5 and len({(x, y) for x, y, _ in labels}) == 5
