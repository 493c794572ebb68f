"""Writing a video: H.264 in mp4 through PyAV (OpenCV's MPEG-4 'mp4v' where PyAV cannot, when
allowed), written to a side file moved into place when closed, so a failed run leaves no half
video behind. Every video the project writes is written here."""

from __future__ import annotations

import queue
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, Literal

import cv2

from video.errors import VideoError
from video.frames import Frame


@dataclass(frozen=True)
class Encoding:
    """How the frames are encoded. ``options``: the encoder's (x264's ``crf``, ``preset``,
    ``threads``); ``container_format``: the muxer's name (None: from the file's suffix);
    ``convert``: who turns the BGR images into the encoder's 4:2:0 (``"opencv"``: OpenCV's
    conversion, quicker than the encoder's own and as faithful; ``"encoder"``: PyAV's);
    ``fallback``: OpenCV's 'mp4v' when PyAV is missing or the size is odd (4:2:0 needs even
    sizes), else a VideoError."""

    codec: str = "libx264"
    options: Mapping[str, str] = field(default_factory=lambda: {"crf": "23",
                                                                 "preset": "ultrafast"})
    container_format: str | None = "mp4"
    convert: Literal["opencv", "encoder"] = "opencv"
    fallback: bool = True


# The annotated video's: the quickest preset, three times the speed of "veryfast" for twice the
# bytes.
QUICK = Encoding()


def part_path(path: Path) -> Path:
    """The side file ``path`` is written to before it is moved into place."""
    return path.with_name(f"{path.stem}.part{path.suffix or '.mp4'}")


class VideoWriter:
    """Frames (BGR images of ``size``: width, height) into a video at ``path``, ``fps`` frames a
    second, encoded as ``encoding`` says. Written to :func:`part_path` and moved into place by
    :meth:`close` (``keep=False``: removed); as a context manager, kept unless an error left
    the block. ``encoder``: the encoder used, in words; ``frames``: frames written."""

    def __init__(self, path: str | Path, size: tuple[int, int], fps: float | Fraction,
                 encoding: Encoding = QUICK) -> None:
        self.path = Path(path)
        self.part = part_path(self.path)
        self.size = size
        self.frames = 0
        self._convert = encoding.convert
        self._av: Any = None
        self._cv: Any = None
        width, height = size
        if width <= 0 or height <= 0:
            raise VideoError(f"expected a frame size above 0, got {width}x{height}")
        try:  # (here, not at the first frame: PyAV and OpenCV open the file late, or silently)
            self.part.open("wb").close()
        except OSError as err:
            raise VideoError(f"cannot write here ({err.strerror}: {str(self.part)!r})") from None
        av = _pyav()
        even = width % 2 == 0 and height % 2 == 0  # yuv420p needs even sizes
        if av is not None and even:
            try:
                container = av.open(str(self.part), "w", format=encoding.container_format)
            except (OSError, ValueError) as err:
                self.part.unlink(missing_ok=True)
                raise VideoError(f"cannot write here ({err})") from None
            try:
                stream = container.add_stream(encoding.codec,
                                              rate=Fraction(fps).limit_denominator(1001))
                stream.width, stream.height = width, height
                stream.pix_fmt = "yuv420p"
                stream.options = dict(encoding.options)
            except Exception:
                container.close()
                self.part.unlink(missing_ok=True)
                raise
            self._av = (av, container, stream)
            self.encoder = f"H.264 ({encoding.codec} via PyAV)"
        elif encoding.fallback:
            writer = cv2.VideoWriter(str(self.part), cv2.VideoWriter.fourcc(*"mp4v"),
                                     float(fps), size)
            if not writer.isOpened():
                self.part.unlink(missing_ok=True)
                raise VideoError(f"cannot write here (OpenCV could not open an mp4 video at "
                                 f"{str(self.part)!r})")
            self._cv = writer
            why = "PyAV is not installed" if av is None else "odd frame size"
            self.encoder = f"MPEG-4 'mp4v' via OpenCV ({why})"
        else:
            self.part.unlink(missing_ok=True)
            why = "PyAV installed" if av is None else f"an even frame size, got {width}x{height}"
            raise VideoError(f"expected {why} to write {str(self.path)!r} with {encoding.codec}")

    def write(self, image: Frame) -> None:
        if self._av is not None:
            av, container, stream = self._av
            if self._convert == "opencv":
                yuv = cv2.cvtColor(image, cv2.COLOR_BGR2YUV_I420)
                frame = av.VideoFrame.from_ndarray(yuv, format="yuv420p")
            else:
                frame = av.VideoFrame.from_ndarray(image, format="bgr24")
            for packet in stream.encode(frame):
                container.mux(packet)
        elif self._cv is not None:
            self._cv.write(image)
        else:
            raise VideoError(f"expected an open video to write, {str(self.path)!r} is closed")
        self.frames += 1

    def close(self, keep: bool = True) -> None:
        """Finish the video and move it into place (``keep=False``: remove it). Closing twice
        does nothing more."""
        if self._av is None and self._cv is None:
            return
        try:
            if self._av is not None:
                _, container, stream = self._av
                self._av = None
                try:
                    if keep:
                        for packet in stream.encode():
                            container.mux(packet)
                finally:
                    container.close()
            if self._cv is not None:
                self._cv.release()
                self._cv = None
        except BaseException:
            self.part.unlink(missing_ok=True)
            raise
        if keep:
            self.part.replace(self.path)
        else:
            self.part.unlink(missing_ok=True)

    def __enter__(self) -> VideoWriter:
        return self

    def __exit__(self, kind: object, *rest: object) -> None:
        self.close(keep=kind is None)


class BackgroundWriter:
    """A :class:`VideoWriter` whose encoding runs on a thread of its own (the encoder and
    OpenCV's conversion let go of the interpreter while they work), so frames are encoded while
    the caller goes on: ``write`` hands the image over (at most ``queue_size`` wait; the image
    must not change afterwards). An error of the encoder is raised by the next ``write`` or by
    ``close`` (which removes the file); ``close(keep=False)`` drops what waits and removes the
    file without a word."""

    def __init__(self, writer: VideoWriter, queue_size: int = 8) -> None:
        self.writer = writer
        self._queue: queue.Queue[Frame | None] = queue.Queue(maxsize=queue_size)
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="video-writer", daemon=True)
        self._thread.start()

    @property
    def encoder(self) -> str:
        return self.writer.encoder

    @property
    def frames(self) -> int:
        return self.writer.frames

    def _run(self) -> None:
        while (image := self._queue.get()) is not None:
            if self._error is None:
                try:
                    self.writer.write(image)
                except BaseException as err:  # (raised again in the caller's thread)
                    self._error = err

    def write(self, image: Frame) -> None:
        if self._error is not None:
            raise self._error
        self._queue.put(image)

    def close(self, keep: bool = True) -> None:
        """As :meth:`VideoWriter.close`, once the frames handed over are encoded; closing twice
        does nothing more."""
        if not self._thread.is_alive():
            return
        if not keep:
            while not self._queue.empty():
                self._queue.get_nowait()
        self._queue.put(None)
        self._thread.join()
        if self._error is not None:
            self.writer.close(keep=False)
            if keep:  # (dropping the video after the error was seen: nothing more to say)
                raise self._error
            return
        self.writer.close(keep=keep)


def _pyav() -> Any:
    """The PyAV module, or None when it is not installed."""
    try:
        import av
    except ImportError:
        return None
    return av


def repeat_video(src: str | Path, dst: str | Path, times: int) -> int:
    """Write ``src``'s video packets ``times`` times in a row into ``dst`` (each pass's time
    stamps after the last one's; no re-encoding). Returns the frames (packets) written."""
    import av

    written = 0
    with av.open(str(src)) as probe, av.open(str(dst), "w") as out:
        stream = probe.streams.video[0]
        ostream = out.add_stream_from_template(stream)
        stamps = [(p.pts, p.dts, p.duration or 0) for p in probe.demux(stream)
                  if p.pts is not None and p.dts is not None]
        # (one pass's presentation times and one frame more: the frame rate stays constant
        # over the seams, so the long video is sought by its time stamps as a camera's is)
        span = (max(p for p, _, _ in stamps) - min(p for p, _, _ in stamps)
                + max(d for _, _, d in stamps))
        for k in range(times):
            with av.open(str(src)) as inp:
                istream = inp.streams.video[0]
                for packet in inp.demux(istream):
                    if packet.pts is None or packet.dts is None:
                        continue  # (the demuxer's empty packet at the end)
                    packet.pts = packet.pts + k * span
                    packet.dts = packet.dts + k * span
                    packet.stream = ostream
                    out.mux(packet)
                    written += 1
    return written
