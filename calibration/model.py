"""The calibration value: image pixels <-> table millimetres, and its ``kaisa-calibration/1`` file.

Pixels are OpenCV image coordinates (x right, y down, origin at the top-left pixel's centre). Table
millimetres are the table frame of RULES.md §1 on the *calibrated plane*: the plane of ball centres,
one ball radius above the cloth (DESIGN.md). A point goes from pixels to millimetres in two steps:
lens undistortion (OpenCV's model, ``camera_matrix`` and ``distortion = [k1, k2, p1, p2, k3]``) to
*undistorted pixels* (pixels of an ideal pinhole camera with the same camera matrix), then the
homography ``homography_image_to_table``. Without a lens model the homography acts on raw pixels.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from calibration.errors import CalibrationError
from rules.errors import KaisaError
from rules.table import Pocket, Spot, TableSpec

FORMAT = "kaisa-calibration/1"
Source = Literal["auto", "manual"]
HeadFrom = Literal["house_line", "default", "user"]
HEAD_FROM: tuple[str, ...] = ("house_line", "default", "user")
CORNER_POCKETS: tuple[Pocket, ...] = (Pocket.HR, Pocket.HL, Pocket.FR, Pocket.FL)

FloatArray = NDArray[np.float64]


# --- lens model --------------------------------------------------------------------------------
def _points(points: ArrayLike, what: str) -> FloatArray:
    """``points`` as a float (N, 2) array; a single (2,) point is accepted as N = 1."""
    arr = np.asarray(points, dtype=np.float64)
    if arr.ndim == 1 and arr.shape[0] == 2:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise CalibrationError(f"expected {what} as an (N, 2) array, got shape {arr.shape}")
    return arr


def distort_points(points_px: ArrayLike, camera_matrix: ArrayLike,
                   distortion: ArrayLike) -> FloatArray:
    """Undistorted pixels -> distorted (raw image) pixels, OpenCV's 5-parameter model."""
    p = _points(points_px, "undistorted pixels")
    k = np.asarray(camera_matrix, dtype=np.float64)
    k1, k2, p1, p2, k3 = np.asarray(distortion, dtype=np.float64)
    x = (p[:, 0] - k[0, 2]) / k[0, 0]
    y = (p[:, 1] - k[1, 2]) / k[1, 1]
    r2 = x * x + y * y
    radial = 1 + r2 * (k1 + r2 * (k2 + r2 * k3))
    xd = x * radial + 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
    yd = y * radial + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
    return np.stack([xd * k[0, 0] + k[0, 2], yd * k[1, 1] + k[1, 2]], axis=1)


def undistort_points(points_px: ArrayLike, camera_matrix: ArrayLike,
                     distortion: ArrayLike, iterations: int = 50) -> FloatArray:
    """Distorted (raw image) pixels -> undistorted pixels; inverse of :func:`distort_points`.

    Fixed-point iteration to 1e-10 normalised units (well below a micro-pixel) for the moderate
    distortion of webcams and broadcast lenses.
    """
    p = _points(points_px, "image pixels")
    k = np.asarray(camera_matrix, dtype=np.float64)
    k1, k2, p1, p2, k3 = np.asarray(distortion, dtype=np.float64)
    xd = (p[:, 0] - k[0, 2]) / k[0, 0]
    yd = (p[:, 1] - k[1, 2]) / k[1, 1]
    x, y = xd.copy(), yd.copy()
    for _ in range(iterations):
        r2 = x * x + y * y
        radial = 1 + r2 * (k1 + r2 * (k2 + r2 * k3))
        dx = 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
        dy = p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
        nx, ny = (xd - dx) / radial, (yd - dy) / radial
        step = max(float(np.max(np.abs(nx - x), initial=0.0)),
                   float(np.max(np.abs(ny - y), initial=0.0)))
        x, y = nx, ny
        if step < 1e-10:
            break
    return np.stack([x * k[0, 0] + k[0, 2], y * k[1, 1] + k[1, 2]], axis=1)


def guess_camera_matrix(image_size: tuple[int, int]) -> FloatArray:
    """A camera matrix good enough for a one-parameter lens model: focal length = image width,
    principal point at the image centre. (A wrong focal only rescales k1.)"""
    w, h = image_size
    return np.array([[w, 0.0, (w - 1) / 2], [0.0, w, (h - 1) / 2], [0.0, 0.0, 1.0]])


def table_grid(table: TableSpec, nx: int, ny: int, margin_mm: float = 0.0) -> FloatArray:
    """(nx * ny, 2) table points (mm): an even grid over the playing field, widened by
    ``margin_mm`` all round (over the rails), x varying fastest."""
    gx, gy = np.meshgrid(np.linspace(-margin_mm, table.length_mm + margin_mm, nx),
                         np.linspace(-margin_mm, table.width_mm + margin_mm, ny))
    return np.stack([gx.ravel(), gy.ravel()], axis=1)


def apply_homography(h: FloatArray, p: FloatArray) -> FloatArray:
    """(N, 2) points through a 3x3 homography."""
    q = p @ h[:, :2].T + h[:, 2]
    return q[:, :2] / q[:, 2:3]


# --- the calibration ---------------------------------------------------------------------------
def _frozen(a: ArrayLike | None, shape: tuple[int, ...], what: str) -> FloatArray | None:
    if a is None:
        return None
    try:
        arr = np.array(a, dtype=np.float64)
    except (TypeError, ValueError):
        raise CalibrationError(f"expected numbers of shape {shape}, got {a!r}", what) from None
    if arr.shape != shape:
        raise CalibrationError(f"expected shape {list(shape)}, got {list(arr.shape)}", what)
    if not np.all(np.isfinite(arr)):
        raise CalibrationError("expected finite numbers", what)
    arr.setflags(write=False)
    return arr


@dataclass(frozen=True, eq=False)
class Calibration:
    """Image <-> table mapping for one camera placement, as stored in ``*.calib.json``.

    ``homography_image_to_table`` maps undistorted pixels to table mm on the plane of ball
    centres; ``camera_matrix``/``distortion`` are both set or both None (no lens model);
    ``rms_residual_mm`` is the RMS distance of the detected cushion-nose points to their ideal
    cushion lines; ``frame`` is the first video frame the calibration was made from.

    Extra fields (DESIGN.md allows added fields; files without them read as the defaults):
    ``head_from`` says how the head end was decided ("user": given; "house_line": the drawn
    house line seen near one short end; "default": the documented default, RULES.md §1 cannot
    be told from the picture); ``checks`` holds the plausibility evidence of an automatic
    calibration (``calibration.plausibility``): ``pinhole_violation``, ``focal_px``,
    ``cushion_width_mm`` and how it was found, and ``doubtful`` with one-line ``warnings``.
    """

    image_size: tuple[int, int]
    table: TableSpec
    homography_image_to_table: FloatArray
    camera_matrix: FloatArray | None = None
    distortion: FloatArray | None = None
    rms_residual_mm: float = 0.0
    source: Source = "auto"
    frame: int = 0
    head_from: HeadFrom = "default"
    checks: Mapping[str, Any] | None = None

    @property
    def doubtful(self) -> bool:
        """True when an independent plausibility check found the calibration suspect."""
        return bool(self.checks and self.checks.get("doubtful"))

    @property
    def warnings(self) -> tuple[str, ...]:
        """One-line warnings of the plausibility checks (empty when none)."""
        return tuple(str(w) for w in (self.checks or {}).get("warnings", ()))

    def __post_init__(self) -> None:
        size = tuple(int(v) for v in self.image_size)
        if len(size) != 2 or min(size) <= 0:
            raise CalibrationError(f"expected [width, height] > 0, got {list(self.image_size)}",
                                   "image_size")
        object.__setattr__(self, "image_size", size)
        h = _frozen(self.homography_image_to_table, (3, 3), "homography_image_to_table")
        if h is None:
            raise CalibrationError("expected a 3x3 matrix, got null", "homography_image_to_table")
        if abs(np.linalg.det(h)) < 1e-300 or not np.isfinite(np.linalg.cond(h)):
            raise CalibrationError("expected an invertible 3x3 matrix", "homography_image_to_table")
        object.__setattr__(self, "homography_image_to_table", h)
        k = _frozen(self.camera_matrix, (3, 3), "camera_matrix")
        d = _frozen(self.distortion, (5,), "distortion")
        if (k is None) != (d is None):
            raise CalibrationError("expected camera_matrix and distortion both set or both null",
                                   "distortion")
        object.__setattr__(self, "camera_matrix", k)
        object.__setattr__(self, "distortion", d)
        if self.source not in ("auto", "manual"):
            raise CalibrationError(f"expected 'auto' or 'manual', got {self.source!r}", "source")
        rms = self.rms_residual_mm
        if isinstance(rms, bool) or not isinstance(rms, (int, float)) or not (
                math.isfinite(rms) and rms >= 0):
            raise CalibrationError(f"expected a non-negative number of mm, got {rms!r}",
                                   "rms_residual_mm")
        if isinstance(self.frame, bool) or not isinstance(self.frame, int) or self.frame < 0:
            raise CalibrationError(f"expected a frame index >= 0, got {self.frame!r}", "frame")
        if self.head_from not in HEAD_FROM:
            raise CalibrationError(f"expected one of {', '.join(HEAD_FROM)}, got "
                                   f"{self.head_from!r}", "head_from")
        if self.checks is not None:
            if not isinstance(self.checks, Mapping):
                raise CalibrationError(f"expected a mapping, got {type(self.checks).__name__}",
                                       "checks")
            object.__setattr__(self, "checks", dict(self.checks))

    # --- mapping ---------------------------------------------------------------------------
    @property
    def homography_table_to_image(self) -> FloatArray:
        """Table mm -> undistorted pixels."""
        inv = np.linalg.inv(self.homography_image_to_table)
        return np.asarray(inv / inv[2, 2], dtype=np.float64)

    def undistort(self, points_px: ArrayLike) -> FloatArray:
        """Raw image pixels -> undistorted pixels (a copy of the input without a lens model)."""
        p = _points(points_px, "image pixels")
        if self.camera_matrix is None or self.distortion is None:
            return p.copy()
        return undistort_points(p, self.camera_matrix, self.distortion)

    def distort(self, points_px: ArrayLike) -> FloatArray:
        """Undistorted pixels -> raw image pixels."""
        p = _points(points_px, "undistorted pixels")
        if self.camera_matrix is None or self.distortion is None:
            return p.copy()
        return distort_points(p, self.camera_matrix, self.distortion)

    def image_to_table(self, points_px: ArrayLike) -> FloatArray:
        """(N, 2) raw image pixels -> (N, 2) table mm on the plane of ball centres."""
        return apply_homography(self.homography_image_to_table, self.undistort(points_px))

    def table_to_image(self, points_mm: ArrayLike) -> FloatArray:
        """(N, 2) table mm on the plane of ball centres -> (N, 2) raw image pixels."""
        p = _points(points_mm, "table millimetres")
        return self.distort(apply_homography(self.homography_table_to_image, p))

    # --- geometry in the image -------------------------------------------------------------
    def corners_px(self) -> FloatArray:
        """The four cushion-nose corners in pixels, in the order HR, HL, FR, FL."""
        return self.table_to_image([self.table.pocket_xy(p) for p in CORNER_POCKETS])

    def pockets_px(self) -> dict[Pocket, tuple[float, float]]:
        """Each pocket's table-frame position (RULES.md §1) in pixels."""
        px = self.table_to_image([self.table.pocket_xy(p) for p in Pocket])
        return {p: (float(x), float(y)) for p, (x, y) in zip(Pocket, px, strict=True)}

    def spots_px(self) -> dict[Spot, tuple[float, float]]:
        """Each respot point in pixels."""
        px = self.table_to_image([self.table.spot_xy(s) for s in Spot])
        return {s: (float(x), float(y)) for s, (x, y) in zip(Spot, px, strict=True)}

    def mm_per_px(self) -> float:
        """Mean scale at the table centre (mm per pixel), for turning mm tolerances into pixels."""
        c = np.array([[self.table.length_mm / 2, self.table.width_mm / 2]])
        px = self.table_to_image(c)[0]
        d = self.image_to_table(px[None, :] + np.eye(2)) - c
        return float(np.mean(np.hypot(d[:, 0], d[:, 1])))

    # --- construction ----------------------------------------------------------------------
    @classmethod
    def from_corners(cls, corners_px: ArrayLike, table: TableSpec,
                     image_size: tuple[int, int], *, camera_matrix: ArrayLike | None = None,
                     distortion: ArrayLike | None = None, frame: int = 0) -> Calibration:
        """A manual calibration from the four cushion-nose corners clicked in the image, in the
        order HR, HL, FR, FL (RULES.md §1 pocket ids), raw pixels."""
        c = _points(corners_px, "corners_px")
        if c.shape != (4, 2):
            raise CalibrationError(f"expected 4 corners (HR, HL, FR, FL), got {c.shape[0]}",
                                   "corners_px")
        k = None if camera_matrix is None else np.asarray(camera_matrix, dtype=np.float64)
        d = None if distortion is None else np.asarray(distortion, dtype=np.float64)
        und = c if k is None or d is None else undistort_points(c, k, d)
        dst = np.array([table.pocket_xy(p) for p in CORNER_POCKETS])
        h = homography_from_corners(und, dst)
        return cls(image_size=image_size, table=table, homography_image_to_table=h,
                   camera_matrix=k, distortion=d, rms_residual_mm=0.0, source="manual",
                   frame=frame, head_from="user")

    # --- file format -----------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The ``kaisa-calibration/1`` mapping (JSON-ready)."""
        return {
            "format": FORMAT,
            "image_size": list(self.image_size),
            "table": self.table.to_dict(),
            "homography_image_to_table": self.homography_image_to_table.tolist(),
            "camera_matrix": None if self.camera_matrix is None else self.camera_matrix.tolist(),
            "distortion": None if self.distortion is None else self.distortion.tolist(),
            "rms_residual_mm": float(self.rms_residual_mm),
            "source": self.source,
            "frame": int(self.frame),
            "head_from": self.head_from,
            "checks": None if self.checks is None else dict(self.checks),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Calibration:
        """Read a ``kaisa-calibration/1`` mapping; unknown extra fields are ignored."""
        if not isinstance(data, Mapping):
            raise CalibrationError(f"expected a mapping, got {type(data).__name__}")
        if data.get("format") != FORMAT:
            raise CalibrationError(f"expected {FORMAT!r}, got {data.get('format')!r}", "format")
        for key in ("image_size", "table", "homography_image_to_table", "rms_residual_mm",
                    "source", "frame"):
            if key not in data:
                raise CalibrationError("missing field", key)
        try:
            table = TableSpec.from_value(data["table"])
        except KaisaError as err:
            raise CalibrationError(err.detail, err.where or "table") from None
        size = data["image_size"]
        if not isinstance(size, Sequence) or len(size) != 2 or not all(
                isinstance(v, int) and not isinstance(v, bool) for v in size):
            raise CalibrationError(f"expected [width, height] integers, got {size!r}",
                                   "image_size")
        rms = data["rms_residual_mm"]
        if isinstance(rms, int) and not isinstance(rms, bool):
            rms = float(rms)
        return cls(image_size=(size[0], size[1]), table=table,
                   homography_image_to_table=data["homography_image_to_table"],
                   camera_matrix=data.get("camera_matrix"), distortion=data.get("distortion"),
                   rms_residual_mm=rms, source=data["source"], frame=data["frame"],
                   head_from=data.get("head_from", "default"), checks=data.get("checks"))


def _normaliser(p: FloatArray) -> FloatArray:
    c = p.mean(axis=0)
    s = math.sqrt(2) / max(float(np.mean(np.hypot(*(p - c).T))), 1e-12)
    return np.array([[s, 0, -s * c[0]], [0, s, -s * c[1]], [0, 0, 1]])


def homography_from_points(src: ArrayLike, dst: ArrayLike) -> FloatArray:
    """The least-squares (normalised DLT) homography taking ``src`` (N >= 4, 2) to ``dst``,
    exact for four points; normalised so h[2, 2] = 1."""
    s, d = _points(src, "source points"), _points(dst, "target points")
    ts, td = _normaliser(s), _normaliser(d)
    sn = apply_homography(ts, s)
    dn = apply_homography(td, d)
    rows = []
    for (x, y), (u, v) in zip(sn, dn, strict=True):
        rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y, -u])
        rows.append([0, 0, 0, x, y, 1, -v * x, -v * y, -v])
    _, _, vt = np.linalg.svd(np.asarray(rows, dtype=np.float64))
    h = np.linalg.inv(td) @ vt[-1].reshape(3, 3) @ ts
    return np.asarray(h / h[2, 2], dtype=np.float64)


def homography_from_corners(src_px: ArrayLike, dst_mm: ArrayLike) -> FloatArray:
    """The exact homography taking four points to four points."""
    return homography_from_points(src_px, dst_mm)
