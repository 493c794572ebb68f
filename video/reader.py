"""Reading a video: its frames decoded by a thread ahead of their use, its frame rate, and a
benchmark's stand-in for another decoder's pictures."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from queue import Empty, Queue
from typing import TypeVar

import cv2
import numpy as np

from video.errors import VideoError
from video.frames import AnyFrame, Frame, as_bgr, few_cores, video_frames
from video.sources import FrameSource, TimedFrame, probe

T = TypeVar("T")

# the reader thread prepares a frame (see read_ahead_frames) when this many wait in its queue:
# the consumer is behind. Simulated on a whole match's per-frame costs, 1 to 5 give the same
# wall time within 1 %, 7 % less than the reader always preparing (the consumer always
# preparing: 6 % more than the reader always, as the consumer is the busier thread in a
# shot); measured, 1, 2 and 4 (and the consumer always preparing) are the same within the
# shared machine's noise, 8 % less than the reader always preparing (medians of six
# alternating pairs)
PREPARED_WHEN_BEHIND = 2


@contextlib.contextmanager
def opencv_beside_the_reader() -> Iterator[None]:
    """OpenCV's calls in one thread each while a reader thread decodes beside the detection on
    two cores or fewer (both are busy already): OpenCV's pool of workers would only compete with
    them for the cores, and spin while they wait. Measured alone, the detection of the demo's
    frames took 40 % more CPU with the pool; the whole command was not measurably faster
    without it (benchmarks/HISTORY.md, thirteenth session). The answers are the same either
    way. OpenCV's own setting is restored after."""
    if not few_cores():
        yield
        return
    before = cv2.getNumThreads()
    cv2.setNumThreads(1)
    try:
        yield
    finally:
        cv2.setNumThreads(before)


# --- video --------------------------------------------------------------------------------------
# ``watch(index, time_s, frame)``: a look at every frame, in order, in the reader thread
Watch = Callable[[int, float, AnyFrame], None]


def read_ahead_frames(path: str | Path, prepare: Callable[[AnyFrame, int], T] | None = None,
                      queue_size: int = 8, adjust: Callable[[Frame], Frame] | None = None,
                      planar: bool = False, start: int = 0, watch: Watch | None = None
                      ) -> Iterator[tuple[int, AnyFrame, T | None]]:
    """Decoded frames, read ahead by a thread (decoding overlaps with detection), each with
    ``prepare(frame, index)`` (None without ``prepare``). An error in the thread is raised here.
    ``adjust``: applied to each BGR frame as it is decoded, in the reader thread. ``planar``:
    frames as the video holds them where it can (:class:`video.frames.PlanarFrame`: BGR made
    only where asked; not with ``adjust``), else BGR images. ``start``: the first frame read
    (the decoder seeks to it); indices still count from the video's first frame. ``watch``:
    called in the reader thread on every frame in order, before the frame is handed out (its
    time stamp given as 0.0: the caller knows the frame rate), for a look that carries state
    from frame to frame (the camera watch); what it finds is ready when the frame comes out.

    ``prepare`` runs in whichever thread has time for it: in the reader when the consumer is
    behind (``PREPARED_WHEN_BEHIND`` frames or more wait in the queue), else in the consumer
    as it takes the frame. Detection's cost swings from frame to frame (a still table is
    cheap, a shot dear): in the reader alone, the preparing would hold up the frames a fast
    consumer waits for; in the consumer alone, it would load the busier thread. Either way the
    same work on the same frame, so the same result (``prepare`` must not depend on the order
    of its calls: frames may be prepared out of order)."""
    frames = video_frames(path, planar=planar and adjust is None, start=start)
    ahead = _read_ahead(((index, frame, 0.0) for index, frame in enumerate(frames, start)),
                        frames, prepare, queue_size, adjust, watch)
    try:
        for index, frame, _, ready in ahead:
            yield index, frame, ready
    finally:
        ahead.close()  # (the thread stopped and the video closed now, not when collected)


def read_ahead(source: FrameSource, prepare: Callable[[AnyFrame, int], T] | None = None,
               queue_size: int = 8, adjust: Callable[[Frame], Frame] | None = None,
               watch: Watch | None = None) -> Iterator[tuple[TimedFrame, T | None]]:
    """:func:`read_ahead_frames` of any :class:`~video.sources.FrameSource` (a file, a camera,
    a stream): its frames with their index and time stamp, read by the one reader thread. The
    source is read in that thread (a live source's reconnecting too); closing this generator
    stops the thread (the source itself is the caller's to close)."""
    frames = source.frames()
    ahead = _read_ahead(((f.index, f.image, f.time_s) for f in frames), frames, prepare,
                        queue_size, adjust, watch)
    try:
        for index, frame, time_s, ready in ahead:
            yield TimedFrame(index, time_s, frame), ready
    finally:
        ahead.close()


def _read_ahead(items: Iterator[tuple[int, AnyFrame, float]], frames: Iterator[object],
                prepare: Callable[[AnyFrame, int], T] | None, queue_size: int,
                adjust: Callable[[Frame], Frame] | None, watch: Watch | None = None
                ) -> Generator[tuple[int, AnyFrame, float, T | None], None, None]:
    """``items`` (index, frame, time stamp) read by a thread ahead of their use, as
    :func:`read_ahead_frames` says; ``frames``: the decoder behind them, closed at the end."""
    # each item: the frame's index, the frame, its time stamp, and whether it was prepared,
    # with what
    q: Queue[tuple[int, AnyFrame, float, bool, T | None] | BaseException | None] = Queue(
        maxsize=queue_size)
    stop = threading.Event()

    def read() -> None:
        try:
            for index, frame, time_s in items:
                if stop.is_set():
                    break
                if adjust is not None:
                    frame = adjust(as_bgr(frame))
                if watch is not None:
                    watch(index, time_s, frame)
                if prepare is not None and q.qsize() >= PREPARED_WHEN_BEHIND:
                    q.put((index, frame, time_s, True, prepare(frame, index)))
                else:
                    q.put((index, frame, time_s, False, None))
        except Exception as e:  # handed to the consumer, raised there
            q.put(e)
        finally:
            q.put(None)

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    try:
        while True:
            item = q.get()
            if item is None:
                break
            if isinstance(item, BaseException):
                raise item
            index, frame, time_s, prepared, ready = item
            if prepare is not None and not prepared:
                ready = prepare(frame, index)
            yield index, frame, time_s, ready
    finally:
        stop.set()
        while thread.is_alive():
            with contextlib.suppress(Empty):
                q.get_nowait()
            thread.join(timeout=0.01)
        close = getattr(frames, "close", None)
        if close is not None:  # (a generator: its video closed now, not when collected)
            close()


def grey_shift(levels: int) -> Callable[[Frame], Frame] | None:
    """An ``adjust`` for :func:`track_video`: every channel of every frame ``levels`` grey
    levels brighter (negative: darker), saturating; None for 0. A benchmark's stand-in for the
    slightly different pictures another decoder or colour conversion gives (about one level)."""
    if levels == 0:
        return None
    level = np.full(3, abs(levels), np.float64)

    def shifted(frame: Frame) -> Frame:
        return np.asarray(cv2.add(frame, level) if levels > 0 else cv2.subtract(frame, level))

    return shifted


def video_fps(path: str | Path) -> float:
    """The video's frame rate as its container says it (30 when it does not; also when there
    is no video: the error comes with its frames)."""
    try:
        return probe(path).fps
    except VideoError:
        return 30.0
