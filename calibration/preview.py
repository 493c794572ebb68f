"""A picture of a calibration over its frame: nose lines, corners, pockets, points 1-3 and the
house line, plus (from a detection) the edge points the lines were fitted to and the rails'
sights it rests on. Drawing only: no
detection logic here, and nothing is shown on screen."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.detect import TableDetection, as_bgr_image
from calibration.errors import CalibrationError
from calibration.model import Calibration
from rules.table import Spot

LINE = (0, 255, 255)  # BGR
CORNER = (0, 0, 255)
POCKET = (255, 0, 255)
SPOT = (255, 255, 255)
HOUSE = (255, 160, 0)
INLIER = (0, 255, 0)
OUTLIER = (0, 0, 255)
SIGHT = (255, 255, 0)
SHIFT = 4  # sub-pixel drawing: coordinates scaled by 2**SHIFT


def _pt(p: NDArray[np.float64]) -> tuple[int, int]:
    return round(p[0] * (1 << SHIFT)), round(p[1] * (1 << SHIFT))


def _polyline(img: NDArray[np.uint8], cal: Calibration, a: tuple[float, float],
              b: tuple[float, float], colour: tuple[int, int, int], thickness: int = 1) -> None:
    """The table-frame segment a-b drawn in the image (bent by the lens model)."""
    s = np.linspace(0.0, 1.0, 64)[:, None]
    mm = np.asarray(a) * (1 - s) + np.asarray(b) * s
    px = cal.table_to_image(mm)
    pts = np.round(px * (1 << SHIFT)).astype(np.int32).reshape(-1, 1, 2)
    cv2.polylines(img, [pts], False, colour, thickness, cv2.LINE_AA, SHIFT)


def draw_calibration(frame: NDArray[np.uint8], calibration: Calibration,
                     detection: TableDetection | None = None) -> NDArray[np.uint8]:
    """A copy of ``frame`` with the calibration drawn over it."""
    img = as_bgr_image(frame).copy()
    cal = calibration
    t = cal.table
    L, W = t.length_mm, t.width_mm
    if detection is not None:  # the edge points, thinned: inliers green, rejected red
        for side in detection.sides:
            step = max(1, len(side.points_px) // 150)
            for p, ok in zip(side.points_px[::step], side.inliers[::step], strict=True):
                cv2.circle(img, _pt(p), 1 << SHIFT, INLIER if ok else OUTLIER, -1, cv2.LINE_AA,
                           SHIFT)
        for sight in detection.sights:  # a ring around each sight's centre as read
            cv2.circle(img, _pt(np.array(sight.image_px)), 5 << SHIFT, SIGHT, 1, cv2.LINE_AA,
                       SHIFT)
    for a, b in (((0, 0), (L, 0)), ((L, 0), (L, W)), ((L, W), (0, W)), ((0, W), (0, 0))):
        _polyline(img, cal, a, b, LINE)
    _polyline(img, cal, (t.house_line_x, 0), (t.house_line_x, W), HOUSE)
    corners = cal.corners_px()
    for p in corners:
        cv2.circle(img, _pt(p), 6 << SHIFT, CORNER, 1, cv2.LINE_AA, SHIFT)
    mm_px = cal.mm_per_px()
    for pocket, (x, y) in cal.pockets_px().items():
        r = max(3, round(t.pocket_mouth_mm(pocket) / 2 / mm_px))
        cv2.circle(img, _pt(np.array([x, y])), r << SHIFT, POCKET, 1, cv2.LINE_AA, SHIFT)
        cv2.putText(img, pocket.value, (int(x) + 6, int(y) - 6), cv2.FONT_HERSHEY_SIMPLEX, 0.5,
                    POCKET, 1, cv2.LINE_AA)
    spots = cal.spots_px()
    for spot, name in ((Spot.POINT1, "1"), (Spot.POINT2, "2"), (Spot.POINT3, "3")):
        x, y = spots[spot]
        cv2.drawMarker(img, (round(x), round(y)), SPOT, cv2.MARKER_CROSS, 14, 1)
        cv2.putText(img, name, (int(x) + 6, int(y) + 16), cv2.FONT_HERSHEY_SIMPLEX, 0.5, SPOT, 1,
                    cv2.LINE_AA)
    k1 = 0.0 if cal.distortion is None else float(cal.distortion[0])
    sights = (cal.checks or {}).get("sights")
    text = (f"{t.name} {L:g}x{W:g} mm  rms {cal.rms_residual_mm:.2f} mm"
            f"{f' ({sights} sights)' if sights else ''}  k1 {k1:+.4f}  "
            f"{mm_px:.2f} mm/px  ({cal.source})")
    (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, 0.5, 1)
    cv2.rectangle(img, (4, 4), (tw + 16, th + 16), (0, 0, 0), -1)
    cv2.putText(img, text, (10, th + 10), cv2.FONT_HERSHEY_SIMPLEX, 0.5, LINE, 1, cv2.LINE_AA)
    head = cal.table_to_image([(0.0, W / 2)])[0]
    cv2.putText(img, "head", (int(head[0]) + 8, int(head[1])), cv2.FONT_HERSHEY_SIMPLEX, 0.5,
                LINE, 1, cv2.LINE_AA)
    return img


def save_preview(path: str | Path, frame: NDArray[np.uint8], calibration: Calibration,
                 detection: TableDetection | None = None) -> Path:
    """Write :func:`draw_calibration` as a PNG; returns the path."""
    p = Path(path)
    if not cv2.imwrite(str(p), draw_calibration(frame, calibration, detection)):
        raise CalibrationError(f"could not write the preview image {str(p)!r}", "preview")
    return p
