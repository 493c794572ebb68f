"""Reading frames for calibration: a frame generator and an evenly spread sample of a video."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from calibration.detect import CAMERA_HEIGHT_MM, MAX_RESIDUAL_MM, TableDetection, detect_table
from calibration.errors import CalibrationError
from calibration.steady import STEADY, SteadyParams, steady
from rules.table import TableSpec
from video import FileSource, VideoError, probe

Frame = NDArray[np.uint8]


def _video_error(err: VideoError) -> CalibrationError:
    return CalibrationError(err.detail, "video")


def read_frames(path: str | Path, start: int = 0, stop: int | None = None,
                step: int = 1) -> Iterator[tuple[int, Frame]]:
    """Yield ``(frame_index, bgr_frame)`` for frames start, start+step, ... < stop (or the end),
    decoded by OpenCV (:meth:`video.FileSource.bgr_frames`).

    Frames are decoded in order (no seeking, which is inexact in many codecs); skipped frames are
    only grabbed, not converted. Memory stays at one frame.
    """
    if start < 0 or step < 1 or (stop is not None and stop < start):
        raise CalibrationError(f"expected 0 <= start <= stop and step >= 1, got start={start}, "
                               f"stop={stop}, step={step}", "frames")
    try:
        source = FileSource(path, planar=False)
        yield from source.bgr_frames(lambda i: i >= start and (i - start) % step == 0, stop)
    except VideoError as err:
        raise _video_error(err) from None


def frame_count(path: str | Path) -> int:
    """The number of frames in the video (counted by decoding when the container does not say)."""
    try:
        n = probe(path).frame_count
        return n if n is not None else FileSource(path).count_frames()
    except VideoError as err:
        raise _video_error(err) from None


def sample_frames(path: str | Path, n: int = 9,
                  seen: Callable[[int, int], None] | None = None,
                  stop: int | None = None) -> list[tuple[int, Frame]]:
    """``n`` frames spread evenly over the video (first and last included), as
    ``(frame_index, bgr_frame)``: for a median frame that hands, cue and balls vanish from.
    Found by seeking where the video allows it exactly (see
    :meth:`video.FileSource.bgr_frames_at`). ``seen(k, of)``, when given, is told as the work
    goes on (k of ``of`` frames found, or read in order);
    ``stop``: spread them over the frames before this one only."""
    if n < 1:
        raise CalibrationError(f"expected at least 1 frame to sample, got {n}", "frames")
    total = frame_count(path)
    if stop is not None:
        total = min(total, max(stop, 1))
    if total <= 0:
        raise CalibrationError("expected a video with frames, found none", "video")
    wanted = sorted({round(i * (total - 1) / max(n - 1, 1)) for i in range(n)})
    try:
        out = FileSource(path, planar=False).bgr_frames_at(wanted, seen)
    except VideoError as err:
        raise _video_error(err) from None
    if not out:
        raise CalibrationError("expected a video with frames, none could be decoded", "video")
    return out


def steady_sample(path: str | Path, sample: Sequence[tuple[int, Frame]], frames: int,
                  params: SteadyParams = STEADY
                  ) -> Sequence[tuple[int, Frame]]:
    """The sample frames that show the table where the first one does
    (:mod:`calibration.steady`); when fewer than ``params.least_frames`` do, ``frames`` frames
    spread over the video up to the first moved one, those of them that line up with the first
    (a camera bumped early: its first picture is the one calibrated)."""
    keep = steady([f for _, f in sample], params)
    if bool(np.all(keep)):
        return sample
    if int(np.count_nonzero(keep)) < params.least_frames:
        moved_at = sample[int(np.flatnonzero(~keep)[0])][0]
        again = sample_frames(path, frames, stop=moved_at)
        again_keep = steady([f for _, f in again], params)
        if int(np.count_nonzero(again_keep)) > int(np.count_nonzero(keep)):
            return [s for s, k in zip(again, again_keep, strict=True) if k]
    return [s for s, k in zip(sample, keep, strict=True) if k]


def detect_table_in_video(path: str | Path, table: TableSpec | None = None, *,
                          frames: int = 9, head: str | None = None,
                          max_residual_mm: float = MAX_RESIDUAL_MM,
                          nose_height_mm: float | None = None,
                          camera_height_mm: float = CAMERA_HEIGHT_MM,
                          sample: Sequence[tuple[int, NDArray[np.uint8]]] | None = None,
                          steadied: bool = False) -> TableDetection:
    """Calibrate from a video file: the median of ``frames`` frames spread over it (so players
    and balls in motion vanish), ``frame`` set to the first of them. ``sample``: those frames
    (index, frame) when already read (:func:`sample_frames`: reading them takes a pass over the
    video); only those that line up with the first make the median (:func:`steady_sample`: a
    camera bumped mid-video), unless ``steadied`` says the sample is already so chosen. The
    other arguments are :func:`~calibration.detect.detect_table`'s."""
    if sample is None:
        sample = sample_frames(path, frames)
    if not steadied:
        sample = steady_sample(path, sample, frames)
    return detect_table([f for _, f in sample], table, head=head,
                        max_residual_mm=max_residual_mm, frame=sample[0][0],
                        nose_height_mm=nose_height_mm, camera_height_mm=camera_height_mm)
