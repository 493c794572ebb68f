"""The ``kaisa detect`` and ``kaisa track`` subcommands (hooked into the CLI by ``referee``).

Each parser sets ``run=`` a function(args) -> exit code. Bad input raises ``CalibrationError`` or
``VisionError`` (both ``KaisaError``) with a one-line message; the CLI prints it and exits 2.
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
from vision.tracking import track_video, write_tracks_csv

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


def _read_frame(path: Path, index: int) -> Frame:
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


def _calibration_for(args: argparse.Namespace, frame: Frame | None = None) -> Calibration:
    if args.calibration is not None:
        return load_calibration(args.calibration)
    table = TableSpec()
    if args.input.suffix.lower() in VIDEO_SUFFIXES:
        return detect_table_in_video(args.input, table).calibration
    assert frame is not None
    return find_table(frame, table)


def _check_size(cal: Calibration, frame: Frame) -> None:
    h, w = frame.shape[:2]
    if (w, h) != cal.image_size:
        raise CalibrationError(f"expected {cal.image_size[0]}x{cal.image_size[1]} frames (the "
                               f"calibration's image size), got {w}x{h}", "calibration")


def run_detect(args: argparse.Namespace) -> int:
    if args.frame < 0:
        raise VisionError(f"expected --frame >= 0, got {args.frame}")
    frame = _read_frame(args.input, args.frame)
    cal = _calibration_for(args, frame)
    _check_size(cal, frame)
    found: list[Detection] = detect_frame(frame, cal)
    for det in found:
        sys.stdout.write(json.dumps(det.to_json()) + "\n")
    return 0


def run_track(args: argparse.Namespace) -> int:
    if args.input.suffix.lower() not in VIDEO_SUFFIXES:
        raise VisionError(f"expected a video ({', '.join(sorted(VIDEO_SUFFIXES))}), got "
                          f"{str(args.input)!r}")
    if not args.input.is_file():
        raise VisionError(f"expected a video file, found nothing at {str(args.input)!r}")
    cal = _calibration_for(args)
    first = _read_frame(args.input, 0)
    _check_size(cal, first)
    out: Path = args.output
    n = write_tracks_csv(out, track_video(args.input, cal, cal.table, cue_ball=args.cue_ball))
    print(f"tracks: {out} ({n} frames)", file=sys.stderr)
    return 0


def add_vision_commands(subparsers: Any) -> None:
    """Add ``detect`` and ``track`` to the ``kaisa`` subcommands."""
    det = subparsers.add_parser("detect", help="every ball seen in one frame, as JSON lines")
    det.add_argument("input", type=Path, metavar="IMAGE_OR_VIDEO")
    det.add_argument("--frame", type=int, default=0, help="frame index in a video (default 0)")
    det.add_argument("--calibration", type=Path, default=None,
                     help="a *.calib.json (default: find the table in the input)")
    det.set_defaults(run=run_detect)
    trk = subparsers.add_parser("track", help="ball positions for every frame (tracks CSV)")
    trk.add_argument("input", type=Path, metavar="VIDEO")
    trk.add_argument("--calibration", type=Path, default=None,
                     help="a *.calib.json (default: find the table in the video)")
    trk.add_argument("-o", "--output", type=Path, required=True,
                     help="the tracks CSV to write (required: a labelled clip's own "
                          "VIDEO.tracks.csv must never be overwritten by default)")
    trk.add_argument("--cue-ball", choices=["W1", "W2"], default=None,
                     help="the white struck first (the shooter's), to name the whites when "
                          "their dots are not seen")
    trk.set_defaults(run=run_track)
