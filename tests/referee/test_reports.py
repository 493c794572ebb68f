"""Match report JSON (DESIGN.md) and the HTML report drawn from it."""

from __future__ import annotations

import json
import re
from pathlib import Path

from referee.cli import main


def test_json_and_html_reports_of_the_demo(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("KAISA_JOURNAL", str(tmp_path / "j.sqlite"))
    out, page = tmp_path / "r.json", tmp_path / "r.html"
    assert main(["referee", "-o", str(out), "--html", str(page)]) == 0
    report = json.loads(out.read_text())
    assert report["format"] == "kaisa-match-report/1"
    assert len(report["shots"]) == 10 and report["winner"] == 1
    for shot in report["shots"]:
        assert shot["events"][0]["type"] == "strike" and "verdict" in shot
    assert report["final"]["score"] == {"1": 60, "2": 59}
    text = page.read_text()
    assert text.count("<svg") == 10
    assert "player 1 wins" in text
    rows = re.findall(r"<tr><td class=n><a href='#s(\d+)'>", text)
    assert rows == [str(i) for i in range(1, 11)]
    # The scratch shot is marked as a foul in the score sheet.
    assert "<td class=foul>scratch, penalty 3</td>" in text


def test_a_report_that_cannot_be_written_is_one_line(tmp_path: Path, monkeypatch, capsys):
    monkeypatch.setenv("KAISA_JOURNAL", str(tmp_path / "j.sqlite"))
    assert main(["referee", "-o", str(tmp_path / "no" / "such" / "dir" / "r.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot write here" in err
