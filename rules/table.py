"""Table geometry in the table frame of RULES.md §1.

Millimetres; origin at the head-right corner of the playing field (cushion noses); x along the long
axis from the head (house) cushion to the foot cushion, y across from the right long cushion to the
left one. Everything here is derived from the few numbers of a :class:`TableSpec`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, replace
from enum import StrEnum
from typing import Any, TypeVar

from rules.errors import OptionsError

Point = tuple[float, float]

# Two balls overlap (an impossible record) when their centres are closer than a ball diameter
# less this share of it: measured centres of touching balls may come out a little short of a
# diameter (6.8 mm of slack on a 68 mm ball, a few times the tracker's error at rest).
OVERLAP_TOLERANCE = 0.1

K = TypeVar("K")


class Pocket(StrEnum):
    """Pocket ids: H/M/F = head, middle, foot; R/L = right (y=0) or left (y=W) long cushion."""

    HR = "HR"
    HL = "HL"
    MR = "MR"
    ML = "ML"
    FR = "FR"
    FL = "FL"

    @property
    def is_middle(self) -> bool:
        return self in (Pocket.MR, Pocket.ML)

    @property
    def is_corner(self) -> bool:
        return not self.is_middle

    @property
    def cushions(self) -> tuple[Cushion, ...]:
        """The cushions whose noses end at this pocket's jaws."""
        return {Pocket.HR: (Cushion.HEAD, Cushion.RIGHT), Pocket.HL: (Cushion.HEAD, Cushion.LEFT),
                Pocket.FR: (Cushion.FOOT, Cushion.RIGHT), Pocket.FL: (Cushion.FOOT, Cushion.LEFT),
                Pocket.MR: (Cushion.RIGHT,), Pocket.ML: (Cushion.LEFT,)}[self]


class Cushion(StrEnum):
    """Cushion ids: head (x=0), foot (x=L), right (y=0), left (y=W)."""

    HEAD = "head"
    FOOT = "foot"
    RIGHT = "right"
    LEFT = "left"

    @property
    def is_long(self) -> bool:
        return self in (Cushion.RIGHT, Cushion.LEFT)


class Spot(StrEnum):
    """Where the referee may put a ball back (RULES.md §1 points and §6 cushion spots)."""

    POINT1 = "point1"  # front spot (L/4, W/2)
    POINT2 = "point2"  # centre spot (L/2, W/2)
    POINT3 = "point3"  # back spot (3L/4, W/2)
    CUSHION_HEAD = "cushion_head"  # against the middle of the head cushion
    CUSHION_FOOT = "cushion_foot"  # against the middle of the foot cushion


@dataclass(frozen=True)
class TableSpec:
    """The numbers that define a table; the playing field is between the cushion noses."""

    name: str = "russian-12ft"
    length_mm: float = 3550.0
    width_mm: float = 1775.0
    ball_diameter_mm: float = 68.0
    corner_mouth_mm: float = 73.0
    middle_mouth_mm: float = 83.0

    def __post_init__(self) -> None:
        for field in (
            "length_mm",
            "width_mm",
            "ball_diameter_mm",
            "corner_mouth_mm",
            "middle_mouth_mm",
        ):
            value = getattr(self, field)
            if (
                not isinstance(value, (int, float))
                or isinstance(value, bool)
                or not (math.isfinite(value) and value > 0)
            ):
                raise OptionsError(
                    f"expected a positive number of millimetres, got {value!r}", f"table.{field}"
                )
        if self.length_mm < self.width_mm:
            raise OptionsError(
                f"expected the length ({self.length_mm}) to be at least the width "
                f"({self.width_mm})",
                "table.length_mm",
            )
        if self.ball_diameter_mm * 4 > self.width_mm:
            raise OptionsError(
                f"a {self.ball_diameter_mm} mm ball does not fit this table",
                "table.ball_diameter_mm",
            )

    # --- derived geometry -------------------------------------------------------------------
    @property
    def ball_radius_mm(self) -> float:
        return self.ball_diameter_mm / 2

    @property
    def house_line_x(self) -> float:
        """x of the house line (L/4); the house is x < L/4."""
        return self.length_mm / 4

    def pocket_xy(self, pocket: Pocket) -> Point:
        L, W = self.length_mm, self.width_mm
        return {
            Pocket.HR: (0.0, 0.0),
            Pocket.HL: (0.0, W),
            Pocket.MR: (L / 2, 0.0),
            Pocket.ML: (L / 2, W),
            Pocket.FR: (L, 0.0),
            Pocket.FL: (L, W),
        }[pocket]

    def pocket_mouth_mm(self, pocket: Pocket) -> float:
        return self.middle_mouth_mm if pocket.is_middle else self.corner_mouth_mm

    def jaw_offset_mm(self, pocket: Pocket) -> float:
        """How far from the pocket's point, along each nose that ends there, its jaw is: the
        mouth (the segment between the jaws) is ``pocket_mouth_mm`` wide, across the corner for a
        corner pocket, along the long nose for a middle one."""
        if pocket.is_middle:
            return self.middle_mouth_mm / 2
        return self.corner_mouth_mm / math.sqrt(2)

    def spot_xy(self, spot: Spot) -> Point:
        L, W, r = self.length_mm, self.width_mm, self.ball_radius_mm
        return {
            Spot.POINT1: (L / 4, W / 2),
            Spot.POINT2: (L / 2, W / 2),
            Spot.POINT3: (3 * L / 4, W / 2),
            Spot.CUSHION_HEAD: (r, W / 2),
            Spot.CUSHION_FOOT: (L - r, W / 2),
        }[spot]

    def in_house(self, xy: Point) -> bool:
        """True when a ball centre lies in the house; exactly on the line is outside (§1)."""
        return xy[0] < self.house_line_x

    def contains(self, xy: Point, tolerance_mm: float = 0.0) -> bool:
        """True when a ball centre at ``xy`` is on the cloth (one radius or more from each nose)."""
        r = self.ball_radius_mm - tolerance_mm
        return r <= xy[0] <= self.length_mm - r and r <= xy[1] <= self.width_mm - r

    def can_rest_at(self, xy: Point, tolerance_mm: float = 0.0) -> bool:
        """True when a ball centre at ``xy`` is no more than one radius (+ tolerance) past the nose
        lines: a ball hanging in a pocket's mouth is that far out. A box, not the mouths' outline:
        it refuses impossible positions, with room for measurement error."""
        return self.contains(xy, tolerance_mm=self.ball_radius_mm + tolerance_mm)

    def is_occupied(self, xy: Point, ball_centres: Iterable[Point]) -> bool:
        """A point is occupied when any ball centre is closer to it than one ball diameter (§1)."""
        d = self.ball_diameter_mm
        return any(math.dist(xy, c) < d for c in ball_centres)

    @property
    def overlap_mm(self) -> float:
        """Ball centres closer than this overlap: a diameter less :data:`OVERLAP_TOLERANCE`."""
        return (1.0 - OVERLAP_TOLERANCE) * self.ball_diameter_mm

    def overlapping(self, positions: Mapping[K, Point]) -> list[tuple[K, K, float]]:
        """Every pair of ``positions`` (key -> centre) that overlaps, with the distance (mm), in
        the order of the keys."""
        items = list(positions.items())
        return [(a, b, math.dist(xa, xb))
                for i, (a, xa) in enumerate(items) for b, xb in items[i + 1:]
                if math.dist(xa, xb) < self.overlap_mm]

    def nearest_short_cushion(self, xy: Point) -> Cushion:
        """The short cushion nearer to ``xy`` (the head one on an exact tie)."""
        return Cushion.HEAD if xy[0] <= self.length_mm / 2 else Cushion.FOOT

    def with_ball(self, diameter_mm: float) -> TableSpec:
        """The same table played with balls of another size, the pocket mouths in proportion
        (a mouth is cut for its balls); named "custom"."""
        k = diameter_mm / self.ball_diameter_mm
        return replace(self, name="custom", ball_diameter_mm=diameter_mm,
                       corner_mouth_mm=self.corner_mouth_mm * k,
                       middle_mouth_mm=self.middle_mouth_mm * k)

    # --- (de)serialisation ------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_value(cls, value: object, where: str = "table") -> TableSpec:
        """A preset name (``"russian-12ft"``), or a mapping of numbers (optionally with a
        ``preset`` to start from)."""
        if isinstance(value, str):
            return preset(value, where)
        if not isinstance(value, Mapping):
            raise OptionsError(
                f"expected a preset name ({', '.join(PRESETS)}) or a mapping of numbers, "
                f"got {type(value).__name__}",
                where,
            )
        fields = dict(value)
        base = preset(str(fields.pop("preset")), f"{where}.preset") if "preset" in fields else cls()
        known = set(cls.__dataclass_fields__)
        unknown = sorted(set(fields) - known)
        if unknown:
            raise OptionsError(
                f"unknown field {unknown[0]!r} (expected {', '.join(sorted(known))})",
                f"{where}.{unknown[0]}",
            )
        merged = {**base.to_dict(), **fields}
        if "name" not in fields and any(merged[k] != getattr(base, k) for k in fields):
            merged["name"] = "custom"
        try:
            return cls(**merged)
        except OptionsError as err:
            raise OptionsError(err.detail, err.where.replace("table", where, 1)) from None


PRESETS: dict[str, TableSpec] = {
    "russian-12ft": TableSpec(),
    # [decision] no official kaisa-10ft pocket figures found: the same mouths as the 12 ft table.
    "kaisa-10ft": TableSpec(name="kaisa-10ft", length_mm=2840.0, width_mm=1420.0),
}


def preset(name: str, where: str = "table") -> TableSpec:
    try:
        return PRESETS[name]
    except KeyError:
        raise OptionsError(
            f"unknown table preset {name!r} (expected one of {', '.join(PRESETS)})", where
        ) from None
