"""Shot facts from tracks: strikes, ball-ball contacts, cushions, pots and balls leaving the table,
inferred from the balls' motion (DESIGN.md shot facts, judged by the rules core).

At 30 fps a ball at 5 m/s moves 170 mm between frames, so no event can be seen in one frame.
Between events a ball moves on a straight line with a smooth speed, so each ball's track is cut
into straight pieces; a piece's end is an event, timed where the straight motions before and
after it meet (sub-frame), and classified by where it happened: one radius from a cushion nose is
a cushion, one diameter from another ball is a contact with it. A ball at rest that starts moving
was hit at the time its new motion extrapolates back to its resting place. A track that ends in a
pocket's mouth, moving into it, is a pot; one that ends elsewhere at a cushion left the table.

Every threshold is a field of :class:`vision.shots.params.ShotFactsParams` (its unit in its name),
passed as ``params``; :data:`vision.shots.params.DEFAULT_SHOT_FACTS` by default.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from rules.balls import Ball
from rules.events import Event, EventType, ShotFacts
from rules.table import Cushion, Pocket, TableSpec
from vision.shots.params import DEFAULT_SHOT_FACTS, ShotFactsParams

Point = tuple[float, float]
Vector = NDArray[np.float64]  # a place, velocity or offset (mm, mm/s): x and y

# (the defaults' values under the names the tracker reads them by: a doubtful sighting of a resting
# ball this near its place keeps it in place; balls this near touch)
REST_JITTER_DIAMETERS = DEFAULT_SHOT_FACTS.rest_jitter_diameters
TOUCHING_DIAMETERS = DEFAULT_SHOT_FACTS.touching_diameters


@dataclass(frozen=True)
class Sample:
    frame: int
    t: float
    xy: Point


@dataclass
class Piece:
    """A straight stretch of one ball's motion. Positions inside it are interpolated between
    samples; beyond its ends (where its events are) they are extrapolated from a quadratic fit of
    the ``local_samples`` samples at that end, since a long piece may curve (a ball with spin off
    a cushion)."""

    samples: list[Sample]
    local_samples: int  # (ShotFactsParams.local_samples)

    def at(self, t: float) -> Vector:
        ts = [s.t for s in self.samples]
        if ts[0] <= t <= ts[-1] and len(ts) >= 2:
            k = min(int(np.searchsorted(ts, t, side="right")), len(ts) - 1)
            a, b = self.samples[k - 1], self.samples[k]
            w = (t - a.t) / (b.t - a.t) if b.t > a.t else 0.0
            xy_a: Vector = np.array(a.xy)
            xy_b: Vector = np.array(b.xy)
            return xy_a * (1 - w) + xy_b * w
        return self._head(t) if t < ts[0] else self._tail(t)

    # (the fits at its two ends, made once: a piece's samples do not change once it is cut)
    @functools.cached_property
    def _head(self) -> Callable[[float], Vector]:
        return _fit(self.samples[:self.local_samples])

    @functools.cached_property
    def _tail(self) -> Callable[[float], Vector]:
        return _fit(self.samples[-self.local_samples:])

    def velocity(self, t: float) -> Vector:
        h = 1e-3
        return (self.at(t + h) - self.at(t - h)) / (2 * h)

    @property
    def start(self) -> Sample:
        return self.samples[0]

    @property
    def end(self) -> Sample:
        return self.samples[-1]


def _fit(samples: Sequence[Sample]) -> Callable[[float], Vector]:
    """p(t) through a few samples: quadratic with 3 or more, linear with 2, constant with 1."""
    t = np.array([s.t for s in samples])
    p = np.array([s.xy for s in samples])
    if len(samples) == 1:
        return lambda _t: p[0].copy()
    degree = 2 if len(samples) >= 3 else 1
    coeffs = np.polyfit(t - t[0], p, degree)
    return lambda when: sum(c * (when - t[0]) ** (degree - i) for i, c in enumerate(coeffs))


@dataclass(frozen=True)
class FoundEvent:
    """An event as found, in the rules' vocabulary, with where it happened (table mm) and how
    sure the geometry is (0-1); its time may precede the video (a strike in the first frame
    extrapolated back). ``balls`` are the tracks' ids."""

    t: float
    type: EventType
    balls: tuple[str, ...]
    xy: Point
    cushion: Cushion | None = None
    pocket: Pocket | None = None
    confidence: float = 1.0

    def to_event(self, fps: float) -> Event:
        """The rules' event: time clamped to the video's start and rounded to 0.1 ms, the frame
        it falls in, the confidence to 0.001."""
        t = max(self.t, 0.0)
        return Event(type=self.type, t=round(t, 4), balls=tuple(Ball(b) for b in self.balls),
                     frame=round(t * fps), cushion=self.cushion, pocket=self.pocket,
                     confidence=round(self.confidence, 3))


@dataclass
class ShotWindow:
    """The frames of one shot: from the strike's frame to the frame everything is still."""

    first: int
    last: int
    rest_before: dict[str, Point] = field(default_factory=dict)
    next_first: int | None = None  # the next shot's first frame (None: this is the last shot)


# --- cutting a match into shots -----------------------------------------------------------------
def split_shots(tracks: Mapping[str, Sequence[Sample]], fps: float = 30.0,
                params: ShotFactsParams = DEFAULT_SHOT_FACTS) -> list[ShotWindow]:
    """Windows of motion separated by ``still_frames`` of stillness, and by ``next_strike_s``:
    motion again sooner is the same shot's (a ball creeping on that the tracker held in place,
    seen moving again) unless it is a ball struck from rest (:func:`_struck_from_rest`); a jump
    faster than any shot (a ball put back by hand) is not motion."""
    moving: set[int] = set()
    for samples in tracks.values():
        for k, (a, b) in enumerate(itertools.pairwise(samples), 1):
            step = math.dist(a.xy, b.xy) / max(b.frame - a.frame, 1)
            if step > params.still_mm_per_frame and not (
                    _placed(samples, k, params) or _reseated(samples, k, params)):
                moving.update(range(a.frame + 1, b.frame + 1))
    windows: list[ShotWindow] = []
    same_shot = max(params.still_frames, round(params.next_strike_s * fps))
    for frame in sorted(moving):
        gap = frame - windows[-1].last if windows else 0
        if windows and gap <= same_shot and not (
                gap > params.still_frames and _struck_from_rest(tracks, frame, params)):
            windows[-1].last = frame
        else:
            windows.append(ShotWindow(frame, frame))
    # A ball that moves and stops again within a few frames was put there by hand: no rolling
    # ball stops that fast (it would decelerate at several g).
    windows = [w for w in windows if w.last - w.first >= params.min_shot_frames
               and _travel(tracks, w) >= params.min_travel_mm]
    for w, nxt in itertools.pairwise(windows):
        w.next_first = nxt.first
    for w in windows:
        for ball, samples in tracks.items():
            before = [s for s in samples if w.first - params.still_frames <= s.frame < w.first]
            if before:
                w.rest_before[ball] = before[-1].xy
    return windows


def _struck_from_rest(tracks: Mapping[str, Sequence[Sample]], frame: int,
                      params: ShotFactsParams) -> bool:
    """Some ball, at rest for ``still_frames`` before ``frame``, leaves its place then and rolls
    (see :func:`_rolling_from`), its first step no longer than ``struck_first_step_ratio``
    times the next: the next shot's strike, however soon after the last one's balls stopped.
    A ball creeping on that the tracker held in place is seen again no faster than it crept,
    and a ball's id jumping onto something else (a hand over the ball) starts with a step
    longer than any that follows; both stay the same shot's."""
    for samples in tracks.values():
        k = next((i for i in range(1, len(samples))
                  if samples[i - 1].frame < frame <= samples[i].frame), None)
        if k is None or k + 1 >= len(samples) or at_rest_between(samples[k - 1], samples[k],
                                                                  params):
            continue
        before = [s for s in samples[:k] if s.frame >= frame - 1 - params.still_frames]
        rest, first, second = samples[k - 1], samples[k], samples[k + 1]
        first_step = math.dist(rest.xy, first.xy) / max(first.frame - rest.frame, 1)
        next_step = math.dist(first.xy, second.xy) / max(second.frame - first.frame, 1)
        if len(before) >= 2 and all(at_rest_between(a, b, params)
                                    for a, b in itertools.pairwise(before)) and (
                first_step <= params.struck_first_step_ratio * next_step
                + params.rolling_mm_per_frame) and _rolling_from(samples, k, params):
            return True
    return False


def _reseated(samples: Sequence[Sample], k: int, params: ShotFactsParams) -> bool:
    """Between samples ``k - 1`` and ``k`` a resting ball's picture shifted (``reseated_mm`` at
    most: the cue or a hand beside it), at rest for two steps before and after: it did not roll,
    for no rolling ball stops dead. (The next shot's cue ball, read 2.9 mm aside as the player
    addressed it, would otherwise join two shots into one.)"""
    if k < 3 or k + 2 >= len(samples):
        return False
    a, b = samples[k - 1], samples[k]
    around = itertools.chain(itertools.pairwise(samples[k - 3:k]),
                             itertools.pairwise(samples[k:k + 3]))
    return math.dist(a.xy, b.xy) <= params.reseated_mm and all(
        at_rest_between(p, q, params) for p, q in around)


def _without_rest_flicker(samples: Sequence[Sample], params: ShotFactsParams) -> list[Sample]:
    """The samples with a resting ball's flicker undone: a ball at rest seen off its place
    and later back on it (see :func:`_back_on`) never moved. No real ball leaves its rest and
    stops dead a frame later, nor comes back to rest on the very place it left."""
    out = list(samples)
    k = 2
    while k + 1 < len(out):
        anchor, before, jumped = out[k - 1], out[k - 2], out[k]
        settled = at_rest_between(before, anchor, params)
        end = (_back_on(out, k, anchor, params)
               if settled and not at_rest_between(anchor, jumped, params) else None)
        if end is None:
            k += 1
            continue
        out[k:end] = [Sample(s.frame, s.t, anchor.xy) for s in out[k:end]]
        k = end
    return out


def _back_on(samples: Sequence[Sample], k: int, anchor: Sample, params: ShotFactsParams
             ) -> int | None:
    """The index of the sample from ``k`` on that shows the ball back on ``anchor``'s place
    after it was seen off it from sample ``k``, or None: seen at another still place (a
    detection that splits two touching balls differently from frame to frame) and then back
    on the first, with no motion between, and still near it in the sample after (not struck
    back across it: a ball may come to rest 1.8 mm off a place it was seen at as it stopped,
    and be struck back through that place 800 frames later); or seen off its place for
    ``wander_s`` at most (its picture drawn onto a hand or the cue beside it), twice as far as back
    on it at rest there (a white by a cushion, its picture drawn for 20 frames onto the hand of
    the player respotting another ball, would otherwise join two shots into one)."""
    if k + 1 < len(samples) and at_rest_between(samples[k], samples[k + 1], params):
        end = k + 2  # the run of still samples at the other place
        while end < len(samples) and at_rest_between(samples[end - 1], samples[end], params):
            end += 1
        if end < len(samples) and all(math.dist(s.xy, anchor.xy) <= params.flicker_return_mm
                                      for s in samples[end:end + 2]):
            return end
    j = _resettled(samples[k + 1:], anchor.xy, math.dist(samples[k].xy, anchor.xy), params,
                   since=anchor.t, within=params.wander_s)
    return None if j is None else k + 1 + j


def _resettled(later: Sequence[Sample], place: Point, off: float, params: ShotFactsParams,
               since: float = -math.inf, within: float = math.inf, last_stays: bool = False
               ) -> int | None:
    """The index of the first of ``later`` that shows the ball back at rest on ``place``
    (within ``flicker_return_mm``, and still to the next sample; the last sample counts as still
    with ``last_stays``), coming from at least twice as far (``off``: how far off it was seen
    before these; a ball nudged a few mm stops a few mm off), looking no further than
    ``within`` seconds after ``since``; None when it is not."""
    furthest = off
    for j, s in enumerate(later):
        if s.t - since > within:
            break
        last = j + 1 == len(later)
        if last and not last_stays:
            break
        d = math.dist(s.xy, place)
        if d <= params.flicker_return_mm and furthest >= 2 * params.flicker_return_mm and (
                last or at_rest_between(s, later[j + 1], params)):
            return j
        furthest = max(furthest, d)
    return None


def at_rest_between(a: Sample, b: Sample, params: ShotFactsParams) -> bool:
    """No more than a resting ball's jitter between the two sightings."""
    return math.dist(a.xy, b.xy) <= params.still_mm_per_frame * max(b.frame - a.frame, 1)


# --- pieces and events of one shot --------------------------------------------------------------
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
    a, b = samples[-2], samples[-1]
    step = math.dist(a.xy, b.xy) / max(b.frame - a.frame, 1)
    return params.line_tolerance_mm + params.blur_share * step


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
    dt = t - recent[-1].t
    p = sum(c * dt ** (degree - k) for k, c in enumerate(coef))
    return (float(p[0]), float(p[1]))


def _meeting_time(before: Piece, after: Piece) -> tuple[float, Point]:
    """When and where the motion before a kink and the motion after it meet: the time between the
    two pieces' facing samples at which the two straight motions are closest."""
    (t, xy), _ = _meeting(before, after)
    return t, xy


def _meeting(before: Piece, after: Piece) -> tuple[tuple[float, Point], float]:
    """:func:`_meeting_time`, and how far apart (mm) the two motions are then."""
    lo, hi = before.end.t, after.start.t
    ts = np.linspace(lo, hi, 41)
    pa = np.array([before.at(t) for t in ts])
    pb = np.array([after.at(t) for t in ts])
    gaps = np.hypot(*(pa - pb).T)
    k = int(np.argmin(gaps))
    xy = (pa[k] + pb[k]) / 2
    return (float(ts[k]), (float(xy[0]), float(xy[1]))), float(gaps[k])


def _start_time(rest: Point, piece: Piece, fps: float, last_rest: Sample | None = None,
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



def past_mouth(table: TableSpec, xy: Point, margin: float) -> Pocket | None:
    """The pocket whose mouth line the ball centre ``xy`` has crossed by ``margin`` mm (it has
    dropped), if any; a negative margin: come that near the line. Corner mouths run between
    the jaws across the corner; middle mouths along the nose line."""
    for pocket in Pocket:
        px, py = table.pocket_xy(pocket)
        mouth = table.pocket_mouth_mm(pocket)
        if pocket.is_middle:
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


def _until_dropped(table: TableSpec, samples: list[Sample], params: ShotFactsParams
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


def _dropped_from_the_lip(table: TableSpec, samples: Sequence[Sample], last: Sample,
                          window: ShotWindow, clip_end: int, params: ShotFactsParams
                          ) -> Sample | None:
    """The ball's last sample on a pocket's lip, when it came to rest there (``last``, within
    half a radius of the mouth line, as :func:`_into_the_hole` has it: a ball in the hole reads
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


def _into_the_hole(table: TableSpec, samples: Sequence[Sample], params: ShotFactsParams
                   ) -> int | None:
    """The index of the sample after which the ball was in a pocket's hole: it came within
    ``in_the_hole_radii`` of the mouth line and was then unseen for more than
    ``in_the_hole_gap_frames`` (there it is seen only now and then, reading short of the line);
    None if it never was."""
    half = params.in_the_hole_radii * table.ball_radius_mm
    for k, (s, after) in enumerate(itertools.pairwise(samples)):
        if after.frame - s.frame > params.in_the_hole_gap_frames and past_mouth(table, s.xy, -half):
            return k
    return None


def _left_rest(samples: list[Sample], rest: Point, diameter: float, params: ShotFactsParams,
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
    later (see :func:`_resettled`): it never left (its detection wandered while the cue or a
    hand lay over part of it). A ball that leaves its place is not seen resting on it again;
    one barely nudged (a few mm) is seen further off each time, never coming back; one sent
    into a cushion near by may roll back across it (a ball resting 47 mm from a cushion, sent
    into it, came back through its place 9 frames later at 0.13 m/s)."""
    return _resettled(later, rest, off, params, last_stays=True) is not None


def _travel(tracks: Mapping[str, Sequence[Sample]], w: ShotWindow) -> float:
    """How far (mm) the ball that moved most in window ``w`` got from where it was before."""
    most = 0.0
    for samples in tracks.values():
        before = [s for s in samples if s.frame < w.first]
        inside = [s for s in samples if w.first <= s.frame <= w.last]
        if before and inside:
            most = max(most, max(math.dist(before[-1].xy, s.xy) for s in inside))
    return most


def _placed(samples: Sequence[Sample], k: int, params: ShotFactsParams) -> bool:
    """Between samples ``k - 1`` and ``k`` the ball was put somewhere by hand: it jumped faster
    than any shot, or it was away for a while (pocketed, in hand, hidden) and is back elsewhere,
    but not where its rolling would have taken it (a rolling ball unseen a while in a cluster
    of balls is seen again further along its way, no faster than it went). Seen there once and
    gone, it was struck there (a placed ball stays; a ball hit while unseen and gone into a
    pocket's jaws is seen there once)."""
    a, b = samples[k - 1], samples[k]
    gap = max(b.frame - a.frame, 1)
    distance = math.dist(a.xy, b.xy)
    if k == len(samples) - 1 and distance / gap < params.placed_mm_per_frame:
        return False  # seen there once and gone: struck there unseen (into a pocket), not put
    if distance / gap >= params.placed_mm_per_frame:
        # (seen in two frames running, it was not moved by hand: a fast ball's blurred centres
        # lag and lead its true place by up to a ball; faster than the hardest shot, only when
        # it rolls on from there as fast: no hand moves a ball so and puts it down rolling)
        if distance / gap >= params.hardest_mm_per_frame:
            return gap > 1 or not _rolls_on_as_fast(samples, k, distance)
        return gap > 1 and not _rolling_from(samples, k, params)
    if gap <= params.max_gap_frames or distance <= params.still_mm_per_frame * gap:
        return False
    if b.t - a.t <= params.hand_s and distance <= params.nudge_mm:
        return False  # no hand picks a ball up and puts it down so soon, so near
    return not (k >= 2 and _rolled_on(samples[k - 2], a, b, params)) and not _rolling_from(
        samples, k, params)


def _rolls_on_as_fast(samples: Sequence[Sample], k: int, jump: float) -> bool:
    """From sample ``k`` the ball goes on in the next frame at half the ``jump`` (mm) or more,
    and in the next two as far as the jump: a ball so fast loses no more in a frame or two (a
    cushion turns it, and a bounce in a frame shortens that frame's step). A thing wandering
    after a jump (a hand, the cue taken for a ball) does not."""
    steps = [math.dist(a.xy, b.xy) for a, b in itertools.pairwise(samples[k:k + 3])
             if b.frame - a.frame == 1]
    return len(steps) == 2 and steps[0] >= 0.5 * jump and sum(steps) >= jump


def _rolling_from(samples: Sequence[Sample], k: int, params: ShotFactsParams) -> bool:
    """The ball is seen rolling from sample ``k`` on: ``rolling_samples`` samples in consecutive
    frames at a steady step of at least ``rolling_mm_per_frame``, starting within as many more
    samples (it may be seen first at a cushion, turning), or at ``fast_mm_per_frame`` or more each,
    steady or not (a ball struck at 16 m/s may be seen again 1.2 m away, bouncing between
    cushions). A hand puts a ball down at rest; a ball back elsewhere, rolling, was
    struck too fast to be followed (gone into a blur and a collision), not placed."""
    for first in range(k, k + params.rolling_samples + 1):
        run = samples[first:first + params.rolling_samples]
        if len(run) == 2 and first == k and run[1].frame - run[0].frame == 1:
            # the track's last two samples: rolling fast (no hand moves a ball so) and gone,
            # into a pocket
            return math.dist(run[0].xy, run[1].xy) >= params.fast_mm_per_frame
        if len(run) < params.rolling_samples:
            return False
        if any(b.frame - a.frame != 1 for a, b in itertools.pairwise(run)):
            continue  # (a frame unseen in its first samples: a blur, or by another ball)
        steps = np.diff(np.array([q.xy for q in run]), axis=0)
        shortest = float(np.hypot(*steps.T).min())
        if shortest >= params.fast_mm_per_frame:
            return True  # (no hand moves a ball so; at this speed, bounces change its steps)
        if shortest >= params.rolling_mm_per_frame and all(
                float(np.hypot(*(v - u))) <= params.steady_step_mm
                for u, v in itertools.pairwise(steps)):
            return True
    return False


def _rolled_on(before: Sample, a: Sample, b: Sample, params: ShotFactsParams) -> bool:
    """``b`` lies the way the ball was rolling from ``before`` to ``a`` (within 30 degrees),
    no faster than it rolled."""
    v = np.subtract(a.xy, before.xy) / max(a.frame - before.frame, 1)
    step = np.subtract(b.xy, a.xy) / max(b.frame - a.frame, 1)
    speed, step_speed = float(np.hypot(*v)), float(np.hypot(*step))
    return (speed > params.still_mm_per_frame and step_speed <= 1.2 * speed
            and within_degrees(v, step, 30.0))


def _until_placed(samples: list[Sample], params: ShotFactsParams) -> list[Sample]:
    """The samples before the ball was picked up and put back somewhere else by hand."""
    for k in range(1, len(samples)):
        if _placed(samples, k, params):
            return samples[:k]
    return samples


def _pushed_by(rest: Point, other: Point, first_piece: Piece, max_angle_deg: float = 12.0
               ) -> bool:
    """A ball at ``rest`` whose first motion goes straight away from a ball at ``other`` (within
    ``max_angle_deg`` of their line of centres) was set moving by it."""
    return within_degrees(first_piece.velocity(first_piece.start.t), np.subtract(rest, other),
                           max_angle_deg)


def within_degrees(a: Sequence[float] | Vector, b: Sequence[float] | Vector, degrees: float
                   ) -> bool:
    """Two directions within ``degrees`` of each other (never, when either is zero)."""
    return float(a[0] * b[0] + a[1] * b[1]) > math.cos(math.radians(degrees)) * math.hypot(
        a[0], a[1]) * math.hypot(b[0], b[1])


_INWARD = {Cushion.HEAD: (1.0, 0.0), Cushion.FOOT: (-1.0, 0.0), Cushion.RIGHT: (0.0, 1.0),
           Cushion.LEFT: (0.0, -1.0)}


def _bounced(cushion: Cushion, v_in: Vector, v_out: Vector) -> bool:
    """The motion went into the cushion and came back off it."""
    n = _INWARD[cushion]
    return float(np.dot(v_in, n)) < 0 < float(np.dot(v_out, n))


def nearest_cushion(table: TableSpec, xy: Point) -> tuple[Cushion, float]:
    """The cushion whose nose is nearest to a ball centre, and |distance - R| (mm)."""
    gaps = _cushion_gaps(table, xy)
    cushion = min(gaps, key=lambda c: gaps[c])
    return cushion, abs(gaps[cushion] - table.ball_radius_mm)


def _cushion_gaps(table: TableSpec, xy: Point) -> dict[Cushion, float]:
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


def _bounced_off_point(point: Point, xy: Point, v_in: Vector, v_out: Vector) -> bool:
    """The motion went into ``point`` (a jaw) and came back off it, seen from the ball's
    centre ``xy`` at the touch."""
    n = np.subtract(xy, point)
    return float(np.dot(v_in, n)) < 0 < float(np.dot(v_out, n))


def nearest_pocket(table: TableSpec, xy: Point) -> tuple[Pocket, float]:
    pocket = min(Pocket, key=lambda p: math.dist(xy, table.pocket_xy(p)))
    return pocket, math.dist(xy, table.pocket_xy(pocket))


def shot_events(table: TableSpec, tracks: Mapping[str, Sequence[Sample]], window: ShotWindow,
                fps: float, params: ShotFactsParams = DEFAULT_SHOT_FACTS
                ) -> tuple[list[FoundEvent], dict[str, Point]]:
    """The events of one shot and the final positions of the balls still on the table."""
    D, R = table.ball_diameter_mm, table.ball_radius_mm
    pieces: dict[str, list[Piece]] = {}
    rests: dict[str, Point] = dict(window.rest_before)
    finals: dict[str, Point] = {}
    last_seen: dict[str, Sample] = {}
    seen_in_shot: dict[str, list[Sample]] = {}
    last_rest: dict[str, Sample] = {}  # of a ball that moved: its last sample before it left
    never_again: set[str] = set()  # balls not seen again after their samples in the shot
    clip_end = max((s[-1].frame for s in tracks.values() if s), default=0)
    for ball, samples in tracks.items():
        # The shot, and the still frames after it (where a ball that stayed is seen again).
        inside = _until_dropped(table, _until_placed(
            [s for s in samples
             if window.first - 1 <= s.frame <= window.last + params.still_frames], params), params)
        if not inside:
            continue
        into_the_hole = _into_the_hole(table, inside, params)
        if into_the_hole is not None:
            inside = inside[:into_the_hole + 1]
        # (one in the hole already dropped there: seen in it now and then, it is no hanging)
        hung = (_dropped_from_the_lip(table, samples, inside[-1], window, clip_end, params)
                if inside[-1].frame > window.last and into_the_hole is None else None)
        if hung is not None:
            inside = inside + [s for s in samples if inside[-1].frame < s.frame <= hung.frame]
        last_seen[ball] = inside[-1]
        seen_in_shot[ball] = inside
        # (the samples end because the ball vanished, not because the video did or the shot)
        after = next((s for s in samples if s.frame > inside[-1].frame), None)
        if after is None and inside[-1].frame < clip_end:
            never_again.add(ball)
        dropped = hung is not None or into_the_hole is not None
        vanished = dropped or (inside[-1].frame < clip_end if after is None
                               else past_mouth(table, after.xy, params.past_mouth_mm) is not None)
        moving = ([s for s in _left_rest(inside, rests[ball], D, params, vanished, table)
                   if math.dist(s.xy, rests[ball]) > params.still_mm_per_frame]
                  if ball in rests else inside)
        if ball in rests and moving:
            pieces[ball] = cut_into_pieces(moving, params)
            before = [s for s in samples if s.frame < moving[0].frame]
            if before:
                last_rest[ball] = before[-1]
        # (a ball that rolled and dropped, from the lip or into the hole, or was last seen on a
        # pocket's mouth line creeping in after the other balls stopped, then gone for good or
        # next seen past that line: it is no ball at rest)
        crept_in = ball in pieces and (dropped or (
            vanished and past_mouth(table, inside[-1].xy, -params.past_mouth_mm) is not None))
        # (at rest, then read off its place by less than half a ball in the video's last
        # frame, not dropping: that was jitter, and the video ended, the ball did not vanish;
        # a flicker of the light in the last frame can read a ball at rest by a cushion 13 mm
        # nearer it, and that step would make it leave the table. A ball seen rolling in the
        # last frames of the tracks may be on its way into a pocket: looked at below.)
        jitter_at_end = (inside[-1].frame == clip_end and not dropped and len(inside) >= 3
                         and math.dist(inside[-3].xy, inside[-2].xy) <= params.still_mm_per_frame
                         and math.dist(inside[-2].xy, inside[-1].xy) <= params.min_travel_mm)
        # (at rest on a pocket's lip through the shot, and dropped before the next: potted in
        # this shot, as one that rolled there and hung; the shot before it left it there)
        fell = ball not in pieces and into_the_hole is None and _dropped_from_the_lip(
            table, samples, inside[-1], window, clip_end, params) is not None
        if not fell and ((inside[-1].frame > window.last and not crept_in)
                         or ball not in pieces or jitter_at_end):
            finals[ball] = inside[-1].xy

    def start_of(ball: str) -> float:
        return _start_time(rests[ball], pieces[ball][0], fps, last_rest.get(ball), D)

    def position(ball: str, t: float) -> Point | None:
        """Where ``ball`` was at ``t``: at rest, or on the piece covering t (extrapolated a
        little past its ends, which is where events happen)."""
        if ball not in pieces:
            return rests.get(ball) or finals.get(ball)
        ps = pieces[ball]
        start = start_of(ball) if ball in rests else ps[0].start.t
        if t <= start:
            return rests.get(ball)
        for k, p in enumerate(ps):
            nxt = ps[k + 1].start.t if k + 1 < len(ps) else math.inf
            if t < nxt:
                xy = p.at(t)
                return (float(xy[0]), float(xy[1]))
        return finals.get(ball)

    events: list[FoundEvent] = []
    # 1. Balls that start moving: the first one is the strike, the others were hit.
    starts = sorted((start_of(b), b) for b in pieces if b in rests)

    def together(t: float, ball: str) -> bool:
        """``ball``, leaving at ``t``, left with the first ball to leave: resting near it
        (within ``near_diameters``), within a frame; resting touching it, within ``touching_s`` (the
        one struck pushes the other off at once; their starts, extrapolated from the first few
        blurred steps, may miss it by more). (Further apart, the order of their starts says
        which was struck, though one hit it within a frame.)"""
        t0, first = starts[0]
        apart = math.dist(rests[ball], rests[first])
        return (t - t0 < 1 / fps and apart <= params.near_diameters * D) or (
            t - t0 <= params.touching_s and apart <= params.touching_diameters * D)

    if len(starts) > 1 and together(*starts[1]):
        # Balls leaving together (touching or nearly): one that leaves straight away from another
        # along their line of centres was hit by it; of the others the faster is the struck one.
        first = [b for t, b in starts if together(t, b)]
        hit = {b for b in first for o in first if o != b and _pushed_by(
            rests[b], rests[o], pieces[b][0])}
        striker = max([b for b in first if b not in hit] or first, key=lambda b: float(
            np.hypot(*pieces[b][0].velocity(pieces[b][0].start.t))))
        starts = [(starts[0][0], striker)] + [x for x in starts if x[1] != striker]
    # When each ball's motion changed (it started, or its velocity changed more than detection
    # noise between two pieces: from when to when, and by how much): a contact changes both
    # balls' motion.
    changes: dict[str, list[tuple[float, float, Vector | None]]] = {
        b: [(t, t, None) for t, sb in starts if sb == b] for b in pieces}
    ps: list[Piece] | None  # a ball's pieces (None below: a ball that never moved)
    for b, ps in pieces.items():
        for earlier, later in itertools.pairwise(ps):
            t, _ = _meeting_time(earlier, later)
            v_in, v_out = earlier.velocity(t), later.velocity(t)
            if _kinked(v_in, v_out, params):
                changes[b].append((earlier.end.t, later.start.t, v_out - v_in))

    def changed_near(ball: str, t: float, by: Point) -> bool:
        """``ball``'s motion changed within two frames of ``t``: it started, or it turned, but
        not toward ``by`` (where the other ball was): a push never pulls (two balls crossing
        5 mm apart: where their pictures meet each track bends, one toward the other). Any way
        away from it counts: a cushion at the same moment turns a ball far off the line of
        centres (a ball hit just as it comes off a cushion)."""
        for t0, t1, change in changes.get(ball, []):
            if min(abs(t0 - t), abs(t1 - t)) > 2.0 / fps:
                continue
            here = position(ball, t)
            if change is None or here is None or _pushed_away(change, here, by,
                                                              max_angle_deg=90.0):
                return True
        return False

    started = {b: t for t, b in starts}
    # each ball's path in the shot, from its last sample at rest (which may lie before the
    # shot's first frame: a ball struck too fast to be seen until it was far away)
    paths = {b: ([last_rest[b]] if b in last_rest and last_rest[b].frame < seen[0].frame
                 else []) + seen for b, seen in seen_in_shot.items()}

    for k, (t, ball) in enumerate(starts):
        if k == 0:
            events.append(FoundEvent(t, EventType.STRIKE, (ball,), rests[ball]))
            continue
        # only a ball already moving can have hit it (or the striker, for a ball that left
        # with it: the striker is given the first start, which may be this ball's own)
        movers = [b for b in pieces if b != ball and (started.get(b, -math.inf) < t or (
            b == starts[0][1] and started[b] == t))]
        first_piece = pieces[ball][0]
        # (the way it left: along its first straight piece, from its place to the piece's end;
        # the piece's first samples may be its picture creeping as the hitter came)
        hitter, gap = _partner(ball, rests[ball], t, position, D, params, movers,
                               leaving=np.subtract(first_piece.end.xy, rests[ball]),
                               after_s=2 / fps)
        if hitter is None:  # a fast hitter's pieces are too short to say where it was at t
            hitter, gap = _passing_hitter(ball, rests[ball],
                                          first_piece.velocity(first_piece.start.t), t,
                                          paths, D, fps, params)
        if hitter is None and len(movers) == 1 and _unseen_at(tracks[movers[0]], t):
            # the only ball rolling was not seen then (too fast, merged): it hit this one
            hitter, gap = movers[0], params.contact_tolerance_mm
        if hitter is None and len(movers) == 1:
            # the only ball rolling passed near where its hitter must have been: a fast ball
            # that turns in mid-exposure leaves a bent blur, whose centre is off its way
            hitter, gap = _passing_hitter(ball, rests[ball],
                                          first_piece.velocity(first_piece.start.t), t,
                                          {movers[0]: paths[movers[0]]}, D, fps, params,
                                          tolerance=params.lone_hitter_mm)
        if hitter is not None:
            events.append(FoundEvent(t, EventType.CONTACT, (hitter, ball), rests[ball],
                                     confidence=_confidence(gap, params.contact_tolerance_mm)))
    # 2. Kinks in moving balls: cushions, or contacts between moving balls.
    def kink_event(ball: str, before: Piece, after: Piece) -> FoundEvent | None:
        """The event where ``before`` turned into ``after``, if any."""
        t, xy = _meeting_time(before, after)
        v_in, v_out = before.velocity(t), after.velocity(t)
        if not _kinked(v_in, v_out, params):
            return None  # the track wobbles (detection noise); the motion did not change
        cushion, cushion_gap = nearest_cushion(table, xy)
        if not _bounced(cushion, v_in, v_out):
            cushion_gap = math.inf  # not off that cushion: into it, or along it
        jaw, jaw_xy, jaw_gap = nearest_jaw(table, xy)
        if jaw_gap < cushion_gap and (_bounced(jaw, v_in, v_out) or _bounced_off_point(
                jaw_xy, xy, v_in, v_out)):
            cushion, cushion_gap = jaw, jaw_gap  # off a jaw: its cushion's end
        partner, gap = _partner(ball, xy, t, position, D, params)
        if partner is not None and not changed_near(partner, t, xy):
            partner = None  # a ball passing by, not hit: its motion went on unchanged
        if partner is not None and not _pushed_away(v_out - v_in, xy, position(partner, t),
                                                    params.push_angle_deg):
            partner = None  # its turn is the track's noise, not a push from the other ball
        if partner is not None and gap <= cushion_gap:
            return FoundEvent(t, EventType.CONTACT, (ball, partner), xy,
                              confidence=_confidence(gap, params.contact_tolerance_mm))
        # (the lines meet where the blurred pictures' centres put them: worse the longer the
        # streaks, as a sample's tolerance is: for a ball off the jaw of a middle pocket at
        # 3.2 m/s they met 30 mm short of it)
        tolerance = params.cushion_tolerance_mm + params.blur_share * max(
            float(np.hypot(*v_in)), float(np.hypot(*v_out))) / fps
        if cushion_gap <= tolerance:
            return FoundEvent(t, EventType.CUSHION, (ball,), xy, cushion=cushion,
                              confidence=_confidence(cushion_gap, tolerance))
        return None

    for ball, ps in pieces.items():
        at_ends = [kink_event(ball, a, b) for a, b in itertools.pairwise(ps)]
        k = 0
        while k < len(at_ends):
            event = at_ends[k]
            if (event is None and k + 1 < len(at_ends) and at_ends[k + 1] is None
                    and len(ps[k + 1].samples) <= params.turn_samples + 1):
                # a bounce's blurred pictures, a short piece on neither line: off the cushion
                # where the lines around it meet (and one picture more, when a noisy one cut the
                # line before a frame early: a ball rolling into a cushion at 6 mm a frame, its
                # line cut a frame before it, leaves a piece of three there)
                bridged = kink_event(ball, ps[k], ps[k + 2])
                if bridged is not None and bridged.type == "cushion":
                    event = bridged
                    k += 1
            k += 1
            if event is not None and not (event.type == "contact" and any(
                    e.type == "contact" and set(e.balls) == set(event.balls)
                    and abs(e.t - event.t) < params.double_kiss_s for e in events)):
                events.append(event)
    # 2b. Grazes: two rolling balls that touch gently, each pushed off its line by too little to
    # cut its track into pieces.
    events += _grazes(pieces, position, events, D, fps, params)
    # 2c. Slow bounces: a ball that came to a cushion and went back off it too slowly for its
    # track to be cut there.
    events += _slow_bounces(table, {b: seen_in_shot[b] for b in pieces}, events, fps, params)
    # 2d. Nudges: a ball at rest crept into, which moved too little to be seen leaving.
    events += _nudges(pieces, rests, finals, events, D, params)
    # 3. Balls that vanish: into a pocket, or off the table.
    for ball, seen in last_seen.items():
        if ball in finals:
            continue
        ps = pieces.get(ball)
        velocity = ps[-1].velocity(seen.t) if ps and len(ps[-1].samples) >= 2 else None
        step = _last_step(seen_in_shot[ball])
        if velocity is None and step is not None and step[1] <= 2:
            velocity = step[0]  # a last piece of one sample (a turn just before it vanished)
        pocket, distance = nearest_pocket(table, seen.xy)
        mouth = table.pocket_mouth_mm(pocket)
        if ps and len(ps) == 1 and len(ps[0].samples) <= 2:
            # hit and gone almost at once: it left as fast as its hitter's velocity changed
            velocity = _faster(velocity, _handed_on(ball, events, pieces, seen.xy, rests))
        near = distance <= params.pocket_reach_diameters * D + mouth / 2
        # (lost for good, after it was seen rolling steadily: not a sighting or two, whose
        # speed may be a misreading's)
        rolls_on = ball in never_again and bool(
            ps and len(ps[-1].samples) >= params.rolling_samples)
        if near or _heading_into(table, pocket, seen.xy, velocity, fps, params,
                                 rolls_on=rolls_on):
            # Vanished by a pocket: into it (after the jaws, if it rattled), timed by its speed
            # (by a pocket, within a frame: it may have been lost in the jaws; on its way there,
            # when it gets there)
            speed = float(np.hypot(*velocity)) if velocity is not None else 0.0
            travel = max(distance - mouth / 2 - R, 0.0)
            t = seen.t + ((min(travel / speed, 1 / fps) if near
                           else _rolling_time(travel, speed, params))
                          if speed > 0 else 1 / (2 * fps))
            # (a ball lost on its way for longer than a blur lasts: likely, not seen)
            confidence = 1.0 if speed > 0 and (near or t - seen.t <= 3 / fps) else 0.7
            events.append(FoundEvent(t, EventType.POCKET, (ball,), seen.xy, pocket=pocket,
                                     confidence=confidence))
            continue
        if velocity is None and step is not None:
            velocity = step[0]
        if _could_leave(table, seen.xy, velocity, fps, params):
            events.append(FoundEvent(seen.t + 1 / (2 * fps), EventType.OFF_TABLE, (ball,), seen.xy,
                                     confidence=0.5))
        elif ps and len(ps) >= 2 and len(ps[-1].samples) <= 2 and _could_leave(
                table, ps[-2].end.xy, ps[-2].velocity(ps[-2].end.t), fps, params):
            # rolling into a cushion, then a sample or two on it and gone for good: over it
            # (the ball rising onto the rail, not bouncing: its last pictures go nowhere); the
            # turn there was no cushion contact
            t_over = ps[-1].start.t
            events = [e for e in events if not (e.type == "cushion" and e.balls == (ball,)
                                                and abs(e.t - t_over) <= 1 / fps)]
            events.append(FoundEvent(t_over, EventType.OFF_TABLE, (ball,), ps[-2].end.xy,
                                     confidence=0.4))
        # else the tracker lost the ball on the cloth: no event (it is where it was last seen
        # or where the next shot finds it)
    events = [e for e in events if not _jaw_of_its_pot(table, e, events, params)]
    events.sort(key=lambda e: (e.t, e.type != "strike"))
    return _after_the_strike(_once_per_cushion_visit(events)), finals


def _grazes(pieces: Mapping[str, list[Piece]], position: Callable[[str, float], Point | None],
            events: list[FoundEvent], diameter: float, fps: float, params: ShotFactsParams
            ) -> list[FoundEvent]:
    """Contacts between two moving balls that came within ``graze_mm`` of touching, where each
    ball's velocity over the ``graze_frames`` after that moment differs from the one before by at
    least ``graze_kink_mm_s``, pushing it away from the other along their line of centres (within
    30 degrees): a touch too gentle to turn either track by more than its noise. Passing a hair
    apart, neither is pushed."""
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
            if any(e.type == "contact" and set(e.balls) == {a, b}
                   and abs(e.t - t) < params.double_kiss_s for e in events + found):
                continue
            if all(_pushed_at(ball, other, t, position, fps, params)
                   for ball, other in ((a, b), (b, a))):
                xy = position(a, t)
                assert xy is not None
                found.append(FoundEvent(t, EventType.CONTACT, (a, b), xy, confidence=_confidence(
                    abs(gap - diameter), params.graze_mm)))
    return found


def _nudges(pieces: Mapping[str, list[Piece]], rests: Mapping[str, Point],
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
                                confidence=_confidence(abs(gap - diameter), params.graze_mm)))
    return found


def _slow_bounces(table: TableSpec, paths: Mapping[str, Sequence[Sample]],
                  events: Sequence[FoundEvent], fps: float, params: ShotFactsParams
                  ) -> list[FoundEvent]:
    """Cushion contacts of balls that came within ``bounce_touch_mm`` of touching a cushion's
    nose (between its jaws) and went back off it, their speed toward the nose over the
    ``graze_frames`` before and away from it over those after differing by at least
    ``min_kink_mm_s``: a bounce too slow to turn the track by more than its noise, so that no
    piece ends there (a ball into a cushion at 5 mm a frame, off it at 1 mm)."""
    found: list[FoundEvent] = []
    R, k = table.ball_radius_mm, params.graze_frames
    for ball, seen in paths.items():
        each = [_cushion_gaps(table, s.xy) for s in seen]
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
                if not (into < 0 < off and off - into >= params.min_kink_mm_s):
                    continue
                if _jaw_near(table, seen[i].xy):
                    continue  # (a jaw's bounce or a pocket's lip: the other checks' business)
                t = seen[i].t
                if any(ball in e.balls and e.type in ("cushion", "contact")
                       and abs(e.t - t) <= k / fps for e in [*events, *found]):
                    continue
                found.append(FoundEvent(t, EventType.CUSHION, (ball,), seen[i].xy,
                                        cushion=cushion,
                                        confidence=_confidence(abs(g), params.bounce_touch_mm)))
    return found


def _jaw_near(table: TableSpec, xy: Point) -> bool:
    """A ball centred at ``xy`` touches or nearly touches a jaw (within a radius)."""
    return nearest_jaw(table, xy)[2] <= table.ball_radius_mm


def _pushed_at(ball: str, other: str, t: float,
               position: Callable[[str, float], Point | None], fps: float,
               params: ShotFactsParams) -> bool:
    """``ball``'s velocity over the ``graze_frames`` after ``t`` differs from the one before by at
    least ``graze_kink_mm_s``, away from ``other`` along their line of centres within 30 degrees."""
    span = params.graze_frames / fps
    at = [position(ball, t + dt) for dt in (-0.5 / fps - span, -0.5 / fps, 0.5 / fps,
                                            0.5 / fps + span)]
    here, there = position(ball, t), position(other, t)
    at_0, at_1, at_2, at_3 = at
    if (at_0 is None or at_1 is None or at_2 is None or at_3 is None or here is None
            or there is None):
        return False
    change = (np.subtract(at_3, at_2) - np.subtract(at_1, at_0)) / span
    return float(np.hypot(*change)) >= params.graze_kink_mm_s and _pushed_away(
        change, here, there, max_angle_deg=30.0)


def _pushed_away(change: Vector, xy: Point, other: Point | None, max_angle_deg: float) -> bool:
    """A ball at ``xy`` whose velocity changed by ``change`` was pushed by a ball at ``other``:
    a contact pushes along the line of centres, away from the other ball (within
    ``max_angle_deg``, for the cut's throw and the track's noise); a ball passing by another,
    its track wobbling, turns any way."""
    if other is None:
        return True
    away = np.subtract(xy, other)
    size = float(np.hypot(*change)) * float(np.hypot(*away))
    return size == 0 or float(np.dot(change, away)) >= math.cos(math.radians(max_angle_deg)) * size


def _kinked(v_in: Vector, v_out: Vector, params: ShotFactsParams) -> bool:
    """The velocity changed at a piece's end by more than the track's noise: by
    ``min_kink_mm_s``, or for a slow ball (a kiss at a walking pace) by half its speed and at
    least ``slow_kink_mm_s``."""
    change = float(np.hypot(*(v_out - v_in)))
    speed = max(float(np.hypot(*v_in)), float(np.hypot(*v_out)))
    return change >= params.min_kink_mm_s or change >= max(params.slow_kink_mm_s, 0.5 * speed)


def _last_step(track: Sequence[Sample]) -> tuple[Vector, int] | None:
    """The velocity (mm/s) between a track's last two samples and how many frames apart they
    are; None with fewer than two."""
    if len(track) < 2 or track[-1].t <= track[-2].t:
        return None
    a, b = track[-2], track[-1]
    return (np.array(b.xy) - np.array(a.xy)) / (b.t - a.t), b.frame - a.frame


def _handed_on(ball: str, events: Sequence[FoundEvent], pieces: Mapping[str, list[Piece]],
               seen: Point, rests: Mapping[str, Point]) -> Vector | None:
    """The velocity (mm/s) a ball hit from rest took from its hitter: what the hitter's
    velocity lost at the contact (balls of equal mass: the velocity along the line of centres
    passes over whole), when that points the way the ball was seen to go (within 30 degrees).
    A ball seen once or twice after its hit is known by its own steps only roughly: its first
    picture is a streak's piece, and it left some time within that step (a ball hit at
    6.7 m/s, seen once, 32 mm short, has its speed read as 4 m/s). None when unknown."""
    hit = [e for e in events if e.type == "contact" and e.balls[-1] == ball]
    if not hit or ball not in rests:
        return None
    event = hit[-1]
    hitter = pieces.get(event.balls[0], [])
    before = [p for p in hitter if p.start.t < event.t]
    if not before:
        return None
    after = [p for p in hitter if p.start.t >= event.t]
    lost = before[-1].velocity(event.t) - (after[0].velocity(event.t) if after else 0.0)
    return lost if within_degrees(np.subtract(seen, rests[ball]), lost, 30.0) else None


def _faster(a: Vector | None, b: Vector | None) -> Vector | None:
    """Of two velocity estimates (None: unknown), the faster."""
    if a is None or b is None:
        return b if a is None else a
    return b if float(np.hypot(*b)) > float(np.hypot(*a)) else a


def _once_per_cushion_visit(events: list[FoundEvent]) -> list[FoundEvent]:
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


def _heading_into(table: TableSpec, pocket: Pocket, xy: Point, velocity: Vector | None,
                  fps: float, params: ShotFactsParams, rolls_on: bool = False) -> bool:
    """A fast ball last seen further from ``pocket`` than ``pocket_reach_diameters``, rolling
    straight at its mouth (its line passes within half the mouth of the pocket's point), near
    enough to get there in the two frames it went unseen (three at the speed it is known by:
    a ball seen once after a hit is known only by its step from its place, which it left
    some time in that step). ``rolls_on``: the ball, seen rolling steadily, was never seen
    again, so it got as far as it could roll, slowed by a heavy cloth's drag (a red on a red
    cloth may be lost 560 mm from the corner it is rolling into at 0.8 m/s)."""
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
    return miss <= table.pocket_mouth_mm(pocket) / 2 and distance <= reach


def _rolling_time(travel: float, speed: float, params: ShotFactsParams) -> float:
    """Seconds a ball rolling at ``speed`` (mm/s) takes to go ``travel`` mm, slowed by a usual
    cloth's drag (``typical_drag_mm_s2``); at its speed, if that drag would stop it short."""
    a = params.typical_drag_mm_s2
    left = speed * speed - 2 * a * travel
    return (speed - math.sqrt(left)) / a if left > 0 else travel / speed


def _could_leave(table: TableSpec, xy: Point, velocity: Vector | None, fps: float,
                 params: ShotFactsParams) -> bool:
    """A ball last seen at ``xy`` with ``velocity`` (mm/s, None: unknown) may have jumped off the
    table: it was rolling toward a cushion it could reach within a diameter and three frames of
    its travel. A ball that vanishes at rest, or in the open cloth, was lost by the tracker, not
    off the table."""
    r, d = table.ball_radius_mm, table.ball_diameter_mm
    gaps = _cushion_gaps(table, xy)
    if velocity is None:  # seen once: it may have left only where it was at a cushion
        return min(gaps.values()) - r <= d
    if float(np.hypot(*velocity)) <= params.still_mm_per_frame * fps:
        return False
    for cushion, gap in gaps.items():
        toward = -float(np.dot(velocity, _INWARD[cushion]))  # mm/s toward the cushion
        if toward > 0 and gap - r <= d + 3 * toward / fps:
            return True
    return False


def _jaw_of_its_pot(table: TableSpec, event: FoundEvent, events: list[FoundEvent],
                    params: ShotFactsParams) -> bool:
    """A cushion event at the jaws of the pocket the ball then drops into: the ball rattled in
    (a jaw contact, not a bank)."""
    if event.type != "cushion" or event.cushion is None:
        return False
    cushion = Cushion(event.cushion)
    for pot in events:
        if (pot.type != "pocket" or pot.pocket is None or pot.balls[0] != event.balls[0]
                or pot.t < event.t):
            continue
        pocket = Pocket(pot.pocket)
        if cushion not in pocket.cushions:
            continue
        px, py = table.pocket_xy(pocket)
        along = abs(event.xy[0] - px) if cushion.is_long else abs(event.xy[1] - py)
        if along <= table.jaw_offset_mm(pocket) + params.jaw_tolerance_mm:
            return True
    return False


ALL_BALLS = tuple(b.value for b in Ball)


def _partner(ball: str, xy: Point, t: float, position: Callable[[str, float], Point | None],
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


def _passing_hitter(ball: str, rest: Point, leaving: Vector, t: float,
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
    contact = np.array(rest) - diameter * leaving / speed
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


def _unseen_at(samples: Sequence[Sample], t: float) -> bool:
    """``t`` falls in a gap of two frames or more in the ball's samples (it was on the table,
    unseen: too fast, or merged with another ball)."""
    before = [s for s in samples if s.t < t]
    after = [s for s in samples if s.t > t]
    return bool(before and after) and after[0].frame - before[-1].frame >= 3


def _confidence(gap: float, tolerance: float) -> float:
    return max(0.0, 1.0 - gap / (2 * tolerance))


def _after_the_strike(events: list[FoundEvent]) -> list[FoundEvent]:
    """Nothing happens before the strike; events of a ball after it left the table are dropped."""
    strike = next((k for k, e in enumerate(events) if e.type == "strike"), None)
    if strike is None:
        return []
    out = [events[strike]]
    gone: set[str] = set()
    for e in events[strike + 1:]:
        if e.t < events[strike].t or any(b in gone for b in e.balls):
            continue
        out.append(e)
        if e.type in ("pocket", "off_table"):
            gone.add(e.balls[0])
    return out


def tracks_from_rows(rows: Sequence[tuple[int, str, float, float, bool]], fps: float,
                     visible_only: bool = True) -> dict[str, list[Sample]]:
    """Per-ball samples from tracks CSV rows (frame, ball, x, y, visible)."""
    out: dict[str, list[Sample]] = {}
    for frame, ball, x, y, visible in sorted(rows):
        if visible or not visible_only:
            out.setdefault(ball, []).append(Sample(frame, frame / fps, (x, y)))
    return out


def shots_from_tracks(table: TableSpec, tracks: Mapping[str, Sequence[Sample]],
                      fps: float, params: ShotFactsParams = DEFAULT_SHOT_FACTS
                      ) -> list[dict[str, object]]:
    """Every shot found in the whole tracks, in DESIGN.md's JSON form (see :func:`shot_facts`;
    call null)."""
    tracks = steady_tracks(tracks, params)
    shots = []
    for window in split_shots(tracks, fps, params):
        facts = shot_facts(table, tracks, window, fps, params)
        if facts is not None:
            shots.append(facts.to_dict())
    return shots


def steady_tracks(tracks: Mapping[str, Sequence[Sample]],
                  params: ShotFactsParams = DEFAULT_SHOT_FACTS) -> dict[str, list[Sample]]:
    """The tracks with each resting ball's flicker undone (see :func:`_without_rest_flicker`):
    what :func:`split_shots` and :func:`shot_facts` read."""
    return {ball: _without_rest_flicker(samples, params) for ball, samples in tracks.items()}


def shot_facts(table: TableSpec, tracks: Mapping[str, Sequence[Sample]], window: ShotWindow,
               fps: float, params: ShotFactsParams = DEFAULT_SHOT_FACTS) -> ShotFacts | None:
    """One shot's facts found in ``window`` of the steady ``tracks`` (no call), with
    ``strike_frame``, ``rest_frame`` and ``start_positions`` (where the balls lay just before
    the strike, mm: respotted and placed balls included, for the placement check) in its
    ``extra``; None when no strike is found in it."""
    events, finals = shot_events(table, tracks, window, fps, params)
    if not events:
        return None
    return ShotFacts(
        events=tuple(e.to_event(fps) for e in events),
        final_positions={Ball(b): (round(x, 2), round(y, 2)) for b, (x, y) in finals.items()},
        extra={"start_positions": {b: [round(x, 2), round(y, 2)]
                                   for b, (x, y) in window.rest_before.items()},
               "strike_frame": round(events[0].t * fps), "rest_frame": window.last})
