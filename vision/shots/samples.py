"""What the shot facts are made of: a ball's sightings (:class:`Sample`), a straight stretch of
its motion (:class:`Piece`), an event as found (:class:`FoundEvent`), one shot's frames
(:class:`ShotWindow`), and the small geometry all of them share.

The tracker reads two of the default thresholds by name: :data:`REST_JITTER_DIAMETERS` and
:data:`TOUCHING_DIAMETERS`.
"""

from __future__ import annotations

import bisect
import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from rules.balls import Ball
from rules.events import Event, EventType
from rules.table import Cushion, Pocket
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
        ts = self._times
        if ts[0] <= t <= ts[-1] and len(ts) >= 2:
            k = min(bisect.bisect_right(ts, t), len(ts) - 1)
            a, b = self.samples[k - 1], self.samples[k]
            w = (t - a.t) / (b.t - a.t) if b.t > a.t else 0.0
            xy_a: Vector = np.array(a.xy)
            xy_b: Vector = np.array(b.xy)
            return xy_a * (1 - w) + xy_b * w
        return self._head(t) if t < ts[0] else self._tail(t)

    # (its times and the fits at its two ends, made once: a piece's samples do not change once
    # it is cut)
    @functools.cached_property
    def _times(self) -> list[float]:
        return [s.t for s in self.samples]

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
    t0 = float(t[0])
    at = plain_polynomial(coeffs)
    return lambda when: np.array(at(when - t0))


def plain_polynomial(coeffs: NDArray[np.float64]) -> Callable[[float], Point]:
    """The polynomial of ``np.polyfit``'s coefficient rows (degree 1 or 2, two columns: x and y)
    as a function of dt, in plain floats: the same operations in the same order as the sum of
    the terms ``c * dt ** (degree - k)`` on the rows, so the same values to the bit, without
    numpy's overhead on two numbers (a shot's facts evaluate these a hundred thousand times)."""
    (ax, ay), (bx, by) = (map(float, row) for row in coeffs[:2])
    if len(coeffs) == 2:
        return lambda dt: (ax * dt + bx, ay * dt + by)
    cx, cy = map(float, coeffs[2])

    def quadratic(dt: float) -> Point:
        square = dt ** 2
        return (ax * square + bx * dt + cx, ay * square + by * dt + cy)

    return quadratic


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


def mm_per_frame(a: Sample, b: Sample) -> float:
    """How fast the ball went from sighting ``a`` to ``b``: mm a frame (over one frame at
    least)."""
    return math.dist(a.xy, b.xy) / max(b.frame - a.frame, 1)


def at_rest_between(a: Sample, b: Sample, params: ShotFactsParams) -> bool:
    """No more than a resting ball's jitter between the two sightings."""
    return math.dist(a.xy, b.xy) <= params.still_mm_per_frame * max(b.frame - a.frame, 1)


def within_degrees(a: Sequence[float] | Vector, b: Sequence[float] | Vector, degrees: float
                   ) -> bool:
    """Two directions within ``degrees`` of each other (never, when either is zero)."""
    return float(a[0] * b[0] + a[1] * b[1]) > math.cos(math.radians(degrees)) * math.hypot(
        a[0], a[1]) * math.hypot(b[0], b[1])


def gap_confidence(gap: float, tolerance: float) -> float:
    """How sure an event's geometry is (0-1) when it is ``gap`` mm off: 1 when exact, 0 at
    twice the ``tolerance``."""
    return max(0.0, 1.0 - gap / (2 * tolerance))
