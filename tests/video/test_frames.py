"""Frames kept in the video's 4:2:0 planes (video/frames.py): the BGR made of them is OpenCV's
to the bit, and videos in other forms are decoded by OpenCV as before."""

from __future__ import annotations

import platform
from pathlib import Path

import cv2
import numpy as np
import pytest

from video import FileSource, VideoError
from video.frames import (
    PlanarFrame,
    as_bgr,
    bgr_patch,
    half_picture,
    planar_frames,
    video_frames,
)

SAMPLES = Path(__file__).resolve().parents[2] / "sample_videos"
DEMO = SAMPLES / "demo_match.mp4"


def _reference_bgr(y: np.ndarray, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """FFmpeg's x86-64 fixed-point conversion written out plainly, pixel array by pixel array
    (integers: no rounding of its own)."""
    yy = ((y.astype(np.int64) * 8 - 128) * 9539) >> 16
    cu = np.repeat(np.repeat(u.astype(np.int64) * 8 - 1024, 2, 0), 2, 1)[:y.shape[0], :y.shape[1]]
    cv = np.repeat(np.repeat(v.astype(np.int64) * 8 - 1024, 2, 0), 2, 1)[:y.shape[0], :y.shape[1]]
    b = yy + ((cu * 16525) >> 16)
    g = yy + ((cu * -3209) >> 16) + ((cv * -6660) >> 16)
    r = yy + ((cv * 13075) >> 16)
    return np.clip(np.stack([b, g, r], -1), 0, 255).astype(np.uint8)


def _random_frame(seed: int, h: int = 36, w: int = 52, pad: int = 12) -> PlanarFrame:
    """Planes of random levels, the extremes included (every clip of the conversion taken),
    each row ``pad`` bytes longer than the picture (as a decoder's may be)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 256, (h, w + pad), dtype=np.uint8)
    u = rng.integers(0, 256, (h // 2, w // 2 + pad // 2), dtype=np.uint8)
    v = rng.integers(0, 256, (h // 2, w // 2 + pad // 2), dtype=np.uint8)
    y[:2, :4], u[0, :2], v[0, :2] = 0, (0, 255), (255, 0)
    return PlanarFrame(y, u, v, w)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_planes_convert_by_the_fixed_point_formula(seed):
    f = _random_frame(seed)
    ref = _reference_bgr(f.y[:, :f.width], f.u, f.v)
    assert f.shape == (36, 52, 3)
    assert np.array_equal(f.bgr(), ref)
    for y0, y1, x0, x1 in [(1, 8, 3, 20), (0, 36, 1, 52), (5, 6, 7, 8), (2, 30, 4, 11)]:
        assert np.array_equal(bgr_patch(f, y0, y1, x0, x1), ref[y0:y1, x0:x1]), (y0, x0)


@pytest.mark.parametrize("x0,y0", [(0, 0), (1, 0), (0, 1), (3, 5)])
def test_the_halved_region_is_opencvs_resize_of_the_bgr_region(x0, y0):
    """Every parity of the corner (a chroma sample may straddle two work pixels): the same
    bytes as halving the BGR region with OpenCV, as the detection does with BGR frames."""
    f = _random_frame(7)
    ref = f.bgr()
    half = f.halved(x0, y0, (20, 15))
    assert np.array_equal(half, cv2.resize(ref[y0:y0 + 30, x0:x0 + 40], (20, 15),
                                           interpolation=cv2.INTER_LINEAR))


@pytest.mark.parametrize("seed", [7, 8])
def test_half_the_picture_is_opencvs_resize_of_the_bgr_frame_from_planes_or_bgr(seed):
    """What the camera watch looks at: the same bytes from the planes as from the BGR frame
    (an odd size rounded down)."""
    for f in (_random_frame(seed), _random_frame(seed, h=35, w=51)):
        ref = cv2.resize(f.bgr()[:f.shape[0] // 2 * 2, :f.width // 2 * 2],
                         (f.width // 2, f.shape[0] // 2), interpolation=cv2.INTER_LINEAR)
        assert np.array_equal(half_picture(f), ref)
        assert np.array_equal(half_picture(f.bgr()), ref)


@pytest.mark.parametrize("work_diameter_px", [10.0, 7.0, 5.0, 20.0])
def test_the_detectors_work_image_is_the_same_from_planes_and_from_bgr(work_diameter_px):
    """The detector's work image (halved: the planes' own pass; by 3, 4 or 1: OpenCV's area
    average of the converted region) is the same from the planes as from the BGR frame."""
    from tests.vision.test_detect import calibration
    from vision.detection import BallDetector

    detector = BallDetector(calibration(), work_diameter_px=work_diameter_px)
    f = _random_frame(5, h=720, w=1280)
    small = detector.shrink(f)
    assert small.shape[:2] == detector.work_size[::-1]
    assert np.array_equal(small, detector.shrink(f.bgr()))
    x0, y0, x1, y1 = detector.roi
    if round(1 / detector.scale) != 2:  # (the other factors: OpenCV's area average)
        assert np.array_equal(small, cv2.resize(f.bgr()[y0:y1, x0:x1], detector.work_size,
                                                interpolation=cv2.INTER_AREA))


@pytest.mark.parametrize("x0,y0", [(0, 0), (1, 1)])
def test_a_region_to_the_pictures_edge_is_halved_from_its_own_samples(x0, y0):
    """Planes without padding, the region reaching the picture's right and bottom edge (or the
    pixel before it): right to the last column, from the picture's own chroma samples."""
    f = _random_frame(11, pad=0)
    ww, wh = (52 - x0) // 2, (36 - y0) // 2
    x1, y1 = x0 + 2 * ww, y0 + 2 * wh
    assert np.array_equal(f.halved(x0, y0, (ww, wh)),
                          cv2.resize(f.bgr()[y0:y1, x0:x1], (ww, wh),
                                     interpolation=cv2.INTER_LINEAR))


def test_the_demos_frames_are_opencvs_to_the_bit():
    """The committed demo (H.264, 4:2:0): every 40th frame converted whole equals OpenCV's
    ``read``, and so does the table region halved, and both give the same number of frames."""
    if not DEMO.is_file():
        pytest.skip("demo video not present")
    if platform.machine().lower() not in ("x86_64", "amd64"):
        pytest.skip("the fixed point is that of FFmpeg's x86-64 code; elsewhere it may round "
                    "otherwise (within a grey level)")
    planar = planar_frames(DEMO, few_cores=True)
    assert planar is not None
    cap = cv2.VideoCapture(str(DEMO))
    n = 0
    for i, pf in enumerate(planar):
        ok, bgr = cap.read()
        assert ok, f"OpenCV ended at frame {i}"
        if i % 40 == 0:
            assert np.array_equal(pf.bgr(), bgr), i
            x0, y0 = 101 + i % 2, 69 + (i // 40) % 2
            assert np.array_equal(
                pf.halved(x0, y0, (547, 288)),
                cv2.resize(bgr[y0:y0 + 576, x0:x0 + 1094], (547, 288),
                           interpolation=cv2.INTER_LINEAR)), i
        n += 1
    assert not cap.read()[0]
    assert n > 2000


def test_full_range_video_is_decoded_by_opencv(tmp_path):
    """Motion JPEG holds full-range ("JPEG") YUV, which the planes' conversion does not cover:
    its frames come from OpenCV as BGR images."""
    video = tmp_path / "mjpeg.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 30, (64, 48))
    for k in range(5):
        writer.write(np.full((48, 64, 3), (30 * k, 100, 200), np.uint8))
    writer.release()
    assert planar_frames(video, few_cores=True) is None
    frames = list(video_frames(video))
    assert len(frames) == 5
    assert all(isinstance(f, np.ndarray) and f.shape == (48, 64, 3) for f in frames)
    assert as_bgr(frames[2]) is frames[2]


def test_a_file_that_is_no_video_raises_a_vision_error(tmp_path):
    bad = tmp_path / "not_a_video.mp4"
    bad.write_bytes(b"\x00\x01 no video here" * 100)
    assert planar_frames(bad, few_cores=True) is None
    with pytest.raises(VideoError, match="expected a video"):
        list(video_frames(bad))


def test_the_float_terms_are_the_fixed_point_terms_for_every_byte():
    """The conversion's terms in float32 (vectorised 16 at a time) against FFmpeg's 16-bit
    fixed point, for all 256 values of a byte, both as numba computes them and as a fused
    multiply-add would (one rounding)."""
    from video.frames import _B_U, _G_U, _G_V, _LUMA, _R_V, _chroma_row, _luma, _term

    x = np.arange(256)
    for coefficient, offset in [(_LUMA, 16), (_B_U, 128), (_G_U, 128), (_G_V, 128), (_R_V, 128)]:
        exact = ((x * 8 - offset * 8) * coefficient) >> 16
        a, b = _term(coefficient, offset)
        fused = np.floor((x * np.float64(a) - np.float64(b)).astype(np.float32))
        assert np.array_equal(fused, exact), coefficient
    luma = np.empty(256, np.float32)
    _luma(x.astype(np.uint8), luma, 256, 1)
    assert np.array_equal(luma, ((x * 8 - 128) * _LUMA) >> 16)
    chroma = np.empty((3, 256), np.float32)
    u, v = x.astype(np.uint8), x[::-1].astype(np.uint8).copy()
    _chroma_row(u, v, chroma, 256)
    cu, cv = u.astype(np.int64) * 8 - 1024, v.astype(np.int64) * 8 - 1024
    assert np.array_equal(chroma[0], (cu * _B_U) >> 16)
    assert np.array_equal(chroma[1], ((cu * _G_U) >> 16) + ((cv * _G_V) >> 16))
    assert np.array_equal(chroma[2], (cv * _R_V) >> 16)


def _short_gop_video(path: Path, frames: int = 60, gop: int = 8) -> Path:
    """A small H.264 video of seeded noise with a key frame every ``gop`` frames, so that a
    seek lands on a key frame before the one sought."""
    import av

    rng = np.random.default_rng(5)
    with av.open(str(path), "w") as out:
        stream = out.add_stream("libx264", rate=30)
        stream.width, stream.height, stream.pix_fmt = 160, 96, "yuv420p"
        stream.codec_context.gop_size = gop
        for _ in range(frames):
            image = rng.integers(0, 255, (96, 160, 3), dtype=np.uint8)
            for packet in stream.encode(av.VideoFrame.from_ndarray(image, format="bgr24")):
                out.mux(packet)
        for packet in stream.encode():
            out.mux(packet)
    return path


@pytest.mark.parametrize("planar", [True, False])
def test_reading_from_a_frame_on_gives_the_frames_read_from_the_start(tmp_path, planar):
    """``start`` (a resumed match): the decoder seeks to the key frame before it, and the
    frames from there on are the ones a reading from the first frame gives, to the bit
    (planes, or OpenCV's BGR)."""
    clip = _short_gop_video(tmp_path / "gop8.mp4")
    whole = [as_bgr(f).copy() for f in video_frames(clip, planar=planar)]
    assert len(whole) == 60
    for start in (1, 8, 13, 37, 59):
        taken_up = [as_bgr(f) for f in video_frames(clip, planar=planar, start=start)]
        assert len(taken_up) == len(whole) - start
        assert all(np.array_equal(a, b) for a, b in zip(taken_up, whole[start:], strict=True))
    if planar:
        assert isinstance(next(video_frames(clip, start=37)), PlanarFrame)


def test_frames_far_apart_are_sought_and_are_the_frames_read_in_order(tmp_path, monkeypatch):
    """The calibration's sample (a few frames of a long video): each far one found by seeking
    to the key frame before it, a near one by decoding on; the same pictures as reading the
    whole video in order, to the bit."""
    import video.frames as frames_module

    clip = _short_gop_video(tmp_path / "long.mp4", frames=200, gop=8)
    whole = [as_bgr(f).copy() for f in video_frames(clip, planar=False)]
    opened = []
    real = frames_module.planar_frames

    def counted(path, few_cores, start=0):
        opened.append(start)
        return real(path, few_cores, start)

    monkeypatch.setattr(frames_module, "planar_frames", counted)
    wanted = [0, 3, 70, 71, 150, 199]
    found = FileSource(clip, planar=False).bgr_frames_at(wanted)
    assert [i for i, _ in found] == wanted
    assert all(np.array_equal(image, whole[i]) for i, image in found)
    # (3, 71 and 199 decoded on to: near the one before; the stretches sought by two decoders)
    assert sorted(opened) == [0, 70, 150]


def test_frames_at_past_the_end_or_of_a_video_without_planes_are_read_in_order(tmp_path):
    clip = _short_gop_video(tmp_path / "short.mp4", frames=60, gop=8)
    whole = [as_bgr(f).copy() for f in video_frames(clip, planar=False)]
    found = FileSource(clip, planar=False).bgr_frames_at([2, 59, 500])
    assert [i for i, _ in found] == [2, 59]
    assert all(np.array_equal(image, whole[i]) for i, image in found)
    video = tmp_path / "mjpeg.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 30, (64, 48))
    for k in range(5):
        writer.write(np.full((48, 64, 3), (30 * k, 100, 200), np.uint8))
    writer.release()
    seen = []
    found = FileSource(video, planar=False).bgr_frames_at([1, 3], lambda k, of: seen.append(k))
    assert [i for i, _ in found] == [1, 3]
    assert [int(image[0, 0, 0]) for _, image in found] == [
        int(as_bgr(f)[0, 0, 0]) for f in list(video_frames(video))[1:4:2]]
    assert seen == [1, 2, 3, 4]  # (read in order: told of each frame passed)
    with pytest.raises(VideoError, match="increasing"):
        FileSource(clip).bgr_frames_at([5, 5])
