"""Aiming for scripted shots: find a strike that makes the physics do what a scenario asks.

Ball-ball contacts are frictionless, so an object ball leaves along the line of centres, and a
ball launched with no spin slides straight: the object ball's path depends only on its launch
direction and speed. So a pot (direct or banked) is solved on the object ball alone, by scanning
launch directions, and the cue ball is then aimed at the ghost-ball position. Every answer is
checked by simulating the whole shot.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

import numpy as np

from rules.events import EventType
from rules.table import Pocket, TableSpec
from synth.physics import Shot, Strike, simulate

Point = tuple[float, float]


def unit(v: Point) -> Point:
    n = math.hypot(*v)
    return (v[0] / n, v[1] / n)


def angle_of(v: Point) -> float:
    return math.atan2(v[1], v[0])


def ghost_ball(obj: Point, direction: float, radius: float) -> Point:
    """Where the cue ball's centre must be at contact to send ``obj`` along ``direction``."""
    return (obj[0] - 2 * radius * math.cos(direction), obj[1] - 2 * radius * math.sin(direction))


def pocket_entry(table: TableSpec, pocket: Pocket, depth_mm: float) -> Point:
    """A point on the pocket's axis, ``depth_mm`` into the table from the pocket's mouth centre
    (corner pockets: along the diagonal; middle pockets: straight across)."""
    x, y = table.pocket_xy(pocket)
    s = 1 / math.sqrt(2)
    normal = {Pocket.HR: (s, s), Pocket.HL: (s, -s), Pocket.FR: (-s, s), Pocket.FL: (-s, -s),
              Pocket.MR: (0.0, 1.0), Pocket.ML: (0.0, -1.0)}[pocket]
    return (x + normal[0] * depth_mm, y + normal[1] * depth_mm)


def solve_launch(table: TableSpec, positions: Mapping[str, Point], ball: str, pocket: Pocket,
                 speed: float, around: float, window: float = 0.6, samples: int = 241,
                 banked: bool = False) -> float | None:
    """The launch direction (radians) near ``around`` that pockets ``ball`` (sliding, no spin,
    at ``speed``) in ``pocket`` with the other balls of ``positions`` left where they are;
    the middle of the widest working interval, or None. ``banked``: only answers where the ball
    touches a cushion before dropping."""
    others = {b: xy for b, xy in positions.items() if b != ball}

    def outcome(d: float) -> tuple[bool, tuple[object, ...]]:
        shot = simulate({**others, ball: positions[ball]}, Strike(ball, speed, d), table=table)
        signature = tuple((e.type, e.cushion, e.pocket, e.jaw) for e in shot.events[1:4])
        return _pocketed_clean(shot, ball, pocket, banked), signature

    directions = np.linspace(around - window / 2, around + window / 2, samples)
    results = [outcome(float(d)) for d in directions]
    ok = np.array([good for good, _ in results])
    if not ok.any() and samples > 41:
        # The working window can be narrower than a step: scan finely wherever the outcome
        # changes between neighbouring directions (e.g. from one cushion to the next).
        step = directions[1] - directions[0]
        for k in range(samples - 1):
            if results[k][1] != results[k + 1][1]:
                found = solve_launch(table, positions, ball, pocket, speed,
                                     float(directions[k] + step / 2), step, 41, banked)
                if found is not None:
                    return found
        return None
    if not ok.any():
        return None
    # The widest run of working directions; its middle is the most forgiving aim.
    best, start, run = (0, 0), None, 0
    for k, good in enumerate([*ok, False]):
        if good and start is None:
            start = k
        elif not good and start is not None:
            if k - start > run:
                run, best = k - start, (start, k - 1)
            start = None
    lo, hi = directions[best[0]], directions[best[1]]
    if best[0] == best[1] and samples > 3:
        step = directions[1] - directions[0]  # a single hit: refine around it
        return solve_launch(table, positions, ball, pocket, speed, float(lo), 2 * step, 41,
                            banked)
    return float((lo + hi) / 2)


def _pocketed_clean(shot: Shot, ball: str, pocket: Pocket, banked: bool) -> bool:
    touched_ball = any(e.type is EventType.CONTACT for e in shot.events)
    if touched_ball or shot.pocketed.get(ball) is not pocket:
        return False
    cushions = [e for e in shot.events if e.type is EventType.CUSHION and e.ball == ball]
    return bool(cushions) if banked else not cushions


def aim_pot(table: TableSpec, positions: Mapping[str, Point], cue: str, obj: str,
            pocket: Pocket, object_speed: float, banked: bool = False,
            bank_guess: float | None = None) -> tuple[float, float] | None:
    """(cue ball direction, object ball launch direction) for a pot of ``obj``, or None."""
    R = table.ball_radius_mm
    if bank_guess is None:
        target = pocket_entry(table, pocket, -20.0)  # just past the mouth
        around = angle_of((target[0] - positions[obj][0], target[1] - positions[obj][1]))
        window = 0.25
    else:
        around, window = bank_guess, 0.8
    others = {b: xy for b, xy in positions.items() if b != cue}
    launch = solve_launch(table, others, obj, pocket, object_speed, around, window,
                          banked=banked)
    if launch is None:
        return None
    ghost = ghost_ball(positions[obj], launch, R)
    cue_xy = positions[cue]
    return angle_of((ghost[0] - cue_xy[0], ghost[1] - cue_xy[1])), launch


def cue_speed_for(object_speed: float, cut: float, distance_mm: float, mu_slide: float = 0.2,
                  e_ball: float = 0.95, g: float = 9810.0) -> float:
    """Cue ball speed that gives the object ball about ``object_speed`` after a cut of ``cut``
    radians, allowing for the cue ball's loss on the way (sliding friction, as an upper bound)."""
    at_contact = object_speed / max(math.cos(cut), 0.2) / ((1 + e_ball) / 2)
    return math.sqrt(at_contact**2 + 2 * mu_slide * g * distance_mm * 5 / 7)


def cut_angle(cue_xy: Point, ghost: Point, launch: float) -> float:
    cue_dir = angle_of((ghost[0] - cue_xy[0], ghost[1] - cue_xy[1]))
    return abs((cue_dir - launch + math.pi) % (2 * math.pi) - math.pi)


def search(tries: int, rng: np.random.Generator,
           attempt: Callable[[np.random.Generator], Shot | None]) -> Shot | None:
    """Call ``attempt`` with the seeded generator until it returns a shot, at most ``tries``."""
    for _ in range(tries):
        shot = attempt(rng)
        if shot is not None:
            return shot
    return None
