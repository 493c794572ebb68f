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
    # (the parameters used, so that the verdict can be reproduced)
    from vision.shots import ShotFactsParams, ShotStreamParams

    assert ShotFactsParams(**doc["shot_facts_params"]) == ShotFactsParams()
    assert ShotStreamParams(**doc["shot_stream"]) == ShotStreamParams()
    from vision.detection import DetectionParams
    from vision.tracking import TrackingParams

    assert DetectionParams(**doc["detection_params"]) == DetectionParams()
    assert TrackingParams(**doc["tracking_params"]) == TrackingParams()
    from calibration import BumpParams

    assert BumpParams(**doc["camera_watch_params"]["bump"]) == BumpParams()
    assert doc["camera_watch_params"]["sights"]["least_sights"] > 0
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


TWO_SHOTS = SAMPLES / "yellow_middle_twice.mp4"


@pytest.mark.skipif(not TWO_SHOTS.exists(), reason="sample clips not made")
def test_a_resumed_video_is_taken_up_after_the_last_recorded_shot(tmp_path: Path, monkeypatch,
                                                                   capsys):
    """A run that dies after journalling shot 1; --resume reads the video again only from the
    frame after shot 1 came to rest (not from the start), and judges shot 2 as the labels."""
    import vision.tracking.tracker
    from referee.journal import Journal

    monkeypatch.setenv("KAISA_JOURNAL", str(tmp_path / "j.sqlite"))
    labels = json.loads((SAMPLES / "yellow_middle_twice.labels.json").read_text())
    start, calls = tmp_path / "start.json", tmp_path / "calls.json"
    start.write_text(json.dumps(labels["start"]))
    calls.write_text(json.dumps({"calls": [{"shot": i, **s["call"]}
                                           for i, s in enumerate(labels["shots"])]}))
    argv = ["referee", str(TWO_SHOTS), "--start", str(start), "--calls", str(calls)]

    class Died(Exception):
        pass

    record = Journal.record_verdict

    def record_then_die(self: Journal, *args: object) -> None:
        record(self, *args)  # type: ignore[arg-type]
        raise Died

    monkeypatch.setattr(Journal, "record_verdict", record_then_die)
    with pytest.raises(Died):
        main(argv)
    monkeypatch.undo()
    monkeypatch.setenv("KAISA_JOURNAL", str(tmp_path / "j.sqlite"))
    first_read: list[int] = []
    reader = vision.tracking.tracker.read_ahead_frames

    def noted(*args: object, **kwargs: object) -> object:
        first_read.append(int(kwargs.get("start", 0)))  # type: ignore[call-overload]
        return reader(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(vision.tracking.tracker, "read_ahead_frames", noted)
    report = tmp_path / "r.json"
    capsys.readouterr()
    assert main([*argv, "--resume", "-o", str(report)]) == 0
    out, err = capsys.readouterr()
    with Journal(tmp_path / "j.sqlite") as journal:
        rest = journal.last_verdict(1)
    assert rest is not None
    assert "1 shot already recorded" in err and " shot  2 " in out and " shot  1 " not in out
    doc = json.loads(report.read_text())
    shots = doc["shots"]
    assert len(shots) == 2
    first_rest = shots[0]["rest_frame"]
    assert first_read == [first_rest + 1] and first_rest > 30
    assert f"(frame {first_rest + 1}), after shot 1" in err
    assert verdict_differences(labels["shots"][1]["verdict"], shots[1]["verdict"]) == []
    assert shots[1]["strike_frame"] > first_rest
