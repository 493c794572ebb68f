"""Contacts between balls: which ball touched one at a moment (:func:`contact_partner`), the
hitter of a ball struck from rest (also a fast one seen only around it), pushes along the line
of centres, grazes between rolling balls, nudges of balls that stayed at rest, and the velocity
a hit ball took from its hitter."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from rules.balls import Ball
from rules.events import EventType
from vision.shots.params import ShotFactsParams
from vision.shots.samples import (
    FoundEvent,
    Piece,
    Point,
    Sample,
    Vector,
    gap_confidence,
    within_degrees,
)

ALL_BALLS = tuple(b.value for b in Ball)


def contact_partner(ball: str, xy: Point, t: float, position: Callable[[str, float], Point | None],
                    diameter: float, params: ShotFactsParams, candidates: Sequence[str] = ALL_BALLS,
                    leaving: Vector | None = None, after_s: float = 0.0
                    ) -> tuple[str | None, float]:
    """The other ball (of ``candidates``) closest to one diameter from ``xy`` at ``t``, and
    |distance - D|; None when no ball is within the contact tolerance. ``after_s``: look up
    to this long after ``t`` too (a ball hit from rest is timed a frame or two early when its
    picture creeps as the hitter comes). With ``leaving`` (the way a ball hit from rest
    left), of several within the tolerance the one it left straight away from: a ball at
    rest is sent along the line of centres."""
    near: list[tuple[float, str, Point]] = []
    times = [t + after_s * k / 8 for k in range(9)] if after_s > 0 else [t]
    for other in candidates:
        if other == ball:
            continue
        seen = [(abs(math.dist(where, xy) - diameter), other, where)
                for where in (position(other, u) for u in times) if where is not None]
        if seen:
            near.append(min(seen))
    if not near:
        return None, math.inf
    gap, best, _ = min(near)
    within = [q for q in near if q[0] <= params.contact_tolerance_mm]
    if leaving is not None and len(within) > 1 and float(np.hypot(*leaving)) > 0:
        def off_line(q: tuple[float, str, Point]) -> float:
            away = np.subtract(xy, q[2])
            return float(np.dot(away, leaving)) / max(float(np.hypot(*away)), 1e-9)
        gap, best, _ = max(within, key=off_line)
    return (best, gap) if gap <= params.contact_tolerance_mm else (None, gap)


def touched_then(events: Sequence[FoundEvent], a: str, b: str, t: float,
                 params: ShotFactsParams) -> bool:
    """``a`` and ``b`` have a contact in ``events`` within ``double_kiss_s`` of ``t``: another
    one found there is the same contact (noise), not a second."""
    return any(e.type == "contact" and set(e.balls) == {a, b}
               and abs(e.t - t) < params.double_kiss_s for e in events)


def hitter_place(rest: Point, leaving: Vector, diameter: float) -> Vector:
    """Where the hitter's centre was at the contact of a ball at ``rest`` that left with velocity
    ``leaving`` (not zero): one diameter behind it, along the line of centres it left by."""
    return np.asarray(rest) - diameter * np.asarray(leaving) / float(np.hypot(*leaving))


def passing_hitter(ball: str, rest: Point, leaving: Vector, t: float,
                   samples: Mapping[str, list[Sample]], diameter: float, fps: float,
                   params: ShotFactsParams, tolerance: float | None = None
                   ) -> tuple[str | None, float]:
    """The ball whose path, sample to sample around ``t``, passed where the hitter of ``ball``
    must have been: a ball at rest leaves along the line of centres, so at the contact the
    hitter's centre lay one diameter behind ``rest`` against ``leaving`` (its velocity). The
    samples of a fast ball are far apart and its path between them cuts the corner of its
    deflection, so the path is tested against that point, not against the exact contact time.
    Returns the ball and how far its path passed from that point; None when no path came within
    ``tolerance`` (by default the contact tolerance and half more: the point comes from the
    start direction, itself measured), and ``blur_share`` of the step more: a long streak's centre
    is less sure (a ball at 10 m/s, its centres 40-90 mm off its way, passed 55 mm from where
    the hitter of the ball it hit must have been)."""
    if tolerance is None:
        tolerance = 1.5 * params.contact_tolerance_mm
    speed = float(np.hypot(*leaving))
    if speed <= 0:
        return None, math.inf
    contact = hitter_place(rest, leaving, diameter)
    best: tuple[str | None, float, float] = (None, math.inf, math.inf)  # ball, gap, excess
    for other, seen in samples.items():
        if other == ball:
            continue
        near = [s for s in seen if t - 3 / fps <= s.t <= t + 1.5 / fps]
        for a, b in itertools.pairwise(near):
            pa, pb = np.array(a.xy), np.array(b.xy)
            seg = pb - pa
            length2 = float(seg @ seg)
            if length2 < params.still_mm_per_frame ** 2:
                continue  # at rest: a ball that did not move hit nothing
            u = min(max(float((contact - pa) @ seg) / length2, 0.0), 1.0)
            distance = float(np.hypot(*(pa + u * seg - contact)))
            # (a blurred centre is less sure the longer its streak)
            excess = distance - params.blur_share * math.sqrt(length2)
            if excess < best[2]:
                best = (other, distance, excess)
    return (best[0] if best[2] <= tolerance else None), best[1]


def unseen_at(samples: Sequence[Sample], t: float) -> bool:
    """``t`` falls in a gap of two frames or more in the ball's samples (it was on the table,
    unseen: too fast, or merged with another ball)."""
    before = [s for s in samples if s.t < t]
    after = [s for s in samples if s.t > t]
    return bool(before and after) and after[0].frame - before[-1].frame >= 3


def pushed_by(rest: Point, other: Point, first_piece: Piece, max_angle_deg: float = 12.0
              ) -> bool:
    """A ball at ``rest`` whose first motion goes straight away from a ball at ``other`` (within
    ``max_angle_deg`` of their line of centres) was set moving by it."""
    return within_degrees(first_piece.velocity(first_piece.start.t), np.subtract(rest, other),
                           max_angle_deg)


def pushed_away(change: Vector, xy: Point, other: Point | None, max_angle_deg: float) -> bool:
    """A ball at ``xy`` whose velocity changed by ``change`` was pushed by a ball at ``other``:
    a contact pushes along the line of centres, away from the other ball (within
    ``max_angle_deg``, for the cut's throw and the track's noise); a ball passing by another,
    its track wobbling, turns any way."""
    if other is None:
        return True
    away = np.subtract(xy, other)
    size = float(np.hypot(*change)) * float(np.hypot(*away))
    return size == 0 or float(np.dot(change, away)) >= math.cos(math.radians(max_angle_deg)) * size


def grazes(pieces: Mapping[str, list[Piece]], position: Callable[[str, float], Point | None],
           events: list[FoundEvent], diameter: float, fps: float, params: ShotFactsParams
           ) -> list[FoundEvent]:
    """Contacts between two moving balls that came within ``graze_mm`` of touching, where each
    ball's velocity over the ``graze_frames`` after that moment differs from the one before by at
    least ``graze_kink_mm_s``, pushing it away from the other along their line of centres (within
    30 degrees): a touch too gentle to turn either track by more than its noise. Passing a hair
    apart, neither is pushed. Two slow balls (under ``touch_speed_mm_per_frame``, seen sharp)
    within ``touch_mm`` touched, pushed or not (a ball rolling along with the one it hit,
    catching it again: the truth's own tracks turn by under 1 mm a frame)."""
    found: list[FoundEvent] = []
    seen = {b: {s.frame: s.xy for p in ps for s in p.samples} for b, ps in pieces.items()}
    for a, b in itertools.combinations(sorted(pieces), 2):
        frames = sorted(seen[a].keys() & seen[b].keys())
        if len(frames) < 2:
            continue
        apart = np.array([np.subtract(seen[a][f], seen[b][f]) for f in frames])
        gaps = np.hypot(apart[:, 0], apart[:, 1])
        # between two frames the gap can close by as much as the two balls moved relative to
        # each other: only frames that near touching are searched finely
        moved = np.r_[np.hypot(*np.diff(apart, axis=0).T), 0.0]
        reach = np.maximum(moved, np.r_[0.0, moved[:-1]])
        closest = np.r_[True, gaps[1:] < gaps[:-1]] & np.r_[gaps[:-1] <= gaps[1:], True]
        near = np.flatnonzero(closest & (gaps - reach <= diameter + params.graze_mm)
                              & (reach > params.still_mm_per_frame))  # (not two balls at rest)
        for k in near:
            t_f = frames[k] / fps
            best: tuple[float, float] | None = None
            for t in np.arange(t_f - 1 / fps, t_f + 1 / fps, 1 / (4 * fps)):
                pa, pb = position(a, float(t)), position(b, float(t))
                if pa is not None and pb is not None and (
                        best is None or math.dist(pa, pb) < best[0]):
                    best = (math.dist(pa, pb), float(t))
            if best is None or best[0] > diameter + params.graze_mm:
                continue
            gap, t = best
            if touched_then([*events, *found], a, b, t, params):
                continue
            if (gap <= diameter + params.touch_mm and all(
                    _rolling_slowly(ball, t, position, fps, params) for ball in (a, b))) or all(
                    _pushed_at(ball, other, t, position, fps, params,
                               since=_last_event_before(ball, t - 0.5 / fps, events + found))
                    for ball, other in ((a, b), (b, a))):
                xy = position(a, t)
                assert xy is not None
                found.append(FoundEvent(t, EventType.CONTACT, (a, b), xy, confidence=gap_confidence(
                    abs(gap - diameter), params.graze_mm)))
    return found


def also_touched(pieces: Mapping[str, list[Piece]],
                 position: Callable[[str, float], Point | None], events: list[FoundEvent],
                 diameter: float, fps: float, params: ShotFactsParams) -> list[FoundEvent]:
    """Contacts with a third ball at another contact: a ball within the contact tolerance of one
    of the two at that moment, pushed away from it along their line of centres (the graze test
    of :func:`_pushed_at`), seen rolling slowly all the while (over the graze's frames either
    side: a held or jumping track is no evidence). A ball can hit two at once, and the one
    contact found at its kink names only the nearer partner (a white meeting the yellow and a
    red within half a frame: its turn was put down to the red, the yellow's own turn too gentle
    to cut its track)."""
    found: list[FoundEvent] = []
    for event in [e for e in events if e.type == "contact"]:
        for ball in event.balls:
            here = position(ball, event.t)
            if here is None:
                continue
            for other in sorted(pieces):
                there = position(other, event.t)
                if other in event.balls or there is None:
                    continue
                gap = abs(math.dist(here, there) - diameter)
                if (gap <= params.contact_tolerance_mm
                        and not touched_then([*events, *found], ball, other, event.t, params)
                        and _rolling_slowly(other, event.t, position, fps, params,
                                            params.graze_frames)
                        and _pushed_at(other, ball, event.t, position, fps, params)):
                    found.append(FoundEvent(event.t, EventType.CONTACT, (ball, other), here,
                                            confidence=gap_confidence(
                                                gap, params.contact_tolerance_mm)))
    return found


def _last_event_before(ball: str, t: float, events: Sequence[FoundEvent]) -> float:
    """The time of ``ball``'s last event before ``t`` (-inf: none)."""
    return max((e.t for e in events if ball in e.balls and e.t < t), default=-math.inf)


def _rolling_slowly(ball: str, t: float, position: Callable[[str, float], Point | None],
                    fps: float, params: ShotFactsParams, frames: int = 1) -> bool:
    """``ball`` rolls over the ``frames`` frames either side of ``t``, each step over
    ``still_mm_per_frame`` and under ``touch_speed_mm_per_frame``."""
    at = [position(ball, t + dt / fps) for dt in range(-frames, frames + 1)]
    steps = [math.dist(p, q) for p, q in itertools.pairwise(at) if p is not None and q is not None]
    return len(steps) == 2 * frames and all(
        params.still_mm_per_frame < step < params.touch_speed_mm_per_frame for step in steps)


def _pushed_at(ball: str, other: str, t: float,
               position: Callable[[str, float], Point | None], fps: float,
               params: ShotFactsParams, since: float = -math.inf) -> bool:
    """``ball``'s velocity over the ``graze_frames`` after ``t`` differs from the one before by at
    least ``graze_kink_mm_s``, away from ``other`` along their line of centres within 30 degrees.
    The velocity before is taken from ``since`` on (its last event: a ball that came off a
    cushion a frame or two before it touched has no steady way before that), one frame at least."""
    span = params.graze_frames / fps
    start = min(t - 1.5 / fps, max(t - 0.5 / fps - span, since))
    at = [position(ball, t + dt) for dt in (start - t, -0.5 / fps, 0.5 / fps, 0.5 / fps + span)]
    here, there = position(ball, t), position(other, t)
    at_0, at_1, at_2, at_3 = at
    if (at_0 is None or at_1 is None or at_2 is None or at_3 is None or here is None
            or there is None):
        return False
    change = (np.subtract(at_3, at_2) / span
              - np.subtract(at_1, at_0) / (t - 0.5 / fps - start))
    return float(np.hypot(*change)) >= params.graze_kink_mm_s and pushed_away(
        change, here, there, max_angle_deg=30.0)


def nudges(pieces: Mapping[str, list[Piece]], rests: Mapping[str, Point],
           finals: Mapping[str, Point], events: Sequence[FoundEvent],
           diameter: float, params: ShotFactsParams) -> list[FoundEvent]:
    """Contacts with a ball that stayed at rest through the shot, yet lay ``nudged_mm`` or more
    off its place after it, away from a ball that had rolled to within ``graze_mm`` of touching it
    (within ``nudge_angle_deg`` of their line of centres): crept into, it moved a few mm, too
    slowly to be seen leaving (a ball creeping into it at 1.5 mm a frame moves it 3 mm)."""
    found: list[FoundEvent] = []
    for ball, place in rests.items():
        if ball in pieces or ball not in finals:
            continue
        shift = np.subtract(finals[ball], place)
        if float(np.hypot(*shift)) < params.nudged_mm:
            continue
        near = [(gap, s, other) for other, ps in pieces.items() for p in ps for s in p.samples
                if (gap := math.dist(s.xy, place)) <= diameter + params.graze_mm]
        if not near:
            continue
        # (when it got there: the first sample a diameter from it, or as near as it came, give
        # or take a still ball's drift; a ball creeping in stops against the other one)
        touch = max(min(gap for gap, _, _ in near), diameter) + params.still_mm_per_frame
        gap, s, other = min((x for x in near if x[0] <= touch), key=lambda x: x[1].t)
        if not within_degrees(np.subtract(place, s.xy), shift, params.nudge_angle_deg):
            continue
        if any(e.type == "contact" and set(e.balls) == {other, ball} for e in events):
            continue
        found.append(FoundEvent(s.t, EventType.CONTACT, (other, ball), place,
                                confidence=gap_confidence(abs(gap - diameter), params.graze_mm)))
    return found


def handed_on(ball: str, events: Sequence[FoundEvent], pieces: Mapping[str, list[Piece]],
              seen: Point, rests: Mapping[str, Point], jitter_mm: float = 0.0,
              diameter: float = 0.0) -> Vector | None:
    """The velocity (mm/s) a ball hit from rest took from its hitter: what the hitter's
    velocity lost at the contact (balls of equal mass: the velocity along the line of centres
    passes over whole), when that points the way the ball was seen to go (within 30 degrees;
    seen no further than ``jitter_mm`` from its place, its way is not known: a red hit at
    2.9 m/s into a corner pocket was last seen 3.3 mm off its place, 33 degrees off the way it
    went). A ball seen once or twice after its hit is known by its own steps only roughly: its
    first picture is a streak's piece, and it left some time within that step (a ball hit at
    6.7 m/s, seen once, 32 mm short, has its speed read as 4 m/s). A hitter not seen before
    the contact came unseen from its own rest, once it was hit there, straight to one
    ``diameter`` short of the ball (given a diameter): the ball took that velocity, as fast
    as its hitter came on average (a red hit unseen on a red cloth, into the other red: no
    slower). None when unknown."""
    hit = [e for e in events if e.type == "contact" and e.balls[-1] == ball]
    if not hit or ball not in rests:
        return None
    event = hit[-1]
    hitter = pieces.get(event.balls[0], [])
    before = [p for p in hitter if p.start.t < event.t]
    if before:
        after = [p for p in hitter if p.start.t >= event.t]
        lost: Vector | None = before[-1].velocity(event.t) - (
            after[0].velocity(event.t) if after else 0.0)
    else:
        lost = _came_unseen(event, events, rests, diameter)
    if lost is None:
        return None
    went = np.subtract(seen, rests[ball])
    if float(np.hypot(*went)) <= jitter_mm:
        return lost
    return lost if within_degrees(went, lost, 30.0) else None


def _came_unseen(event: FoundEvent, events: Sequence[FoundEvent], rests: Mapping[str, Point],
                 diameter: float) -> Vector | None:
    """The velocity (mm/s) of ``event``'s hitter, not seen from its rest to the contact: from
    when it was hit there (an earlier contact naming it hit) straight to one ``diameter`` short
    of the ball it hit, on average; None when it was not hit from rest, or without a diameter."""
    mover, ball = event.balls[0], event.balls[-1]
    sent = [e for e in events if e.type == "contact" and e.balls[-1] == mover and e.t < event.t]
    if not sent or diameter <= 0 or mover not in rests or ball not in rests:
        return None
    way = np.subtract(rests[ball], rests[mover])
    length = float(np.hypot(*way))
    if length <= diameter:
        return None
    return np.asarray(way / length * (length - diameter) / (event.t - sent[-1].t))
