"""Repeated frames: a recorder that pads a slower camera's pictures to the file's rate shows
each picture twice (or three times); the tracker is fed only the new pictures, and the
repeats' answers are filled in between (see :class:`RepeatsFilled`)."""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterator
from typing import TYPE_CHECKING

from vision.detection import Detection
from vision.shots import REST_JITTER_DIAMETERS
from vision.tracking.state import CLASS_OF, FrameTracks

if TYPE_CHECKING:
    from vision.tracking.tracker import Tracker


class RepeatsFilled:
    """A :class:`Tracker` fed only the frames that are no repeat of the one before: a
    recorder that pads a slower camera's frames (15 a second) to the file's rate shows each
    picture twice, and shown the repeats the tracker would see every rolling ball stop for a
    frame and jump twice as far in the next (strikes, contacts and rests where there are none:
    the committed clips with every other frame repeated, 4 verdicts of 37 right before this).
    A repeated frame's answer is made when the next frame's is known: a ball seen in both where
    it would be in between (it rolled on while the recorder showed the old picture); one seen
    before and gone in the next not seen (it had left its place, to where is not known); any
    other as in the frame before (its picture).

    A frame repeats the last one when its picture changed from the last one's
    ``repeat_change_ratio`` times less than the last new picture before it and the next one
    after it did (see :attr:`BallDetector.picture_change`: a new picture differs by what moved
    in it and the camera's noise, a repeat by the codec's noise only), so did a frame two or
    three back or on (the recorder's beat: a player pausing in his stroke leaves a still frame
    now and then, and a ball coming to rest leaves the frames after it as still as each
    other), and not both frames before it were repeats (15 or 10 frames a second padded to
    30 are told). So a frame is decided five frames late."""

    LOOKAHEAD = 5

    def __init__(self, tracker: Tracker) -> None:
        self.tracker = tracker
        # the last frames: five decided, then those waiting for the look ahead
        self._frames: deque[tuple[int, list[Detection], float]] = deque()
        self._flags: deque[bool] = deque()  # ... whether each decided one is a repeat
        self._repeats: deque[tuple[int, list[Detection]]] = deque()
        self._last: FrameTracks | None = None
        self._last_but_one: FrameTracks | None = None  # (the answer before ``_last``)

    def update(self, frame: int, detections: list[Detection],
               change: float = math.inf) -> Iterator[FrameTracks]:
        self._frames.append((frame, detections, change))
        while len(self._frames) - len(self._flags) > self.LOOKAHEAD:
            yield from self._decide_next()

    def flush(self) -> Iterator[FrameTracks]:
        while len(self._frames) > len(self._flags):
            yield from self._decide_next()
        yield from self._filled(self.tracker.flush())
        while self._repeats:  # (the video ended on a repeat)
            yield self._between(*self._repeats.popleft(), None)

    def _decide_next(self) -> Iterator[FrameTracks]:
        k = len(self._flags)
        frame, dets, _ = self._frames[k]
        # (at most two in a row: a camera of 10 frames a second padded to 30)
        repeat = not (k >= 2 and self._flags[k - 1] and self._flags[k - 2]) and self._still(
            k) and any(self._still(k + d) for d in (-3, -2, 2, 3))
        self._flags.append(repeat)
        if len(self._flags) > 5:
            self._frames.popleft()
            self._flags.popleft()
        if repeat:
            self._repeats.append((frame, dets))
        else:
            yield from self._filled(self.tracker.update(frame, dets))

    def _still(self, k: int) -> bool:
        """The picture of the frame at ``k`` in the window changed ``repeat_change_ratio``
        times less than the last new picture before it and the next after it did (the more
        changed of the two frames on each side: one of them may be a repeat too)."""
        frames = self._frames
        if k < 1 or k + 1 >= len(frames):
            return False
        before = max(frames[i][2] for i in range(max(0, k - 2), k))
        after = max(frames[i][2] for i in range(k + 1, min(k + 3, len(frames))))
        ratio = self.tracker.params.repeat_change_ratio
        return math.isfinite(before) and ratio * frames[k][2] <= min(before, after)

    def _filled(self, results: list[FrameTracks]) -> Iterator[FrameTracks]:
        for r in results:
            while self._repeats and self._repeats[0][0] < r.frame:
                yield self._between(*self._repeats.popleft(), r)
            self._last_but_one, self._last = self._last, r
            yield r

    def _between(self, frame: int, detections: list[Detection],
                 after: FrameTracks | None) -> FrameTracks:
        before = self._last
        fps = self.tracker.fps
        balls: dict[str, tuple[float, float, bool]] = {}
        if before is not None:
            for ball, (x, y, seen) in before.balls.items():
                nxt = after.balls.get(ball) if after is not None and seen else None
                if after is not None and nxt is not None and nxt[2] and math.dist(
                        (x, y), nxt[:2]) <= (
                            self.tracker.params.hardest_shot_diameters_per_frame * self.tracker.d
                            * (after.frame - before.frame)):  # (not a ball put back by hand)
                    w = (frame - before.frame) / (after.frame - before.frame)
                    x, y = x + w * (nxt[0] - x), y + w * (nxt[1] - y)
                elif after is not None and seen and not self._shown_at_rest(
                        ball, x, y, before, detections):
                    # gone by the next picture (into a pocket, off the table, under an arm):
                    # where it was meanwhile is not known, only that it had left this place
                    seen = False
                balls[ball] = (x, y, seen)
        return FrameTracks(frame, frame / fps, balls, tuple(detections))

    def _shown_at_rest(self, ball: str, x: float, y: float, before: FrameTracks,
                       detections: list[Detection]) -> bool:
        """A ball gone by the next picture that lay at rest in the last two (seen in both,
        hardly moved) is seen in the repeated picture where it lay: a clean detection of its
        colour there shows it, still in its place when that picture was taken
        (the cue ball at rest just before it was struck). One that was
        rolling may have left the place in between."""
        prior = self._last_but_one
        earlier = prior.balls.get(ball) if prior is not None else None
        d = self.tracker.d
        if prior is None or earlier is None or not earlier[2] or math.dist(earlier[:2], (x, y)) > (
                self.tracker.params.rest_speed_diameters_per_frame * d
                * max(1, before.frame - prior.frame)):
            return False
        return any(q.colour == CLASS_OF[ball] and q.score >= self.tracker.params.clean_score_share
                   and math.hypot(q.x_mm - x, q.y_mm - y) <= REST_JITTER_DIAMETERS * d
                   for q in detections)
