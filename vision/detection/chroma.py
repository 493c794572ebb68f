"""How unlike a cloth model a pixel is, per pixel: the chromaticity distance, the brightness
ratio and the brightening, in float32 arithmetic whose every step is fixed (the same values to
the bit, whichever part of the picture is computed); and the exact median of a few float32s."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import cv2
import numpy as np
from numpy.typing import NDArray

from video.frames import Frame
from vision.detection.types import F32, ONE


def chroma_distance(small: Frame, planes: tuple[F32, F32, F32, F32]) -> tuple[F32, F32, F32]:
    """Per pixel of ``small``: the chromaticity distance (L1) from the cloth's ``planes`` (see
    :func:`chroma_planes`), the brightness sum B + G + R + 3 and its ratio to the cloth's.

    The arithmetic is that of ``(b + 1) / (b + g + r + 3) - mb`` etc. in float32, step by step in
    the same order (so the same values to the bit), but on contiguous planes and in place: a
    third fewer passes over memory than on the interleaved image."""
    mb, mg, mr, inv_sm = planes
    # split from a contiguous copy: on a view (a box of the work image, a crop of it)
    # cv2.split takes several times as long as the copy and the split together
    b, g, r = cv2.split(np.ascontiguousarray(small))
    bp = np.add(b, ONE, dtype=np.float32)  # integers: exact
    gp = np.add(g, ONE, dtype=np.float32)
    rp = np.add(r, ONE, dtype=np.float32)
    si = bp + gp
    si += rp
    inv = np.divide(ONE, si)
    # |x - m| in one pass (cv2.absdiff: the same rounded difference, then its magnitude)
    bp *= inv
    d = cast(F32, cv2.absdiff(bp, mb, dst=bp))
    gp *= inv
    d += cast(F32, cv2.absdiff(gp, mg, dst=gp))
    rp *= inv
    d += cast(F32, cv2.absdiff(rp, mr, dst=rp))
    return d, si, np.multiply(si, inv_sm, out=inv)


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
