"""Detection: balls in one frame. The cloth model and the foreground, blobs, the per-ball
refinement (``ballfit``, compiled), the colour classes, and the balls' own size measured in the
frames (``ballsize``).

Other packages import detection's names from here, not from its modules."""

from vision.detection import ballfit
from vision.detection.ballsize import calibrate_for_the_balls, table_for_the_balls, with_ball_check
from vision.detection.detector import (
    BallDetector,
    ColourModel,
    Detection,
    VisionError,
    detect_frame,
)
from vision.detection.params import (
    DEFAULT_BALL_SIZE,
    DEFAULT_DETECTION,
    BallSizeParams,
    DetectionParams,
    DetectionParamsError,
)

__all__ = [
    "DEFAULT_BALL_SIZE",
    "DEFAULT_DETECTION",
    "BallDetector",
    "BallSizeParams",
    "ColourModel",
    "Detection",
    "DetectionParams",
    "DetectionParamsError",
    "VisionError",
    "ballfit",
    "calibrate_for_the_balls",
    "detect_frame",
    "table_for_the_balls",
    "with_ball_check",
]
