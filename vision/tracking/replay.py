"""The tracker's input kept, to be fed to it again: a clip's detections frame by frame, as the
detector handed them over (after the colours' fit), recorded once while the clip is tracked
(``track_video(..., detected=log.add)``).

Replayed, they give the tracker's answers to the bit, for a fraction of the cost: detection is
about three quarters of tracking a clip. So a change to the tracker, or to its parameters, is
judged on hundreds of clips in minutes (``benchmarks/retrack.py``). A change to the detection
needs the clips detected again.
"""

from __future__ import annotations

import pickle
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from rules.table import TableSpec
from vision.detection import Detection
from vision.tracking.params import DEFAULT_TRACKING, TrackingParams
from vision.tracking.repeats import RepeatsFilled
from vision.tracking.state import FrameTracks
from vision.tracking.tracker import Tracker

LOG_VERSION = 1  # raised when the form of a log (or of a Detection) changes


@dataclass
class DetectionLog:
    """What a tracker was handed, frame by frame: the frame's index, its detections and its
    picture change (see :attr:`BallDetector.picture_change`), and the video's frame rate.
    ``source``: what it was made from, in the caller's words (to tell a stale log)."""

    fps: float
    source: str = ""
    frames: list[tuple[int, list[Detection], float]] = field(default_factory=list)
    version: int = LOG_VERSION

    def add(self, index: int, detections: list[Detection], change: float) -> None:
        """One frame's input (the ``detected`` hook of ``track_video``)."""
        self.frames.append((index, list(detections), change))

    def save(self, path: Path) -> None:
        """Written whole to a temporary file first, then put in place: a killed run leaves no
        half log."""
        path.parent.mkdir(parents=True, exist_ok=True)
        part = path.with_name(path.name + ".part")
        with part.open("wb") as out:
            pickle.dump(self, out, protocol=pickle.HIGHEST_PROTOCOL)
        part.replace(path)

    @staticmethod
    def load(path: Path) -> DetectionLog | None:
        """The log at ``path``; None when there is none, or it is of another form (made by
        another version of this module), or it cannot be read: then the clip is detected
        again. (A log is a pickle: read only logs this tool wrote.)"""
        try:
            with path.open("rb") as f:
                log = pickle.load(f)
        except (OSError, EOFError, ValueError, TypeError, pickle.UnpicklingError, AttributeError,
                ImportError):
            return None
        if not isinstance(log, DetectionLog) or log.version != LOG_VERSION:
            return None
        return log


def replay_tracks(log: DetectionLog, table: TableSpec, cue_ball: str | None = None,
                  start_positions: Mapping[str, tuple[float, float]] | None = None,
                  params: TrackingParams = DEFAULT_TRACKING) -> Iterator[FrameTracks]:
    """The tracker's answers to a logged input, as ``track_video`` gives them (the same
    tracker, repeats filled, told the same ``cue_ball`` and ``start_positions``)."""
    tracker = RepeatsFilled(Tracker(table, log.fps, cue_ball=cue_ball,
                                    start_positions=start_positions, params=params))
    for index, detections, change in log.frames:
        yield from tracker.update(index, list(detections), change)
    yield from tracker.flush()
