"""The synthetic overhead camera: a pinhole with radial distortion over the table.

Frames (DESIGN.md): the *table frame* is RULES.md §1 in millimetres (x from the head cushion nose
toward the foot, y from the right long cushion toward the left one) extended by z up, with z = 0
the plane of ball centres, so the cloth is at ``z = -ball_radius`` (-34 mm for 68 mm balls). The
*image frame* is OpenCV pixels (x right, y down, origin at the top-left pixel's centre).

The lens is OpenCV's model with ``distortion = [k1, k2, 0, 0, 0]``: a table point goes to camera
coordinates ``X_c = R X + t``, to normalised coordinates ``(x, y) = X_c[:2] / X_c[2]``, is scaled by
``1 + k1 r^2 + k2 r^4`` and mapped to pixels by the camera matrix. *Undistorted pixels* are the
pixels of the same camera without the radial factor; the calibration's homography acts on those.

:func:`random_pose` frames the table the way DESIGN.md expects a club webcam to: long axis
horizontal, the head cushion (x = 0) at the left of the image, the right long cushion (y = 0) at the
bottom (a camera looking straight down, not a mirror image).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, cast

import cv2
import numpy as np
from numpy.typing import ArrayLike, NDArray

from rules.table import TableSpec

FloatArray = NDArray[np.float64]

CALIBRATION_FORMAT = "kaisa-calibration/1"

# Base orientation (table -> camera) of a camera looking straight down with the head at the left:
# image x = table +x, image y (down) = table -y, optical axis = table -z. Right-handed.
_DOWN: FloatArray = np.array([[1.0, 0.0, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, -1.0]])


def _matrix(value: ArrayLike, shape: tuple[int, ...],
            what: str) -> tuple[tuple[float, ...], ...] | tuple[float, ...]:
    arr = np.asarray(value, dtype=np.float64)
    if arr.shape != shape or not np.all(np.isfinite(arr)):
        raise ValueError(f"expected {what} as finite numbers of shape {shape}, got {arr.shape}")
    return tuple(map(tuple, arr)) if arr.ndim == 2 else tuple(float(v) for v in arr)


@dataclass(frozen=True)
class CameraPose:
    """A calibrated camera: intrinsics (pixels), pose (table frame, mm) and lens distortion.

    ``rotation`` (3x3) and ``translation`` (3,) map table-frame points to camera coordinates
    (``X_c = rotation @ X + translation``, camera z along the optical axis). ``image_size`` is
    ``(width, height)`` in pixels.
    """

    fx: float
    fy: float
    cx: float
    cy: float
    rotation: tuple[tuple[float, ...], ...]
    translation: tuple[float, ...]
    k1: float = 0.0
    k2: float = 0.0
    image_size: tuple[int, int] = (1280, 720)

    def __post_init__(self) -> None:
        object.__setattr__(self, "rotation", _matrix(self.rotation, (3, 3), "rotation"))
        object.__setattr__(self, "translation", _matrix(self.translation, (3,), "translation"))
        r = np.asarray(self.rotation)
        if not np.allclose(r @ r.T, np.eye(3), atol=1e-9) or np.linalg.det(r) < 0:
            raise ValueError("expected a proper rotation matrix (orthonormal, det +1)")
        if not (self.fx > 0 and self.fy > 0):
            raise ValueError(f"expected positive focal lengths, got fx={self.fx}, fy={self.fy}")
        w, h = self.image_size
        if int(w) != w or int(h) != h or w <= 0 or h <= 0:
            raise ValueError(f"expected image_size (width, height) > 0, got {self.image_size}")

    # --- matrices --------------------------------------------------------------------------
    @property
    def R(self) -> FloatArray:
        """Rotation table -> camera (3x3)."""
        return np.array(self.rotation, dtype=np.float64)

    @property
    def t(self) -> FloatArray:
        """Translation table -> camera (mm)."""
        return np.array(self.translation, dtype=np.float64)

    @property
    def centre(self) -> FloatArray:
        """The camera's optical centre in the table frame (mm)."""
        return -self.R.T @ self.t

    @property
    def camera_matrix(self) -> FloatArray:
        return np.array([[self.fx, 0.0, self.cx], [0.0, self.fy, self.cy], [0.0, 0.0, 1.0]])

    @property
    def distortion(self) -> FloatArray:
        """OpenCV's ``[k1, k2, p1, p2, k3]``."""
        return np.array([self.k1, self.k2, 0.0, 0.0, 0.0])

    # --- projection ------------------------------------------------------------------------
    def _radial(self, r2: FloatArray) -> FloatArray:
        return 1.0 + r2 * (self.k1 + r2 * self.k2)

    def project(self, points_xyz: ArrayLike) -> FloatArray:
        """Table-frame points (N, 3) in mm -> distorted image pixels (N, 2)."""
        p = np.asarray(points_xyz, dtype=np.float64).reshape(-1, 3)
        xc = p @ self.R.T + self.t
        n = xc[:, :2] / xc[:, 2:3]
        n = n * self._radial(np.sum(n * n, axis=1))[:, None]
        return np.stack([self.fx * n[:, 0] + self.cx, self.fy * n[:, 1] + self.cy], axis=1)

    def normalised(self, pixels: ArrayLike) -> FloatArray:
        """Distorted image pixels (N, 2) -> undistorted normalised coordinates (N, 2).

        Newton's method on the radial factor: exact to ~1e-12 for any monotonic lens in a few
        steps (the plain fixed-point iteration converges slowly for strong barrel distortion).
        """
        p = np.asarray(pixels, dtype=np.float64).reshape(-1, 2)
        xd = (p[:, 0] - self.cx) / self.fx
        yd = (p[:, 1] - self.cy) / self.fy
        rd = np.hypot(xd, yd)
        r = rd.copy()
        for _ in range(30):
            r2 = r * r
            f = r * self._radial(r2) - rd
            df = 1.0 + r2 * (3.0 * self.k1 + 5.0 * self.k2 * r2)
            step = f / df
            r -= step
            if float(np.max(np.abs(step), initial=0.0)) < 1e-13:
                break
        scale = np.where(rd > 0, r / np.where(rd > 0, rd, 1.0), 1.0)
        return np.stack([xd * scale, yd * scale], axis=1)

    def undistort(self, pixels: ArrayLike) -> FloatArray:
        """Distorted image pixels (N, 2) -> undistorted pixels (N, 2)."""
        n = self.normalised(pixels)
        return np.stack([self.fx * n[:, 0] + self.cx, self.fy * n[:, 1] + self.cy], axis=1)

    def rays(self, pixels: ArrayLike) -> FloatArray:
        """Unit view directions (N, 3) in the table frame through the given image pixels."""
        n = self.normalised(pixels)
        d = np.concatenate([n, np.ones((len(n), 1))], axis=1) @ self.R
        unit: FloatArray = d / np.linalg.norm(d, axis=1, keepdims=True)
        return unit

    def to_plane(self, pixels: ArrayLike, z_mm: float = 0.0) -> FloatArray:
        """Image pixels (N, 2) -> table (x, y) mm where their rays meet the plane ``z = z_mm``."""
        d = self.rays(pixels)
        c = self.centre
        s: FloatArray = (z_mm - c[2]) / d[:, 2]
        return c[:2] + s[:, None] * d[:, :2]

    def homography_table_to_undistorted_image(self, z_mm: float = 0.0) -> FloatArray:
        """3x3 homography: table (x, y) on the plane ``z = z_mm`` -> undistorted pixels."""
        r, t = self.R, self.t
        h = self.camera_matrix @ np.column_stack([r[:, 0], r[:, 1], r[:, 2] * z_mm + t])
        out: FloatArray = h / h[2, 2]
        return out

    def mm_per_px(self, xy_mm: ArrayLike = (0.0, 0.0), z_mm: float = 0.0) -> float:
        """Approximate size of one pixel in mm at a table point (ignores distortion)."""
        p = np.array([*np.asarray(xy_mm, dtype=np.float64), z_mm])
        depth = float((self.R @ p + self.t)[2])
        return depth / math.sqrt(self.fx * self.fy)

    def calibration_dict(self, table: TableSpec, frame: int = 0,
                         source: str = "truth") -> dict[str, Any]:
        """The true calibration as a DESIGN.md ``kaisa-calibration/1`` mapping (JSON-ready).

        ``homography_image_to_table`` maps *undistorted* pixels to table mm on the plane of ball
        centres (z = 0). ``source`` is ``"truth"`` (neither found automatically nor clicked by
        hand); note that ``calibration.model.Calibration.from_dict`` only accepts ``"auto"`` or
        ``"manual"``, so pass one of those to load it there.
        """
        h = np.linalg.inv(self.homography_table_to_undistorted_image(0.0))
        h = h / h[2, 2]
        return {
            "format": CALIBRATION_FORMAT,
            "image_size": [int(self.image_size[0]), int(self.image_size[1])],
            "table": table.to_dict(),
            "homography_image_to_table": h.tolist(),
            "camera_matrix": self.camera_matrix.tolist(),
            "distortion": self.distortion.tolist(),
            "rms_residual_mm": 0.0,
            "source": source,
            "frame": int(frame),
        }


def rotation_from_angles(tilt_x_rad: float, tilt_y_rad: float, yaw_rad: float) -> FloatArray:
    """Table -> camera rotation of a camera looking down (head at the image's left), tilted by
    ``tilt_x`` (about the image's x axis), ``tilt_y`` (about its y axis) and turned by ``yaw``
    about its optical axis (the table appears rotated by ``yaw`` in the image)."""
    tilt, _ = cv2.Rodrigues(np.array([tilt_x_rad, tilt_y_rad, yaw_rad], dtype=np.float64))
    return cast(FloatArray, tilt) @ _DOWN  # (the stubs say any number type: float64 in, out)


def overhead_pose(table: TableSpec, image_size: tuple[int, int] = (1280, 720), *,
                  height_mm: float = 3000.0, tilt_x_rad: float = 0.0, tilt_y_rad: float = 0.0,
                  yaw_rad: float = 0.0, k1: float = 0.0, k2: float = 0.0,
                  margin: float = 0.04, outer_mm: float = 200.0,
                  aim_mm: tuple[float, float] = (0.0, 0.0),
                  principal_offset_px: tuple[float, float] = (0.0, 0.0)) -> CameraPose:
    """A camera ``height_mm`` above the plane of ball centres, aimed at the table centre (plus
    ``aim_mm``), with the focal length chosen so that the table and ``outer_mm`` of rail around
    the cushion noses fill the image up to ``margin`` (a fraction of each image side) after
    distortion. Square pixels (fx = fy)."""
    w, h = image_size
    rot = rotation_from_angles(tilt_x_rad, tilt_y_rad, yaw_rad)
    cx = (w - 1) / 2 + principal_offset_px[0]
    cy = (h - 1) / 2 + principal_offset_px[1]
    # Outline of the rails, densely sampled: distortion can push an edge's middle outward.
    e = outer_mm
    x0, x1, y0, y1 = -e, table.length_mm + e, -e, table.width_mm + e
    s = np.linspace(0.0, 1.0, 41)
    outline = np.concatenate([
        np.stack([x0 + (x1 - x0) * s, np.full_like(s, y0)], 1),
        np.stack([x0 + (x1 - x0) * s, np.full_like(s, y1)], 1),
        np.stack([np.full_like(s, x0), y0 + (y1 - y0) * s], 1),
        np.stack([np.full_like(s, x1), y0 + (y1 - y0) * s], 1)])
    pts = np.concatenate([outline, np.full((len(outline), 1), -table.ball_radius_mm)], axis=1)
    mx, my = margin * w, margin * h
    aim = np.array([table.length_mm / 2 + aim_mm[0], table.width_mm / 2 + aim_mm[1], 0.0])
    axis = rot[2]  # optical axis in the table frame (points down)
    f = float(w)
    for _ in range(4):  # re-aim so that the tilted (keystoned) outline sits centred
        centre = aim - axis * (height_mm / -axis[2])
        t = -rot @ centre
        xc = pts @ rot.T + t
        n = xc[:, :2] / xc[:, 2:3]
        r2 = np.sum(n * n, axis=1)
        n = n * (1.0 + r2 * (k1 + r2 * k2))[:, None]
        with np.errstate(divide="ignore"):
            limits = np.concatenate([
                np.where(n[:, 0] > 0, (w - 1 - mx - cx) / n[:, 0], np.inf),
                np.where(n[:, 0] < 0, (cx - mx) / -n[:, 0], np.inf),
                np.where(n[:, 1] > 0, (h - 1 - my - cy) / n[:, 1], np.inf),
                np.where(n[:, 1] < 0, (cy - my) / -n[:, 1], np.inf)])
        f = float(np.min(limits))
        # offset of the outline's bounding-box centre from the principal point, in mm at the aim
        off = (n.max(axis=0) + n.min(axis=0)) / 2 * height_mm
        aim = aim + rot[:2, :].T @ np.array([off[0], off[1]]) * np.array([1.0, 1.0, 0.0])
    return CameraPose(fx=f, fy=f, cx=cx, cy=cy,
                      rotation=tuple(tuple(float(v) for v in row) for row in rot),
                      translation=tuple(float(v) for v in t), k1=k1, k2=k2,
                      image_size=(int(w), int(h)))


def random_pose(rng: np.random.Generator, table: TableSpec,
                image_size: tuple[int, int] = (1280, 720), *,
                outer_mm: float = 200.0) -> CameraPose:
    """A seeded webcam placement over ``table``: 2.5-3.5 m above it, the whole table and
    ``outer_mm`` of rail in view with a 2-8 % margin, long axis horizontal with the head at the
    left, tilted by up to 5 degrees in a random direction, turned by up to 3 degrees about the
    optical axis, principal point within ~1 % of the image centre, and a webcam lens
    (k1 in [-0.25, 0.05], k2 in [-0.02, 0.08])."""
    tilt = math.radians(rng.uniform(0.0, 5.0))
    azimuth = rng.uniform(0.0, 2 * math.pi)
    w, h = image_size
    return overhead_pose(
        table, image_size,
        height_mm=float(rng.uniform(2500.0, 3500.0)),
        tilt_x_rad=tilt * math.cos(azimuth), tilt_y_rad=tilt * math.sin(azimuth),
        yaw_rad=math.radians(rng.uniform(-3.0, 3.0)),
        k1=float(rng.uniform(-0.25, 0.05)), k2=float(rng.uniform(-0.02, 0.08)),
        margin=float(rng.uniform(0.02, 0.08)), outer_mm=outer_mm,
        aim_mm=(float(rng.normal(0.0, 30.0)), float(rng.normal(0.0, 30.0))),
        principal_offset_px=(float(rng.normal(0.0, 0.006 * w)), float(rng.normal(0.0, 0.006 * h))),
    )
