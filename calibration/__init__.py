"""Image <-> table: find the table in video frames, the homography image -> table mm on the plane
of ball centres (with a radial lens model, and the cushion noses' height above that plane taken
into account), its residual, the ``kaisa-calibration/1`` file, a drift check and a bumped
camera followed.

Imports ``rules`` (geometry) only. Typical use::

    detection = detect_table_in_video("match.mp4", TableSpec())   # median of 9 frames
    calibration = detection.calibration                          # or find_table(frame, ...)
    xy_mm = calibration.image_to_table(points_px)                # (N, 2) px -> (N, 2) mm
    save_preview("calib.png", frame, calibration, detection)
"""

from calibration.bump import Bump, BumpParams, BumpWatch
from calibration.detect import TableDetection, detect_table, find_table, median_frame
from calibration.drift import Drift, DriftEvent, DriftMonitor, measure_drift
from calibration.errors import CalibrationError
from calibration.model import Calibration
from calibration.preview import draw_calibration, save_preview
from calibration.video import (
    detect_table_in_video,
    frame_count,
    read_frames,
    sample_frames,
    steady_sample,
)

__all__ = [
    "Bump",
    "BumpParams",
    "BumpWatch",
    "Calibration",
    "CalibrationError",
    "Drift",
    "DriftEvent",
    "DriftMonitor",
    "TableDetection",
    "detect_table",
    "detect_table_in_video",
    "draw_calibration",
    "find_table",
    "frame_count",
    "measure_drift",
    "median_frame",
    "read_frames",
    "sample_frames",
    "save_preview",
    "steady_sample",
]
