"""Find the table in a frame: cloth region -> cushion-nose lines -> lens k1 -> homography.

Orientation (RULES.md §1 table frame): the table's long axis becomes x, from the head cushion to
the foot cushion. Which short cushion is the head cannot be seen reliably, so by default the head
is the short cushion at the **left** of the image when the long sides run across the image, and
the one at the **top** when they run down it; ``head="left"|"right"|"top"|"bottom"`` overrides
it. y = 0 is then the right cushion as seen from the head looking to the foot (for the default
left head: the bottom long cushion of the image).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import minimize_scalar

from calibration.cloth import ClothModel, find_cloth, to_lab
from calibration.edges import nose_points_from_boundary
from calibration.errors import CalibrationError
from calibration.lines import Line, fit_line, irls_line, ransac_line, robust_line
from calibration.model import (
    CORNER_POCKETS,
    Calibration,
    guess_camera_matrix,
    homography_from_corners,
    undistort_points,
)
from rules.table import Cushion, TableSpec

FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]
Head = Literal["left", "right", "top", "bottom"]
HEADS: tuple[str, ...] = ("left", "right", "top", "bottom")

MIN_AREA_FRACTION = 0.20  # the cloth must cover at least this share of the frame
MAX_BORDER_FRACTION = 0.05  # ... and lie inside it (rails in view)
MAX_RESIDUAL_MM = 10.0  # default refusal threshold for the cushion-line fit
MAX_K1 = 0.6  # |k1| search range (normalised by a focal length of one image width)
MIN_SIDE_COVERAGE = 0.25  # share of a cushion's samples that must give a nose point
CUSHION_BAND = 0.10  # search for the nose up to this share of the table's short side inward
POCKET_MARGIN = 0.10  # skip this share of the short side around every pocket


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


def _edge_points(lab: NDArray[np.float32], mask: BoolArray, lines: list[Line],
                 corners: FloatArray, image_size: tuple[int, int]
                 ) -> tuple[list[FloatArray], list[float]]:
    """Nose points for each coarse side (NaN rows removed) and each side's cushion width."""
    lengths = [float(np.hypot(*(corners[i] - corners[i - 1]))) for i in range(4)]
    # side i runs from corner i-1 to corner i
    pair0 = (lengths[0] + lengths[2]) / 2
    pair1 = (lengths[1] + lengths[3]) / 2
    short_px = min(pair0, pair1)
    long_is_0 = pair0 >= pair1
    outside = max(4.0, 0.02 * float(np.hypot(*image_size)))
    band = CUSHION_BAND * short_px
    points, widths = [], []
    for i, line in enumerate(lines):
        origins, normals = _side_samples(corners[i - 1], corners[i], np.asarray(line.normal),
                                         short_px, long_side=(i % 2 == 0) == long_is_0)
        pts, width = nose_points_from_boundary(lab, mask, origins, normals, outside, band)
        pts = pts[np.all(np.isfinite(pts), axis=1)]
        coverage = len(pts) / max(len(origins), 1)
        if coverage < MIN_SIDE_COVERAGE or len(pts) < 10:
            raise CalibrationError(
                f"no table found: a cushion nose was seen along {coverage:.0%} of one side "
                f"(expected > {MIN_SIDE_COVERAGE:.0%})")
        points.append(pts)
        widths.append(width)
    return points, widths


# --- lens distortion ---------------------------------------------------------------------------
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
                rng: np.random.Generator) -> tuple[float, list[BoolArray]]:
    """k1 that makes the four cushion lines straightest, and each side's inliers at that k1.

    Two rounds: inliers chosen with a tolerance loose enough for a bent line, k1 fitted on them;
    then inliers re-chosen tightly on the undistorted points and k1 refitted."""
    k1 = 0.0
    inliers = [np.ones(len(p), bool) for p in sides]
    for tol, floor in ((0.01, 1.0), (0.002, 0.3)):
        dist = np.array([k1, 0.0, 0.0, 0.0, 0.0])
        inliers = []
        for pts in sides:
            u = undistort_points(pts, camera_matrix, dist)
            width = float(camera_matrix[0, 2] * 2 + 1)
            _, inl = robust_line(u, max(1.5, tol * width), rng, min_scale=floor)
            inliers.append(inl)
        kept = [p[m] for p, m in zip(sides, inliers, strict=True)]
        res = minimize_scalar(_straightness, bounds=(-MAX_K1, MAX_K1), method="bounded",
                              args=(kept, camera_matrix), options={"xatol": 1e-5})
        k1 = float(res.x)
    return k1, inliers


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


def residuals_mm(calibration: Calibration, points_px: dict[Cushion, FloatArray]) -> FloatArray:
    """Distances (mm) of raw-pixel cushion points to their ideal cushion line x=0, x=L, y=0,
    y=W on the calibrated plane, all sides concatenated."""
    t = calibration.table
    out = []
    for cushion, pts in points_px.items():
        if len(pts) == 0:
            continue
        mm = calibration.image_to_table(pts)
        out.append({Cushion.HEAD: mm[:, 0], Cushion.FOOT: mm[:, 0] - t.length_mm,
                    Cushion.RIGHT: mm[:, 1], Cushion.LEFT: mm[:, 1] - t.width_mm}[cushion])
    return np.concatenate(out) if out else np.zeros(0)


# --- the whole detection -----------------------------------------------------------------------
def detect_table(image: NDArray[np.uint8] | Sequence[NDArray[np.uint8]],
                 table: TableSpec | None = None, *, head: str | None = None,
                 max_residual_mm: float = MAX_RESIDUAL_MM, frame: int = 0,
                 estimate_distortion: bool = True, seed: int = 0) -> TableDetection:
    """Find the table in a BGR frame (or the per-pixel median of several) and calibrate.

    ``head``: which image side the head cushion is at (default: left, or top for a table whose
    long sides run down the image). Raises :class:`CalibrationError` when no table is found or
    the cushion lines fit worse than ``max_residual_mm`` RMS.
    """
    table = table or TableSpec()
    if head is not None and head not in HEADS:
        raise CalibrationError(f"expected head to be one of {', '.join(HEADS)}, got {head!r}",
                               "head")
    if isinstance(image, np.ndarray) and image.ndim != 4:
        img = as_bgr_image(image)
    else:  # several frames: a list, or an (N, H, W, 3) array
        img = median_frame(list(image))
    h, w = img.shape[:2]
    size = (w, h)
    rng = np.random.default_rng(seed)
    lab = to_lab(img)
    region = find_cloth(lab)
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
    sides_px, widths = _edge_points(lab, region.mask, coarse, corners, size)

    k = guess_camera_matrix(size)
    k1 = 0.0
    if estimate_distortion:
        k1, _ = estimate_k1(sides_px, k, rng)
    dist = np.array([k1, 0.0, 0.0, 0.0, 0.0])
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
    hmat = homography_from_corners(corners_und, [table.pocket_xy(p) for p in CORNER_POCKETS])
    cal = Calibration(image_size=size, table=table, homography_image_to_table=hmat,
                      camera_matrix=k if estimate_distortion else None,
                      distortion=dist if estimate_distortion else None,
                      rms_residual_mm=0.0, source="auto", frame=frame)
    kept = {c: sides_px[i][inliers[i]] for c, i in index.items()}
    res = residuals_mm(cal, kept)
    rms = float(np.sqrt(np.mean(res * res))) if len(res) else float("inf")
    if not rms <= max_residual_mm:
        raise CalibrationError(
            f"cushion lines fit poorly: RMS residual {rms:.1f} mm (expected <= "
            f"{max_residual_mm:g} mm); check that the whole table and its rails are in view")
    cal = Calibration(image_size=size, table=table, homography_image_to_table=hmat,
                      camera_matrix=cal.camera_matrix, distortion=cal.distortion,
                      rms_residual_mm=rms, source="auto", frame=frame)
    sides = tuple(
        SideFit(cushion=c, points_px=sides_px[index[c]], inliers=inliers[index[c]],
                line=lines[index[c]], cushion_width_px=widths[index[c]])
        for c in (Cushion.HEAD, Cushion.FOOT, Cushion.RIGHT, Cushion.LEFT))
    return TableDetection(calibration=cal, sides=sides, cloth=region.model,
                          cloth_mask=region.mask)


def find_table(image: NDArray[np.uint8] | Sequence[NDArray[np.uint8]],
               table: TableSpec | None = None, *, head: str | None = None,
               max_residual_mm: float = MAX_RESIDUAL_MM, frame: int = 0,
               estimate_distortion: bool = True) -> Calibration:
    """The calibration of :func:`detect_table` (image -> table mm, lens k1, RMS residual)."""
    return detect_table(image, table, head=head, max_residual_mm=max_residual_mm, frame=frame,
                        estimate_distortion=estimate_distortion).calibration
