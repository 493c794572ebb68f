"""The camera as the live engine watches it: every frame's time stamp and the moment it was
read, the gaps in the time stamps (a stall, a dropped connection, frames the reader fell behind
on), and the camera's state for the pages (ok, stalled, reconnecting, ended).

A gap is said, never hidden: the shot it falls in is flagged (``camera_gap``) for the operator
to confirm, since what the camera did not see cannot be judged. No cv2 here: a frame is only
passed on.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from video import FrameSource, LiveSource, TimedFrame, VideoError


@dataclass(frozen=True)
class CameraParams:
    """When a step in the time stamps is a gap, and when a quiet camera is stalled.

    ``gap_frames``: a step longer than this many frame intervals (and ``min_gap_s``) is a gap;
    ``stalled_after_s``: no frame for this long (wall clock) shows the camera as stalled (a
    live source gives up and reconnects after its own ``ReconnectPolicy.stall_s``);
    ``shot_lead_s``: a gap ending up to this long before a shot's strike is in that shot (the
    strike itself may have been lost in it)."""

    gap_frames: float = 4.0
    min_gap_s: float = 0.25
    stalled_after_s: float = 2.0
    shot_lead_s: float = 1.0

    def __post_init__(self) -> None:
        if not (self.gap_frames >= 1 and self.min_gap_s >= 0 and self.stalled_after_s > 0
                and self.shot_lead_s >= 0):
            raise ValueError(f"expected gap_frames >= 1, min_gap_s >= 0, stalled_after_s > 0, "
                             f"shot_lead_s >= 0, got {self}")


@dataclass(frozen=True)
class Gap:
    """No frame between two time stamps: ``index`` is the first frame after the gap, ``t_s``
    the time stamp of the frame before it, ``gap_s`` the step."""

    index: int
    t_s: float
    gap_s: float

    def to_dict(self, shot: str | None) -> dict[str, Any]:
        return {"t_s": round(self.t_s, 3), "gap_s": round(self.gap_s, 3), "frame": self.index,
                "shot": shot}


KEPT_TIMES = 9000  # frames whose reading time is kept (5 minutes at 30 fps)
KEPT_GAPS = 200


class WatchedSource(FrameSource):
    """A source's frames passed on as they are, each noted: its time stamp, when it was read
    (``wall``: the Unix time), gaps between time stamps. Its frames are read once, in order:
    :meth:`take` hands the first ones to the calibration, :meth:`frames` goes on from there
    (in the reader thread); a live source's reconnections are followed (its ``on_state``)."""

    def __init__(self, inner: FrameSource, params: CameraParams | None = None,
                 wall: Callable[[], float] = time.time) -> None:
        self.inner = inner
        self.name = inner.name
        self.live = inner.live
        self.params = params or CameraParams()
        self._wall = wall
        self._lock = threading.Lock()
        self._frames: Iterator[TimedFrame] | None = None
        self._read: OrderedDict[int, tuple[float, float]] = OrderedDict()  # unix, time_s
        self._gaps: deque[Gap] = deque(maxlen=KEPT_GAPS)
        self._last: TimedFrame | None = None
        self.last_unix: float | None = None  # when the latest frame was read
        self.frames_read = 0
        self.state = "starting"  # starting | ok | reconnecting | ended | lost
        self.message = ""
        if isinstance(inner, LiveSource):
            inner.on_state = self._told

    @property
    def fps(self) -> float:
        return self.inner.fps

    @property
    def frame_count(self) -> int | None:
        return self.inner.frame_count

    @property
    def size(self) -> tuple[int, int]:
        return self.inner.size

    @property
    def file_path(self) -> Path | None:
        return self.inner.file_path

    @property
    def reconnects(self) -> int:
        return self.inner.reconnects if isinstance(self.inner, LiveSource) else 0

    def _told(self, state: str, message: str) -> None:
        with self._lock:
            self.state, self.message = state, message

    def _noted(self, frame: TimedFrame) -> TimedFrame:
        now = self._wall()
        with self._lock:
            last = self._last
            if last is not None:
                step = frame.time_s - last.time_s
                if step > max(self.params.gap_frames / self.fps, self.params.min_gap_s):
                    self._gaps.append(Gap(frame.index, last.time_s, step))
            self._last = frame
            self._read[frame.index] = (now, frame.time_s)
            while len(self._read) > KEPT_TIMES:
                self._read.popitem(last=False)
            self.last_unix = now
            self.frames_read += 1
            self.state, self.message = "ok", ""
        return frame

    def _iterator(self) -> Iterator[TimedFrame]:
        if self._frames is None:
            self._frames = self.inner.frames()
        return self._frames

    def take(self, n: int) -> list[TimedFrame]:
        """The next ``n`` frames (fewer at the source's end), noted like the others."""
        frames = self._iterator()
        out = []
        for _ in range(n):
            frame = next(frames, None)
            if frame is None:
                break
            out.append(self._noted(frame))
        return out

    def frames(self) -> Iterator[TimedFrame]:
        try:
            for frame in self._iterator():
                yield self._noted(frame)
        except VideoError as err:
            self._told("lost", str(err))
            raise
        self._told("ended", f"{self.name} has no more frames")

    def close(self) -> None:
        self.inner.close()

    # --- what the engine asks ---------------------------------------------------------------
    def read_unix(self, index: int) -> float | None:
        """When frame ``index`` was read (None: not among the kept)."""
        with self._lock:
            read = self._read.get(index)
        return read[0] if read is not None else None

    def time_s(self, index: int) -> float | None:
        """Frame ``index``'s time stamp (None: not among the kept)."""
        with self._lock:
            read = self._read.get(index)
        return read[1] if read is not None else None

    def latest_time_s(self) -> float:
        with self._lock:
            return self._last.time_s if self._last is not None else 0.0

    def gaps(self) -> list[Gap]:
        with self._lock:
            return list(self._gaps)

    def gaps_in(self, strike_frame: int, rest_frame: int) -> list[Gap]:
        """The gaps inside a shot: ending after ``shot_lead_s`` before its strike frame, up to
        its rest frame."""
        lead = round(self.params.shot_lead_s * self.fps)
        return [g for g in self.gaps() if strike_frame - lead <= g.index <= rest_frame]

    def camera(self, now: float | None = None) -> tuple[str, str]:
        """The camera's state and its words now: a live source quiet for ``stalled_after_s``
        is stalled (its reading thread waits on it) until it gives a frame or reconnects."""
        now = self._wall() if now is None else now
        with self._lock:
            state, message, last = self.state, self.message, self.last_unix
        if state == "ok" and self.live and last is not None \
                and now - last > self.params.stalled_after_s:
            return "stalled", f"no frame for {now - last:.0f} s"
        return state, message
