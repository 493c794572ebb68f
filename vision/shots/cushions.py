"""Cushions and their jaws: the nearest cushion nose or jaw to a ball, whether a motion went into
one and back off it, bounces too slow to cut a track, and one bounce per visit to a cushion."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from rules.events import EventType
from rules.table import Cushion, Pocket, TableSpec
from vision.shots.params import ShotFactsParams
from vision.shots.samples import FoundEvent, Point, Sample, Vector, gap_confidence

INWARD = {Cushion.HEAD: (1.0, 0.0), Cushion.FOOT: (-1.0, 0.0), Cushion.RIGHT: (0.0, 1.0),
           Cushion.LEFT: (0.0, -1.0)}


def nearest_cushion(table: TableSpec, xy: Point) -> tuple[Cushion, float]:
    """The cushion whose nose is nearest to a ball centre, and |distance - R| (mm)."""
    gaps = cushion_gaps(table, xy)
    cushion = min(gaps, key=lambda c: gaps[c])
    return cushion, abs(gaps[cushion] - table.ball_radius_mm)


def cushion_gaps(table: TableSpec, xy: Point) -> dict[Cushion, float]:
    """How far (mm) a ball centre is from each cushion's nose."""
    return {Cushion.HEAD: xy[0], Cushion.FOOT: table.length_mm - xy[0],
            Cushion.RIGHT: xy[1], Cushion.LEFT: table.width_mm - xy[1]}


def nearest_jaw(table: TableSpec, xy: Point) -> tuple[Cushion, Point, float]:
    """The jaw (the end of a cushion's nose at a pocket's mouth, a point) nearest to a ball
    centre: its cushion, where it is, and |distance - R| (mm)."""
    best: tuple[Cushion, Point, float] = (Cushion.HEAD, (0.0, 0.0), math.inf)
    for pocket in Pocket:
        px, py = table.pocket_xy(pocket)
        a = table.jaw_offset_mm(pocket)
        for cushion in pocket.cushions:
            # along the nose from the pocket's point: both ways from a middle pocket, toward
            # the table from a corner
            if pocket.is_middle:
                ends = [(px - a, py), (px + a, py)]
            elif cushion.is_long:
                ends = [(px + math.copysign(a, table.length_mm / 2 - px), py)]
            else:
                ends = [(px, py + math.copysign(a, table.width_mm / 2 - py))]
            for end in ends:
                gap = abs(math.dist(xy, end) - table.ball_radius_mm)
                if gap < best[2]:
                    best = (cushion, end, gap)
    return best


def _jaw_near(table: TableSpec, xy: Point) -> bool:
    """A ball centred at ``xy`` touches or nearly touches a jaw (within a radius)."""
    return nearest_jaw(table, xy)[2] <= table.ball_radius_mm


def bounced_off_cushion(cushion: Cushion, v_in: Vector, v_out: Vector,
                        rebound: tuple[float, float] = (0.0, 0.0)) -> bool:
    """The motion went into the cushion and came back off it; with ``rebound`` (a share, a
    speed in mm/s): back off it at least that share of its speed into it (across the
    cushion), less that speed (the velocities' noise: a ball into a cushion at 90 mm/s comes
    back at 30, read as 6)."""
    return _bounced(INWARD[cushion], v_in, v_out, rebound)


def bounced_off_point(point: Point, xy: Point, v_in: Vector, v_out: Vector,
                      rebound: tuple[float, float] = (0.0, 0.0)) -> bool:
    """The motion went into ``point`` (a jaw) and came back off it (as
    :func:`bounced_off_cushion`), seen from the ball's centre ``xy`` at the touch."""
    n = np.subtract(xy, point)
    length = float(np.hypot(*n))
    return length > 0 and _bounced(n / length, v_in, v_out, rebound)


def _bounced(n: Vector | tuple[float, float], v_in: Vector, v_out: Vector,
             rebound: tuple[float, float]) -> bool:
    into, off = -float(np.dot(v_in, n)), float(np.dot(v_out, n))
    share, noise = rebound
    return into > 0 and off > max(0.0, share * into - noise)


def slow_bounces(table: TableSpec, paths: Mapping[str, Sequence[Sample]],
                 events: Sequence[FoundEvent], fps: float, params: ShotFactsParams
                 ) -> list[FoundEvent]:
    """Cushion contacts of balls that came within ``bounce_touch_mm`` of touching a cushion's
    nose (between its jaws) and went back off it, their speed toward the nose over the
    ``graze_frames`` before and away from it over those after differing enough (see
    :func:`_turned_back`): a bounce too slow to turn the track by more than its noise, so that
    no piece ends there (a ball into a cushion at 5 mm a frame, off it at 1 mm)."""
    found: list[FoundEvent] = []
    R, k = table.ball_radius_mm, params.graze_frames
    for ball, seen in paths.items():
        each = [cushion_gaps(table, s.xy) for s in seen]
        for cushion in Cushion:
            gaps = [g[cushion] - R for g in each]
            for i in range(k, len(seen) - k):
                g = gaps[i]
                if not (g <= params.bounce_touch_mm and g <= min(gaps[i - k:i + k + 1])):
                    continue
                a, b = seen[i - k], seen[i + k]
                if b.frame - a.frame != 2 * k:
                    continue  # (not seen in every frame around it)
                into = (g - gaps[i - k]) * fps / k
                off = (gaps[i + k] - g) * fps / k
                if not (into < 0 < off and _turned_back(into, off, gaps[i:i + 2 * k + 1], params)):
                    continue
                if _jaw_near(table, seen[i].xy):
                    continue  # (a jaw's bounce or a pocket's lip: the other checks' business)
                t = seen[i].t
                if any(ball in e.balls and e.type in ("cushion", "contact")
                       and abs(e.t - t) <= k / fps for e in [*events, *found]):
                    continue
                found.append(FoundEvent(t, EventType.CUSHION, (ball,), seen[i].xy,
                                        cushion=cushion,
                                        confidence=gap_confidence(abs(g), params.bounce_touch_mm)))
    return found


def _turned_back(into: float, off: float, after: Sequence[float],
                 params: ShotFactsParams) -> bool:
    """A ball's speed toward a cushion's nose ``into`` (negative, mm/s) and away from it ``off``
    (positive) differ by ``min_kink_mm_s``; or, a slow ball dying on the cushion, by
    ``slow_kink_mm_s``, into it at that speed at least, and its centre no nearer the nose in the
    ``2 graze_frames`` after (``after``: its gaps from the touch on). A ball into a cushion at
    2.4 mm a frame comes off it at 0.4; one still closing in, its gap wobbling by the track's
    noise, touches later if at all."""
    if off - into >= params.min_kink_mm_s:
        return True
    slow = params.slow_kink_mm_s
    return -into >= slow and off - into >= slow and after[0] <= min(after)


def unseen_bounces(table: TableSpec, paths: Mapping[str, Sequence[Sample]],
                   rests: Mapping[str, Point], events: Sequence[FoundEvent],
                   params: ShotFactsParams) -> list[FoundEvent]:
    """Cushion contacts of balls unseen as they bounced: a ball seen going into a cushion, then
    unseen for ``unseen_bounce_frames`` or more, then seen coming away from that cushion, where

    * its way in and its way out cross the line a ball's centre runs along that cushion (a
      radius off its nose, between its jaws) at nearly the same point: within
      ``cushion_tolerance_mm``, and more by ``unseen_way_deg`` of each way's length from its
      sighting (a way known from two to four sightings);
    * and the way there and back is as long as the ball could roll in the frames unseen: no
      longer than at its speed before, no shorter than at its speed after (a ball slows), within
      ``cushion_tolerance_mm`` (a ball at rest whose sightings wobble has no way to go).

    Nothing else turns a rolling ball back from a cushion (a red on a red cloth, seen going into
    the long cushion and, 20 frames later, rolling back across the table into a middle pocket:
    a bank). ``paths``: each moving ball's samples in the shot, its rest before them in
    ``rests``; ``events``: those found so far (a gap spanning one of the ball's is left alone,
    and one ends the ways before and after it; a ball with none before the gap, neither struck
    nor hit, is at rest, its picture wobbling on an arm over it)."""
    found: list[FoundEvent] = []
    R, n_fit, slack = table.ball_radius_mm, params.local_samples, params.cushion_tolerance_mm
    spread = math.sin(math.radians(params.unseen_way_deg))
    for ball, seen in paths.items():
        times = sorted(e.t for e in events if ball in e.balls)
        for k in range(len(seen) - 1):
            a, b = seen[k], seen[k + 1]
            if b.frame - a.frame < params.unseen_bounce_frames or any(
                    a.t <= t <= b.t for t in times):
                continue
            # the way in: the sightings up to ``a`` since the ball's last event (its rest place
            # at that event first, if it left it then); the way out: those from ``b`` on
            before = max((t for t in times if t < a.t), default=None)
            if before is None:
                continue  # (not struck or hit before: a ball at rest, its picture wobbling)
            after = min((t for t in times if t > b.t), default=math.inf)
            way_in = [(s.t, s.xy) for s in seen[:k + 1] if s.t > before][-n_fit:]
            if len(way_in) < n_fit and ball in rests and seen[0].t > before:
                way_in = [(before, rests[ball]), *way_in][-n_fit:]
            way_out = [(s.t, s.xy) for s in seen[k + 1:] if s.t < after][:n_fit]
            if len(way_in) < 2 or len(way_out) < 2:
                continue
            d_in, d_out = _direction([xy for _, xy in way_in]), _direction(
                [xy for _, xy in way_out])
            speed_in, speed_out = _speed(way_in), _speed(way_out)
            for cushion in Cushion:
                n = INWARD[cushion]
                into, off = -float(np.dot(d_in, n)), float(np.dot(d_out, n))
                if into <= 0 or off <= 0:
                    continue
                reach_in = (cushion_gaps(table, a.xy)[cushion] - R) / into
                reach_out = (cushion_gaps(table, b.xy)[cushion] - R) / off
                if reach_in < 0 or reach_out < 0:
                    continue
                p_in = np.add(a.xy, d_in * reach_in)
                p_out = np.subtract(b.xy, d_out * reach_out)
                if float(np.hypot(*(p_in - p_out))) > slack + spread * (reach_in + reach_out):
                    continue
                way, unseen_s = reach_in + reach_out, b.t - a.t
                if not speed_out * unseen_s - slack <= way <= speed_in * unseen_s + slack:
                    continue
                xy = (float(p_in[0] + p_out[0]) / 2, float(p_in[1] + p_out[1]) / 2)
                if not _between_jaws(table, cushion, xy) or _jaw_near(table, xy):
                    continue  # (a pocket's mouth, or a jaw: the pots' and jaws' business)
                # (timed by the share of the unseen way it had gone by then)
                t = a.t + reach_in / way * unseen_s if way > 0 else a.t
                found.append(FoundEvent(t, EventType.CUSHION, (ball,), xy, cushion=cushion,
                                        confidence=0.7))
                break
    return found


def _speed(way: Sequence[tuple[float, Point]]) -> float:
    """mm/s from the first of a way's (time, place) to its last, straight."""
    (t0, a), (t1, b) = way[0], way[-1]
    return math.dist(a, b) / (t1 - t0) if t1 > t0 else 0.0


def _between_jaws(table: TableSpec, cushion: Cushion, xy: Point) -> bool:
    """``xy``, a ball centre by ``cushion``, lies along its nose between its jaws (not before
    a pocket's mouth)."""
    along = xy[1] if cushion in (Cushion.HEAD, Cushion.FOOT) else xy[0]
    for pocket in Pocket:
        if cushion in pocket.cushions:
            px, py = table.pocket_xy(pocket)
            if abs(along - (py if cushion in (Cushion.HEAD, Cushion.FOOT) else px)) < (
                    table.jaw_offset_mm(pocket)):
                return False
    return True


def _direction(points: Sequence[Point]) -> Vector:
    """The unit direction of a straight way through ``points`` (in order): from the first to
    the last, or a line's fitted to three or more."""
    xy = np.asarray(points, np.float64)
    d = xy[-1] - xy[0]
    if len(xy) >= 3:
        centred = xy - xy.mean(axis=0)
        axis = np.linalg.svd(centred, full_matrices=False)[2][0]
        d = axis if float(np.dot(axis, d)) >= 0 else -axis
    length = float(np.hypot(*d))
    return np.asarray(d / length if length > 0 else d, np.float64)


def once_per_cushion_visit(events: list[FoundEvent]) -> list[FoundEvent]:
    """Events in time order without a second bounce of a ball off the cushion it last came off
    with nothing of its own in between: off a cushion a ball moves away from it, and only
    another cushion or a ball can turn it back; a second kink there is the track wobbling as
    the ball runs along the cushion or out of the corner."""
    last: dict[str, str | None] = {}  # the ball's last event: its cushion, None for others
    kept = []
    for e in events:
        if e.type == "cushion":
            if last.get(e.balls[0]) == e.cushion:
                continue
            last[e.balls[0]] = e.cushion
        else:
            for b in e.balls:
                last[b] = None
        kept.append(e)
    return kept
