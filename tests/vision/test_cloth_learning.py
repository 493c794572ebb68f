"""The cloth learned from a video's first frame leaves out every ball in it, though the game
state does not say where: a white already placed in the house when the video starts (an
opening) shows as a spot of a ball's size much brighter than the cloth around it.

A real frame pair of a hard rendered clip (tests/vision/fixtures/detection)."""

from __future__ import annotations

import pytest

from tests.vision.test_red_cloth import TABLE, nearest_mm, real_pair
from vision.detection import BallDetector
from vision.detection.cloth import ClothModel

NAME = "a_white_placed_before_the_video_on_a_grey_blue_cloth"


def test_a_white_placed_before_the_video_is_not_learned_as_cloth():
    case, cal, (first, second) = real_pair(NAME)
    det = BallDetector(cal)
    det.learn_cloth(first, balls_at=[tuple(p) for p in case["balls_at"].values()])
    found = det.detect(second, update=False)
    off = {ball: nearest_mm(found, tuple(xy)) for ball, xy in case["balls"].items()}
    # every ball within a radius of its true place (before: W1 not found at all)
    assert all(mm < TABLE.ball_radius_mm for mm in off.values()), off
    # (the case is the one the rule is for: a coloured cloth, the whites shown by colour only)
    assert not det.cloth_model.by_light


def test_without_the_bright_spots_the_white_is_learned_as_cloth(monkeypatch: pytest.MonkeyPatch):
    """The same frames with the bright spots' search left out: W1 is not found (what the rule
    mends)."""
    monkeypatch.setattr(ClothModel, "_bright_balls", lambda self, *a: [])
    case, cal, (first, second) = real_pair(NAME)
    det = BallDetector(cal)
    det.learn_cloth(first, balls_at=[tuple(p) for p in case["balls_at"].values()])
    found = det.detect(second, update=False)
    assert nearest_mm(found, tuple(case["balls"]["W1"])) > TABLE.ball_radius_mm
    assert nearest_mm(found, tuple(case["balls"]["R1"])) < TABLE.ball_radius_mm
