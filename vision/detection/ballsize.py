"""How big the balls are in the picture: the balls are a ruler the calibration can be checked by.

The detector expects a ball of the table preset's diameter at the calibration's scale. When the
preset is wrong (a smaller table called a 12 ft one, a camera calibrated to the wrong table), the
balls are much bigger or smaller than expected and are rejected as hands or noise. This measures
them instead: a few frames are rectified to the table plane; about each peak of contrast against
a median-smoothed cloth, the median contrast around rings gives a radial profile, whose steepest
fall is the ball's edge (see :func:`_blob_sizes`); the largest group of like sizes wins (touching
balls, a hand's knuckles and projected marks give other, smaller groups).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration import Calibration, detect_table_in_video, steady_sample
from rules.table import Pocket, TableSpec
from vision.detection.chroma import chroma_distance, chroma_planes
from vision.detection.geometry import odd
from vision.detection.params import DEFAULT_BALL_SIZE, BallSizeParams

# The rectified picture's scale: a 68 mm ball is 17 pixels across. (A resolution, not a
# threshold: the thresholds, in ball diameters, are BallSizeParams'.)
MM_PER_PX = 4.0


@dataclass(frozen=True)
class BallSize:
    """The balls' measured diameter in table mm (at the calibration's scale), from ``count``
    blobs of ``blobs`` looked at."""

    diameter_mm: float
    count: int
    blobs: int


def _rectify_maps(calibration: Calibration) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    t = calibration.table
    w, h = int(t.length_mm / MM_PER_PX), int(t.width_mm / MM_PER_PX)
    gx, gy = np.meshgrid((np.arange(w) + 0.5) * MM_PER_PX, (np.arange(h) + 0.5) * MM_PER_PX)
    p = calibration.table_to_image(np.stack([gx.ravel(), gy.ravel()], 1)).astype(np.float32)
    return p[:, 0].reshape(h, w), p[:, 1].reshape(h, w)


_RADII = np.arange(0.0, 160.0 / MM_PER_PX, 0.5)  # rectified pixels: radii up to 160 mm
_ANGLES = np.linspace(0, 2 * math.pi, 48, endpoint=False)
_RING = (_RADII[:, None] * np.cos(_ANGLES)[None, :], _RADII[:, None] * np.sin(_ANGLES)[None, :])


def _blob_sizes(top: NDArray[np.uint8], expected_px: float,
                pockets_out: NDArray[np.uint8], params: BallSizeParams) -> list[float]:
    """Diameters (rectified pixels) of the round things of one rectified frame, outside the
    pockets (``pockets_out`` is 0 near them).

    Each peak of the (smoothed) contrast against the cloth is a candidate centre. Its size is
    where the contrast, the median around a ring, falls to half the centre's: a line across a
    ball, a ring projected around it or its shadow on one side cover too few of a ring to move
    the median, and a line's own peak has no size at all. A ball is contrasted all around, well
    inside that radius, and plain cloth all around well outside it (hands and sleeves are not).
    """
    cloth = cv2.medianBlur(top, odd(params.cloth_window_diameters * expected_px)).astype(
        np.float32) + 1
    d, _, ratio = chroma_distance(top, chroma_planes(cloth))
    d += 0.5 * np.maximum(ratio - np.float32(1.0), 0)  # a white ball on pale cloth: brighter
    m = max(1, int(expected_px))  # leave out the cushions' edge
    inner = d[m:-m, m:-m]
    level = float(np.median(inner))
    spread = float(np.median(np.abs(inner - level))) * 1.4826
    smooth = cv2.GaussianBlur(d, (0, 0), expected_px / 6)
    peaks = smooth >= cv2.dilate(smooth, cv2.getStructuringElement(
        cv2.MORPH_ELLIPSE, (odd(expected_px / 2),) * 2))
    peaks &= smooth > level + 8 * spread
    peaks &= pockets_out.astype(bool)
    # not by the cushions: the marks projected where a drawn path meets them, a ball's shadow
    # on the cushion's face
    e = int(params.cushion_reach_diameters * expected_px)
    peaks[:e], peaks[-e:], peaks[:, :e], peaks[:, -e:] = False, False, False, False
    ys, xs = np.nonzero(peaks)
    strongest = np.argsort(-smooth[ys, xs])[:params.most_peaks]
    sizes = []
    for x, y in zip(xs[strongest], ys[strongest], strict=True):
        found = _half_radius(d, float(x), float(y), level)
        if found is None:
            continue
        # once more about the middle of what is above half there (a highlight or a shadow
        # moves the contrast's peak off the ball's centre)
        r, ring, half = found
        cx, cy = _middle_above(d, float(x), float(y), 1.2 * r, half)
        found = _half_radius(d, cx, cy, level)
        if found is None:
            continue
        r, ring, half = found
        r = _edge_radius(np.median(ring, axis=1), r, params)
        if not (params.smallest_ball_diameters * expected_px <= 2 * r
                <= params.largest_ball_diameters * expected_px):
            continue
        inside = ring[int(np.searchsorted(_RADII, 0.6 * r))]
        outside = ring[min(len(_RADII) - 1, int(np.searchsorted(_RADII, 1.5 * r)))]
        if (np.mean(inside > half) >= params.round_share
                and np.mean(outside < half) >= params.round_share):
            sizes.append(2 * r)

    return sizes


def _half_radius(d: NDArray[np.float32], x: float, y: float,
                 level: float) -> tuple[float, NDArray[np.float32], float] | None:
    """The radius about (x, y) where the ring median of ``d`` falls to half way from the
    centre's value to the cloth's ``level``; the rings sampled; that half value."""
    ring = np.asarray(cv2.remap(d, (x + _RING[0]).astype(np.float32),
                                (y + _RING[1]).astype(np.float32), cv2.INTER_LINEAR), np.float32)
    profile = np.median(ring, axis=1)  # one value per radius
    half = 0.5 * (float(profile[:2].max()) + level)
    below = np.nonzero(profile < half)[0]
    if len(below) == 0 or below[0] == 0:
        return None
    k = int(below[0])
    a, b = float(profile[k - 1]), float(profile[k])
    r = _RADII[k - 1] + (a - half) / max(a - b, 1e-9) * (_RADII[k] - _RADII[k - 1])
    return float(r), ring, half


def _edge_radius(profile: NDArray[np.float32], r_half: float, params: BallSizeParams) -> float:
    """Where the ring profile falls fastest near the half-contrast radius: the ball's edge.
    (A white ball's contrast peaks at its highlight and falls off over its shaded side, so half
    of the peak lies inside it; its edge is sharp, a shadow's is soft.)"""
    fall = profile[:-1] - profile[1:]
    mid = 0.5 * (_RADII[:-1] + _RADII[1:])
    near = np.nonzero((mid >= params.edge_search_least_radii * r_half)
                      & (mid <= params.edge_search_most_radii * r_half))[0]
    if len(near) == 0:
        return r_half
    k = int(near[np.argmax(fall[near])])
    if 0 < k < len(fall) - 1:  # the vertex of a parabola through the fall about its peak
        a, b, c = float(fall[k - 1]), float(fall[k]), float(fall[k + 1])
        den = a - 2 * b + c
        shift = 0.5 * (a - c) / den if den < 0 else 0.0
        return float(mid[k] + np.clip(shift, -0.5, 0.5) * (mid[1] - mid[0]))
    return float(mid[k])


def _middle_above(d: NDArray[np.float32], x: float, y: float, reach: float,
                  half: float) -> tuple[float, float]:
    """The centroid of the pixels of ``d`` above ``half`` within ``reach`` of (x, y)."""
    h, w = d.shape
    x0, y0 = max(0, int(x - reach)), max(0, int(y - reach))
    x1, y1 = min(w, int(x + reach) + 2), min(h, int(y + reach) + 2)
    gy, gx = np.mgrid[y0:y1, x0:x1]
    keep = (d[y0:y1, x0:x1] > half) & ((gx - x) ** 2 + (gy - y) ** 2 <= reach * reach)
    if not keep.any():
        return x, y
    return float(gx[keep].mean()), float(gy[keep].mean())


def most_common_size(sizes: Sequence[float],
                     params: BallSizeParams = DEFAULT_BALL_SIZE) -> tuple[float, int]:
    """The median of the largest group of sizes within ``size_window_share`` of one another, and
    how many are in it (0.0, 0 for none)."""
    s = np.sort(np.asarray(sizes, dtype=np.float64))
    best = (0.0, 0)
    for i, low in enumerate(s):
        j = int(np.searchsorted(s, low * (1 + 2 * params.size_window_share), side="right"))
        if j - i > best[1]:
            best = (float(np.median(s[i:j])), j - i)
    return best


def measure_ball_size(frames: Sequence[NDArray[np.uint8]], calibration: Calibration,
                      params: BallSizeParams = DEFAULT_BALL_SIZE) -> BallSize | None:
    """The balls' diameter in table mm, from frames of the video (None: too few round blobs of
    one size to tell)."""
    mx, my = _rectify_maps(calibration)
    expected_px = calibration.table.ball_diameter_mm / MM_PER_PX
    # a pocket's hole and rim, of whatever size the real table's pockets are, are no ball
    pockets_out = np.ones(mx.shape, np.uint8)
    t = calibration.table
    for pocket in Pocket:
        x, y = t.pocket_xy(pocket)
        cv2.circle(pockets_out, (round(x / MM_PER_PX), round(y / MM_PER_PX)),
                   round(params.pocket_reach_diameters * expected_px), 0, -1)

    def sizes_in(frame: NDArray[np.uint8]) -> list[float]:
        top = np.asarray(cv2.remap(frame, mx, my, cv2.INTER_LINEAR), np.uint8)
        return _blob_sizes(top, expected_px, pockets_out, params)

    # (frame by frame on two cores: nothing else runs while the video is calibrated; 9 frames of
    # the demo in 0.3-0.4 s against 0.5-0.7 s one after another, the same sizes in their order)
    with ThreadPoolExecutor(2) as pool:
        sizes = [size for found in pool.map(sizes_in, frames) for size in found]
    size, count = most_common_size(sizes, params)
    if count < params.least_balls:
        return None
    return BallSize(size * MM_PER_PX, count, len(sizes))


def off_the_preset(diameter_mm: float, table: TableSpec,
                   params: BallSizeParams = DEFAULT_BALL_SIZE) -> bool:
    """True when a measured ball is too far from the table preset's to be the same ball (by
    more than ``most_off_share``)."""
    ratio = diameter_mm / table.ball_diameter_mm
    most = params.most_off_share
    return not 1 / (1 + most) <= ratio <= 1 + most


def table_for_the_balls(calibration: Calibration,
                        params: BallSizeParams = DEFAULT_BALL_SIZE) -> TableSpec:
    """The calibration's table, with the balls as measured (:func:`with_ball_check`) when the
    preset's are far off: the detector looks for balls of the table's size."""
    measured = (calibration.checks or {}).get("ball_diameter_mm")
    table = calibration.table
    if isinstance(measured, (int, float)) and off_the_preset(float(measured), table, params):
        return table.with_ball(float(measured))
    return table


def with_ball_check(calibration: Calibration, frames: Sequence[NDArray[np.uint8]],
                    params: BallSizeParams = DEFAULT_BALL_SIZE) -> Calibration:
    """The calibration with the balls' measured size in its ``checks`` (``ball_diameter_mm``,
    ``ball_count``) and, when it is off the table preset's by more than ``most_off_share``, a
    warning saying so: then the preset (or the calibration's scale) is wrong, and the detector,
    which expects the preset's ball, will miss the balls."""
    return _with_ball_size(calibration, measure_ball_size(frames, calibration, params),
                           calibration.table, params)


def _with_ball_size(calibration: Calibration, size: BallSize | None,
                    preset: TableSpec, params: BallSizeParams) -> Calibration:
    """:func:`with_ball_check`'s checks of a measured ``size``, warned against ``preset``."""
    checks = dict(calibration.checks or {})
    warnings = list(checks.get("warnings", ()))
    if size is None:
        checks.update(ball_diameter_mm=None, ball_count=0)
    else:
        checks.update(ball_diameter_mm=round(size.diameter_mm, 1), ball_count=size.count)
        if off_the_preset(size.diameter_mm, preset, params):
            warnings.append(
                f"the balls measure {size.diameter_mm:.0f} mm across at this calibration, the "
                f"table preset {preset.name} says {preset.ball_diameter_mm:g} mm: the preset is "
                f"not this table (or the table was found at the wrong size); the balls are "
                f"looked for at the size they measure")
    checks["warnings"] = warnings
    return replace(calibration, checks=checks)


def calibrate_for_the_balls(video: str | Path, table: TableSpec,
                            sample: Sequence[tuple[int, NDArray[np.uint8]]],
                            params: BallSizeParams = DEFAULT_BALL_SIZE) -> Calibration:
    """Calibrate from the video's sampled frames (:func:`calibration.sample_frames`) and check
    the balls (:func:`with_ball_check`); when they are far off the preset's, calibrate again
    for a table with balls of their size (the table finder uses the ball and mouth sizes: on
    the real club footage this found 3 more balls and 2 fewer phantom pots than only
    swapping the table). Only the sample frames that line up with the first are used
    (:func:`calibration.steady_sample`, once): the balls are measured in the picture the
    calibration describes."""
    sample = steady_sample(video, sample, len(sample))
    frames = [f for _, f in sample]
    first = detect_table_in_video(video, table, sample=sample, steadied=True).calibration
    size = measure_ball_size(frames, first, params)
    checked = _with_ball_size(first, size, table, params)
    fitted = table_for_the_balls(checked, params)
    if fitted == table:
        return checked
    return _with_ball_size(
        detect_table_in_video(video, fitted, sample=sample, steadied=True).calibration,
        size, table, params)
