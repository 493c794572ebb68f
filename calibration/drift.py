"""Has the camera (or the table) moved since calibration? Re-find the cushion noses near where the
calibration says they are and measure how far the table corners moved, in mm."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from calibration.cloth import to_lab
from calibration.detect import (
    POCKET_MARGIN,
    as_bgr_image,
    corners_from_lines,
    detect_table,
)
from calibration.edges import profile_shifts
from calibration.errors import CalibrationError
from calibration.lines import Line, robust_line
from calibration.model import CORNER_POCKETS, Calibration, apply_homography
from rules.table import Cushion

FloatArray = NDArray[np.float64]

RECALIBRATE_MM = 3.0  # a caller should recalibrate when a corner moved more than this
SEARCH_MM = 25.0  # how far from the calibrated nose line to look for it
MIN_CORRELATION = 0.8  # profiles less alike than this (a hand over the cushion) are not used


@dataclass(frozen=True, eq=False)
class Drift:
    """Corner displacements (new - calibrated) in table mm, rows HR, HL, FR, FL."""

    corners_mm: FloatArray

    @property
    def max_mm(self) -> float:
        """The largest corner displacement (mm)."""
        return float(np.max(np.hypot(self.corners_mm[:, 0], self.corners_mm[:, 1])))

    def exceeds(self, threshold_mm: float = RECALIBRATE_MM) -> bool:
        """True when some corner moved more than ``threshold_mm`` (time to recalibrate)."""
        return self.max_mm > threshold_mm


def _cushion_samples(cal: Calibration, cushion: Cushion, spacing_mm: float
                     ) -> tuple[FloatArray, FloatArray]:
    """Points along the calibrated nose line (pixels), away from pockets, and inward normals."""
    t = cal.table
    L, W = t.length_mm, t.width_mm
    margin = POCKET_MARGIN * W
    if cushion in (Cushion.HEAD, Cushion.FOOT):
        s = np.arange(margin, W - margin, spacing_mm)
        x = 0.0 if cushion is Cushion.HEAD else L
        inward = (1.0, 0.0) if cushion is Cushion.HEAD else (-1.0, 0.0)
        mm = np.stack([np.full_like(s, x), s], axis=1)
    else:
        s = np.arange(margin, L - margin, spacing_mm)
        s = s[np.abs(s - L / 2) > margin]
        y = 0.0 if cushion is Cushion.RIGHT else W
        inward = (0.0, 1.0) if cushion is Cushion.RIGHT else (0.0, -1.0)
        mm = np.stack([s, np.full_like(s, y)], axis=1)
    px = cal.table_to_image(mm)
    ahead = cal.table_to_image(mm + np.array(inward) * 10.0)
    n = ahead - px
    n /= np.hypot(n[:, 0], n[:, 1])[:, None]
    return px, n


def _check_size(frame: NDArray[np.uint8], calibration: Calibration, what: str
                ) -> NDArray[np.uint8]:
    img = as_bgr_image(frame, what)
    if (img.shape[1], img.shape[0]) != calibration.image_size:
        raise CalibrationError(f"expected a {calibration.image_size[0]}x"
                               f"{calibration.image_size[1]} frame, got "
                               f"{img.shape[1]}x{img.shape[0]}", what)
    return img


def measure_drift(calibration: Calibration, frame: NDArray[np.uint8], *,
                  reference: NDArray[np.uint8] | None = None, search_mm: float = SEARCH_MM,
                  seed: int = 0) -> Drift:
    """How far the table corners moved (table mm) in ``frame`` since the calibration.

    With ``reference`` (the frame the calibration was made from, or any frame taken while it
    held) each cushion's picture is compared with the reference's by cross-correlation across the
    cushion, near the calibrated nose line: precise to a tenth of a pixel, because whatever
    defines the nose in one frame defines it in the other. Without it the table is found again
    from scratch (:func:`~calibration.detect.detect_table`), which on real footage wanders by
    about a pixel from frame to frame. Either way robust line fits carry each cushion, so hands
    and the cue over a cushion do not matter.
    """
    img = _check_size(frame, calibration, "frame")
    ideal = np.array([calibration.table.pocket_xy(p) for p in CORNER_POCKETS])
    if reference is None:
        found = detect_table(img, calibration.table, seed=seed).calibration
        new_mm = calibration.image_to_table(found.corners_px())
        # the new detection may have put the head at the other end: pair corners by position
        order = [int(np.argmin(np.hypot(*(new_mm - c).T))) for c in ideal]
        return Drift(corners_mm=new_mm[order] - ideal)
    rng = np.random.default_rng(seed)
    lab = to_lab(img)
    lab_ref = to_lab(_check_size(reference, calibration, "reference"))
    mm_px = calibration.mm_per_px()
    search_px = max(2.0, search_mm / mm_px)
    lines: dict[Cushion, Line] = {}
    for cushion in Cushion:
        origins, normals = _cushion_samples(calibration, cushion, spacing_mm=2.0 * mm_px)
        shift, score = profile_shifts(lab_ref, lab, origins, normals, search_px)
        pts = origins + normals * shift[:, None]
        pts = pts[score >= MIN_CORRELATION]
        if len(pts) < max(10, 0.25 * len(origins)):
            raise CalibrationError(
                f"the {cushion.value} cushion was not found near its calibrated place "
                f"({len(pts)} of {len(origins)} points; expected the table where it was)")
        line, _ = robust_line(calibration.undistort(pts), 1.5, rng, min_scale=0.3)
        if line is None:
            raise CalibrationError(f"the {cushion.value} cushion line could not be fitted")
        lines[cushion] = line
    new_mm = apply_homography(calibration.homography_image_to_table, corners_from_lines(lines))
    return Drift(corners_mm=new_mm - ideal)
