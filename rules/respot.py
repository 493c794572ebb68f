"""Respotting (RULES.md §6): where balls go back, and whether the operator put them there.

Pure geometry over positions in table mm; no knowledge of the shot beyond what it is given.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from rules.balls import RESPOT_ORDER, Ball
from rules.errors import FactsError
from rules.table import Cushion, Point, Spot, TableSpec

# §6.2, §6.5: a ball more than this far from its point counts as not on it.
PLACEMENT_TOLERANCE_MM = 5.0

_YELLOW_SPOTS = (Spot.POINT2, Spot.POINT1, Spot.POINT3)
_RED_SPOTS = (Spot.POINT1, Spot.POINT3)


@dataclass(frozen=True)
class Respot:
    """Put ``ball`` at ``xy_mm`` (the named spot, or the nearest free place on its line)."""

    ball: Ball
    spot: Spot
    xy_mm: Point

    def to_dict(self) -> dict[str, Any]:
        return {
            "ball": self.ball.value,
            "point": self.spot.value,
            "xy_mm": [self.xy_mm[0], self.xy_mm[1]],
        }

    @classmethod
    def from_dict(cls, data: object, where: str = "respot") -> Respot:
        if not isinstance(data, Mapping):
            raise FactsError(f"expected {{ball, point, xy_mm}}, got {data!r}", where)
        try:
            xy = data["xy_mm"]
            return cls(Ball(data["ball"]), Spot(data["point"]), (float(xy[0]), float(xy[1])))
        except (KeyError, ValueError, TypeError, IndexError):
            raise FactsError(f"expected {{ball, point, xy_mm}}, got {data!r}", where) from None


def plan_respots(
    table: TableSpec,
    on_table: Mapping[Ball, Point],
    to_spot: Iterable[Ball],
    next_cue_xy: Point | None,
    return_yellow: bool = False,
) -> list[Respot]:
    """Where each ball of ``to_spot`` goes back (§6.1-6.3), yellow first, then R1, then R2.

    ``on_table``: centres of the balls still on the table after the shot. ``next_cue_xy``: the next
    striker's cue ball, or None when it is in hand (it then counts as at the head cushion).
    ``return_yellow``: the inning ends, so a yellow left off point 2 goes back there if it is free.
    """
    occupied: dict[Ball, Point] = dict(on_table)
    wanted = set(to_spot)
    plan: list[Respot] = []
    for ball in RESPOT_ORDER:
        if ball in wanted:
            occupied.pop(ball, None)
            spot, xy = _first_free(table, ball, occupied.values(), next_cue_xy)
        elif ball is Ball.Y and return_yellow and Ball.Y in occupied:
            point2 = table.spot_xy(Spot.POINT2)
            others = [xy for b, xy in occupied.items() if b is not Ball.Y]
            if math.dist(occupied[Ball.Y], point2) <= PLACEMENT_TOLERANCE_MM or table.is_occupied(
                point2, others
            ):
                continue
            spot, xy = Spot.POINT2, point2
        else:
            continue
        occupied[ball] = xy
        plan.append(Respot(ball, spot, xy))
    return plan


def _first_free(
    table: TableSpec, ball: Ball, centres: Iterable[Point], next_cue_xy: Point | None
) -> tuple[Spot, Point]:
    centres = list(centres)
    for spot in _YELLOW_SPOTS if ball is Ball.Y else _RED_SPOTS:
        if not table.is_occupied(table.spot_xy(spot), centres):
            return spot, table.spot_xy(spot)
    return _cushion_place(table, centres, next_cue_xy)


def _cushion_place(
    table: TableSpec, centres: list[Point], next_cue_xy: Point | None
) -> tuple[Spot, Point]:
    """§6.1: against the middle of the short cushion nearest the next striker's cue ball.

    §7.6 [decision]: if that place is taken, the other short cushion's; if both are taken, the
    first free place on the long axis (y = W/2) moving from the table's centre toward the foot,
    reported as ``point2`` with that place's ``xy_mm``. (In a game of five balls that place is
    the centre itself: the four others hold both cushion places and points 1 and 3.)
    """
    cue = next_cue_xy if next_cue_xy is not None else (0.0, table.width_mm / 2)
    near = table.nearest_short_cushion(cue)
    order = (
        (Spot.CUSHION_HEAD, Spot.CUSHION_FOOT)
        if near is Cushion.HEAD
        else (Spot.CUSHION_FOOT, Spot.CUSHION_HEAD)
    )
    for spot in order:
        if not table.is_occupied(table.spot_xy(spot), centres):
            return spot, table.spot_xy(spot)
    return Spot.POINT2, _first_free_toward_foot(table, centres)


def _first_free_toward_foot(table: TableSpec, centres: list[Point]) -> Point:
    """The free place on the long axis nearest the centre on its foot side: the centre itself,
    or a place just one diameter from a ball (then touching it), whichever comes first."""
    d, y = table.ball_diameter_mm, table.width_mm / 2
    centre_x, last_x = table.length_mm / 2, table.length_mm - table.ball_radius_mm
    places = [centre_x]
    for cx, cy in centres:
        if abs(cy - y) < d:  # a ball blocking the axis: the place just past it
            x = cx + math.sqrt(d * d - (cy - y) ** 2)
            while math.dist((x, y), (cx, cy)) < d:  # rounding: one diameter away is free
                x = math.nextafter(x, math.inf)
            places.append(x)
    for x in sorted(p for p in places if centre_x <= p <= last_x):
        if not table.is_occupied((x, y), centres):
            return (x, y)
    # Five balls cannot fill half a table's long axis: unreachable for a real table.
    raise FactsError("no free place on the long axis to respot a ball")


class PlacementProblem(StrEnum):
    OFF_TARGET = "off_target"  # more than 5 mm from where the referee said
    MISSING = "missing"  # not seen on the table
    OUTSIDE_HOUSE = "outside_house"  # a white in hand placed outside the house


@dataclass(frozen=True)
class PlacementWarning:
    ball: Ball
    problem: PlacementProblem
    target_xy_mm: Point | None
    measured_xy_mm: Point | None
    distance_mm: float | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "ball": self.ball.value,
            "problem": self.problem.value,
            "target_xy_mm": list(self.target_xy_mm) if self.target_xy_mm else None,
            "measured_xy_mm": list(self.measured_xy_mm) if self.measured_xy_mm else None,
            "distance_mm": self.distance_mm,
        }

    def describe(self) -> str:
        if self.problem is PlacementProblem.OFF_TARGET:
            return f"{self.ball.value} is {self.distance_mm:.0f} mm from its spot"
        if self.problem is PlacementProblem.MISSING:
            return f"{self.ball.value} was not put back"
        return f"{self.ball.value} (in hand) is outside the house"


def check_placement(
    table: TableSpec,
    respots: Iterable[Respot],
    in_hand_to_place: Iterable[Ball],
    measured: Mapping[Ball, Point],
    tolerance_mm: float = PLACEMENT_TOLERANCE_MM,
) -> list[PlacementWarning]:
    """§6.5: compare where the balls were put with where the referee said.

    ``in_hand_to_place``: whites the next striker places in the house (checked only if seen).
    """
    warnings: list[PlacementWarning] = []
    for respot in respots:
        xy = measured.get(respot.ball)
        if xy is None:
            warnings.append(
                PlacementWarning(respot.ball, PlacementProblem.MISSING, respot.xy_mm, None, None)
            )
            continue
        distance = math.dist(xy, respot.xy_mm)
        if distance > tolerance_mm:
            warnings.append(
                PlacementWarning(
                    respot.ball, PlacementProblem.OFF_TARGET, respot.xy_mm, xy, distance
                )
            )
    for ball in in_hand_to_place:
        xy = measured.get(ball)
        if xy is not None and not table.in_house(xy):
            warnings.append(PlacementWarning(ball, PlacementProblem.OUTSIDE_HOUSE, None, xy, None))
    return warnings
