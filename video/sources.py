"""Frame sources: a video file, a camera (its index) or a stream (an ``rtsp://``, ``http://``...
URL), each handing out its frames with their index and time stamp in seconds.

A file is decoded by :mod:`video.frames` (the video's own planes where it can, the same pixels
as ever); its time stamps are its frames' places in it (index / frame rate). A camera or a
stream is read by OpenCV; it is *live*: its frames come when they come, each stamped with the
seconds since the source opened on the source's clock, so a consumer sees a gap (a stall, a
dropped connection) as a jump in the stamps. A live source that stops giving frames is opened
again, after a wait that doubles with each failed attempt (:class:`ReconnectPolicy`). A file
can be played at its own pace (``realtime``: the live mode tried without a camera): each frame
handed out no earlier than its time stamp after the first, none dropped.

:func:`open_source` takes what a user types (a path, ``0``, a URL) and says in one line
(:class:`~video.errors.VideoError`) what it expected when the source cannot be opened.
"""

from __future__ import annotations

import math
import re
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol, Self, cast

import cv2

from video.errors import VideoError
from video.frames import (
    DECODED_ON,
    AnyFrame,
    Frame,
    as_bgr,
    few_cores,
    kept_bgr_frames,
    planar_frames_at,
    video_frames,
)

# what a stream's address may start with (FFmpeg's protocols a camera or a server speaks)
URL_SCHEMES = ("rtsp", "rtsps", "rtmp", "rtmps", "http", "https", "udp", "tcp", "srt")
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")

Clock = Callable[[], float]
Sleep = Callable[[float], None]


@dataclass(frozen=True)
class TimedFrame:
    """A frame and where it is: ``index`` counted from the source's first frame (a file's from
    the video's first frame, also when read from a later one), ``time_s`` in seconds (a file's:
    index / fps; a live source's: since it opened, on its clock)."""

    index: int
    time_s: float
    image: AnyFrame


@dataclass(frozen=True)
class SourceSpec:
    """What a source spec names: ``kind`` file, camera or url; ``target`` the path, the
    camera's index or the URL."""

    kind: Literal["file", "camera", "url"]
    target: Path | int | str


def parse_spec(spec: str | int | Path) -> SourceSpec:
    """A camera index (an int, or a string of digits: ``"0"``; a file named so: ``./0``), a URL
    of one of :data:`URL_SCHEMES`, or a file path. Raises VideoError for an empty spec or a URL
    of another scheme."""
    if isinstance(spec, Path):
        return SourceSpec("file", spec)
    if isinstance(spec, int):
        if spec < 0:
            raise VideoError(f"expected a camera index of 0 or more, got {spec}")
        return SourceSpec("camera", spec)
    text = spec.strip()
    if not text:
        raise VideoError("expected a video file, a camera index or a stream URL, got ''")
    if text.isdigit():
        return SourceSpec("camera", int(text))
    scheme = _SCHEME.match(text)
    if scheme is not None:
        if scheme.group(1).lower() == "file":
            return SourceSpec("file", Path(text[len("file://"):]))
        if scheme.group(1).lower() not in URL_SCHEMES:
            raise VideoError(f"expected a stream URL of {'/'.join(URL_SCHEMES)}, got {text!r}")
        return SourceSpec("url", text)
    return SourceSpec("file", Path(spec))


class FrameSource:
    """Frames with their index and time stamp (:meth:`frames`), the frame rate, the frame count
    when known, the picture's size, and whether the source is live (its frames come in real
    time: a camera, a stream, a file played at its pace). Close it (or use ``with``)."""

    name: str = ""
    live: bool = False

    @property
    def fps(self) -> float:
        raise NotImplementedError

    @property
    def frame_count(self) -> int | None:
        """Frames the source announces (None: not known, or live)."""
        return None

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) in pixels."""
        raise NotImplementedError

    def frames(self) -> Iterator[TimedFrame]:
        raise NotImplementedError

    @property
    def file_path(self) -> Path | None:
        """The file behind the source (a file, a file at its pace), for what reads it again (a
        still, its calibration sample); None for a camera or a stream."""
        return None

    def close(self) -> None:
        """Let go of the device or connection (a file holds nothing between readings)."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# --- a file ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class VideoInfo:
    """What the container says: frame rate (30 when it does not say), frame count (None when
    it does not say) and (width, height)."""

    fps: float
    frame_count: int | None
    size: tuple[int, int]


def probe(path: str | Path) -> VideoInfo:
    """The file's frame rate, frame count and size as OpenCV reads them (raises VideoError when
    there is no file or OpenCV cannot open it)."""
    p = Path(path)
    if not p.is_file():
        raise VideoError(f"expected a video file, found nothing at {str(p)!r}")
    cap = cv2.VideoCapture(str(p))
    try:
        if not cap.isOpened():
            raise VideoError(f"expected a video OpenCV can decode, could not open {str(p)!r}")
        fps = float(cap.get(cv2.CAP_PROP_FPS))
        count = int(cap.get(cv2.CAP_PROP_FRAME_COUNT))
        size = (int(cap.get(cv2.CAP_PROP_FRAME_WIDTH)), int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT)))
    finally:
        cap.release()
    return VideoInfo(fps if fps > 0 else 30.0, count if count > 0 else None, size)


class FileSource(FrameSource):
    """A video file, decoded by :func:`video.frames.video_frames` (``planar``: the video's own
    planes where it can, else BGR images) from frame ``start`` on (the decoder seeks to it).
    ``fps``: the frame rate when the caller knows it (else read from the container when first
    asked: opening the video costs about as much as decoding ten frames)."""

    def __init__(self, path: str | Path, *, planar: bool = True, start: int = 0,
                 fps: float | None = None) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise VideoError(f"expected a video file, found nothing at {str(self.path)!r}")
        if start < 0:
            raise VideoError(f"expected a first frame of 0 or more, got {start}")
        self.name = str(self.path)
        self.planar = planar
        self.start = start
        self._fps = fps
        self._info: VideoInfo | None = None

    @property
    def file_path(self) -> Path | None:
        return self.path

    def info(self) -> VideoInfo:
        if self._info is None:
            self._info = probe(self.path)
        return self._info

    @property
    def fps(self) -> float:
        return self._fps if self._fps is not None else self.info().fps

    @property
    def frame_count(self) -> int | None:
        return self.info().frame_count

    @property
    def size(self) -> tuple[int, int]:
        return self.info().size

    def frames(self) -> Iterator[TimedFrame]:
        fps = self.fps
        for index, image in enumerate(video_frames(self.path, self.planar, self.start),
                                      self.start):
            yield TimedFrame(index, index / fps, image)

    def bgr_frames(self, keep: Callable[[int], bool] | None = None, stop: int | None = None
                   ) -> Iterator[tuple[int, Frame]]:
        """``(index, BGR image)`` decoded by OpenCV from ``start`` up to ``stop`` (excluded),
        with ``keep`` only the frames whose index it accepts (the others decoded, not converted
        to BGR): for reading a few frames of a file as OpenCV has always given them."""
        return kept_bgr_frames(self.path, few_cores(), self.start, keep, stop)

    def bgr_frames_at(self, indices: Sequence[int],
                      seen: Callable[[int, int], None] | None = None) -> list[tuple[int, Frame]]:
        """``(index, BGR image)`` of the frames at ``indices`` (increasing; those past the
        video's end left out), the same pictures as :meth:`bgr_frames` gives them: found by
        seeking where the video allows it exactly (:func:`video.frames.planar_frames_at`: a
        few frames of a long video without decoding all of it), else decoded in order up to
        the last. ``seen(done, of)``: told as the work goes on (frames found, or passed)."""
        if not indices:
            return []
        few = few_cores()
        found = _sought_in_turns(self.path, indices, few, seen)
        if found is not None:
            return found
        wanted, last = set(indices), indices[-1]

        def keep(i: int) -> bool:
            if seen is not None:
                seen(i + 1, last + 1)
            return i in wanted

        return list(kept_bgr_frames(self.path, few, 0, keep, last + 1))

    def count_frames(self) -> int:
        """The frames from ``start`` on, counted by decoding them (OpenCV's decoder, nothing
        converted to BGR): for a container that does not say, or a decoding benchmark."""
        cap = cv2.VideoCapture(str(self.path), cv2.CAP_ANY,
                               [cv2.CAP_PROP_N_THREADS, 1] if few_cores() else [])
        try:
            if not cap.isOpened():
                raise VideoError(f"expected a video OpenCV can decode, could not open "
                                 f"{str(self.path)!r}")
            if self.start > 0:
                cap.set(cv2.CAP_PROP_POS_FRAMES, self.start)
            n = 0
            while cap.grab():
                n += 1
            return n
        finally:
            cap.release()


# frames sought by this many decoders at once (each its own stretches from a key frame): the
# seeking is most of a calibration's reading of its sample frames, and nothing else runs then
SEEKING_DECODERS = 2


def _sought_in_turns(path: Path, indices: Sequence[int], few_cores: bool,
                     seen: Callable[[int, int], None] | None) -> list[tuple[int, Frame]] | None:
    """``(index, BGR image)`` of the frames at ``indices`` (increasing), found by
    ``SEEKING_DECODERS`` decoders in threads (:func:`video.frames.planar_frames_at`; 9 frames
    of the demo: 0.4 s against 0.6-0.8 s by one): each stretch of near frames by one decoder,
    the stretches dealt out in turn. None where they cannot be sought exactly. ``seen(done,
    of)`` is told from the threads, one at a time."""
    lock = threading.Lock()
    done = 0

    def one_found(_: int) -> None:
        nonlocal done
        with lock:
            done += 1
            if seen is not None:
                seen(done, len(indices))

    # the frames in stretches that one decoder decodes on through (see planar_frames_at), the
    # stretches dealt out in turn
    stretches: list[list[int]] = []
    for index in indices:
        if stretches and index - stretches[-1][-1] <= DECODED_ON:
            stretches[-1].append(index)
        else:
            stretches.append([index])
    decoders = min(SEEKING_DECODERS, len(stretches))

    def every(k: int) -> list[tuple[int, Frame]] | None:
        mine = [index for stretch in stretches[k::decoders] for index in stretch]
        found = planar_frames_at(path, mine, few_cores, one_found)
        return None if found is None else [(index, as_bgr(frame)) for index, frame in found]

    with ThreadPoolExecutor(decoders) as pool:
        parts = list(pool.map(every, range(decoders)))
    if any(part is None for part in parts):
        return None
    return sorted((item for part in parts if part is not None for item in part),
                  key=lambda item: item[0])


class PacedSource(FrameSource):
    """A file's frames handed out at the file's pace: each no earlier than its time stamp after
    the first (``clock`` and ``sleep`` injectable); none dropped (a consumer that falls behind
    gets them late, at once). Live, for trying the live mode without a camera. ``pace``: how
    many times faster than real time (2.0: a minute of video in 30 s; tests and benchmarks);
    the time stamps stay the file's. ``origin``: the clock's time of the video's time 0 once
    the first frame was handed out (what a frame's hand-out time is measured against)."""

    live = True

    def __init__(self, file: FileSource, clock: Clock = time.monotonic,
                 sleep: Sleep = time.sleep, pace: float = 1.0) -> None:
        if not (pace > 0 and math.isfinite(pace)):
            raise VideoError(f"expected a pace above 0 (times real time), got {pace}")
        self.file = file
        self.name = f"{file.name} (at its own pace)"
        self.pace = pace
        self.origin: float | None = None
        self._clock = clock
        self._sleep = sleep

    @property
    def fps(self) -> float:
        return self.file.fps

    @property
    def file_path(self) -> Path | None:
        return self.file.path

    @property
    def frame_count(self) -> int | None:
        return self.file.frame_count

    @property
    def size(self) -> tuple[int, int]:
        return self.file.size

    def frames(self) -> Iterator[TimedFrame]:
        origin: float | None = None  # the clock's time of the video's time 0
        for frame in self.file.frames():
            now = self._clock()
            if origin is None:
                origin = self.origin = now - frame.time_s / self.pace
            wait = origin + frame.time_s / self.pace - now
            if wait > 0:
                self._sleep(wait)
            yield frame


# --- a camera or a stream ---------------------------------------------------------------------
@dataclass(frozen=True)
class ReconnectPolicy:
    """When a live source is taken as lost and how it is opened again: a read that gives no
    frame within ``stall_s`` seconds (or fails) drops the connection; it is opened again after
    ``backoff_base_s``, then twice that after each failed attempt, at most ``backoff_max_s``;
    after ``max_attempts`` failed attempts in a row (None: never) the source gives up."""

    stall_s: float = 5.0
    backoff_base_s: float = 0.5
    backoff_max_s: float = 10.0
    max_attempts: int | None = None

    def __post_init__(self) -> None:
        if not (self.stall_s > 0 and 0 < self.backoff_base_s <= self.backoff_max_s
                and math.isfinite(self.backoff_max_s)):
            raise VideoError(f"expected stall_s > 0 and 0 < backoff_base_s <= backoff_max_s, got "
                             f"{self.stall_s}, {self.backoff_base_s}, {self.backoff_max_s}")
        if self.max_attempts is not None and self.max_attempts < 1:
            raise VideoError(f"expected max_attempts of 1 or more (or None), got "
                             f"{self.max_attempts}")

    def delay_s(self, attempt: int) -> float:
        """The wait before attempt ``attempt`` (0: the first after the connection dropped)."""
        return min(self.backoff_max_s, self.backoff_base_s * 2.0 ** min(attempt, 60))

    def gives_up(self, attempt: int) -> bool:
        return self.max_attempts is not None and attempt >= self.max_attempts


class Capture(Protocol):
    """What a live source needs of ``cv2.VideoCapture`` (a fake one in tests)."""

    def isOpened(self) -> bool: ...  # (OpenCV's names)

    def read(self) -> tuple[bool, Any]: ...

    def get(self, prop: int) -> float: ...

    def release(self) -> None: ...


OpenCapture = Callable[[int | str, ReconnectPolicy], Capture]


def open_capture(target: int | str, policy: ReconnectPolicy) -> Capture:
    """OpenCV's capture of a camera index or a URL; a URL's opening and each read give up
    after ``policy.stall_s`` (FFmpeg's time-outs; a camera's driver has its own)."""
    if isinstance(target, int):
        return cast(Capture, cv2.VideoCapture(target))
    ms = int(policy.stall_s * 1000)
    return cast(Capture, cv2.VideoCapture(target, cv2.CAP_FFMPEG,
                                          [cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, ms,
                                           cv2.CAP_PROP_READ_TIMEOUT_MSEC, ms]))


class LiveSource(FrameSource):
    """A camera or a stream read by OpenCV into BGR images. Opened at once (VideoError when it
    does not open). A read that fails (a stall past ``policy.stall_s``, a dropped connection)
    closes the capture and opens it again with the policy's backoff; the frames after it go
    on counting, and their time stamps show the gap. ``clock``, ``sleep`` and
    ``open_capture`` are injectable (tests use a fake capture and clock). ``on_state``, when
    set, is told ``("reconnecting", why)`` when the connection drops and at each attempt, and
    ``("ok", "")`` once it is open again (called in the reading thread)."""

    live = True

    def __init__(self, spec: SourceSpec, policy: ReconnectPolicy | None = None,
                 clock: Clock = time.monotonic, sleep: Sleep = time.sleep,
                 opener: OpenCapture = open_capture) -> None:
        if spec.kind == "file" or isinstance(spec.target, Path):
            raise VideoError(f"expected a camera index or a stream URL, got {spec.target!s}")
        self.target: int | str = spec.target
        self.name = f"camera {spec.target}" if spec.kind == "camera" else str(spec.target)
        self.policy = policy or ReconnectPolicy()
        self.reconnects = 0  # connections opened again
        self.on_state: Callable[[str, str], None] | None = None
        self._clock = clock
        self._sleep = sleep
        self._opener = opener
        self._capture: Capture | None = self._open()
        if self._capture is None:
            expected = ("a camera that opens" if spec.kind == "camera"
                        else "a stream that connects")
            raise VideoError(f"expected {expected}, could not open {self.name}")
        self._origin = clock()
        fps = float(self._capture.get(cv2.CAP_PROP_FPS))
        self._fps = fps if 0 < fps < 1000 else 30.0  # (a camera may say 0)
        self._size = (int(self._capture.get(cv2.CAP_PROP_FRAME_WIDTH)),
                      int(self._capture.get(cv2.CAP_PROP_FRAME_HEIGHT)))

    def _open(self) -> Capture | None:
        capture = self._opener(self.target, self.policy)
        if capture.isOpened():
            return capture
        capture.release()
        return None

    @property
    def fps(self) -> float:
        return self._fps

    @property
    def size(self) -> tuple[int, int]:
        return self._size

    def frames(self) -> Iterator[TimedFrame]:
        index = 0
        while True:
            if self._capture is None:
                self._reconnect()
            assert self._capture is not None
            ok, image = self._capture.read()
            if not ok or image is None:
                self._capture.release()
                self._capture = None
                self._tell("reconnecting", f"no frame from {self.name}: connecting again")
                continue
            yield TimedFrame(index, self._clock() - self._origin, cast(Frame, image))
            index += 1

    def _reconnect(self) -> None:
        """Open the capture again, waiting the policy's backoff before each attempt; raises
        VideoError when the policy gives up."""
        attempt = 0
        while True:
            if self.policy.gives_up(attempt):
                raise VideoError(f"expected frames from {self.name}, lost it and could not "
                                 f"open it again in {attempt} attempts")
            self._sleep(self.policy.delay_s(attempt))
            attempt += 1
            self._capture = self._open()
            if self._capture is not None:
                self.reconnects += 1
                self._tell("ok", "")
                return
            self._tell("reconnecting", f"{self.name} did not open again ({attempt} "
                                       f"{'attempt' if attempt == 1 else 'attempts'}); next in "
                                       f"{self.policy.delay_s(attempt):.1f} s")

    def _tell(self, state: str, message: str) -> None:
        if self.on_state is not None:
            self.on_state(state, message)

    def close(self) -> None:
        if self._capture is not None:
            self._capture.release()
            self._capture = None


def open_source(spec: str | int | Path, *, realtime: bool = False, planar: bool = True,
                start: int = 0, policy: ReconnectPolicy | None = None,
                clock: Clock = time.monotonic, sleep: Sleep = time.sleep,
                pace: float = 1.0) -> FrameSource:
    """The source ``spec`` names (:func:`parse_spec`). A file: :class:`FileSource` (``planar``,
    ``start``), with ``realtime`` played at its own pace (:class:`PacedSource`, ``pace`` times
    faster). A camera or a
    URL: :class:`LiveSource` (``policy``), live already (``realtime`` changes nothing; it
    starts where it is: ``start`` must be 0). Raises VideoError when the source cannot be
    opened."""
    parsed = parse_spec(spec)
    if parsed.kind == "file":
        assert isinstance(parsed.target, Path)
        file = FileSource(parsed.target, planar=planar, start=start)
        return PacedSource(file, clock, sleep, pace) if realtime else file
    if start != 0:
        raise VideoError(f"expected no first frame for a live source, got {start}")
    return LiveSource(parsed, policy, clock, sleep)


def read_frame(path: str | Path, index: int) -> Frame | None:
    """Frame ``index`` of the video as a BGR image, decoded by OpenCV after seeking to it
    (None when the video is shorter or cannot be opened): one picture, e.g. a shot's still."""
    try:
        return next(FileSource(path, start=index).bgr_frames(), (index, None))[1]
    except VideoError:
        return None
