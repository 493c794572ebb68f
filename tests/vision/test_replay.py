"""The tracker's input logged and fed again (vision.tracking.replay): the same answers to the
bit as tracking the video, and a log that cannot be used is not used."""

from __future__ import annotations

import pickle
from pathlib import Path

from referee.evaluate import replayed_rows, tracker_rows
from referee.labels import load_labels
from vision.tracking.replay import LOG_VERSION, DetectionLog

SAMPLES = Path(__file__).resolve().parents[2] / "sample_videos"
CLIP = SAMPLES / "pot_MR.labels.json"  # a white hits a red into a pocket: strikes, a hit, a pot


def test_a_replayed_log_gives_the_trackers_rows_to_the_bit(tmp_path):
    labels = load_labels(CLIP)
    log = DetectionLog(fps=30.0)
    rows = tracker_rows(labels, detected=log.add)
    assert len(log.frames) == len({f for f, *_ in rows})  # one input a frame
    assert any(d for _, d, _ in log.frames)
    log.save(tmp_path / "clip.pkl")
    again = DetectionLog.load(tmp_path / "clip.pkl")
    assert again is not None
    assert replayed_rows(labels, again) == rows
    # replayed twice from the same log: nothing in it was changed by the first replay
    assert replayed_rows(labels, again) == rows


def test_a_log_of_another_form_or_broken_is_not_used(tmp_path):
    old = DetectionLog(fps=30.0, version=LOG_VERSION - 1)
    (tmp_path / "old.pkl").write_bytes(pickle.dumps(old))
    assert DetectionLog.load(tmp_path / "old.pkl") is None
    (tmp_path / "cut.pkl").write_bytes(pickle.dumps(DetectionLog(fps=30.0))[:20])
    assert DetectionLog.load(tmp_path / "cut.pkl") is None
    (tmp_path / "other.pkl").write_bytes(pickle.dumps({"fps": 30.0}))
    assert DetectionLog.load(tmp_path / "other.pkl") is None
    assert DetectionLog.load(tmp_path / "none.pkl") is None
    log = DetectionLog(fps=25.0, source="v.mp4:1:2")
    log.save(tmp_path / "sub" / "ok.pkl")
    assert not (tmp_path / "sub" / "ok.pkl.part").exists()
    loaded = DetectionLog.load(tmp_path / "sub" / "ok.pkl")
    assert loaded is not None and (loaded.fps, loaded.source) == (25.0, "v.mp4:1:2")
