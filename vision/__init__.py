"""Frames -> ball detections -> tracks with the fixed identities W1 W2 R1 R2 Y -> each shot's
facts as soon as its balls rest. One package per stage: ``detection``, ``tracking``, ``shots``
(see docs/architecture.md).

Imports ``rules``, ``calibration`` and ``video`` only. Typical use::

    detector = BallDetector(calibration)                 # ball size and table area from it
    detector.learn_cloth(first_frame)                    # the empty-cloth model of this video
    detections = detector.detect(frame)                  # list[Detection], px and mm
    for result in track_video("clip.mp4", calibration):  # FrameTracks per frame
        ...
    write_tracks_csv("clip.tracks.csv", track_video("clip.mp4", calibration))
"""

from vision.detection import BallDetector, ColourModel, Detection, VisionError
from vision.tracking import BallState, FrameTracks, Tracker, track_video, write_tracks_csv

__all__ = [
    "BallDetector",
    "BallState",
    "ColourModel",
    "Detection",
    "FrameTracks",
    "Tracker",
    "VisionError",
    "track_video",
    "write_tracks_csv",
]
