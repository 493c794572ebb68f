"""Plausibility of a homography: a pinhole camera with square pixels can see the TableSpec's
aspect; a table found with all its cushions 30 mm inward cannot be."""

from __future__ import annotations

import numpy as np
from calib_synth import Scene, true_calibration

from calibration.model import CORNER_POCKETS, homography_from_corners
from calibration.plausibility import (
    REFUSE_VIOLATION,
    aspect_width_mm,
    outline_homography,
    pinhole_consistency,
)
from rules.table import TableSpec

TABLE = TableSpec()


def _truth(**kw):
    return true_calibration(Scene(k1=0.0, **kw), TABLE)


def test_a_real_camera_is_consistent():
    for tilt in [(0.0, 0.0), (6.0, -4.0), (-8.0, 5.0)]:
        cal = _truth(tilt_deg=tilt)
        fit = pinhole_consistency(cal.homography_image_to_table, cal.image_size)
        assert fit.violation < 0.001, (tilt, fit)


def test_cushions_found_inward_are_not():
    cal = _truth(tilt_deg=(6.0, -4.0))
    e = 30.0
    L, W = TABLE.length_mm, TABLE.width_mm
    inner = np.array([[e, e], [e, W - e], [L - e, e], [L - e, W - e]])
    wrong = homography_from_corners(cal.table_to_image(inner),
                                    [TABLE.pocket_xy(p) for p in CORNER_POCKETS])
    assert pinhole_consistency(wrong, cal.image_size).violation > REFUSE_VIOLATION


def test_cushion_width_from_the_aspect():
    cal = _truth(tilt_deg=(6.0, -4.0))
    c = 50.0
    L, W = TABLE.length_mm, TABLE.width_mm
    outline = np.array([[-c, -c], [-c, W + c], [L + c, -c], [L + c, W + c]])
    width, violation = aspect_width_mm(cal.table_to_image(outline), TABLE, cal.image_size)
    assert abs(width - c) < 3.0 and violation < 0.001
    h = outline_homography(cal.table_to_image(outline), TABLE, width)
    assert pinhole_consistency(h, cal.image_size).violation < 0.001
