"""`kaisa referee VIDEO`: the whole chain (calibration, tracking, shot facts, rules) on a short
labelled clip, with its calls and start state."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from referee.cli import main
from referee.evaluate import verdict_differences

SAMPLES = Path(__file__).resolve().parents[2] / "sample_videos"
CLIP = SAMPLES / "pot_MR.mp4"


@pytest.mark.skipif(not CLIP.exists(), reason="sample clips not made")
def test_a_short_clip_is_refereed_from_the_video(tmp_path: Path, monkeypatch, capsys):
    monkeypatch.setenv("KAISA_JOURNAL", str(tmp_path / "j.sqlite"))
    labels = json.loads((SAMPLES / "pot_MR.labels.json").read_text())
    start, calls = tmp_path / "start.json", tmp_path / "calls.json"
    start.write_text(json.dumps(labels["start"]))
    calls.write_text(json.dumps({"calls": [{"shot": 0, **labels["shots"][0]["call"]}]}))
    report = tmp_path / "r.json"
    assert main(["referee", str(CLIP), "--start", str(start), "--calls", str(calls),
                 "-o", str(report)]) == 0
    doc = json.loads(report.read_text())
    assert doc["calibration"]["format"] == "kaisa-calibration/1"
    assert {"calibration_s", "tracking_s", "shot_facts_s"} <= set(doc["timings"])
    (shot,) = doc["shots"]
    assert verdict_differences(labels["shots"][0]["verdict"], shot["verdict"]) == []
    assert "red in MR: +3" in capsys.readouterr().out


def test_a_video_that_is_not_a_video_is_one_line(tmp_path: Path, monkeypatch, capsys):
    monkeypatch.setenv("KAISA_JOURNAL", str(tmp_path / "j.sqlite"))
    bad = tmp_path / "match.mp4"
    bad.write_bytes(b"\x00" * 100)
    assert main(["referee", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "expected a video" in err
