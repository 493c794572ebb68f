"""Find the table in a frame: cloth region -> cushion-nose lines -> lens k1, k2 -> homography.

Heights: the cushion noses are not on the calibrated plane (the plane of ball centres) but
``nose_height_mm`` above it (by default a nose 0.65 ball diameters above the cloth, the usual
cushion height, is 0.15 diameters = ~10 mm above the ball centres). The nose lines give the mapping
from pixels to the *nose plane*; every ray then meets the ball-centre plane a little further from
the point under the camera, by ``nose_height / (camera_height - nose_height)`` of its distance from
it (~4 mm at the corners of a 12-ft table seen from 3 m). The camera's height cannot be told
reliably from one near-overhead view (it trades off against the focal length), so it is a
parameter, ``camera_height_mm`` (default 3 m, a club webcam; a 15 % error in it moves the corners
by ~0.6 mm); the point under the camera comes from the homography.

Orientation (RULES.md §1 table frame): the table's long axis becomes x, from the head cushion to
the foot cushion. Which short cushion is the head can be seen only when the house line is drawn
on the cloth (:mod:`calibration.house`); when it is not seen, the head is by default the short
cushion at the **left** of the image when the long sides run across the image, and the one at
the **top** when they run down it; ``head="left"|"right"|"top"|"bottom"`` overrides both.
y = 0 is then the right cushion as seen from the head looking to the foot (for the default
left head: the bottom long cushion of the image).
"""

from __future__ import annotations

import contextlib
import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import least_squares, minimize_scalar

from calibration.cloth import ClothModel, find_cloth, to_lab
from calibration.edges import nose_points_from_boundary
from calibration.errors import CalibrationError
from calibration.house import find_house_line, turned_around
from calibration.lines import Line, fit_line, irls_line, ransac_line, robust_line
from calibration.model import (
    CORNER_POCKETS,
    Calibration,
    apply_homography,
    guess_camera_matrix,
    homography_from_corners,
    undistort_points,
)
from calibration.plausibility import (
    ShapeCheck,
    aspect_width_mm,
    outline_homography,
    pinhole_consistency,
    shape_check,
)
from calibration.sights import DEFAULT_SIGHTS, Sight, SightParams, refined_by_sights
from rules.table import Cushion, TableSpec

FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]
Head = Literal["left", "right", "top", "bottom"]
HEADS: tuple[str, ...] = ("left", "right", "top", "bottom")

MIN_AREA_FRACTION = 0.20  # the cloth must cover at least this share of the frame
MAX_BORDER_FRACTION = 0.05  # ... and lie inside it (rails in view)
MAX_RESIDUAL_MM = 10.0  # default refusal threshold for the cushion-line fit
CLASSIC_TRUSTED_MM = 4.0  # a classic reading fitting this well is kept without trying the other
CLASSIC_MAX_K1 = 0.6  # |k1| search range of the classic one-parameter lens
MAX_K1 = 0.8  # |k1| search range (normalised by a focal length of one image width)
MAX_K2 = 0.8  # |k2| search range (same normalisation)
WIDTH_CONSISTENCY = 1.25  # a cushion's width seen agrees with the others' within this ratio
NOSE_HEIGHT_FRACTION = 0.65  # cushion nose height above the cloth, in ball diameters
CAMERA_HEIGHT_MM = 3000.0  # assumed camera height above the table (see the module doc)
MIN_SIDE_COVERAGE = 0.25  # share of a cushion's samples that must give a nose point
CUSHION_BAND = 0.10  # search for the nose up to this share of the table's short side inward
POCKET_MARGIN = 0.10  # skip this share of the short side around every pocket
ASPECT_TRUSTED = 0.002  # the rail outline's pinhole violation below which its width is trusted
WIDTH_TOLERANCE_MM = 8.0  # the noses' cushion width may differ from the aspect's by this much
NOSE_WIDTH_TRUSTED = 0.0035  # ... or any amount, while its outline's pinhole violation is below
MIN_CUSHION_MM = 10.0  # a cushion narrower than this is not a cushion width
LOOSE_FIT_MM = 4.5  # an illumination-invariant reading fitting worse than this is doubtful
RAIL_STEADIER = 0.6  # the rails' steepest colour change is read where its points wander less
# than this share of the chromaticity's half-way points (see _edge_points)


@dataclass(frozen=True)
class CushionPrior:
    """What a cushion is known to be before the picture is read. ``width_mm``: the cushion top
    from the nose to the wooden rail, seen from above (about 50 mm on pyramid and pool tables:
    the rubber's profile, not the table's size, sets it). Used only where the noses are not
    seen as one width all round; such a calibration is marked doubtful."""

    width_mm: float = 50.0
    # the noses' width seen is believed within this share of ``width_mm``: the cushion tops
    # seen were 51-56 mm wide on the nose plane; a nose read 30 mm inside the field (the far
    # side of its shadow) makes the width 80 mm, with the outline's shape still plausible
    spread: float = 0.3

    def plausible(self, width_mm: float) -> bool:
        return abs(width_mm - self.width_mm) <= self.spread * self.width_mm


CUSHION_PRIOR = CushionPrior()


@dataclass(frozen=True, eq=False)
class SideFit:
    """One cushion's detected nose: edge points (raw px), which of them the line fit kept, the
    line in undistorted pixels, and the cushion width seen (px, 0 = the cloth boundary used)."""

    cushion: Cushion
    points_px: FloatArray
    inliers: BoolArray
    line: Line
    cushion_width_px: float


@dataclass(frozen=True, eq=False)
class TableDetection:
    """A found table: the calibration plus what it was made from (for previews and checks)."""

    calibration: Calibration
    sides: tuple[SideFit, ...]  # head, foot, right, left
    cloth: ClothModel
    cloth_mask: BoolArray
    sights: tuple[Sight, ...] = ()  # the rails' sights the calibration rests on, if any

    def side(self, cushion: Cushion) -> SideFit:
        return next(s for s in self.sides if s.cushion is cushion)


# --- image checks ------------------------------------------------------------------------------
def as_bgr_image(image: object, what: str = "frame") -> NDArray[np.uint8]:
    """Validate an 8-bit BGR (H, W, 3) or grey (H, W) image; grey is expanded to BGR."""
    arr = np.asarray(image)
    if arr.dtype != np.uint8:
        raise CalibrationError(f"expected an 8-bit image, got dtype {arr.dtype}", what)
    if arr.ndim == 2:
        arr = np.repeat(arr[:, :, None], 3, axis=2)
    if arr.ndim != 3 or arr.shape[2] != 3 or min(arr.shape[:2]) < 32:
        raise CalibrationError(f"expected an (H, W, 3) image of at least 32x32, got shape "
                               f"{arr.shape}", what)
    return arr


def median_frame(frames: Sequence[NDArray[np.uint8]]) -> NDArray[np.uint8]:
    """Per-pixel median of several frames (same size): moving balls, hands and cue vanish."""
    if len(frames) == 0:
        raise CalibrationError("expected at least one frame, got none", "frames")
    imgs = [as_bgr_image(f, f"frames[{i}]") for i, f in enumerate(frames)]
    if any(f.shape != imgs[0].shape for f in imgs):
        raise CalibrationError(f"expected frames of one size, got "
                               f"{sorted({f.shape for f in imgs})}", "frames")
    if len(imgs) == 1:
        return imgs[0]
    return np.asarray(np.median(np.stack(imgs), axis=0).round(), dtype=np.uint8)


# --- coarse table outline ----------------------------------------------------------------------
def _coarse_quad(contour: FloatArray, image_size: tuple[int, int],
                 rng: np.random.Generator) -> tuple[list[Line], FloatArray]:
    """Four straight stretches of the cloth outline forming a quadrilateral: the rail edges.

    Returns the lines in cyclic order (0 and 2 opposite) with normals into the table, and the
    corners (corner i between lines i and i+1)."""
    w, h = image_size
    diag = float(np.hypot(w, h))
    tol = max(3.0, 0.01 * diag)
    min_support = 0.08 * min(w, h)
    pts = contour
    keep = np.ones(len(pts), bool)
    cands: list[tuple[Line, int]] = []
    for _ in range(8):
        idx = np.flatnonzero(keep)
        if len(idx) < min_support:
            break
        line, inl = ransac_line(pts[idx], tol, rng, iterations=400, ordered=True)
        count = int(np.count_nonzero(inl))
        if line is None or count < min_support:
            break
        cands.append((line, count))
        near = np.abs(line.distance(pts)) < 2 * tol
        keep &= ~near
    found = len(cands)
    best: tuple[float, list[Line], FloatArray] | None = None
    for combo in itertools.combinations(range(found), 4):
        for a1, a2, b1, b2 in ((0, 1, 2, 3), (0, 2, 1, 3), (0, 3, 1, 2)):
            la = [cands[combo[a1]][0], cands[combo[a2]][0]]
            lb = [cands[combo[b1]][0], cands[combo[b2]][0]]
            if _angle_diff(la[0], la[1]) > 30 or _angle_diff(lb[0], lb[1]) > 30:
                continue
            if _angle_diff(la[0], lb[0]) < 45:
                continue
            cyc = [la[0], lb[0], la[1], lb[1]]
            try:
                corners = np.array([cyc[i].intersect(cyc[(i + 1) % 4]) for i in range(4)])
            except np.linalg.LinAlgError:
                continue
            area = _polygon_area(corners)
            if not _convex(corners) or area < MIN_AREA_FRACTION * w * h:
                continue
            if np.any(corners < -0.5 * diag) or np.any(corners > 1.5 * diag):
                continue
            score = sum(cands[i][1] for i in combo)
            if best is None or score > best[0]:
                best = (score, cyc, corners)
    if best is None:
        raise CalibrationError(
            f"no table found: the cloth region's outline has {found} straight edge(s) but no four "
            f"that form a table (expected 4 cushions in view)")
    _, cyc, corners = best
    centre = corners.mean(axis=0)
    cyc = [ln if ln.distance(centre[None])[0] > 0 else ln.flipped() for ln in cyc]
    return cyc, corners


def _angle_diff(a: Line, b: Line) -> float:
    d = abs(a.angle_deg() - b.angle_deg()) % 180
    return min(d, 180 - d)


def _polygon_area(p: FloatArray) -> float:
    x, y = p[:, 0], p[:, 1]
    return 0.5 * abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))


def _convex(p: FloatArray) -> bool:
    e = np.roll(p, -1, axis=0) - p
    cross = e[:, 0] * np.roll(e[:, 1], -1) - e[:, 1] * np.roll(e[:, 0], -1)
    return bool(np.all(cross > 0) or np.all(cross < 0))


# --- nose edge points --------------------------------------------------------------------------
def _side_samples(a: FloatArray, b: FloatArray, normal: FloatArray, short_px: float,
                  long_side: bool, spacing: float = 2.0) -> tuple[FloatArray, FloatArray]:
    """Sample points along the segment a-b, away from the pockets, and their normals."""
    length = float(np.hypot(*(b - a)))
    u = np.arange(0.0, length, spacing)
    margin = POCKET_MARGIN * short_px
    keep = (u > margin) & (u < length - margin)
    if long_side:
        keep &= np.abs(u - length / 2) > margin
    u = u[keep]
    d = (b - a) / max(length, 1e-9)
    origins = a[None, :] + u[:, None] * d[None, :]
    return origins, np.repeat(normal[None, :], len(u), axis=0)


def _edge_points(lab: NDArray[np.float32], chroma: NDArray[np.float32], mask: BoolArray,
                 lines: list[Line], corners: FloatArray, image_size: tuple[int, int],
                 invariant: bool = False
                 ) -> tuple[list[FloatArray], list[float], list[FloatArray | None], list[float]]:
    """For each coarse side: nose points (NaN rows removed), the cushion width seen (px), the
    rail-edge points (None where the rail was not told from the cloth along enough of the
    side) and the nose's contrast."""
    lengths = [float(np.hypot(*(corners[i] - corners[i - 1]))) for i in range(4)]
    # side i runs from corner i-1 to corner i
    pair0 = (lengths[0] + lengths[2]) / 2
    pair1 = (lengths[1] + lengths[3]) / 2
    short_px = min(pair0, pair1)
    long_is_0 = pair0 >= pair1
    outside = max(4.0, 0.02 * float(np.hypot(*image_size)))
    band = CUSHION_BAND * short_px
    points: list[FloatArray] = []
    widths: list[float] = []
    contrasts: list[float] = []
    edges = []
    for i, line in enumerate(lines):
        origins, normals = _side_samples(corners[i - 1], corners[i], np.asarray(line.normal),
                                         short_px, long_side=(i % 2 == 0) == long_is_0)
        found = nose_points_from_boundary(lab, chroma, mask, origins, normals, outside, band,
                                          invariant=invariant)
        edges.append((found, len(origins)))
        pts, width = found.nose, found.width_px
        pts = pts[np.all(np.isfinite(pts), axis=1)]
        contrasts.append(found.contrast)
        coverage = len(pts) / max(len(origins), 1)
        if coverage < MIN_SIDE_COVERAGE or len(pts) < 10:
            raise CalibrationError(
                f"no table found: a cushion nose was seen along {coverage:.0%} of one side "
                f"(expected > {MIN_SIDE_COVERAGE:.0%})")
        points.append(pts)
        widths.append(width)
    # the rail's edge read where the colour changes fastest, on all four cushions, when those
    # points wander about their lines clearly less than the half-way points do (a rail whose
    # colour comes gradually); one reading for all four: a mixture makes an outline no
    # cushion width can mend, while one reading's bias is the same all round
    steepest = [found.steepest_scatter for found, _ in edges]
    halfway = [found.rail_scatter for found, _ in edges]
    take_steepest = bool(np.isfinite(steepest).all() and np.isfinite(halfway).all()
                         and sum(steepest) < RAIL_STEADIER * sum(halfway))
    rails: list[FloatArray | None] = []
    for found, count in edges:
        raw = found.rail_steepest if take_steepest and found.rail_steepest is not None \
            else found.rail
        rail = raw[np.all(np.isfinite(raw), axis=1)]
        rails.append(rail if len(rail) >= max(10, MIN_SIDE_COVERAGE * count) else None)
    return points, widths, rails, contrasts


# --- lens distortion ---------------------------------------------------------------------------
def _line_residuals(k: FloatArray, sides: list[FloatArray], camera_matrix: FloatArray
                    ) -> FloatArray:
    """Distances (px) of the undistorted points of each side to their own best line."""
    dist = np.array([k[0], k[1], 0.0, 0.0, 0.0])
    out = []
    for pts in sides:
        u = undistort_points(pts, camera_matrix, dist)
        out.append(fit_line(u).distance(u))
    return np.concatenate(out) if out else np.zeros(0)


def _k1_residuals(k1: FloatArray, sides: list[FloatArray], camera_matrix: FloatArray
                  ) -> FloatArray:
    return _line_residuals(np.array([k1[0], 0.0]), sides, camera_matrix)


def _estimate_distortion(sides: list[FloatArray], camera_matrix: FloatArray,
                        rng: np.random.Generator) -> tuple[FloatArray, list[BoolArray]]:
    """Radial ``(k1, k2)`` that make the four cushion lines straightest, and each side's inliers.

    Two rounds: inliers chosen with a tolerance loose enough for a bent line, the lens fitted on
    them (k1 alone first, then k1 and k2 from there); then inliers re-chosen tightly on the
    undistorted points and the lens refitted. Four lines at different distances from the image
    centre tell k1 from k2 (a webcam's lens needs both to be straight to a fraction of a pixel
    across the frame)."""
    k = np.zeros(2)
    inliers = [np.ones(len(p), bool) for p in sides]
    width = float(camera_matrix[0, 2] * 2 + 1)
    for tol, floor in ((0.01, 1.0), (0.002, 0.3)):
        dist = np.array([k[0], k[1], 0.0, 0.0, 0.0])
        inliers = []
        for pts in sides:
            u = undistort_points(pts, camera_matrix, dist)
            _, inl = robust_line(u, max(1.5, tol * width), rng, min_scale=floor)
            inliers.append(inl)
        kept = [p[m] for p, m in zip(sides, inliers, strict=True)]
        k1_only = least_squares(_k1_residuals, [k[0]], args=(kept, camera_matrix),
                                bounds=([-MAX_K1], [MAX_K1]), loss="soft_l1", f_scale=1.0)
        both = least_squares(_line_residuals, [float(k1_only.x[0]), 0.0],
                             args=(kept, camera_matrix), bounds=([-MAX_K1, -MAX_K2],
                                                                 [MAX_K1, MAX_K2]),
                             loss="soft_l1", f_scale=1.0)
        k = np.asarray(both.x, dtype=np.float64)
    return k, inliers


def _straightness(k1: float, sides: list[FloatArray], k: FloatArray) -> float:
    """Mean squared distance of the undistorted points of each side to their own best line."""
    total, count = 0.0, 0
    dist = np.array([k1, 0.0, 0.0, 0.0, 0.0])
    for pts in sides:
        u = undistort_points(pts, k, dist)
        r = fit_line(u).distance(u)
        total += float(np.sum(r * r))
        count += len(r)
    return total / max(count, 1)


def estimate_k1(sides: list[FloatArray], camera_matrix: FloatArray,
                rng: np.random.Generator) -> float:
    """The classic one-parameter lens: the k1 that makes the four nose lines straightest.

    Two rounds: inliers chosen with a tolerance loose enough for a bent line, k1 fitted on them;
    then inliers re-chosen tightly on the undistorted points and k1 refitted."""
    k1 = 0.0
    for tol, floor in ((0.01, 1.0), (0.002, 0.3)):
        dist = np.array([k1, 0.0, 0.0, 0.0, 0.0])
        inliers = []
        for pts in sides:
            u = undistort_points(pts, camera_matrix, dist)
            width = float(camera_matrix[0, 2] * 2 + 1)
            _, inl = robust_line(u, max(1.5, tol * width), rng, min_scale=floor)
            inliers.append(inl)
        kept = [p[m] for p, m in zip(sides, inliers, strict=True)]
        res = minimize_scalar(_straightness, bounds=(-CLASSIC_MAX_K1, CLASSIC_MAX_K1),
                              method="bounded", args=(kept, camera_matrix),
                              options={"xatol": 1e-5})
        k1 = float(res.x)
    return k1


# --- heights -----------------------------------------------------------------------------------
def default_nose_height_mm(table: TableSpec) -> float:
    """Height of the cushion noses above the plane of ball centres (mm)."""
    return (NOSE_HEIGHT_FRACTION - 0.5) * table.ball_diameter_mm


def camera_nadir(h_image_to_plane: FloatArray, camera_matrix: FloatArray,
                 height_mm: float) -> tuple[FloatArray, float]:
    """The point of a plane under the camera (mm) and the camera's height above that plane
    (mm), from the homography undistorted pixels -> plane mm and a camera matrix whose focal
    length is rescaled until the height is ``height_mm`` (principal point kept)."""
    k = np.array(camera_matrix, dtype=np.float64)
    h_inv = np.linalg.inv(h_image_to_plane)
    nadir, height = np.zeros(2), float(height_mm)
    for _ in range(3):
        m = np.linalg.inv(k) @ h_inv
        m = m / np.sqrt(np.linalg.norm(m[:, 0]) * np.linalg.norm(m[:, 1]))
        r1, r2, t = m[:, 0], m[:, 1], m[:, 2]
        rot = np.column_stack([r1, r2, np.cross(r1, r2)])
        centre = -rot.T @ t  # rot is near orthonormal; this is the camera centre in plane mm
        nadir, height = centre[:2], abs(float(centre[2]))
        if height <= 0:
            break
        k[0, 0] *= height_mm / height
        k[1, 1] *= height_mm / height
    return nadir, height


def lift_homography(h_image_to_nose: FloatArray, camera_matrix: FloatArray,
                    nose_height_mm: float, camera_height_mm: float) -> FloatArray:
    """The homography undistorted pixels -> the plane of ball centres, from the one to the nose
    plane ``nose_height_mm`` above it, for a camera ``camera_height_mm`` above the ball centres:
    every ray's point moves away from the point under the camera by the ratio of the heights."""
    if nose_height_mm == 0:
        return np.asarray(h_image_to_nose, dtype=np.float64)
    above_nose = camera_height_mm - nose_height_mm
    if above_nose <= 0:
        raise CalibrationError(f"expected the camera above the cushion noses, got camera height "
                               f"{camera_height_mm:g} mm and nose height {nose_height_mm:g} mm",
                               "camera_height_mm")
    nadir, _ = camera_nadir(h_image_to_nose, camera_matrix, above_nose)
    s = camera_height_mm / above_nose
    scale = np.array([[s, 0.0, (1 - s) * nadir[0]], [0.0, s, (1 - s) * nadir[1]],
                      [0.0, 0.0, 1.0]])
    h = scale @ h_image_to_nose
    return np.asarray(h / h[2, 2], dtype=np.float64)


# --- orientation -------------------------------------------------------------------------------
def _assign_cushions(lines: list[Line], head: str | None) -> dict[Cushion, int]:
    """Which of the cyclic lines (0, 2 opposite) is the head/foot/right/left cushion (see the
    module doc)."""
    corners = np.array([lines[i].intersect(lines[(i + 1) % 4]) for i in range(4)])
    mids = np.array([(corners[i - 1] + corners[i]) / 2 for i in range(4)])
    lengths = [float(np.hypot(*(corners[i] - corners[i - 1]))) for i in range(4)]
    short = (1, 3) if lengths[0] + lengths[2] >= lengths[1] + lengths[3] else (0, 2)
    long_ = (0, 2) if short == (1, 3) else (1, 3)
    axis = mids[short[1]] - mids[short[0]]
    across = abs(axis[0]) >= abs(axis[1])  # short cushions at the left and right of the image
    allowed = ("left", "right") if across else ("top", "bottom")
    if head is None:
        head = allowed[0]
    if head not in HEADS:
        raise CalibrationError(f"expected head to be one of {', '.join(HEADS)}, got {head!r}",
                               "head")
    if head not in allowed:
        raise CalibrationError(
            f"head={head!r} but the table's short cushions are at the {' and '.join(allowed)} of "
            f"the image (expected head to be {allowed[0]!r} or {allowed[1]!r})", "head")
    coord = 0 if across else 1
    a, b = short
    first, second = (a, b) if mids[a][coord] < mids[b][coord] else (b, a)
    head_i, foot_i = (first, second) if head in ("left", "top") else (second, first)
    d = mids[foot_i] - mids[head_i]
    rightward = np.array([-d[1], d[0]])  # right of the head->foot direction, seen from above
    centre = mids.mean(axis=0)
    l1, l2 = long_
    right_i, left_i = (l1, l2) if (mids[l1] - centre) @ rightward > (mids[l2] - centre) @ \
        rightward else (l2, l1)
    return {Cushion.HEAD: head_i, Cushion.FOOT: foot_i, Cushion.RIGHT: right_i,
            Cushion.LEFT: left_i}


def corners_from_lines(lines: dict[Cushion, Line]) -> FloatArray:
    """Cushion-nose corners HR, HL, FR, FL as line intersections (the lines' pixel frame)."""
    pairs = {"HR": (Cushion.HEAD, Cushion.RIGHT), "HL": (Cushion.HEAD, Cushion.LEFT),
             "FR": (Cushion.FOOT, Cushion.RIGHT), "FL": (Cushion.FOOT, Cushion.LEFT)}
    return np.array([lines[pairs[p.value][0]].intersect(lines[pairs[p.value][1]])
                     for p in CORNER_POCKETS])


def residuals_mm(calibration: Calibration, points_px: Mapping[Cushion, FloatArray | None],
                 outside_mm: float = 0.0) -> FloatArray:
    """Distances (mm) of raw-pixel cushion points to their ideal cushion line x=0, x=L, y=0,
    y=W on the calibrated plane (moved ``outside_mm`` outward), all sides concatenated."""
    t = calibration.table
    out = []
    e = outside_mm
    for cushion, pts in points_px.items():
        if pts is None or len(pts) == 0:
            continue
        mm = calibration.image_to_table(pts)
        out.append({Cushion.HEAD: mm[:, 0] + e, Cushion.FOOT: mm[:, 0] - t.length_mm - e,
                    Cushion.RIGHT: mm[:, 1] + e, Cushion.LEFT: mm[:, 1] - t.width_mm - e}[cushion])
    return np.concatenate(out) if out else np.zeros(0)


def _weighted_median(values: FloatArray, weights: FloatArray) -> float:
    order = np.argsort(values)
    cum = np.cumsum(weights[order])
    return float(values[order][int(np.searchsorted(cum, 0.5 * cum[-1]))])


def _rail_outline(rails_und: list[FloatArray], index: dict[Cushion, int],
                  rng: np.random.Generator, tolerance_px: float
                  ) -> tuple[FloatArray, dict[Cushion, BoolArray]] | None:
    """The rail edges' corners HR, HL, FR, FL (undistorted px, robust line intersections) and
    each rail edge's inliers; None when a line cannot be fitted."""
    lines: dict[Cushion, Line] = {}
    kept: dict[Cushion, BoolArray] = {}
    for c, i in index.items():
        line, _ = robust_line(rails_und[i], tolerance_px, rng, min_scale=0.3)
        if line is None:
            return None
        lines[c], wts = irls_line(rails_und[i], line, min_scale=0.3)
        kept[c] = wts > 0
    try:
        return corners_from_lines(lines), kept
    except np.linalg.LinAlgError:
        return None


def _from_rail_edges(corners: FloatArray, noses_und: list[FloatArray],
                     contrasts: list[float], index: dict[Cushion, int], table: TableSpec,
                     rounds: int = 3) -> tuple[FloatArray, float, list[Cushion]] | None:
    """The homography undistorted px -> nose plane mm from the rail edges' corners, the cushion
    width (mm) and the cushions whose noses agreed on it; or None.

    The rail's inner edge (the cushion's outer edge) is a colour edge that shading and video
    compression barely move, while a dim, low-contrast nose is easily moved a pixel or two, and
    unevenly along its length. Every cushion is equally wide (one cushion profile around the
    table), so the four rail-edge lines are the table's outline widened by that width on each
    side, and the noses only have to give the width: each side's inward offset of its nose
    points from where the width puts the nose, averaged over the sides weighted by the noses'
    contrast squared, corrects the width until the offsets balance. A side whose width seen is
    off the (weighted) median by more than ``WIDTH_CONSISTENCY`` is left out of the average;
    with fewer than two sides agreeing the noses give no width (None)."""
    L, W = table.length_mm, table.width_mm
    weights = {c: max(contrasts[i], 1e-6) ** 2 for c, i in index.items()}
    width = 0.0
    h = None
    agree: list[Cushion] = []
    for _ in range(rounds):
        h = outline_homography(corners, table, width)
        inward = {}
        for c, i in index.items():
            mm = apply_homography(h, noses_und[i])
            inward[c] = float(np.median({Cushion.HEAD: mm[:, 0], Cushion.FOOT: L - mm[:, 0],
                                         Cushion.RIGHT: mm[:, 1],
                                         Cushion.LEFT: W - mm[:, 1]}[c]))
        # one width all round: the sides' widths must agree, but for a side whose "nose" was
        # another edge (the shadow's far side, say), which is left out
        seen = {c: width + inward[c] for c in inward}
        typical = _weighted_median(np.array(list(seen.values())),
                                   np.array([weights[c] for c in seen]))
        agree = [c for c in seen if abs(seen[c] - typical) <= (WIDTH_CONSISTENCY - 1) * typical]
        if typical <= 0 or len(agree) < 2:
            return None
        step = sum(weights[c] * inward[c] for c in agree) / sum(weights[c] for c in agree)
        if not np.isfinite(step):
            return None
        width += step
    if h is None or width <= 0:
        return None
    # the nose plane's table frame: the rail edges at -width, L + width, ...
    return outline_homography(corners, table, width), width, agree


# --- the whole detection -----------------------------------------------------------------------
def detect_table(image: NDArray[np.uint8] | Sequence[NDArray[np.uint8]],
                 table: TableSpec | None = None, *, head: str | None = None,
                 max_residual_mm: float = MAX_RESIDUAL_MM, frame: int = 0,
                 estimate_distortion: bool = True, seed: int = 0,
                 nose_height_mm: float | None = None,
                 camera_height_mm: float = CAMERA_HEIGHT_MM,
                 sights: SightParams | None = DEFAULT_SIGHTS) -> TableDetection:
    """Find the table in a BGR frame (or the per-pixel median of several) and calibrate.

    ``head``: which image side the head cushion is at. Without it the drawn house line decides
    where it is seen (:mod:`calibration.house`: seen near one short end only, that end is the
    head), else the default: left, or top for a table whose long sides run down the image. The
    calibration's ``head_from`` records which ("user", "house_line", "default").
    ``nose_height_mm``: the cushion noses' height above the
    plane of ball centres (default :func:`default_nose_height_mm`; 0 calibrates the nose plane
    itself); ``camera_height_mm``: the camera's height above that plane (see the module doc).
    Raises :class:`CalibrationError` when no table is found, the cushion lines fit worse than
    ``max_residual_mm`` RMS, or the table found is beyond the hard limit of the shape check
    (:func:`calibration.plausibility.shape_check`: no camera sees the preset's table so); between
    its soft and hard limits the calibration is kept, marked doubtful, with a warning.

    Two readings of the picture are tried. The classic one (cloth model in Lab a*, b*, nose = the
    first colour edge inward of the rail, lens k1) suits an evenly lit picture and is kept when
    its cushion lines fit within ``CLASSIC_TRUSTED_MM`` and its shape is plausible; otherwise the
    illumination-invariant one (see :func:`_detect`), made for strong vignetting, lighting
    gradients and dim, compressed cushions, is tried too, and of the two a plausible one is kept
    before a doubtful one, then the better-fitting. The classic reading's error is raised when
    neither finds the table.

    Last, where the rails' sights are seen (``sights``: where they are and when their fit is
    trusted, :mod:`calibration.sights`; None: not looked for), the calibration is made again from
    them: a reading kept, one refused for its shape, or, when neither reading's lines fit, one of
    those loose outlines, provided the sights then fit within ``max_residual_mm`` and the shape
    check passes.
    """
    table = table or TableSpec()
    if head is not None and head not in HEADS:
        raise CalibrationError(f"expected head to be one of {', '.join(HEADS)}, got {head!r}",
                               "head")
    if isinstance(image, np.ndarray) and image.ndim != 4:
        img = as_bgr_image(image)
    else:  # several frames: a list, or an (N, H, W, 3) array
        img = median_frame(list(image))
    lab = to_lab(img)
    nose_h = default_nose_height_mm(table) if nose_height_mm is None else float(nose_height_mm)

    def read(invariant: bool, max_mm: float = max_residual_mm) -> TableDetection:
        """One reading of the picture, refused beyond ``max_mm`` RMS (see :func:`_detect`)."""
        return _detect(img, lab, table, head, max_mm, frame, estimate_distortion, seed, nose_h,
                       float(camera_height_mm), invariant=invariant)

    classic: TableDetection | None = None
    first: CalibrationError | None = None
    refused: list[TableDetection] = []  # found, but no camera can see the preset's table so
    try:
        classic = _checked(read(False))
    except CalibrationError as err:
        first = err
    if classic is not None and _shape(classic).refused:
        refused.append(classic)
        classic = None
    with_sights = _SightsLook(img, nose_h, float(camera_height_mm), max_residual_mm, sights)
    if (classic is not None and classic.calibration.rms_residual_mm <= CLASSIC_TRUSTED_MM
            and not _shape(classic).doubtful):
        return _oriented(with_sights(classic), img, head)
    other: TableDetection | None = None
    try:
        other = _checked(read(True))
    except CalibrationError as err:
        first = first or err
    if other is not None and _shape(other).refused:
        refused.append(other)
        other = None
    found = [d for d in (classic, other) if d is not None]
    if found:
        # a plausible reading before a doubtful one; then the better fit (the classic on a tie)
        best = min(found, key=lambda d: (_shape(d).doubtful, d.calibration.rms_residual_mm))
        if best is classic:
            best = _loose_classic(best)
        return _oriented(with_sights(best), img, head)
    # a table refused for its shape is found again from its sights, when they show
    rescued = [d for d in map(with_sights.rescue, refused) if d is not None]
    if not rescued and first is not None and sights is not None:
        # neither reading's lines fit: their outlines may still be near enough to find the
        # sights by
        rescued = [d for d in map(with_sights.rescue, _loose_readings(read)) if d is not None]
    if rescued:
        return _oriented(rescued[0], img, head)
    if refused:
        check = min((_shape(d) for d in refused), key=lambda c: c.sigmas)
        raise CalibrationError(
            f"table found but refused: {check.describe()}; check the table preset (--table) or "
            "give the corners (--corners)")
    assert first is not None
    raise first from None


_TURNED = {Cushion.HEAD: Cushion.FOOT, Cushion.FOOT: Cushion.HEAD, Cushion.RIGHT: Cushion.LEFT,
           Cushion.LEFT: Cushion.RIGHT}


def _oriented(detection: TableDetection, image: NDArray[np.uint8], head: str | None
              ) -> TableDetection:
    """The detection with its head end decided by the house line when ``head`` was not given
    (turned around when the line is seen at the default foot end only)."""
    if head is not None:
        return detection
    cal = detection.calibration
    seen = find_house_line(image, cal)
    checks = dict(cal.checks or {})
    checks["house_line_votes"] = [seen.near_votes, seen.far_votes]
    if seen.head is None:
        return replace(detection, calibration=replace(cal, head_from="default", checks=checks))
    if seen.head == "near":
        return replace(detection, calibration=replace(cal, head_from="house_line",
                                                      checks=checks))
    turned = replace(cal, homography_image_to_table=turned_around(cal), head_from="house_line",
                     checks=checks)
    sides = {_TURNED[s.cushion]: replace(s, cushion=_TURNED[s.cushion])
             for s in detection.sides}
    return replace(detection, calibration=turned,
                   sides=tuple(sides[c] for c in (Cushion.HEAD, Cushion.FOOT, Cushion.RIGHT,
                                                  Cushion.LEFT)))


def _shape(detection: TableDetection) -> ShapeCheck:
    cal = detection.calibration
    return shape_check(cal.homography_image_to_table, cal.image_size, cal.table,
                       cal.rms_residual_mm)


def _checked(detection: TableDetection) -> TableDetection:
    """The detection with the plausibility evidence (calibration.plausibility) in its
    calibration's ``checks``: the pinhole consistency of the homography and the field's shape
    error in mm against what the measurement explains, and ``doubtful`` with a warning when
    the shape is beyond the soft limit or the lens model ran to the edge of its search range."""
    cal = detection.calibration
    shape = _shape(detection)
    fit = shape.fit
    checks = dict(cal.checks or {})
    warnings: list[str] = []
    if shape.doubtful:
        warnings.append(f"{shape.describe()}: check the preview")
    if checks.get("lens_at_bound"):
        warnings.append("the lens model reached the limit of its range: check the preview")
    warnings += _unsure_reading(checks, cal.rms_residual_mm)
    checks.update({"pinhole_violation": round(fit.violation, 5),
                   "pinhole_aspect": round(fit.aspect, 5), "pinhole_skew": round(fit.skew, 5),
                   "focal_px": round(fit.focal_px, 1), **shape.to_checks(),
                   "doubtful": bool(warnings), "warnings": warnings})
    return replace(detection, calibration=replace(cal, checks=checks))


def _loose_classic(detection: TableDetection) -> TableDetection:
    """A classic reading kept though its lines fit worse than ``CLASSIC_TRUSTED_MM`` (the other
    reading found no plausible table to set against it), marked doubtful: on the hard pictures
    such readings were 25-43 mm off (the rail's edge taken for the nose) and went unflagged."""
    cal = detection.calibration
    checks = dict(cal.checks or {})
    if cal.rms_residual_mm <= CLASSIC_TRUSTED_MM or checks.get("doubtful"):
        return detection
    warning = (f"the cushion lines fit loosely (RMS {cal.rms_residual_mm:.1f} mm, over "
               f"{CLASSIC_TRUSTED_MM:g} mm) and the second reading of the picture did not "
               "confirm them: check the preview")
    checks.update(doubtful=True, warnings=[*checks.get("warnings", []), warning])
    return replace(detection, calibration=replace(cal, checks=checks))


def _loose_readings(read: Callable[[bool, float], TableDetection]) -> list[TableDetection]:
    """Both readings of the picture (``read(invariant, max_mm)``) however poorly their lines
    fit, for a first outline to look for the sights by."""
    found = []
    for invariant in (False, True):
        with contextlib.suppress(CalibrationError):
            found.append(_checked(read(invariant, math.inf)))
    return found


@dataclass(frozen=True)
class _SightsLook:
    """A detection made again from the rails' sights seen in ``image`` (see
    :mod:`calibration.sights`; ``params`` None: not looked for), when they fit within
    ``max_residual_mm``; its plausibility checked again."""

    image: NDArray[np.uint8]
    nose_height_mm: float
    camera_height_mm: float
    max_residual_mm: float
    params: SightParams | None

    def __call__(self, detection: TableDetection) -> TableDetection:
        """A reading kept: from the sights, or as it was."""
        return self._from_sights(detection) or detection

    def rescue(self, detection: TableDetection) -> TableDetection | None:
        """A reading refused or fitting loosely: from the sights, looked for where it puts them
        or else from its outline with no lens; None when neither holds."""
        return self._from_sights(detection) or self._from_sights(detection, lens_free=True)

    def _from_sights(self, detection: TableDetection, *, lens_free: bool = False
                     ) -> TableDetection | None:
        """The detection from the sights when they fit and its shape is not refused; else
        None. ``lens_free``: the sights looked for from the reading's outline (its four corners
        as seen) with no lens: a loose reading's lens, often at the end of its range, bends the
        windows away from the sights, and the sights' fit finds the lens itself."""
        if self.params is None:
            return None
        start = detection.calibration
        if lens_free:
            outline = homography_from_corners(
                start.corners_px(), [start.table.pocket_xy(p) for p in CORNER_POCKETS])
            start = replace(start, homography_image_to_table=outline,
                            distortion=None if start.camera_matrix is None else np.zeros(5))
        refined = refined_by_sights(self.image, start, self.nose_height_mm,
                                    self.camera_height_mm, self.params)
        if refined is None or not refined[1].rms_mm <= self.max_residual_mm:
            return None
        found = _checked(replace(detection, calibration=refined[0], sights=refined[1].sights))
        return None if _shape(found).refused else found


def _unsure_reading(checks: Mapping[str, object], rms_mm: float) -> list[str]:
    """Warnings for an illumination-invariant reading whose field rests on less than the
    noses seen: its lines fit within the refusal threshold, yet on the hard pictures such
    readings were 4-100 mm off (the rail edges' outline moved by the lens fit, another edge
    taken for a nose), so they are marked doubtful rather than trusted silently; and for a
    reading from the rails' sights that fit looser than ``SightParams.doubtful_rms_mm``."""
    if checks.get("reading") == "sights":
        rms, limit = checks.get("sights_rms_mm"), checks.get("sights_doubtful_mm")
        if (isinstance(rms, (int, float)) and isinstance(limit, (int, float))
                and rms > limit):
            return [f"the rails' sights fit loosely (RMS {rms:.1f} mm, over {limit:g} mm): "
                    "check the preview"]
        return []
    if checks.get("reading") != "invariant":
        return []
    if checks.get("cushion_width_from") == "prior":
        return [f"the cushion noses were not seen as one width all round: the field is the rail "
                f"edges less the usual {CUSHION_PRIOR.width_mm:g} mm cushion; check the preview"]
    if checks.get("cushion_width_from") == "none":
        return ["the rails' edges were not seen all round: the field rests on the noses alone, "
                "which may be another edge; check the preview"]
    if rms_mm > LOOSE_FIT_MM:
        return [f"the cushion lines fit loosely (RMS {rms_mm:.1f} mm, over {LOOSE_FIT_MM:g} mm): "
                "check the preview"]
    return []


def _detect(img: NDArray[np.uint8], lab: NDArray[np.float32], table: TableSpec,
            head: str | None, max_residual_mm: float, frame: int, estimate_distortion: bool,
            seed: int, nose_height_mm: float, camera_height_mm: float, *,
            invariant: bool) -> TableDetection:
    """One reading of the picture (see :func:`detect_table`). ``invariant``: the cloth model in
    brightness-independent chromaticity (:class:`calibration.cloth.ClothFeatures`), the nose as
    the darkening step into its shadow, and the table's outline from the rail edges (the
    cushions' outer edges: colour edges that shading and compression barely move) with one
    cushion width all round set by the noses (:func:`_from_rail_edges`); the lens as k1 and k2
    from the nose and rail-edge lines."""
    h, w = img.shape[:2]
    size = (w, h)
    rng = np.random.default_rng(seed)
    region = find_cloth(img, lab, invariant=invariant)
    if region.area_fraction < MIN_AREA_FRACTION:
        raise CalibrationError(
            f"no table found: the largest cloth-coloured region covers "
            f"{region.area_fraction:.0%} of the frame (expected > {MIN_AREA_FRACTION:.0%})")
    if region.border_fraction > MAX_BORDER_FRACTION:
        raise CalibrationError(
            f"no table found: the cloth-coloured region runs along the frame edge for "
            f"{region.border_fraction:.0%} of its outline (expected the table and its rails fully "
            f"in view, <= {MAX_BORDER_FRACTION:.0%})")
    coarse, corners = _coarse_quad(region.contour, size, rng)
    chroma = region.features.chroma if invariant else np.ascontiguousarray(lab[..., 1:])
    sides_px, widths, rails_px, contrasts = _edge_points(
        lab, chroma, region.mask, coarse, corners, size, invariant)

    k = guess_camera_matrix(size)
    lens = np.zeros(2)
    if estimate_distortion and invariant:
        # the rail edges are straight lines too: more of them, and sharper, pin the lens down
        lens, _ = _estimate_distortion(sides_px + [r for r in rails_px if r is not None], k, rng)
    elif estimate_distortion:
        lens[0] = estimate_k1(sides_px, k, rng)
    dist = np.array([lens[0], lens[1], 0.0, 0.0, 0.0])
    lines: list[Line] = []
    inliers: list[BoolArray] = []
    for pts in sides_px:
        u = undistort_points(pts, k, dist) if estimate_distortion else pts
        line, _inl = robust_line(u, max(1.5, 0.002 * w), rng, min_scale=0.3)
        if line is None:
            raise CalibrationError("no table found: a cushion line could not be fitted")
        line, wts = irls_line(u, line, min_scale=0.3)
        lines.append(line)
        inliers.append(wts > 0)
    index = _assign_cushions(lines, head)
    corners_und = corners_from_lines({c: lines[i] for c, i in index.items()})
    h_nose = homography_from_corners(corners_und, [table.pocket_xy(p) for p in CORNER_POCKETS])
    # with the rail edges (the invariant reading): the outline is the rail edges, the noses
    # only give the cushion width; checked against the width that makes the outline's aspect
    # one a pinhole camera can see (calibration.plausibility), which wins where the noses'
    # width disagrees with it and makes an outline no camera could see (a nose too faint to
    # see, and another edge taken for it). The aspect's width alone is less precise (the lens
    # and the focal length trade off against it), so a plausible nose width is kept.
    rails: tuple[FloatArray, dict[Cushion, BoolArray]] | None = None
    if invariant and all(r is not None for r in rails_px):
        rails_und = [undistort_points(r, k, dist) if estimate_distortion else r
                     for r in rails_px if r is not None]
        rails = _rail_outline(rails_und, index, rng, max(1.5, 0.002 * w))
    cushion_mm = 0.0
    width_from = "none"
    agree: list[Cushion] = list(index)
    if rails is not None:
        noses_und = [undistort_points(p[m], k, dist) if estimate_distortion else p[m]
                     for p, m in zip(sides_px, inliers, strict=True)]
        from_noses = _from_rail_edges(rails[0], noses_und, contrasts, index, table)
        aspect_mm, aspect_v = aspect_width_mm(rails[0], table, size)
        aspect_ok = aspect_v <= ASPECT_TRUSTED and \
            MIN_CUSHION_MM <= aspect_mm <= 0.1 * table.width_mm - 1
        noses_ok = from_noses is not None and pinhole_consistency(
            from_noses[0], size).violation <= NOSE_WIDTH_TRUSTED
        # (a width no cushion has: another edge was taken for the noses all round)
        implausible = from_noses is not None and not CUSHION_PRIOR.plausible(from_noses[1])
        if from_noses is not None and not implausible and (
                noses_ok or not aspect_ok
                or abs(from_noses[1] - aspect_mm) <= WIDTH_TOLERANCE_MM):
            h_nose, cushion_mm, agree = from_noses
            width_from = "noses"
        elif aspect_ok or implausible:
            # the noses not seen as one width all round: the outline's aspect only tells that
            # the rail edges are a table's, its width trades off against the lens and the focal
            # length (4-20 mm off on dim, compressed pictures), so the cushion's usual width is
            # taken and the calibration marked doubtful (:func:`_checked`)
            h_nose, cushion_mm, agree = outline_homography(
                rails[0], table, CUSHION_PRIOR.width_mm), CUSHION_PRIOR.width_mm, []
            width_from = "prior"
        else:
            rails = None
    nose_cal = Calibration(image_size=size, table=table, homography_image_to_table=h_nose,
                           camera_matrix=k if estimate_distortion else None,
                           distortion=dist if estimate_distortion else None,
                           rms_residual_mm=0.0, source="auto", frame=frame)
    # the residual, on the nose plane: the nose points to their lines, and with the rail edges
    # those to the outline widened by the cushion (a nose left out of the width, left out here)
    kept = {c: sides_px[i][inliers[i]] for c, i in index.items() if rails is None or c in agree}
    res = residuals_mm(nose_cal, kept)
    if rails is not None:
        rail_kept = rails[1]
        rail_pts = {c: r[rail_kept[c]] for c, i in index.items()
                    if (r := rails_px[i]) is not None}
        res = np.concatenate([res, residuals_mm(nose_cal, rail_pts, cushion_mm)])
    rms = float(np.sqrt(np.mean(res * res))) if len(res) else float("inf")
    if not rms <= max_residual_mm:
        raise CalibrationError(
            f"cushion lines fit poorly: RMS residual {rms:.1f} mm (expected <= "
            f"{max_residual_mm:g} mm); check that the whole table and its rails are in view")
    hmat = lift_homography(h_nose, k, nose_height_mm, camera_height_mm)
    lens_at_bound = bool(estimate_distortion and (
        np.any(np.abs(lens) >= 0.99 * np.array([MAX_K1, MAX_K2])) if invariant
        else abs(lens[0]) >= 0.99 * CLASSIC_MAX_K1))
    checks = {"reading": "invariant" if invariant else "classic",
              "cushion_width_mm": round(cushion_mm, 2) if rails is not None else None,
              "cushion_width_from": width_from if rails is not None else "none",
              "lens_at_bound": lens_at_bound}
    cal = Calibration(image_size=size, table=table, homography_image_to_table=hmat,
                      camera_matrix=nose_cal.camera_matrix, distortion=nose_cal.distortion,
                      rms_residual_mm=rms, source="auto", frame=frame,
                      head_from="default" if head is None else "user", checks=checks)
    sides = tuple(
        SideFit(cushion=c, points_px=sides_px[index[c]], inliers=inliers[index[c]],
                line=lines[index[c]], cushion_width_px=widths[index[c]])
        for c in (Cushion.HEAD, Cushion.FOOT, Cushion.RIGHT, Cushion.LEFT))
    return TableDetection(calibration=cal, sides=sides, cloth=region.model,
                          cloth_mask=region.mask)


def find_table(image: NDArray[np.uint8] | Sequence[NDArray[np.uint8]],
               table: TableSpec | None = None, *, head: str | None = None,
               max_residual_mm: float = MAX_RESIDUAL_MM, frame: int = 0,
               estimate_distortion: bool = True, nose_height_mm: float | None = None,
               camera_height_mm: float = CAMERA_HEIGHT_MM) -> Calibration:
    """The calibration of :func:`detect_table` (image -> table mm, lens, RMS residual)."""
    return detect_table(image, table, head=head, max_residual_mm=max_residual_mm, frame=frame,
                        estimate_distortion=estimate_distortion, nose_height_mm=nose_height_mm,
                        camera_height_mm=camera_height_mm).calibration
