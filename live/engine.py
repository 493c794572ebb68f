"""The live engine: a camera (or a stream, or a file at its pace) refereed while the match is
played. It runs in a process of its own (:func:`engine_main`, started by ``kaisa live``) so that
a hung decoder cannot freeze the pages; it and the pages meet only through the files of
:mod:`live.files`.

- At the start: the match claimed in the journal (a new one, or with ``resume`` the source's
  unfinished one, continued from its entries: nothing lost, nothing counted twice), the source
  opened, the table calibrated (a file as ``kaisa referee`` does it; a camera from its first
  seconds, again until it succeeds; or ``calibration`` given).
- Then the video referee's own pipeline (:func:`referee.pipeline.game_from_video`) tracks the
  balls and gives out each shot once its balls rest; each is judged by the referee's own
  judging (:func:`referee.app._judge_the_rest`, one shot at a time from the state the journal
  holds) and journalled at once; the status is written after each verdict.
- A control thread applies the operator's commands in order (``commands.jsonl``: a call for the
  next shot, undo and correct as the journal's own entries, a new match, names, a confirmed
  flag) and, once a second, writes the status (the heartbeat) and the latest picture.
- A shot that cannot be judged (a conflict, a fault) is logged, flagged and left out; the
  engine goes on. A gap in the frames flags its shot ``camera_gap``.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TextIO, cast

from calibration import Calibration
from live.camera import CameraParams, WatchedSource
from live.files import (
    CameraState,
    LiveFiles,
    LiveStatus,
    OperatorCommand,
    PlacementMark,
    read_commands,
    read_status,
    write_status,
    write_still,
)
from referee.app import (
    ENDED,
    RefereeJob,
    _judge_the_rest,
    is_video,
    start_and_calls,
)
from referee.describe import DEFAULT_PLAYERS
from referee.errors import InputError
from referee.gamefile import Game
from referee.journal import Claim, Journal, source_key
from referee.pipeline import (
    ResumePoint,
    VideoFacts,
    game_from_video,
    load_calibration,
    resume_point,
)
from rules import Call, GameState, KaisaError, RuleOptions, ShotEntry, ShotFacts, Verdict
from rules.respot import PLACEMENT_TOLERANCE_MM
from video import AnyFrame, FrameSource, ReconnectPolicy, open_source, parse_spec
from vision.tracking import FrameTracks, ShotStart

STILL_WIDTH_PX = 960  # the still picture for the pages: at most this wide
CALIBRATION_FRAMES = 90  # a camera's first frames the table is found in (3 s at 30 fps) ...
CALIBRATION_EVERY = 10  # ... every this many of them
CONTROL_STEP_S = 0.2  # how often the operator's commands are looked for
STATUS_EVERY_S = 1.0  # the heartbeat: status and still picture
KEPT_VERDICT_TIMES = 50
# a verdict's reasons to ask the operator
NEEDS_CONFIRMING = ("camera_gap", "camera_moved", "camera_conflict")


@dataclass(frozen=True)
class EngineConfig:
    """What ``kaisa live`` asks of the engine: plain data, sent to the engine's process.

    ``source``: a camera index, a URL or a file; ``realtime`` plays a file at its pace
    (``pace`` times faster: tests, benchmarks); ``calibration``, ``start``: files as for
    ``kaisa referee``; ``resume``: continue the source's unfinished match from the journal;
    ``echo``: each verdict's line on stdout."""

    source: str
    folder: Path
    journal: Path | None = None
    realtime: bool = False
    pace: float = 1.0
    calibration: Path | None = None
    start: Path | None = None
    resume: bool = False
    echo: bool = True
    policy: ReconnectPolicy = field(default_factory=ReconnectPolicy)
    camera: CameraParams = field(default_factory=CameraParams)

    @property
    def files(self) -> LiveFiles:
        return LiveFiles(self.folder, self.journal)


def source_file(spec: str) -> Path | None:
    """The file a source spec names (None: a camera or a stream)."""
    parsed = parse_spec(spec)
    return parsed.target if isinstance(parsed.target, Path) else None


def live_source_key(spec: str) -> str:
    """What identifies the same source again for ``--resume``: a file's content, a camera's
    index or a stream's URL."""
    file = source_file(spec)
    return source_key(file) if file is not None else f"live:{parse_spec(spec).target}"


class Engine:
    """One live session: the match, its state, the camera, what the pages are told."""

    def __init__(self, config: EngineConfig, out: TextIO, log: TextIO) -> None:
        self.config = config
        self.files = config.files
        self.out = out
        self.log = log
        self.lock = threading.RLock()  # the match (journal, state) and the status
        self.stop = threading.Event()
        self.match_id: int | None = None
        self.options = RuleOptions()
        self.state: GameState = GameState(options=self.options)
        self.next_index = 0  # the next shot's index in the match (its key: shot<index>)
        self.pending_call: Call | None = None
        self.commands_applied = 0
        self.players: tuple[str, str] = DEFAULT_PLAYERS
        self.flag_reasons: dict[str, list[str]] = {}
        self.confirmed: set[str] = set()
        self.errors: list[dict[str, Any]] = []
        self.gap_shots: dict[int, str] = {}  # a gap's first frame -> the shot it is in
        self.verdict_times: list[dict[str, Any]] = []
        self.shots_judged = 0
        self.message = ""
        self.camera_override: tuple[CameraState, str] | None = ("starting", "")
        self.watched: WatchedSource | None = None
        self.found: VideoFacts | None = None
        self.source_path = Path(config.source)
        self.key = ""
        # what the pipeline's hooks note (the main thread), read by the control thread
        self.latest: tuple[int, AnyFrame] | None = None
        self.previous: LiveStatus | None = None  # the last session's status (for --resume)
        self.still_index = -1
        self.still_t_s: float | None = None
        self.still_homography: tuple[tuple[float, float, float], ...] | None = None
        self.positions: dict[str, tuple[float, float]] = {}
        self.table_mm = (self.options.table.length_mm, self.options.table.width_mm)

    # --- notes ----------------------------------------------------------------------------
    def note(self, message: str) -> None:
        """A line for the engine's log (and stderr)."""
        stamp = time.strftime("%H:%M:%S")
        print(f"{stamp} {message}", file=self.log, flush=True)
        print(f"kaisa live: {message}", file=sys.stderr, flush=True)

    # --- the status -------------------------------------------------------------------------
    def status(self) -> LiveStatus:
        with self.lock:
            watched = self.watched
            if self.camera_override is not None or watched is None:
                camera, words = self.camera_override or ("starting", "")
            else:
                said, words = watched.camera()
                camera = cast(CameraState, said)
            flagged = tuple(k for k in self.flag_reasons if k not in self.confirmed)
            gaps = tuple(g.to_dict(self.gap_shots.get(g.index))
                         for g in (watched.gaps() if watched is not None else []))
            return LiveStatus(
                match_id=self.match_id, camera=camera, camera_message=words,
                video_t_s=watched.latest_time_s() if watched is not None else 0.0,
                frames_read=watched.frames_read if watched is not None else 0,
                fps=watched.fps if watched is not None else 0.0,
                reconnects=watched.reconnects if watched is not None else 0, gaps=gaps,
                score=self.state.score, shooter=self.state.shooter, winner=self.state.winner,
                players=self.players, table_mm=self.table_mm,
                positions_mm=dict(self.positions), placement=self.placement(),
                flagged=flagged,
                flag_reasons={k: tuple(v) for k, v in self.flag_reasons.items() if k in flagged},
                next_call=self.pending_call.to_dict() if self.pending_call else None,
                commands_applied=self.commands_applied,
                still_t_s=self.still_t_s, still_homography=self.still_homography,
                engine_pid=os.getpid(), updated_unix=time.time(), source=self.config.source,
                engine_message=self.message, errors=tuple(self.errors),
                shots_judged=self.shots_judged, verdict_times=tuple(self.verdict_times))

    def placement(self) -> tuple[PlacementMark, ...]:
        """The balls the last verdict respots, each with where it is seen now and whether it
        is within the placement tolerance of its target (§6.5)."""
        marks = []
        for respot in self.state.respot_targets:
            target = (float(respot.xy_mm[0]), float(respot.xy_mm[1]))
            seen = self.positions.get(respot.ball.value)
            off = None if seen is None else ((seen[0] - target[0]) ** 2
                                             + (seen[1] - target[1]) ** 2) ** 0.5
            marks.append(PlacementMark(respot.ball.value, target, seen,
                                       None if off is None else round(off, 1),
                                       off is not None and off <= PLACEMENT_TOLERANCE_MM))
        return tuple(marks)

    def write_status(self) -> None:
        with self.lock:
            status = self.status()
        write_status(self.files, status)

    def table_to_still(self, scale: float) -> tuple[tuple[float, float, float], ...] | None:
        """Table mm -> the still's pixels by the calibration in force (a bumped camera's
        followed one), the lens left out; None before there is a calibration."""
        found = self.found
        if found is None:
            return None
        calibration = found.calibration
        for event in found.drift:
            if event.changed:
                calibration = event.calibration
        import numpy as np

        h = np.diag([scale, scale, 1.0]) @ np.linalg.inv(calibration.homography_image_to_table)
        h = h / h[2, 2]
        return tuple((float(r[0]), float(r[1]), float(r[2])) for r in h)

    def write_still(self) -> None:
        """The latest frame, at most :data:`STILL_WIDTH_PX` wide, as JPEG (when a new one)."""
        latest = self.latest
        if latest is None or latest[0] == self.still_index:
            return
        import cv2

        from video import as_bgr

        index, frame = latest
        image: Any = as_bgr(frame)
        height, width = image.shape[:2]
        if width > STILL_WIDTH_PX:
            image = cv2.resize(image, (STILL_WIDTH_PX, height * STILL_WIDTH_PX // width),
                               interpolation=cv2.INTER_AREA)
        ok, jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 75])
        if ok:
            write_still(self.files, jpeg.tobytes())
            self.still_homography = self.table_to_still(image.shape[1] / width)
            self.still_index = index
            self.still_t_s = self.watched.time_s(index) if self.watched is not None else None

    # --- the pipeline's hooks (the main thread) --------------------------------------------
    def seen_frame(self, index: int, frame: AnyFrame) -> None:
        self.latest = (index, frame)

    def seen_tracks(self, result: FrameTracks) -> None:
        self.positions = {b: (round(x, 1), round(y, 1))
                          for b, (x, y, visible) in result.balls.items() if visible}

    # --- start ------------------------------------------------------------------------------
    def open_match(self, journal: Journal) -> tuple[GameState, list[dict[str, Any]],
                                                   ResumePoint | None]:
        """Claim the match (with ``resume`` the source's unfinished one) and the state to go
        on from; the calls of a start or labels file; where a file is taken up again."""
        config = self.config
        file = source_file(config.source)
        if file is not None and not file.is_file():
            raise InputError("expected a video file, a camera index or a stream URL; found "
                             "no file there", str(file))
        if file is not None and not is_video(file):
            raise InputError("expected a video file (.mp4, .mkv, ...), a camera index or a "
                             "stream URL", str(file))
        self.source_path = file if file is not None else Path(config.source)
        given = start_and_calls(RefereeJob(self.source_path, self.files.journal,
                                           start=config.start))
        self.options = given.options
        self.table_mm = (self.options.table.length_mm, self.options.table.width_mm)
        self.key = live_source_key(config.source)
        claim = journal.claim(config.source, self.key, given.options, given.start,
                              resume=config.resume)
        for line in claim.notices:
            self.note(line.removeprefix("kaisa: "))
        self.match_id = claim.match_id
        resume: ResumePoint | None = None
        if not claim.resumed:
            self.state = given.start
            self.note(f"match {claim.match_id}: {self.state.score[0]}:{self.state.score[1]}, "
                      f"player {self.state.shooter} to play")
            self.skip_old_commands()
            return given.start, given.calls, None
        record = journal.load(claim.match_id)
        self.state = record.match.state
        last = journal.last_verdict(claim.match_id)
        if file is not None:  # taken up after its last standing verdict (its shots counted)
            resume = resume_point(*last, self.state) if last is not None else None
            self.next_index = resume.first_shot if resume is not None else 0
        else:  # a camera goes on from now: the shots counted on after every one journalled
            keys = [e.shot_key for e in journal.timeline(claim.match_id)
                    if e.kind == "verdict" and e.shot_key and e.shot_key[4:].isdigit()]
            self.next_index = max((int(k[4:]) for k in keys), default=-1) + 1
            resume = ResumePoint(0, self.next_index, self.state, float("inf"))
        self.recall(journal, record.match.entries, record.entry_keys)
        self.note(f"resuming match {claim.match_id}: {len(record.shot_keys)} shots recorded, "
                  f"score {self.state.score[0]}:{self.state.score[1]}, player "
                  f"{self.state.shooter} to play")
        return given.start, given.calls, resume

    def skip_old_commands(self) -> None:
        """A new session does not apply an earlier session's commands."""
        old = read_commands(self.files)
        self.commands_applied = old[-1].seq if old else 0

    def recall(self, journal: Journal, entries: tuple[Any, ...],
               keys: tuple[str | None, ...]) -> None:
        """What a resumed session takes over: the flags of the verdicts standing, the
        commands applied before (the last session's status) and their confirmations and
        names; the commands given while no engine ran are applied next."""
        for entry, key in zip(entries, keys, strict=True):
            if key is not None and isinstance(entry, ShotEntry):
                self.flag_verdict(key, entry.facts, entry.verdict)
        before = self.previous
        self.commands_applied = before.commands_applied if before is not None else 0
        for command in read_commands(self.files):
            if command.seq > self.commands_applied:
                break
            if command.kind == "confirm":
                self.confirmed.add(str(command.payload.get("shot", "")))
            elif command.kind in ("players", "new_match"):
                self.set_players(command.payload)

    def calibrated(self, watched: WatchedSource) -> Calibration | None:
        """The calibration to start with: the given file's; a file's own (None: the pipeline
        finds it as ``kaisa referee`` does); a camera's from its first seconds, tried again
        until the table is found."""
        config = self.config
        if config.calibration is not None:
            return load_calibration(config.calibration)
        if source_file(config.source) is not None:
            return None
        from video import as_bgr
        from vision.detection import calibrate_for_the_balls

        while not self.stop.is_set():
            with self.lock:
                self.camera_override = ("calibrating", "finding the table")
            frames = watched.take(CALIBRATION_FRAMES)
            if not frames:
                raise InputError("expected frames to find the table in, the source gave none",
                                 config.source)
            sample = [(f.index, as_bgr(f.image)) for f in frames[::CALIBRATION_EVERY]]
            try:
                calibration = calibrate_for_the_balls(self.source_path, self.options.table,
                                                      sample)
            except KaisaError as err:
                self.message = f"the table was not found ({err}); trying again"
                self.note(self.message)
                continue
            for warning in calibration.warnings:
                self.note(f"calibration warning: {warning}")
            self.message = ""
            return calibration
        raise KeyboardInterrupt

    # --- judging ----------------------------------------------------------------------------
    def flag_verdict(self, key: str, facts: ShotFacts, verdict: Verdict) -> None:
        reasons: list[str] = [str(f.value) for f in verdict.flags
                              if f.value in NEEDS_CONFIRMING]
        for reason in ("camera_gap", "camera_moved"):
            if facts.extra.get(reason):
                reasons.append(reason)
        if facts.extra.get("conflicts"):
            reasons.append("camera_conflict")
        if reasons:
            self.flag_reasons[key] = sorted(set(reasons))

    def judge(self, journal: Journal, facts: ShotFacts,
              told: Callable[[ShotFacts, Verdict, GameState], None] | None) -> None:
        """One shot: the operator's call, the camera's gaps, then the referee's judging from
        the state now, journalled at once; a shot that cannot be judged is logged and flagged,
        and the match goes on without it."""
        assert self.match_id is not None and self.watched is not None
        with self.lock:
            index = self.next_index
            self.next_index += 1
            key = f"shot{index}"
            extra = dict(facts.extra)
            if self.pending_call is not None:
                facts = replace(facts, call=self.pending_call)
                extra["call_from"] = "operator"
                self.pending_call = None
            strike, rest = int(extra.get("strike_frame", 0)), int(extra.get("rest_frame", 0))
            gaps = self.watched.gaps_in(strike, rest)
            if gaps:
                extra["camera_gap"] = [g.to_dict(key) for g in gaps]
                for g in gaps:
                    self.gap_shots[g.index] = key
            facts = replace(facts, extra=extra)
            if self.state.winner is not None:
                self.note(f"shot {index + 1} at {facts.strike.t:.1f} s not judged: player "
                          f"{self.state.winner} has won; a new match starts one")
                self.next_index -= 1
                return
            game = Game(self.source_path, self.options, self.state, [facts],
                             from_camera=True, first_shot=index,
                             on_verdict=lambda f, v, s: self.verdict_made(key, f, v, s, told))
            lines = io.StringIO()
            try:
                _judge_the_rest(game, journal, Claim(self.match_id, False), 0.0, lines)
            except Exception as err:  # a shot the engine cannot judge must not end the match
                self.note(f"shot {index + 1} at {facts.strike.t:.1f} s not judged: {err}")
                traceback.print_exc(file=self.log)
                self.errors.append({"shot": key, "t_s": round(facts.strike.t, 3),
                                    "message": str(err)})
                self.flag_reasons.setdefault(key, []).append("not_judged")
            finally:
                self.echo(lines.getvalue())
            self.write_status()

    def verdict_made(self, key: str, facts: ShotFacts, verdict: Verdict, state: GameState,
                     told: Callable[[ShotFacts, Verdict, GameState], None] | None) -> None:
        """Told by the referee once the verdict is in the journal."""
        judged = time.time()
        self.state = state
        self.shots_judged += 1
        if told is not None:
            told(facts, verdict, state)  # the tracking follows the next shot from this state
        self.flag_verdict(key, facts, verdict)
        rest = int(facts.extra.get("rest_frame", -1))
        seen = self.watched.read_unix(rest) if self.watched is not None else None
        self.verdict_times = [*self.verdict_times, {
            "shot": key, "rest_frame": rest, "rest_seen_unix": seen,
            "judged_unix": judged}][-KEPT_VERDICT_TIMES:]
        if state.winner is not None:
            self.message = (f"player {state.winner} has won {state.score[0]}:{state.score[1]}"
                            "; a new match starts another")

    def echo(self, text: str) -> None:
        """The referee's lines for a shot, without its header (printed once, at the start)."""
        if not self.config.echo:
            return
        for line in text.splitlines():
            if line.startswith("kaisa referee:") or (
                    line.startswith(f"match {self.match_id}:") and "to play" in line):
                continue
            print(line, file=self.out, flush=True)
            print(line, file=self.log, flush=True)

    # --- the operator's commands (the control thread) --------------------------------------
    def apply_commands(self, journal: Journal) -> None:
        for command in read_commands(self.files, self.commands_applied):
            with self.lock:
                try:
                    self.apply(journal, command)
                except (KaisaError, ValueError, TypeError, KeyError, AttributeError) as err:
                    # (a command the page got wrong is skipped, never tried again and again)
                    self.note(f"command {command.seq} ({command.kind}) not applied: {err}")
                self.commands_applied = command.seq
            self.write_status()

    def apply(self, journal: Journal, command: OperatorCommand) -> None:
        assert self.match_id is not None
        payload = command.payload
        kind = command.kind
        if kind == "call":
            self.pending_call = Call.from_dict(payload, "call") if payload else None
            called = self.pending_call.to_dict() if self.pending_call else "none"
            self.note(f"call for the next shot: {called}")
        elif kind == "undo":
            journal.record_undo(self.match_id, str(payload.get("note", "")))
            self.reload(journal, "undo")
        elif kind == "correct":
            score = payload.get("score")
            if not isinstance(score, (list, tuple)) or len(score) != 2:
                raise KaisaError(f"expected a score [a, b], got {score!r}", "correct")
            journal.record_correction(self.match_id, (int(score[0]), int(score[1])),
                                      str(payload.get("note", "")))
            self.reload(journal, "correction")
        elif kind == "new_match":
            self.new_match(journal)
            self.set_players(payload)
        elif kind == "players":
            self.set_players(payload)
        elif kind == "confirm":
            self.confirmed.add(str(payload.get("shot", "")))

    def set_players(self, payload: Mapping[str, Any]) -> None:
        names = payload.get("names", payload.get("players"))
        if isinstance(names, (list, tuple)) and len(names) == 2:
            self.players = (str(names[0]), str(names[1]))

    def reload(self, journal: Journal, what: str) -> None:
        """The state as the journal now has it (after the operator's undo or correction); the
        flags of verdicts no longer standing dropped; the tracking told."""
        assert self.match_id is not None
        record = journal.load(self.match_id)
        self.state = record.match.state
        self.flag_reasons = {k: v for k, v in self.flag_reasons.items()
                             if k in record.shot_keys or "not_judged" in v}
        self.message = ""
        self.note(f"{what}: score {self.state.score[0]}:{self.state.score[1]}, player "
                  f"{self.state.shooter} to play")
        self.tell_tracking()

    def new_match(self, journal: Journal) -> None:
        """The match so far ended (kept as it is), a new one from the opening."""
        assert self.match_id is not None
        if journal.load(self.match_id).match.state.winner is None:
            journal.set_status(self.match_id, ENDED)
        journal.release(self.match_id)
        opening = GameState(options=self.options)
        claim = journal.claim(self.config.source, self.key, self.options, opening,
                              resume=False)
        self.match_id, self.state, self.next_index = claim.match_id, opening, 0
        self.flag_reasons, self.confirmed, self.errors = {}, set(), []
        self.message = ""
        self.note(f"new match {claim.match_id} from the opening")
        self.tell_tracking()

    def tell_tracking(self) -> None:
        """The tracker told the state from the latest frame on (after the operator changed
        it: the balls named where the state has them)."""
        starts = self.found.starts if self.found is not None else None
        if starts is None or self.latest is None:
            return
        from rules import cue_ball_of

        starts.put(ShotStart(
            after_frame=self.latest[0], cue_ball=cue_ball_of(self.state.shooter).value,
            in_hand=frozenset(b.value for b in self.state.in_hand),
            positions={b.value: xy for b, xy in self.state.on_table.items()}))

    def control(self) -> None:
        """The control thread: commands as they come, the heartbeat and the still."""
        journal: Journal | None = None
        last = 0.0
        try:
            while not self.stop.is_set():
                if self.match_id is not None:
                    journal = journal or Journal(self.files.journal)
                    try:
                        self.apply_commands(journal)
                    except Exception as err:
                        self.note(f"commands: {err}")
                        traceback.print_exc(file=self.log)
                now = time.monotonic()
                if now - last >= STATUS_EVERY_S:
                    last = now
                    try:
                        self.write_still()
                        self.write_status()
                    except Exception as err:
                        self.note(f"status: {err}")
                        traceback.print_exc(file=self.log)
                self.stop.wait(CONTROL_STEP_S)
        finally:
            if journal is not None:
                journal.close()

    # --- the session --------------------------------------------------------------------------
    def run(self, source: FrameSource | None = None) -> None:
        """Referee until the source ends (a file) or the engine is stopped."""
        config = self.config
        self.files.folder.mkdir(parents=True, exist_ok=True)
        self.previous = read_status(self.files)
        self.write_status()
        control = threading.Thread(target=self.control, name="control", daemon=True)
        file = source_file(config.source)
        if source is None and file is None:  # a camera or a stream: no match before it opens
            source = open_source(config.source, policy=config.policy)
        with Journal(self.files.journal) as journal:
            try:
                start, calls, resume = self.open_match(journal)
                control.start()
                if source is None:  # a file: taken up where the journal says
                    first = resume.first_frame if resume is not None else 0
                    source = open_source(config.source, realtime=config.realtime, start=first,
                                         policy=config.policy, pace=config.pace)
                watched = self.watched = WatchedSource(source, config.camera)
                calibration = self.calibrated(watched)
                with self.lock:
                    self.camera_override = ("calibrating", "finding the table") \
                        if calibration is None else None
                found = self.found = game_from_video(watched, self.options, start, calibration,
                                                     calls, resume=resume)
                found.watch_frame, found.watch_tracks = self.seen_frame, self.seen_tracks
                with self.lock:
                    self.camera_override = None
                self.write_status()
                shots: Iterator[Any] = iter(found.game.shots)
                for facts in shots:
                    self.judge(journal, facts, found.game.on_verdict)
                if found.ended_early:
                    self.note(f"the video ended early: {found.ended_early}")
                with self.lock:
                    if self.match_id is not None and self.state.winner is None:
                        journal.set_status(self.match_id, ENDED)
                    self.camera_override = ("ended", f"{watched.name} has no more frames")
            finally:
                self.stop.set()
                if control.ident is not None:  # (started)
                    control.join(timeout=5)
                with self.lock:
                    if self.camera_override is None:
                        self.camera_override = ("ended", "the engine stopped")
                if self.match_id is not None:
                    with contextlib.suppress(KaisaError):
                        journal.release(self.match_id)
                if source is not None:
                    source.close()
                if self.found is not None:
                    self.found.rows.close()
                with contextlib.suppress(Exception):
                    self.write_still()
                self.write_status()


def run_engine(config: EngineConfig, source: FrameSource | None = None,
               out: TextIO | None = None) -> int:
    """The engine, to its end: 0 when the source ended or it was stopped (Ctrl-C), 2 for bad
    input (said in one line and in the status), 1 for an internal fault. ``source``: a source
    already opened (tests: a fake camera)."""
    files = config.files
    files.folder.mkdir(parents=True, exist_ok=True)
    with open(files.folder / "engine.log", "a", encoding="utf-8") as log:
        engine = Engine(config, out or sys.stdout, log)
        try:
            engine.run(source)
            return 0
        except KeyboardInterrupt:
            engine.note("stopped; the journal holds every verdict")
            return 0
        except KaisaError as err:
            engine.message = str(err)
            with engine.lock:
                engine.camera_override = ("lost", str(err))
            with contextlib.suppress(OSError):
                engine.write_status()
            print(f"kaisa live: {err}", file=log, flush=True)
            print(f"kaisa: {err}", file=sys.stderr, flush=True)
            return 2
        except Exception as err:
            traceback.print_exc(file=log)
            engine.message = f"internal error: {err.__class__.__name__}: {err}"
            with engine.lock:
                engine.camera_override = ("lost", engine.message)
            with contextlib.suppress(OSError):
                engine.write_status()
            print(f"kaisa: internal error in the live engine: {err} (see "
                  f"{files.folder / 'engine.log'})", file=sys.stderr, flush=True)
            return 1


def engine_main(config: EngineConfig) -> None:
    """The engine process's entry point (multiprocessing, spawn)."""
    sys.exit(run_engine(config))
