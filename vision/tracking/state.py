"""What tracking is about: the five balls' names and classes, a ball's track
(:class:`BallState`), the answers (:class:`FrameTracks`), the game state told before a shot
(:class:`ShotStart`), and the :class:`Setting` every rule measures with."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from rules.table import TableSpec
from vision.detection import Detection
from vision.tracking.params import TrackingParams

BALLS = ("W1", "W2", "R1", "R2", "Y")
CLASS_OF = {"W1": "white", "W2": "white", "R1": "red", "R2": "red", "Y": "yellow"}
FAR = 1e6  # the cost of a pairing ruled out
WHITES = ("W1", "W2")


@dataclass
class BallState:
    """One ball's track: table mm, velocity in mm per frame, and what the tracker knows."""

    ball: str
    x: float
    y: float
    vx: float = 0.0
    vy: float = 0.0
    visible: bool = True
    last_seen: int = 0
    status: str = "table"  # "table" | "hidden" | "pocketed" | "lost"
    pair: int = 0  # frames in which this (white) ball showed W2's pair of dots
    single: int = 0  # frames in which it showed one small dot
    left_rest: int = -1_000_000  # the frame it was last seen leaving a place of rest
    rest_place: tuple[float, float] | None = None  # ... and that place
    # where it lay when the game state's shot began (the video's first frames, or the rest
    # before a shot told by Tracker.begin_shot)
    start_place: tuple[float, float] | None = None
    took: Detection | None = field(default=None, repr=False)  # the detection it last took
    sent: tuple[int, float, float] | None = None  # (frame, vx, vy): hit from rest, unseen since
    looked: Detection | None = field(default=None, repr=False)  # the last look its dots counted
    held: tuple[int, float, float] | None = None  # (frame, x, y): a sighting kept as jitter
    # hidden while rolling (lost from view, not covered where it lay): where it stops is unknown
    hidden_rolling: bool = False
    rolled: int = -1_000_000  # the last frame it was seen rolling
    faint_looks: int = 0  # sightings in a row, up to the last, less ball-like than init_score_share
    clean_place: tuple[float, float] | None = None  # where it was last seen at least that
    clean_seen: int = -1_000_000  # ... and when
    # what no ball took near it when it was last seen (a thing beside it then is not it)
    beside: tuple[Detection, ...] = field(default=(), repr=False)


@dataclass
class Seen:
    """An object in the first frames (see :mod:`vision.tracking.first_frames`): where it looked most
    like a ball (its best score), its last look, and its looks' evidence (W2's pair of dots,
    one dot), colours and scores."""

    xy: tuple[float, float]
    look: Detection
    two: int
    one: int
    colours: list[str]
    scores: list[float]

    @property
    def ball_likeness(self) -> float:
        """Its typical score: the median, so that a few frames of a passing hand or shadow (or
        a pocket's dark rim beside a ball on its lip) do not count against a ball."""
        return float(np.median(self.scores))


@dataclass(frozen=True)
class Prediction:
    """Where a collision sends a ball: its place at the frame predicted for, its velocity out
    of the collision (mm per frame) and how far from that place it may be seen."""

    x: float
    y: float
    vx: float
    vy: float
    gate: float


@dataclass(frozen=True)
class ShotStart:
    """What the game state says before the next shot, once the last one has been judged."""

    after_frame: int  # the judged shot's rest frame: this holds from the frame after it
    cue_ball: str  # "W1" | "W2": the next shooter's white
    in_hand: frozenset[str]  # whites in hand (the shooter's own is placed in the house by hand)
    # table mm of every ball the state has on the table (respotted balls on their spots)
    positions: Mapping[str, tuple[float, float]]


Balls = dict[str, tuple[float, float, bool]]  # a frame's balls: (x_mm, y_mm, visible)


@dataclass(frozen=True)
class FrameTracks:
    """The tracker's answer for one frame: every ball on the table (hidden ones at their last
    position with ``visible`` False), plus the raw detections."""

    frame: int
    t: float
    balls: dict[str, tuple[float, float, bool]]
    detections: tuple[Detection, ...] = field(default=(), repr=False)


@dataclass(frozen=True, eq=False)
class Setting:
    """What the tracker's rules measure with: the table (its pockets and cushions, the ball's
    size), the frame rate and the thresholds, and the times of the thresholds in frames."""

    table: TableSpec
    fps: float
    params: TrackingParams
    d: float  # the ball's diameter, mm
    hide_frames: int  # hide_s in frames
    faint_frames: int  # faint_s in frames
    pockets: NDArray[np.float64]  # table mm of each pocket's point, one a row
