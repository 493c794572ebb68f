"""Videos in and out: frames decoded into the video's own planes (BGR made only where asked),
read ahead by a thread, and the frame rate. Every stage that reads a video reads it here.

Imports ``rules`` (its error type) only."""

from video.errors import VideoError
from video.frames import AnyFrame, Frame, PlanarFrame, as_bgr, video_frames
from video.reader import grey_shift, read_ahead_frames, video_fps

__all__ = [
    "AnyFrame",
    "Frame",
    "PlanarFrame",
    "VideoError",
    "as_bgr",
    "grey_shift",
    "read_ahead_frames",
    "video_fps",
    "video_frames",
]
