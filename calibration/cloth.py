"""The cloth colour model, fitted from the frames themselves (any cloth colour).

The model is a Gaussian over the cloth's chromaticity, seeded from the middle of the frame and
refitted on the connected cloth region it finds; lightness only has to be well above black
(pockets, deep shadows, where chroma means nothing). Chromaticity is the a*, b* of the picture
brought to one brightness (each pixel's B, G, R scaled to a fixed sum): Lab's own a*, b* shrink
toward grey as the light falls off, and vignetting and lighting gradients over a table easily
halve the brightness between the middle and the corners, so the same cloth would drift out of a
Lab model. Scaling is exact for a linear or power-law (gamma) camera response. The darker a pixel,
the noisier its chromaticity: the model's spread grows as the inverse of the pixel's brightness
below that of the pixels it was fitted on. Modelling chroma rather than full Lab keeps the cushion
tops and the vignetted corners (same cloth, other lightness) in the region.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]

CENTRAL_FRACTION = 0.3  # the seed box: the middle 30 % of the frame in each direction
MAHALANOBIS2 = 13.8  # chi-square, 2 degrees of freedom, 99.9 %
CHROMA_NOISE = 1.0  # Lab units: a floor on the model's spread
DARK_FRACTION = 0.3  # darker than this fraction of the cloth's median lightness is not cloth


def to_lab(image_bgr: NDArray[np.uint8]) -> NDArray[np.float32]:
    """8-bit BGR -> float Lab (L in [0, 100], a* and b* about [-128, 127])."""
    img = np.asarray(image_bgr, dtype=np.uint8)
    if img.ndim == 2:
        img = np.repeat(img[:, :, None], 3, axis=2)
    lab = np.asarray(cv2.cvtColor(img, cv2.COLOR_BGR2Lab), dtype=np.float32)  # 8-bit: fast
    lab *= np.array([100.0 / 255.0, 1.0, 1.0], np.float32)
    lab -= np.array([0.0, 128.0, 128.0], np.float32)
    return lab


NORMALISED_SUM = 384.0  # B + G + R of the brightness-normalised picture (mid-grey)
SMOOTH_PX = 2.0  # Gaussian blur of the chromaticity before it is classified (noise)
CLASSIC_SMOOTH_PX = 1.5  # ... of Lab, for the classic model


@dataclass(frozen=True, eq=False)
class ClothFeatures:
    """Per-pixel values the cloth model reads: chromaticity (a*, b* of the brightness-normalised
    picture), Lab lightness and brightness (B + G + R), all lightly smoothed."""

    chroma: NDArray[np.float32]  # (H, W, 2)
    lightness: NDArray[np.float32]  # (H, W), Lab L in [0, 100]
    brightness: NDArray[np.float32]  # (H, W), B + G + R in [0, 765]

    @classmethod
    def of(cls, image_bgr: NDArray[np.uint8], lab: NDArray[np.float32] | None = None,
           invariant: bool = True) -> ClothFeatures:
        """The features of a BGR frame (``lab``: its :func:`to_lab`, if at hand). Without
        ``invariant`` the chromaticity is plain Lab a*, b* and the brightness constant (no noise
        widening): the classic model, for evenly lit pictures."""
        img = np.asarray(image_bgr, dtype=np.uint8)
        if img.ndim == 2:
            img = np.repeat(img[:, :, None], 3, axis=2)
        lab = to_lab(img) if lab is None else lab
        light = lab[..., 0]
        if not invariant:
            smooth = np.asarray(cv2.GaussianBlur(lab, (0, 0), CLASSIC_SMOOTH_PX),
                                dtype=np.float32)
            return cls(chroma=np.ascontiguousarray(smooth[..., 1:]),
                       lightness=np.ascontiguousarray(smooth[..., 0]),
                       brightness=np.full(light.shape, np.float32(NORMALISED_SUM)))
        smooth_px = SMOOTH_PX
        f = img.astype(np.float32)
        total = f.sum(axis=2)
        scale = np.float32(NORMALISED_SUM) / np.maximum(total, np.float32(1.0))
        norm = np.clip(f * scale[..., None] + np.float32(0.5), 0, 255).astype(np.uint8)
        chroma = to_lab(norm)[..., 1:]

        def blur(a: NDArray[np.float32]) -> NDArray[np.float32]:
            return np.asarray(cv2.GaussianBlur(np.ascontiguousarray(a), (0, 0), smooth_px),
                              dtype=np.float32)

        return cls(chroma=blur(chroma), lightness=blur(light), brightness=blur(total))

    def pixels(self, mask: BoolArray | tuple[slice, slice]) -> NDArray[np.float32]:
        """(K, 4) rows (a*, b*, L, brightness) of the pixels selected by ``mask``."""
        return np.concatenate([self.chroma[mask].reshape(-1, 2),
                               self.lightness[mask].reshape(-1, 1),
                               self.brightness[mask].reshape(-1, 1)], axis=1)


@dataclass(frozen=True, eq=False)
class ClothModel:
    """Gaussian over chromaticity (a*, b* at one brightness), valid at ``ref_brightness`` and
    widening as 1 / brightness below it, plus the cloth's median lightness."""

    mean_ab: FloatArray
    cov_ab: FloatArray
    median_l: float
    ref_brightness: float = NORMALISED_SUM

    def mahalanobis2(self, feats: ClothFeatures) -> NDArray[np.float32]:
        inv = np.linalg.inv(self.cov_ab)
        da = feats.chroma[..., 0] - np.float32(self.mean_ab[0])
        db = feats.chroma[..., 1] - np.float32(self.mean_ab[1])
        q = np.float32(inv[0, 0]) * da * da + np.float32(inv[1, 1]) * db * db
        q += np.float32(2 * inv[0, 1]) * da * db
        # chromaticity noise grows as 1 / brightness: scale the spread for darker pixels
        rel = np.minimum(feats.brightness / np.float32(self.ref_brightness), np.float32(1.0))
        q *= np.maximum(rel, np.float32(1e-3)) ** 2
        return np.asarray(q, dtype=np.float32)

    def mask(self, feats: ClothFeatures) -> BoolArray:
        """Pixels whose colour is this cloth's (any lightness above the dark limit)."""
        m = (self.mahalanobis2(feats) < MAHALANOBIS2) & \
            (feats.lightness > DARK_FRACTION * self.median_l)
        return np.asarray(m, dtype=bool)

    @property
    def chroma_std(self) -> float:
        """The model's largest standard deviation in Lab units (how uniform the cloth is)."""
        return float(np.sqrt(np.linalg.eigvalsh(self.cov_ab)[-1]))

    @classmethod
    def fit(cls, pixels: NDArray[np.float32]) -> ClothModel:
        """Mean and covariance of (K, 4) rows (a*, b*, L, brightness) (:meth:`ClothFeatures.
        pixels`), deviations of pixels darker than the median brightness scaled down as their
        brightness, with a noise floor on the covariance."""
        px = np.asarray(pixels).reshape(-1, 4)
        if len(px) > 100_000:  # a regular subsample is as good and much faster
            px = px[:: len(px) // 50_000]
        px = px.astype(np.float64)
        ab = px[:, 0:2]
        ref = float(np.median(px[:, 3])) if len(px) else NORMALISED_SUM
        rel = np.clip(px[:, 3] / max(ref, 1e-9), 1e-3, 1.0)
        w = rel**2
        mean = (w[:, None] * ab).sum(axis=0) / max(float(w.sum()), 1e-12)
        d = (ab - mean) * rel[:, None]
        cov = d.T @ d / max(len(d) - 1, 1) if len(ab) > 2 else np.zeros((2, 2))
        cov = cov + np.eye(2) * CHROMA_NOISE**2
        return cls(mean_ab=mean, cov_ab=cov, median_l=float(np.median(px[:, 2])),
                   ref_brightness=max(ref, 1.0))


@dataclass(frozen=True, eq=False)
class ClothRegion:
    """The cloth model and the connected cloth region it gives (holes filled)."""

    model: ClothModel
    features: ClothFeatures  # what the model was applied to
    mask: BoolArray  # the filled region, image-sized
    contour: NDArray[np.float64]  # (N, 2) outer boundary in pixels, in contour order
    area_fraction: float
    border_fraction: float  # share of the boundary that lies on the image border


def _central_box(shape: tuple[int, ...]) -> tuple[slice, slice]:
    h, w = shape[:2]
    dy, dx = int(h * CENTRAL_FRACTION / 2), int(w * CENTRAL_FRACTION / 2)
    return slice(h // 2 - dy, h // 2 + dy + 1), slice(w // 2 - dx, w // 2 + dx + 1)


def _seed_model(feats: ClothFeatures) -> ClothModel:
    """A first model from the central box: the pixels near its median colour (balls, hands and
    drawn lines in the box are a minority and fall away)."""
    box = feats.pixels(_central_box(feats.chroma.shape)).astype(np.float64)
    med = np.median(box, axis=0)
    d = np.hypot(box[:, 0] - med[0], box[:, 1] - med[1])
    keep = d <= np.quantile(d, 0.6)
    return ClothModel.fit(box[keep].astype(np.float32))


def find_cloth(image_bgr: NDArray[np.uint8], lab: NDArray[np.float32] | None = None,
               refits: int = 2, invariant: bool = True) -> ClothRegion:
    """The dominant cloth-coloured connected region through the middle of the frame (``lab``:
    the frame's :func:`to_lab`, if already at hand; ``invariant``: see
    :meth:`ClothFeatures.of`)."""
    smooth = ClothFeatures.of(image_bgr, lab, invariant)
    h, w = smooth.lightness.shape
    model = _seed_model(smooth)
    ys, xs = _central_box(smooth.lightness.shape)
    k = max(3, round(min(h, w) * 0.01)) | 1
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    region = np.zeros((h, w), np.uint8)
    for it in range(refits + 1):
        raw = model.mask(smooth).astype(np.uint8)
        raw = np.asarray(cv2.morphologyEx(raw, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)),
                         dtype=np.uint8)
        raw = np.asarray(cv2.morphologyEx(raw, cv2.MORPH_CLOSE, kernel), dtype=np.uint8)
        n, labels = cv2.connectedComponents(raw, connectivity=4)
        if n <= 1:
            region[:] = 0
            break
        counts = np.bincount(labels[ys, xs].ravel(), minlength=n)
        counts[0] = 0
        best = int(np.argmax(counts))
        if counts[best] == 0:
            region[:] = 0
            break
        region = (labels == best).astype(np.uint8)
        if it < refits:
            core = np.asarray(cv2.erode(region, kernel), dtype=np.uint8) & raw
            pixels = smooth.pixels(core.astype(bool))
            if len(pixels) > 100:
                model = ClothModel.fit(pixels)
    contours, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not contours:
        return ClothRegion(model, smooth, region.astype(bool), np.zeros((0, 2)), 0.0, 0.0)
    outer = max(contours, key=cv2.contourArea)
    filled = np.zeros((h, w), np.uint8)
    cv2.drawContours(filled, [outer], -1, 1, thickness=cv2.FILLED)
    pts = outer.reshape(-1, 2).astype(np.float64)
    on_border = (pts[:, 0] <= 1) | (pts[:, 1] <= 1) | (pts[:, 0] >= w - 2) | (pts[:, 1] >= h - 2)
    return ClothRegion(model=model, features=smooth, mask=filled.astype(bool), contour=pts,
                       area_fraction=float(filled.mean()),
                       border_fraction=float(on_border.mean()) if len(pts) else 0.0)
