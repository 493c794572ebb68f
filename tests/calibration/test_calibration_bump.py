"""A bumped camera (calibration/bump.py): found in a look or two, followed to within a few mm,
and not confused with the lamps changing the picture's brightness or an arm over a rail."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest
from calib_synth import Scene, grid_error_mm, render
from scipy.spatial.transform import Rotation

from calibration import BumpParams, BumpWatch, CalibrationError, DriftMonitor
from calibration.bump import followed, turned
from calibration.model import Calibration
from rules.table import TableSpec

TABLE = TableSpec()
SCENE = Scene(cloth="green", seed=3, hand=False)


def rolled_and_shifted(size: tuple[int, int], roll_deg: float, dx: float, dy: float
                       ) -> np.ndarray:
    """A knock on the mount: the picture rolled about its centre and shifted (3x3 pixels)."""
    a = math.radians(roll_deg)
    cx, cy = size[0] / 2, size[1] / 2
    rot = np.array([[math.cos(a), -math.sin(a), 0.0], [math.sin(a), math.cos(a), 0.0],
                    [0.0, 0.0, 1.0]])
    to_centre = np.array([[1.0, 0.0, -cx], [0.0, 1.0, -cy], [0.0, 0.0, 1.0]])
    back = np.array([[1.0, 0.0, cx + dx], [0.0, 1.0, cy + dy], [0.0, 0.0, 1.0]])
    return back @ rot @ to_centre


def knocked(true: Calibration, roll_deg: float, dx: float, dy: float
            ) -> tuple[Calibration, np.ndarray]:
    """A knock on the mount as it is: the camera turned about its centre, rolled by
    ``roll_deg`` and turned so that the picture's middle moves ``dx``, ``dy`` pixels. The
    calibration after it, and the turn (3x3, undistorted pixels)."""
    k = np.asarray(true.camera_matrix)
    # rolled about the optical axis, then turned about the camera's y and x axes
    rotation = Rotation.from_euler("zyx", [math.radians(roll_deg), math.atan(dx / k[0, 0]),
                                           -math.atan(dy / k[1, 1])]).as_matrix()
    turn = k @ rotation @ np.linalg.inv(k)
    return turned(true, turn), turn


def moved_px(motion: np.ndarray, points: np.ndarray) -> np.ndarray:
    p = np.c_[points, np.ones(len(points))] @ motion.T
    return p[:, :2] / p[:, 2:]


@pytest.fixture(scope="module")
def scene() -> tuple[np.ndarray, Calibration]:
    return render(SCENE, TABLE)


def relit(frame: np.ndarray, gain: float, offset: float, hot_spot: float) -> np.ndarray:
    """The same picture under other lamps: brighter or darker, with a hot spot in the middle."""
    h, w = frame.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w]
    spot = 1.0 + hot_spot * np.exp(-((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / (2 * (w / 5) ** 2))
    out = frame.astype(np.float32) * gain * spot[..., None] + offset
    return np.clip(out, 0, 255).astype(np.uint8)


def test_a_bump_is_followed_to_within_a_few_mm(scene):
    frame, true = scene
    watch = BumpWatch(true)
    assert watch.look(0, 0.0, frame) is None  # the reference
    moved_true, _ = knocked(true, 0.3, 4.0, -2.0)
    moved_frame = render(SCENE, TABLE, calibration=moved_true)[0]
    bump = watch.look(8, 0.25, moved_frame) or watch.look(16, 0.5, moved_frame)
    assert bump is not None
    assert bump.moved_mm > 10.0  # the knock moved the table 10+ mm in the picture
    err = grid_error_mm(moved_true, bump.calibration)
    assert float(np.mean(err)) < 1.0 and float(np.max(err)) < 2.0
    # before following, the old calibration is off by the whole knock
    assert float(np.mean(grid_error_mm(moved_true, true))) > 8.0


def test_a_turned_camera_is_followed_as_a_turn_not_as_a_shift_and_roll():
    """A wide lens: the knock that moves the picture's middle 4 px moves its sides 5-6 px (a
    turn about the camera's centre). Followed as a shift and a roll of the picture, the table
    is 1.5 mm or more off on average; followed as a turn, within half a mm."""
    wide = Scene(cloth="green", seed=3, hand=False, focal_px=800.0)
    frame, true = render(wide, TABLE)
    moved_true, _ = knocked(true, 0.2, 4.0, -3.0)
    moved_frame = render(wide, TABLE, calibration=moved_true)[0]
    watch = BumpWatch(true)
    watch.look(0, 0.0, frame)
    bump = watch.look(8, 0.25, moved_frame) or watch.look(16, 0.5, moved_frame)
    assert bump is not None
    assert float(np.mean(grid_error_mm(moved_true, bump.calibration))) < 0.5
    # the best shift and roll of the picture (fitted to where the corners went)
    rigid = cv2.estimateAffinePartial2D(true.corners_px(), moved_true.corners_px())[0]
    as_rigid = followed(true, np.vstack([rigid, [0.0, 0.0, 1.0]]))
    assert float(np.mean(grid_error_mm(moved_true, as_rigid))) > 1.5


def test_a_change_over_one_quarter_of_the_band_is_no_bump(scene):
    """A player over a rail changes one part of the band only (here: the picture's top-left
    quarter, moved 8 px as a stand-in for whatever leans over it): it drags the whole band's
    alignment over moved_mm, but the other three quarters, measured alone, see no motion, so
    it is no bump."""
    frame, true = scene
    h, w = frame.shape[:2]
    cx, cy = (int(v) for v in true.table_to_image(
        np.array([[TABLE.length_mm / 2, TABLE.width_mm / 2]]))[0])
    elsewhere = cv2.warpAffine(frame, np.float32([[1, 0, 8], [0, 1, 4]]), (w, h),
                               borderMode=cv2.BORDER_REPLICATE)
    changed = frame.copy()
    changed[:cy, :cx] = elsewhere[:cy, :cx]
    watch = BumpWatch(true)
    watch.look(0, 0.0, frame)
    for k in range(1, 5):
        assert watch.look(8 * k, 0.25 * k, changed) is None, k
    assert watch.calibration is true


def test_the_lamps_changing_the_light_are_no_bump(scene):
    frame, true = scene
    watch = BumpWatch(true)
    watch.look(0, 0.0, frame)
    for k, (gain, offset, spot) in enumerate([(0.85, 5.0, 0.0), (1.1, -8.0, 0.4),
                                              (0.9, 0.0, 0.5), (1.15, 3.0, 0.2)], 1):
        assert watch.look(8 * k, 0.25 * k, relit(frame, gain, offset, spot)) is None, k
    assert watch.calibration is true


def test_a_small_motion_seen_once_waits_for_a_second_look(scene):
    frame, true = scene
    params = BumpParams()
    watch = BumpWatch(true, params)
    watch.look(0, 0.0, frame)
    moved_true, _ = knocked(true, 0.0, 2.0, 0.0)  # over moved_mm, not 3 times
    # (how far the table's corners moved in the picture, in mm on the table)
    corners = np.array([[0.0, 0.0], [TABLE.length_mm, 0.0], [TABLE.length_mm, TABLE.width_mm],
                        [0.0, TABLE.width_mm]])
    moved_mm = float(np.max(np.hypot(*(true.image_to_table(moved_true.table_to_image(corners))
                                       - corners).T)))
    assert params.moved_mm < moved_mm < params.sure_moved_ratio * params.moved_mm
    moved_frame = render(SCENE, TABLE, calibration=moved_true)[0]
    assert watch.look(8, 0.25, frame) is None
    assert watch.look(16, 0.5, moved_frame) is None  # seen once
    assert watch.look(24, 0.75, moved_frame) is not None  # seen again: followed


def test_looks_are_taken_every_every_s(scene):
    frame, true = scene
    watch = BumpWatch(true, BumpParams(every_s=1.0))
    assert watch.due(0.0)
    watch.look(0, 0.0, frame)
    assert not watch.due(0.5) and watch.look(15, 0.5, frame) is None
    assert watch.due(1.0)


def test_the_drift_monitor_says_a_bump_was_followed_and_how_the_picture_moved(scene):
    frame, true = scene
    monitor = DriftMonitor(true, every_s=5.0, bump=BumpParams())
    monitor.check(0, 0.0, frame)
    moved_true, _ = knocked(true, -0.4, -3.0, 3.0)
    moved_frame = render(SCENE, TABLE, calibration=moved_true)[0]
    events = [monitor.check(k, k / 30, moved_frame) for k in range(1, 31)]
    changed = [e for e in events if e is not None and e.changed]
    assert len(changed) == 1 and changed[0].motion is not None
    assert "bumped" in changed[0].message
    # the motion takes the table's corners where the camera sees them now
    assert np.allclose(moved_px(changed[0].motion, true.corners_px()), moved_true.corners_px(),
                       atol=0.3)
    assert monitor.calibration is changed[0].calibration


def test_an_unmoved_picture_is_screened_without_ecc(scene, monkeypatch):
    """A look whose linearised step reads under ``screen_mm`` does not run ECC (3 ms a look);
    the same looks with the screen off run it every time, and both find no bump."""
    import calibration.bump as bump_module

    frame, true = scene
    calls = []
    real = bump_module._motion

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(bump_module, "_motion", counted)
    noisy = np.random.default_rng(5)
    pictures = [np.clip(frame + noisy.normal(0, 2, frame.shape), 0, 255).astype(np.uint8)
                for _ in range(4)]
    for params, ecc_looks in ((BumpParams(), 0), (BumpParams(screen_mm=0.0), 4)):
        calls.clear()
        watch = BumpWatch(true, params)
        watch.look(0, 0.0, frame)
        assert all(watch.look(8 * k, 0.25 * k, p) is None for k, p in enumerate(pictures, 1))
        assert len(calls) == ecc_looks


def test_the_screens_step_reads_a_small_shift(scene):
    """The linearised step (see ``BumpParams.screen_mm``) measures a small shift of the
    picture: it cannot pass a bump as unmoved."""
    from calibration.bump import _Linearised, corners_moved_mm

    frame, true = scene
    watch = BumpWatch(true)
    watch.look(0, 0.0, frame)
    linear = _Linearised.of(watch._reference, watch._mask)
    assert linear is not None
    for dx, dy in ((1.5, 0.0), (0.0, -2.0), (1.0, 1.0)):
        shifted = cv2.warpAffine(frame, np.float32([[1, 0, dx], [0, 1, dy]]),
                                 (frame.shape[1], frame.shape[0]), borderMode=cv2.BORDER_REFLECT)
        step, correlation = linear.motion(watch._contrast(shifted, 0.25), 0.25)
        assert correlation > 0.6
        centre = np.array([[frame.shape[1] / 2, frame.shape[0] / 2]])
        assert (moved_px(step, centre) - centre)[0] == pytest.approx([dx, dy], abs=0.7)
        assert corners_moved_mm(true, step) > BumpParams().screen_mm


@pytest.mark.parametrize("bad", [{"every_s": 0.0}, {"moved_mm": -1.0}, {"confirm_looks": 0},
                                 {"look_scale": 1.5}, {"band_from_mm": 400.0},
                                 {"least_quarters": 5}, {"screen_mm": 5.0},
                                 {"screen_mm": -1.0}])
def test_bad_bump_parameters_are_refused(bad):
    with pytest.raises(CalibrationError):
        BumpParams(**bad)


def test_the_detector_carried_over_a_bump_finds_the_balls_where_they_lie(scene):
    """What the detector learned of the cloth is carried over the knock (not learned anew from
    one frame, which would take in whatever lies over the cloth then): the balls are found at
    the same table places in the moved picture, as a detector learned on it finds them."""
    from vision.detection import BallDetector

    frame, true = scene
    motion = rolled_and_shifted(true.image_size, 0.35, -3.5, 2.5)
    moved_true = followed(true, motion)
    moved_frame = render(SCENE, TABLE, calibration=moved_true)[0]
    detector = BallDetector(true)
    before = detector.detect(frame)
    carried = detector.moved(moved_true, motion)
    assert carried.cloth is not None and carried.threshold == detector.threshold
    after = carried.detect(moved_frame)
    fresh = BallDetector(moved_true).detect(moved_frame)
    assert len(before) == len(after) == len(fresh) == SCENE.balls

    def places(dets):
        return sorted((round(d.x_mm), round(d.y_mm)) for d in dets)

    for a, b in zip(places(before), places(after), strict=True):
        assert math.dist(a, b) < 3.0, (a, b)
    for a, b in zip(places(fresh), places(after), strict=True):
        assert math.dist(a, b) < 1.5, (a, b)


def test_half_the_picture_finds_the_bump_the_whole_picture_finds(scene):
    """The tracker hands the monitor half of each frame (the looks measure at a quarter):
    the same bump, followed the same to a few hundredths of a pixel."""
    frame, true = scene
    moved_true, _ = knocked(true, 0.3, -3.5, 2.5)
    moved_frame = render(SCENE, TABLE, calibration=moved_true)[0]
    h, w = frame.shape[:2]

    def half(image: np.ndarray) -> np.ndarray:
        return cv2.resize(image, (w // 2, h // 2), interpolation=cv2.INTER_LINEAR)

    found = []
    for scale, shrink in ((1.0, lambda image: image), (0.5, half)):
        monitor = DriftMonitor(true, every_s=None, bump=BumpParams())
        monitor.check(0, 0.0, shrink(frame), scale=scale)
        events = [monitor.check(k, k / 30, shrink(moved_frame), scale=scale)
                  for k in range(1, 31)]
        found.append([e for e in events if e is not None and e.changed])
    (whole,), (halved,) = found
    assert whole.frame == halved.frame
    corners = true.corners_px()
    assert np.allclose(moved_px(halved.motion, corners), moved_px(whole.motion, corners),
                       atol=0.05)
    assert np.allclose(moved_px(halved.motion, corners), moved_true.corners_px(), atol=0.3)


def test_the_cushion_line_check_wants_the_whole_picture(scene):
    frame, true = scene
    monitor = DriftMonitor(true, every_s=5.0, bump=BumpParams())
    half = frame[::2, ::2]
    with pytest.raises(CalibrationError, match="whole frame"):
        monitor.check(0, 0.0, half, scale=0.5)
    with pytest.raises(CalibrationError, match="expected a 1280x720 frame"):
        DriftMonitor(true, every_s=None, bump=BumpParams()).check(0, 0.0, half)


def test_after_a_bump_the_table_is_fitted_again_to_the_rails_sights(scene):
    """The turn carries the calibration's own error over the bump; where the rails' sights
    show, the monitor fits the table to them again in the median of the next looks' whole
    pictures (asked for only then) and says so."""
    from dataclasses import replace

    from calibration.drift import SIGHT_PICTURES
    from calibration.sights import SightParams
    from video import half_picture

    frame, true = scene
    shift = np.array([[1.0, 0.0, 3.0], [0.0, 1.0, -2.0], [0.0, 0.0, 1.0]])
    start = replace(true, homography_image_to_table=shift @ true.homography_image_to_table)
    moved_true, _ = knocked(true, 0.3, 4.0, -2.0)
    moved_frame = render(SCENE, TABLE, calibration=moved_true)[0]
    asked: list[int] = []

    def moved_whole() -> np.ndarray:
        asked.append(1)
        return moved_frame

    def watched(sights: SightParams | None) -> DriftMonitor:
        monitor = DriftMonitor(start, every_s=None, bump=BumpParams(), sights=sights,
                               nose_height_mm=0.0)  # (calib_synth's rails lie on the plane)
        monitor.check(0, 0.0, half_picture(frame), scale=0.5, whole=lambda: frame)
        for k in range(1, 61):
            monitor.check(k, k / 30, half_picture(moved_frame), scale=0.5, whole=moved_whole)
        return monitor

    followed_only = watched(None)
    assert asked == []  # (no sights to read: the whole picture never made)
    assert [e.status for e in followed_only.events] == ["recalibrated"]
    assert float(np.mean(grid_error_mm(moved_true, followed_only.calibration))) > 3.0
    sighted = watched(SightParams())
    assert len(asked) == SIGHT_PICTURES  # the looks after the bump, and no more
    assert [e.status for e in sighted.events] == ["recalibrated", "refitted"]
    refit = sighted.events[1]
    assert refit.changed and refit.motion is not None and np.allclose(refit.motion, np.eye(3))
    assert refit.calibration is sighted.calibration
    assert float(np.mean(grid_error_mm(moved_true, sighted.calibration))) < 1.0
    assert (sighted.calibration.checks or {}).get("reading") == "sights"
