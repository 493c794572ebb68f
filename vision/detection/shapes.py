"""What a blob's shape says, from its pixels and its distance map: one ball, a ball drawn
out, balls touching, a ball's summit with its halo, a hand's round piece."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.detection.params import DetectionParams
from vision.detection.types import F32, Blob


def touching(sub: F32, row: Sequence[Blob], x: int, y: int, deep: float = 0.0) -> bool:
    """``row`` (balls split from a part whose distance map ``sub`` has its window at work
    pixel (x, y)) is balls touching: two or more, none a streak (an arm's or the cue's strip
    is one), each summit at least ``deep`` pixels deep, each necked to its neighbour (see
    :func:`necked`)."""
    at = [(b.x - x, b.y - y) for b in row]
    return (len(row) >= 2 and not any(b.streak for b in row)
            and all(sub[round(py), round(px)] >= deep for px, py in at)
            and necked(sub, at))


def necked(dist: F32, centres: Sequence[tuple[float, float]]) -> bool:
    """Every centre (pixels of the distance map ``dist``) is a ball touching another: halfway
    to its nearest neighbour the shape narrows to a neck (under 0.7 of the lower centre's
    distance from the edge), as between two discs; a streak or a strip (an arm, the cue) is
    about as wide all along (see :meth:`BallSplitter.split`)."""
    hh, ww = dist.shape

    def at(x: float, y: float) -> float:
        return float(dist[min(max(round(y), 0), hh - 1), min(max(round(x), 0), ww - 1)])

    for i, (ax, ay) in enumerate(centres):
        bx, by = min((c for j, c in enumerate(centres) if j != i),
                     key=lambda c: math.hypot(c[0] - ax, c[1] - ay))
        if at(0.5 * (ax + bx), 0.5 * (ay + by)) >= 0.7 * min(at(ax, ay), at(bx, by)):
            return False
    return True


def neck_share(gray: F32, a: tuple[float, float], b: tuple[float, float], radius: float,
               offset_radii: float) -> float:
    """How far the picture ``gray`` (a ball's contrast with the cloth, any pixels) falls
    between the two ends ``a`` and ``b`` of a blob (pixels of ``gray``) of balls of ``radius``:
    along the two lines ``offset_radii`` radii either side of the line through the ends, from a
    radius before ``a`` to a radius past ``b``, the least value between the highest point of each
    half over the lower of those two (1.0: no dip). Off the axis two touching balls leave the
    cloth between them (half a radius off, a gap of 0.27 radii); a ball blurred along its way
    shows there as much as anywhere along it."""
    ax, ay = a
    bx, by = b
    length = math.hypot(bx - ax, by - ay)
    if length <= 0:
        return 1.0
    ux, uy = (bx - ax) / length, (by - ay) / length
    ts = np.arange(-radius, length + radius + 1e-9, 0.5, dtype=np.float32)
    off = offset_radii * radius
    xs = np.concatenate([ax + ts * ux - side * off * uy for side in (-1.0, 1.0)])
    ys = np.concatenate([ay + ts * uy + side * off * ux for side in (-1.0, 1.0)])
    samples = cv2.remap(gray, xs.astype(np.float32).reshape(1, -1),
                        ys.astype(np.float32).reshape(1, -1), cv2.INTER_LINEAR,
                        borderMode=cv2.BORDER_REPLICATE)[0]
    profile = 0.5 * (samples[:ts.size] + samples[ts.size:])
    first = np.flatnonzero((ts >= -0.5 * radius) & (ts <= 0.5 * length))
    second = np.flatnonzero((ts >= 0.5 * length) & (ts <= length + 0.5 * radius))
    if not first.size or not second.size:
        return 1.0
    i = int(first[np.argmax(profile[first])])
    j = int(second[np.argmax(profile[second])])
    lower = float(min(profile[i], profile[j]))
    return float(profile[i:j + 1].min()) / lower if lower > 0 else 1.0


def variances(a: float, b: float, c: float) -> tuple[float, float]:
    """The variances of a blob's pixels across and along its main axis (the lesser and the
    greater eigenvalue of the covariance [[a, b], [b, c]]), in closed form."""
    half = math.sqrt(0.25 * (a - c) ** 2 + b * b)
    return 0.5 * (a + c) - half, 0.5 * (a + c) + half


def one_ball(part: NDArray[np.bool_], cx: float, cy: float, label: int,
              key: tuple[int, ...], r: float, params: DetectionParams) -> Blob:
    """A blob of one ball's size (``part``, its pixels; centroid (cx, cy), radius ``r``, work
    pixels) as a candidate, marked drawn out when it is longer along an axis than a ball (its
    spread along it ``short_streak_spread_ratio`` times that across, and longer than
    ``short_streak_length_diameters``) and about as wide as a ball across it (a spread of
    ``short_streak_width_radii`` at least; a disc's is half a radius). Faint, that is a short
    streak: the middle of a fast ball's blur on a cloth of nearly its colour (a red on a red
    cloth), all of it that rises above the threshold (see :meth:`Refiner.refine`);
    not faint, a ball with something beside it (a pocket's rim). A disc's spreads are equal; a
    half-hidden ball's are not, but it is no longer than a ball; a piece of the cue is narrower
    than a ball."""
    m = cv2.moments(part.view(np.uint8), binaryImage=True)  # (most blobs end here: discs)
    n = max(m["m00"], 1.0)
    a, b, c = m["mu20"] / n, m["mu11"] / n, m["mu02"] / n
    # the spreads in closed form first: far from both limits (a disc), the answer needs no
    # eigh (its overhead is most of this function's); near them, eigh decides as ever (its
    # values are within far less than ``tol`` of these)
    lo, hi = variances(a, b, c)
    tol = 1e-9 * (abs(a) + abs(b) + abs(c)) + 1e-12
    if (hi < params.short_streak_spread_ratio ** 2 * max(lo, 1e-9) - 3 * tol
            or lo < (params.short_streak_width_radii * r) ** 2 - 2 * tol):
        return Blob(cx, cy, label, key=key)
    cov = np.array([[m["mu20"], m["mu11"]], [m["mu11"], m["mu02"]]]) / n
    var, vec = np.linalg.eigh(cov)
    if not (var[1] >= params.short_streak_spread_ratio ** 2 * max(var[0], 1e-9)
            and var[0] >= (params.short_streak_width_radii * r) ** 2):
        return Blob(cx, cy, label, key=key)
    axis = vec[:, 1]
    ys, xs = np.nonzero(part)
    along = xs * axis[0] + ys * axis[1]
    length = float(along.max() - along.min()) + 1.0
    if length < params.short_streak_length_diameters * 2.0 * r:
        return Blob(cx, cy, label, key=key)
    return Blob(cx, cy, label, length=length, axis=(float(axis[0]), float(axis[1])), key=key,
                 drawn_out=True)


def distances(region: NDArray[Any]) -> F32:
    """Each pixel's distance to the nearest pixel outside ``region`` (one blob's pixels, 0/1),
    as a distance transform of the whole mask would give it: the blob's nearest outside pixel is
    within one pixel of its bounding box, and no other blob is nearer than that."""
    framed = cv2.copyMakeBorder(region.astype(np.uint8), 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0)
    return np.asarray(cv2.distanceTransform(framed, cv2.DIST_L2, 3)[1:-1, 1:-1], np.float32)


def as_deep_as_its_balls(sub: F32, x: int, y: int, label: int, r: float,
                          found: Sequence[Blob], params: DetectionParams) -> list[Blob]:
    """Summits of a blob (its distance map ``sub``, window at work pixel (x, y)) deeper than
    one ball (``ball_depth_radii``) but no deeper than the balls already found in it (within 5 %,
    and ``wide_streak_radii`` at most), two radii from them and from each other: balls as big,
    with their halos, as those beside them. A ball's halo (light thrown on the cloth, a projected
    ring around it) makes it deeper than a ball alone, and its neighbour in the same picture
    so too (a white touching a red in the club footage, each 1.43 radii deep with its halo,
    joined by a projected ring; the red was found among the strong parts, the white,
    only a little above the threshold inside its bright rim, not at all)."""
    k = math.ceil(r)
    # each ball's own summit: the deepest point within a radius of its centre
    depths = [float(sub[max(round(b.y) - y - k, 0):max(round(b.y) - y + k + 1, 0),
                        max(round(b.x) - x - k, 0):max(round(b.x) - x + k + 1, 0)].max(initial=0.0))
              for b in found if not b.streak]
    most = min(1.05 * max(depths, default=0.0), params.wide_streak_radii * r)
    if most <= params.ball_depth_radii * r:
        return []
    return [Blob(x + px, y + py, label) for px, py in summits(
        sub, (sub > params.ball_depth_radii * r) & (sub <= most), 2.0 * r,
        taken=[(b.x - x, b.y - y) for b in found])]


def deep_and_alone(sub: F32, x: int, y: int, label: int, r: float,
                    found: Sequence[Blob], params: DetectionParams) -> list[Blob]:
    """Summits of a blob (its distance map ``sub``, window at work pixel (x, y)) deeper than one
    ball (``ball_depth_radii``) but no deeper than a streak joined to its shadow
    (``wide_streak_radii``), two radii from the balls already found in it and from each other,
    with little of the blob around them (see :func:`ring_share`, under ``alone_share``; the
    ring taken just outside the summit's own depth, as its halo reaches that far): a ball with
    its halo, deeper than those found beside it (a white in the club footage, 1.41 radii deep
    with its glow, nearly touching the red it has just hit, 0.96 deep; only the red was a strong
    part)."""
    mask = sub > 0
    out = []
    within = (sub > params.ball_depth_radii * r) & (sub <= params.wide_streak_radii * r)
    for px, py in summits(sub, within, 2.0 * r, taken=[(b.x - x, b.y - y) for b in found]):
        depth = float(sub[round(py), round(px)])
        if ring_share(mask, px, py, depth + 0.2 * r, depth + 0.7 * r) < params.alone_share:
            out.append(Blob(x + px, y + py, label))
    return out


def ring_share(mask: NDArray[np.bool_], px: float, py: float, inner: float,
                outer: float) -> float:
    """The share of the ring between ``inner`` and ``outer`` (pixels) around (px, py) that
    ``mask`` covers (1.0 when the ring lies wholly outside the mask's window): a ball's
    round piece has little of its blob around it, a hand's or an arm's much."""
    hh, ww = mask.shape
    x0, x1 = max(0, math.floor(px - outer)), min(ww, math.ceil(px + outer) + 1)
    y0, y1 = max(0, math.floor(py - outer)), min(hh, math.ceil(py + outer) + 1)
    yy, xx = np.mgrid[y0:y1, x0:x1]
    d2 = (xx - px) ** 2 + (yy - py) ** 2
    ring = (d2 > inner * inner) & (d2 <= outer * outer)
    return float(mask[y0:y1, x0:x1][ring].mean()) if ring.any() else 1.0


def summits(sub: F32, within: NDArray[np.bool_], apart: float,
             taken: Sequence[tuple[float, float]] = ()) -> list[tuple[float, float]]:
    """The local maxima of the distance map ``sub`` where ``within`` holds, deepest first, each
    at least ``apart`` from those kept before it and from the points ``taken`` (not returned)."""
    dil = cv2.dilate(sub, np.ones((3, 3), np.uint8))
    ys, xs = np.nonzero((sub >= dil) & within)
    kept = list(taken)
    for i in np.argsort(-sub[ys, xs]):
        px, py = float(xs[i]), float(ys[i])
        if all(math.hypot(px - qx, py - qy) >= apart for qx, qy in kept):
            kept.append((px, py))
    return kept[len(taken):]


def unexplained_balls(sub: F32, peaks: Sequence[tuple[float, float]], r: float,
                       most: int) -> int:
    """How many balls a blob holds beyond its distance-transform ``peaks`` (at most ``most``).

    The blob's area alone counts the halo around each ball (light thrown on the cloth, blur)
    as more balls, which then sit in the gaps between the real ones and pull their centres.
    Each peak is a ball and explains the blob's pixels within one radius of it; of two or more
    peaks, within its own depth, when that is more (a ball with its halo is that big: between
    two such balls a little apart, their halos' rims were taken for a third ball that pulled
    both centres: a red read 12 px off as a white rolled up to it. A lone peak keeps one
    radius: a small thing by a ball, as a mark the ball rolls over, is no halo). Another ball
    is where a disc of one radius still holds over half a ball of unexplained pixels (a tight
    cluster whose peaks merged into one summit), found one at a time."""
    mask = sub > 0
    hh, ww = mask.shape
    yy, xx = np.mgrid[0:hh, 0:ww]
    left = mask.copy()
    for px, py in peaks:
        own = max(r, float(sub[round(py), round(px)])) if len(peaks) >= 2 else r
        left &= (xx - px) ** 2 + (yy - py) ** 2 > own * own
    k = math.ceil(r)
    ky, kx = np.mgrid[-k:k + 1, -k:k + 1]
    disc = ((kx * kx + ky * ky) <= r * r).astype(np.float32)
    need = 0.5 * math.pi * r * r
    n = 0
    while n < most:
        held = cv2.filter2D(left.astype(np.float32), -1, disc, borderType=cv2.BORDER_CONSTANT)
        held[~mask] = 0
        y, x = np.unravel_index(int(np.argmax(held)), held.shape)
        if float(held[y, x]) < need:
            break
        left &= (xx - x) ** 2 + (yy - y) ** 2 > r * r
        n += 1
    return n
