"""The per-pixel foreground arithmetic (vision/detection/chroma.py), compiled, against the same
steps written out in numpy float32: the same values to the bit, on random pixels (the extremes
included) and cloths, on whole images, boxes of them (strided views) and columns of pixels."""

from __future__ import annotations

import numpy as np
import pytest

from vision.detection.chroma import brightening, chroma_distance, chroma_planes, weighed

ONE = np.float32(1.0)


def _distance_steps(small: np.ndarray, planes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    mb, mg, mr, inv_sm = planes
    b, g, r = (np.add(small[..., k], ONE, dtype=np.float32) for k in range(3))
    si = b + g
    si += r
    inv = np.divide(ONE, si)
    d = np.abs(b * inv - mb)
    d += np.abs(g * inv - mg)
    d += np.abs(r * inv - mr)
    return d, si, si * inv_sm


def _weighed_steps(d, si, ratio, lit_scale: float, margin: float | None) -> np.ndarray:
    lit = si * np.float32(lit_scale)
    lit -= ONE
    np.clip(lit, 0, 1, out=lit)
    w = ratio * np.float32(2.0)
    w -= ONE
    np.clip(w, 0, 1, out=w)
    w *= d
    w *= lit
    if margin is not None:
        w += brightening(ratio, margin)
    return w


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_compiled_foreground_arithmetic_is_the_numpy_steps_to_the_bit(seed):
    rng = np.random.default_rng(seed)
    small = rng.integers(0, 256, (61, 83, 3), dtype=np.uint8)
    small[0, :4] = [[0, 0, 0], [255, 255, 255], [255, 0, 0], [0, 0, 255]]
    planes = chroma_planes(rng.uniform(1.0, 256.0, (61, 83, 3)).astype(np.float32))
    box = (slice(7, 40), slice(11, 70))
    picked = np.flatnonzero(rng.random(61 * 83) < 0.1)
    cases = [
        (small, planes),  # the whole image
        (small[box], tuple(p[box] for p in planes)),  # a box of it: strided views
        (small.reshape(-1, 3)[picked][:, None],  # a column of pixels
         tuple(np.take(p, picked)[:, None] for p in planes)),
    ]
    for pixels, cloth in cases:
        want = _distance_steps(pixels, cloth)
        got = chroma_distance(pixels, cloth)
        assert all(np.array_equal(a, b) for a, b in zip(got, want, strict=True))
        for lit_scale, margin in ((10.0 / 150.0, None), (10.0 / 420.0, 0.07), (0.05, 0.0)):
            d, si, ratio = (a.copy() for a in want)
            w_want = _weighed_steps(d, si.copy(), ratio, lit_scale, margin)
            lit_want = np.clip(si * np.float32(lit_scale) - ONE, 0, 1)
            w = weighed(d, si, ratio, lit_scale, margin)
            assert np.array_equal(w, w_want), (lit_scale, margin)
            assert np.array_equal(si, lit_want)  # (si becomes the lit weight)
