"""The cloth colour model, fitted from the frames themselves (any cloth colour).

The model is a Gaussian over the cloth's chromaticity (Lab a*, b*), seeded from the middle of the
frame and refitted on the connected cloth region it finds; lightness only has to be well above
black (pockets, deep shadows, where chroma means nothing). Modelling chroma rather than full Lab
keeps the cushion tops and the vignetted corners (same cloth, other lightness) in the region.
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


@dataclass(frozen=True, eq=False)
class ClothModel:
    """Gaussian over (a*, b*) plus the cloth's median lightness."""

    mean_ab: FloatArray
    cov_ab: FloatArray
    median_l: float

    def mahalanobis2(self, lab: NDArray[np.float32]) -> NDArray[np.float32]:
        inv = np.linalg.inv(self.cov_ab)
        da = lab[..., 1] - np.float32(self.mean_ab[0])
        db = lab[..., 2] - np.float32(self.mean_ab[1])
        q = np.float32(inv[0, 0]) * da * da + np.float32(inv[1, 1]) * db * db
        q += np.float32(2 * inv[0, 1]) * da * db
        return np.asarray(q, dtype=np.float32)

    def mask(self, lab: NDArray[np.float32]) -> BoolArray:
        """Pixels whose colour is this cloth's (any lightness above the dark limit)."""
        m = (self.mahalanobis2(lab) < MAHALANOBIS2) & (lab[..., 0] > DARK_FRACTION * self.median_l)
        return np.asarray(m, dtype=bool)

    @property
    def chroma_std(self) -> float:
        """The model's largest standard deviation in Lab units (how uniform the cloth is)."""
        return float(np.sqrt(np.linalg.eigvalsh(self.cov_ab)[-1]))

    @classmethod
    def fit(cls, lab_pixels: NDArray[np.float32]) -> ClothModel:
        """Mean and covariance of (K, 3) Lab pixels, with a noise floor on the covariance."""
        px = np.asarray(lab_pixels).reshape(-1, 3)
        if len(px) > 100_000:  # a regular subsample is as good and much faster
            px = px[:: len(px) // 50_000]
        px = px.astype(np.float64)
        ab = px[:, 1:3]
        cov = np.cov(ab.T) if len(ab) > 2 else np.zeros((2, 2))
        cov = cov + np.eye(2) * CHROMA_NOISE**2
        return cls(mean_ab=ab.mean(axis=0), cov_ab=cov, median_l=float(np.median(px[:, 0])))


@dataclass(frozen=True, eq=False)
class ClothRegion:
    """The cloth model and the connected cloth region it gives (holes filled)."""

    model: ClothModel
    mask: BoolArray  # the filled region, image-sized
    contour: NDArray[np.float64]  # (N, 2) outer boundary in pixels, in contour order
    area_fraction: float
    border_fraction: float  # share of the boundary that lies on the image border


def _central_box(shape: tuple[int, ...]) -> tuple[slice, slice]:
    h, w = shape[:2]
    dy, dx = int(h * CENTRAL_FRACTION / 2), int(w * CENTRAL_FRACTION / 2)
    return slice(h // 2 - dy, h // 2 + dy + 1), slice(w // 2 - dx, w // 2 + dx + 1)


def _seed_model(lab: NDArray[np.float32]) -> ClothModel:
    """A first model from the central box: the pixels near its median colour (balls, hands and
    drawn lines in the box are a minority and fall away)."""
    ys, xs = _central_box(lab.shape)
    box = lab[ys, xs].reshape(-1, 3).astype(np.float64)
    med = np.median(box, axis=0)
    d = np.hypot(box[:, 1] - med[1], box[:, 2] - med[2])
    keep = d <= np.quantile(d, 0.6)
    return ClothModel.fit(box[keep].astype(np.float32))


def find_cloth(lab: NDArray[np.float32], refits: int = 2) -> ClothRegion:
    """The dominant cloth-coloured connected region through the middle of the frame."""
    h, w = lab.shape[:2]
    smooth = np.asarray(cv2.GaussianBlur(lab, (0, 0), 1.5), dtype=np.float32)
    model = _seed_model(smooth)
    ys, xs = _central_box(lab.shape)
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
            pixels = smooth[core.astype(bool)]
            if len(pixels) > 100:
                model = ClothModel.fit(pixels)
    contours, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not contours:
        return ClothRegion(model, region.astype(bool), np.zeros((0, 2)), 0.0, 0.0)
    outer = max(contours, key=cv2.contourArea)
    filled = np.zeros((h, w), np.uint8)
    cv2.drawContours(filled, [outer], -1, 1, thickness=cv2.FILLED)
    pts = outer.reshape(-1, 2).astype(np.float64)
    on_border = (pts[:, 0] <= 1) | (pts[:, 1] <= 1) | (pts[:, 0] >= w - 2) | (pts[:, 1] >= h - 2)
    return ClothRegion(model=model, mask=filled.astype(bool), contour=pts,
                       area_fraction=float(filled.mean()),
                       border_fraction=float(on_border.mean()) if len(pts) else 0.0)
