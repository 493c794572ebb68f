"""§1: presets, the table frame, pockets, points, the house and "occupied"."""

from __future__ import annotations

import math

import pytest

from rules import PRESETS, OptionsError, Pocket, Spot, TableSpec
from rules.table import Cushion


def test_presets():
    t = PRESETS["russian-12ft"]
    assert (t.length_mm, t.width_mm, t.ball_diameter_mm) == (3550, 1775, 68)
    assert (t.corner_mouth_mm, t.middle_mouth_mm) == (73, 83)
    k = PRESETS["kaisa-10ft"]
    assert (k.length_mm, k.width_mm, k.corner_mouth_mm, k.middle_mouth_mm) == (2840, 1420, 73, 83)
    assert TableSpec() == t


def test_pockets_in_the_table_frame():
    t = TableSpec()
    L, W = t.length_mm, t.width_mm
    assert {p: t.pocket_xy(p) for p in Pocket} == {
        Pocket.HR: (0, 0), Pocket.HL: (0, W), Pocket.MR: (L / 2, 0), Pocket.ML: (L / 2, W),
        Pocket.FR: (L, 0), Pocket.FL: (L, W)}
    assert [p for p in Pocket if p.is_middle] == [Pocket.MR, Pocket.ML]
    assert t.pocket_mouth_mm(Pocket.ML) == 83 and t.pocket_mouth_mm(Pocket.HR) == 73
    assert [c for c in Cushion if c.is_long] == [Cushion.RIGHT, Cushion.LEFT]


def test_points_and_cushion_spots():
    t = TableSpec()
    assert t.spot_xy(Spot.POINT1) == (887.5, 887.5)
    assert t.spot_xy(Spot.POINT2) == (1775, 887.5)
    assert t.spot_xy(Spot.POINT3) == (2662.5, 887.5)
    assert t.spot_xy(Spot.CUSHION_HEAD) == (34, 887.5)
    assert t.spot_xy(Spot.CUSHION_FOOT) == (3550 - 34, 887.5)


def test_the_house_line_itself_is_outside_the_house():
    t = TableSpec()
    assert t.in_house((887.4, 100))
    assert not t.in_house((887.5, 100))


def test_occupied_means_closer_than_one_diameter():
    t = TableSpec()
    p = t.spot_xy(Spot.POINT1)
    assert t.is_occupied(p, [(p[0] + 67.9, p[1])])
    assert not t.is_occupied(p, [(p[0] + 68.0, p[1])])
    assert not t.is_occupied(p, [])


def test_custom_table_numbers():
    t = TableSpec.from_value({"length_mm": 3000, "width_mm": 1500})
    assert (t.name, t.spot_xy(Spot.POINT2)) == ("custom", (1500, 750))
    assert TableSpec.from_value({"preset": "kaisa-10ft"}) == PRESETS["kaisa-10ft"]
    assert TableSpec.from_value("kaisa-10ft") == PRESETS["kaisa-10ft"]


@pytest.mark.parametrize(("value", "message"), [
    ("pool-9ft", "unknown table preset 'pool-9ft'"),
    ({"length_mm": -3}, "positive number"),
    ({"length_mm": 1000, "width_mm": 2000}, "at least the width"),
    ({"lenght_mm": 3000}, "unknown field 'lenght_mm'"),
    ({"ball_diameter_mm": 900}, "does not fit"),
    (42, "preset name"),
])
def test_bad_tables(value: object, message: str):
    with pytest.raises(OptionsError, match=message):
        TableSpec.from_value(value)


def test_a_ball_can_rest_hanging_over_a_pocket_mouth_but_not_beyond():
    t = TableSpec()
    assert not t.contains((1775.9, 1757.2))  # past the left nose line, in the ML mouth
    assert t.can_rest_at((1775.9, 1757.2))
    assert not t.can_rest_at((1775.9, 1775 + 11))


def test_each_pockets_jaws_lie_on_the_noses_that_end_there():
    t = TableSpec()
    for pocket in Pocket:
        px, py = t.pocket_xy(pocket)
        for cushion in pocket.cushions:
            # the pocket's point lies on the nose line of each cushion that ends at it
            on_line = {Cushion.HEAD: px == 0, Cushion.FOOT: px == t.length_mm,
                       Cushion.RIGHT: py == 0, Cushion.LEFT: py == t.width_mm}[cushion]
            assert on_line, (pocket, cushion)
    # the two jaws are a mouth apart: across the corner, or along the long nose
    assert math.isclose(math.hypot(t.jaw_offset_mm(Pocket.HR), t.jaw_offset_mm(Pocket.HR)),
                        t.corner_mouth_mm)
    assert math.isclose(2 * t.jaw_offset_mm(Pocket.ML), t.middle_mouth_mm)
