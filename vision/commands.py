"""What ``kaisa detect`` and ``kaisa track`` do with an input (their parsers are in
``referee.cli``, which imports this module only when one of them runs: the commands that need no
video start without OpenCV). Bad input raises ``CalibrationError`` or ``VisionError`` (both
``KaisaError``) with a one-line message; the CLI prints it and exits 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, cast

import cv2
import numpy as np

from calibration import Calibration, CalibrationError, detect_table_in_video, find_table
from rules.table import TableSpec
from video import FileSource, VideoError
from video.frames import Frame
from vision.detection import Detection, VisionError, detect_frame

VIDEO_SUFFIXES = {".mp4", ".avi", ".mov", ".mkv", ".webm", ".m4v"}


def load_calibration(path: Path) -> Calibration:
    """A ``*.calib.json`` file, or a labelled clip's ``*.labels.json`` (its true calibration)."""
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise CalibrationError(f"cannot read {str(path)!r}: {err.strerror}",
                               "calibration") from None
    except json.JSONDecodeError as err:
        raise CalibrationError(f"{str(path)!r} is not JSON ({err.msg}, line {err.lineno})",
                               "calibration") from None
    if isinstance(data, dict) and "calibration" in data and "format" in data and str(
            data["format"]).startswith("kaisa-clip-labels"):
        data = data["calibration"]
    return Calibration.from_dict(data)


def read_frame(path: Path, index: int) -> Frame:
    """Frame ``index`` of a video, or an image."""
    if not path.is_file():
        raise VisionError(f"expected an image or a video, found nothing at {str(path)!r}")
    if path.suffix.lower() not in VIDEO_SUFFIXES:
        img = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if img is None:
            raise VisionError(f"expected an image OpenCV can read, could not read {str(path)!r}")
        return cast(Frame, np.asarray(img))  # (the stubs say any number type: BGR bytes)
    # (decoded in order up to it, the frames before it only grabbed: no seeking, inexact in
    # many codecs)
    try:
        for _, frame in FileSource(path, planar=False).bgr_frames(lambda i: i == index,
                                                                  index + 1):
            return frame
    except VideoError as err:
        raise VisionError(err.detail) from None
    raise VisionError(f"expected frame {index} in {str(path)!r}, the video is shorter")


def calibration_for(args: argparse.Namespace, frame: Frame | None = None) -> Calibration:
    """``--calibration``'s, else the table found in the input (a video, or ``frame``)."""
    if args.calibration is not None:
        return load_calibration(args.calibration)
    table = TableSpec()
    if args.input.suffix.lower() in VIDEO_SUFFIXES:
        return detect_table_in_video(args.input, table).calibration
    assert frame is not None
    return find_table(frame, table)


def check_size(cal: Calibration, frame: Frame) -> None:
    """The frame is of the calibration's image size."""
    h, w = frame.shape[:2]
    if (w, h) != cal.image_size:
        raise CalibrationError(f"expected {cal.image_size[0]}x{cal.image_size[1]} frames (the "
                               f"calibration's image size), got {w}x{h}", "calibration")


def run_detect(args: argparse.Namespace) -> int:
    if args.frame < 0:
        raise VisionError(f"expected --frame >= 0, got {args.frame}")
    frame = read_frame(args.input, args.frame)
    cal = calibration_for(args, frame)
    check_size(cal, frame)
    found: list[Detection] = detect_frame(frame, cal)
    for det in found:
        sys.stdout.write(json.dumps(det.to_json()) + "\n")
    return 0
