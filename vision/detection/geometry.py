"""Image geometry: the working resolution of one camera placement (:class:`WorkGrid`: the
table's region, shrunk, and what each work pixel is on the table), raw pixels to table mm, fast
(:class:`PixelToTable`), odd kernel sizes, the largest value per tile."""

from __future__ import annotations

import math
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration import Calibration
from calibration.model import apply_homography
from rules.table import Pocket
from video.frames import AnyFrame, Frame, PlanarFrame
from vision.detection.types import F32, VisionError


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


class WorkGrid:
    """The working resolution of one camera placement (one calibration): the table's region of
    the image, shrunk by an integer factor to about ``work_diameter_px`` pixels a ball, and what
    each work pixel is on the table (inside the field, where a ball centre can be, a ball's
    radius there). Also the kernels every step shares, sized in ball diameters."""

    def __init__(self, calibration: Calibration, work_diameter_px: float) -> None:
        self.calibration = calibration
        self.work_diameter_px = work_diameter_px
        self.table = calibration.table
        w, h = calibration.image_size
        t = self.table
        self.r_mm = t.ball_radius_mm
        margin = t.ball_diameter_mm
        # the playing field and a margin, as a bounding rectangle in the image
        n = 40
        xs = np.linspace(-margin, t.length_mm + margin, n)
        ys = np.linspace(-margin, t.width_mm + margin, n)
        edge = np.concatenate([
            np.stack([xs, np.full(n, -margin)], 1),
            np.stack([xs, np.full(n, t.width_mm + margin)], 1),
            np.stack([np.full(n, -margin), ys], 1),
            np.stack([np.full(n, t.length_mm + margin), ys], 1)])
        px = calibration.table_to_image(edge)
        x0 = int(max(0, math.floor(px[:, 0].min())))
        y0 = int(max(0, math.floor(px[:, 1].min())))
        x1 = int(min(w, math.ceil(px[:, 0].max()) + 1))
        y1 = int(min(h, math.ceil(px[:, 1].max()) + 1))
        if x1 - x0 < 16 or y1 - y0 < 16:
            raise VisionError(f"expected the table inside the {w}x{h} image, the calibration puts "
                              f"it at x {x0}..{x1}, y {y0}..{y1}")
        self.diameter_px = 2 * self.r_mm / calibration.mm_per_px()
        # an integer shrink factor (fast and exact pixel averaging)
        k = max(1, round(self.diameter_px / work_diameter_px))
        x1 = min(w, x0 + (x1 - x0) // k * k + (k if (x1 - x0) % k else 0))
        y1 = min(h, y0 + (y1 - y0) // k * k + (k if (y1 - y0) % k else 0))
        x1, y1 = x0 + (x1 - x0) // k * k, y0 + (y1 - y0) // k * k
        self.roi = (x0, y0, x1, y1)
        self.scale = 1.0 / k
        self.work_size = ((x1 - x0) // k, (y1 - y0) // k)
        ww, wh = self.work_size
        self.sx = (x1 - x0) / ww  # full pixels per work pixel
        self.sy = (y1 - y0) / wh
        self.to_table = PixelToTable(calibration, self.roi)
        # the work pixel (row, column) of every full-resolution row and column
        self.work_row = np.clip(np.round((np.arange(h) - y0 + 0.5) / self.sy - 0.5).astype(
            np.intp), 0, wh - 1)
        self.work_col = np.clip(np.round((np.arange(w) - x0 + 0.5) / self.sx - 0.5).astype(
            np.intp), 0, ww - 1)
        # table coordinates and ball radius of every work pixel
        mm = self.to_table.grid(*self.work_centres_px())
        tx, ty = np.ascontiguousarray(mm[..., 0]), np.ascontiguousarray(mm[..., 1])
        m = 0.25 * self.r_mm
        self.field = ((tx > -m) & (tx < t.length_mm + m) & (ty > -m) & (ty < t.width_mm + m))
        self.field_u8 = self.field.astype(np.uint8)
        # where a ball centre can be: on the cloth (>= 0.75 radius inside the noses, allowing for
        # error) or in a pocket's mouth (within 1.5 diameters of the pocket's point)
        inside = 0.75 * self.r_mm
        self.on_cloth = ((tx > inside) & (tx < t.length_mm - inside) & (ty > inside)
                         & (ty < t.width_mm - inside))
        mouth = np.zeros_like(self.on_cloth)
        reach2 = (1.5 * t.ball_diameter_mm) ** 2
        for pocket in Pocket:
            px_, py_ = t.pocket_xy(pocket)
            mouth |= (tx - px_) ** 2 + (ty - py_) ** 2 < reach2
        self.centre_ok = self.on_cloth | mouth
        self.radius_work = self._radius_map(ww, wh).astype(np.float32)
        self.d_work = 2 * float(np.median(self.radius_work))
        self.open_kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE,
                                                     (odd(0.4 * self.d_work),) * 2)
        self.close_kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
        # how far from a pixel of the raw mask the closing and then the opening can reach
        self.morph_reach = (self.close_kernel.shape[0] // 2 * 2
                            + self.open_kernel.shape[0] // 2 * 2 + 1)
        # tiles of about 3 ball diameters: where the picture or the map changed is told by tile
        self.tile = max(8, round(3 * self.d_work))
        self.mm_per_px = calibration.mm_per_px()

    def _radius_map(self, ww: int, wh: int) -> F32:
        """A ball's radius in work pixels at every work pixel (coarse grid, interpolated)."""
        gx, gy = 24, 14
        x0, y0, x1, y1 = self.roi
        u, v = np.meshgrid(np.linspace(x0, x1 - 1, gx), np.linspace(y0, y1 - 1, gy))
        p = np.stack([u.ravel(), v.ravel()], 1)
        r = self.radius_px_at(p) * self.scale
        grid = r.reshape(gy, gx).astype(np.float32)
        return np.asarray(cv2.resize(grid, (ww, wh), interpolation=cv2.INTER_LINEAR), np.float32)

    def radius_px_at(self, points_px: NDArray[Any]) -> NDArray[np.float64]:
        """A 68 mm ball's radius in full-resolution pixels at image points (N, 2)."""
        cal = self.calibration
        mm = cal.image_to_table(points_px)
        r = self.r_mm
        out = np.zeros(len(mm))
        for d in ((r, 0.0), (0.0, r), (-r, 0.0), (0.0, -r)):
            q = cal.table_to_image(mm + np.array(d))
            out += np.hypot(*(q - np.asarray(points_px, dtype=np.float64)).T)
        return out / 4

    def full_px(self, x: float, y: float) -> tuple[float, float]:
        """The full-resolution pixel of the work pixel (x, y) (fractional: a place in it)."""
        x0, y0, _, _ = self.roi
        return x0 + (x + 0.5) * self.sx - 0.5, y0 + (y + 0.5) * self.sy - 0.5

    def work_centres_px(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """The full-resolution x of every work column's centre, and y of every work row's."""
        x0, y0, _, _ = self.roi
        ww, wh = self.work_size
        xs = x0 + (np.arange(ww, dtype=np.float64) + 0.5) * self.sx - 0.5
        ys = y0 + (np.arange(wh, dtype=np.float64) + 0.5) * self.sy - 0.5
        return np.asarray(xs, np.float64), np.asarray(ys, np.float64)

    def shrink(self, frame: AnyFrame) -> Frame:
        """The table's region of ``frame`` at the working resolution (what the detector
        searches; a reader thread may make it ahead of time)."""
        x0, y0, x1, y1 = self.roi
        w, h = self.calibration.image_size
        if len(frame.shape) != 3 or frame.shape[2] != 3 or (frame.shape[1], frame.shape[0]) != (
                w, h):
            raise VisionError(f"expected a {w}x{h} BGR frame (the calibration's image size), got "
                              f"shape {list(frame.shape)}")
        # a factor of 2 with linear interpolation averages exactly 2x2 pixels (and is fast)
        halving = round(1 / self.scale) == 2
        if isinstance(frame, PlanarFrame):
            if halving:  # converted and halved in one pass, the same pixels as below
                return frame.halved(x0, y0, self.work_size)
            region = frame.bgr(y0, y1, x0, x1)
        else:
            region = frame[y0:y1, x0:x1]
        mode = cv2.INTER_LINEAR if halving else cv2.INTER_AREA
        return np.asarray(cv2.resize(region, self.work_size, interpolation=mode), np.uint8)
