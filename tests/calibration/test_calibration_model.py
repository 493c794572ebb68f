"""The Calibration value: mapping both ways, the lens model, the kaisa-calibration/1 file."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from calibration import Calibration, CalibrationError
from calibration.model import distort_points, guess_camera_matrix, undistort_points
from rules.errors import KaisaError
from rules.table import PRESETS, Pocket, Spot, TableSpec

TABLE = TableSpec()
CORNERS = np.array([[100.0, 650.0], [110.0, 80.0], [1180.0, 640.0], [1170.0, 90.0]])  # HR HL FR FL


def manual(k1: float | None = -0.1) -> Calibration:
    k = None if k1 is None else guess_camera_matrix((1280, 720))
    d = None if k1 is None else [k1, 0.0, 0.0, 0.0, 0.0]
    return Calibration.from_corners(CORNERS, TABLE, (1280, 720), camera_matrix=k, distortion=d)


def test_from_corners_maps_the_clicked_corners_to_the_table_corners():
    cal = manual()
    mm = cal.image_to_table(CORNERS)
    expected = [TABLE.pocket_xy(p) for p in (Pocket.HR, Pocket.HL, Pocket.FR, Pocket.FL)]
    assert np.allclose(mm, expected, atol=1e-6)
    assert np.allclose(cal.corners_px(), CORNERS, atol=1e-6)
    assert cal.source == "manual" and cal.rms_residual_mm == 0.0


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.floats(-200, 3750), st.floats(-200, 1975)), min_size=1, max_size=20),
       st.floats(-0.3, 0.1))
def test_table_to_image_and_back_is_identity(points, k1):
    cal = manual(k1)
    pts = np.array(points)
    assert np.allclose(cal.image_to_table(cal.table_to_image(pts)), pts, atol=1e-6)


def test_lens_model_round_trip_and_direction():
    k = guess_camera_matrix((1280, 720))
    d = [-0.2, 0.01, 0.001, -0.0005, 0.0]
    rng = np.random.default_rng(1)
    pts = rng.uniform([0, 0], [1280, 720], (200, 2))
    assert np.allclose(distort_points(undistort_points(pts, k, d), k, d), pts, atol=1e-6)
    # barrel (k1 < 0): a distorted corner point lies closer to the centre than its ideal one
    corner = np.array([[10.0, 10.0]])
    centre = np.array([k[0, 2], k[1, 2]])
    assert np.linalg.norm(distort_points(corner, k, d) - centre) < np.linalg.norm(corner - centre)


def test_vectorised_shapes():
    cal = manual()
    assert cal.image_to_table(np.zeros((0, 2))).shape == (0, 2)
    assert cal.image_to_table([640.0, 360.0]).shape == (1, 2)
    with pytest.raises(CalibrationError, match=r"\(N, 2\)"):
        cal.image_to_table(np.zeros((3, 3)))


def test_dict_round_trip_is_the_documented_format():
    cal = manual()
    data = json.loads(json.dumps(cal.to_dict()))
    assert set(data) == {"format", "image_size", "table", "homography_image_to_table",
                         "camera_matrix", "distortion", "rms_residual_mm", "source", "frame",
                         "head_from", "checks"}
    assert data["head_from"] == "user" and data["checks"] is None
    assert data["format"] == "kaisa-calibration/1"
    assert data["image_size"] == [1280, 720]
    assert len(data["distortion"]) == 5
    back = Calibration.from_dict(data)
    assert back.to_dict() == data
    assert back.table == TABLE
    pts = np.array([[300.0, 300.0], [900.0, 500.0]])
    assert np.allclose(back.image_to_table(pts), cal.image_to_table(pts))


def test_dict_without_lens_model():
    cal = manual(None)
    data = cal.to_dict()
    assert data["camera_matrix"] is None and data["distortion"] is None
    assert Calibration.from_dict(data).camera_matrix is None


@pytest.mark.parametrize(("change", "message"), [
    ({"format": "kaisa-calibration/2"}, "format"),
    ({"homography_image_to_table": [[1, 0], [0, 1]]}, "homography_image_to_table"),
    ({"distortion": None}, "both set or both null"),
    ({"source": "guess"}, "source"),
    ({"rms_residual_mm": -1.0}, "rms_residual_mm"),
    ({"image_size": [1280]}, "image_size"),
    ({"table": "snooker"}, "table"),
    ({"frame": -3}, "frame"),
])
def test_bad_files_are_refused_with_a_located_message(change, message):
    data = {**manual().to_dict(), **change}
    with pytest.raises(CalibrationError, match=message) as err:
        Calibration.from_dict(data)
    assert isinstance(err.value, KaisaError)
    assert "\n" not in str(err.value)


def test_missing_field():
    data = manual().to_dict()
    del data["homography_image_to_table"]
    with pytest.raises(CalibrationError, match="homography_image_to_table: missing field"):
        Calibration.from_dict(data)


def test_error_relocates_like_other_kaisa_errors():
    err = CalibrationError("expected 4 corners", "corners_px").at("calibration")
    assert isinstance(err, CalibrationError)
    assert str(err) == "calibration.corners_px: expected 4 corners"


def test_geometry_in_pixels():
    cal = manual(None)
    spots = cal.spots_px()
    assert set(spots) == set(Spot)
    pockets = cal.pockets_px()
    assert np.allclose(pockets[Pocket.HR], CORNERS[0])
    assert 2.0 < cal.mm_per_px() < 5.0
    assert set(PRESETS) >= {"russian-12ft"}
