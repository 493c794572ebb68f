"""The sample frames that show the table where the first one does: a camera bumped mid-video.

The table is found in the per-pixel median of frames spread over the video, and the calibration
is the first frame's (``Calibration.frame``; a bump later is followed from there by
:mod:`calibration.bump`). When the camera was knocked between two sample frames, the median
mixes two pictures of the rails a few pixels apart (or, with most frames after the knock, is the
later picture): the edges found are blurred or moved, and every table point is 10-25 mm off
although the cushion lines fit well. So each frame's shift against the first is measured in the
four quarters of the picture (a roll moves them differently), and only the frames that line up
with the first within ``SteadyParams.moved_px`` make the median.

The shift is read by phase correlation of the grey picture's gradient magnitude: edges, which a
lamp's drift, flicker or hot spot (brightness) does not move, and which moving balls and hands
touch only in a small part of each quarter.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]


@dataclass(frozen=True)
class SteadyParams:
    """``moved_px``: a quarter of the picture shifted further than this (pixels of the frame)
    from the first frame's is a moved camera (a bump moves the picture 2-6 px; an unmoved,
    compressed, flickering one reads up to ~1 px); ``least_frames``: a span with fewer steady
    sample frames than this is sampled again within it (by the caller)."""

    moved_px: float = 1.5
    least_frames: int = 5


STEADY = SteadyParams()


def _edges(frame: NDArray[np.uint8]) -> NDArray[np.float32]:
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
    g = cv2.GaussianBlur(grey.astype(np.float32), (0, 0), 1.0)
    gx = cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3)
    return np.asarray(cv2.magnitude(gx, gy), dtype=np.float32)


def _quarters(shape: tuple[int, ...]) -> list[tuple[slice, slice]]:
    h, w = shape[:2]
    return [(slice(r0, r0 + h // 2), slice(c0, c0 + w // 2))
            for r0 in (0, h - h // 2) for c0 in (0, w - w // 2)]


def shift_px(reference: NDArray[np.float32], frame: NDArray[np.float32],
             reach_px: int = 8) -> float:
    """The largest shift (px) of any quarter of ``frame``'s edge picture against the same
    quarter of ``reference``'s: the phase correlation's peak within ``reach_px`` of no shift
    (a ball that rolled away makes a peak of its own at its own displacement, which is not the
    camera's)."""
    worst = 0.0
    for rows, cols in _quarters(reference.shape):
        a, b = reference[rows, cols], frame[rows, cols]
        window = cv2.createHanningWindow((a.shape[1], a.shape[0]), cv2.CV_32F)
        fa = np.fft.rfft2(a * window)
        fb = np.fft.rfft2(b * window)
        cross = fa * np.conj(fb)
        corr = np.fft.irfft2(cross / np.maximum(np.abs(cross), 1e-9), s=a.shape)
        near = np.fft.fftshift(corr)
        cy, cx = a.shape[0] // 2, a.shape[1] // 2
        win = near[cy - reach_px:cy + reach_px + 1, cx - reach_px:cx + reach_px + 1]
        iy, ix = np.unravel_index(int(np.argmax(win)), win.shape)
        dy, dx = float(iy - reach_px), float(ix - reach_px)
        if 0 < iy < win.shape[0] - 1 and 0 < ix < win.shape[1] - 1:  # sub-pixel: parabolas
            dy += _vertex(win[iy - 1, ix], win[iy, ix], win[iy + 1, ix])
            dx += _vertex(win[iy, ix - 1], win[iy, ix], win[iy, ix + 1])
        worst = max(worst, float(np.hypot(dx, dy)))
    return worst


def _vertex(a: float, b: float, c: float) -> float:
    den = a - 2 * b + c
    return float(np.clip(0.5 * (a - c) / den, -0.5, 0.5)) if abs(den) > 1e-12 else 0.0


def shifts_px(frames: Sequence[NDArray[np.uint8]]) -> FloatArray:
    """Each frame's largest quarter shift (px) against the first frame (0 for the first)."""
    if len(frames) == 0:
        return np.zeros(0)
    ref = _edges(frames[0])
    return np.array([0.0] + [shift_px(ref, _edges(f)) for f in frames[1:]])


def steady(frames: Sequence[NDArray[np.uint8]], params: SteadyParams = STEADY
           ) -> BoolArray:
    """Which frames line up with the first (the first always does). A frame read as moved by
    a hand or a player over one quarter is left out too: the median loses nothing by it."""
    return np.asarray(shifts_px(frames) <= params.moved_px, dtype=np.bool_)
