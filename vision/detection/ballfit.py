"""One ball's full-resolution centre, colour and shape scores, compiled (numba).

The detection finds each ball at the working resolution and then refines it in a patch of the
full-resolution frame around it (see :meth:`vision.detection.refine.Refiner.refine`).
Done with numpy, that refinement was some forty small array operations per ball, each a few
microseconds of call overhead on a patch of a few thousand pixels: the largest single cost of
tracking a rolling ball (0.3 ms a ball a frame). Here it is one compiled pass over the patch's
pixels, with the same
arithmetic: float32 where numpy worked in float32 (the chromaticity, the squared distances; a
Python float compared with a float32 array was rounded to float32 first, as numpy 2 does), float64
elsewhere, sums of whole numbers (exact in any order) where numpy summed them. The differences are
the order of the outline fit's and the dots' spread's float64 sums (numpy's dot product adds in
blocks): a few units in the last place of a centre.

``nogil``: the reader thread decodes the next frames meanwhile.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from numpy.typing import NDArray

F32 = NDArray[np.float32]
F64 = NDArray[np.float64]
Mask = NDArray[np.bool_]
Index = NDArray[np.intp]

_F1 = np.float32(1.0)
_HALF = np.float32(0.5)


@njit(cache=True, nogil=True)
def _squared_distances(xs: F64, ys: F64, px: float, py: float) -> F32:
    """(x - px)^2 + (y - py)^2 over the patch's pixel grid, summed in float64, rounded once to
    float32 (``xs``/``ys``: the patch's column and row coordinates, float64)."""
    out = np.empty((len(ys), len(xs)), np.float32)
    for i in range(len(ys)):
        ay = ys[i] - py
        ay = ay * ay
        for j in range(len(xs)):
            ax = xs[j] - px
            out[i, j] = np.float32(ax * ax + ay)
    return out


@njit(cache=True, nogil=True)
def _upper_middle(values: F32) -> float:
    """The median of a 1-D array, the upper middle for an even count (as detect._middle_colour
    per channel)."""
    k = len(values) // 2
    return float(np.partition(values, k)[k])


@njit(cache=True, nogil=True)
def _fit_outline(region: Mask, cx: float, cy: float, r: float, ix0: int,
                 iy0: int) -> tuple[float, float]:
    """The centre of a circle of radius ``r`` through the region's outline (its pixels with a
    neighbour outside it, 8-connected; the patch's border counts as inside), ignoring outline
    points more than a quarter radius off the circle: the ball's shaded side cut off by the
    threshold, a cue or a neighbour touching it. Outline pixels' outer edges are half a pixel
    further out than their centres."""
    h, w = region.shape
    n_edge = 0
    ex = np.empty(h * w, np.float64)
    ey = np.empty(h * w, np.float64)
    for i in range(h):
        for j in range(w):
            if not region[i, j]:
                continue
            inside = True
            for di in range(-1, 2):
                ii = i + di
                if ii < 0 or ii >= h:
                    continue
                for dj in range(-1, 2):
                    jj = j + dj
                    if 0 <= jj < w and not region[ii, jj]:
                        inside = False
            if not inside:
                ex[n_edge] = j + ix0
                ey[n_edge] = i + iy0
                n_edge += 1
    if n_edge < 8:
        return cx, cy
    near = 0.25 * r
    for _ in range(6):
        n = 0
        sx = 0.0
        sy = 0.0
        for k in range(n_edge):
            vx = ex[k] - cx
            vy = ey[k] - cy
            d = math.sqrt(vx * vx + vy * vy)
            e = d + 0.5
            e -= r
            if abs(e) < near and d > 1e-6:
                n += 1
                q = e / d
                sx += q * vx
                sy += q * vy
        if n < 8:
            return cx, cy
        sx /= n
        sy /= n
        cx, cy = cx + sx, cy + sy
        if math.hypot(sx, sy) < 0.01:
            break
    return cx, cy


@njit(cache=True, nogil=True)
def _foreground_in(patch: NDArray[np.uint8], cloth: F32, rows: Index, cols: Index,
                   i0: int, i1: int, j0: int, j1: int, fp: F32, si: F32,
                   ratio: F32, done: Mask) -> None:
    """The foreground of the patch's pixels in rows i0..i1, columns j0..j1 not made yet: ``fp``
    the chromaticity distance (L1) from the cloth plus half the relative brightening, ``si`` the
    brightness sum B + G + R + 3, ``ratio`` the half brightening (see detect._chroma_distance:
    the same float32 steps in the same order)."""
    for i in range(max(0, i0), min(fp.shape[0], i1)):
        wi = rows[i]
        for j in range(max(0, j0), min(fp.shape[1], j1)):
            if done[i, j]:
                continue
            done[i, j] = True
            wj = cols[j]
            bp = np.float32(patch[i, j, 0]) + _F1
            gp = np.float32(patch[i, j, 1]) + _F1
            rp = np.float32(patch[i, j, 2]) + _F1
            s = bp + gp
            s = s + rp
            inv = _F1 / s
            d = abs(bp * inv - cloth[wi, wj, 0])
            d = d + abs(gp * inv - cloth[wi, wj, 1])
            d = d + abs(rp * inv - cloth[wi, wj, 2])
            q = max(s * cloth[wi, wj, 3] - _F1, np.float32(0.0)) * _HALF
            si[i, j] = s
            ratio[i, j] = q
            fp[i, j] = d + q


@njit(cache=True, nogil=True)
def fit_ball(patch: NDArray[np.uint8], cloth: F32, labels: NDArray[np.uint16], rows: Index,
             cols: Index, label: int, others: F64, cx: float, cy: float, r: float,
             ix0: int, iy0: int, threshold: float, by_light: bool, brighter: float,
             streak: bool) -> tuple[float, float, float, float, float, float, bool, Mask, F32,
                                    F32]:
    """One ball refined in ``patch`` (full-resolution BGR, its top left pixel at ``ix0, iy0``),
    from its place ``cx, cy`` at the working resolution and its radius ``r`` (full pixels).

    ``cloth``: the cloth model's chromaticity planes and inverse brightness (see
    detect._chroma_planes) in the work window under the patch, ``labels`` the candidates' labels
    there, ``rows``/``cols`` the work pixel (in the window) of each patch row and column;
    ``label`` this candidate's; ``others``: the other candidates' centres (full pixels, N x 2).
    ``threshold``: the ball threshold of the foreground; ``by_light``: a neutral cloth, where
    brightening beyond ``brighter`` counts too; ``streak``: a motion-blurred ball (its centroid,
    no outline fit).

    Returns the centre (x, y), the ball-likeness score, the core's median B, G, R, whether the
    core had pixels enough for that median, the core mask, the squared distances from the centre
    (float32) and the pixels' B + G + R + 3 (float32, NaN where not needed: made on the
    candidate's own pixels and within 1.5 radii of the centre; for :func:`count_dots`).

    The steps: the foreground of the patch against the cloth (chromaticity distance plus half
    the relative brightening); the candidate's own pixels (its label, grown by 2 full pixels)
    inside its Voronoi cell among the other candidates within 4 radii; pixels above half the
    core's level (the core: within half a radius); three rounds of the centroid of those within
    1.3 radii; the outline fit; the share of the disc filled and of the ring around it (to 1.5
    radii) that is not. The foreground is made only where these look (a streak's patch is
    mostly cloth).
    """
    h, w = patch.shape[0], patch.shape[1]
    xs = np.empty(w, np.float64)
    for j in range(w):
        xs[j] = np.float64(np.float32(ix0 + j))
    ys = np.empty(h, np.float64)
    for i in range(h):
        ys[i] = np.float64(np.float32(iy0 + i))
    # its own pixels: the label, gathered, grown by a 5 x 5 square (along the rows, then the
    # columns), and their bounding box (nothing outside it is selected)
    wide = np.zeros((h, w), np.bool_)
    for i in range(h):
        wi = rows[i]
        for j in range(w):
            if labels[wi, cols[j]] == label:
                for jj in range(max(0, j - 2), min(w, j + 3)):
                    wide[i, jj] = True
    own = np.zeros((h, w), np.bool_)
    oy0, oy1, ox0, ox1 = h, 0, w, 0
    for i in range(h):
        for j in range(w):
            if wide[i, j]:
                for ii in range(max(0, i - 2), min(h, i + 3)):
                    own[ii, j] = True
                oy0, oy1 = min(oy0, max(0, i - 2)), max(oy1, min(h, i + 3))
                ox0, ox1 = min(ox0, j), max(ox1, j + 1)
    fp = np.empty((h, w), np.float32)
    si = np.full((h, w), np.nan, np.float32)
    ratio = np.empty((h, w), np.float32)
    done = np.zeros((h, w), np.bool_)
    _foreground_in(patch, cloth, rows, cols, oy0, oy1, ox0, ox1, fp, si, ratio, done)
    dd = _squared_distances(xs, ys, cx, cy)
    # the Voronoi cell among the other candidates close by
    cell = np.ones((h, w), np.bool_)
    for k in range(others.shape[0]):
        d_o = math.hypot(others[k, 0] - cx, others[k, 1] - cy)
        if d_o > 1e-6 and d_o < 4 * r:
            do = _squared_distances(xs, ys, others[k, 0], others[k, 1])
            for i in range(h):
                for j in range(w):
                    if dd[i, j] > do[i, j]:
                        cell[i, j] = False
    # above half the core's own level
    core_r2 = np.float32((0.5 * r) ** 2)
    core = np.empty(h * w, np.float32)
    n_core = 0
    for i in range(oy0, oy1):
        for j in range(ox0, ox1):
            if dd[i, j] <= core_r2 and own[i, j]:
                core[n_core] = fp[i, j]
                n_core += 1
    level = _upper_middle(core[:n_core]) if n_core else threshold
    t = np.float32(max(threshold, 0.5 * level))
    light = np.float32(0.5 * brighter)
    # On a neutral cloth a white ball's shaded side is much less bright than its lit side, but
    # still brighter than the cloth (a centre from the lit side alone is off toward the light):
    # a pixel more than 1 + the margin times as bright as the cloth counts too (``ratio`` holds
    # half the brightening).
    sel = np.zeros((h, w), np.bool_)
    for i in range(oy0, oy1):
        for j in range(ox0, ox1):
            sel[i, j] = (own[i, j] and cell[i, j]
                         and (fp[i, j] > t or (by_light and ratio[i, j] > light)))
    # the centroid within 1.3 radii, three rounds (a streak: its whole region, once)
    reach = np.float32((1.3 * r) ** 2)
    region = sel.copy()
    ax, ay = cx, cy  # (the centre the region was made around)
    for it in range(1 if streak else 3):
        if not streak:
            near = dd if it == 0 else _squared_distances(xs, ys, cx, cy)
            for i in range(oy0, oy1):
                for j in range(ox0, ox1):
                    region[i, j] = sel[i, j] and near[i, j] <= reach
            ax, ay = cx, cy
        n_px = 0
        sum_x = 0.0
        sum_y = 0.0
        for i in range(oy0, oy1):
            for j in range(ox0, ox1):
                if region[i, j]:
                    n_px += 1
                    sum_x += xs[j]
                    sum_y += ys[i]
        if n_px < 3:
            break
        cx, cy = sum_x / n_px, sum_y / n_px
        if not streak and cx == ax and cy == ay:
            break  # settled: the same region again, and the same centre
    if not streak:
        if cx != ax or cy != ay:
            near = _squared_distances(xs, ys, cx, cy)
            for i in range(oy0, oy1):
                for j in range(ox0, ox1):
                    region[i, j] = sel[i, j] and near[i, j] <= reach
        # (the region is inside the box: the fit sees it and one pixel of nothing around it)
        fy0, fy1, fx0, fx1 = max(0, oy0 - 1), min(h, oy1 + 1), max(0, ox0 - 1), min(w, ox1 + 1)
        cx, cy = _fit_outline(region[fy0:fy1, fx0:fx1], cx, cy, r, ix0 + fx0, iy0 + fy0)
    dd = _squared_distances(xs, ys, cx, cy)
    # the disc and the ring around it: only the box around the ring holds pixels within 1.5
    # radii (the foreground made there too)
    reach_ring = 1.5 * r + 2
    ry0, ry1 = int(cy - reach_ring) - iy0, int(cy + reach_ring) + 1 - iy0
    rx0, rx1 = int(cx - reach_ring) - ix0, int(cx + reach_ring) + 1 - ix0
    _foreground_in(patch, cloth, rows, cols, ry0, ry1, rx0, rx1, fp, si, ratio, done)
    disc_r2 = np.float32(r * r)
    ring_r2 = np.float32((1.5 * r) ** 2)
    inner_r2 = np.float32((0.6 * r) ** 2)
    n_disc = n_filled = n_ring = n_out = n_inner = 0
    inner = np.zeros((h, w), np.bool_)
    for i in range(max(0, ry0), min(h, ry1)):
        for j in range(max(0, rx0), min(w, rx1)):
            q = dd[i, j]
            if q <= disc_r2:
                n_disc += 1
                if sel[i, j]:
                    n_filled += 1
                    if q <= inner_r2:
                        inner[i, j] = True
                        n_inner += 1
            elif q <= ring_r2 and cell[i, j]:
                n_ring += 1
                if fp[i, j] > t or (by_light and ratio[i, j] > light):
                    n_out += 1
    fill = n_filled / max(1, n_disc)
    outside = n_out / max(1, n_ring)
    score = max(0.0, min(1.0, fill)) * max(0.0, 1.0 - outside)
    cored = n_inner >= 3  # (enough of the core for a median)
    if cored:
        # each channel's upper middle, counted (whole numbers 0..255)
        counts = np.zeros((3, 256), np.int64)
        for i in range(h):
            for j in range(w):
                if inner[i, j]:
                    for k in range(3):
                        counts[k, patch[i, j, k]] += 1
        bgr = np.empty(3, np.float64)
        for k in range(3):
            seen = 0
            for v in range(256):
                seen += counts[k, v]
                if seen > n_inner // 2:
                    bgr[k] = v
                    break
    else:
        i = min(max(int(cy) - iy0, 0), h - 1)
        j = min(max(int(cx) - ix0, 0), w - 1)
        bgr = np.array([float(patch[i, j, 0]), float(patch[i, j, 1]), float(patch[i, j, 2])])
    return cx, cy, score, bgr[0], bgr[1], bgr[2], cored, inner, dd, si


@njit(cache=True, nogil=True)
def _shading(dd: F32, si: F32, r: float, fit_radii: float, keep_share: float, ci: int,
             cj: int) -> tuple[float, float, float, float, bool]:
    """The ball's own shading: ``a + b x + c y + d (x^2 + y^2)`` (x, y from the centre pixel
    ``ci, cj`` in radii) fitted by least squares to the brightness sums within ``fit_radii``,
    three rounds, each leaving out the pixels darker than ``keep_share`` of the last fit (the
    dots). A lamp to one side lights a white brighter on that side and the rim falls off: one
    level for the whole ball (the core's median) took the shaded side for dots. Returns the four
    coefficients and whether there were pixels enough."""
    h, w = dd.shape
    within = np.float32((fit_radii * r) ** 2)
    rr = r * r
    a = b = c = d = 0.0
    for rnd in range(3):
        m = np.zeros((4, 4))
        v = np.zeros(4)
        n = 0
        for i in range(h):
            y = (i - ci) / r
            for j in range(w):
                if dd[i, j] > within or math.isnan(si[i, j]):
                    continue
                x = (j - cj) / r
                q = dd[i, j] / rr
                z = si[i, j] - 3.0
                if rnd and z < keep_share * (a + b * x + c * y + d * q):
                    continue
                t0, t1, t2, t3 = 1.0, x, y, q
                v[0] += t0 * z
                v[1] += t1 * z
                v[2] += t2 * z
                v[3] += t3 * z
                m[0, 0] += 1.0
                m[0, 1] += t1
                m[0, 2] += t2
                m[0, 3] += t3
                m[1, 1] += t1 * t1
                m[1, 2] += t1 * t2
                m[1, 3] += t1 * t3
                m[2, 2] += t2 * t2
                m[2, 3] += t2 * t3
                m[3, 3] += t3 * t3
                n += 1
        if n < 8:
            return a, b, c, d, False
        for k in range(4):
            m[k, k] += 1e-9
            for kk in range(k):
                m[k, kk] = m[kk, k]
        sol = np.linalg.solve(m, v)
        a, b, c, d = sol[0], sol[1], sol[2], sol[3]
    return a, b, c, d, True


@njit(cache=True, nogil=True)
def _a_line(members: NDArray[np.int64], size: int, most_elongation: float) -> bool:
    """The group of ``size`` pixels (``members``: row, column) is a thin line: its spread along
    its longest axis more than ``most_elongation`` times that across it (a hard shadow's edge or
    a projected line through the ball; W2's two dots merged into one group spread some 3 times
    as far along their axis as across it)."""
    if size < 3:
        return False
    gx = gy = 0.0
    for k in range(size):
        gy += members[k, 0]
        gx += members[k, 1]
    gx /= size
    gy /= size
    sxx = syy = sxy = 0.0
    for k in range(size):
        ex, ey = members[k, 1] - gx, members[k, 0] - gy
        sxx += ex * ex
        syy += ey * ey
        sxy += ex * ey
    half = 0.5 * (sxx + syy)
    root = math.sqrt(max(0.0, 0.25 * (sxx - syy) ** 2 + sxy * sxy))
    return half + root >= most_elongation ** 2 * max(half - root, 1e-9)


@njit(cache=True, nogil=True)
def count_dots(dd: F32, si: F32, inner: Mask, r: float, darker_share: float, fit_radii: float,
               within_radii: float, most_area_share: float,
               most_elongation: float) -> tuple[int, float]:
    """The dark dots inside a ball (within ``within_radii``; darker than ``darker_share`` of
    the ball's own shading there, see :func:`_shading`): how many (8-connected groups of two
    pixels or more, none larger than ``most_area_share`` of the ball's disc: a shadow's edge
    or the shaded rim across the ball is no dot; nor a thin line, see :func:`_a_line`), and the
    spread of all their pixels (the standard deviation along their longest axis, pixels).
    ``dd``, ``si`` and ``inner``: :func:`fit_ball`'s squared distances from the centre,
    brightness sums (B + G + R + 3) and core mask. W1 (one dot) is told from W2 (two) by them."""
    h, w = dd.shape
    n_inner = 0
    for i in range(h):
        for j in range(w):
            if inner[i, j]:
                n_inner += 1
    if n_inner < 3:
        return 0, 0.0
    # the centre pixel (the fit's terms in x and y take up its sub-pixel offset)
    ci = cj = 0
    least = np.float32(np.inf)
    for i in range(h):
        for j in range(w):
            if dd[i, j] < least:
                least, ci, cj = dd[i, j], i, j
    a, b, c, d, fitted = _shading(dd, si, r, fit_radii, 0.5 + 0.5 * darker_share, ci, cj)
    if not fitted:
        return 0, 0.0
    within = np.float32((within_radii * r) ** 2)
    dark = np.zeros((h, w), np.bool_)
    n_dark = 0
    for i in range(h):
        y = (i - ci) / r
        for j in range(w):
            if dd[i, j] <= within and not math.isnan(si[i, j]):
                x = (j - cj) / r
                if si[i, j] - 3.0 < darker_share * (a + b * x + c * y + d * dd[i, j] / (r * r)):
                    dark[i, j] = True
                    n_dark += 1
    if n_dark == 0:
        return 0, 0.0
    # the groups, by filling each from a pixel not yet reached; those dot-sized are kept
    most_px = most_area_share * math.pi * r * r
    seen = np.zeros((h, w), np.bool_)
    kept = np.zeros((h, w), np.bool_)
    stack = np.empty((n_dark, 2), np.int64)
    members = np.empty((n_dark, 2), np.int64)
    count = n_kept = 0
    for i in range(h):
        for j in range(w):
            if not dark[i, j] or seen[i, j]:
                continue
            seen[i, j] = True
            stack[0, 0], stack[0, 1] = i, j
            top, size = 1, 0
            while top:
                top -= 1
                y0, x0 = stack[top, 0], stack[top, 1]
                members[size, 0], members[size, 1] = y0, x0
                size += 1
                for yy in range(max(0, y0 - 1), min(h, y0 + 2)):
                    for xx in range(max(0, x0 - 1), min(w, x0 + 2)):
                        if dark[yy, xx] and not seen[yy, xx]:
                            seen[yy, xx] = True
                            stack[top, 0], stack[top, 1] = yy, xx
                            top += 1
            if 2 <= size <= most_px and not _a_line(members, size, most_elongation):
                count += 1
                n_kept += size
                for k in range(size):
                    kept[members[k, 0], members[k, 1]] = True
    if count == 0:
        return 0, 0.0
    # the largest eigenvalue of the kept pixels' 2 x 2 covariance, in closed form
    mx = 0.0
    my = 0.0
    for i in range(h):
        for j in range(w):
            if kept[i, j]:
                mx += j
                my += i
    mx /= n_kept
    my /= n_kept
    sxx = syy = sxy = 0.0
    for i in range(h):
        for j in range(w):
            if kept[i, j]:
                x, y = j - mx, i - my
                sxx += x * x
                syy += y * y
                sxy += x * y
    half = 0.5 * (sxx + syy)
    top_ = (half + math.sqrt(max(0.0, 0.25 * (sxx - syy) ** 2 + sxy * sxy))) / (n_kept - 1)
    return count, math.sqrt(max(0.0, top_))


def warm_up() -> None:
    """Load the compiled functions now (numba's cache, or compiling them the first time): the
    first call otherwise waits for it (0.15 s), in the middle of the first frames. Made on
    inputs of the types the detection passes, so that the same compiled version is loaded."""
    frame = np.zeros((8, 8, 3), np.uint8)
    cloth = np.ones((4, 4, 4), np.float32)
    labels = np.zeros((4, 4), np.uint16)
    rows = np.zeros(5, np.int64)
    (_, _, _, _, _, _, _, inner, dd, si) = fit_ball(
        frame[1:6, 1:6], cloth[:3, :3], labels[:3, :3], rows, rows.copy(), 1, np.zeros((1, 2)),
        2.0, 2.0, 2.0, 1, 1, 0.03, False, 0.2, False)
    count_dots(dd, si, inner, 2.0, 0.75, 0.8, 0.8, 0.12, 4.0)
