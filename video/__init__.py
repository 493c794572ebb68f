"""Videos in and out: frame sources (a file, a camera, a stream) handing out frames with their
index and time stamp, a file's frames decoded into the video's own planes (BGR made only where
asked), the one reader thread, the frame rate, and the one writer. Every stage that opens or
writes a video does it here.

Imports ``rules`` (its error type) only."""

from video.errors import VideoError
from video.frames import AnyFrame, Frame, PlanarFrame, as_bgr, half_picture, video_frames
from video.reader import grey_shift, read_ahead, read_ahead_frames, video_fps
from video.sources import (
    FileSource,
    FrameSource,
    LiveSource,
    PacedSource,
    ReconnectPolicy,
    SourceSpec,
    TimedFrame,
    VideoInfo,
    open_source,
    parse_spec,
    probe,
    read_frame,
)
from video.writer import BackgroundWriter, Encoding, VideoWriter, repeat_video

__all__ = [
    "AnyFrame",
    "BackgroundWriter",
    "Encoding",
    "FileSource",
    "Frame",
    "FrameSource",
    "LiveSource",
    "PacedSource",
    "PlanarFrame",
    "ReconnectPolicy",
    "SourceSpec",
    "TimedFrame",
    "VideoError",
    "VideoInfo",
    "VideoWriter",
    "as_bgr",
    "grey_shift",
    "half_picture",
    "open_source",
    "parse_spec",
    "probe",
    "read_ahead",
    "read_ahead_frames",
    "read_frame",
    "repeat_video",
    "video_fps",
    "video_frames",
]
