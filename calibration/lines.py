"""Robust straight-line fits in the image plane (pixels): RANSAC, then Tukey IRLS.

A line is ``normal . p = offset`` with a unit normal. Cushion edges are long and straight; what
spoils them (pocket cut-outs, balls, hands, the cue) gives points far off the line, which the
RANSAC consensus ignores and the bisquare weights drop to zero.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]


@dataclass(frozen=True)
class Line:
    """The line ``normal . p = offset`` (``normal`` a unit 2-vector, pixels)."""

    normal: tuple[float, float]
    offset: float

    @classmethod
    def through(cls, p: FloatArray, q: FloatArray) -> Line:
        d = np.asarray(q, float) - np.asarray(p, float)
        n = np.array([-d[1], d[0]]) / max(float(np.hypot(*d)), 1e-12)
        return cls((float(n[0]), float(n[1])), float(n @ np.asarray(p, float)))

    @property
    def direction(self) -> FloatArray:
        return np.array([self.normal[1], -self.normal[0]])

    def distance(self, points: FloatArray) -> FloatArray:
        """Signed distances of (N, 2) points (positive on the normal's side)."""
        d = np.asarray(points, np.float64) @ np.asarray(self.normal, np.float64) - self.offset
        return np.asarray(d, dtype=np.float64)

    def intersect(self, other: Line) -> FloatArray:
        a = np.array([self.normal, other.normal])
        return np.asarray(np.linalg.solve(a, [self.offset, other.offset]), dtype=np.float64)

    def flipped(self) -> Line:
        return Line((-self.normal[0], -self.normal[1]), -self.offset)

    def angle_deg(self) -> float:
        """Direction angle in [0, 180)."""
        d = self.direction
        return float(np.degrees(np.arctan2(d[1], d[0])) % 180.0)


def fit_line(points: FloatArray, weights: FloatArray | None = None) -> Line:
    """Weighted total-least-squares line through (N >= 2, 2) points."""
    p = np.asarray(points, float)
    w = np.ones(len(p)) if weights is None else np.asarray(weights, float)
    sw = max(float(w.sum()), 1e-12)
    c = (w[:, None] * p).sum(axis=0) / sw
    q = p - c
    cov = (w[:, None] * q).T @ q / sw
    _, vecs = np.linalg.eigh(cov)
    n = vecs[:, 0]  # smallest eigenvalue: the normal
    return Line((float(n[0]), float(n[1])), float(n @ c))


def line_residual_scale(residuals: FloatArray, floor: float) -> float:
    """Robust scale (MAD * 1.4826), not below ``floor``."""
    if len(residuals) == 0:
        return floor
    mad = float(np.median(np.abs(residuals - np.median(residuals))))
    return max(1.4826 * mad, floor)


def irls_line(points: FloatArray, init: Line, *, min_scale: float = 0.5,
              iterations: int = 15) -> tuple[Line, FloatArray]:
    """Tukey-bisquare IRLS refinement from ``init``; returns the line and the final weights."""
    p = np.asarray(points, float)
    line = init
    w = np.ones(len(p))
    for _ in range(iterations):
        r = line.distance(p)
        c = 4.685 * line_residual_scale(r, min_scale)
        u = r / c
        w = np.where(np.abs(u) < 1, (1 - u * u) ** 2, 0.0)
        if np.count_nonzero(w) < 2:
            break
        new = fit_line(p, w)
        if new.normal[0] * line.normal[0] + new.normal[1] * line.normal[1] < 0:
            new = new.flipped()
        done = abs(new.offset - line.offset) < 1e-6 and np.allclose(new.normal, line.normal,
                                                                   atol=1e-9)
        line = new
        if done:
            break
    return line, w


def ransac_line(points: FloatArray, tolerance: float, rng: np.random.Generator, *,
                iterations: int = 300, ordered: bool = False,
                span: tuple[int, int] = (10, 200)) -> tuple[Line | None, BoolArray]:
    """The line with the most points within ``tolerance`` px, refit to its inliers.

    With ``ordered`` (points in contour order) the two points of a hypothesis are drawn a few
    places apart along the contour, which finds straight stretches far more often.
    """
    p = np.asarray(points, float)
    n = len(p)
    if n < 2:
        return None, np.zeros(n, bool)
    i = rng.integers(0, n, iterations)
    if ordered:
        j = (i + rng.integers(span[0], max(span[0] + 1, min(span[1], n // 2)), iterations)) % n
    else:
        j = rng.integers(0, n, iterations)
    d = p[j] - p[i]
    length = np.hypot(d[:, 0], d[:, 1])
    ok = length > 1e-9
    normals = np.stack([-d[ok, 1], d[ok, 0]], axis=1) / length[ok, None]
    offsets = np.einsum("ij,ij->i", normals, p[i[ok]])
    best: BoolArray = np.zeros(n, bool)
    best_count = 0
    for start in range(0, len(normals), 64):  # chunks keep memory small for long contours
        dist = np.abs(normals[start:start + 64] @ p.T - offsets[start:start + 64, None])
        counts = np.count_nonzero(dist < tolerance, axis=1)
        k = int(np.argmax(counts)) if len(counts) else 0
        if len(counts) and counts[k] > best_count:
            best_count = int(counts[k])
            best = dist[k] < tolerance
    if best_count < 2:
        return None, best
    line = fit_line(p[best])
    inl = np.abs(line.distance(p)) < tolerance
    if np.count_nonzero(inl) >= 2:
        line = fit_line(p[inl])
        best = inl
    return line, best


def robust_line(points: FloatArray, tolerance: float, rng: np.random.Generator, *,
                min_scale: float = 0.5) -> tuple[Line | None, BoolArray]:
    """RANSAC (``tolerance`` px) then bisquare IRLS; inliers = points with non-zero weight."""
    line, inl = ransac_line(points, tolerance, rng)
    if line is None:
        return None, inl
    line, w = irls_line(np.asarray(points, float), line, min_scale=min_scale)
    return line, w > 0
