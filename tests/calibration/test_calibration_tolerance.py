"""Refuse only a table that is really wrong; otherwise warn and go on (issue 51, item 7).

Frames at 960x540: calib_synth's flat scene (exact truth) and synth's renderer (the clips' look,
a seeded webcam pose). A table a little off the preset's proportions is kept with a warning that
says what was found and what was expected; one far off, or off and loosely fitted, is refused
with a message that says a table was found."""

from __future__ import annotations

import re

import numpy as np
import pytest
from calib_synth import Scene, grid_error_mm, render

from calibration import Calibration, CalibrationError, detect_table
from rules.table import TableSpec

TABLE = TableSpec()
SIZE = (960, 540)
FLAT = {"nose_height_mm": 0.0}  # calib_synth paints the noses on the plane of ball centres
SCENE = Scene(cloth="green", seed=1, tilt_deg=(6.0, -4.0), roll_deg=2.0, k1=-0.08,
              image_size=SIZE, focal_px=1300.0 * SIZE[0] / 1280)


def wider(factor: float) -> TableSpec:
    return TableSpec(name="custom", width_mm=TABLE.width_mm * factor)


def found_and_expected(message: str) -> tuple[float, float]:
    """The proportions a message says were found and expected ("found a field of 1.995:1,
    expected 1.970:1")."""
    m = re.search(r"found a field of (\d\.\d{3}):1, expected (\d\.\d{3}):1", message)
    assert m, message
    return float(m.group(1)), float(m.group(2))


def test_a_960x540_table_calibrates_without_a_warning():
    frame, true = render(SCENE, TABLE)
    found = detect_table(frame, TABLE, **FLAT).calibration
    assert grid_error_mm(true, found).mean() <= 3.0
    assert not found.doubtful and found.warnings == ()
    checks = found.checks or {}
    assert checks["shape_error_mm"] < checks["shape_soft_mm"] < checks["shape_hard_mm"]


def test_a_preset_one_percent_off_is_within_what_the_noses_at_960x540_explain():
    frame, _ = render(SCENE, TABLE)
    found = detect_table(frame, wider(1.01), sights=None, **FLAT).calibration
    checks = found.checks or {}
    assert 10.0 < checks["shape_error_mm"] < checks["shape_soft_mm"] and not found.doubtful


def test_a_preset_one_percent_off_is_seen_by_the_sights_and_kept_with_a_warning():
    # the sights are read to a fraction of a pixel: the table is 17.75 mm narrower than the
    # preset, which is more than the measurement explains
    frame, _ = render(SCENE, TABLE)
    found = detect_table(frame, wider(1.01), **FLAT).calibration
    checks = found.checks or {}
    assert checks["reading"] == "sights"
    assert checks["shape_soft_mm"] < checks["shape_error_mm"] < checks["shape_hard_mm"]
    assert found.doubtful and len(found.warnings) == 1


def test_a_preset_one_and_a_half_percent_off_is_kept_with_a_warning():
    frame, true = render(SCENE, TABLE)
    found = detect_table(frame, wider(1.015), **FLAT).calibration
    checks = found.checks or {}
    assert checks["shape_soft_mm"] < checks["shape_error_mm"] < checks["shape_hard_mm"]
    assert found.doubtful and len(found.warnings) == 1
    warning = found.warnings[0]
    ratio, expected = found_and_expected(warning)
    assert abs(ratio - 2.0) < 0.01 and expected == 1.970
    assert "check the preview" in warning and "no table found" not in warning
    # the corners are right: along the length the positions agree with the truth; across
    # they are stretched by the preset's 1.5 % (the user's table spec, not the picture)
    g = np.array([[500.0, 400.0], [1775.0, 887.5], [3000.0, 1400.0]])
    back = found.image_to_table(true.table_to_image(g))
    assert np.allclose(back[:, 0], g[:, 0], atol=3.0)
    assert np.allclose(back[:, 1], g[:, 1] * 1.015, atol=3.0)


def test_a_preset_far_off_is_refused_saying_what_was_found():
    frame, _ = render(SCENE, TABLE)
    with pytest.raises(CalibrationError) as err:
        detect_table(frame, wider(1.05), **FLAT)
    message = str(err.value)
    assert message.startswith("table found but refused: ")
    assert "no table found" not in message and "\n" not in message
    ratio, expected = found_and_expected(message)
    assert abs(ratio - 2.0) < 0.02 and expected == 1.905
    assert "refused beyond" in message and "--table" in message


# --- synth's renderer: the committed clips' look, a seeded webcam -------------------------------
render_mod = pytest.importorskip("synth.render")
camera_mod = pytest.importorskip("synth.camera")


def rendered(seed: int) -> tuple[np.ndarray, Calibration]:
    """A 960x540 frame of the empty table as `kaisa synth` draws a clip of this seed."""
    rng = np.random.default_rng(seed + 7_000_003)
    camera = camera_mod.random_pose(rng, TABLE, SIZE)
    look = render_mod.Look.random(rng, TABLE)
    renderer = render_mod.Renderer(TABLE, camera, look, seed=seed)
    frame = renderer.finish(renderer.background, np.random.default_rng(seed))
    return frame, Calibration.from_dict(camera.calibration_dict(TABLE, source="manual"))


def mean_error_mm(true: Calibration, found: Calibration) -> float:
    g = np.array([(x, y) for x in np.arange(0.0, TABLE.length_mm + 1, 100.0)
                  for y in np.arange(0.0, TABLE.width_mm + 1, 100.0)])
    return float(np.hypot(*(found.image_to_table(true.table_to_image(g)) - g).T).mean())


@pytest.mark.parametrize("seed", [2, 13])
def test_rendered_960x540_tables_calibrate(seed: int):
    frame, true = rendered(seed)
    found = detect_table(frame, TABLE).calibration
    assert mean_error_mm(true, found) <= 3.0 and not found.doubtful


@pytest.mark.parametrize("seed", [7, 12, 20, 30])
def test_rendered_960x540_tables_with_smooth_shaded_rails_calibrate(seed: int):
    """Rails whose colour comes gradually from the cushion's: their edge read half way into
    that colour was 5-25 mm out, and these tables were found 12 mm wrong (refused, or marked
    doubtful); read where the colour changes fastest, they are within 3 mm (some still marked
    doubtful: the noses were not seen all round, and the usual cushion width is taken)."""
    frame, true = rendered(seed)
    assert mean_error_mm(true, detect_table(frame, TABLE).calibration) <= 3.0


@pytest.mark.parametrize(("seed", "why"), [
    (49, "refused beyond"),  # 58 mm off the shape (the table found is 38 mm wrong on average)
])
def test_rendered_960x540_tables_found_wrong_are_refused(seed: int, why: str):
    frame, _ = rendered(seed)
    with pytest.raises(CalibrationError, match=r"^table found but refused: ") as err:
        detect_table(frame, TABLE)
    assert why in str(err.value)
