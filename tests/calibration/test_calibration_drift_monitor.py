"""The drift monitor used while refereeing: a moved camera is recalibrated after two
consecutive checks see it; hands over a cushion and an unchanged camera are not."""

from __future__ import annotations

import time

import cv2
import numpy as np
import pytest
from calib_synth import Scene, render

from calibration import CalibrationError, DriftMonitor, find_table
from calibration.model import Calibration
from rules.table import TableSpec

TABLE = TableSpec()
SCENE = Scene(cloth="green", seed=1, hand=False)


@pytest.fixture(scope="module")
def setup():
    frame, true = render(SCENE, TABLE)
    cal = find_table(frame, TABLE)
    return frame, true, cal


def moved_frame(true: Calibration, dx_mm: float, dy_mm: float) -> np.ndarray:
    shift = np.array([[1, 0, dx_mm], [0, 1, dy_mm], [0, 0, 1]])
    moved = Calibration(image_size=true.image_size, table=TABLE,
                        homography_image_to_table=shift @ true.homography_image_to_table,
                        camera_matrix=true.camera_matrix, distortion=true.distortion)
    return render(SCENE, TABLE, calibration=moved)[0]


def test_unchanged_camera_reports_ok_and_checks_at_most_every_period(setup):
    frame, _, cal = setup
    monitor = DriftMonitor(cal, every_s=5.0, threshold_mm=3.0)
    first = monitor.check(0, 0.0, frame)
    assert first is not None and first.status == "ok"  # the reference frame
    assert monitor.check(30, 1.0, frame) is None
    other, _ = render(Scene(cloth="green", seed=21, hand=True), TABLE)  # new balls, cue, arm
    event = monitor.check(150, 5.0, other)
    assert event is not None and event.status == "ok", event
    assert event.drift_mm is not None and event.drift_mm < 1.5
    assert event.calibration is cal and not event.changed


def test_shifted_camera_triggers_recalibration_after_two_checks(setup):
    frame, true, cal = setup
    calls = []

    def recalibrate(img: np.ndarray) -> Calibration:
        calls.append(img)
        return find_table(img, TABLE)

    monitor = DriftMonitor(cal, every_s=5.0, threshold_mm=3.0, recalibrate=recalibrate,
                           reference=frame)
    shifted = moved_frame(true, 10.0, 0.0)
    first = monitor.check(0, 0.0, shifted)
    assert first is not None and first.status == "moved" and not calls
    assert first.drift_mm == pytest.approx(10.0, abs=1.5)
    second = monitor.check(150, 5.0, shifted)
    assert second is not None and second.status == "recalibrated" and second.changed
    assert len(calls) == 1 and second.calibration is not cal
    assert monitor.calibration is second.calibration
    # the new calibration is the reference now: the same picture is ok
    third = monitor.check(300, 10.0, shifted)
    assert third is not None and third.status == "ok"


def test_a_single_moved_check_is_not_enough(setup):
    frame, true, cal = setup
    monitor = DriftMonitor(cal, every_s=1.0, recalibrate=lambda img: find_table(img, TABLE),
                           reference=frame)
    assert monitor.check(0, 0.0, moved_frame(true, 10.0, 0.0)).status == "moved"
    assert monitor.check(30, 1.0, frame).status == "ok"
    assert monitor.check(60, 2.0, moved_frame(true, 10.0, 0.0)).status == "moved"


def test_failed_recalibration_keeps_the_last_good_calibration(setup):
    frame, true, cal = setup

    def fail(img: np.ndarray) -> Calibration:
        raise CalibrationError("no table found: test")

    monitor = DriftMonitor(cal, every_s=0.0, recalibrate=fail, reference=frame)
    shifted = moved_frame(true, 0.0, 10.0)
    assert monitor.check(0, 0.0, shifted).status == "moved"
    event = monitor.check(1, 0.1, shifted)
    assert event.status == "recalibration_failed"
    assert event.calibration is cal and "keeping the last good calibration" in event.message


def test_dark_arm_over_a_cushion_does_not_trigger(setup):
    frame, _, cal = setup
    calls = []
    monitor = DriftMonitor(cal, every_s=0.0, recalibrate=lambda img: calls.append(img) or cal,
                           reference=frame)
    covered = frame.copy()
    # a dark arm lying across the foot end of the right cushion and a player leaning over
    # the head cushion
    corners = cal.corners_px()
    hr, fr = corners[0], corners[2]
    a = hr + 0.55 * (fr - hr)
    cv2.ellipse(covered, (int(a[0]), int(a[1])), (140, 45), 10, 0, 360, (25, 20, 30), -1)
    head = (corners[0] + corners[1]) / 2
    cv2.circle(covered, (int(head[0]), int(head[1])), 70, (40, 35, 30), -1)
    for i in range(3):
        event = monitor.check(i, float(i), covered)
        assert event is not None and event.status in ("ok", "unmeasured"), event
    assert not calls


def test_a_check_is_fast(setup):
    frame, _, cal = setup
    monitor = DriftMonitor(cal, every_s=0.0, reference=frame)
    monitor.check(0, 0.0, frame)
    start = time.perf_counter()
    for i in range(5):
        monitor.check(i + 1, float(i + 1), frame)
    per_check = (time.perf_counter() - start) / 5
    assert per_check < 0.1, f"{1000 * per_check:.0f} ms per check"


def test_bad_arguments(setup):
    _, _, cal = setup
    with pytest.raises(CalibrationError, match="every_s"):
        DriftMonitor(cal, every_s=-1.0)
    with pytest.raises(CalibrationError, match="threshold_mm"):
        DriftMonitor(cal, threshold_mm=0.0)
