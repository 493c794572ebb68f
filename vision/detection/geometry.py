"""Image geometry at the working resolution: raw pixels to table mm, fast
(:class:`PixelToTable`), odd kernel sizes, the largest value per tile."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from calibration import Calibration
from calibration.model import apply_homography
from video.frames import Frame


class PixelToTable:
    """Raw image pixels -> table mm, as ``Calibration.image_to_table`` but fast for many calls.

    The lens undistortion (an iteration per point: most of the cost) is a smooth shift, so it is
    interpolated bilinearly from a grid every ``step`` pixels over the region (error well below
    0.01 mm); the homography after it is exact.
    """

    def __init__(self, calibration: Calibration, region: tuple[int, int, int, int],
                 step: int = 8) -> None:
        x0, y0, x1, y1 = region
        self._h = calibration.homography_image_to_table
        self._origin = np.array([x0 - step, y0 - step], np.float64)
        self._step = float(step)
        gx = np.arange(x0 - step, x1 + 2 * step, step, dtype=np.float64)
        gy = np.arange(y0 - step, y1 + 2 * step, step, dtype=np.float64)
        u, v = np.meshgrid(gx, gy)
        raw = np.stack([u.ravel(), v.ravel()], 1)
        self._shift = (calibration.undistort(raw) - raw).reshape(len(gy), len(gx), 2)

    def grid(self, xs: NDArray[Any], ys: NDArray[Any]) -> NDArray[np.float64]:
        """Table mm (len(ys), len(xs), 2) of every point of the grid ``xs`` x ``ys`` (pixels):
        the bilinear interpolation is separable (along x, then along y)."""
        i, a = self._cell((np.asarray(xs, np.float64) - self._origin[0]) / self._step,
                          self._shift.shape[1])
        s = self._shift[:, i] * (1 - a)[None, :, None] + self._shift[:, i + 1] * a[None, :, None]
        i, a = self._cell((np.asarray(ys, np.float64) - self._origin[1]) / self._step,
                          self._shift.shape[0])
        # each component on its own (contiguous) and in place: the same steps as
        # xs + (s[i] * (1 - a) + s[i + 1] * a) per pixel, without the temporaries
        b, a = (1 - a)[:, None], a[:, None]
        uv = []
        for k, q in ((0, np.asarray(xs, np.float64)[None, :]),
                     (1, np.asarray(ys, np.float64)[:, None])):
            sk = np.ascontiguousarray(s[..., k])
            t = sk[i]
            t *= b
            t1 = sk[i + 1]
            t1 *= a
            t += t1
            uv.append(np.add(q, t, out=t))
        u, v = uv
        # the homography elementwise (numpy's (N, 2) @ (2, 3) product is slow at this size),
        # as h[r, 0] * u + h[r, 1] * v + h[r, 2], in place
        h = self._h
        out = []
        for r in range(3):
            o = np.multiply(u, h[r, 0])
            o += np.multiply(v, h[r, 1], out=t1)
            o += h[r, 2]
            out.append(o)
        w = out[2]
        return np.stack([np.divide(out[0], w, out=out[0]), np.divide(out[1], w, out=out[1])], -1)

    @staticmethod
    def _cell(g: NDArray[np.float64], n: int) -> tuple[NDArray[np.intp], NDArray[np.float64]]:
        """Grid cell index and fraction along one axis of ``n`` grid points."""
        i = np.clip(np.floor(g).astype(np.intp), 0, n - 2)
        return i, g - i

    def __call__(self, points_px: NDArray[Any]) -> NDArray[np.float64]:
        p = np.asarray(points_px, dtype=np.float64).reshape(-1, 2)
        if len(p) <= 4:
            return self._few(p)
        g = (p - self._origin) / self._step
        hi = np.array(self._shift.shape[1::-1]) - 2
        i = np.clip(np.floor(g).astype(np.intp), 0, hi)
        a = g - i
        ax, ay = a[:, :1], a[:, 1:]
        s = self._shift
        ix, iy = i[:, 0], i[:, 1]
        shift = ((s[iy, ix] * (1 - ax) + s[iy, ix + 1] * ax) * (1 - ay)
                 + (s[iy + 1, ix] * (1 - ax) + s[iy + 1, ix + 1] * ax) * ay)
        return apply_homography(self._h, p + shift)

    def _few(self, p: NDArray[np.float64]) -> NDArray[np.float64]:
        """:meth:`__call__` for a few points: the same double arithmetic, step by step, in plain
        floats (without the overhead of a dozen array operations on a few numbers)."""
        s = self._shift
        ox, oy = float(self._origin[0]), float(self._origin[1])
        step = self._step
        hx, hy = s.shape[1] - 2, s.shape[0] - 2
        out = []
        for px, py in p.tolist():
            gx, gy = (px - ox) / step, (py - oy) / step
            ix, iy = min(max(math.floor(gx), 0), hx), min(max(math.floor(gy), 0), hy)
            ax, ay = gx - ix, gy - iy
            bx, by = 1 - ax, 1 - ay
            (a0, a1), (b0, b1) = s[iy, ix].tolist(), s[iy, ix + 1].tolist()
            (c0, c1), (d0, d1) = s[iy + 1, ix].tolist(), s[iy + 1, ix + 1].tolist()
            out.append([px + ((a0 * bx + b0 * ax) * by + (c0 * bx + d0 * ax) * ay),
                        py + ((a1 * bx + b1 * ax) * by + (c1 * bx + d1 * ax) * ay)])
        return apply_homography(self._h, np.array(out, dtype=np.float64).reshape(-1, 2))



def odd(v: float, low: int = 3) -> int:
    n = max(low, round(v))
    return n if n % 2 else n + 1


def tile_maxima(pad: Frame, t: int, channels: int) -> Frame:
    """The largest value in each t x t tile of a padded map with ``channels`` values per pixel
    side by side along its rows: over each band of tile rows first (along whole rows: fast),
    then over each tile's columns."""
    rows = pad.reshape(pad.shape[0] // t, t, pad.shape[1]).max(axis=1)
    return np.asarray(rows.reshape(rows.shape[0], -1, channels * t).max(axis=2))
