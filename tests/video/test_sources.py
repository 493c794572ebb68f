"""Frame sources: what a spec names, a file's frames and time stamps, a file at its own pace, a
live source that stalls and reconnects (a fake capture and clock: no camera here), a stream
read by OpenCV from a local HTTP server, and the one-line errors."""

from __future__ import annotations

import functools
import http.server
import itertools
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.video.conftest import FRAMES, SIZE, FakeClock
from video import (
    FileSource,
    LiveSource,
    PacedSource,
    PlanarFrame,
    ReconnectPolicy,
    SourceSpec,
    VideoError,
    as_bgr,
    open_source,
    parse_spec,
    read_ahead,
    read_frame,
    video_frames,
)
from video.frames import bgr_frames


# --- specs --------------------------------------------------------------------------------------
@pytest.mark.parametrize(("spec", "expected"), [
    ("0", SourceSpec("camera", 0)),
    (" 2 ", SourceSpec("camera", 2)),
    (1, SourceSpec("camera", 1)),
    ("rtsp://10.0.0.5:554/stream1", SourceSpec("url", "rtsp://10.0.0.5:554/stream1")),
    ("HTTP://cam.local/video.mjpg", SourceSpec("url", "HTTP://cam.local/video.mjpg")),
    ("match.mp4", SourceSpec("file", Path("match.mp4"))),
    ("./0", SourceSpec("file", Path("0"))),
    (Path("a/b.mkv"), SourceSpec("file", Path("a/b.mkv"))),
    ("file:///data/m.mp4", SourceSpec("file", Path("/data/m.mp4"))),
])
def test_a_spec_names_a_file_a_camera_or_a_url(spec: Any, expected: SourceSpec) -> None:
    assert parse_spec(spec) == expected


@pytest.mark.parametrize(("spec", "message"), [
    ("", "expected a video file, a camera index or a stream URL"),
    (-1, "expected a camera index of 0 or more"),
    ("ftp://host/x.mp4", "expected a stream URL of rtsp/"),
])
def test_a_spec_that_names_nothing_usable_is_a_one_line_error(spec: Any, message: str) -> None:
    with pytest.raises(VideoError, match=message) as err:
        parse_spec(spec)
    assert "\n" not in str(err.value)


# --- a file -------------------------------------------------------------------------------------
def test_a_file_gives_the_decoders_frames_with_index_and_time(clip: Path) -> None:
    source = open_source(str(clip))
    assert isinstance(source, FileSource) and not source.live
    assert (source.fps, source.frame_count, source.size) == (30.0, FRAMES, SIZE)
    frames = list(source.frames())
    assert [f.index for f in frames] == list(range(FRAMES))
    assert [f.time_s for f in frames] == [k / 30.0 for k in range(FRAMES)]
    assert all(isinstance(f.image, PlanarFrame) for f in frames)
    # the pixels are video_frames' to the bit (the tracker's path is not changed by the source)
    for f, g in zip(frames, video_frames(clip), strict=True):
        assert np.array_equal(as_bgr(f.image), as_bgr(g))
    means = [float(as_bgr(f.image)[30:, :].mean()) for f in frames]
    assert all(b - a > 10 for a, b in itertools.pairwise(means))  # each frame its own


def test_a_file_read_from_a_later_frame_counts_from_the_first(clip: Path) -> None:
    whole = [as_bgr(f.image) for f in FileSource(clip, planar=False).frames()]
    later = list(FileSource(clip, planar=False, start=5).frames())
    assert [f.index for f in later] == list(range(5, FRAMES))
    assert later[0].time_s == pytest.approx(5 / 30)
    assert all(np.array_equal(f.image, whole[f.index]) for f in later)


def test_opencv_frames_of_a_file_keep_and_stop(clip: Path) -> None:
    every = list(bgr_frames(clip, few_cores=True))
    kept = list(FileSource(clip).bgr_frames(lambda i: i % 4 == 1, stop=10))
    assert [i for i, _ in kept] == [1, 5, 9]
    assert all(np.array_equal(image, every[i]) for i, image in kept)
    assert FileSource(clip).count_frames() == FRAMES == len(every)
    assert FileSource(clip, start=3).count_frames() == FRAMES - 3


def test_one_frame_is_read_by_seeking_to_it(clip: Path, tmp_path: Path) -> None:
    every = list(bgr_frames(clip, few_cores=True))
    image = read_frame(clip, 7)
    assert image is not None and np.array_equal(image, every[7])
    assert read_frame(clip, FRAMES + 3) is None
    assert read_frame(tmp_path / "missing.mp4", 0) is None


def test_no_file_or_not_a_video_is_a_one_line_error(tmp_path: Path) -> None:
    with pytest.raises(VideoError, match="expected a video file, found nothing at"):
        open_source(tmp_path / "missing.mp4")
    bad = tmp_path / "corrupt.mp4"
    bad.write_bytes(b"\x00\x00\x00\x18ftypmp42 and then nothing a decoder knows" * 50)
    source = open_source(bad)  # (a file: opened when read)
    with pytest.raises(VideoError, match="expected a video OpenCV can decode") as err:
        _ = source.fps
    assert "\n" not in str(err.value)
    with pytest.raises(VideoError, match="expected a video OpenCV can decode"):
        list(FileSource(bad, fps=30.0).frames())


# --- a file at its own pace ---------------------------------------------------------------------
def test_a_paced_file_waits_for_each_frames_time(clip: Path) -> None:
    clock = FakeClock()
    source = open_source(clip, realtime=True, clock=clock, sleep=clock.sleep)
    assert isinstance(source, PacedSource) and source.live and source.fps == 30.0
    handed: list[tuple[int, float]] = []
    for frame in source.frames():
        handed.append((frame.index, clock() - 100.0))
    assert [i for i, _ in handed] == list(range(FRAMES))
    # each frame handed out at its own time (the consumer took no time), none earlier
    assert [t for _, t in handed] == pytest.approx([k / 30 for k in range(FRAMES)])
    assert sum(clock.slept) == pytest.approx((FRAMES - 1) / 30)


def test_a_paced_file_drops_nothing_for_a_slow_consumer(clip: Path) -> None:
    clock = FakeClock()
    source = PacedSource(FileSource(clip), clock, clock.sleep)
    indices = []
    for frame in source.frames():
        indices.append(frame.index)
        clock.now += 0.1  # three frames' time per frame: always behind
    assert indices == list(range(FRAMES))
    assert clock.slept == []  # behind: no waiting, no frame skipped


def test_a_paced_file_from_a_later_frame_starts_at_once(clip: Path) -> None:
    clock = FakeClock()
    frames = list(open_source(clip, realtime=True, start=6, clock=clock,
                              sleep=clock.sleep).frames())
    assert frames[0].index == 6 and frames[0].time_s == pytest.approx(0.2)
    assert sum(clock.slept) == pytest.approx((FRAMES - 7) / 30)


# --- a camera or a stream -----------------------------------------------------------------------
class FakeCapture:
    """A capture that plays a script: each item a frame's grey level (a read that gives it,
    taking a frame's time), or "stall" (a read that times out after ``stall_s`` and fails)."""

    def __init__(self, clock: FakeClock, script: list[int | str], opened: bool = True,
                 stall_s: float = 2.0) -> None:
        self.clock, self.script, self.opened, self.stall_s = clock, list(script), opened, stall_s
        self.released = False

    def isOpened(self) -> bool:  # (OpenCV's name)
        return self.opened

    def read(self) -> tuple[bool, Any]:
        if not self.script or self.released:
            return False, None
        item = self.script.pop(0)
        if item == "stall":
            self.clock.now += self.stall_s
            return False, None
        self.clock.now += 1 / 25
        return True, np.full((4, 6, 3), item, np.uint8)

    def get(self, prop: int) -> float:
        import cv2

        return {cv2.CAP_PROP_FPS: 25.0, cv2.CAP_PROP_FRAME_WIDTH: 6.0,
                cv2.CAP_PROP_FRAME_HEIGHT: 4.0}.get(prop, 0.0)

    def release(self) -> None:
        self.released = True


class Opener:
    """Hands out the captures given, one per opening, and notes what it was asked to open."""

    def __init__(self, captures: list[FakeCapture]) -> None:
        self.captures = list(captures)
        self.opened: list[FakeCapture] = []
        self.targets: list[int | str] = []

    def __call__(self, target: int | str, policy: ReconnectPolicy) -> FakeCapture:
        self.targets.append(target)
        capture = self.captures.pop(0)
        self.opened.append(capture)
        return capture


def test_the_backoff_doubles_up_to_its_most() -> None:
    policy = ReconnectPolicy(stall_s=3.0, backoff_base_s=0.5, backoff_max_s=6.0, max_attempts=4)
    assert [policy.delay_s(a) for a in range(6)] == [0.5, 1.0, 2.0, 4.0, 6.0, 6.0]
    assert [policy.gives_up(a) for a in (0, 3, 4)] == [False, False, True]
    assert not ReconnectPolicy().gives_up(10_000)
    assert ReconnectPolicy().delay_s(10_000) == ReconnectPolicy().backoff_max_s


@pytest.mark.parametrize("kwargs", [{"stall_s": 0.0}, {"backoff_base_s": -1.0},
                                    {"backoff_base_s": 5.0, "backoff_max_s": 1.0},
                                    {"max_attempts": 0}])
def test_a_policy_that_makes_no_sense_is_refused(kwargs: dict[str, Any]) -> None:
    with pytest.raises(VideoError, match="expected"):
        ReconnectPolicy(**kwargs)


def test_a_stalled_stream_is_opened_again_and_the_gap_shows_in_the_time_stamps() -> None:
    clock = FakeClock()
    first = FakeCapture(clock, [10, 11, 12, "stall"])
    refused = FakeCapture(clock, [], opened=False)
    second = FakeCapture(clock, [13, 14])
    opener = Opener([first, refused, second] + [FakeCapture(clock, [], opened=False)] * 2)
    policy = ReconnectPolicy(stall_s=2.0, backoff_base_s=0.5, backoff_max_s=4.0,
                             max_attempts=2)
    source = LiveSource(parse_spec("rtsp://cam/1"), policy, clock, clock.sleep, opener)
    assert source.live and source.fps == 25.0 and source.size == (6, 4)
    assert source.frame_count is None
    got = []
    with pytest.raises(VideoError, match="expected frames from rtsp://cam/1, lost it") as err:
        for frame in source.frames():
            got.append(frame)
    assert "\n" not in str(err.value)
    # frames counted on across the reconnection, each with its grey level
    assert [f.index for f in got] == [0, 1, 2, 3, 4]
    assert [int(np.asarray(f.image)[0, 0, 0]) for f in got] == [10, 11, 12, 13, 14]
    steps = np.diff([f.time_s for f in got])
    assert steps == pytest.approx([0.04, 0.04, 2.0 + 0.5 + 1.0 + 0.04, 0.04])
    # a consumer tells the gap from the stamps alone
    gaps = [f.index for f, step in zip(got[1:], steps, strict=True) if step > 1.5 / source.fps]
    assert gaps == [3]
    # the stall: released; waited 0.5, refused; waited 1.0, opened. The end of the second
    # connection: waited 0.5, refused; waited 1.0, refused: max_attempts reached.
    assert clock.slept == [0.5, 1.0, 0.5, 1.0]
    assert source.reconnects == 1
    assert opener.targets == ["rtsp://cam/1"] * 5
    assert all(c.released for c in opener.opened)


def test_a_consumer_reads_a_live_source_through_the_reader_thread() -> None:
    clock = FakeClock()
    opener = Opener([FakeCapture(clock, [1, 2, "stall"]), FakeCapture(clock, [3]),
                     FakeCapture(clock, [], opened=False)])
    policy = ReconnectPolicy(stall_s=2.0, max_attempts=1)
    with LiveSource(parse_spec(0), policy, clock, clock.sleep, opener) as source:
        ahead = read_ahead(source, lambda image, index: (index, int(as_bgr(image)[0, 0, 0])))
        got = []
        with pytest.raises(VideoError, match="camera 0"):
            for frame, ready in ahead:
                got.append((frame.index, ready))
    assert got == [(0, (0, 1)), (1, (1, 2)), (2, (2, 3))]
    assert opener.opened[-1].released


@pytest.mark.parametrize(("spec", "message"), [
    ("3", "expected a camera that opens, could not open camera 3"),
    ("http://127.0.0.1:9/live", "expected a stream that connects, could not open http://"),
])
def test_a_camera_or_stream_that_does_not_open_is_a_one_line_error(spec: str,
                                                                    message: str) -> None:
    clock = FakeClock()
    opener = Opener([FakeCapture(clock, [], opened=False)])
    with pytest.raises(VideoError, match=message) as err:
        LiveSource(parse_spec(spec), None, clock, clock.sleep, opener)
    assert "\n" not in str(err.value)
    assert opener.opened[0].released


def test_opencv_refuses_a_camera_index_and_a_url_that_do_not_open() -> None:
    """The real opener (OpenCV): no camera here, nothing listens on port 9 (discard)."""
    with pytest.raises(VideoError, match="expected a camera that opens"):
        open_source("57")
    with pytest.raises(VideoError, match="expected a stream that connects"):
        open_source("rtsp://127.0.0.1:9/none", policy=ReconnectPolicy(stall_s=1.0))
    with pytest.raises(VideoError, match="expected no first frame for a live source"):
        open_source("rtsp://127.0.0.1:9/none", start=4)


@pytest.fixture
def served(clip: Path) -> Iterator[str]:
    """``clip`` served over HTTP on this machine: a stream OpenCV reads as it would a camera's."""
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

    class Server(http.server.ThreadingHTTPServer):
        daemon_threads = True

    server = Server(("127.0.0.1", 0), functools.partial(Quiet, directory=str(clip.parent)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/{clip.name}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_a_stream_over_http_is_read_live_and_opened_again_at_its_end(served: str,
                                                                      clip: Path) -> None:
    """The stream ends after FRAMES frames (a server that went away and came back): the source
    opens it again and counts on; the pictures are those of the file."""
    waits: list[float] = []
    source = open_source(served, policy=ReconnectPolicy(stall_s=5.0, max_attempts=2),
                         sleep=waits.append)
    assert isinstance(source, LiveSource) and source.live and source.size == SIZE
    every = [f for _, f in FileSource(clip).bgr_frames()]
    got = []
    with source:
        for frame in source.frames():
            got.append(frame)
            if len(got) == FRAMES + 3:
                break
    assert [f.index for f in got] == list(range(FRAMES + 3))
    assert source.reconnects == 1 and waits == [0.5]
    times = [f.time_s for f in got]
    assert times == sorted(times)
    for f in got:
        assert np.array_equal(f.image, every[f.index % FRAMES])
