"""What detection hands out and what its modules hand each other: a :class:`Detection`, the
:class:`VisionError`, the colour names, a ball candidate at the working resolution (:class:`Blob`)
and the array aliases."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from video.errors import VideoError

F32 = NDArray[np.float32]
F64 = NDArray[np.float64]
# a colour (B, G, R) as given to the colour classes: a tuple, or an array of three
Colour = Sequence[float] | F64
# a cloth model's chromaticity planes (B, G, R) and its inverse brightness (see chroma_planes)
Planes = tuple[F32, F32, F32, F32]

COLOURS = ("white", "red", "yellow", "other")
ONE = np.float32(1.0)


class VisionError(VideoError):
    """Bad input for the vision stage (an unreadable image or video, a frame of the wrong size);
    a video that cannot be read at all raises the video stage's own VideoError."""


@dataclass(frozen=True)
class Detection:
    """One ball seen in one frame.

    ``x_px, y_px``: raw image pixels; ``x_mm, y_mm``: table frame on the plane of ball centres;
    ``radius_px``: a ball's radius at that place (from the calibration); ``colour``: one of
    :data:`COLOURS`; ``score``: 0..1, how ball-like the blob is (disc filled, nothing around);
    ``bgr``: median colour of the ball's core; ``dots``: dark blobs inside the ball (W1 shows one,
    W2 two, when they face the camera) and ``dot_spread_mm`` the spread of the dark pixels along
    their longest axis (W2's pair, even merged into one blob, spreads several times as far as W1's
    single dot); ``streak_mm``: length of a motion-blur streak, 0 when sharp; ``cloth_bgr``: the
    empty cloth's colour there (a blurred ball's colour is a mixture of its own and the cloth's);
    ``piece``: perhaps one of several pieces of a faint motion-blur streak (or a touching ball);
    ``colour_sure``: the colour is close to one class (else it was read as a ball-cloth mixture);
    ``streak_dir``: the streak's direction on the table (a unit vector, either way along it; 0, 0
    when sharp).
    """

    x_px: float
    y_px: float
    x_mm: float
    y_mm: float
    radius_px: float
    colour: str
    score: float
    bgr: tuple[float, float, float] = (0.0, 0.0, 0.0)
    dots: int = 0
    streak_mm: float = 0.0
    dot_spread_mm: float = 0.0
    cloth_bgr: tuple[float, float, float] | None = None
    piece: bool = False
    colour_sure: bool = True
    streak_dir: tuple[float, float] = (0.0, 0.0)

    def to_json(self) -> dict[str, Any]:
        """The ``kaisa detect`` line (DESIGN.md fields first)."""
        return {"x_px": round(self.x_px, 2), "y_px": round(self.y_px, 2),
                "x_mm": round(self.x_mm, 1), "y_mm": round(self.y_mm, 1),
                "radius_px": round(self.radius_px, 2), "colour": self.colour,
                "score": round(self.score, 3), "dots": self.dots,
                "streak_mm": round(self.streak_mm, 1),
                "streak_dir": [round(self.streak_dir[0], 3), round(self.streak_dir[1], 3)]}



@dataclass
class Blob:
    """A ball candidate at the working resolution (coordinates in work pixels)."""

    x: float
    y: float
    label: int
    streak: bool = False
    length: float = 0.0  # work pixels along the streak
    axis: tuple[float, float] = (0.0, 0.0)  # its direction (a unit vector in work pixels)
    # identical work-resolution blob in two frames -> same detection (none for the pieces of a
    # blob split into balls)
    key: tuple[int, ...] = ()
    piece: bool = False  # perhaps a piece of a faint motion-blur streak
    drawn_out: bool = False  # one ball's size, drawn out along ``axis``: a streak if faint
    # a streak's first and last peak (work pixels): where its two balls are, were it two
    ends: tuple[tuple[float, float], tuple[float, float]] | None = None

