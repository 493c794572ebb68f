"""Tracking: the detections of each frame given the five identities W1 W2 R1 R2 Y, frame by
frame.

Other packages import tracking's names from here, not from its modules."""

from vision.tracking.params import DEFAULT_TRACKING, TrackingParams, TrackingParamsError
from vision.tracking.state import BallState, FrameTracks, ShotStart
from vision.tracking.tracker import Tracker, track_video
from vision.tracking.tracks_csv import write_tracks_csv

__all__ = [
    "DEFAULT_TRACKING",
    "BallState",
    "FrameTracks",
    "ShotStart",
    "Tracker",
    "TrackingParams",
    "TrackingParamsError",
    "track_video",
    "write_tracks_csv",
]
