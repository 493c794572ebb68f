"""Decoded frames as the video holds them, made BGR only where the detection looks.

A 1280x720 H.264 video decodes to 4:2:0 planes (full-size luma Y, half-size chroma U and V);
turning each whole frame into BGR, as OpenCV's ``VideoCapture.read`` hands frames out, is a
third of decoding's cost. The detection needs BGR only twice: the table's region shrunk to the
working resolution (a ball ten pixels wide), and a patch around each ball that moved. So the
tracker decodes with PyAV and keeps the planes (:class:`PlanarFrame`); the shrunk image and the
patches are converted from them, and nothing else is.

The pixels are OpenCV's to the bit, so the answers are those of decoding with OpenCV: the same
conversion (BT.601, limited range: what FFmpeg uses for OpenCV whatever the stream says) in the
same 16-bit fixed point as FFmpeg's x86-64 code (found from 19 million pixels of a synthetic
match and the club footage, equal on every one; ``tests/video/test_frames.py`` checks it on a
committed clip), and the shrinking rounded as OpenCV's resize rounds it. On another processor
FFmpeg may round otherwise (within a grey level).

Videos in any other form (full-range "JPEG" YUV, 4:2:2, 10 bits, rotated by their metadata, or
that PyAV cannot open) are decoded by OpenCV into BGR frames, as before.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import cv2
import numpy as np
from numba import njit
from numpy.typing import NDArray

from video.errors import VideoError

Frame = NDArray[np.uint8]
F32 = NDArray[np.float32]

# FFmpeg's conversion of limited-range BT.601 4:2:0 to BGR as OpenCV's wheel runs it on x86-64:
# each term ((x * 8 - offset * 8) * coefficient) >> 16, the coefficients the standard's times
# 8192, rounded; then B = luma + B(U), G = luma + G(U) + G(V), R = luma + R(V), clipped to 0..255.
# Each chroma sample serves its 2 x 2 pixels.
_LUMA = 9539  # 1.164383
_B_U, _G_U, _G_V, _R_V = 16525, -3209, -6660, 13075  # 2.017232, 0.391762, 0.812968, 1.596027


def few_cores() -> bool:
    """Two cores or fewer: the pipeline's own threads (the reader decoding beside the detection)
    keep them busy, so no decoder or OpenCV call gets threads of its own."""
    return (os.cpu_count() or 1) <= 2


def _term(coefficient: int, offset: int) -> tuple[np.float32, np.float32]:
    """``(a, b)`` such that ``floor(float32(x) * a - b)`` is the term of the byte x in float32:
    the same whole number as the fixed point's for every x of 0..255, with or without a fused
    multiply-add (checked for all of them in tests/video/test_frames.py), and 16 of them at a
    time in a vector register where the 64-bit integers numba would use take 8."""
    return np.float32(8 * coefficient / 65536), np.float32(8 * offset * coefficient / 65536)


_LA, _LB = _term(_LUMA, 16)
_BUA, _BUB = _term(_B_U, 128)
_GUA, _GUB = _term(_G_U, 128)
_GVA, _GVB = _term(_G_V, 128)
_RVA, _RVB = _term(_R_V, 128)
_F255 = np.float32(255.0)
_F0 = np.float32(0.0)


@njit(cache=True, nogil=True)
def _luma(y: Frame, out: F32, n: int, step: int) -> None:
    """The luma terms of ``y[0]``, ``y[step]``, ... (``n`` of them) into ``out`` (float32)."""
    for j in range(n):
        out[j] = np.floor(np.float32(y[step * j]) * _LA - _LB)


@njit(cache=True, nogil=True)
def _chroma_row(u: Frame, v: Frame, out: F32, n: int) -> None:
    """The chroma's share of B, G and R (``out``: float32 (3, >= n), whole numbers) of the first
    ``n`` chroma samples of rows ``u`` and ``v``."""
    for m in range(n):
        fu = np.float32(u[m])
        fv = np.float32(v[m])
        out[0, m] = np.floor(fu * _BUA - _BUB)
        out[1, m] = np.floor(fu * _GUA - _GUB) + np.floor(fv * _GVA - _GVB)
        out[2, m] = np.floor(fv * _RVA - _RVB)


@njit(cache=True, nogil=True)
def _planes_to_bgr(y: Frame, u: Frame, v: Frame, y0: int, y1: int, x0: int,
                   x1: int) -> Frame:
    """Rows y0..y1, columns x0..x1 of the picture in BGR."""
    n = x1 - x0
    out = np.empty((y1 - y0, n, 3), np.uint8)
    m0 = x0 >> 1
    nc = ((x1 - 1) >> 1) + 1 - m0
    chroma = np.empty((3, nc), np.float32)
    luma = np.empty(n, np.float32)
    for i in range(y0, y1):
        if i == y0 or not i & 1:
            _chroma_row(u[i >> 1, m0:], v[i >> 1, m0:], chroma, nc)
        _luma(y[i, x0:], luma, n, 1)
        for j in range(n):
            m = ((x0 + j) >> 1) - m0
            for ch in range(3):
                out[i - y0, j, ch] = np.uint8(min(_F255, max(_F0, luma[j] + chroma[ch, m])))
    return out


@njit(cache=True, nogil=True)
def _shrunk_by_two(y: Frame, u: Frame, v: Frame, x0: int, y0: int, ww: int,
                   wh: int, out: Frame) -> None:
    """The region from (x0, y0), 2 * ww x 2 * wh pixels, halved, into ``out`` (uint8 planes
    B, G, R: (3, wh, ww)): each 2 x 2 block's BGR pixels summed and rounded half up, as OpenCV's
    linear resize by one half rounds them.

    In float32 (whole numbers below 2^11: exact) and in simple loops over contiguous rows, so
    that the compiler vectorises them: 0.15-0.2 ms for a 1100 x 580 region, against a
    millisecond pixel by pixel."""
    even = np.empty((2, ww), np.float32)  # luma terms of the two rows' even and odd columns
    odd = np.empty((2, ww), np.float32)
    m0 = x0 >> 1
    shift = x0 & 1  # an odd column's sample: the even column's, or the next (odd x0)
    nc = ww + shift  # (an odd x0 reaches one chroma sample further; no sample beyond is read)
    chroma = np.empty((2, 3, nc), np.float32)
    first, held = 0, -1  # chroma[first] holds chroma row ``held``
    for i in range(wh):
        a = y0 + 2 * i
        for r in range(2):
            _luma(y[a + r, x0:], even[r], ww, 2)
            _luma(y[a + r, x0 + 1:], odd[r], ww, 2)
        if a >> 1 != held:
            _chroma_row(u[a >> 1, m0:], v[a >> 1, m0:], chroma[first], nc)
        second = first  # the second row's chroma: the first's (even a), or the next row's
        if (a + 1) >> 1 != a >> 1:
            second = 1 - first
            _chroma_row(u[(a + 1) >> 1, m0:], v[(a + 1) >> 1, m0:], chroma[second], nc)
        e0, o0, e1, o1 = even[0], odd[0], even[1], odd[1]
        for ch in range(3):
            c0, c1 = chroma[first, ch], chroma[second, ch]
            c0s, c1s = c0[shift:], c1[shift:]
            o = out[ch, i]
            for j in range(ww):
                s = (min(_F255, max(_F0, e0[j] + c0[j])) + min(_F255, max(_F0, o0[j] + c0s[j]))
                     + min(_F255, max(_F0, e1[j] + c1[j]))
                     + min(_F255, max(_F0, o1[j] + c1s[j])))
                o[j] = np.uint8((s + np.float32(2.0)) * np.float32(0.25))
        first, held = second, (a + 1) >> 1


@dataclass(frozen=True, eq=False)
class PlanarFrame:
    """A decoded picture in its 8-bit 4:2:0 planes (limited range), each a C-contiguous array
    whose rows may run past the picture (the decoder's padding). ``shape`` is that of the BGR
    image; :meth:`bgr` converts a region (all of it by default)."""

    y: Frame  # (height, >= width)
    u: Frame  # (ceil(height / 2), >= ceil(width / 2))
    v: Frame
    width: int

    @property
    def shape(self) -> tuple[int, int, int]:
        return (self.y.shape[0], self.width, 3)

    def bgr(self, y0: int = 0, y1: int | None = None, x0: int = 0,
            x1: int | None = None) -> Frame:
        return np.asarray(_planes_to_bgr(self.y, self.u, self.v, y0,
                                         self.y.shape[0] if y1 is None else y1, x0,
                                         self.width if x1 is None else x1))

    def halved(self, x0: int, y0: int, size: tuple[int, int]) -> Frame:
        """The region of 2 x ``size`` pixels from (x0, y0) halved to ``size`` (width, height), in
        BGR: what OpenCV's linear resize of the BGR region by one half gives, to the bit."""
        ww, wh = size
        planes = np.empty((3, wh, ww), np.uint8)
        _shrunk_by_two(self.y, self.u, self.v, x0, y0, ww, wh, planes)
        return np.asarray(cv2.merge(list(planes)), np.uint8)


AnyFrame = Frame | PlanarFrame


def as_bgr(frame: AnyFrame) -> Frame:
    """The whole frame as a BGR image."""
    return frame.bgr() if isinstance(frame, PlanarFrame) else frame


def half_picture(frame: AnyFrame) -> Frame:
    """The whole frame at half its size (width and height halved, an odd one rounded down), in
    BGR: OpenCV's linear resize by one half of the BGR frame, to the bit, made from the planes
    without the whole BGR frame (a quarter of its cost)."""
    h, w = frame.shape[:2]
    size = (w // 2, h // 2)
    if isinstance(frame, PlanarFrame):
        return frame.halved(0, 0, size)
    return np.asarray(cv2.resize(frame[:2 * size[1], :2 * size[0]], size,
                                 interpolation=cv2.INTER_LINEAR), np.uint8)


def bgr_patch(frame: AnyFrame, y0: int, y1: int, x0: int, x1: int) -> Frame:
    """Rows y0..y1, columns x0..x1 of the frame in BGR (of a BGR frame: a view)."""
    return frame.bgr(y0, y1, x0, x1) if isinstance(frame, PlanarFrame) else frame[y0:y1, x0:x1]


def _plane(plane: Any) -> Frame:
    """A PyAV plane as a (height, line_size) array over its buffer (each row padded)."""
    return np.frombuffer(plane, np.uint8).reshape(plane.height, plane.line_size)


def planar_frames(path: str | Path, few_cores: bool, start: int = 0
                  ) -> Iterator[PlanarFrame] | None:
    """The video's frames from frame ``start`` on as :class:`PlanarFrame`, or None when it is
    not plain 8-bit 4:2:0 of limited range without rotation (or PyAV cannot open or decode it,
    or cannot seek it to ``start``): then decode with OpenCV. ``few_cores``: decode in this
    thread alone (FFmpeg's frame threads cost a third more CPU for the same frames; on two cores
    the detection uses the other one)."""
    import av

    try:
        container = av.open(str(path))
    except (av.error.FFmpegError, OSError, ValueError):
        return None
    try:
        stream = container.streams.video[0]
        stream.thread_type = "NONE" if few_cores else "AUTO"
        if start > 0:
            frames: Iterator[Any] = _seek(container, stream, start)
        else:
            frames = container.decode(stream)
        first = next(frames)
    except (av.error.FFmpegError, IndexError, StopIteration, ValueError, _SeekMissed):
        container.close()
        return None
    if (first.format.name != "yuv420p" or first.rotation or first.color_range == 2
            or len(first.planes) != 3):
        container.close()
        return None

    def all_frames() -> Iterator[PlanarFrame]:
        try:
            frame = first
            while True:
                p = frame.planes
                yield PlanarFrame(_plane(p[0]), _plane(p[1]), _plane(p[2]), frame.width)
                try:
                    frame = next(frames)
                except StopIteration:
                    return
                except av.error.FFmpegError:  # a damaged end: what was decoded stands (as OpenCV)
                    return
        finally:
            # (a plain try, not contextlib: a generator left open is closed at the interpreter's
            # exit, when this module's names may be gone already)
            try:  # noqa: SIM105
                container.close()
            except Exception:
                pass

    return all_frames()


def planar_frames_at(path: str | Path, indices: Sequence[int], few_cores: bool,
                     seen: Callable[[int], None] | None = None
                     ) -> list[tuple[int, PlanarFrame]] | None:
    """The frames at ``indices`` (increasing) as :class:`PlanarFrame`, each found by sending the
    decoder to the key frame at or before it and decoding on from there (one after another
    when the next is near: within ``DECODED_ON`` frames), so a few frames of a long video
    cost a few key frames' stretches, not the whole video. The same pictures as decoding it
    from the start (a key frame decodes afresh). None where :func:`planar_frames` would give
    None (then read them in order). ``seen(k)``: told as the k-th of them is found."""
    import av

    if any(b <= a for a, b in itertools.pairwise(indices)) or (indices and indices[0] < 0):
        raise VideoError(f"expected increasing frame indices from 0, got {list(indices)}")
    out: list[tuple[int, PlanarFrame]] = []
    frames: Iterator[PlanarFrame] | None = None
    at = -1  # the index of the frame ``frames`` hands out next
    try:
        for k, index in enumerate(indices, 1):
            if frames is None or not at <= index < at + DECODED_ON:
                if frames is not None:
                    cast(Generator[PlanarFrame, None, None], frames).close()
                frames, at = planar_frames(path, few_cores, index), index
                if frames is None:
                    return None
            for _ in range(index - at):  # (decoded and dropped)
                next(frames)
            out.append((index, next(frames)))
            at = index + 1
            if seen is not None:
                seen(k)
    except (StopIteration, av.error.FFmpegError):
        return None  # (fewer frames than asked for, or damaged: read them in order)
    finally:
        if frames is not None:
            cast(Generator[PlanarFrame, None, None], frames).close()
    return out


# the next frame wanted this close after the last one is decoded on to, not sought (a camera's
# key frames are 1-4 s apart, so seeking saves nothing nearer than that)
DECODED_ON = 60


class _SeekMissed(Exception):
    """The frame sought is not where the video's time stamps said (no time stamps, or a
    variable frame rate): read from the start instead."""


def _seek(container: Any, stream: Any, start: int) -> Iterator[Any]:
    """The decoded frames of ``stream`` from frame ``start`` on: the decoder sent to the key
    frame at or before it, then the frames before ``start`` decoded and dropped. A frame's
    number is its time stamp times the frame rate (a constant rate, as cameras record);
    raises _SeekMissed when the stamps do not allow it."""
    rate, base = stream.average_rate, stream.time_base
    if not rate or not base:
        raise _SeekMissed
    origin = stream.start_time or 0
    container.seek(origin + int(start / rate / base), stream=stream, backward=True)
    frames = container.decode(stream)
    for frame in frames:
        if frame.pts is None:
            raise _SeekMissed
        index = round((frame.pts - origin) * base * rate)
        if index > start:
            raise _SeekMissed  # (landed after it: no key frame before it, or odd stamps)
        if index == start:
            yield frame
            yield from frames
            return


def bgr_frames(path: str | Path, few_cores: bool, start: int = 0) -> Iterator[Frame]:
    """The video's frames from frame ``start`` on, decoded by OpenCV into BGR images (raises
    VideoError when it cannot be opened)."""
    for _, frame in kept_bgr_frames(path, few_cores, start):
        yield frame


def kept_bgr_frames(path: str | Path, few_cores: bool, start: int = 0,
                    keep: Callable[[int], bool] | None = None, stop: int | None = None
                    ) -> Iterator[tuple[int, Frame]]:
    """``(index, frame)`` of the video's frames from frame ``start`` (the decoder seeks to it)
    up to ``stop`` (excluded), decoded by OpenCV into BGR images; with ``keep``, only the frames
    whose index it accepts (the others decoded but not converted to BGR). Raises VideoError
    when the video cannot be opened."""
    cap = cv2.VideoCapture(str(path), cv2.CAP_ANY,
                           [cv2.CAP_PROP_N_THREADS, 1] if few_cores else [])
    if not cap.isOpened():
        raise VideoError(f"expected a video OpenCV can decode, could not open {str(path)!r}")
    if start > 0:
        cap.set(cv2.CAP_PROP_POS_FRAMES, start)
    try:
        index = start
        while stop is None or index < stop:
            if keep is None or keep(index):
                ok, frame = cap.read()
                if not ok:
                    return
                yield index, cast(Frame, frame)  # (the stubs say any number type: BGR bytes)
            elif not cap.grab():
                return
            index += 1
    finally:
        cap.release()


def video_frames(path: str | Path, planar: bool = True, start: int = 0) -> Iterator[AnyFrame]:
    """The video's frames from frame ``start`` (counted from 0) on: :class:`PlanarFrame` where
    it can (``planar``), else BGR images. On two cores, one decoding thread: FFmpeg's frame
    threads cost a third more CPU for the same frames, and the reader already runs beside the
    detection, so both cores are busy anyway. With more cores FFmpeg takes what it likes."""
    few = few_cores()
    frames = planar_frames(path, few, start) if planar else None
    return frames if frames is not None else bgr_frames(path, few, start)


def warm_up() -> None:
    """Load the compiled conversions now (numba's cache), on inputs of the types the detection
    passes (see :func:`vision.detection.ballfit.warm_up`)."""
    y = np.zeros((4, 8), np.uint8)
    f = PlanarFrame(y, y[:2].copy(), y[:2].copy(), 8)
    f.halved(0, 0, (2, 2))
    f.bgr(1, 3, 1, 5)
