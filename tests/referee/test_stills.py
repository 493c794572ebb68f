"""Each shot's still comes from the frames the tracking reads (referee/pipeline.py Illustrator):
the frame a little before the shot's first motion, kept when the stream sees the shot begin, with
no second reading of the video; a shot not seen begin falls back to reading the file."""

from __future__ import annotations

import base64
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.pipeline import Illustrator
from rules import ShotFacts


def _frame(index: int) -> np.ndarray:
    """A frame that tells its index: a grey level of 4 * index."""
    return np.full((72, 128, 3), 4 * index, np.uint8)


def _facts(strike: int, rest: int) -> ShotFacts:
    return ShotFacts.from_dict({"events": [{"t": strike / 30, "type": "strike", "ball": "W1"}],
                                "strike_frame": strike, "rest_frame": rest})


def _grey(still_b64: str) -> float:
    image = cv2.imdecode(np.frombuffer(base64.b64decode(still_b64), np.uint8), cv2.IMREAD_COLOR)
    return float(image.mean())


def test_the_still_is_the_kept_frame_before_the_first_motion(monkeypatch, tmp_path: Path):
    def no_second_reading(*args: object) -> None:
        raise AssertionError("the video was read again")

    pictures = Illustrator(tmp_path / "absent.mp4")
    monkeypatch.setattr(cv2, "VideoCapture", no_second_reading)
    for index in range(40):
        pictures.seen(index, _frame(index))
        if index == 31:  # (the stream sees the shot begun at frame 20 some frames later)
            pictures.shot_began(20)
    out = pictures.pictures(_facts(strike=19, rest=60), rows=[])
    assert out["paths"] == {}
    assert _grey(out["still_jpeg_b64"]) == pytest.approx(4 * (20 - Illustrator.BEFORE_FRAMES),
                                                          abs=1.5)
    pictures.shot_began(20)  # (told again: nothing new is made)
    assert pictures._stills == {}


def test_a_shot_not_seen_begin_has_its_still_read_from_the_file(tmp_path: Path):
    video = tmp_path / "v.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 30, (128, 72))
    for index in range(30):
        writer.write(_frame(index))
    writer.release()
    pictures = Illustrator(video)
    out = pictures.pictures(_facts(strike=13, rest=25), rows=[])
    assert _grey(out["still_jpeg_b64"]) == pytest.approx(4 * 10, abs=2)
