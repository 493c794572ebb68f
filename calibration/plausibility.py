"""Is a found calibration physically possible? Checks independent of the cushion-line fit.

A homography from the table plane to an image taken by a real camera is ``K [r1 r2 t]`` up to
scale, where ``r1``, ``r2`` are orthonormal and ``K`` has square pixels and its principal point near
the image centre. With the focal length ``f`` unknown, the two orthonormality constraints
(``r1 . r2 = 0`` and ``|r1| = |r2|``) leave one condition on the homography: the table's aspect
ratio *as the homography claims it* must be one a pinhole camera could produce. A calibration whose
cushion lines are all shifted inward (a nose edge taken at the shadow's far side, say) maps a
smaller rectangle of another aspect onto the TableSpec's L x W; no focal length explains that.

:func:`pinhole_consistency` measures the smallest violation over a wide range of focal lengths
(a quarter to five image widths: webcams to zoomed broadcast cameras), as the relative mismatch
of the two axes' scales (``aspect``) and the cosine of the angle between them (``skew``). Near an
overhead view the focal length itself is barely determined (both constraints degenerate), but the
aspect stays measured: that is what the check rests on. A good calibration of a synthetic clip
shows under 0.2 %; real club footage (a pool table of about 2:1 calibrated as a 2:1 table) under
0.4 %; a table whose noses were found 20-30 mm inside the true ones 0.6-1.5 %.

:func:`aspect_width_mm` turns the same condition around: given the rail edges (the cushions' outer
edges, a strong colour edge) and the TableSpec's L x W between the noses, the cushion width ``c``
for which the outline (L + 2c) x (W + 2c) is consistent with a pinhole camera. It tells a nose
edge found at the wrong place (the width the noses give disagrees) from a right one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from calibration.model import homography_from_corners
from rules.table import TableSpec

FloatArray = NDArray[np.float64]

FOCAL_RANGE = (0.25, 5.0)  # focal lengths tried, in image widths
DOUBTFUL_VIOLATION = 0.0045  # above this a calibration is marked doubtful
REFUSE_VIOLATION = 0.0060  # above this it is refused (CalibrationError)
_FOCALS = np.geomspace(FOCAL_RANGE[0], FOCAL_RANGE[1], 241)


@dataclass(frozen=True)
class PinholeFit:
    """The pinhole camera closest to a homography: ``focal_px`` (the one that fits best; weakly
    determined near an overhead view), and at it the relative scale mismatch of the table's x and
    y axes (``aspect``, 0.01 = 1 %) and the cosine of the angle between them (``skew``)."""

    focal_px: float
    aspect: float
    skew: float

    @property
    def violation(self) -> float:
        """``hypot(aspect, skew)``: 0 for a homography a pinhole camera can make."""
        return float(np.hypot(self.aspect, self.skew))


def pinhole_consistency(h_image_to_table: FloatArray, image_size: tuple[int, int]
                        ) -> PinholeFit:
    """How close the homography (undistorted px -> table mm) comes to one a pinhole camera with
    square pixels and its principal point at the image centre can make (see the module doc)."""
    w, h = image_size
    a = np.linalg.inv(np.asarray(h_image_to_table, dtype=np.float64))
    shift = np.array([[1.0, 0.0, -(w - 1) / 2], [0.0, 1.0, -(h - 1) / 2], [0.0, 0.0, 1.0]])
    a = shift @ a
    f = _FOCALS * w
    m1 = np.stack([a[0, 0] / f, a[1, 0] / f, np.full_like(f, a[2, 0])], axis=1)
    m2 = np.stack([a[0, 1] / f, a[1, 1] / f, np.full_like(f, a[2, 1])], axis=1)
    n1 = np.linalg.norm(m1, axis=1)
    n2 = np.linalg.norm(m2, axis=1)
    aspect = n1 / n2 - 1.0
    skew = np.einsum("ij,ij->i", m1, m2) / (n1 * n2)
    k = int(np.argmin(np.hypot(aspect, skew)))
    return PinholeFit(focal_px=float(f[k]), aspect=float(aspect[k]), skew=float(skew[k]))


def outline_homography(corners_px: FloatArray, table: TableSpec, width_mm: float) -> FloatArray:
    """The homography taking the four corners (HR, HL, FR, FL order, undistorted px) of an
    outline ``width_mm`` outside the noses all round to the table frame."""
    L, W, c = table.length_mm, table.width_mm, width_mm
    targets = np.array([[-c, -c], [-c, W + c], [L + c, -c], [L + c, W + c]])
    return homography_from_corners(corners_px, targets)


def aspect_width_mm(corners_px: FloatArray, table: TableSpec, image_size: tuple[int, int],
                    max_mm: float | None = None) -> tuple[float, float]:
    """The cushion width (mm) that makes the outline through ``corners_px`` (HR, HL, FR, FL,
    undistorted px; e.g. the rail edges) pinhole-consistent for ``table``, and the violation
    left there. Searched on a 1 mm grid from 0 to ``max_mm`` (default a tenth of the table's
    width), refined by a parabola through the best three."""
    top = 0.1 * table.width_mm if max_mm is None else max_mm
    cs = np.arange(0.0, top + 0.5, 1.0)
    v = np.array([pinhole_consistency(outline_homography(corners_px, table, c),
                                      image_size).violation for c in cs])
    k = int(np.argmin(v))
    best = float(cs[k])
    if 0 < k < len(cs) - 1:
        den = v[k - 1] - 2 * v[k] + v[k + 1]
        if den > 0:
            best += float(np.clip(0.5 * (v[k - 1] - v[k + 1]) / den, -0.5, 0.5))
    return best, float(v[k])
