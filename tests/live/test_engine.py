"""The live engine (live/engine.py, live/cli.py): the demo played at its pace gets the verdicts
`kaisa referee` gives it; a camera stream cut mid-match reconnects, the match goes on and the
shot is flagged; the live process killed mid-match and started again with --resume loses
nothing and counts nothing twice; the operator's commands are applied (a call for the next
shot, an undo). No camera here: a file at its pace, a fake capture over a clip's frames."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from live.camera import CameraParams, WatchedSource
from live.engine import EngineConfig, run_engine
from live.files import LiveFiles, append_command, read_status
from referee.app import RefereeJob, run_job
from referee.journal import Journal
from rules import ShotEntry
from video import (
    FileSource,
    FrameSource,
    LiveSource,
    ReconnectPolicy,
    TimedFrame,
    VideoError,
    parse_spec,
)

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "sample_videos" / "demo_match.mp4"
ONE_POT = ROOT / "sample_videos" / "pot_FL.mp4"
FAST = 40.0  # times real time: the engine then goes as fast as it can


def verdicts(journal_path: Path, match_id: int | None = None) -> list[tuple[str, dict[str, Any]]]:
    """(shot key, verdict) of a match's standing verdicts, in order."""
    with Journal(journal_path, readonly=True) as journal:
        match_id = match_id if match_id is not None else journal.last_match_id()
        record = journal.load(match_id)
        return [(str(key), entry.verdict.to_dict())
                for entry, key in zip(record.match.entries, record.entry_keys, strict=True)
                if key is not None and isinstance(entry, ShotEntry)]


def gist(verdict: dict[str, Any]) -> dict[str, Any]:
    """A verdict without where the balls came to rest (measured through the calibration)."""
    return {k: v for k, v in verdict.items() if k != "positions_after"}


@pytest.fixture(scope="module")
def refereed(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[str, dict[str, Any]]]:
    """`kaisa referee` on the demo video (its labels beside it: start and calls)."""
    journal = tmp_path_factory.mktemp("referee") / "journal.sqlite"
    run_job(RefereeJob(source=DEMO, journal=journal), out=io.StringIO())
    return verdicts(journal)


@pytest.mark.slow
def test_the_demo_at_its_pace_gets_the_verdicts_kaisa_referee_gives(tmp_path: Path,
                                                                   refereed: list[Any]) -> None:
    out = io.StringIO()
    config = EngineConfig(str(DEMO), tmp_path, realtime=True, pace=FAST)
    assert run_engine(config, out=out) == 0
    live = verdicts(config.files.journal)
    assert live == refereed
    assert len(live) == 12 and live[-1][1]["winner"] == 2
    status = read_status(config.files)
    assert status is not None and status.camera == "ended"
    assert status.score == (58, 60) and status.winner == 2 and status.shots_judged == 12
    assert status.flagged == () and status.errors == () and status.gaps == ()
    assert len(out.getvalue().splitlines()) == 12  # one line a shot, as kaisa referee prints
    assert config.files.still.read_bytes()[:2] == b"\xff\xd8"  # a JPEG
    # the table's corners drawn on the still land inside it (the display marks the respots so)
    import cv2
    import numpy as np

    still = cv2.imdecode(np.frombuffer(config.files.still.read_bytes(), np.uint8),
                         cv2.IMREAD_COLOR)
    assert status.still_homography is not None
    h = np.array(status.still_homography)
    for corner in ((0.0, 0.0), status.table_mm, (status.table_mm[0], 0.0)):
        x, y, w = h @ (corner[0], corner[1], 1.0)
        assert 0 < x / w < still.shape[1] and 0 < y / w < still.shape[0]
    # every verdict was in the journal within a few seconds of its shot's rest frame being read
    assert all(0 < t["judged_unix"] - t["rest_seen_unix"] < 10 for t in status.verdict_times)


# --- the demo as a stream over loopback HTTP -----------------------------------------------------
def transport_stream(clip: Path, still_s: float) -> bytes:
    """The clip's own H.264 packets in an MPEG transport stream (no pixel changed), then
    ``still_s`` seconds of its last picture (a camera that goes on looking at the table)."""
    import av

    out = io.BytesIO()
    with av.open(str(clip)) as src, av.open(out, "w", format="mpegts") as dst:
        stream = dst.add_stream_from_template(src.streams.video[0])
        for packet in src.demux(src.streams.video[0]):
            if packet.dts is not None:
                packet.stream = stream
                dst.mux(packet)
    ((_, last),) = deque(FileSource(clip, planar=False).bgr_frames(), maxlen=1)
    still = io.BytesIO()
    with av.open(still, "w", format="mpegts") as dst:
        encoder = dst.add_stream("libx264", rate=30)
        encoder.width, encoder.height, encoder.pix_fmt = last.shape[1], last.shape[0], "yuv420p"
        encoder.options = {"preset": "ultrafast", "crf": "18"}
        for k in range(round(still_s * 30)):
            frame = av.VideoFrame.from_ndarray(last, format="bgr24")
            frame.pts = k
            for packet in encoder.encode(frame):
                dst.mux(packet)
        for packet in encoder.encode():
            dst.mux(packet)
    return out.getvalue() + still.getvalue()


@pytest.fixture
def streamed_demo() -> Iterator[str]:
    """The demo served once over HTTP on this machine as a live stream, paced at ``FAST_HTTP``
    times real time (its bytes spread over its duration); a second request finds nothing."""
    import http.server

    data = transport_stream(DEMO, still_s=3.0)
    seconds = (2331 / 30 + 3.0) / FAST_HTTP
    served: list[int] = []

    class Paced(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            if served:
                self.send_error(404)
                return
            served.append(1)
            self.send_response(200)
            self.send_header("Content-Type", "video/mp2t")
            self.end_headers()
            began, step = time.monotonic(), 188 * 64
            for at in range(0, len(data), step):
                wait = began + seconds * at / len(data) - time.monotonic()
                if wait > 0:
                    time.sleep(wait)
                try:
                    self.wfile.write(data[at:at + step])
                except OSError:
                    return

    class Server(http.server.ThreadingHTTPServer):
        daemon_threads = True

    server = Server(("127.0.0.1", 0), Paced)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/table.ts"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


FAST_HTTP = 4.0


@pytest.mark.slow
def test_the_demo_served_over_loopback_http_is_refereed_live_to_its_winner(
        tmp_path: Path, streamed_demo: str, refereed: list[Any]) -> None:
    """As a camera's stream: stamped on the clock as read, the table's calibration given (a
    camera's own is found in its first 3 s, and the demo's first shot is struck at 1 s)."""
    calibration = calibration_file(tmp_path, DEMO)
    config = EngineConfig(streamed_demo, tmp_path / "live", calibration=calibration,
                          start=DEMO.with_name(DEMO.stem + ".labels.json"),
                          policy=ReconnectPolicy(stall_s=5.0, max_attempts=1))
    out = io.StringIO()
    assert run_engine(config, out=out) == 2  # the stream gone after its end: said
    live = verdicts(config.files.journal)
    assert [(k, gist(v)) for k, v in live] == [(k, gist(v)) for k, v in refereed]
    status = read_status(config.files)
    assert status is not None and status.winner == 2 and status.score == (58, 60)
    assert status.camera == "lost" and len(out.getvalue().splitlines()) >= 12


# --- a camera whose stream is cut ---------------------------------------------------------------
class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


class Stream:
    """A camera's frames (a clip's), shared by the captures opened one after another: a
    reconnection goes on with the next frame. At frame ``cut`` the connection drops once."""

    def __init__(self, frames: Iterator[tuple[int, Any]], cut: int) -> None:
        self.frames, self.cut = frames, cut
        self.held: tuple[int, Any] | None = None

    def next(self) -> tuple[int, Any] | None:
        if self.held is not None:
            item, self.held = self.held, None
            return item
        return next(self.frames, None)


class ClipCapture:
    """A capture over a :class:`Stream`: each read takes a frame's time on the clock; the cut
    is a read that fails after ``stall_s``; after the stream's end, reads fail."""

    def __init__(self, stream: Stream, clock: FakeClock, opened: bool = True,
                 stall_s: float = 3.0) -> None:
        self.stream, self.clock, self.opened, self.stall_s = stream, clock, opened, stall_s
        self.released = False

    def isOpened(self) -> bool:  # (OpenCV's name)
        return self.opened

    def read(self) -> tuple[bool, Any]:
        item = self.stream.next()
        if item is None:
            return False, None
        if item[0] == self.stream.cut:
            self.stream.cut, self.stream.held = -1, item
            self.clock.now += self.stall_s
            return False, None
        self.clock.now += 1 / 30
        return True, item[1]

    def get(self, prop: int) -> float:
        import cv2

        return {cv2.CAP_PROP_FPS: 30.0, cv2.CAP_PROP_FRAME_WIDTH: 1280.0,
                cv2.CAP_PROP_FRAME_HEIGHT: 720.0}.get(prop, 0.0)

    def release(self) -> None:
        self.released = True


def calibration_file(tmp_path: Path, clip: Path) -> Path:
    labels = json.loads(clip.with_name(clip.stem + ".labels.json").read_text())
    path = tmp_path / "table.calib.json"
    path.write_text(json.dumps(labels["calibration"]))
    start = tmp_path / "start.json"
    start.write_text(json.dumps(labels["start"]))
    return path


def test_a_stream_cut_mid_shot_reconnects_the_match_goes_on_and_the_shot_is_flagged(
        tmp_path: Path, refereed: list[Any]) -> None:
    """The demo's first two shots and the start of the third from a camera whose connection
    drops 3 s in the middle of the second shot (struck at 7.9 s, at rest by 13.9 s)."""
    calibration = calibration_file(tmp_path, DEMO)
    clock = FakeClock()
    stream = Stream(FileSource(DEMO, planar=False).bgr_frames(stop=500), cut=270)
    # the first connection, the one after the cut; then the stream is gone
    captures = [ClipCapture(stream, clock), ClipCapture(stream, clock),
                ClipCapture(stream, clock, opened=False)]

    def opener(target: int | str, policy: ReconnectPolicy) -> ClipCapture:
        return captures.pop(0)

    policy = ReconnectPolicy(stall_s=3.0, backoff_base_s=0.5, max_attempts=1)
    source = LiveSource(parse_spec("rtsp://table/1"), policy, clock, clock.sleep, opener)
    config = EngineConfig("rtsp://table/1", tmp_path / "live", calibration=calibration,
                          start=tmp_path / "start.json")
    code = run_engine(config, source=source, out=io.StringIO())
    assert code == 2  # the stream gone for good at the end: said, after the verdicts
    status = read_status(config.files)
    assert status is not None and status.camera == "lost" and status.reconnects == 1
    live = verdicts(config.files.journal)
    # the match went on: the same verdicts (the balls' places within the calibrations' mm)
    assert [gist(v) for _, v in live] == [gist(v) for _, v in refereed[:2]]
    assert status.flagged == ("shot1",) and status.flag_reasons == {"shot1": ("camera_gap",)}
    (gap,) = status.gaps
    assert gap["shot"] == "shot1" and gap["gap_s"] == pytest.approx(3.5 + 1 / 30, abs=0.01)
    with Journal(config.files.journal, readonly=True) as journal:
        entry = [e for e in journal.timeline(journal.last_match_id()) if e.kind == "verdict"][1]
        assert entry.facts is not None and entry.facts.extra["camera_gap"][0]["shot"] == "shot1"
        assert "camera_gap" in journal.load(journal.last_match_id()).left_out[1][0]


def test_a_gap_is_found_in_the_time_stamps_and_a_quiet_camera_is_stalled() -> None:
    class Stamps(FrameSource):
        live = True
        name = "stamps"

        @property
        def fps(self) -> float:
            return 30.0

        def frames(self) -> Iterator[TimedFrame]:
            for index, t in enumerate([0.0, 1 / 30, 2 / 30, 0.5, 0.5 + 1 / 30]):
                yield TimedFrame(index, t, None)  # type: ignore[arg-type]

    wall = [1000.0]
    watched = WatchedSource(Stamps(), CameraParams(), wall=lambda: wall[0])
    assert [f.index for f in watched.frames()] == [0, 1, 2, 3, 4]
    (gap,) = watched.gaps()
    assert (gap.index, gap.t_s) == (3, pytest.approx(2 / 30))
    assert watched.gaps_in(20, 60) == [gap] and watched.gaps_in(40, 60) == []
    assert watched.camera() == ("ended", "stamps has no more frames")
    watched.state = "ok"
    wall[0] += 5.0
    assert watched.camera()[0] == "stalled"


# --- the process killed, and resumed ------------------------------------------------------------
def kaisa_live(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "referee.cli", "live", *args],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})


@pytest.mark.slow
def test_the_live_process_killed_mid_match_resumes_with_nothing_lost_or_twice(
        tmp_path: Path, refereed: list[Any]) -> None:
    files = LiveFiles(tmp_path)
    args = [str(DEMO), "--realtime", "--pace", str(FAST), "--folder", str(tmp_path),
            "--no-pages"]
    first = kaisa_live(*args)
    until = time.monotonic() + 180
    judged = 0
    while time.monotonic() < until and judged < 4:
        time.sleep(0.2)
        status = read_status(files)
        judged = status.shots_judged if status is not None else 0
    assert judged >= 4, first.communicate(timeout=30)
    status = read_status(files)
    assert status is not None
    os.kill(status.engine_pid, signal.SIGKILL)  # mid-match: no goodbye
    first.kill()
    first.communicate(timeout=30)
    before = verdicts(files.journal)
    assert 4 <= len(before) < 12
    second = kaisa_live(*args, "--resume")
    _, err = second.communicate(timeout=300)
    assert second.returncode == 0, err
    after = verdicts(files.journal)
    # nothing lost, nothing twice, the same verdicts (after the resumption the balls' places
    # are measured from the frame it took the video up at: the same within a few mm)
    assert after[:len(before)] == before
    assert [(k, gist(v)) for k, v in after] == [(k, gist(v)) for k, v in refereed]
    assert "resuming match 1" in err
    with Journal(files.journal, readonly=True) as journal:
        assert [m[0] for m in journal.matches()] == [1]


# --- the operator's commands ------------------------------------------------------------------
class StillCamera(FrameSource):
    """A clip's frames at its pace, then its last frame again and again (a camera looking at
    the table after the shot) until ``stop`` is set; then it ends (a file's end) or, with
    ``lost``, it is lost (a camera gone: the match is left to be resumed)."""

    live = True

    def __init__(self, clip: Path, stop: threading.Event, pace: float = 2.0,
                 lost: bool = False) -> None:
        self.file = FileSource(clip)
        self.name = clip.name
        self.stop = stop
        self.pace = pace
        self.lost = lost

    @property
    def fps(self) -> float:
        return self.file.fps

    @property
    def file_path(self) -> Path | None:
        return self.file.path

    def frames(self) -> Iterator[TimedFrame]:
        last: TimedFrame | None = None
        for last in self.file.frames():
            time.sleep(1 / self.fps / self.pace)
            yield last
        assert last is not None
        index = last.index
        while not self.stop.is_set():
            index += 1
            time.sleep(1 / self.fps / self.pace)
            yield TimedFrame(index, index / self.fps, last.image)
        if self.lost:
            raise VideoError("expected frames from the camera, lost it")


def wait_for(files: LiveFiles, test: Any, timeout_s: float = 90.0) -> Any:
    until = time.monotonic() + timeout_s
    while time.monotonic() < until:
        status = read_status(files)
        if status is not None and test(status):
            return status
        time.sleep(0.1)
    raise AssertionError(f"not reached in {timeout_s} s: {read_status(files)}")


def test_a_call_is_used_for_the_next_verdict_and_an_undo_withdraws_it(tmp_path: Path) -> None:
    labels = json.loads(ONE_POT.with_name(ONE_POT.stem + ".labels.json").read_text())
    start = tmp_path / "start.json"  # the start alone: no calls
    start.write_text(json.dumps(labels["start"]))
    stop = threading.Event()
    config = EngineConfig(str(ONE_POT), tmp_path / "live", start=start)
    files = config.files
    append_command(files, "undo", {"note": "from an earlier session"})  # not applied now
    codes: list[int] = []
    engine = threading.Thread(target=lambda: codes.append(
        run_engine(config, source=StillCamera(ONE_POT, stop), out=io.StringIO())))
    engine.start()
    try:
        wait_for(files, lambda s: s.match_id is not None and s.commands_applied == 1)
        append_command(files, "call", {"ball": "Y", "pocket": "FL"})
        status = wait_for(files, lambda s: s.next_call is not None)
        assert status.next_call == {"ball": "Y", "pocket": "FL"}
        status = wait_for(files, lambda s: s.shots_judged == 1)
        assert status.score == (6, 0) and status.next_call is None
        ((_, verdict),) = verdicts(files.journal)
        assert verdict["called"] == {"ball": "Y", "pocket": "FL"}
        assert "uncalled" not in verdict["flags"]
        # the placement check: the yellow to its spot, not there yet (it was pocketed)
        assert [(m.ball, m.ok) for m in status.placement] == [("Y", False)]
        append_command(files, "undo", {"note": "the operator saw it otherwise"})
        status = wait_for(files, lambda s: s.commands_applied == 3)
        assert status.score == (0, 0) and verdicts(files.journal) == []
        append_command(files, "correct", {"score": ["ten", 4]})  # a page's mistake: skipped
        append_command(files, "undo", {})  # nothing to undo: skipped
        append_command(files, "correct", {"score": [10, 4], "note": "by hand"})
        append_command(files, "players", {"names": ["Aino", "Veikko"]})
        status = wait_for(files, lambda s: s.commands_applied == 7)
        assert status.score == (10, 4) and status.players == ("Aino", "Veikko")
    finally:
        stop.set()
        engine.join(60)
    assert codes == [0]
    with Journal(files.journal, readonly=True) as journal:
        kinds = [e.kind for e in journal.timeline(journal.last_match_id())]
    assert kinds == ["verdict", "undo", "correction"]


def test_a_shot_that_cannot_be_judged_is_logged_and_flagged_and_the_engine_goes_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import live.engine

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("a fault while judging")

    monkeypatch.setattr(live.engine, "_judge_the_rest", broken)
    config = EngineConfig(str(ONE_POT), tmp_path, realtime=True, pace=FAST)
    assert run_engine(config, out=io.StringIO()) == 0  # the source's end, not the fault
    status = read_status(config.files)
    assert status is not None and status.camera == "ended"
    assert [e["shot"] for e in status.errors] == ["shot0"]
    assert "a fault while judging" in status.errors[0]["message"]
    assert status.flagged == ("shot0",) and status.flag_reasons == {"shot0": ("not_judged",)}
    log = (tmp_path / "engine.log").read_text()
    assert "shot 1 at 1.0 s not judged: a fault while judging" in log and "Traceback" in log
    assert verdicts(config.files.journal) == []


# --- kaisa live: the command and its watchdog ---------------------------------------------------
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    from referee.cli import main

    assert main(["live", str(tmp_path / "none.mp4"), "--no-pages", "--folder",
                 str(tmp_path)]) == 2
    assert main(["live", "ftp://table/1", "--no-pages", "--folder", str(tmp_path)]) == 2
    assert main(["live", str(DEMO), "--calibration", str(tmp_path / "none.json"),
                 "--no-pages", "--folder", str(tmp_path)]) == 2
    errors = capsys.readouterr().err.splitlines()
    assert len(errors) == 3 and all(e.startswith("kaisa: ") for e in errors)
    assert "expected a video file, a camera index" in errors[0]


def test_the_pages_beyond_this_machine_need_a_token_and_their_addresses_carry_it() -> None:
    from live.addresses import is_loopback, page_urls

    assert is_loopback("127.0.0.1") and is_loopback("localhost") and is_loopback("::1")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.20")
    urls = page_urls("192.168.1.20", 8765, "abc")
    assert urls == {"display": "http://192.168.1.20:8765/display?token=abc",
                    "operator": "http://192.168.1.20:8765/operator?token=abc"}
    assert page_urls("127.0.0.1", 9000, None)["operator"] == "http://127.0.0.1:9000/operator"


def test_the_watchdog_says_when_the_engines_heartbeat_stops(tmp_path: Path) -> None:
    from live.cli import Watchdog
    from live.files import LiveStatus, write_status

    class Running:
        pid = 4242

        def is_alive(self) -> bool:
            return True

    files = LiveFiles(tmp_path)
    said: list[str] = []
    write_status(files, LiveStatus(match_id=1, camera="ok", updated_unix=1000.0))
    watchdog = Watchdog(files, Running(), stuck_after_s=10, say=said.append)  # type: ignore[arg-type]
    watchdog.check(now=1005.0)
    assert said == []
    watchdog.check(now=1012.0)
    watchdog.check(now=1013.0)
    assert len(said) == 1 and "has not answered for 12 s" in said[0]
    write_status(files, LiveStatus(match_id=1, camera="ok", updated_unix=1013.0))
    watchdog.check(now=1014.0)
    assert said[1] == "the engine answers again"


def test_a_camera_without_a_calibration_is_calibrated_from_its_first_seconds(
        tmp_path: Path) -> None:
    clip = ROOT / "sample_videos" / "hidden_under_arm.mp4"
    clock = FakeClock()
    stream = Stream(FileSource(clip, planar=False).bgr_frames(), cut=-1)
    captures = [ClipCapture(stream, clock), ClipCapture(stream, clock, opened=False)]
    policy = ReconnectPolicy(stall_s=3.0, max_attempts=1)
    source = LiveSource(parse_spec(0), policy, clock, clock.sleep,
                        lambda target, policy: captures.pop(0))
    config = EngineConfig("0", tmp_path)
    assert run_engine(config, source=source, out=io.StringIO()) == 2  # the camera gone at the end
    status = read_status(config.files)
    assert status is not None and status.camera == "lost"
    assert status.frames_read == 142 and status.engine_message.startswith("expected frames")
    assert "the table was not found" not in (tmp_path / "engine.log").read_text()
    assert config.files.still.is_file()


def test_a_resumed_session_applies_no_command_twice(tmp_path: Path) -> None:
    """A call and an undo in the first session; the second (--resume) takes the match up from
    the journal: the undone shot is judged again (without the call it had), nothing of the
    first session's commands applied again."""
    labels = json.loads(ONE_POT.with_name(ONE_POT.stem + ".labels.json").read_text())
    start = tmp_path / "start.json"
    start.write_text(json.dumps(labels["start"]))
    files = LiveFiles(tmp_path / "live")

    def session(resume: bool, commands: list[tuple[str, dict[str, Any]]]) -> None:
        stop = threading.Event()
        config = EngineConfig(str(ONE_POT), files.folder, start=start, resume=resume)
        codes: list[int] = []
        engine = threading.Thread(target=lambda: codes.append(
            run_engine(config, source=StillCamera(ONE_POT, stop, pace=4.0, lost=not resume),
                       out=io.StringIO())))
        engine.start()
        try:
            wait_for(files, lambda s: s.match_id is not None and s.engine_pid == os.getpid()
                     and s.frames_read > 0)
            for kind, payload in commands:
                append_command(files, kind, payload)
                if kind == "call":
                    wait_for(files, lambda s: s.shots_judged == 1)
            wait_for(files, lambda s: s.shots_judged == 1
                     and s.commands_applied == len(commands) + (2 if resume else 0))
        finally:
            stop.set()
            engine.join(60)
        assert codes == [0 if resume else 2]

    session(False, [("call", {"ball": "Y", "pocket": "FL"}), ("undo", {"note": "not so"})])
    session(True, [])
    with Journal(files.journal, readonly=True) as journal:
        (match,) = journal.matches()
        timeline = journal.timeline(match[0])
    assert [(e.kind, e.shot_key) for e in timeline] == [
        ("verdict", "shot0"), ("undo", None), ("verdict", "shot0")]
    first, again = timeline[0], timeline[2]
    assert first.facts is not None and first.facts.extra.get("call_from") == "operator"
    assert again.facts is not None and "call_from" not in again.facts.extra
    assert again.verdict is not None and [f.value for f in again.verdict.flags] == ["uncalled"]


def test_the_pages_are_served_while_the_engine_runs_and_their_end_stops_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``kaisa live`` with pages (a stand-in for live.web.serve): the engine in its own
    process referees meanwhile; when serving ends (Ctrl-C) the engine is stopped cleanly, its
    match left to --resume."""
    import live.cli
    from referee.cli import build_parser

    served: list[tuple[Any, ...]] = []

    def serve(files: LiveFiles, host: str, port: int, token: str | None) -> None:
        served.append((files, host, port, token))
        wait_for(files, lambda s: s.shots_judged == 1 and s.engine_pid != os.getpid())

    monkeypatch.setattr(live.cli, "web_serve", lambda: serve)
    args = build_parser().parse_args(["live", str(ONE_POT), "--realtime", "--folder",
                                      str(tmp_path), "--port", "18765"])
    assert live.cli.run_live(args) == 0
    ((files, host, port, token),) = served
    assert (files.folder, host, port, token) == (tmp_path, "127.0.0.1", 18765, None)
    status = read_status(files)
    assert status is not None and status.engine_pid != os.getpid()
    assert status.camera == "ended"  # stopped (or at the clip's end): said
    with Journal(files.journal, readonly=True) as journal:
        (match,) = journal.matches()
        assert journal.holder(match[0]) is None  # the engine let go of it
    assert len(verdicts(files.journal)) == 1
