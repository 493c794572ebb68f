"""Detection: balls in one frame. The cloth model (``cloth``) and the foreground map
(``foreground``), the ball candidates (``blobs``, ``split``, ``shapes``), the per-ball refinement
(``refine``, ``ballfit``, compiled), the colour classes (``colour``, ``classify``), run in order by
``BallDetector`` (``detector``); and the balls' own size measured in the frames (``ballsize``).

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
