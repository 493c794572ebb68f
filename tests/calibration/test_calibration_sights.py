"""The table's calibration made again from the rails' sights (calibration.sights).

calib_synth paints a table whose rails carry the common sights (every eighth of the field's
length, every quarter of its width, 75 mm outside the noses) and knows its exact calibration;
the noses lie on the calibrated plane there, so the nose plane is the ball plane (height 0)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from calib_synth import RAIL_MM, Scene, grid_error_mm, render, true_calibration

from calibration import Calibration, detect_table, draw_calibration
from calibration.detect import CAMERA_HEIGHT_MM
from calibration.preview import SIGHT
from calibration.sights import (
    Sight,
    SightLayout,
    SightParams,
    _raw_px,
    _target,
    expected_sights,
    fit_sights,
    refined_by_sights,
)
from rules.table import TableSpec

TABLE = TableSpec()
SCENE = Scene(cloth="blue", seed=4, tilt_deg=(5.0, -3.0), roll_deg=1.5, k1=-0.06,
              image_size=(960, 540), focal_px=1000.0)
OFFSET_MM = RAIL_MM / 2  # where calib_synth paints its diamonds


def _off_by(cal: Calibration, shift_mm: tuple[float, float], scale: float,
            k1: float = 0.0) -> Calibration:
    """``cal`` with its table moved and scaled (a first outline some centimetres off) and its
    lens's k1 replaced."""
    move = np.array([[scale, 0.0, shift_mm[0]], [0.0, scale, shift_mm[1]], [0.0, 0.0, 1.0]])
    assert cal.distortion is not None
    return replace(cal, homography_image_to_table=move @ cal.homography_image_to_table,
                   distortion=np.array([k1, *cal.distortion[1:]]))


def test_the_fit_recovers_the_table_the_offsets_and_the_lens_from_noisy_centres() -> None:
    truth = true_calibration(SCENE, TABLE)
    rng = np.random.default_rng(7)
    found = []
    for cushion, along, _ in expected_sights(TABLE, SightLayout()):
        px = _raw_px(truth, truth.homography_image_to_table,
                     _target(cushion, along, OFFSET_MM, TABLE))[0]
        px = px + rng.normal(0.0, 0.2, 2)
        found.append((Sight(cushion, along, (float(px[0]), float(px[1]))), OFFSET_MM))
    # one blob in a window that is no sight: 6 px off
    bad = found[3][0]
    found[3] = (replace(bad, image_px=(bad.image_px[0] + 6.0, bad.image_px[1])), OFFSET_MM)
    start = _off_by(truth, (0.0, 0.0), 1.0)  # the lens's k1 unknown (-0.06 in truth)
    fit = fit_sights(found, start)
    assert fit is not None
    assert len(fit.sights) == 17 and bad not in fit.sights
    assert fit.offset_long_mm == pytest.approx(OFFSET_MM, abs=1.0)
    assert fit.offset_short_mm == pytest.approx(OFFSET_MM, abs=1.0)
    assert fit.distortion[0] == pytest.approx(-0.06, abs=0.01)
    got = replace(truth, homography_image_to_table=fit.h_image_to_nose,
                  distortion=fit.distortion)
    assert grid_error_mm(truth, got).mean() < 1.0  # (0.2 px is 0.8 mm here)


def test_a_first_outline_centimetres_off_is_mended_by_the_sights() -> None:
    frame, truth = render(SCENE, TABLE)
    start = _off_by(truth, (25.0, -15.0), 1.01)
    assert grid_error_mm(truth, start).mean() > 20.0
    refined = refined_by_sights(frame, start, 0.0, CAMERA_HEIGHT_MM)
    assert refined is not None
    cal, fit = refined
    assert len(fit.sights) >= 16 and fit.rms_mm < 1.5
    assert grid_error_mm(truth, cal).mean() < 1.0
    assert (cal.checks or {})["reading"] == "sights"


def test_rails_without_sights_leave_the_calibration_as_it_was() -> None:
    frame, truth = render(replace(SCENE, diamonds=False), TABLE)
    assert refined_by_sights(frame, truth, 0.0, CAMERA_HEIGHT_MM) is None
    found = detect_table(frame, TABLE, nose_height_mm=0.0).calibration
    assert "sights" not in (found.checks or {})
    assert grid_error_mm(truth, found).mean() < 3.0  # (the noses' reading)


def test_sights_of_another_layout_are_not_fitted_to_the_common_one() -> None:
    # sights looked for at sixths of the length: the windows catch the eighths' marks at the
    # wrong places, and no table fits them
    frame, truth = render(SCENE, TABLE)
    other = SightParams(layout=SightLayout(along_long=(1 / 6, 2 / 6, 4 / 6, 5 / 6)))
    assert refined_by_sights(frame, truth, 0.0, CAMERA_HEIGHT_MM, other) is None


def test_detect_table_takes_the_sights_and_says_so() -> None:
    frame, truth = render(SCENE, TABLE)
    with_sights = detect_table(frame, TABLE, nose_height_mm=0.0).calibration
    without = detect_table(frame, TABLE, nose_height_mm=0.0, sights=None).calibration
    checks = with_sights.checks or {}
    assert checks["reading"] == "sights" and checks["sights"] >= 16
    assert checks["reading_before_sights"] == (without.checks or {})["reading"]
    assert checks["sights_rms_mm"] == pytest.approx(with_sights.rms_residual_mm, abs=0.01)
    assert grid_error_mm(truth, with_sights).mean() < 1.0


@pytest.mark.parametrize("bad", [{"along_share": 0.6}, {"near_mm": 300.0},
                                 {"least_sights": 3}, {"least_per_rail": -1}])
def test_sight_parameters_are_checked(bad: dict[str, float]) -> None:
    with pytest.raises(ValueError, match="expected"):
        SightParams(**bad)  # type: ignore[arg-type]


def test_the_preview_rings_the_sights_the_calibration_rests_on() -> None:
    frame, _ = render(SCENE, TABLE)
    detection = detect_table(frame, TABLE, nose_height_mm=0.0)
    assert len(detection.sights) == (detection.calibration.checks or {})["sights"] >= 16
    out = draw_calibration(frame, detection.calibration, detection)
    for sight in detection.sights:
        x, y = (round(v) for v in sight.image_px)
        ring = out[y - 7:y + 8, x - 7:x + 8].reshape(-1, 3)
        assert np.any(np.all(np.abs(ring.astype(int) - SIGHT) <= 40, axis=1)), sight
    without = draw_calibration(frame, detection.calibration,
                               detect_table(frame, TABLE, nose_height_mm=0.0, sights=None))
    x, y = (round(v) for v in detection.sights[0].image_px)
    ring = without[y - 7:y + 8, x - 7:x + 8].reshape(-1, 3)
    assert not np.any(np.all(np.abs(ring.astype(int) - SIGHT) <= 40, axis=1))


def test_sights_that_fit_loosely_leave_the_calibration_doubtful() -> None:
    # (here they fit within 0.3 mm: a limit under that stands for a loose fit)
    frame, _ = render(SCENE, TABLE)
    tight = detect_table(frame, TABLE, nose_height_mm=0.0).calibration
    loose = detect_table(frame, TABLE, nose_height_mm=0.0,
                         sights=SightParams(doubtful_rms_mm=0.1)).calibration
    assert not tight.doubtful and (tight.checks or {})["sights_doubtful_mm"] == 2.5
    assert loose.doubtful and (loose.checks or {})["reading"] == "sights"
    assert any("sights fit loosely" in w for w in loose.warnings)


def test_a_table_whose_readings_ran_the_lens_wild_is_found_from_its_outline_and_sights() -> None:
    """A hard render (960x540, CRF 35): both readings of the cushions fit poorly (the lens at
    the end of its range, the outline 90 mm off), and their sights' windows, bent by that lens,
    miss the sights; looked for from the loose outline's corners with no lens, they are found,
    and the table is within 3 mm (refused before)."""
    import json
    from pathlib import Path

    import cv2

    fixtures = Path(__file__).parent / "fixtures"
    doc = json.loads((fixtures / "hard_wild_lens.json").read_text())
    table = TableSpec.from_value(doc["table"])
    truth = Calibration.from_dict(doc["calibration"])
    image = cv2.imread(str(fixtures / "hard_wild_lens.png"))
    found = detect_table(image, table)
    assert (found.calibration.checks or {})["reading"] == "sights"
    assert grid_error_mm(truth, found.calibration).mean() < 3.0
