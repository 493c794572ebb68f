"""A moving ball's track as straight pieces: where its motion changed (:func:`cut_into_pieces`,
the detection's outliers left out), when and where two pieces' motions meet, whether the
velocity changed there by more than the track's noise, and when and how a ball left its
resting place."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np

from rules.table import TableSpec
from vision.shots.cushions import nearest_cushion
from vision.shots.params import DEFAULT_SHOT_FACTS, ShotFactsParams
from vision.shots.samples import Piece, Point, Sample, Vector, mm_per_frame, plain_polynomial
from vision.shots.segmentation import resettled


def cut_into_pieces(samples: Sequence[Sample], params: ShotFactsParams = DEFAULT_SHOT_FACTS
                    ) -> list[Piece]:
    """Straight pieces of a moving ball's samples (the first sample may be its resting place).

    A sample or two far off a well-seen straight motion (three samples or more), after which the
    ball is back on it, are the detection's errors (touching balls measured as one picture),
    left out: an event changes the motion for good."""
    pieces: list[Piece] = []
    current: list[Sample] = []
    i = 0
    while i < len(samples):
        s = samples[i]
        if len(current) >= 3 and _drifts_off(current, s, samples[i + 1:i + 3], params):
            pieces.append(Piece(current, params.local_samples))
            current = [s]
            i += 1
            continue
        if len(current) < 2 or _on_line(current, s, params):
            current.append(s)
            i += 1
            continue
        back = next((k for k in range(i + 1, min(i + 1 + params.outlier_samples, len(samples)))
                     if _on_line(current, samples[k], params)), None)
        if back is not None and len(current) >= 3 and _off_line(current, s, params) > 2 * (
                params.line_tolerance_mm):
            i = back
            continue
        pieces.append(Piece(current, params.local_samples))
        # a ball that turned while these pictures were taken is on neither line: left out
        turned = _turned_within(current, samples, i, params) if len(current) >= 3 else 0
        current = [] if turned else [s]
        i += max(turned, 1)
    if current:
        pieces.append(Piece(current, params.local_samples))
    return pieces


def _turned_within(before: Sequence[Sample], samples: Sequence[Sample], i: int,
                   params: ShotFactsParams) -> int:
    """How many samples from ``i`` on (0 to ``turn_samples``), off the line ``before`` them, are
    off the line after them too (the next two samples' line, which the third after it confirms),
    with the two lines meeting: the ball turned (a cushion, a ball) while those frames were
    exposed, and its blurred pictures lie between (a fast ball's streak bent at a cushion is
    measured short of it, sometimes in two frames). 0: the ball did not turn there."""
    for k in range(1, params.turn_samples + 1):
        if i + k + 2 >= len(samples):
            return 0
        after = [samples[i + k], samples[i + k + 1]]
        if not _on_line(after, samples[i + k + 2], params):
            continue
        backward = [Sample(-a.frame, -a.t, a.xy) for a in reversed(after)]  # time run backward
        if any(_on_line(backward, Sample(-s.frame, -s.t, s.xy), params)
               for s in samples[i:i + k]):
            continue
        _, gap = _meeting(Piece(list(before), params.local_samples),
                          Piece([*after, samples[i + k + 2]], params.local_samples))
        if gap <= 2 * params.line_tolerance_mm:
            return k
    return 0


def _drifts_off(samples: Sequence[Sample], s: Sample, following: Sequence[Sample],
                params: ShotFactsParams) -> bool:
    """``s`` is a little off the straight motion of ``samples`` (within the tolerance, but more
    than half of it) and the next sample is off it, half as far again the same way: ``s`` is the
    first picture of a new motion (a slow ball's turn: one frame after it, it is off by less
    than the tolerance, and taken in, the fit bends to it so that the next one is on it too:
    the turn is hidden). Or ``s`` is off by more than a quarter of the tolerance and the next
    two samples further and further the same way (each by a quarter more), the second beyond
    the tolerance: a slower turn still (a ball creeping into a cushion and off it at 5 mm a
    frame is off the line by 4, 7 and 10 mm in the three frames after the cushion; taken in,
    each bends the fit)."""
    if not following:
        return False
    tolerance = _tolerance(samples, params)
    off_s = np.subtract(s.xy, _predict(samples, s.t, params))
    size_s = float(np.hypot(*off_s))
    if not tolerance / 4 < size_s <= tolerance:
        return False  # (most samples: on the line; the next one's fits are not needed)

    def off(nxt: Sample) -> tuple[float, bool]:
        """How far ``nxt`` is off the line, and whether the same way as ``s``."""
        o = np.subtract(nxt.xy, _predict(samples, nxt.t, params))
        size = float(np.hypot(*o))
        return size, float(off_s @ o) > 0.9 * size_s * size

    size, same_way = off(following[0])
    if size > tolerance:  # (else the turn is seen there)
        return (size_s > tolerance / 2 and same_way and size >= 1.5 * size_s
                and _on_line([*samples, s], following[0], params))
    if len(following) < 2 or not same_way or size < params.drift_growth_ratio * size_s:
        return False
    size_2, same_way = off(following[1])
    return (same_way and size_2 > tolerance and size_2 >= params.drift_growth_ratio * size
            and _on_line([*samples, s, following[0]], following[1], params))


def _off_line(samples: Sequence[Sample], s: Sample, params: ShotFactsParams) -> float:
    """How far (mm) ``s`` is from where the straight motion of ``samples`` puts the ball."""
    return math.dist(_predict(samples, s.t, params), s.xy)


def _on_line(samples: Sequence[Sample], s: Sample, params: ShotFactsParams) -> bool:
    return _off_line(samples, s, params) <= _tolerance(samples, params)


def _tolerance(samples: Sequence[Sample], params: ShotFactsParams) -> float:
    """How far off its straight motion a sample may be and still be on it: ``line_tolerance_mm``,
    and ``blur_share`` of the last step more (a blurred streak's centre is measured worse the
    longer the streak)."""
    return params.line_tolerance_mm + params.blur_share * mm_per_frame(samples[-2], samples[-1])


def _predict(samples: Sequence[Sample], t: float, params: ShotFactsParams) -> Point:
    """Where the straight motion of ``samples`` is at ``t``: a least-squares fit of the last
    ``predict_samples`` (a line, or with five samples or more a parabola, for the slowing down),
    which measurement noise of a few millimetres does not throw off as a two-sample line
    would."""
    recent = samples[-params.predict_samples:]
    ts = np.array([q.t for q in recent]) - recent[-1].t
    xy = np.array([q.xy for q in recent])
    degree = 2 if len(recent) >= 5 else 1
    coef = np.polyfit(ts, xy, degree)
    return plain_polynomial(coef)(t - recent[-1].t)


def meeting_time(before: Piece, after: Piece) -> tuple[float, Point]:
    """When and where the motion before a kink and the motion after it meet: the time between the
    two pieces' facing samples at which the two straight motions are closest."""
    (t, xy), _ = _meeting(before, after)
    return t, xy


def _meeting(before: Piece, after: Piece) -> tuple[tuple[float, Point], float]:
    """:func:`meeting_time`, and how far apart (mm) the two motions are then."""
    lo, hi = before.end.t, after.start.t
    ts = np.linspace(lo, hi, 41)
    pa = np.array([before.at(t) for t in ts])
    pb = np.array([after.at(t) for t in ts])
    gaps = np.hypot(*(pa - pb).T)
    k = int(np.argmin(gaps))
    xy = (pa[k] + pb[k]) / 2
    return (float(ts[k]), (float(xy[0]), float(xy[1]))), float(gaps[k])


def kinked(v_in: Vector, v_out: Vector, params: ShotFactsParams) -> bool:
    """The velocity changed at a piece's end by more than the track's noise: by
    ``min_kink_mm_s``, or for a slow ball (a kiss at a walking pace) by half its speed and at
    least ``slow_kink_mm_s``."""
    change = float(np.hypot(*(v_out - v_in)))
    speed = max(float(np.hypot(*v_in)), float(np.hypot(*v_out)))
    return change >= params.min_kink_mm_s or change >= max(params.slow_kink_mm_s, 0.5 * speed)


def start_time(rest: Point, piece: Piece, fps: float, last_rest: Sample | None = None,
               diameter: float = math.inf) -> float:
    """When a ball that was at ``rest`` left it: its first motion, extrapolated back. When that
    motion does not lead back to the rest (within a diameter: the ball was unseen across a
    turn, struck too fast to be followed), half a frame after it was last seen there
    (``last_rest``)."""
    if len(piece.samples) < 2:  # (no motion to extrapolate: seen once, far off, and gone)
        if last_rest is not None and piece.start.frame - last_rest.frame > 1:
            return last_rest.t + 0.5 / fps
        return piece.start.t
    ts = np.linspace(piece.start.t - 2 / fps, piece.start.t, 61)
    d = [math.dist(rest, tuple(piece.at(t))) for t in ts]
    k = int(np.argmin(d))
    if last_rest is not None and piece.start.frame - last_rest.frame > 1 and d[k] > diameter:
        return last_rest.t + 0.5 / fps
    return float(ts[k])


def left_rest(samples: list[Sample], rest: Point, diameter: float, params: ShotFactsParams,
              vanished: bool = True, table: TableSpec | None = None) -> list[Sample]:
    """The samples from the one where the ball leaves its resting place: off it, and the next
    two samples further off (or none: gone at once, if the ball ``vanished`` after them rather
    than the video ending), never to be seen back at the place; or seen again more than a
    diameter away after being unseen (struck too fast to be followed). Before that, any offset
    is the detection jittering (a ball half under the cue), which must not look like a
    strike. With the ``table``: a ball resting by a cushion and sent into it comes back off it
    at once, so the next sample further off, at the cushion, is enough."""
    off = [math.dist(s.xy, rest) for s in samples]
    for k, d in enumerate(off):
        after = off[k:k + 3]
        # (into the cushion by the place, further off by more than a still ball drifts, and
        # back off it)
        bounced = (table is not None and len(after) == 3
                   and after[0] < after[1] - params.still_mm_per_frame and after[2] < after[1]
                   and nearest_cushion(table, samples[k + 1].xy)[1] <= params.cushion_tolerance_mm)
        # (a sample off by less than the jitter and then unseen, as under the cue at the
        # strike, has not shown the ball leave: the motion is seen after the gap)
        gap_next = k + 1 < len(samples) and samples[k + 1].frame - samples[k].frame > 1
        # further off in each of the next two samples, by more than a still ball drifts in
        # all (or in the last, if the ball then vanished: at the end of the video, or of the
        # shot, there is no telling); the first step no shorter than a quarter of the next, as
        # a ball sent off goes fastest at once (a ball touching the one struck may drift a
        # little, a step of a mm, before it is hit and goes 20 mm a frame)
        going = bounced or (all(b > a for a, b in itertools.pairwise(after)) and (
            after[-1] - after[0] > params.still_mm_per_frame if len(after) == 3 else vanished)
            and (len(after) < 3
                 or after[1] - after[0] >= params.first_step_share * (after[2] - after[1])))
        leaves = d > params.still_mm_per_frame and going and not (
            gap_next and d < params.rest_jitter_diameters * diameter)
        # (or far off after a gap; the first sample: the rest was seen before these samples)
        far_after_gap = d > diameter and (
            k == 0 or samples[k].frame - samples[k - 1].frame > 1)
        if (leaves or far_after_gap) and not _back_at_rest(samples[k + 1:], rest, d, params):
            return samples[k:]
    return []


def _back_at_rest(later: Sequence[Sample], rest: Point, off: float, params: ShotFactsParams
                  ) -> bool:
    """The ball, seen ``off`` mm from its resting place ``rest``, is seen back at rest on it
    later (see :func:`vision.shots.segmentation.resettled`): it never left (its detection
    wandered while the cue or a hand lay over part of it). A ball that leaves its place is not
    seen resting on it again; one barely nudged (a few mm) is seen further off each time, never
    coming back; one sent into a cushion near by may roll back across it (a ball resting 47 mm
    from a cushion, sent into it, came back through its place 9 frames later at 0.13 m/s)."""
    return resettled(later, rest, off, params, last_stays=True) is not None
