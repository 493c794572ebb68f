"""Cutting a match into shots: windows of motion between stillness (:func:`split_shots`), a
resting ball's flicker undone first (:func:`steady_tracks`), and neither a ball put somewhere
by hand nor a resting ball's picture shifting taken for motion."""

from __future__ import annotations

import bisect
import itertools
import math
from collections.abc import Mapping, Sequence

import numpy as np
from numpy.typing import NDArray

from vision.shots.params import DEFAULT_SHOT_FACTS, ShotFactsParams
from vision.shots.samples import (
    Point,
    Sample,
    ShotWindow,
    at_rest_between,
    mm_per_frame,
    within_degrees,
)


def split_shots(tracks: Mapping[str, Sequence[Sample]], fps: float = 30.0,
                params: ShotFactsParams = DEFAULT_SHOT_FACTS) -> list[ShotWindow]:
    """Windows of motion separated by ``still_frames`` of stillness, and by ``next_strike_s``:
    motion again sooner is the same shot's (a ball creeping on that the tracker held in place,
    seen moving again) unless it is a ball struck from rest (:func:`_struck_from_rest`); a jump
    faster than any shot (a ball put back by hand) is not motion."""
    moving: set[int] = set()
    for samples in tracks.values():
        for k, (a, b) in enumerate(itertools.pairwise(samples), 1):
            if mm_per_frame(a, b) > params.still_mm_per_frame and not (
                    _placed(samples, k, params) or _reseated(samples, k, params)):
                moving.update(range(a.frame + 1, b.frame + 1))
    windows: list[ShotWindow] = []
    same_shot = max(params.still_frames, round(params.next_strike_s * fps))
    frames_of = {ball: [s.frame for s in samples] for ball, samples in tracks.items()}
    for frame in sorted(moving):
        if windows and frame - windows[-1].last <= same_shot and not _struck_from_rest(
                tracks, frames_of, frame, params):
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
            before = _between(frames_of[ball], w.first - params.still_frames, w.first)
            if before:
                w.rest_before[ball] = samples[before.stop - 1].xy
    return windows


def _between(frames: Sequence[int], first: int, stop: int) -> range:
    """The positions, in a track's increasing ``frames``, of those from ``first`` to ``stop``
    (excluded)."""
    return range(bisect.bisect_left(frames, first), bisect.bisect_left(frames, stop))


def _struck_from_rest(tracks: Mapping[str, Sequence[Sample]],
                      frames_of: Mapping[str, Sequence[int]], frame: int,
                      params: ShotFactsParams) -> bool:
    """Every ball lay still for ``still_frames`` before ``frame`` (:func:`_quiet_before`), and
    one leaves its place then and rolls (see :func:`rolling_from`), its first step no longer
    than ``struck_first_step_ratio`` times the next: the next shot's strike, however soon after
    the last one's balls stopped. A ball creeping on that the tracker held in place is seen
    again no faster than it crept, and a ball's id jumping onto something else (a hand over the
    ball) starts with a step longer than any that follows; both stay the same shot's."""
    if not _quiet_before(tracks, frames_of, frame, params):
        return False
    for ball, samples in tracks.items():
        k = bisect.bisect_left(frames_of[ball], frame)  # (the first sighting at or after it)
        if k == 0 or k + 1 >= len(samples) or at_rest_between(samples[k - 1], samples[k],
                                                               params):
            continue
        rest, first, second = samples[k - 1], samples[k], samples[k + 1]
        first_step, next_step = mm_per_frame(rest, first), mm_per_frame(first, second)
        if frame - rest.frame <= params.still_frames and (
                first_step <= params.struck_first_step_ratio * next_step
                + params.rolling_mm_per_frame) and rolling_from(samples, k, params):
            return True
    return False


def _quiet_before(tracks: Mapping[str, Sequence[Sample]],
                  frames_of: Mapping[str, Sequence[int]], frame: int,
                  params: ShotFactsParams) -> bool:
    """Each ball seen in the ``still_frames`` before ``frame`` was seen within
    ``flicker_return_mm`` of where it was last seen then: nothing rolled, though a resting
    ball's reading may flicker between two places a few mm apart (more than a step at rest:
    a white at rest by a cushion, read 3 mm this way and that, would keep its shot open until
    the next strike)."""
    flicker = params.flicker_return_mm
    for ball, samples in tracks.items():
        recent = [samples[k] for k in _between(frames_of[ball], frame - 1 - params.still_frames,
                                               frame)]
        if recent and any(math.dist(s.xy, recent[-1].xy) > flicker for s in recent):
            return False
    return True


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


def steady_tracks(tracks: Mapping[str, Sequence[Sample]],
                  params: ShotFactsParams = DEFAULT_SHOT_FACTS) -> dict[str, list[Sample]]:
    """The tracks with each resting ball's flicker undone (see :func:`_without_rest_flicker`):
    what :func:`split_shots` and :func:`vision.shots.facts.shot_facts` read."""
    return {ball: _without_rest_flicker(samples, params) for ball, samples in tracks.items()}


def _without_rest_flicker(samples: Sequence[Sample], params: ShotFactsParams) -> list[Sample]:
    """The samples with a resting ball's flicker undone: a ball at rest seen off its place
    and later back on it (see :func:`_back_on`) never moved. No real ball leaves its rest and
    stops dead a frame later, nor comes back to rest on the very place it left."""
    out = list(samples)
    k = 2
    while k + 1 < len(out):
        anchor, jumped = out[k - 1], out[k]
        settled = settled_before(out, k, params)
        end = (_back_on(out, k, anchor, params)
               if settled and not at_rest_between(anchor, jumped, params) else None)
        if end is None:
            k += 1
            continue
        out[k:end] = [Sample(s.frame, s.t, anchor.xy) for s in out[k:end]]
        k = end
    return out


def settled_before(samples: Sequence[Sample], k: int, params: ShotFactsParams) -> bool:
    """Sample ``k - 1`` is a resting ball's place: at rest over the two steps up to it (one
    still step is a ball turning off a cushion, which rolls back past that place). ``k >= 2``."""
    return at_rest_between(samples[k - 2], samples[k - 1], params) and (
        k < 3 or at_rest_between(samples[k - 3], samples[k - 2], params))


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
    j = resettled(samples[k + 1:], anchor.xy, math.dist(samples[k].xy, anchor.xy), params,
                  since=anchor.t, within=params.wander_s)
    return None if j is None else k + 1 + j


def resettled(later: Sequence[Sample], place: Point, off: float, params: ShotFactsParams,
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
            return gap > 1 or not (_rolls_on_as_fast(samples, k, distance) or _one_streak_misread(
                samples, k, params))
        return gap > 1 and not rolling_from(samples, k, params)
    if gap <= params.max_gap_frames or distance <= params.still_mm_per_frame * gap:
        return gap > 1 and _off_its_roll_at_rest(samples, k, params)
    if b.t - a.t <= params.hand_s and (
            distance <= params.nudge_mm or _rolls_on(samples, k, params)):
        # no hand picks a ball up and puts it down so soon, so near; nor puts it down rolling
        # (a red hit unseen on a red cloth, seen again 243 mm on five frames later, rolling
        # slowly on after hitting the other red)
        return False
    return not (k >= 2 and _rolled_on(samples[k - 2], a, b, params)) and not rolling_from(
        samples, k, params) and not _rolls_on_along(samples, k, params)


def _off_its_roll_at_rest(samples: Sequence[Sample], k: int, params: ShotFactsParams) -> bool:
    """Sample ``k``, after a frame or more unseen, is no place the ball's roll could take it:
    it was rolling (its last two steps at ``rolling_mm_per_frame`` or more), sample ``k`` lies
    further than the faster of them goes in the frames between, and ``steady_step_mm``, and
    the ball is at rest there at once, not rolling on. A rolling ball stops at once only
    against a ball, where it is; what was seen there is another thing (a white off the table
    over the foot cushion, its id then on a thing 200 mm aside, by the corner a red had just
    dropped into)."""
    if k < 3:
        return False
    before, a, b = samples[k - 2], samples[k - 1], samples[k]
    step = a.frame - before.frame
    if step < 1 or samples[k - 3].frame != before.frame - step:
        return False
    steps = (math.dist(samples[k - 3].xy, before.xy) / step, math.dist(before.xy, a.xy) / step)
    if min(steps) < params.rolling_mm_per_frame:
        return False
    speed = max(steps)  # (a centre read short of the ball's place, by a pocket's edge, lags)
    reach = speed * (b.frame - a.frame) + params.steady_step_mm
    later = list(samples[k + 1:k + params.rolling_samples + 1])
    at_rest = len(later) == params.rolling_samples and all(
        at_rest_between(x, y, params) for x, y in itertools.pairwise([b, *later]))
    return math.dist(a.xy, b.xy) > reach and at_rest


def _rolls_on(samples: Sequence[Sample], k: int, params: ShotFactsParams) -> bool:
    """From sample ``k`` the ball goes on the way it jumped there from sample ``k - 1`` (within
    30 degrees), three frames later seen more than ``flicker_return_mm`` further: a ball sent
    off from its place rolls straight on; a ball put down by hand stays, or moves with the
    hand any way."""
    jump = np.subtract(samples[k].xy, samples[k - 1].xy)
    later = [s for s in samples[k + 1:k + 4] if s.frame <= samples[k].frame + 3]
    return any(math.dist(s.xy, samples[k].xy) > params.flicker_return_mm
               and within_degrees(np.subtract(s.xy, samples[k].xy), jump, 30.0) for s in later)


def _one_streak_misread(samples: Sequence[Sample], k: int, params: ShotFactsParams) -> bool:
    """The step from sample ``k - 1`` to ``k``, faster than the hardest shot, is a fast ball's
    streak whose centre was read far along it in one of the two frames: the ball was rolling
    into ``k - 1`` already (or ``k - 1`` is the first sample given: seen first already away
    from its rest), over that step and the one before or after it went no faster than the
    hardest shot, and it rolls on from ``k`` (see :func:`rolling_from`). (A white struck at
    12 m/s, unseen in the frame after the strike, its streak's centre read 155 mm ahead of the
    truth in the next, stepped 572 mm in the frame after, bounced out of a corner, and lost the
    rest of its shot.) An id that jumped from a ball at rest onto a thing that wanders off was
    not rolling before the jump."""
    if k >= 2 and at_rest_between(samples[k - 2], samples[k - 1], params):
        return False
    around = [mm_per_frame(samples[k - 2], samples[k])] if k >= 2 else []
    if k + 1 < len(samples):
        around.append(mm_per_frame(samples[k - 1], samples[k + 1]))
    return (any(step < params.hardest_mm_per_frame for step in around)
            and rolling_from(samples, k, params))


def _rolls_on_as_fast(samples: Sequence[Sample], k: int, jump: float) -> bool:
    """From sample ``k`` the ball goes on in the next frame at half the ``jump`` (mm) or more,
    and in the next two as far as the jump: a ball so fast loses no more in a frame or two (a
    cushion turns it, and a bounce in a frame shortens that frame's step). A thing wandering
    after a jump (a hand, the cue taken for a ball) does not."""
    steps = [math.dist(a.xy, b.xy) for a, b in itertools.pairwise(samples[k:k + 3])
             if b.frame - a.frame == 1]
    return len(steps) == 2 and steps[0] >= 0.5 * jump and sum(steps) >= jump


def rolling_from(samples: Sequence[Sample], k: int, params: ShotFactsParams) -> bool:
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
                _steady(u, v, params) for u, v in itertools.pairwise(steps)):
            return True
    return False


def _steady(u: NDArray[np.float64], v: NDArray[np.float64], params: ShotFactsParams) -> bool:
    """Two steps of a ball rolling on: differing by ``steady_step_mm`` at most, or the same
    way (within 20 degrees) at no more than twice the speed either way (a red rolling into a
    corner pocket at 33 mm a frame, its last picture eaten by the hole, read 37 then 73; a
    hand wandering with a ball's id turns about)."""
    if float(np.hypot(*(v - u))) <= params.steady_step_mm:
        return True
    a, b = float(np.hypot(*u)), float(np.hypot(*v))
    return within_degrees(u, v, 20.0) and max(a, b) <= 2 * min(a, b)


def _rolls_on_along(samples: Sequence[Sample], k: int, params: ShotFactsParams) -> bool:
    """From sample ``k`` the ball's next sighting, no longer after it than ``k`` came after the
    one before (or ``max_gap_frames``), goes on the way it jumped to ``k`` (see
    :func:`_rolled_on`), faster than a still ball drifts: a ball put down by hand stays, it does
    not roll on along the line it was carried (a red on a red cloth, seen every seven or eight
    frames on its way into a corner)."""
    if k + 1 >= len(samples):
        return False
    a, b, c = samples[k - 1], samples[k], samples[k + 1]
    if c.frame - b.frame > max(b.frame - a.frame, params.max_gap_frames):
        return False
    return mm_per_frame(b, c) > params.still_mm_per_frame and _rolled_on(a, b, c, params)


def _rolled_on(before: Sample, a: Sample, b: Sample, params: ShotFactsParams) -> bool:
    """``b`` lies the way the ball was rolling from ``before`` to ``a`` (within 30 degrees),
    no faster than it rolled."""
    v = np.subtract(a.xy, before.xy) / max(a.frame - before.frame, 1)
    step = np.subtract(b.xy, a.xy) / max(b.frame - a.frame, 1)
    speed, step_speed = float(np.hypot(*v)), float(np.hypot(*step))
    return (speed > params.still_mm_per_frame and step_speed <= 1.2 * speed
            and within_degrees(v, step, 30.0))


def until_placed(samples: list[Sample], params: ShotFactsParams) -> list[Sample]:
    """The samples before the ball was picked up and put back somewhere else by hand."""
    for k in range(1, len(samples)):
        if _placed(samples, k, params):
            return samples[:k]
    return samples
