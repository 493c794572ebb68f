"""A shot during which the camera was knocked and followed is noted for the operator
(referee/pipeline.moved_during, referee/conflicts.gap_notes)."""

from __future__ import annotations

import numpy as np

from calibration import DriftEvent
from calibration.model import Calibration
from referee.conflicts import gap_notes
from referee.pipeline import moved_during
from rules import Ball, ShotFacts
from rules.events import Event, EventType
from rules.table import TableSpec

FPS = 30.0
CAL = Calibration(image_size=(1280, 720), table=TableSpec(),
                  homography_image_to_table=np.diag([3.0, 3.0, 1.0]))


def facts(strike: int, rest: int) -> ShotFacts:
    return ShotFacts(events=(Event(EventType.STRIKE, strike / FPS, (Ball.W1,)),),
                     extra={"strike_frame": strike, "rest_frame": rest})


def followed(frame: int, mm: float = 24.0) -> DriftEvent:
    return DriftEvent(frame=frame, t_s=frame / FPS, status="recalibrated", drift_mm=mm,
                      calibration=CAL, message="bumped; followed", motion=np.eye(3))


def test_a_bump_followed_during_the_shot_is_noted_with_its_time_and_size():
    shot = facts(30, 120)
    extra = moved_during([followed(10), followed(75, 31.04), followed(400)], shot, FPS)
    assert extra == {"camera_moved": [{"t_s": 2.5, "moved_mm": 31.0}]}
    (note,) = gap_notes(ShotFacts(events=shot.events, extra={**shot.extra, **extra}))
    assert note.startswith("camera_moved: the camera was knocked and followed at 2.5 s")
    assert "31 mm" in note and "operator" in note


def test_a_bump_followed_just_after_the_rest_happened_during_the_shot():
    assert moved_during([followed(130)], facts(30, 120), FPS)  # (followed up to 0.5 s later)
    assert moved_during([followed(140)], facts(30, 120), FPS) == {}


def test_nothing_is_noted_without_a_bump_or_for_a_table_found_again():
    shot = facts(30, 120)
    assert moved_during([], shot, FPS) == {}
    found_again = DriftEvent(frame=60, t_s=2.0, status="recalibrated", drift_mm=8.0,
                             calibration=CAL, message="recalibrated")  # (no picture motion)
    assert moved_during([found_again], shot, FPS) == {}
    assert gap_notes(shot) == []
