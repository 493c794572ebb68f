"""The compiled per-ball refinement (vision/detection/ballfit.py) on drawn balls with known
answers."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.detection import ballfit
from vision.detection.chroma import chroma_planes
from vision.detection.detector import detect_frame
from vision.detection.params import DEFAULT_DETECTION

CLOTH = (110, 150, 40)
WHITE = (235, 240, 240)


def drawn_ball(cx: float, cy: float, r: float, colour: tuple[int, int, int], dots: int = 0,
               size: int = 48, seed: int = 0) -> np.ndarray:
    """A ball of radius ``r`` centred at (cx, cy) on a noisy cloth patch (sub-pixel drawing),
    with ``dots`` dark dots across its middle (0.6 radii apart)."""
    img = np.empty((size, size, 3), np.float32)
    img[:] = CLOTH
    img += np.random.default_rng(seed).normal(0, 1.5, img.shape).astype(np.float32)
    patch = np.clip(img, 0, 255).astype(np.uint8)
    s = 16
    cv2.circle(patch, (round(cx * s), round(cy * s)), round(r * s), colour, -1, cv2.LINE_AA, 4)
    for k in range(dots):
        dx = (k - (dots - 1) / 2) * 0.6 * r
        cv2.circle(patch, (round((cx + dx) * s), round(cy * s)), round(0.18 * r * s),
                   (20, 20, 25), -1, cv2.LINE_AA, 4)
    return patch


def fit(patch: np.ndarray, guess: tuple[float, float], r: float,
        others: np.ndarray | None = None) -> tuple:
    """fit_ball on a patch at full resolution (the work grid the same as the patch's), the
    candidate's label on every pixel within 1.2 radii of the guess. The arrays are views into
    larger ones, as the detection's are (numba compiles one version per memory layout)."""
    h, w = patch.shape[:2]
    framed = np.zeros((h + 2, w + 2, 3), np.uint8)
    framed[1:-1, 1:-1] = patch
    patch = framed[1:-1, 1:-1]
    cloth = np.empty((h, w, 3), np.float32)
    cloth[:] = CLOTH
    planes = cv2.merge(chroma_planes(cloth + np.float32(1.0)))[:, :]
    planes = np.pad(planes, ((0, 1), (0, 1), (0, 0)))[:h, :w]
    yy, xx = np.mgrid[0:h + 1, 0:w + 1]
    labels = ((xx - guess[0]) ** 2 + (yy - guess[1]) ** 2 <= (1.2 * r) ** 2).astype(
        np.uint16)[:h, :w]
    rows, cols = np.arange(h, dtype=np.int64), np.arange(w, dtype=np.int64)
    others = np.array([guess]) if others is None else others
    return ballfit.fit_ball(patch, planes, labels, rows, cols, 1, others, guess[0], guess[1], r,
                            0, 0, 0.03, False, 0.2, False)


@pytest.mark.parametrize("cx, cy", [(23.3, 24.6), (22.8, 25.1), (24.5, 23.0)])
def test_a_ball_is_centred_from_a_guess_two_pixels_off(cx, cy):
    r = 10.0
    patch = drawn_ball(cx, cy, r, (30, 30, 200))
    x, y, score, b, g, red, cored, inner, _, _ = fit(patch, (cx + 1.5, cy - 1.5), r)
    assert np.hypot(x - cx, y - cy) < 0.2  # (OpenCV's anti-aliased disc: its own 0.1 px)
    assert score > 0.85
    assert cored and inner.sum() > 50
    assert abs(b - 30) <= 3 and abs(g - 30) <= 3 and abs(red - 200) <= 3


def test_a_neighbour_beyond_the_voronoi_line_does_not_pull_the_centre():
    r = 10.0
    patch = drawn_ball(17.0, 24.0, r, (30, 30, 200), size=56)
    cv2.circle(patch, (17 + 20, 24), 10, (20, 190, 220), -1, cv2.LINE_AA)  # a yellow touching it
    others = np.array([[17.0, 24.0], [37.0, 24.0]])
    x, y, *_ = fit(patch, (17.0, 24.0), r, others)
    assert np.hypot(x - 17.0, y - 24.0) < 0.3


@pytest.mark.parametrize("dots", [0, 1, 2])
def test_the_dots_of_a_white_are_counted(dots):
    r = 12.0
    patch = drawn_ball(24.2, 23.7, r, WHITE, dots=dots)
    *_, inner, dd, si = fit(patch, (24.0, 24.0), r)
    d = DEFAULT_DETECTION
    count, spread = ballfit.count_dots(dd, si, inner, r, d.dot_darker_share, d.dot_fit_radii,
                                       d.dot_within_radii, d.dot_most_area_share,
                                       d.dot_elongation_ratio)
    assert count == dots
    # two dots 0.6 radii apart: their pixels spread about 0.3 radii along their axis
    assert (spread > 0.2 * r) if dots == 2 else (spread < 0.15 * r)


def test_the_warm_up_loads_what_the_detection_calls():
    """One compiled version of each function: the warm-up's inputs have the detection's types
    (another would be compiled, seconds, in the middle of the first frames)."""
    ballfit.warm_up()
    loaded = (set(ballfit.fit_ball.signatures), set(ballfit.count_dots.signatures))
    img = np.empty((720, 1280, 3), np.uint8)
    img[:] = CLOTH
    img += np.random.default_rng(1).integers(0, 3, img.shape, dtype=np.uint8)
    from tests.vision.test_detect import calibration, draw_ball  # (the drawn table)

    cal = calibration()
    draw_ball(img, cal, (1200.0, 700.0), "white", dots=2)
    draw_ball(img, cal, (2500.0, 900.0), "red")
    found = detect_frame(img, cal)
    assert len(found) == 2
    assert (set(ballfit.fit_ball.signatures), set(ballfit.count_dots.signatures)) == loaded
