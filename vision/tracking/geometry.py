"""Plane geometry of sightings: angles, a streak's line, the nearest approach of two paths,
how ball-like a streak is along a way. Pure functions of their arguments."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

from vision.detection import Detection
from vision.shots import within_degrees
from vision.tracking.params import TrackingParams


def nearest_on_the_way(a0: Sequence[float], a1: Sequence[float], b0: Sequence[float],
                        b1: Sequence[float]) -> float:
    """How near two balls came going straight from ``a0`` to ``a1`` and ``b0`` to ``b1`` in
    the same time (mm, looked at in quarters of the way)."""
    return min(math.dist((a0[0] + u * (a1[0] - a0[0]), a0[1] + u * (a1[1] - a0[1])),
                         (b0[0] + u * (b1[0] - b0[0]), b0[1] + u * (b1[1] - b0[1])))
               for u in (0.0, 0.25, 0.5, 0.75, 1.0))


def likeness_along(det: Detection, way: tuple[float, float], step: float,
              params: TrackingParams) -> float:
    """How ball-like ``det`` is as a sighting of a ball rolling ``way`` (a step of ``step`` mm a
    frame): its score, or pick_up_score_share at least when it is a streak drawn out along that way
    for blur_step_share of the step or more: the blur of that very motion (scored as a disc, a
    streak is poor: a white struck at 7 m/s, seen as streaks of score 0.47-0.52, was lost for 35
    frames)."""
    drawn_along = det.streak_mm >= params.blur_step_share * step and either_way(
        det.streak_dir, way, params)
    return max(det.score, params.pick_up_score_share) if drawn_along else det.score


def a_ball_and_a_glint(best: Detection, faint: Detection, params: TrackingParams) -> bool:
    """``best`` looks like a whole ball by itself and ``faint`` beside it not at all: a glint
    or a piece of the pocket's rim by the ball, not the ball's other half (a red on a pocket's
    lip, 0.64, beside a red glint in the hole, 0.35, nine tenths of a ball away, was put at
    their middle, 14 px off). Not for blurred streaks, whose pieces
    each look like part of a ball."""
    return (not best.streak_mm and not faint.streak_mm and best.score >= params.init_score_share
            and faint.score < params.glint_share * best.score)


def each_at_one_of(a: Detection, b: Detection, places: Sequence[Sequence[float]],
                    near: float) -> bool:
    """``a`` and ``b`` each lie within ``near`` of a different one of ``places`` (table mm)."""
    return any(math.dist(p, (a.x_mm, a.y_mm)) <= near and math.dist(q, (b.x_mm, b.y_mm)) <= near
               for p, q in itertools.permutations(places, 2))


def along_across(det: Detection, x: float, y: float) -> tuple[float, float]:
    """Where the streak ``det`` lies from the point (``x``, ``y``), mm: along its direction
    and across it (signed)."""
    ux, uy = det.streak_dir
    dx, dy = det.x_mm - x, det.y_mm - y
    return dx * ux + dy * uy, dx * uy - dy * ux


def same_way(a: Sequence[float], b: Sequence[float], params: TrackingParams) -> bool:
    """Vectors ``a`` and ``b`` point the same way within same_way_deg."""
    return within_degrees(a, b, params.same_way_deg)


def either_way(line: Sequence[float], b: Sequence[float], params: TrackingParams) -> bool:
    """The direction ``line`` (a streak's, which has no sense) lies along ``b`` within
    same_way_deg, one way or the other."""
    return same_way(line, b, params) or same_way((-line[0], -line[1]), b, params)


def rows_from(det: Detection, others: Sequence[Detection], x: float, y: float,
              least_mm: float, most_mm: float) -> list[tuple[float, float]]:
    """For each of ``others`` of ``det``'s colour ``least_mm`` to ``most_mm`` from it (two
    pieces in a row): where the point (``x``, ``y``) lies from ``det`` along the row (toward
    the other piece) and across it (unsigned), mm."""
    bx, by = x - det.x_mm, y - det.y_mm
    out = []
    for o in others:
        if o is det or o.colour != det.colour:
            continue
        ux, uy = o.x_mm - det.x_mm, o.y_mm - det.y_mm
        step = math.hypot(ux, uy)
        if step > 0 and least_mm <= step <= most_mm:
            out.append(((bx * ux + by * uy) / step, abs(by * ux - bx * uy) / step))
    return out
