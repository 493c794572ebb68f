"""The balls measured as a ruler: frames drawn here with balls of a known size."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from tests.vision.test_detect import BGR, calibration, cloth
from vision.detection import DEFAULT_BALL_SIZE, BallSizeParams, DetectionParamsError
from vision.detection.ballsize import (
    measure_ball_size,
    most_common_size,
    table_for_the_balls,
    with_ball_check,
)

PLACES = ((600.0, 400.0, "white"), (1500.0, 900.0, "red"), (2400.0, 1300.0, "yellow"),
          (3000.0, 500.0, "red"), (900.0, 1300.0, "white"))


def frame_with_balls(diameter_mm: float, places=PLACES, clutter: bool = False) -> np.ndarray:
    cal = calibration()
    img = cloth()
    if clutter:  # a line projected across the cloth, ending in a ring by a ball
        a, b = cal.table_to_image([[300.0, 300.0], [3300.0, 1500.0]])
        cv2.line(img, tuple(round(v) for v in a), tuple(round(v) for v in b), (230, 230, 120), 3)
        (rx, ry), = cal.table_to_image([[1500.0, 900.0]])
        cv2.circle(img, (round(rx), round(ry)), round(2.5 * diameter_mm / cal.mm_per_px()),
                   (230, 230, 120), 2)
    r = diameter_mm / 2 / cal.mm_per_px()
    for x, y, colour in places:
        (px, py), = cal.table_to_image([[x, y]])
        s = 16
        cv2.circle(img, (round(px * s), round(py * s)), round(r * s), BGR[colour], -1,
                   cv2.LINE_AA, 4)
    return img


@pytest.mark.parametrize("diameter_mm", [68.0, 95.0, 50.0])
def test_the_balls_measure_their_size_whatever_the_preset_says(diameter_mm):
    # the preset says 68 mm; a ball 40 % bigger or a quarter smaller is measured as it is
    size = measure_ball_size([frame_with_balls(diameter_mm)], calibration())
    assert size is not None
    assert size.diameter_mm == pytest.approx(diameter_mm, rel=0.08)
    assert size.count >= 4


def test_a_projected_line_and_ring_do_not_change_the_size():
    size = measure_ball_size([frame_with_balls(95.0, clutter=True)], calibration())
    assert size is not None
    assert size.diameter_mm == pytest.approx(95.0, rel=0.08)


def test_an_empty_cloth_measures_nothing():
    assert measure_ball_size([cloth(), cloth()], calibration()) is None


def test_the_largest_group_of_like_sizes_wins():
    # two touching balls measured as one (twice the size) are outvoted by the single balls
    assert most_common_size([17.0, 17.5, 16.8, 34.0, 35.0, 5.0]) == (17.0, 3)
    assert most_common_size([]) == (0.0, 0)


def test_the_calibration_is_warned_when_the_balls_are_not_the_presets():
    cal = calibration()
    right = with_ball_check(cal, [frame_with_balls(68.0)])
    assert right.checks["ball_diameter_mm"] == pytest.approx(68.0, rel=0.08)
    assert not right.warnings
    wrong = with_ball_check(cal, [frame_with_balls(95.0)])
    assert wrong.checks["ball_diameter_mm"] == pytest.approx(95.0, rel=0.08)
    assert len(wrong.warnings) == 1 and "the balls measure" in wrong.warnings[0]
    assert with_ball_check(cal, [cloth()]).checks["ball_diameter_mm"] is None


def test_the_table_is_made_for_the_balls_only_when_the_preset_is_far_off():
    cal = calibration()
    assert table_for_the_balls(with_ball_check(cal, [frame_with_balls(68.0)])) == cal.table
    big = table_for_the_balls(with_ball_check(cal, [frame_with_balls(95.0)]))
    assert big.ball_diameter_mm == pytest.approx(95.0, rel=0.08)
    k = big.ball_diameter_mm / cal.table.ball_diameter_mm
    assert big.corner_mouth_mm == pytest.approx(cal.table.corner_mouth_mm * k)
    assert (big.length_mm, big.width_mm) == (cal.table.length_mm, cal.table.width_mm)


# The tuned thresholds, as the module constants they were before they were parameters (the old
# name after each; the pairs were one tuple each).
TUNED = {
    "size_window_share": 0.10,  # SIZE_WINDOW
    "least_balls": 3,  # LEAST_BALLS
    "most_peaks": 60,  # MOST_PEAKS
    "cloth_window_diameters": 8.0,  # CLOTH_WINDOW
    "edge_search_least_radii": 0.7,  # EDGE_SEARCH[0]
    "edge_search_most_radii": 1.5,  # EDGE_SEARCH[1]
    "round_share": 0.8,  # ROUND_SHARE
    "smallest_ball_diameters": 0.5,  # SIZES[0]
    "largest_ball_diameters": 2.5,  # SIZES[1]
    "cushion_reach_diameters": 1.5,  # CUSHION_REACH
    "pocket_reach_diameters": 2.5,  # POCKET_REACH
    "most_off_share": 0.25,  # MOST_OFF
}


def test_the_default_parameters_are_the_tuned_thresholds():
    assert BallSizeParams() == DEFAULT_BALL_SIZE
    assert DEFAULT_BALL_SIZE.to_dict() == TUNED
    assert type(DEFAULT_BALL_SIZE.least_balls) is int
    assert BallSizeParams(**json.loads(json.dumps(TUNED))) == DEFAULT_BALL_SIZE


@pytest.mark.parametrize(("field", "value"), [
    ("least_balls", 0), ("most_peaks", 2.5), ("round_share", 1.2), ("most_off_share", -0.1),
    ("cloth_window_diameters", float("nan")), ("edge_search_most_radii", 0.6),
    ("smallest_ball_diameters", 3.0),
])
def test_a_parameter_out_of_its_range_is_refused_by_name(field, value):
    with pytest.raises(DetectionParamsError, match=field):
        BallSizeParams(**{field: value})


def test_a_wider_tolerance_takes_bigger_balls_for_the_presets():
    """Balls 40 % bigger than the preset's are more than ``most_off_share`` (a quarter) off: the
    calibration is warned and the table made for them. Allowing half, they pass as the
    preset's; asking for more of them than were seen, nothing is measured."""
    cal, frames = calibration(), [frame_with_balls(95.0)]
    tuned = with_ball_check(cal, frames)
    assert len(tuned.warnings) == 1 and table_for_the_balls(tuned) != cal.table
    wide = BallSizeParams(most_off_share=0.5)
    allowed = with_ball_check(cal, frames, wide)
    assert allowed.checks["ball_diameter_mm"] == tuned.checks["ball_diameter_mm"]
    assert not allowed.warnings and table_for_the_balls(allowed, wide) == cal.table
    assert measure_ball_size(frames, cal, BallSizeParams(least_balls=len(PLACES) + 1)) is None

