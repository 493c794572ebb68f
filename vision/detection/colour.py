"""Colour classes: the balls' colours clustered per video (:class:`ColourModel`), and the
colour arithmetic of one ball's core against the cloth under it.

Colour classes are fitted per video: the detections' chromaticities are clustered and the
clusters named by relative saturation (white is the least saturated) and hue. A colour far from
every class (a blurred ball, partly see-through) is read as the nearest mixture of a class with
the cloth under it, and marked as not sure.
"""

from __future__ import annotations

import colorsys
import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.detection.params import DEFAULT_DETECTION, DetectionParams
from vision.detection.types import F32, Colour, Detection, VisionError

# Reference hues (degrees) of the named ball colours; a cluster takes the nearest name.
_HUES = {"red": 0.0, "yellow": 60.0}
KMEANS_SEED = 7  # k-means is seeded on every call: the same video always gives the same balls


def chromaticity(bgr: NDArray[Any]) -> NDArray[np.float64]:
    """(N, 3) BGR -> (N, 3) chromaticity (each row sums to 1): independent of brightness."""
    a = np.asarray(bgr, dtype=np.float64).reshape(-1, 3) + 1.0
    return np.asarray(a / a.sum(axis=1, keepdims=True), dtype=np.float64)


def _hue_sat(chroma: NDArray[np.float64]) -> tuple[float, float]:
    b, g, r = (float(v) for v in chroma)
    h, s, _ = colorsys.rgb_to_hsv(r, g, b)
    return h * 360.0, s


@dataclass(frozen=True)
class ColourModel:
    """Ball colour classes fitted to one video: cluster centres in chromaticity and their names."""

    centres: NDArray[np.float64]  # (k, 3) chromaticity (B, G, R order)
    names: tuple[str, ...]
    brightness: tuple[float, ...] | None = None  # each class's median B+G+R (None: unknown)
    # a see-through mixture's brightness is off by no more than this factor (see mixture)
    mixture_brightness_ratio: float = DEFAULT_DETECTION.mixture_brightness_ratio

    @classmethod
    def fit(cls, bgr: NDArray[Any] | Sequence[Sequence[float]],
            params: DetectionParams = DEFAULT_DETECTION) -> ColourModel:
        """Cluster the detections' core colours (k-means, k <= 4) and name the clusters.

        White is the least saturated class (below half the most saturated cluster's saturation,
        or below the mid-saturation when every cluster is alike); the others take the nearest
        reference hue (red 0°, yellow 60°) within 30°, else "other". ``params``: the
        detection's, for ``mixture_brightness_ratio``.
        """
        chroma = chromaticity(np.asarray(bgr, dtype=np.float64))
        n = len(chroma)
        if n == 0:
            raise VisionError("expected at least one ball to fit colour classes, found none")
        k = min(4, n)
        sums = np.asarray(bgr, dtype=np.float64).reshape(-1, 3).sum(axis=1)
        if k == 1:
            centres = chroma.copy()
            brightness = [float(sums[0])]
        else:
            criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 50, 1e-5)
            cv2.setRNGSeed(KMEANS_SEED)  # k-means++ draws from OpenCV's global generator
            labels, c = kmeans(chroma.astype(np.float32), k, criteria, 4)
            centres = np.asarray(c, dtype=np.float64)
            used = np.unique(labels.ravel())
            centres = centres[used]
            brightness = [float(np.median(sums[labels.ravel() == u])) for u in used]
        hs = [_hue_sat(c) for c in centres]
        sats = np.array([s for _, s in hs])
        smax = float(sats.max())
        alike = float(sats.min()) > 0.5 * smax
        names = []
        for (hue, sat) in hs:
            white = sat < 0.5 if alike else sat < 0.5 * smax
            if white:
                names.append("white")
                continue
            best, dist = "other", 30.0
            for name, ref in _HUES.items():
                d = abs((hue - ref + 180.0) % 360.0 - 180.0)
                if d <= dist:
                    best, dist = name, d
            names.append(best)
        return cls(centres=centres, names=tuple(names), brightness=tuple(brightness),
                   mixture_brightness_ratio=params.mixture_brightness_ratio)

    def is_sure(self, bgr: Colour) -> bool:
        """True when the colour is close to one class (within 0.3 of the way to the next)."""
        return self.nearest(bgr)[1]

    def nearest(self, bgr: Colour, *, sure: bool = True) -> tuple[int, bool]:
        """The nearest class's index, and whether the colour is close to it (see
        :meth:`is_sure`; not looked at, True, when not ``sure``): both from one distance
        computation, in plain floats (the same double arithmetic as :func:`chromaticity` and
        ``np.linalg.norm`` do on arrays, without their overhead on three numbers)."""
        centres, gaps = self._plain
        b, g, r = (float(v) + 1.0 for v in bgr)
        total = b + g + r
        cb, cg, cr = b / total, g / total, r / total
        i, best = 0, math.inf
        for j, (xb, xg, xr) in enumerate(centres):
            db, dg, dr = xb - cb, xg - cg, xr - cr
            dist = math.sqrt(db * db + dg * dg + dr * dr)
            if dist < best:  # the first of equals, as argmin
                i, best = j, dist
        if len(centres) == 1 or not sure:
            return i, True
        return i, best < 0.3 * gaps[i]

    def sure_name(self, bgr: Colour) -> str | None:
        """The nearest class's name when the colour is close to it (within 0.3 of the way to the
        nearest class of another name: a video's k-means may give one ball colour several
        classes), else None."""
        c = chromaticity(np.asarray(bgr, dtype=np.float64))[0]
        i = int(np.argmin(np.linalg.norm(self.centres - c, axis=1)))
        name = self.names[i]
        others = [self.centres[j] for j in range(len(self.names)) if self.names[j] != name]
        if not others:
            return name
        gap = float(np.min(np.linalg.norm(np.asarray(others) - self.centres[i], axis=1)))
        return name if float(np.linalg.norm(self.centres[i] - c)) < 0.3 * gap else None

    @functools.cached_property
    def _plain(self) -> tuple[tuple[tuple[float, float, float], ...], tuple[float, ...]]:
        """The centres as floats, and each class's distance to the nearest other class."""
        centres = tuple((float(c[0]), float(c[1]), float(c[2])) for c in self.centres)
        gaps = []
        for i in range(len(centres)):
            gap = np.linalg.norm(self.centres - self.centres[i], axis=1)
            others = gap[np.arange(len(gap)) != i]
            gaps.append(float(np.min(others)) if len(others) else math.inf)
        return centres, tuple(gaps)

    def classify(self, bgr: Colour, cloth_bgr: Colour | None = None) -> str:
        """The name of the nearest class. With the cloth's colour there, the nearest *mixture*
        of a class and the cloth (a motion-blurred ball is partly see-through)."""
        c = chromaticity(np.asarray(bgr, dtype=np.float64))[0]
        dist = np.linalg.norm(self.centres - c, axis=1)
        i = int(np.argmin(dist))
        if cloth_bgr is None or len(self.centres) == 1:
            return self.names[i]
        # close to a class (within 0.3 of the way to the next class): that class
        gap = np.linalg.norm(self.centres - self.centres[i], axis=1)
        if dist[i] < 0.3 * float(np.min(gap[np.arange(len(gap)) != i])):
            return self.names[i]
        k = self.mixture(bgr, cloth_bgr)
        return self.names[i if k is None else k]

    def mixture(self, bgr: Colour, cloth_bgr: Colour) -> int | None:
        """The class whose see-through mixture with the cloth (``cloth_bgr``) is nearest the
        colour ``bgr``, of those that explain it (None if none does)."""
        c = chromaticity(np.asarray(bgr, dtype=np.float64))[0]
        m = chromaticity(np.asarray(cloth_bgr, dtype=np.float64))[0]
        seg = self.centres - m  # (k, 3) from the cloth to each class
        alpha = np.clip(((c - m) @ seg.T) / np.maximum((seg * seg).sum(1), 1e-12), 0.0, 1.0)
        resid = np.linalg.norm(m + alpha[:, None] * seg - c, axis=1)
        # a mixture must explain most of how the colour differs from the cloth: a compression
        # ghost a little darker than the cloth, with a hint of red in it, is no see-through ball
        resid[resid > alpha * np.linalg.norm(seg, axis=1)] = np.inf
        if self.brightness is not None:
            # a share ``a`` of the ball (in pixel values) has the chromaticity share
            # a Sb / (a Sb + (1 - a) Sc): solved for a, the mixture's brightness must be seen
            sb = np.asarray(self.brightness, dtype=np.float64) + 3.0
            sc = float(np.sum(cloth_bgr)) + 3.0
            a = alpha * sc / np.maximum(sb * (1.0 - alpha) + alpha * sc, 1e-12)
            ratio = (float(np.sum(bgr)) + 3.0) / (a * sb + (1.0 - a) * sc)
            most = self.mixture_brightness_ratio
            resid[(ratio > most) | (ratio < 1.0 / most)] = np.inf
        return None if np.isinf(resid).all() else int(np.argmin(resid))



def kmeans(data: F32, k: int, criteria: tuple[int, int, float],
            attempts: int) -> tuple[NDArray[np.int32], F32]:
    """``cv2.kmeans`` of the rows of ``data`` into ``k`` clusters, seeded by k-means++ (from
    OpenCV's global generator): each row's cluster (N x 1) and the clusters' centres."""
    # (no labels given: OpenCV makes them; the stubs want an array there)
    _, labels, centres = cv2.kmeans(data, k, None, criteria, attempts,  # type: ignore[call-overload]
                                    cv2.KMEANS_PP_CENTERS)
    return labels, centres


def middle_colour(pixels: NDArray[Any]) -> NDArray[np.float64]:
    """Per-channel median of (N, 3) pixels (the upper middle for an even count), without the
    overhead of ``np.median`` on the few pixels of one ball."""
    k = len(pixels) // 2
    return np.partition(pixels.T, k, axis=1)[:, k].astype(np.float64)


def cloth_coloured(d: Detection, params: DetectionParams) -> bool:
    """The detection's core has the cloth's own colour and brightness there (each channel within
    ``cloth_like_share`` of it): no ball, whatever its shape (a compression artefact against a
    model learned from one frame, a cloth-coloured sleeve)."""
    if d.cloth_bgr is None:
        return False
    # in plain floats: the same double arithmetic as on arrays, without their overhead
    return max(abs((b + 1) / (m + 1) - 1)
               for b, m in zip(d.bgr, d.cloth_bgr, strict=True)) < params.cloth_like_share


def core_against_cloth(bgr: Sequence[float], cloth_bgr: Sequence[float]) -> tuple[float, float]:
    """A detection's core against the cloth under it: the chromaticity distance (L1) and the
    brightness ratio (of B + G + R + 3: as the foreground map's)."""
    # in plain floats: the same double arithmetic as on arrays (numpy sums three values left
    # to right), without their overhead on three numbers
    cb, cg, cr = (float(v) + 1 for v in bgr)
    mb, mg, mr = (float(v) + 1 for v in cloth_bgr)
    sc, sm = cb + cg + cr, mb + mg + mr
    return (abs(cb / sc - mb / sm) + abs(cg / sc - mg / sm) + abs(cr / sc - mr / sm),
            sc / sm)
