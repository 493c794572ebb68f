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

:func:`shape_check` judges that violation in the table's own units. ``error_mm`` is the
violation times the preset's width: how far, across the table, the field found is from a
rectangle of the preset's proportions that a camera could see (a 2:1 table found 30 mm inside
its noses all round is ~30 mm off). It is compared with what the measurement explains,
``sigma_mm``, from two sources:

- the four nose lines, each placed to about one pixel (its footprint on the table, ``px_mm``:
  the edge's own definition, blur and compression); the shape combines the two lines across the
  table and the two along it (scaled by W/L): ``sqrt(2 (1 + (W/L)^2)) px_mm``. The lines' RMS
  residual does not widen it: it says how far the points scatter about a line, which places the
  line itself to a small fraction of it; and a loose fit is a sign of a wrong table, not a
  reason to trust a wrong shape (the synthetic 960x540 tables found 12-40 mm wrong fit with RMS
  2-8 mm, the right ones mostly under 1.5 mm). It has its own say below.
- the camera's own slack, ``MODEL_SLACK`` of the width: the check assumes square pixels and the
  principal point at the image centre, and a real camera aimed a few degrees off vertical with
  its principal point a few percent off centre (a cropped broadcast picture) shows a few tenths
  of a percent without any error in the table (0.15 % at 5 degrees and 2 %, 0.54 % at 5 and 5 %);
  a table whose proportions differ a little from the preset's does the same.

Up to ``SOFT_SIGMAS`` sigmas the calibration is plausible; beyond it, doubtful (a warning: check
the preview); beyond ``HARD_SIGMAS`` it is refused, as no camera explains it. For a 12-ft table
filling most of the picture the limits are 13 and 27 mm at 1280x720 (3.2 mm a pixel; 0.75 % and
1.5 % of the width), 16 and 32 mm at 960x540, 11 and 22 mm at 1920x1080. A doubtful shape whose
nose lines also fit loosely (RMS residual over ``LOOSE_FIT_MM``, the fit the detector trusts at
sight) is refused too: two independent signs of a wrong table, and no fit to vouch for the shape
(the 960x540 tables found 17 and 29 mm off, 12 and 24 mm wrong on average, fit with RMS 7-8 mm;
the committed clips fit with 3-4.3 mm, the club footage with 2 mm, and both are plausible).

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
MODEL_SLACK = 0.0025  # the camera's slack from the assumed pinhole, a share of the table width
SOFT_SIGMAS = 2.0  # beyond this many sigmas of the shape a calibration is doubtful (a warning)
HARD_SIGMAS = 4.0  # beyond this many it is refused (CalibrationError)
LOOSE_FIT_MM = 4.0  # a doubtful shape is refused when the nose lines' RMS residual is above this
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


@dataclass(frozen=True)
class ShapeCheck:
    """Is the field found the preset's shape, as a camera could see it? (See the module doc.)

    ``error_mm``: the field's shape off the preset's, across its width (mm); ``sigma_mm``: what
    the measurement explains (one sigma, mm); ``px_mm``: one pixel's footprint on the table;
    ``fit``: the pinhole fit it comes from; ``table``: the preset; ``rms_mm``: the nose lines'
    RMS residual."""

    error_mm: float
    sigma_mm: float
    px_mm: float
    fit: PinholeFit
    table: TableSpec
    rms_mm: float = 0.0

    @property
    def soft_mm(self) -> float:
        return SOFT_SIGMAS * self.sigma_mm

    @property
    def hard_mm(self) -> float:
        return HARD_SIGMAS * self.sigma_mm

    @property
    def sigmas(self) -> float:
        return self.error_mm / self.sigma_mm

    @property
    def doubtful(self) -> bool:
        return self.error_mm > self.soft_mm

    @property
    def loose(self) -> bool:
        """A doubtful shape from nose lines that fit loosely."""
        return self.doubtful and self.rms_mm > LOOSE_FIT_MM

    @property
    def refused(self) -> bool:
        return self.error_mm > self.hard_mm or self.loose

    def found_vs_expected(self) -> str:
        """What was found and what was expected: the proportions (length : width) of the field
        as a camera sees it, and the angle of its corners when they are not square."""
        expected = self.table.length_mm / self.table.width_mm
        found = expected * (1.0 + self.fit.aspect)
        text = f"found a field of {found:.3f}:1, expected {expected:.3f}:1"
        corner = float(np.degrees(np.arcsin(np.clip(abs(self.fit.skew), 0.0, 1.0))))
        if corner >= 0.05:
            text += f" with corners {corner:.1f} degrees off square"
        return text

    def describe(self) -> str:
        """One line: the shape error, what was found and expected, and the limits."""
        text = (f"the table found is {self.error_mm:.0f} mm off the shape of the "
                f"{self.table.length_mm:g} x {self.table.width_mm:g} mm preset "
                f"({self.found_vs_expected()}); the measurement explains up to "
                f"{self.soft_mm:.0f} mm ({self.px_mm:.1f} mm a pixel), a calibration is refused "
                f"beyond {self.hard_mm:.0f} mm")
        if self.loose and not self.error_mm > self.hard_mm:
            text += (f" or, as here, when its cushion lines also fit loosely (RMS residual "
                     f"{self.rms_mm:.1f} mm, over {LOOSE_FIT_MM:g} mm)")
        return text

    def to_checks(self) -> dict[str, float]:
        """The numbers for a calibration's ``checks``."""
        return {"shape_error_mm": round(self.error_mm, 2),
                "shape_sigma_mm": round(self.sigma_mm, 2),
                "shape_soft_mm": round(self.soft_mm, 2),
                "shape_hard_mm": round(self.hard_mm, 2), "px_mm": round(self.px_mm, 3)}


def pixel_footprint_mm(h_image_to_table: FloatArray, table: TableSpec) -> float:
    """The side (mm) of one pixel's footprint on the table, averaged over the playing field:
    sqrt(field area / its area in undistorted pixels)."""
    corners = np.array([[0.0, 0.0], [table.length_mm, 0.0], [table.length_mm, table.width_mm],
                        [0.0, table.width_mm]])
    h = np.linalg.inv(np.asarray(h_image_to_table, dtype=np.float64))
    p = np.c_[corners, np.ones(4)] @ h.T
    px = p[:, :2] / p[:, 2:3]
    x, y = px[:, 0], px[:, 1]
    area = 0.5 * abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))
    return float(np.sqrt(table.length_mm * table.width_mm / max(area, 1e-9)))


def shape_check(h_image_to_table: FloatArray, image_size: tuple[int, int], table: TableSpec,
                rms_mm: float = 0.0) -> ShapeCheck:
    """The field's shape error and the measurement's sigma, in mm, for a calibration whose nose
    lines fit with ``rms_mm`` (see the module doc)."""
    fit = pinhole_consistency(h_image_to_table, image_size)
    px = pixel_footprint_mm(h_image_to_table, table)
    lines = float(np.sqrt(2.0 * (1.0 + (table.width_mm / table.length_mm) ** 2))) * px
    sigma = float(np.hypot(lines, MODEL_SLACK * table.width_mm))
    return ShapeCheck(error_mm=fit.violation * table.width_mm, sigma_mm=sigma, px_mm=px,
                      fit=fit, table=table, rms_mm=float(rms_mm))


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
