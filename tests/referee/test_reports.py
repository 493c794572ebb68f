"""Match report JSON (DESIGN.md) and the HTML report drawn from it."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

from referee.cli import demo_game_path, main
from referee.describe import describe, explain
from referee.gamefile import load_game
from rules import RuleOptions, ShotFacts

GOLDEN = Path(__file__).resolve().parents[1] / "golden"


def test_json_and_html_reports_of_the_demo(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("KAISA_JOURNAL", str(tmp_path / "j.sqlite"))
    expected = [v for _, _, v in load_game(demo_game_path()).judged()]
    out, page = tmp_path / "r.json", tmp_path / "r.html"
    assert main(["referee", str(demo_game_path()), "-o", str(out), "--html", str(page)]) == 0
    report = json.loads(out.read_text())
    assert report["format"] == "kaisa-match-report/1"
    assert [s["verdict"] for s in report["shots"]] == [v.to_dict() for v in expected]
    for shot in report["shots"]:
        assert shot["events"][0]["type"] == "strike"
    assert report["winner"] == expected[-1].winner is not None
    last = expected[-1].score
    assert report["final"]["score"] == {"1": last[0], "2": last[1]}
    text = page.read_text()
    assert text.count('aria-label="the table after the shot"') == len(expected)
    assert f"Player {expected[-1].winner} wins" in text  # (the report's default names)
    rows = re.findall(r"<tr><td class=n><a href='#s(\d+)'>", text)
    assert rows == [str(i) for i in range(1, len(expected) + 1)]
    options = RuleOptions.from_mapping(report["rules"])
    for shot, verdict in zip(report["shots"], expected, strict=True):
        # every verdict in words, in its shot card (the score sheet keeps the short line)
        facts = ShotFacts.from_dict(shot)
        assert html.escape(explain(verdict, facts, options)) in text
        assert html.escape(describe(verdict).split("  ")[0]) in text


def test_fouls_are_marked_in_the_score_sheet(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("KAISA_JOURNAL", str(tmp_path / "j.sqlite"))
    page = tmp_path / "r.html"
    game = GOLDEN / "scratch_penalty_deduct.game.json"
    assert main(["referee", str(game), "--html", str(page)]) == 0
    assert re.search(r"<td class=foul>scratch[^<]*penalty \d</td>", page.read_text())


def test_a_report_that_cannot_be_written_is_one_line(tmp_path: Path, monkeypatch, capsys):
    monkeypatch.setenv("KAISA_JOURNAL", str(tmp_path / "j.sqlite"))
    assert main(["referee", str(demo_game_path()), "-o",
                 str(tmp_path / "no" / "such" / "dir" / "r.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "the folder" in err and "does not exist" in err
