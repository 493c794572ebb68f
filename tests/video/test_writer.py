"""The one writer: frames written come back (count, size, rate, pictures), the side file is moved
into place or removed, OpenCV's 'mp4v' where H.264 cannot be, and one-line errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import video.writer
from tests.video.conftest import FRAMES, SIZE, picture
from video import (
    BackgroundWriter,
    Encoding,
    FileSource,
    VideoError,
    VideoWriter,
    as_bgr,
    probe,
    repeat_video,
)
from video.writer import part_path


def frames_of(path: Path) -> list[np.ndarray]:
    return [as_bgr(f.image) for f in FileSource(path).frames()]


def close_to(a: np.ndarray, b: np.ndarray, levels: float = 5) -> bool:
    """Pictures alike within ``levels`` grey levels on average below their noisy patch (lossy
    encoding; the patch's random colours lose most to the halved chroma)."""
    return float(np.abs(a[30:].astype(np.int16) - b[30:].astype(np.int16)).mean()) < levels


def test_frames_written_come_back(clip: Path) -> None:
    source = FileSource(clip)
    assert (source.frame_count, source.size, source.fps) == (FRAMES, SIZE, 30.0)
    back = frames_of(clip)
    assert len(back) == FRAMES
    assert all(close_to(image, picture(k)) for k, image in enumerate(back))
    assert not part_path(clip).exists()


def test_the_writer_moves_its_side_file_into_place_when_closed(tmp_path: Path) -> None:
    out = tmp_path / "out.mp4"
    writer = VideoWriter(out, SIZE, 25)
    assert part_path(out) == tmp_path / "out.part.mp4"
    writer.write(picture(0))
    writer.write(picture(1))
    assert part_path(out).exists() and not out.exists()  # nothing at the name until done
    writer.close()
    writer.close()  # (twice: nothing more)
    assert out.exists() and not part_path(out).exists()
    assert writer.frames == 2 and "H.264" in writer.encoder
    assert FileSource(out).fps == 25.0 and len(frames_of(out)) == 2
    with pytest.raises(VideoError, match="expected an open video"):
        writer.write(picture(2))


def test_an_error_while_writing_leaves_no_video(tmp_path: Path) -> None:
    out = tmp_path / "out.mp4"
    with pytest.raises(RuntimeError, match="drawing failed"), VideoWriter(out, SIZE, 30) as w:
        w.write(picture(0))
        raise RuntimeError("drawing failed")
    assert list(tmp_path.iterdir()) == []
    writer = VideoWriter(out, SIZE, 30)
    writer.write(picture(0))
    writer.close(keep=False)
    assert list(tmp_path.iterdir()) == []


def test_an_odd_size_or_no_pyav_is_written_by_opencv(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    odd = tmp_path / "odd.mp4"
    with VideoWriter(odd, (63, 47), 30) as writer:
        for k in range(5):
            writer.write(picture(k)[:47, :63])
    assert "mp4v" in writer.encoder and "odd frame size" in writer.encoder
    # (OpenCV's MPEG-4 drops the odd column and row, as it did for the annotated video)
    assert FileSource(odd).size == (62, 46) and len(frames_of(odd)) == 5
    with pytest.raises(VideoError, match="expected an even frame size, got 63x47"):
        VideoWriter(tmp_path / "h264.mp4", (63, 47), 30, Encoding(fallback=False))
    monkeypatch.setattr(video.writer, "_pyav", lambda: None)
    plain = tmp_path / "plain.mp4"
    with VideoWriter(plain, SIZE, 30) as writer:
        for k in range(4):
            writer.write(picture(k))
    assert "PyAV is not installed" in writer.encoder
    back = frames_of(plain)
    assert len(back) == 4 and all(close_to(b, picture(k)) for k, b in enumerate(back))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["odd.mp4", "plain.mp4"]


def test_the_encoders_own_conversion_and_options(tmp_path: Path) -> None:
    """An encoding as ``kaisa synth``'s clips have it (x264 options, PyAV's conversion, the
    muxer from the suffix): the same frames give the same bytes."""
    encoding = Encoding(options={"crf": "30", "preset": "medium", "threads": "1"},
                        container_format=None, convert="encoder", fallback=False)
    # (twice the small size: x264 gives 64 x 48 frames different bytes from run to run when the
    # machine is busy, 128 x 96 and the clips' 1280 x 720 the same ones every time)
    pictures = [np.tile(picture(k), (2, 2, 1)) for k in range(6)]
    size = (2 * SIZE[0], 2 * SIZE[1])
    outs = [tmp_path / "a.mp4", tmp_path / "b.mp4"]
    for out in outs:
        with VideoWriter(out, size, 30, encoding) as writer:
            for image in pictures:
                writer.write(image)
    assert outs[0].read_bytes() == outs[1].read_bytes()
    back = frames_of(outs[0])
    assert len(back) == 6 and all(close_to(b[:SIZE[1], :SIZE[0]], picture(k))
                                  for k, b in enumerate(back))


def test_a_video_that_cannot_be_written_is_a_one_line_error(tmp_path: Path) -> None:
    with pytest.raises(VideoError, match="cannot write here") as err:
        VideoWriter(tmp_path / "no" / "such" / "dir" / "v.mp4", SIZE, 30)
    assert "\n" not in str(err.value)
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(VideoError, match="expected a frame size above 0"):
        VideoWriter(tmp_path / "v.mp4", (0, 48), 30)


def test_a_video_repeated_by_its_packets(clip: Path, tmp_path: Path) -> None:
    out = tmp_path / "twice.mp4"
    assert repeat_video(clip, out, 2) == 2 * FRAMES
    back, once = frames_of(out), frames_of(clip)
    assert len(back) == 2 * FRAMES
    assert all(np.array_equal(b, once[k % FRAMES]) for k, b in enumerate(back))


def test_a_video_with_b_frames_repeated_keeps_its_frame_rate(tmp_path: Path) -> None:
    """A camera's H.264 (B-frames: decoding stamps before the presentation ones, as the
    committed clips have) repeated keeps a constant frame rate over its seams, so that the
    long video is sought by its time stamps as the original is (a benchmark's 20-minute
    video: its calibration's sample frames)."""
    clip = Path(__file__).resolve().parents[2] / "sample_videos" / "pot_HR.mp4"
    out = tmp_path / "twice.mp4"
    n = repeat_video(clip, out, 2)
    assert probe(out).fps == pytest.approx(probe(clip).fps, rel=1e-6)
    assert probe(out).frame_count == n
    sought = FileSource(out, planar=False).bgr_frames_at([1, n // 2 + 2])
    assert [k for k, _ in sought] == [1, n // 2 + 2]
    assert np.array_equal(sought[1][1], FileSource(clip, planar=False).bgr_frames_at([2])[0][1])


def test_a_background_writer_writes_the_same_frames_in_order(tmp_path: Path) -> None:
    out = tmp_path / "bg.mp4"
    writer = BackgroundWriter(VideoWriter(out, SIZE, 30), queue_size=2)
    for k in range(FRAMES):
        writer.write(picture(k))
    writer.close()
    assert writer.frames == FRAMES and out.is_file() and not part_path(out).exists()
    back = frames_of(out)
    assert len(back) == FRAMES
    assert all(close_to(image, picture(k)) for k, image in enumerate(back))


def test_a_background_writer_s_encoding_error_is_raised_and_leaves_no_video(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "bg.mp4"
    inner = VideoWriter(out, SIZE, 30)
    written = []

    def failing(image: np.ndarray) -> None:
        if len(written) == 3:
            raise VideoError("no room left on the disk")
        written.append(image)

    monkeypatch.setattr(inner, "write", failing)
    writer = BackgroundWriter(inner, queue_size=1)
    with pytest.raises(VideoError, match="no room"):
        for k in range(FRAMES):  # (raised by a later write, or by close)
            writer.write(picture(k))
        writer.close()
    writer.close(keep=False)
    assert len(written) == 3
    assert not out.exists() and not part_path(out).exists()
