"""Cushion-nose edge points along a cushion: edge search on profiles across the cushion.

Seen from above, a cushion is a band of cloth between the wooden rail and the nose; the nose is the
inner edge of that band, where the flat, lit cushion top ends and the bed, in the shadow of the
overhanging nose, begins: going inward across the nose the picture gets *darker*. Further in, the
bed brightens again as the shadow fades -- often a stronger edge than the nose itself when the
picture is dim or compressed -- so the nose is searched as the strongest darkening step inward of
the rail, not as the first or strongest colour edge. Along each cushion we take short profiles
across it and find that step to sub-pixel precision. Everything is in raw image pixels.
"""

from __future__ import annotations

from typing import NamedTuple

import cv2
import numpy as np
from numpy.typing import NDArray
from scipy.ndimage import uniform_filter1d

FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]

STEP_PX = 0.5  # profile sampling step
ALONG_PX = 8.0  # the nose position is read from profiles averaged over this length of cushion
CENTROID_PX = 1.5  # ... as the centroid of the darkening within this distance of its peak
RAIL_CONTRAST = 4.0  # Lab chroma units: below this the rail is not told from the cloth by colour


def sample_profiles(image: NDArray[np.float32], origins: FloatArray, normals: FloatArray,
                    ts: FloatArray, interpolation: int = cv2.INTER_LINEAR) -> NDArray[np.float32]:
    """Values of ``image`` at ``origins[i] + ts[j] * normals[i]``: shape (N, T[, C])."""
    mx = (origins[:, 0, None] + normals[:, 0, None] * ts[None, :]).astype(np.float32)
    my = (origins[:, 1, None] + normals[:, 1, None] * ts[None, :]).astype(np.float32)
    out = cv2.remap(image, mx, my, interpolation, borderMode=cv2.BORDER_REPLICATE)
    return np.asarray(out, dtype=np.float32)


CHROMA_WEIGHT = 0.5  # video chroma is subsampled (4:2:0), its edges blocky: trust lightness


def colour_gradient(profiles: NDArray[np.float32], half_px: float = 1.0,
                    chroma_weight: float = CHROMA_WEIGHT) -> FloatArray:
    """|d Lab / dt| along each profile (Lab units per pixel, a* and b* scaled by
    ``chroma_weight``), same shape as the profile axis; the ends are zero."""
    k = max(1, round(half_px / STEP_PX))
    p = profiles.astype(np.float64) * np.array([1.0, chroma_weight, chroma_weight])
    g = np.zeros(p.shape[:2])
    diff = p[:, 2 * k:] - p[:, :-2 * k]
    g[:, k:-k] = np.sqrt(np.sum(diff * diff, axis=-1)) / (2 * k * STEP_PX)
    return g


def darkening(profiles: NDArray[np.float32], half_px: float = 1.0) -> FloatArray:
    """-dL/dt along each profile (Lab lightness units per pixel; positive where the picture gets
    darker with t), same shape as the profile axis; the ends are zero."""
    k = max(1, round(half_px / STEP_PX))
    light = profiles[..., 0].astype(np.float64)
    g = np.zeros(light.shape)
    g[:, k:-k] = (light[:, :-2 * k] - light[:, 2 * k:]) / (2 * k * STEP_PX)
    return g


def subpixel_peak(g: FloatArray, idx: NDArray[np.int64]) -> FloatArray:
    """Parabolic interpolation of the peak of each row ``g[i]`` around index ``idx[i]``."""
    rows = np.arange(len(g))
    i = np.clip(idx, 1, g.shape[1] - 2)
    a, b, c = g[rows, i - 1], g[rows, i], g[rows, i + 1]
    den = a - 2 * b + c
    off = np.where(np.abs(den) > 1e-12, 0.5 * (a - c) / np.where(den == 0, 1, den), 0.0)
    return np.asarray(i + np.clip(off, -0.5, 0.5), dtype=np.float64)


def first_prominent_peak(curve: FloatArray, start: int, rel: float = 0.35,
                         noise_factor: float = 3.0) -> int | None:
    """Index of the first local maximum at or after ``start`` that is at least ``rel`` of the
    largest one after ``start`` and ``noise_factor`` times the median level; None if none."""
    c = np.nan_to_num(curve, nan=0.0)
    if start + 2 >= len(c):
        return None
    tail = c[start:]
    top = float(tail.max())
    level = max(rel * top, noise_factor * float(np.median(tail)))
    if top <= 0:
        return None
    for i in range(max(start, 1), len(c) - 1):
        if c[i] >= level and c[i] >= c[i - 1] and c[i] > c[i + 1]:
            return i
    return None


def strongest_peak(curve: FloatArray, start: int, stop: int,
                   noise_factor: float = 3.0) -> int | None:
    """Index of the largest local maximum in ``curve[start:stop]`` (positive, and at least
    ``noise_factor`` times the median absolute level there); None if none."""
    c = np.nan_to_num(curve, nan=0.0)
    lo, hi = max(start, 1), min(stop, len(c) - 1)
    if hi - lo < 2:
        return None
    seg = c[lo:hi]
    local = (seg >= c[lo - 1:hi - 1]) & (seg > c[lo + 1:hi + 1]) & (seg > 0)
    if not local.any():
        return None
    i = int(np.argmax(np.where(local, seg, -np.inf)))
    if seg[i] < noise_factor * float(np.median(np.abs(seg))):
        return None
    return lo + i


class CushionEdges(NamedTuple):
    """What one cushion's profiles show: nose points and rail-edge points ((N, 2) px, NaN where
    none was found), the cushion width seen (px) and the nose's contrast (the median darkening
    across it, Lab L units per px). The rail's edge is read two ways (see
    :func:`nose_points_from_boundary`): ``rail`` where the chromaticity is half way to the
    rail's, ``rail_steepest`` where the colour changes fastest; ``rail_scatter`` and
    ``steepest_scatter``: how far each reading's points wander about a smooth line (px, see
    :func:`wander_px`)."""

    nose: FloatArray
    rail: FloatArray
    width_px: float
    contrast: float
    rail_steepest: FloatArray | None = None
    rail_scatter: float = float("inf")
    steepest_scatter: float = float("inf")


def nose_points_from_boundary(lab: NDArray[np.float32], chroma: NDArray[np.float32],
                              mask: BoolArray, origins: FloatArray, normals: FloatArray,
                              outside_px: float, band_px: float, min_offset_px: float = 3.0,
                              spacing_px: float = 2.0, invariant: bool = False) -> CushionEdges:
    """Nose points along one cushion, found from the cloth region's outer boundary.

    ``lab`` is the frame in Lab and ``chroma`` the chromaticity the rail is told by (Lab a*, b*,
    or the brightness-independent one of :class:`calibration.cloth.ClothFeatures`). ``origins``
    lie within ``outside_px`` of the cloth boundary, ``spacing_px`` apart in order along the
    cushion, ``normals`` point into the table, and the cushion is at most ``band_px`` wide. All
    profiles are aligned on the boundary and their median read: the rail is where the colour is
    far from the bed's (more than half the way to the rail's colour) -- the cushion top may or
    may not have passed as cloth -- and the nose is the first clear colour edge at least
    ``min_offset_px`` inward of the rail. Each profile then places that edge to sub-pixel
    precision near the median's position.

    ``invariant`` (for dim, strongly shaded, compressed pictures): the nose is the strongest
    *darkening* step (lightness falling inward, from the lit cushion top into the nose's shadow;
    the shadow's fading further in is often the stronger edge there), each profile's position
    the centroid of that step on profiles averaged along the cushion, and the rail's inner edge
    (the cushion's outer edge, a colour edge shading and compression barely move) is found on
    every profile too, two ways: where the chromaticity is half way from the bed's to the
    rail's, and where the colour (lightness and chroma) changes fastest. Each is right on some
    pictures and wanders on others (the half-way point with a rail whose colour comes
    gradually, read 5-25 mm out; the fastest change with a grainy wood); the caller chooses,
    for all four cushions at once (see ``calibration.detect``).
    """
    n = len(origins)
    if n == 0:
        return CushionEdges(np.zeros((0, 2)), np.zeros((0, 2)), 0.0, 0.0)
    reach = outside_px + band_px
    ts = np.arange(-reach, reach + STEP_PX, STEP_PX)
    m = sample_profiles(mask.astype(np.uint8), origins, normals, ts, cv2.INTER_NEAREST) > 0
    prof = sample_profiles(lab, origins, normals, ts)
    chroma_prof = sample_profiles(chroma, origins, normals, ts)
    g = darkening(prof) if invariant else colour_gradient(prof)
    run = max(2, round(3 / STEP_PX))
    # the boundary: first index after which the profile stays on the cloth for `run` samples
    win = np.lib.stride_tricks.sliding_window_view(m, run, axis=1).all(axis=2)
    has = np.any(win, axis=1) & ~m[:, 0]
    t0 = np.where(has, np.argmax(win, axis=1), -1)
    out = np.full((n, 2), np.nan)
    if not has.any():
        return CushionEdges(out, out.copy(), 0.0, 0.0)
    b = round(band_px / STEP_PX)
    rows = np.flatnonzero(has)
    idx = t0[rows, None] + np.arange(-b, b + 1)[None, :]
    inside = (idx >= 0) & (idx < len(ts))
    idx_c = np.clip(idx, 0, len(ts) - 1)
    al_g = np.where(inside, g[rows[:, None], idx_c], np.nan)
    al_ab = np.where(inside[..., None], chroma_prof[rows[:, None], idx_c].astype(np.float64),
                     np.nan)
    med_g = np.nanmedian(al_g, axis=0)
    med_ab = np.nanmedian(al_ab, axis=0)
    bed = np.nanmedian(med_ab[b + (3 * b) // 4:], axis=0)
    dist = np.hypot(*(med_ab - bed).T)
    rail = b  # index of the rail's inner edge in the aligned window (b = the boundary)
    d_out = float(np.nanmax(dist[: b + 1]))
    rail_seen = bool(np.isfinite(d_out) and d_out > RAIL_CONTRAST)
    if rail_seen:
        for k in range(min(b + round(2 / STEP_PX), len(dist) - 1), -1, -1):
            if dist[k] > d_out / 2:
                rail = k + 1
                break
    start = rail + round(min_offset_px / STEP_PX)
    peak = strongest_peak(med_g, start, min(len(med_g) - 1, rail + b)) if invariant else None
    if peak is None:
        # no darkening step across this cushion (lit from the side, the strip under the nose
        # can be the brighter one): the first clear colour edge inward of the rail instead
        g = colour_gradient(prof)
        al_g = np.where(inside, g[rows[:, None], idx_c], np.nan)
        med_g = np.nanmedian(al_g, axis=0)
        peak = first_prominent_peak(med_g, start)
    if peak is None:
        peak, half, width = rail, round(2 / STEP_PX), 0.0
    else:
        half = max(round(2.5 / STEP_PX), round(0.25 * (peak - rail)))
        width = (peak - rail) * STEP_PX
    ref = float(med_g[peak]) if np.isfinite(med_g[peak]) else 0.0
    centre = t0 + (peak - b)
    lo = np.clip(centre - half, 1, len(ts) - 2)
    hi = np.clip(centre + half + 1, 2, len(ts) - 1)
    if invariant:
        pos, ok = _centroids(g, rows, has, lo, hi, ref, max(1, round(ALONG_PX / spacing_px)))
    else:
        best = np.zeros(n, np.int64)
        ok = has.copy()
        for i in rows:
            seg = g[i, lo[i]: hi[i]]
            if _edge_peak(seg, ref) is None:
                ok[i] = False
            if len(seg) >= 3:
                best[i] = lo[i] + int(np.argmax(seg))
        pos = subpixel_peak(g, best)
    t = ts[0] + pos * STEP_PX
    pts = origins + normals * t[:, None]
    out[ok] = pts[ok]
    rail_out = np.full((n, 2), np.nan)
    if rail_seen and invariant:
        # the edge itself is placed on the picture's colour (lightness and chroma), where it
        # changes fastest: the chromaticity alone changes gradually across some rails
        cg = colour_gradient(prof)
        med_cg = np.nanmedian(np.where(inside, cg[rows[:, None], idx_c], np.nan), axis=0)
        # (only where the chromaticity is on its way from the bed's to the rail's: not the
        # lightness steps of the nose and its shadow further in)
        inner = rail
        while inner + 1 < len(dist) and dist[inner + 1] >= 0.2 * d_out:
            inner += 1
        edge = _steepest(med_cg, rail, inner + round(1 / STEP_PX))
        along = max(1, round(ALONG_PX / spacing_px))
        steepest = _rail_points(cg, t0 + (edge - b), has, origins, normals, ts, along)
        rail_out = _rail_crossings(chroma_prof, bed, d_out / 2, t0 + (rail - b), has, origins,
                                   normals, ts, along)
        return CushionEdges(nose=out, rail=rail_out, width_px=width, contrast=ref,
                            rail_steepest=steepest,
                            rail_scatter=wander_px(rail_out, origins, normals),
                            steepest_scatter=wander_px(steepest, origins, normals))
    return CushionEdges(nose=out, rail=rail_out, width_px=width, contrast=ref)


def _edge_peak(seg: FloatArray, ref: float) -> int | None:
    """Where a profile's edge strength ``seg`` peaks, if that is a real edge: an interior
    maximum at least half as strong as the typical nose edge ``ref``."""
    if len(seg) < 3:
        return None
    j = int(np.argmax(seg))
    if j == 0 or j == len(seg) - 1 or seg[j] < 0.5 * ref:
        return None
    return j


def _centroids(g: FloatArray, rows: NDArray[np.int64], has: BoolArray, lo: NDArray[np.int64],
               hi: NDArray[np.int64], ref: float, along: int) -> tuple[FloatArray, BoolArray]:
    """Each profile's edge position (sample index): the centroid of ``g`` around its peak in
    ``[lo, hi)``, profiles averaged over ``along`` neighbours (the same stretch of nose), and
    whether a clear edge (an interior peak at least half ``ref``) was there."""
    gs = np.asarray(uniform_filter1d(g, size=along, axis=0, mode="nearest"), dtype=np.float64)
    pos = np.zeros(len(g))
    ok = has.copy()
    c = round(CENTROID_PX / STEP_PX)
    for i in rows:
        seg = gs[i, lo[i]: hi[i]]
        j = _edge_peak(seg, ref)
        if j is None:
            ok[i] = False
            continue
        a, e = max(0, lo[i] + j - c), min(g.shape[1], lo[i] + j + c + 1)
        wts = np.clip(gs[i, a:e] - 0.25 * seg[j], 0, None)
        pos[i] = float(np.sum(wts * np.arange(a, e)) / max(float(wts.sum()), 1e-12))
    return pos, ok


def _steepest(change: FloatArray, half: int, inner: int) -> int:
    """The rail's inner edge on the aligned median profile of the colour's rate of ``change``:
    its peak from ``inner`` (where the chromaticity is still a fifth of the way to the rail's)
    out to two pixels beyond ``half`` (where it first passed half the rail's contrast, going
    outward). The steepest point of a blurred step is the step, whatever the colours on either
    side; the half-way crossing of the chromaticity moved out with the rail's colour further out
    (read 5-25 mm out on the fresh looks)."""
    c = np.nan_to_num(change)
    lo = max(1, half - round(2 / STEP_PX))
    hi = min(len(c) - 2, inner)
    if hi <= lo:
        return half
    return lo + int(np.argmax(c[lo:hi + 1]))


def _rail_points(change: FloatArray, centre: NDArray[np.int64], has: BoolArray,
                 origins: FloatArray, normals: FloatArray, ts: FloatArray, along: int
                 ) -> FloatArray:
    """Each profile's rail edge: the peak of the colour's rate of ``change`` (profiles
    averaged over ``along`` neighbours, to sub-pixel precision), within 3 px of ``centre``
    (the median profile's, see :func:`_steepest`); none where the peak is the window's edge."""
    g = np.asarray(uniform_filter1d(change, size=along, axis=0, mode="nearest"), np.float64)
    out = np.full((len(g), 2), np.nan)
    w = round(3 / STEP_PX)
    for i in np.flatnonzero(has):
        hi = min(int(centre[i]) + w, g.shape[1] - 2)
        lo = max(int(centre[i]) - w, 1)
        if hi - lo < 2:
            continue
        j = lo + int(np.argmax(g[i, lo:hi + 1]))
        if g[i, j] <= 0 or j in (lo, hi):
            continue  # (no step there: the steepest point is the window's edge)
        t = ts[0] + float(subpixel_peak(g[i:i + 1], np.array([j]))[0]) * STEP_PX
        out[i] = origins[i] + normals[i] * t
    return out


def _rail_crossings(chroma_prof: NDArray[np.float32], bed: FloatArray, level: float,
                    centre: NDArray[np.int64], has: BoolArray, origins: FloatArray,
                    normals: FloatArray, ts: FloatArray, along: int) -> FloatArray:
    """Where each profile's chromaticity, going outward, first gets further than ``level`` from
    the bed's (the rail's inner edge, linearly interpolated), within 3 px of ``centre``."""
    d = np.hypot(*(chroma_prof.astype(np.float64) - bed).transpose(2, 0, 1))
    d = np.asarray(uniform_filter1d(d, size=along, axis=0, mode="nearest"), dtype=np.float64)
    out = np.full((len(d), 2), np.nan)
    w = round(3 / STEP_PX)
    for i in np.flatnonzero(has):
        hi = min(int(centre[i]) + w, d.shape[1] - 1)
        lo = max(int(centre[i]) - w, 0)
        if hi - lo < 2 or d[i, hi] > level:
            continue
        for k in range(hi - 1, lo - 1, -1):
            if d[i, k] > level:  # the crossing lies between k and k + 1
                f = (d[i, k] - level) / max(d[i, k] - d[i, k + 1], 1e-12)
                t = ts[0] + (k + f) * STEP_PX
                out[i] = origins[i] + normals[i] * t
                break
    return out


def wander_px(points: FloatArray, origins: FloatArray, normals: FloatArray) -> float:
    """How far edge points (NaN where none) wander across the cushion (px): the robust spread
    of their offsets along ``normals`` about a quadratic in their place along it (the lens
    bends a straight edge a little); inf with too few points."""
    ok = np.all(np.isfinite(points), axis=1)
    if np.count_nonzero(ok) < max(10, len(points) // 4):
        return float("inf")
    t = np.sum((points[ok] - origins[ok]) * normals[ok], axis=1)
    u = np.arange(len(points), dtype=np.float64)[ok]
    residuals = t - np.polyval(np.polyfit(u, t, 2), u)
    return float(np.median(np.abs(residuals - np.median(residuals))))


def profile_shifts(lab_ref: NDArray[np.float32], lab_new: NDArray[np.float32],
                   origins: FloatArray, normals: FloatArray, search_px: float,
                   half_window_px: float = 8.0) -> tuple[FloatArray, FloatArray]:
    """How far (px, along ``normals``) the picture across each point moved from ``lab_ref`` to
    ``lab_new``: the shift maximising the normalised cross-correlation of the two profiles
    (Lab, chroma weighted as in :func:`colour_gradient`), to sub-pixel precision. Returns the
    shifts and the correlation scores (low where something covers the cushion in one frame)."""
    w = round(half_window_px / STEP_PX)
    s = round(search_px / STEP_PX)
    weights = np.array([1.0, CHROMA_WEIGHT, CHROMA_WEIGHT])
    t_ref = np.arange(-w, w + 1, dtype=np.float64) * STEP_PX
    t_new = np.arange(-(w + s), w + s + 1, dtype=np.float64) * STEP_PX
    ref = sample_profiles(lab_ref, origins, normals, t_ref).astype(np.float64) * weights
    new = sample_profiles(lab_new, origins, normals, t_new).astype(np.float64) * weights
    ref -= ref.mean(axis=1, keepdims=True)
    ref_norm = np.sqrt(np.sum(ref * ref, axis=(1, 2)))
    windows = np.lib.stride_tricks.sliding_window_view(new, 2 * w + 1, axis=1)  # (n, 2s+1, 3, T)
    windows = np.moveaxis(windows, -1, 2)  # (n, 2s+1, T, 3)
    centred = windows - windows.mean(axis=2, keepdims=True)
    num = np.einsum("ntc,nktc->nk", ref, centred)
    den = ref_norm[:, None] * np.sqrt(np.sum(centred * centred, axis=(2, 3)))
    ncc = num / np.maximum(den, 1e-9)
    k = np.argmax(ncc, axis=1)
    score = ncc[np.arange(len(k)), k]
    shift = (subpixel_peak(ncc, k) - s) * STEP_PX
    edge = (k == 0) | (k == ncc.shape[1] - 1)
    score = np.where(edge, 0.0, score)
    return shift, score
