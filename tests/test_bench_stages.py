"""The stage-by-stage CPU benchmark (benchmarks/bench_stages.py) on a short committed clip: every
stage is timed, the stages add up to no more than the whole, and the wrapped methods are put
back afterwards (the detector and the tracker work as before)."""

from __future__ import annotations

from pathlib import Path

from tests.benchmark_import import benchmark
from vision.detection import BallDetector
from vision.tracking import Tracker

ROOT = Path(__file__).resolve().parents[1]


def _bench():
    return benchmark("bench_stages")


def test_the_stages_are_timed_and_put_back():
    bench = _bench()
    before = (BallDetector.detect, BallDetector.prepare, Tracker._step)
    n, cpu = bench.run(ROOT / "sample_videos" / "cue_off_table.mp4")
    assert (BallDetector.detect, BallDetector.prepare, Tracker._step) == before
    assert n > 30
    for name in ("prepare", "detect", "_foreground_now", "_refine", "_step"):
        assert cpu[name] > 0, name
    top = sum(cpu[name] for _, name, _, part_of in bench.STAGES if part_of is None)
    assert top <= cpu["process"]
    assert cpu["_foreground_now"] + cpu["_refine"] <= cpu["detect"]


def test_a_video_without_its_labels_is_refused_in_one_line(tmp_path, capsys):
    video = tmp_path / "clip.mp4"
    video.write_bytes(b"")
    assert _bench().main([str(video), "--repeat", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "labels.json" in err


def test_the_report_names_every_stage_and_what_is_left_for_decoding(capsys, monkeypatch):
    bench = _bench()
    monkeypatch.setattr(bench, "run", lambda video: (10, {
        "prepare": 0.001, "detect": 0.004, "_foreground_now": 0.001, "_blobs": 0.0,
        "_blobs_where_changed": 0.001, "_refine": 0.001, "_update_cloth": 0.0, "_step": 0.001,
        "process": 0.01}))
    assert bench.main(["--repeat", "1"]) == 0
    out = capsys.readouterr().out
    for _, _, what, _ in bench.STAGES:
        assert what in out
    rest = next(line for line in out.splitlines() if "decoding and glue" in line)
    assert rest.split()[-2:] == ["0.400", "ms"]  # 1 ms a frame less the three top stages
