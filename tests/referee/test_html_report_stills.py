"""What the HTML report needs from the video (referee/pipeline.py Illustrator): the still after
the shot, taken from the frames the tracking reads (the first from the shot's rest on, before the
next shot moves), and the cloth's colour for the diagrams."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration import Calibration
from referee.pipeline import Illustrator
from rules import TableSpec
from tests.referee.test_stills import _facts, _grey


def _frame(index: int) -> np.ndarray:
    """A frame that tells its index: a grey level of 2 * index."""
    return np.full((72, 128, 3), 2 * index, np.uint8)


def _no_second_reading(monkeypatch) -> None:
    def refused(*args: object) -> None:
        raise AssertionError("the video was read again")

    monkeypatch.setattr(cv2, "VideoCapture", refused)


def test_the_still_after_is_the_first_kept_frame_from_the_rest_on(monkeypatch, tmp_path: Path):
    _no_second_reading(monkeypatch)
    pictures = Illustrator(tmp_path / "absent.mp4")
    for index in range(61):
        pictures.seen(index, _frame(index))
        if index == 31:
            pictures.shot_began(20)
    out = pictures.pictures(_facts(strike=19, rest=50), rows=[])
    assert _grey(out["still_after_jpeg_b64"]) == pytest.approx(2 * 50, abs=1.5)
    assert _grey(out["still_jpeg_b64"]) == pytest.approx(2 * (20 - Illustrator.BEFORE_FRAMES),
                                                         abs=1.5)


def test_the_still_after_is_taken_before_the_next_shot_moves(monkeypatch, tmp_path: Path):
    _no_second_reading(monkeypatch)
    pictures = Illustrator(tmp_path / "absent.mp4")
    for index in range(71):
        pictures.seen(index, _frame(index))
        if index == 31:
            pictures.shot_began(20)
        if index == 62:  # the next shot began at 58, before this one was given out
            pictures.shot_began(58)
    out = pictures.pictures(_facts(strike=19, rest=47), rows=[])
    # kept: 47..70; the next shot's first motion at 58: a frame from 47 to 55, the first
    assert _grey(out["still_after_jpeg_b64"]) == pytest.approx(2 * 47, abs=1.5)


def test_a_rest_not_yet_read_has_no_still_after(monkeypatch, tmp_path: Path):
    _no_second_reading(monkeypatch)
    pictures = Illustrator(tmp_path / "absent.mp4")
    for index in range(40):
        pictures.seen(index, _frame(index))
    assert "still_after_jpeg_b64" not in pictures.pictures(_facts(strike=10, rest=60), rows=[])


def test_a_still_after_no_longer_kept_is_read_from_the_file(tmp_path: Path):
    video = tmp_path / "v.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 30, (128, 72))
    for index in range(60):
        writer.write(_frame(index))
    writer.release()
    pictures = Illustrator(video)
    for index in range(30, 60):  # kept: 36..59, all after the shot's rest at 25
        pictures.seen(index, _frame(index))
    pictures.shot_began(30)  # the next shot moved from frame 30 on: no kept frame between
    out = pictures.pictures(_facts(strike=13, rest=25), rows=[])
    assert _grey(out["still_after_jpeg_b64"]) == pytest.approx(2 * 25, abs=2)


def test_the_cloth_colour_is_the_fields_not_the_balls_or_the_rail(tmp_path: Path):
    table = TableSpec()
    size = (640, 360)
    corners = [(60, 320), (60, 40), (580, 320), (580, 40)]  # HR, HL, FR, FL
    calibration = Calibration.from_corners(corners, table, size)
    frame = np.zeros((size[1], size[0], 3), np.uint8)
    frame[:] = (20, 40, 90)  # the rail: brown (BGR)
    frame[40:321, 60:581] = (180, 90, 30)  # the cloth: blue (BGR)
    for cx, cy in [(200, 150), (300, 200), (420, 120), (500, 280), (120, 90)]:
        cv2.circle(frame, (cx, cy), 9, (255, 255, 255), -1)  # balls
    pictures = Illustrator(tmp_path / "absent.mp4")
    assert pictures.cloth_rgb(calibration) is None  # nothing read yet
    pictures.seen(0, frame)
    assert pictures.cloth_rgb(calibration) == (30, 90, 180)
