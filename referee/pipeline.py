"""Video -> calibration -> tracks -> shot facts: the facts of a recorded match, each shot given
out as soon as its balls are at rest, for the same refereeing loop that judges a GAME record
(journal, one line per shot, reports)."""

from __future__ import annotations

import queue
import sys
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from calibration import (
    BumpParams,
    Calibration,
    DriftEvent,
    DriftMonitor,
    sample_frames,
)
from calibration.sights import DEFAULT_SIGHTS
from referee.annotate import DrawnAsRead, OverlayPlan
from referee.errors import InputError
from referee.gamefile import Game, read_json
from referee.progress import Progress
from referee.trackrows import Row, TrackRows
from rules import (
    Call,
    GameState,
    KaisaError,
    RuleOptions,
    ShotFacts,
    TableSpec,
    Verdict,
    cue_ball_of,
)
from video import (
    AnyFrame,
    FrameSource,
    VideoError,
    as_bgr,
    probe,
    read_frame,
    video_fps,
)
from vision.detection import (
    DEFAULT_DETECTION,
    Detection,
    DetectionParams,
    calibrate_for_the_balls,
    table_for_the_balls,
)
from vision.shots import (
    DEFAULT_SHOT_FACTS,
    ShotFactsParams,
    ShotStream,
    ShotStreamParams,
    StreamedShot,
    check_stream_params,
)
from vision.tracking import DEFAULT_TRACKING, FrameTracks, ShotStart, TrackingParams, track_video

# What a match is refereed from: a recorded file (read as ever), or a frame source (a camera, a
# stream, a file played at its pace: the live mode, see live/engine.py)
Video = Path | FrameSource


def video_file(video: Video) -> Path | None:
    """The file behind ``video`` (a path, a file source, a file played at its pace); None for
    a camera or a stream (nothing to read again)."""
    return video if isinstance(video, Path) else video.file_path


def video_label(video: Video) -> str:
    """How messages name ``video``: a file's name, else the source's."""
    file = video_file(video)
    return file.name if file is not None else video.name if isinstance(video, FrameSource) \
        else str(video)


def video_rate(video: Video) -> float:
    """The frame rate (a source's own; a file's as its container says)."""
    return video.fps if isinstance(video, FrameSource) else video_fps(video)


DEFAULT_BUMP = BumpParams()  # how the referee looks for a bumped camera


def camera_watch(calibration: Calibration) -> DriftMonitor:
    """How the referee watches the camera: a bump (or a slow drift, against the same reference)
    looked for four times a second and followed (:mod:`calibration.bump`), then the table fitted
    again to the rails' sights in the pictures of the next second, where they show. The cushion-line
    drift check (the table found again after two checks a few seconds apart) is not used: on the
    synthetic matches it read 3-27 mm of motion where there was none, and its recalibrations
    cost 11 of 77 verdicts; the bump watch read none there."""
    return DriftMonitor(calibration, every_s=None, bump=DEFAULT_BUMP, sights=DEFAULT_SIGHTS)


def camera_watch_params() -> dict[str, Any]:
    """The parameters :func:`camera_watch` looks with (for the report: a verdict after a bump
    is reproduced with them)."""
    return {"bump": asdict(DEFAULT_BUMP), "sights": asdict(DEFAULT_SIGHTS)}


def load_calibration(path: Path) -> Calibration:
    data = read_json(path, "a kaisa-calibration/1 file")
    try:
        return Calibration.from_dict(data)
    except KaisaError as err:
        raise InputError(str(err), str(path)) from None


def load_calls(path: Path) -> list[dict[str, Any]]:
    """A calls file: `{"calls": [{"shot": 3, "ball": "R", "pocket": "FL"}, {"t": 95.2, ...}]}`;
    `shot` counts from 0; `t` (seconds) names the first shot struck at or after it."""
    data = read_json(path, 'a calls file {"calls": [{"shot" or "t", "ball", "pocket"}, ...]}')
    calls = data.get("calls") if isinstance(data, Mapping) else None
    if not isinstance(calls, list):
        raise InputError('expected {"calls": [...]}', str(path))
    for i, c in enumerate(calls):
        where = f"{path}: calls[{i}]"
        if not isinstance(c, Mapping) or ("shot" in c) == ("t" in c):
            raise InputError('expected "shot" (index) or "t" (seconds), and "ball", "pocket"',
                             where)
        try:
            Call.from_dict(c)
        except KaisaError as err:
            raise InputError(str(err), where) from None
    return calls


class CallBook:
    """The calls of a calls file, handed to the shots as they are found: a call by ``shot``
    index to that shot, a call by ``t`` to the first shot struck at or after it (half a second
    of slack); shots without one stay uncalled."""

    def __init__(self, calls: Sequence[Mapping[str, Any]], judged_until_t: float | None = None
                 ) -> None:
        """``judged_until_t``: the strike time of the last shot already judged (a resumed
        match): t-calls up to it were that shot's or earlier ones'."""
        self._calls = list(calls)
        # t-calls whose shot has been found already
        self._struck_before: set[int] = (
            set() if judged_until_t is None else
            {k for k, c in enumerate(calls) if "t" in c
             and judged_until_t >= float(c["t"]) - 0.5})

    def call_for(self, index: int, facts: ShotFacts) -> Call | None:
        call = None
        for k, c in enumerate(self._calls):
            if "shot" in c:
                if int(c["shot"]) == index:
                    call = Call.from_dict(c)
            elif k not in self._struck_before and facts.strike.t >= float(c["t"]) - 0.5:
                self._struck_before.add(k)
                call = Call.from_dict(c)
        return call


class Illustrator:
    """Adds to each shot what a person checks a verdict with: the balls' paths during the shot
    (mm, every other frame), a still of the table just before the strike and one after the
    shot. The stills are made from the frames the tracking reads: the last ``KEPT_FRAMES`` are
    kept, and when the shot stream first sees a shot in progress the frame a little before its
    first motion becomes its still; the still after is the first kept frame from the shot's
    rest on (before the next shot's first motion). A still not among the kept frames (a shot
    found only as the video ended) is read from the file again."""

    KEPT_FRAMES = 24  # (the tracker hands a frame on ~6 frames after it read it, the stream
    # looks every 3 and may judge a step 2-3 frames late: the first motion is ~12 frames back)
    BEFORE_FRAMES = 3  # the still: this many frames before the shot's first motion

    def __init__(self, video: Path | None) -> None:
        """``video``: the file to read a still from again (None: a camera, nothing to read)."""
        import cv2

        self._cv2 = cv2
        self._video = video
        self._kept: deque[tuple[int, AnyFrame]] = deque(maxlen=self.KEPT_FRAMES)
        self._stills: dict[int, str] = {}  # a shot's first motion -> its still (JPEG, base64)
        self._last_began = -1  # the last first motion a still was made for

    def seen(self, index: int, frame: AnyFrame) -> None:
        """A frame as the tracking reads it."""
        self._kept.append((index, frame))

    def shot_began(self, first: int) -> None:
        """The stream has seen a shot whose first motion is at frame ``first``."""
        if first <= self._last_began or not self._kept:
            return
        self._last_began = first
        wanted = first - self.BEFORE_FRAMES
        earlier = [(i, f) for i, f in self._kept if i <= wanted]
        _, frame = earlier[-1] if earlier else self._kept[0]
        jpeg = self._jpeg(as_bgr(frame))
        if jpeg is not None:
            self._stills[first] = jpeg

    def _jpeg(self, image: Any) -> str | None:
        import base64

        cv2 = self._cv2
        small = cv2.resize(image, (640, image.shape[0] * 640 // image.shape[1]))
        ok, jpeg = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, 70])
        return base64.b64encode(jpeg.tobytes()).decode("ascii") if ok else None

    def _still(self, strike: int, rest: int) -> str | None:
        """The still of the shot struck at ``strike`` (its first motion seen within a second
        after it); stills up to ``rest`` are dropped."""
        near = [k for k in self._stills if strike - 30 <= k <= rest]
        still = self._stills[min(near, key=lambda k: abs(k - strike))] if near else None
        for k in [k for k in self._stills if k <= rest]:
            del self._stills[k]
        if still is not None:
            return still
        # (not seen begin: read it again)
        image = (read_frame(self._video, max(strike - self.BEFORE_FRAMES, 0))
                 if self._video is not None else None)
        return self._jpeg(image) if image is not None else None

    def pictures(self, facts: ShotFacts, rows: Sequence[Row]) -> dict[str, Any]:
        """``paths`` and ``still_jpeg_b64`` of a shot; ``rows``: the tracker's rows from at
        least the shot's strike to its rest."""
        first, last = int(facts.extra["strike_frame"]), int(facts.extra["rest_frame"])
        paths: dict[str, list[list[float]]] = {}
        for frame, ball, x, y, visible in rows:
            if visible and first <= frame <= last and (frame - first) % 2 == 0:
                paths.setdefault(ball, []).append([round(x), round(y)])
        out: dict[str, Any] = {"paths": paths}
        still = self._still(first, last)
        if still is not None:
            out["still_jpeg_b64"] = still
        after = self._still_after(last)
        if after is not None:
            out["still_after_jpeg_b64"] = after
        return out

    def _still_after(self, rest: int) -> str | None:
        """The table after the shot: the first kept frame at or after ``rest`` and before the
        next shot's first motion, else that frame read again; None while ``rest`` is unread."""
        if self._kept and self._kept[-1][0] < rest:
            return None
        upto = min((k - self.BEFORE_FRAMES for k in self._stills if k > rest), default=None)
        after = [f for i, f in self._kept if i >= rest and (upto is None or i <= upto)]
        if after:
            return self._jpeg(as_bgr(after[0]))
        image = read_frame(self._video, rest) if self._video is not None else None
        return self._jpeg(image) if image is not None else None

    def cloth_rgb(self, calibration: Calibration) -> tuple[int, int, int] | None:
        """The cloth's colour (R, G, B) in the newest kept frame: the median over a grid of
        points of the playing field (a ball or a hand on a few of them does not move it)."""
        if not self._kept:
            return None
        import numpy as np

        image = as_bgr(self._kept[-1][1])
        table = calibration.table
        grid = [(table.length_mm * (i + 0.5) / 12, table.width_mm * (j + 0.5) / 6)
                for i in range(12) for j in range(6)]
        px = np.rint(calibration.table_to_image(grid)).astype(int)
        h, w = image.shape[:2]
        inside = (px[:, 0] >= 0) & (px[:, 0] < w) & (px[:, 1] >= 0) & (px[:, 1] < h)
        if not inside.any():
            return None
        b, g, r = np.median(image[px[inside, 1], px[inside, 0]], axis=0)
        return int(r), int(g), int(b)

    def close(self) -> None:
        self._kept.clear()
        self._stills.clear()


def tracking_progress(video: Video, first_frame: int = 0, shown: bool = True,
                      what: str = "tracking") -> Progress:
    """The reading pass's progress: frame N of the video's M (its container's count; unknown:
    none), from ``first_frame`` (a resumed match) on. A live source's is not shown (it has
    no end, and its lines are the verdicts)."""
    if isinstance(video, FrameSource):
        total, shown = (None, False) if video.live else (video.frame_count, shown)
    else:
        try:
            total = probe(video).frame_count
        except VideoError:
            total = None
    return Progress(f"{video_label(video)}: {what}", total, shown=shown, initial=first_frame)


def sample_frames_shown(video: Path, n: int = 9) -> list[tuple[int, Any]]:
    """:func:`calibration.sample_frames`, shown as progress (the frames found, or, where the
    video cannot be sought exactly, the frames read in order)."""
    bar: Progress | None = None

    def seen(k: int, of: int) -> None:
        nonlocal bar
        bar = bar or Progress(f"{video.name}: calibration, sample frames", of)
        bar.to(k)

    try:
        return sample_frames(video, n, seen)
    finally:
        if bar is not None:
            bar.close()


def tracked_frames(video: Video, calibration: Calibration, table: TableSpec,
                   cue_ball: str | None, progress: Progress | None = None,
                   positions: Mapping[str, tuple[float, float]] | None = None,
                   drift: DriftMonitor | None = None, first_frame: int = 0,
                   shot_starts: queue.SimpleQueue[ShotStart] | None = None,
                   seen: Callable[[int, AnyFrame], None] | None = None,
                   detection: DetectionParams = DEFAULT_DETECTION,
                   tracking: TrackingParams = DEFAULT_TRACKING,
                   ended: dict[str, Any] | None = None,
                   detected: Callable[[int, list[Detection], float], None] | None = None
                   ) -> Iterator[FrameTracks]:
    """The tracker's answer frame by frame from ``first_frame`` on; ``positions`` (table mm:
    where the game state has the balls then) name the balls by where they were left;
    ``drift`` watches the camera (its notable checks are printed as they happen);
    ``progress`` is shown as the frames go by; ``shot_starts``: the game state after each
    verdict, for the tracking of the next shot. A video whose frames end well before the
    count its container announces (cut short, damaged) is said on stderr, and ``ended`` (when
    given) is filled with where (see :func:`early_end`). ``video``: a file, or a frame source
    (its frames from where it starts: ``first_frame`` is then its own). ``detected``: told the
    tracker's input frame by frame (see :mod:`vision.tracking.replay`)."""
    told = 0
    read = first_frame
    for k, result in enumerate(track_video(video, calibration, table, cue_ball=cue_ball,
                                           start_positions=positions, drift=drift,
                                           first_frame=first_frame, shot_starts=shot_starts,
                                           seen=seen, tracking=tracking, detection=detection,
                                           detected=detected),
                             first_frame):
        read = k + 1
        if progress is not None:
            progress.to(read)
        if drift is not None and len(drift.events) > told:
            for event in drift.events[told:]:
                if event.status != "unmeasured":
                    if progress is not None:
                        progress.clear()
                    print(f"{video_label(video)}: {event.t_s:.1f} s: {event.message}",
                          file=sys.stderr)
            told = len(drift.events)
        yield result
    if progress is not None:
        progress.close()
    file = video_file(video)
    early = early_end(file, read) if file is not None else None
    if early is not None and ended is not None:
        ended.update(early)


def early_end(video: Path, read: int) -> dict[str, Any] | None:
    """When a video's frames ended (``read`` of them, counted from its first) well before the
    count its container announces: where, said on stderr and returned for the report
    (``frames_read``, ``frames_announced``, ``t_s``); else None."""
    try:
        info = probe(video)
    except VideoError:
        return None
    announced = info.frame_count
    if announced is None or read >= announced - max(3, announced // 200):
        return None
    fps = info.fps or 30.0
    print(f"kaisa: warning: {video.name}: the video ends at frame {read} ({read / fps:.1f} s) "
          f"of the {announced} ({announced / fps:.1f} s) its file announces: it is cut short "
          f"or damaged; nothing after {read / fps:.1f} s was refereed", file=sys.stderr,
          flush=True)
    return {"frames_read": read, "frames_announced": announced, "t_s": round(read / fps, 3)}


def rows_of(result: FrameTracks) -> list[Row]:
    return [(result.frame, ball, x, y, visible) for ball, (x, y, visible) in result.balls.items()]


def track_rows(video: Path, calibration: Calibration, table: TableSpec, cue_ball: str | None,
               progress: bool = False, start: GameState | None = None,
               drift: DriftMonitor | None = None,
               detected: Callable[[int, list[Detection], float], None] | None = None
               ) -> list[Row]:
    """The tracker's answer for every frame as rows (frame, ball, x_mm, y_mm, visible); see
    :func:`tracked_frames`."""
    shown = tracking_progress(video, shown=progress)
    positions = ({b.value: xy for b, xy in start.on_table.items()} if start is not None
                 else None)
    return [row for result in tracked_frames(video, calibration, table, cue_ball, shown,
                                             positions, drift, detected=detected)
            for row in rows_of(result)]


@dataclass
class VideoFacts:
    """What refereeing a video finds: the game, whose shots are found as they are read (with
    their calls, paths and stills), the calibration it started with, the time each stage took,
    the tracker's rows (for the annotated video) and the camera drift checks that were not "ok"
    (each with the calibration in force after it). ``timings`` and ``rows`` are complete once
    the game's shots have all been read."""

    calibration: Calibration
    timings: dict[str, float]
    stream: ShotStreamParams
    shot_facts: ShotFactsParams
    detection: DetectionParams = DEFAULT_DETECTION
    tracking: TrackingParams = DEFAULT_TRACKING
    rows: TrackRows = field(default_factory=TrackRows)
    drift: list[DriftEvent] = field(default_factory=list)
    drawing: DrawnAsRead | None = None  # the annotated video, drawn as the video is read
    # filled when the video's frames ended before the count its file announces (early_end)
    ended_early: dict[str, Any] = field(default_factory=dict)
    cloth_rgb: tuple[int, int, int] | None = None  # the cloth's colour, for the report's diagrams
    # told each frame as it is read, and the tracker's answer for each frame (the live mode's
    # still picture, frame count and ball positions; called in the reading thread)
    watch_frame: Callable[[int, AnyFrame], None] | None = None
    watch_tracks: Callable[[FrameTracks], None] | None = None
    # the game state before each next shot, for the tracking (the referee's verdicts put it
    # there; the live mode too, after the operator changed the state)
    starts: queue.SimpleQueue[ShotStart] = field(default_factory=queue.SimpleQueue)
    game: Game = field(init=False)

    def drift_report(self) -> list[dict[str, Any]]:
        return [{"frame": e.frame, "t_s": round(e.t_s, 3), "status": e.status,
                 "drift_mm": None if e.drift_mm is None else round(e.drift_mm, 2),
                 "message": e.message} for e in self.drift]


@dataclass(frozen=True)
class ResumePoint:
    """Where a match's video is taken up again after the shots the journal already has: the
    frame after the last of them came to rest (the next shot begins a second or more later,
    perhaps before that one was given out), the next shot's index, and the game state then
    (the tracker is told the balls are where it has them: where that shot left them, the
    respotted ones on their spots)."""

    first_frame: int
    first_shot: int
    state: GameState
    last_strike_t: float


def resume_point(shot_key: str, facts: ShotFacts, state: GameState) -> ResumePoint | None:
    """From the journal's last verdict (its shot key and facts) and the state after the
    recorded entries; None when the facts do not say where in the video the shot came to rest
    (a record not found in a video): then the video is read from its start."""
    rest = facts.extra.get("rest_frame")
    if not isinstance(rest, int) or not shot_key.startswith("shot"):
        return None
    return ResumePoint(rest + 1, int(shot_key.removeprefix("shot")) + 1, state, facts.strike.t)


def game_from_video(video: Video, options: RuleOptions, start: GameState,
                    calibration: Calibration | None, calls: Sequence[Mapping[str, Any]],
                    stream: ShotStreamParams | None = None,
                    resume: ResumePoint | None = None,
                    shot_facts: ShotFactsParams = DEFAULT_SHOT_FACTS,
                    detection: DetectionParams = DEFAULT_DETECTION,
                    tracking: TrackingParams = DEFAULT_TRACKING,
                    annotated: Path | None = None) -> VideoFacts:
    """Calibrate (unless given) now; then, as the game's shots are read, track (watching for
    the camera moving) and give out each shot as soon as its balls are at rest (with its paths,
    a still and its call); ``annotated``: draw the annotated video there from the same frames
    (``found.drawing``; its ``finish`` closes it). ``resume``: take the video up after the
    shots already judged;
    ``stream`` and ``shot_facts``: when shots are given out and how their facts are found (both
    checked now, before any work); ``detection``, ``tracking``: the balls' finding and following.
    All four are recorded in the report. ``video`` may be a frame source (a camera, a stream, a
    file at its pace: the live mode), read from where it starts; one with no file behind it
    needs its ``calibration`` (``resume`` then only gives the state and the shots' count)."""
    stream = stream or ShotStreamParams()
    where = video_label(video)
    try:
        check_stream_params(stream, shot_facts)
    except ValueError as err:
        raise InputError(f"shot stream parameters: {err}", where) from None
    clock = time.perf_counter()
    file = video_file(video)
    if calibration is None:
        if file is None:
            raise InputError("expected a calibration for a camera or a stream (found from its "
                             "first frames, or given)", where)
        sample = sample_frames_shown(file, 9)
        print(f"{file.name}: calibration, finding the table in the sample frames",
              file=sys.stderr, flush=True)
        calibration = calibrate_for_the_balls(file, options.table, sample)
        for warning in calibration.warnings:
            print(f"kaisa: calibration warning: {warning}", file=sys.stderr)
    table = options.table
    # balls far from the preset's size are looked for at the size they measure (a calibration
    # made for them, or one made for the preset whose checks measured them)
    fitted = table_for_the_balls(replace(calibration, table=table))
    if calibration.table in (table, fitted):
        table = fitted
        calibration = replace(calibration, table=fitted)
    drift = camera_watch(calibration)
    found = VideoFacts(calibration, {"calibration_s": round(time.perf_counter() - clock, 3)},
                       stream, shot_facts, detection, tracking, drift=drift.events)
    # (opening the video costs about as much as decoding ten frames)
    fps = video_rate(video)
    if annotated is not None:
        state = start if resume is None else resume.state
        found.drawing = DrawnAsRead(annotated, OverlayPlan({"start": state.to_dict()},
                                                           calibration, (), fps))
    starts = found.starts
    path = file if file is not None else Path(where)
    if resume is None:
        book = CallBook(calls)
        shots = _shots_as_read(video, fps, found, table, start, drift, book, starts)
        found.game = Game(path, options, start, shots, "shots found as the video is read",
                          from_camera=True, on_verdict=_told_of_verdicts(starts, found.drawing))
        return found
    print(f"{where}: taking the video up at {resume.first_frame / fps:.1f} s "
          f"(frame {resume.first_frame}), after shot {resume.first_shot}", file=sys.stderr)
    book = CallBook(calls, judged_until_t=resume.last_strike_t)
    shots = _shots_as_read(video, fps, found, table, resume.state, drift, book, starts, resume)
    found.game = Game(path, options, start, shots, "shots found as the video is read",
                      from_camera=True, first_shot=resume.first_shot,
                      on_verdict=_told_of_verdicts(starts, found.drawing))
    return found


def moved_during(events: Sequence[DriftEvent], facts: ShotFacts, fps: float,
                 bump: BumpParams = DEFAULT_BUMP) -> dict[str, Any]:
    """``{"camera_moved": [...]}`` when the camera was knocked and followed while the shot ran
    (from its strike to its rest): each follow's time and how far the table moved in the
    picture. Until a bump is followed (a quarter to half a second) the balls' places are off
    by about that much, so the operator is asked to look at the shot; else ``{}``."""
    strike, rest = int(facts.extra["strike_frame"]), int(facts.extra["rest_frame"])
    moved = [{"t_s": round(e.t_s, 3), "moved_mm": round(e.drift_mm or 0.0, 1)}
             for e in events if e.status == "recalibrated" and e.motion is not None
             and strike <= e.frame
             <= rest + round(fps * bump.followed_within_s)]
    return {"camera_moved": moved} if moved else {}


def _told_of_verdicts(starts: queue.SimpleQueue[ShotStart], drawing: DrawnAsRead | None
                      ) -> Callable[[ShotFacts, Verdict, GameState], None]:
    """What the referee calls after each verdict: the state it leaves, for the tracking; the
    shot and its verdict, for the drawing."""

    def told(facts: ShotFacts, verdict: Verdict, state: GameState) -> None:
        starts.put(ShotStart(
            after_frame=int(facts.extra["rest_frame"]), cue_ball=cue_ball_of(state.shooter).value,
            in_hand=frozenset(b.value for b in state.in_hand),
            positions={b.value: xy for b, xy in state.on_table.items()}))
        if drawing is not None:
            drawing.plan.add_shot({**facts.to_dict(), "verdict": verdict.to_dict()})

    return told


def _shots_as_read(video: Video, fps: float, found: VideoFacts, table: TableSpec, state: GameState,
                   drift: DriftMonitor, calls: CallBook,
                   starts: queue.SimpleQueue[ShotStart], resume: ResumePoint | None = None
                   ) -> Iterator[ShotFacts]:
    """Each shot of the video as soon as its balls are at rest, tracking the video meanwhile
    (from its start, from ``state``, or from ``resume``); ``found``'s rows and timings filled
    as it goes (the time spent while the caller judges a shot is not counted)."""
    first_frame = 0 if resume is None else resume.first_frame
    positions = {b.value: xy for b, xy in state.on_table.items()}
    progress = tracking_progress(video, first_frame, what=(
        "tracking, shots" + (", annotated video" if found.drawing else "")))
    stream = ShotStream(table, fps, found.stream, found.shot_facts)
    pictures = Illustrator(video_file(video))
    drawing = found.drawing
    watch_frame, watch_tracks = found.watch_frame, found.watch_tracks
    spent = {"tracking_s": 0.0, "shot_facts_s": 0.0, "pictures_s": 0.0}
    drawn_moves = 0  # the camera moves the drawing's plan has been told of

    def seen(index: int, frame: AnyFrame) -> None:
        pictures.seen(index, frame)
        if drawing is not None:
            drawing.seen(index, frame)
        if watch_frame is not None:
            watch_frame(index, frame)

    given = 0 if resume is None else resume.first_shot

    def ready(streamed: StreamedShot) -> ShotFacts:
        nonlocal given
        clock = time.perf_counter()
        facts = streamed.facts
        rows = found.rows.between(int(facts.extra["strike_frame"]), streamed.rest_frame)
        extra = {**facts.extra, "found_frame": streamed.found_frame,
                 **pictures.pictures(facts, rows), **moved_during(found.drift, facts, fps)}
        if found.cloth_rgb is None:
            found.cloth_rgb = pictures.cloth_rgb(found.calibration)
        facts = replace(facts, call=calls.call_for(given, facts), extra=extra)
        given += 1
        spent["pictures_s"] += time.perf_counter() - clock
        progress.clear()
        return facts

    try:
        clock = time.perf_counter()
        for result in tracked_frames(video, found.calibration, table,
                                     cue_ball_of(state.shooter).value, progress, positions,
                                     drift, first_frame, starts, seen,
                                     found.detection, found.tracking, found.ended_early):
            rows = rows_of(result)
            found.rows.extend(rows)
            if watch_tracks is not None:
                watch_tracks(result)
            if drawing is not None:
                drawing.plan.add_rows(rows)
                for event in found.drift[drawn_moves:]:
                    if event.changed:
                        drawing.plan.add_calibration(event.frame, event.calibration)
                drawn_moves = len(found.drift)
            tracked = time.perf_counter()
            spent["tracking_s"] += tracked - clock
            done = stream.feed(result.frame, result.balls)
            spent["shot_facts_s"] += time.perf_counter() - tracked
            if stream.began is not None:
                clock = time.perf_counter()
                pictures.shot_began(stream.began)
                spent["pictures_s"] += time.perf_counter() - clock
            for streamed in done:
                shot = ready(streamed)
                found.timings.update({k: round(v, 3) for k, v in spent.items()})
                yield shot  # (judged when this resumes: its verdict is in the drawing's plan)
            if drawing is not None:
                drawing.release(stream.settled_before)
            clock = time.perf_counter()
        tracked = time.perf_counter()
        spent["tracking_s"] += tracked - clock
        done = stream.finish()
        spent["shot_facts_s"] += time.perf_counter() - tracked
        for streamed in done:
            shot = ready(streamed)
            found.timings.update({k: round(v, 3) for k, v in spent.items()})
            yield shot
    finally:
        pictures.close()
        found.timings.update({k: round(v, 3) for k, v in spent.items()})
