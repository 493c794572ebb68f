"""Shots found as the video is read: each shot's facts given out as soon as its balls have been at
rest a moment (``settle_s``), not after the whole match has been tracked.

The tracker's frames are fed in order. Every ``check_every_s`` the shots are cut from the frames
kept so far, by the same rules as a finished match's
(:func:`vision.shots.segmentation.split_shots`): a shot whose last motion lies ``settle_s`` back is
over (motion again sooner would have been the same shot's: ``settle_s`` is longer than that gap),
and its facts are found from the frames up to now (:func:`vision.shots.facts.shot_facts`), both by
the thresholds of ``facts`` (a :class:`vision.shots.params.ShotFactsParams`). Frames older than
``history_s`` before the shot still open, or before now, are dropped, so memory does not grow with
the video's length; a ball not seen for longer keeps its last few sightings (where it was when it
went out of view).

The facts are those a finished match's tracks give when nothing the shot's facts look at lies
more than ``settle_s`` after its balls came to rest (a ball hanging on a pocket's lip that drops
later, a ball hidden longer than that and then seen elsewhere): ``benchmarks/bench_stream.py``
compares the two on labelled clips.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from rules.events import ShotFacts
from rules.table import TableSpec
from vision.shots.facts import shot_facts
from vision.shots.params import DEFAULT_SHOT_FACTS, ShotFactsParams
from vision.shots.samples import Sample, ShotWindow, at_rest_between
from vision.shots.segmentation import settled_before, split_shots, steady_tracks

KEPT_SIGHTINGS = 3  # of a ball out of view longer than the history: its last sightings are kept


class StreamError(ValueError):
    """Parameters the shot stream cannot work with, or frames fed out of order."""


@dataclass(frozen=True)
class ShotStreamParams:
    """When a shot's facts are given out, and how much of the past is kept. (That ``settle_s``
    exceeds the shot facts' ``next_strike_s`` is checked by :class:`ShotStream`, which has both.)"""

    settle_s: float = 1.2  # a shot is over when its balls have been at rest this long
    # ... and this long at least when its last motion was a ball at rest seen at another place
    # in one step (its picture drawn onto a hand or the cue beside it, or a hidden ball's place
    # guessed): a ball seen back on its place after that never moved, and the shot ended sooner
    after_a_jump_s: float = 1.5
    check_every_s: float = 0.1  # the kept frames are looked at for finished shots this often
    history_s: float = 3.0  # frames kept before the shot in progress (or before now)
    # a shot still in progress after this long (a ball that never settles in the tracker's
    # eyes) keeps only this much of its frames, so memory stays bounded
    longest_shot_s: float = 120.0

    def __post_init__(self) -> None:
        if not self.check_every_s > 0:
            raise StreamError(f"check_every_s must be positive, got {self.check_every_s}")
        if not self.longest_shot_s > self.settle_s:
            raise StreamError(f"longest_shot_s must exceed settle_s ({self.settle_s}), got "
                              f"{self.longest_shot_s}")
        if not self.history_s >= max(self.settle_s, self.after_a_jump_s):
            raise StreamError(f"history_s must be at least settle_s and after_a_jump_s "
                              f"({self.settle_s}, {self.after_a_jump_s}), got {self.history_s}")

    def to_dict(self) -> dict[str, float]:
        return {"settle_s": self.settle_s, "after_a_jump_s": self.after_a_jump_s,
                "check_every_s": self.check_every_s,
                "history_s": self.history_s, "longest_shot_s": self.longest_shot_s}


@dataclass(frozen=True)
class StreamedShot:
    """One shot's facts (no call yet) and the frame whose arrival let them be found
    (``found_frame``: the shot's balls at rest since ``rest_frame``)."""

    facts: ShotFacts
    found_frame: int

    @property
    def rest_frame(self) -> int:
        return int(self.facts.extra["rest_frame"])


@dataclass
class ShotStream:
    """Shots from the tracker's frames, each given out once its balls have settled.

    ``feed`` takes one frame's balls (``{ball: (x_mm, y_mm, visible)}``, frames in increasing
    order) and returns the shots that frame finished; ``finish`` (the video has ended) returns
    the rest. ``facts``: the thresholds by which shots are cut and their facts found."""

    table: TableSpec
    fps: float
    params: ShotStreamParams = field(default_factory=ShotStreamParams)
    facts: ShotFactsParams = DEFAULT_SHOT_FACTS
    _samples: dict[str, list[Sample]] = field(default_factory=dict, init=False)
    _frame: int = field(default=-1, init=False)
    _next_check: int = field(default=0, init=False)
    _given_until: int = field(default=-1, init=False)  # the last given-out shot's rest frame
    # the first frame of the shot in progress, once a look has found it (None: none yet)
    began: int | None = field(default=None, init=False)
    # the last frame in which some ball was seen to move (by more than a ball at rest does)
    _last_motion: int = field(default=-1, init=False)
    # frames before this one belong to no shot still to be given out (see ``settled_before``)
    _settled_before: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        if not self.fps > 0:
            raise StreamError(f"expected a positive frame rate, got {self.fps}")
        check_stream_params(self.params, self.facts)
        same_shot = max(self.facts.still_frames, round(self.facts.next_strike_s * self.fps))
        self._settle = max(round(self.params.settle_s * self.fps), same_shot + 1)
        self._settle_after_jump = max(round(self.params.after_a_jump_s * self.fps), self._settle)
        self._check_every = max(round(self.params.check_every_s * self.fps), 1)
        self._history = max(round(self.params.history_s * self.fps), self._settle_after_jump)
        self._longest = round(self.params.longest_shot_s * self.fps)

    @property
    def settled_before(self) -> int:
        """Frames before this one belong to no shot that is still to be given out (as of the
        last look): before the shot in progress, or, with none, before the last ``settle_s``
        (motion there too short to be a shot yet may still grow into one)."""
        return self._settled_before

    @property
    def kept_samples(self) -> int:
        """How many sightings are held now (bounded, whatever the video's length)."""
        return sum(len(s) for s in self._samples.values())

    def feed(self, frame: int, balls: Mapping[str, tuple[float, float, bool]]
             ) -> list[StreamedShot]:
        if frame <= self._frame:
            raise StreamError(f"frames must come in increasing order: {frame} after "
                              f"{self._frame}")
        self._frame = frame
        for ball, (x, y, visible) in sorted(balls.items()):
            if not visible:
                continue
            samples = self._samples.setdefault(ball, [])
            seen = Sample(frame, frame / self.fps, (x, y))
            # (moving as split_shots counts motion before it excuses a resting ball's flicker
            # or a ball put down by hand: yes here where it may say no, never the reverse)
            if samples and not at_rest_between(samples[-1], seen, self.facts):
                self._last_motion = frame
            samples.append(seen)
        if frame < self._next_check:
            return []
        self._next_check = frame + self._check_every
        if self._last_motion <= self._given_until:
            # (no motion since the last shot given out: no shot can have begun)
            self._forget_before(frame - self._history)
            self._settled_before = frame + 1
            return []
        return self._finished(final=False)

    def finish(self) -> list[StreamedShot]:
        """The shots still open when the video ended (judged as a finished match's last)."""
        return self._finished(final=True)

    def _finished(self, final: bool) -> list[StreamedShot]:
        tracks = steady_tracks(self._samples, self.facts)
        every = split_shots(tracks, self.fps, self.facts)
        windows = [w for w in every if w.first > self._given_until]
        out: list[StreamedShot] = []
        # (motion read now as running on from a shot given out, a ball seen once where it was
        # put back by hand after long away, not yet known placed: what came since is kept)
        open_from: int | None = (self._given_until + 1 if not final and any(
            w.first <= self._given_until < w.last for w in every) else None)
        for w in windows:
            settle = (self._settle_after_jump if ends_in_a_jump(tracks, w, self.facts)
                      else self._settle)
            if not final and w.last + settle > self._frame:
                self.began = w.first
                open_from = w.first if open_from is None else open_from
                # (its last motion can only move later, so no look before it has rested could
                # end it; unless that motion is a ball seen again after a while away: put back
                # on its spot by hand, which its next sightings there show, it is no motion)
                if not _back_in_view_at(tracks, w.last, self.facts.still_frames):
                    self._next_check = max(self._next_check, w.last + self._settle)
                break
            self._given_until = w.last
            found = shot_facts(self.table, tracks, w, self.fps, self.facts)
            if found is not None:
                out.append(StreamedShot(found, self._frame))
        # (motion since the last look that is no shot yet may grow into one; a frame settled
        # before, with no motion after it then, stays so)
        self._settled_before = max(self._settled_before, (
            self._frame + 1 if final else
            self._frame + 1 - self._settle if open_from is None else open_from))
        cut = (self._frame if open_from is None else open_from) - self._history
        self._forget_before(max(cut, self._frame - self._longest))
        return out

    def _forget_before(self, cut: int) -> None:
        for samples in self._samples.values():
            k = 0
            while k < len(samples) - KEPT_SIGHTINGS and samples[k].frame < cut:
                k += 1
            if k:
                del samples[:k]


def _back_in_view_at(tracks: Mapping[str, Sequence[Sample]], frame: int, away_frames: int
                     ) -> bool:
    """Some ball's newest sighting is at ``frame``, after more than ``away_frames`` unseen."""
    return any(len(s) >= 2 and s[-1].frame == frame and s[-1].frame - s[-2].frame > away_frames
               for s in tracks.values())


def ends_in_a_jump(tracks: Mapping[str, Sequence[Sample]], window: ShotWindow,
                   params: ShotFactsParams) -> bool:
    """Whether the window's last motion is a ball at rest seen at another place in one step and
    still there since: what :func:`vision.shots.segmentation.steady_tracks` undoes once the ball
    is seen back on its place (a rolling ball comes to rest by steps, not from rest)."""
    for samples in tracks.values():
        for k in range(len(samples) - 1, 1, -1):
            if samples[k].frame < window.last:
                break
            if samples[k].frame > window.last:
                continue
            anchor, jumped = samples[k - 1], samples[k]
            if (settled_before(samples, k, params)
                    and math.dist(anchor.xy, jumped.xy) >= 2 * params.flicker_return_mm
                    and all(at_rest_between(a, b, params)
                            for a, b in itertools.pairwise(samples[k:]))):
                return True
    return False


def check_stream_params(params: ShotStreamParams, facts: ShotFactsParams) -> None:
    """Raise StreamError when the two cannot work together: a shot is over only after longer
    at rest than the gap within which motion again is still the same shot's."""
    if not params.settle_s > facts.next_strike_s:
        raise StreamError(f"settle_s must exceed next_strike_s ({facts.next_strike_s} s: "
                          f"motion again sooner is the same shot's), got {params.settle_s}")


def shots_as_they_end(frames: Iterable[tuple[int, Mapping[str, tuple[float, float, bool]]]],
                      table: TableSpec, fps: float, params: ShotStreamParams | None = None,
                      facts: ShotFactsParams = DEFAULT_SHOT_FACTS) -> Iterator[StreamedShot]:
    """Every shot of a stream of (frame, balls), each as soon as it is over."""
    stream = ShotStream(table, fps, params or ShotStreamParams(), facts)
    for frame, balls in frames:
        yield from stream.feed(frame, balls)
    yield from stream.finish()


def shots_from_rows(rows: Iterable[tuple[int, str, float, float, bool]], table: TableSpec,
                    fps: float, params: ShotStreamParams | None = None,
                    facts: ShotFactsParams = DEFAULT_SHOT_FACTS) -> list[StreamedShot]:
    """Every shot of a video's tracker rows (frame, ball, x_mm, y_mm, visible), streamed frame
    by frame as :func:`shots_as_they_end` finds them (for evaluation and benchmarks)."""
    by_frame: dict[int, dict[str, tuple[float, float, bool]]] = {}
    for frame, ball, x, y, visible in rows:
        by_frame.setdefault(frame, {})[ball] = (x, y, visible)
    return list(shots_as_they_end(sorted(by_frame.items()), table, fps, params, facts))
