"""Which short end is the head: the drawn house line (RULES.md §1: across the table at x = L/4).

Seen from above the two short ends look alike, so without help the head is a documented default
(:mod:`calibration.detect`). Many tables have the house line drawn on the cloth (chalk or a thin
painted line, light or dark). Given a calibration, the cloth is sampled on a rectified strip
around x = L/4 and around x = 3L/4 (the same place seen from the other end): at each a narrow line
across the table shows as a sharp peak (or dip) of lightness against the smooth cloth, at the same
x along the whole width. The line is taken as seen when the peak stands well above the strip's
noise in most stretches along the width and agrees in position between them; if it is seen at
one end only, that end is the head.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray
from scipy.ndimage import median_filter

from calibration.model import Calibration

FloatArray = NDArray[np.float64]

SEARCH_MM = 40.0  # how far from the nominal line to look (the cloth lies below the calibrated
# plane, so the line shows a little off its nominal place, up to ~10 mm near the ends)
STEP_MM = 1.0  # across the line
STRETCHES = 6  # independent stretches along the width
MIN_SNR = 6.0  # a stretch sees the line when its peak is this many noise units high
MIN_STRETCHES = 5  # ... and so many stretches must see it, within AGREE_MM of each other
# At most this many at the other end: the lit cloth's own gradients give up to 3 or 4 chance votes
# at an end with no line (measured on 38 rendered clips), and a head taken from chance turns the
# whole table round, so one end must be clear and the other nearly silent.
MAX_OTHER_VOTES = 1
AGREE_MM = 4.0


@dataclass(frozen=True)
class HouseLine:
    """The evidence at each end: the number of stretches along the width that see a line and
    where (mm from the nominal x, positive toward the table's middle), for the end at x = L/4 of
    the calibration (``near``) and at x = 3L/4 (``far``); ``head`` is "near", "far" or None."""

    near_votes: int
    far_votes: int
    near_offset_mm: float | None
    far_offset_mm: float | None

    @property
    def head(self) -> str | None:
        if self.near_votes >= MIN_STRETCHES and self.far_votes <= MAX_OTHER_VOTES:
            return "near"
        if self.far_votes >= MIN_STRETCHES and self.near_votes <= MAX_OTHER_VOTES:
            return "far"
        return None


def _votes(lightness: NDArray[np.float32], calibration: Calibration, x0_mm: float,
           inward: float) -> tuple[int, float | None]:
    t = calibration.table
    xs = x0_mm + inward * np.arange(-SEARCH_MM, SEARCH_MM + STEP_MM / 2, STEP_MM)
    ys = np.linspace(0.12 * t.width_mm, 0.88 * t.width_mm, STRETCHES * 24)
    gx, gy = np.meshgrid(xs, ys)
    px = calibration.table_to_image(np.stack([gx.ravel(), gy.ravel()], axis=1))
    mx = px[:, 0].reshape(gx.shape).astype(np.float32)
    my = px[:, 1].reshape(gx.shape).astype(np.float32)
    strip = np.asarray(cv2.remap(lightness, mx, my, cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_REPLICATE), dtype=np.float64)
    found: list[float] = []
    for part in np.array_split(strip, STRETCHES, axis=0):
        prof = np.median(part, axis=0)  # balls and hands on a few rows fall away
        detail = prof - median_filter(prof, size=15, mode="nearest")
        noise = 1.4826 * float(np.median(np.abs(detail - np.median(detail)))) + 1e-3
        k = int(np.argmax(np.abs(detail)))
        if 2 <= k <= len(detail) - 3 and abs(detail[k]) >= MIN_SNR * noise:
            found.append(float(inward * (xs[k] - x0_mm)))
    if not found:
        return 0, None
    centre = float(np.median(found))
    agree = [f for f in found if abs(f - centre) <= AGREE_MM]
    return len(agree), centre


def find_house_line(image_bgr: NDArray[np.uint8], calibration: Calibration) -> HouseLine:
    """Look for the house line at both ends of the calibrated table in a (median) frame."""
    grey = np.asarray(cv2.cvtColor(np.asarray(image_bgr, dtype=np.uint8), cv2.COLOR_BGR2GRAY),
                      dtype=np.float32)
    L = calibration.table.length_mm
    near, near_at = _votes(grey, calibration, L / 4, 1.0)
    far, far_at = _votes(grey, calibration, 3 * L / 4, -1.0)
    return HouseLine(near_votes=near, far_votes=far, near_offset_mm=near_at,
                     far_offset_mm=far_at)


def turned_around(calibration: Calibration) -> FloatArray:
    """The homography of ``calibration`` with the head and foot ends swapped (the table frame
    turned by 180 degrees: (x, y) -> (L - x, W - y))."""
    t = calibration.table
    turn = np.array([[-1.0, 0.0, t.length_mm], [0.0, -1.0, t.width_mm], [0.0, 0.0, 1.0]])
    h = turn @ calibration.homography_image_to_table
    return np.asarray(h / h[2, 2], dtype=np.float64)
