"""Pockets and the table's edge: a ball past a pocket's mouth, dropped from its lip or into its
hole, rolling into it after it vanished and when it got there, a ball that may have left the
table over a cushion, and a cushion event that was the jaw of the ball's own pot."""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence

import numpy as np

from rules.table import Cushion, Pocket, TableSpec
from vision.shots.cushions import INWARD, cushion_gaps
from vision.shots.params import ShotFactsParams
from vision.shots.samples import (
    FoundEvent,
    Point,
    Sample,
    ShotWindow,
    Vector,
    at_rest_between,
    mm_per_frame,
)


def past_mouth(table: TableSpec, xy: Point, margin: float) -> Pocket | None:
    """The pocket whose mouth line the ball centre ``xy`` has crossed by ``margin`` mm (it has
    dropped), if any; a negative margin: come that near the line. Corner mouths run between
    the jaws across the corner; middle mouths along the nose line."""
    for pocket, px, py, mouth, middle in _mouths(table):
        if middle:
            inward = 1.0 if py == 0 else -1.0
            depth = (xy[1] - py) * inward
            if depth < -margin and abs(xy[0] - px) < mouth / 2 + table.ball_radius_mm:
                return pocket
        else:
            nx = 1.0 if px == 0 else -1.0
            ny = 1.0 if py == 0 else -1.0
            # Signed distance from the mouth line (through the mouth's middle, across the corner).
            depth = ((xy[0] - px) * nx + (xy[1] - py) * ny) / math.sqrt(2) - mouth / 2
            if depth < -margin:
                return pocket
    return None


@functools.lru_cache(maxsize=8)
def _mouths(table: TableSpec) -> tuple[tuple[Pocket, float, float, float, bool], ...]:
    """Each pocket with its point, its mouth's width and whether it is a middle one (asked
    for ten thousand times in a shot's facts)."""
    return tuple((pocket, *table.pocket_xy(pocket), table.pocket_mouth_mm(pocket),
                  pocket.is_middle) for pocket in Pocket)


def nearest_pocket(table: TableSpec, xy: Point) -> tuple[Pocket, float]:
    pocket = min(Pocket, key=lambda p: math.dist(xy, table.pocket_xy(p)))
    return pocket, math.dist(xy, table.pocket_xy(pocket))


def until_dropped(table: TableSpec, samples: list[Sample], params: ShotFactsParams
                  ) -> list[Sample]:
    """The samples before the ball's centre crossed a pocket's mouth (a tracker may go on
    reporting a ball it sees in the pocket's shadow), unless it crossed by less than a quarter
    of a radius and did not drop there: its picture in the jaws reads deeper than it was. It
    did not drop when it is seen in the next frame no deeper (it sits in the jaws, in plain
    view: it drops when it goes deeper or is gone; a ball in the pocket's hole is seen only
    now and then, and its picture cut by the cloth's edge reads shallow), or when it is seen
    back out on the table after it, its centre a radius or more short of every mouth line (it
    rattled and stayed out). (Read deeper, it dropped: what comes back out is something
    else.)"""
    r = table.ball_radius_mm
    for k, s in enumerate(samples):
        if past_mouth(table, s.xy, params.past_mouth_mm) is None:
            continue
        shallow = past_mouth(table, s.xy, 0.25 * r) is None
        sits = k + 1 < len(samples) and samples[k + 1].frame == s.frame + 1 and past_mouth(
            table, samples[k + 1].xy, 0.25 * r) is None
        if shallow and (sits or any(past_mouth(table, q.xy, -r) is None
                                    for q in samples[k + 1:])):
            continue
        return samples[: k + 1] if k == 0 else samples[:k]
    return samples


def into_the_hole_at(table: TableSpec, samples: Sequence[Sample], params: ShotFactsParams
                     ) -> int | None:
    """The index of the sample after which the ball was in a pocket's hole: it came within
    ``in_the_hole_radii`` of the mouth line and was then unseen for more than
    ``in_the_hole_gap_frames`` (there it is seen only now and then, reading short of the line),
    or it stopped dead in front of the mouth (see :func:`_stopped_dead_in_front`); None if it
    never was."""
    half = params.in_the_hole_radii * table.ball_radius_mm
    for k, (s, after) in enumerate(itertools.pairwise(samples)):
        if past_mouth(table, s.xy, -half) is not None and (
                after.frame - s.frame > params.in_the_hole_gap_frames
                or _thrown_back(samples, k, params)):
            return k
        if _stopped_dead_in_front(table, samples, k + 1, params):
            return k + 1
    return None


def _thrown_back(samples: Sequence[Sample], k: int, params: ShotFactsParams) -> bool:
    """The ball rolled into sample ``k`` (at ``rolling_mm_per_frame`` or faster) and the next
    sample lies back the way it came, further than it came in a frame by more than
    ``steady_step_mm``: no rebound off a jaw is faster than the ball that made it. What is seen
    there is something else (a pocket's edge read as a ball where one just dropped: its pot was
    timed when that picture went, 19 frames late)."""
    if k < 1 or k + 1 >= len(samples):
        return False
    came, at, after = samples[k - 1], samples[k], samples[k + 1]
    step_in = mm_per_frame(came, at)
    if step_in < params.rolling_mm_per_frame:
        return False
    way_in = np.subtract(at.xy, came.xy)
    back = np.subtract(after.xy, at.xy)
    return (float(np.dot(way_in, back)) < 0
            and mm_per_frame(at, after) > step_in + params.steady_step_mm)


def _stopped_dead_in_front(table: TableSpec, samples: Sequence[Sample], k: int,
                           params: ShotFactsParams) -> bool:
    """The ball rolled into sample ``k`` (two steps running not at rest, the last and the
    mean over the last ``local_samples`` at ``rolling_mm_per_frame`` or faster) and was next
    seen at rest, for ``still_frames``, in front of a pocket's mouth (after any sightings in
    the jaws, at or past its line): short of its line
    by more than ``past_mouth_mm``, by no more than ``in_the_hole_radii`` (where a ball in the
    hole reads: seen from above at a slant, what lies below the bed is seen nearer the camera's
    foot), or a radius when its least roll from its last place (at ``heavy_drag_mm_s2``) went
    past the line, and sooner than rolling could have stopped it (its speed over
    ``heavy_drag_mm_s2``). On the bed a ball stops dead only against something: wedged in the
    jaws, its centre reads at or past the line. What stayed is the picture of the ball down in
    the hole (under a dim club lamp, a red in a corner's hole was read 13 mm in front of the
    mouth, still, for 18 frames after it dropped, and its pot was timed when that picture
    went)."""
    if k < 2 or k + 1 >= len(samples):
        return False
    before, came, to = samples[k - 2], samples[k - 1], samples[k]
    # (and rolling over its last local_samples steps: a ball creeping onto the lip at 4 mm a
    # frame, its picture jittering 20 mm back and forth, made one step of 30 mm)
    start = samples[max(0, k - params.local_samples)]
    if (at_rest_between(before, came, params)
            or mm_per_frame(came, to) < params.rolling_mm_per_frame
            or mm_per_frame(start, to) < params.rolling_mm_per_frame):
        return False
    # (past sightings in the jaws, at or past the mouth line: the ball on the lip)
    j = k + 1
    while j + 1 < len(samples) and past_mouth(table, samples[j].xy,
                                              -params.past_mouth_mm) is not None:
        j += 1
    rest = samples[j]
    speed = math.dist(came.xy, to.xy) / max(to.t - came.t, 1e-9)  # mm/s
    half = params.in_the_hole_radii * table.ball_radius_mm
    # (or within a radius, when from its last place its least roll, at the heaviest drag,
    # carried it past the mouth line: it cannot have stopped short of it)
    way = np.subtract(to.xy, came.xy) / max(math.dist(came.xy, to.xy), 1e-9)
    least_roll = speed * speed / (2 * params.heavy_drag_mm_s2)
    carried = past_mouth(table, tuple(np.add(to.xy, way * least_roll)), 0.0) is not None
    in_front = past_mouth(table, rest.xy, -(table.ball_radius_mm if carried else half))
    if (rest.t - to.t >= speed / params.heavy_drag_mm_s2 or in_front is None
            or past_mouth(table, rest.xy, -params.past_mouth_mm) is not None):
        return False
    run = list(itertools.takewhile(lambda s: s.frame <= rest.frame + params.still_frames,
                                   samples[j:]))
    return run[-1].frame == rest.frame + params.still_frames and all(
        at_rest_between(rest, s, params) for s in run[1:])


def dropped_from_the_lip(table: TableSpec, samples: Sequence[Sample], last: Sample,
                         window: ShotWindow, clip_end: int, params: ShotFactsParams
                         ) -> Sample | None:
    """The ball's last sample on a pocket's lip, when it came to rest there (``last``, within
    half a radius of the mouth line, as :func:`into_the_hole_at` has it: a ball in the hole reads
    short of the line, one in a middle pocket's hole seen resting 6 mm short of it until it
    dropped out of view after the shot's end), stayed (within a radius) and then dropped before
    the next shot: its track ends, or it is next seen elsewhere (put back by hand). A ball
    hanging in the jaws creeps in too slowly for the tracker, which holds it in place, and
    falls in its own time (as late as 0.4 s after the others stopped). None when it is still
    there when the next shot begins or the video ends, or it is on no lip."""
    if past_mouth(table, last.xy, -params.in_the_hole_radii * table.ball_radius_mm) is None:
        return None
    end = window.next_first if window.next_first is not None else math.inf
    stay = last
    for s in samples:
        if s.frame <= last.frame:
            continue
        if s.frame >= end:
            return None  # still on the lip when the next shot began
        if math.dist(s.xy, last.xy) > table.ball_radius_mm:
            return stay  # gone, and put back elsewhere
        stay = s
    return stay if stay.frame < clip_end else None


def heading_into(table: TableSpec, pocket: Pocket, xy: Point, velocity: Vector | None,
                 fps: float, params: ShotFactsParams, rolls_on: bool = False,
                 way_deg: float = 0.0) -> bool:
    """A fast ball last seen further from ``pocket`` than ``pocket_reach_diameters``, rolling
    straight at its mouth (its line passes within half the mouth of the pocket's point), near
    enough to get there in the two frames it went unseen (three at the speed it is known by:
    a ball seen once after a hit is known only by its step from its place, which it left
    some time in that step). ``rolls_on``: the ball, seen rolling steadily, was never seen
    again, so it got as far as it could roll, slowed by a heavy cloth's drag (a red on a red
    cloth may be lost 560 mm from the corner it is rolling into at 0.8 m/s). ``way_deg``: the
    velocity's direction is known within this many degrees (the line may miss by that much
    more, further off the further the pocket)."""
    if velocity is None:
        return False
    speed = float(np.hypot(*velocity))
    to = np.subtract(table.pocket_xy(pocket), xy)
    distance = float(np.hypot(*to))
    if speed <= 0 or distance == 0 or float(np.dot(to, velocity)) <= 0:
        return False
    miss = abs(float(to[0] * velocity[1] - to[1] * velocity[0])) / speed  # line to the point
    reach = params.pocket_reach_diameters * table.ball_diameter_mm + 3 * speed / fps
    if rolls_on:
        reach = max(reach, speed * speed / (2 * params.heavy_drag_mm_s2))
    slack = distance * math.sin(math.radians(way_deg))
    return miss <= table.pocket_mouth_mm(pocket) / 2 + slack and distance <= reach


def rolling_time(travel: float, speed: float, params: ShotFactsParams) -> float:
    """Seconds a ball rolling at ``speed`` (mm/s) takes to go ``travel`` mm, slowed by a usual
    cloth's drag (``typical_drag_mm_s2``); at its speed, if that drag would stop it short."""
    a = params.typical_drag_mm_s2
    left = speed * speed - 2 * a * travel
    return (speed - math.sqrt(left)) / a if left > 0 else travel / speed


def could_leave(table: TableSpec, xy: Point, velocity: Vector | None, fps: float,
                params: ShotFactsParams) -> bool:
    """A ball last seen at ``xy`` with ``velocity`` (mm/s, None: unknown) may have jumped off the
    table: it was rolling toward a cushion it could reach within a diameter and three frames of
    its travel. A ball that vanishes at rest, or in the open cloth, was lost by the tracker, not
    off the table."""
    r, d = table.ball_radius_mm, table.ball_diameter_mm
    gaps = cushion_gaps(table, xy)
    if velocity is None:  # seen once: it may have left only where it was at a cushion
        return min(gaps.values()) - r <= d
    if float(np.hypot(*velocity)) <= params.still_mm_per_frame * fps:
        return False
    for cushion, gap in gaps.items():
        toward = -float(np.dot(velocity, INWARD[cushion]))  # mm/s toward the cushion
        if toward > 0 and gap - r <= d + 3 * toward / fps:
            return True
    return False


def jaw_of_its_pot(table: TableSpec, event: FoundEvent, events: list[FoundEvent],
                   params: ShotFactsParams, fps: float) -> bool:
    """A cushion event at the jaws of the pocket the ball then drops into: the ball rattled in
    (a jaw contact, not a bank). At the jaws: its centre along the nose no further from the
    pocket's point than the jaw (and ``jaw_tolerance_mm``); or, when the pot is the ball's next
    event, within ``graze_frames``, touching the jaw's tip from the table side (a radius
    further): its picture is eaten by the hole or the jaw's shadow as it drops (a red running
    straight into a corner, read 11 mm back out of it in its last frame, 68 mm along the nose
    from the corner's point: a bank off nothing)."""
    if event.type != "cushion" or event.cushion is None:
        return False
    cushion = Cushion(event.cushion)
    ball = event.balls[0]
    later = sorted((e for e in events if ball in e.balls and e.t > event.t), key=lambda e: e.t)
    for pot in events:
        if (pot.type != "pocket" or pot.pocket is None or pot.balls[0] != ball
                or pot.t < event.t):
            continue
        pocket = Pocket(pot.pocket)
        if cushion not in pocket.cushions:
            continue
        px, py = table.pocket_xy(pocket)
        along = abs(event.xy[0] - px) if cushion.is_long else abs(event.xy[1] - py)
        reach = table.jaw_offset_mm(pocket) + params.jaw_tolerance_mm
        if later and later[0] is pot and pot.t - event.t <= params.graze_frames / fps:
            reach += table.ball_radius_mm
        if along <= reach:
            return True
    return False
