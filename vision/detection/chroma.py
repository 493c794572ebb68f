"""How unlike a cloth model a pixel is, per pixel: the chromaticity distance, the brightness
ratio and the brightening, in float32 arithmetic whose every step is fixed (the same values to
the bit, whichever part of the picture is computed); and the exact median of a few float32s."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import cv2
import numpy as np
from numba import njit
from numpy.typing import NDArray

from video.frames import Frame
from vision.detection.types import F32


def chroma_distance(small: Frame, planes: tuple[F32, F32, F32, F32]) -> tuple[F32, F32, F32]:
    """Per pixel of ``small``: the chromaticity distance (L1) from the cloth's ``planes`` (see
    :func:`chroma_planes`), the brightness sum B + G + R + 3 and its ratio to the cloth's.

    The arithmetic is that of ``(b + 1) / (b + g + r + 3) - mb`` etc. in float32, step by step
    in a fixed order (so the same values to the bit, whichever part of the picture is
    computed), compiled: one pass over the pixels (a box of the work image, a column of
    pixels, or all of it)."""
    mb, mg, mr, inv_sm = planes
    shape = small.shape[:2]
    d, si, ratio = (np.empty(shape, np.float32) for _ in range(3))
    _chroma_distance(small, mb, mg, mr, inv_sm, d, si, ratio)
    return d, si, ratio


@njit(cache=True, nogil=True)
def _chroma_distance(small: Frame, mb: F32, mg: F32, mr: F32, inv_sm: F32, d: F32, si: F32,
                     ratio: F32) -> None:
    one = np.float32(1.0)
    for i in range(small.shape[0]):
        for j in range(small.shape[1]):
            bp = np.float32(small[i, j, 0]) + one  # (integers: exact)
            gp = np.float32(small[i, j, 1]) + one
            rp = np.float32(small[i, j, 2]) + one
            s = (bp + gp) + rp
            inv = one / s
            # |x - m|: the rounded difference, then its magnitude
            dd = abs(bp * inv - mb[i, j])
            dd = dd + abs(gp * inv - mg[i, j])
            d[i, j] = dd + abs(rp * inv - mr[i, j])
            si[i, j] = s
            ratio[i, j] = s * inv_sm[i, j]


def weighed(d: F32, si: F32, ratio: F32, lit_scale: float, margin: float | None) -> F32:
    """The weighted foreground from a pixel's chroma distance ``d``, brightness sum ``si`` and
    its ratio to the cloth's (:func:`chroma_distance`): ``d`` times how lit the pixel is
    (``si`` times ``lit_scale``, less one, within 0..1: ``si`` becomes it) times how bright
    against the cloth (twice the ratio less one, within 0..1); with ``margin``, plus the
    :func:`brightening` beyond it. In float32, step by step in a fixed order, compiled."""
    w = np.empty(d.shape, np.float32)
    _weighed(d, si, ratio, np.float32(lit_scale), margin is not None,
             np.float32(1.0 + (margin or 0.0)), w)
    return w


@njit(cache=True, nogil=True)
def _weighed(d: F32, si: F32, ratio: F32, lit_scale: np.float32, by_light: bool,
             margin_1: np.float32, w: F32) -> None:
    one, zero = np.float32(1.0), np.float32(0.0)
    two, half = np.float32(2.0), np.float32(0.5)
    for i in range(d.shape[0]):
        for j in range(d.shape[1]):
            lit = min(max(si[i, j] * lit_scale - one, zero), one)
            si[i, j] = lit
            r = ratio[i, j]
            ww = min(max(r * two - one, zero), one) * d[i, j]
            ww = ww * lit
            if by_light:
                ww = ww + max(r - margin_1, zero) * half
            w[i, j] = ww


def brightening(ratio: F32, margin: float) -> F32:
    """The foreground of pixels brighter than the cloth, from their brightness ratio to it: half
    the relative brightening beyond ``margin`` (the cloth's own unevenness and noise:
    ``brighter_share``, less on a bright cloth). A white ball on a grey cloth differs from it in
    light only, not in chromaticity."""
    b = np.subtract(ratio, np.float32(1.0 + margin))
    np.maximum(b, 0, out=b)
    b *= np.float32(0.5)
    return b


def chroma_planes(m: F32) -> tuple[F32, F32, F32, F32]:
    """A cloth model's chromaticity planes (B, G, R) and its inverse brightness."""
    b, g, r = cast("Sequence[F32]", cv2.split(np.ascontiguousarray(m, dtype=np.float32)))
    inv = np.float32(1.0) / (b + g + r)
    return b * inv, g * inv, r * inv, inv


def median(values: NDArray[np.float32]) -> float:
    """``float(np.median(values))`` of a non-empty 1-D float32 array without NaNs, to the bit
    (the mean of the two middle values in float32 for an even count), without its overhead."""
    k = len(values) // 2
    if len(values) % 2:
        return float(np.partition(values, k)[k])
    p = np.partition(values, (k - 1, k))
    return float(p[k - 1] + p[k]) / 2


def warm_up() -> None:
    """Load the compiled loops now (numba's cache), for the arrays the foreground passes: a
    whole work image, a box of it (strided views) and a column of pixels."""
    small = np.zeros((4, 6, 3), np.uint8)
    planes = chroma_planes(np.ones((4, 6, 3), np.float32))
    box = (slice(1, 3), slice(1, 4))
    for pixels, cloth in ((small, planes), (small[box], tuple(p[box] for p in planes)),
                          (small.reshape(-1, 3)[:5][:, None],
                           tuple(p.reshape(-1)[:5][:, None] for p in planes))):
        d, si, ratio = chroma_distance(pixels, cast(tuple[F32, F32, F32, F32], cloth))
        weighed(d, si, ratio, 0.1, 0.05)
