"""The table's calibration made again from its sights: the small marks inlaid along the rails.

Where the picture is dim, soft and compressed (a club's webcam at 960x540), the cushion noses
barely show and their lines wander by 5-40 mm; the sights, small bright marks on the dark wood at
known places (every eighth of the field's length along the long rails, every quarter of its width
along the short ones, none at the middle pockets), show plainly: their centres are read to a
fifth of a pixel. Their places along the rails are the table's own proportions; how far out
from the noses they lie differs from table to table, so that distance is fitted, one for the
long rails and one for the short (the short rails' sights fix the scale across the table, the
long rails' along it, so both distances are determined).

Steps, from a first calibration (any reading of :mod:`calibration.detect`, doubtful or not):

1. each sight is looked for in a window of the rail's top (the nose plane, mm): along the rail
   within :attr:`SightParams.along_share` of the sights' spacing, across it from
   ``near_mm`` to ``far_mm`` outside the nose, as the strongest small blob unlike the wood
   around it (brighter or darker);
2. its centre is the blob's weighted centroid in the picture (sub-pixel);
3. the sights of each rail must lie on one line along it (their distance outside the nose
   changing evenly along the rail, as a first outline turned a little shows it; those off the
   line are dropped);
4. the homography from undistorted pixels to the nose plane, the two distances and the lens's k1
   and k2 are fitted by least squares to every sight found (the first calibration's lens to
   start from: on dim pictures its k2 often ran to the end of its range, 3-20 mm off at the
   field's corners), the worst dropped while it fits much worse than the rest;
5. the sights are looked for again where that fit puts them, and fitted again, until the same
   ones are found (a first outline 40-90 mm off finds some, the fit to those finds the rest;
   the first passes may rest on two thirds of the sights, on three rails);
6. the homography is lifted to the plane of ball centres as the nose readings are
   (:func:`calibration.detect.lift_homography`).

The result is used only when enough sights fit well (:class:`SightParams`); otherwise the first
calibration stands. Measured on the hard renders (960x540 and 720p, CRF 34-40, defocus):
a sight's centre is read with a median error of 0.22 px, and the table to 1.0 mm on average.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import cv2
import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.optimize import least_squares
from scipy.stats import theilslopes

from calibration.errors import CalibrationError
from calibration.model import (
    Calibration,
    apply_homography,
    distort_points,
    guess_camera_matrix,
    undistort_points,
)
from rules.table import Cushion, TableSpec

FloatArray = NDArray[np.float64]

WOOD_MM = 45.0  # the wood around a sight: a sight's blob is told from the median this wide


@dataclass(frozen=True)
class SightLayout:
    """Where a table's sights are along its rails, as shares of the playing field between the
    noses: ``along_long`` of its length (on both long rails), ``along_short`` of its width (on
    both short rails). The default is the common layout of pool, pyramid and carom tables."""

    along_long: tuple[float, ...] = (1 / 8, 2 / 8, 3 / 8, 5 / 8, 6 / 8, 7 / 8)
    along_short: tuple[float, ...] = (1 / 4, 2 / 4, 3 / 4)


@dataclass(frozen=True)
class SightParams:
    """How sights are looked for and when their fit is trusted.

    ``along_share``: the search window along the rail, each way, as a share of the sights'
    spacing; ``near_mm``/``far_mm``: the window across the rail, outside the nose;
    ``least_sights``: fewer found and kept, the first calibration stands; ``least_per_rail``:
    each rail must keep this many (the four rails hold the table's outline; 0: three rails
    with sights do);
    ``max_rms_mm``, ``max_rms_px``: the fit's RMS residual above which it is not trusted (in
    mm, and in pixels at the table's middle: a sight's centre is read to 0.2-0.5 px);
    ``doubtful_rms_mm``: a fit trusted but looser than this is marked doubtful (on the hard
    renders the two fits over 2.5 mm RMS were 2.7 and 3.1 mm off, the rest within 2.6);
    ``off_line_mm``: a sight this far across from the line of its rail's others is no sight;
    ``outlier_share``:
    the worst sight is dropped while its residual is over this times the RMS of the others
    (and over ``outlier_floor_mm``); ``contrast_sigmas``: a blob's peak must stand this many
    robust sigmas above its window's noise; ``passes``: how many times at most the sights are
    looked for again around where the last fit puts them."""

    layout: SightLayout = field(default_factory=SightLayout)
    along_share: float = 0.3
    near_mm: float = 15.0
    far_mm: float = 260.0
    least_sights: int = 12
    least_per_rail: int = 2
    max_rms_mm: float = 4.0
    max_rms_px: float = 0.8
    doubtful_rms_mm: float = 2.5
    off_line_mm: float = 12.0
    outlier_share: float = 3.0
    outlier_floor_mm: float = 2.0
    contrast_sigmas: float = 6.0
    passes: int = 3

    def __post_init__(self) -> None:
        if not (0 < self.along_share < 0.5):
            raise ValueError(f"expected along_share in (0, 0.5), got {self.along_share}")
        if not (0 <= self.near_mm < self.far_mm):
            raise ValueError(f"expected 0 <= near_mm < far_mm, got {self.near_mm}, "
                             f"{self.far_mm}")
        if self.least_sights < 6 or self.least_per_rail < 0:
            raise ValueError("expected least_sights >= 6 and least_per_rail >= 0")


DEFAULT_SIGHTS = SightParams()


@dataclass(frozen=True)
class Sight:
    """One sight: its rail, its place along the rail (mm from the field's corner), and where its
    centre was read in the picture (raw pixels)."""

    cushion: Cushion
    along_mm: float
    image_px: tuple[float, float]


@dataclass(frozen=True)
class SightFit:
    """The nose-plane homography fitted to the sights (from pixels undistorted with its
    ``distortion``, OpenCV's five terms), the two distances of the sights outside the noses, the
    RMS residual (mm) and the sights it rests on."""

    h_image_to_nose: FloatArray
    offset_long_mm: float
    offset_short_mm: float
    distortion: FloatArray
    rms_mm: float
    sights: tuple[Sight, ...]


def _target(cushion: Cushion, along_mm: ArrayLike, offset_mm: ArrayLike, table: TableSpec
            ) -> FloatArray:
    """Places on the nose plane (table mm, (N, 2)) ``along_mm`` along the cushion's rail and
    ``offset_mm`` outside its nose (numbers or arrays of one shape)."""
    a, d = np.broadcast_arrays(np.asarray(along_mm, np.float64).ravel(),
                               np.asarray(offset_mm, np.float64).ravel())
    L, W = table.length_mm, table.width_mm
    x, y = {Cushion.RIGHT: (a, -d), Cushion.LEFT: (a, W + d), Cushion.HEAD: (-d, a),
            Cushion.FOOT: (L + d, a)}[cushion]
    return np.stack([x, y], axis=1)


def expected_sights(table: TableSpec, layout: SightLayout) -> list[tuple[Cushion, float, float]]:
    """Every sight of the layout: (rail, place along it in mm, spacing to its neighbours)."""
    out: list[tuple[Cushion, float, float]] = []
    long_step = table.length_mm * min(np.diff((0.0, *layout.along_long)))
    short_step = table.width_mm * min(np.diff((0.0, *layout.along_short)))
    for c in (Cushion.RIGHT, Cushion.LEFT):
        out += [(c, f * table.length_mm, long_step) for f in layout.along_long]
    for c in (Cushion.HEAD, Cushion.FOOT):
        out += [(c, f * table.width_mm, short_step) for f in layout.along_short]
    return out


def nose_plane_homography(calibration: Calibration, nose_height_mm: float,
                          camera_height_mm: float) -> FloatArray:
    """Undistorted pixels -> the plane ``nose_height_mm`` above the ball centres (mm): every
    ray's point moves toward the point under the camera by the ratio of the heights (the
    inverse of :func:`calibration.detect.lift_homography`)."""
    from calibration.detect import lift_homography  # (detect imports this module)

    k = _camera_matrix(calibration)
    # (the ball plane seen as a plane nose_height below the nose plane)
    return lift_homography(calibration.homography_image_to_table, k, -nose_height_mm,
                           camera_height_mm - nose_height_mm)


Lens = tuple[FloatArray, FloatArray]  # camera matrix, OpenCV's five distortion terms


def _lens(calibration: Calibration) -> Lens:
    """The calibration's lens, or a camera matrix guessed and no distortion."""
    if calibration.camera_matrix is not None and calibration.distortion is not None:
        return (np.asarray(calibration.camera_matrix, dtype=np.float64),
                np.asarray(calibration.distortion, dtype=np.float64))
    return _camera_matrix(calibration), np.zeros(5)


def _camera_matrix(calibration: Calibration) -> FloatArray:
    if calibration.camera_matrix is not None:
        return np.asarray(calibration.camera_matrix, dtype=np.float64)
    return guess_camera_matrix(calibration.image_size)


def _raw_px(calibration: Calibration, h_image_to_plane: FloatArray, pts_mm: FloatArray
            ) -> FloatArray:
    """Plane mm -> raw image pixels through ``h_image_to_plane`` and the calibration's lens."""
    inv = np.linalg.inv(h_image_to_plane)
    und = apply_homography(inv / inv[2, 2], pts_mm)
    if calibration.camera_matrix is None or calibration.distortion is None:
        return und
    return distort_points(und, calibration.camera_matrix, calibration.distortion)


def find_sights(grey: NDArray[np.float32], calibration: Calibration, h_nose: FloatArray,
                params: SightParams = DEFAULT_SIGHTS) -> list[tuple[Sight, float]]:
    """Each sight of the layout found near where ``h_nose`` (the first calibration's nose
    plane) puts it, with its distance outside the nose (mm, by ``h_nose``); windows with no
    blob standing out are left out."""
    table = calibration.table
    mm_px = calibration.mm_per_px()
    step_mm = max(1.0, mm_px / 2)  # the window sampled at half a pixel
    found: list[tuple[Sight, float]] = []
    for cushion, along, spacing in expected_sights(table, params.layout):
        half = params.along_share * spacing
        a = np.arange(along - half, along + half + step_mm / 2, step_mm)
        d = np.arange(params.near_mm, params.far_mm + step_mm / 2, step_mm)
        aa, dd = np.meshgrid(a, d)
        pts = _target(cushion, aa, dd, table)
        px = _raw_px(calibration, h_nose, pts).astype(np.float32).reshape((*aa.shape, 2))
        patch = cv2.remap(grey, px[..., 0], px[..., 1], cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_CONSTANT, borderValue=float("nan"))
        if np.isnan(patch).mean() > 0.2:
            continue  # the window runs out of the picture
        window: NDArray[np.float32] = np.nan_to_num(
            patch, nan=float(np.nanmedian(patch))).astype(np.float32)
        blob = _blob_at(window, step_mm, mm_px / step_mm, params.contrast_sigmas)
        if blob is None:
            continue
        i, j = blob
        centre = _centroid(grey, px[i, j], mm_px)
        if centre is None:
            continue
        found.append((Sight(cushion, along, (float(centre[0]), float(centre[1]))),
                      float(dd[i, j])))
    return found


def _blob_at(patch: NDArray[np.float32], step_mm: float, px_per_sample: float, sigmas: float
             ) -> tuple[int, int] | None:
    """The strongest small blob of a window (row, column; sampled every ``step_mm``),
    brighter or darker than the wood around it, when it stands ``sigmas`` robust sigmas above
    the window's noise. Smoothed by the picture's own pixel (its noise)."""
    # the wood around: a median WOOD_MM across (a sight is 14-25 mm)
    k = int(2 * round(WOOD_MM / step_mm / 2) + 1)
    k = max(5, min(k, 2 * ((min(patch.shape) - 1) // 2) - 1))
    bg = cv2.medianBlur(np.clip(patch, 0, 255).astype(np.uint8), k).astype(np.float32)
    resp = cv2.GaussianBlur(np.abs(patch - bg), (0, 0), max(1.0, 0.8 * px_per_sample))
    noise = 1.4826 * float(np.median(np.abs(resp - np.median(resp)))) + 1e-3
    i, j = np.unravel_index(int(np.argmax(resp)), resp.shape)
    if resp[i, j] - float(np.median(resp)) < sigmas * noise:
        return None
    return int(i), int(j)


def _centroid(grey: NDArray[np.float32], at: NDArray[np.float32], mm_px: float
              ) -> FloatArray | None:
    """The sub-pixel centre of the blob near ``at`` (raw pixels): the centroid of how much
    each pixel of a window some 45 mm across stands out from the window's median, on the
    blob's side (brighter or darker), less a quarter of the most (the wood's grain), three
    times over, each window centred on the last answer. On the hard renders: median error
    0.22 px, nine in ten within 0.5 px (the sights' true places; a plain centroid over a
    smaller window: 0.31 and 0.93 px)."""
    h, w = grey.shape
    r = max(3, round(22.0 / mm_px))
    yy, xx = np.mgrid[-r:r + 1, -r:r + 1]
    c = np.asarray(at, dtype=np.float64)
    for _ in range(3):
        x0, y0 = round(c[0]), round(c[1])
        if not (r <= x0 < w - r and r <= y0 < h - r):
            return None
        win = grey[y0 - r:y0 + r + 1, x0 - r:x0 + r + 1]
        median = float(np.median(win))
        side = 1.0 if float(win[r - 1:r + 2, r - 1:r + 2].mean()) >= median else -1.0
        dev = np.maximum(side * (win - median), 0)
        dev = np.maximum(dev - 0.25 * dev.max(), 0)
        total = float(dev.sum())
        if total <= 0:
            return None
        c = np.array([x0 + float((dev * xx).sum()) / total, y0 + float((dev * yy).sum()) / total])
    return c


def fit_sights(found: list[tuple[Sight, float]], calibration: Calibration,
               params: SightParams = DEFAULT_SIGHTS) -> SightFit | None:
    """The nose-plane homography, the two offsets and the lens's k1 and k2 fitted to the sights
    found (see the module doc); None when too few are left."""
    table = calibration.table
    # the sights of each rail on one line along it (at one distance outside the nose, which a
    # first outline turned a little shows as a distance changing evenly along the rail)
    kept: list[tuple[Sight, float]] = []
    for c in Cushion:
        on = [(s, d) for s, d in found if s.cushion is c]
        if len(on) >= 3:
            slope, intercept, _, _ = theilslopes([d for _, d in on], [s.along_mm for s, _ in on])
            kept += [(s, d) for s, d in on
                     if abs(d - intercept - slope * s.along_mm) <= params.off_line_mm]
        else:
            mid = float(np.median([d for _, d in on])) if on else 0.0
            kept += [(s, d) for s, d in on if abs(d - mid) <= params.off_line_mm]
    sights = [s for s, _ in kept]
    if not _enough(sights, params):
        return None
    offsets = [float(np.median([d for s, d in kept if s.cushion.is_long] or [0.0])),
               float(np.median([d for s, d in kept if not s.cushion.is_long] or [0.0]))]
    raw = np.array([s.image_px for s in sights])
    lens = _lens(calibration)
    while True:
        fit = _fit(raw, sights, offsets, lens, table)
        if fit is None:
            return None
        h, offsets, distortion, res = fit
        rms = float(np.sqrt(np.mean(res ** 2)))
        worst = int(np.argmax(res))
        rest = np.delete(res, worst)
        rest_rms = float(np.sqrt(np.mean(rest ** 2))) if len(rest) else 0.0
        if res[worst] <= max(params.outlier_share * rest_rms, params.outlier_floor_mm):
            break
        smaller = [s for i, s in enumerate(sights) if i != worst]
        if not _enough(smaller, params):
            return None
        sights, raw = smaller, np.delete(raw, worst, axis=0)
    return SightFit(h, offsets[0], offsets[1], distortion, rms, tuple(sights))


def _enough(sights: list[Sight], params: SightParams) -> bool:
    """Enough sights, and on every rail ``least_per_rail`` (0: on three rails at least, which
    pin a homography down too)."""
    per_rail = [sum(s.cushion is c for s in sights) for c in Cushion]
    if params.least_per_rail == 0:
        return len(sights) >= params.least_sights and sum(n > 0 for n in per_rail) >= 3
    return len(sights) >= params.least_sights and min(per_rail) >= params.least_per_rail


def _fit(raw: FloatArray, sights: list[Sight], offsets: list[float], lens: Lens,
         table: TableSpec) -> tuple[FloatArray, list[float], FloatArray, FloatArray] | None:
    """Least squares of the homography (h33 = 1), the two offsets and the lens's k1 and k2:
    the residuals (mm) are the distances on the nose plane between where the homography puts
    each sight and its place. Returns the homography from pixels undistorted with the new
    lens, the offsets, the lens's distortion terms and the residuals."""
    def targets(o_long: float, o_short: float) -> FloatArray:
        return np.concatenate([_target(s.cushion, s.along_mm,
                                       o_long if s.cushion.is_long else o_short, table)
                               for s in sights])

    k, dist = lens
    und = undistort_points(raw, k, dist)
    h0, _ = cv2.findHomography(und, targets(*offsets), 0)
    if h0 is None:
        return None
    # (pixels centred and scaled for a well-conditioned problem)
    centre, scale = und.mean(axis=0), float(np.std(und)) or 1.0
    norm = np.array([[1 / scale, 0, -centre[0] / scale], [0, 1 / scale, -centre[1] / scale],
                     [0, 0, 1.0]])
    g0 = h0 @ np.linalg.inv(norm)
    g0 = g0 / g0[2, 2]

    def distortion(p: FloatArray) -> FloatArray:
        return np.array([p[10], p[11], *dist[2:]])

    def residuals(p: FloatArray) -> FloatArray:
        g = np.append(p[:8], 1.0).reshape(3, 3)
        un = apply_homography(norm, undistort_points(raw, k, distortion(p)))
        return (apply_homography(g, un) - targets(p[8], p[9])).ravel()

    sol = least_squares(residuals, np.concatenate([g0.ravel()[:8], offsets, dist[:2]]),
                        method="lm")
    g = np.append(sol.x[:8], 1.0).reshape(3, 3)
    h = g @ norm
    if not (np.all(np.isfinite(sol.x)) and abs(h[2, 2]) > 0
            and np.linalg.cond(h / h[2, 2]) < 1e12):
        return None  # (a degenerate fit: the sights found lie along too few lines)
    res = np.hypot(*sol.fun.reshape(-1, 2).T)
    return h / h[2, 2], [float(sol.x[8]), float(sol.x[9])], distortion(sol.x), res


def refined_by_sights(image: NDArray[np.uint8], calibration: Calibration, nose_height_mm: float,
                      camera_height_mm: float, params: SightParams = DEFAULT_SIGHTS
                      ) -> tuple[Calibration, SightFit] | None:
    """The calibration made again from the rails' sights seen in ``image`` (BGR, the picture
    ``calibration`` was made from), or None when they are not seen well enough (see the module
    doc). The camera matrix and every other field but the lens terms are kept;
    ``rms_residual_mm`` becomes the sights' RMS and ``checks`` tells how many sights it rests
    on. Trusted only when the last fit's
    RMS is within ``params.max_rms_mm`` and ``max_rms_px``."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32)
    # looked for again around where each fit puts them, until the same sights are found (a
    # first outline far off finds some, and the fit to those finds the rest); the last fit is
    # judged
    cal, fit, last = calibration, None, None
    # (the first passes may rest on fewer, on three rails: a first outline far off finds some
    # sights only)
    first = replace(params, least_sights=params.least_sights * 2 // 3, least_per_rail=0)
    for n in range(params.passes):
        fit = fit_sights(find_sights(grey, cal, nose_plane_homography(
            cal, nose_height_mm, camera_height_mm), params), cal, params if n else first)
        if fit is None:
            return None
        try:
            cal = _with_fit(calibration, fit, nose_height_mm, camera_height_mm, params)
        except (CalibrationError, np.linalg.LinAlgError):
            return None  # (a fit no camera could give: not taken)
        seen = {(s.cushion, s.along_mm) for s in fit.sights}
        if seen == last:
            break
        last = seen
    if fit is None or not _enough(list(fit.sights), params) or fit.rms_mm > min(
            params.max_rms_mm, params.max_rms_px * calibration.mm_per_px()):
        return None
    return cal, fit


def _with_fit(calibration: Calibration, fit: SightFit, nose_height_mm: float,
              camera_height_mm: float, params: SightParams) -> Calibration:
    """The calibration with the sights' fit: its homography lifted to the ball plane, its lens,
    its RMS and what it rests on in the checks."""
    from calibration.detect import lift_homography  # (detect imports this module)

    h_ball = lift_homography(fit.h_image_to_nose, _camera_matrix(calibration), nose_height_mm,
                             camera_height_mm)
    checks = dict(calibration.checks or {})
    checks.update(sights=len(fit.sights), sights_rms_mm=round(fit.rms_mm, 2),
                  sights_doubtful_mm=params.doubtful_rms_mm,
                  sights_offset_mm=[round(fit.offset_long_mm, 1), round(fit.offset_short_mm, 1)],
                  reading_before_sights=checks.get("reading"), reading="sights",
                  lens_at_bound=False)  # (the lens is the sights' now)
    return replace(calibration, homography_image_to_table=h_ball, rms_residual_mm=fit.rms_mm,
                   camera_matrix=_camera_matrix(calibration), distortion=fit.distortion,
                   checks=checks)


__all__ = ["DEFAULT_SIGHTS", "Sight", "SightFit", "SightLayout", "SightParams", "find_sights",
           "fit_sights", "nose_plane_homography", "refined_by_sights"]
