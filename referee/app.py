"""Refereeing a match: judge each shot (from a record of shot facts, or found in a video), journal
it at once, print a line, write the reports and, on request, the annotated video; several inputs
in parallel processes."""

from __future__ import annotations

import contextlib
import io
import json
import multiprocessing
import os
import signal
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from referee.conflicts import (
    conflicts_of,
    fit_camera_shot,
    judge_camera_shot,
    settled_by_operator,
)
from referee.describe import DEFAULT_PLAYERS, describe
from referee.errors import InputError
from referee.gamefile import Game, load_game, read_json
from referee.html_report import render_html
from referee.journal import Claim, Journal, JournalledOverride, source_key
from referee.outpaths import write_text_atomically
from referee.overrides import apply_overrides
from rules import (
    Ball,
    Call,
    GameState,
    KaisaError,
    Match,
    PlacementWarning,
    RuleOptions,
    ShotEntry,
    ShotFacts,
    Verdict,
    check_placement,
    cue_ball_of,
)

if TYPE_CHECKING:  # cv2 is imported only when a video is refereed
    from referee.pipeline import ResumePoint, VideoFacts


@dataclass
class RefereeRun:
    """What one run decided: the match (resumed entries included) and the shots judged now."""

    game: Game
    match_id: int
    match: Match
    resumed_shots: int = 0
    judged_now: list[tuple[int, ShotFacts, Verdict]] = field(default_factory=list)
    # before which shot (index) balls were found put in the wrong place
    placement: defaultdict[int, list[PlacementWarning]] = field(
        default_factory=lambda: defaultdict(list))
    # what of a camera's shot facts was left out to fit the game state (see Game.record)
    camera_notes: defaultdict[int, list[str]] = field(default_factory=lambda: defaultdict(list))
    # shots not judged (after the game was won): index, strike time, why
    skipped: list[dict[str, Any]] = field(default_factory=list)


def shot_line(index: int, facts: ShotFacts, verdict: Verdict) -> str:
    t = facts.strike.t
    return (f"{int(t // 60):3d}:{t % 60:05.2f}  shot {index + 1:2d}  P{verdict.shooter} "
            f"({verdict.cue_ball.value})  {describe(verdict)}")


def referee_game(game: Game, journal: Journal, *, resume: bool = False, pace_s: float = 0.0,
                 out: TextIO | None = None) -> RefereeRun:
    """Judge every shot of ``game`` not yet in the journal, recording each verdict as it is made.
    Shot lines and notices go to ``out`` (stdout); stderr is kept for the one-line errors."""
    out = out or sys.stdout
    key = source_key(game.path)
    claim = journal.claim(str(game.path), key, game.options, game.start, resume=resume)
    try:
        return _judge_the_rest(game, journal, claim, pace_s, out)
    finally:  # a crash that skips this (a kill) leaves a lease whose process is gone: taken over
        with contextlib.suppress(KaisaError):
            journal.release(claim.match_id)


def plural(n: int, word: str, words: str | None = None) -> str:
    """``1 shot``, ``2 shots``."""
    return f"{n} {word if n == 1 else words or word + 's'}"


class RefereeingStopped(InputError):
    """A shot the rules cannot judge stopped the run; ``run`` holds what was decided before it
    (its reports are still written)."""

    def __init__(self, detail: str, where: str, run: RefereeRun) -> None:
        super().__init__(detail, where)
        self.run = run


def _judge_the_rest(game: Game, journal: Journal, claim: Claim, pace_s: float,
                    out: TextIO) -> RefereeRun:
    def notice(message: str) -> None:  # (notices on stderr; stdout has the verdicts)
        print(message, file=sys.stderr, flush=True)

    for line in claim.notices:
        notice(line)
    after = game.first_shot - 1  # the shots up to this index are in the journal
    overrides: dict[str, list[JournalledOverride]] = {}  # of shots to be judged again
    if claim.resumed:
        record = journal.load(claim.match_id)
        for pending in record.overrides:
            overrides.setdefault(pending.shot_key, []).append(pending)
        run = RefereeRun(game, claim.match_id, record.match, resumed_shots=len(record.shot_keys))
        if record.last_shot is not None:
            after = max(after, record.last_shot)
        score = record.match.state.score
        notice(f"kaisa: resuming match {claim.match_id}: "
               f"{plural(len(record.shot_keys), 'shot')} already recorded, score "
               f"{score[0]}:{score[1]}")
        if record.match.state.winner is not None:  # a winner but not marked finished (v0)
            journal.set_status(claim.match_id, "finished")
            notice(f"kaisa: match {claim.match_id} already has its winner (player "
                   f"{record.match.state.winner}); marked finished, nothing judged")
            after = sys.maxsize
    else:
        run = RefereeRun(game, claim.match_id, Match(game.start))

    start = run.match.state
    print(f"kaisa referee: {game.path.name}" + (f" - {game.description}" if game.description
                                                 else ""), file=out)
    print(f"match {run.match_id}: {start.score[0]}:{start.score[1]}, player {start.shooter} to "
          f"play, target {game.options.target} ({game.options.finish.value} finish)", file=out)
    for i, raw in enumerate(game.shots, game.first_shot):
        shot_key = f"shot{i}"
        if i <= after:
            continue
        where = f"shots[{i}]"
        if game.start_assumed and i == game.first_shot and not claim.resumed:
            wrong = start_contradictions(run.match.state, raw)
            if wrong:
                print(f"kaisa: warning: {game.path.name}: the balls seen at the first strike do "
                      f"not match the opening assumed ({'; '.join(wrong)}); give the start "
                      "state with --start FILE (a start state JSON, or the clip's "
                      ".labels.json), or the verdicts are judged from the wrong layout",
                      file=sys.stderr, flush=True)
        if run.match.state.winner is not None:
            _skip_after_the_win(run, i, raw)
            continue
        applying = overrides.pop(shot_key, [])
        state = run.match.state
        try:
            camera: Verdict | None = None
            if game.from_camera and not applying:
                # a camera's shot never stops the match: what contradicts the state is repaired
                # and flagged, or the shot recorded not judged (referee.conflicts)
                judged = judge_camera_shot(state, raw, where)
                facts, left_out, camera = judged.facts, judged.left_out, judged.verdict
            elif applying and game.from_camera:  # the operator's word settles the conflicts
                facts, left_out = fit_camera_shot(state, raw, where)
                facts = settled_by_operator(_overridden(facts, applying, state, i))
            else:
                facts, left_out = game.fitted(raw, state, where)
                if applying:
                    facts = _overridden(facts, applying, state, i)
            for warning in placement_warnings(state, facts):
                run.placement[i].append(warning)
                print(f"  {'':8s}  placement before shot {i + 1}: {warning.describe()}",
                      file=out)
            for note in left_out:
                run.camera_notes[i].append(note)
                print(f"  {'':8s}  camera, shot {i + 1}: {note}", file=out)
            for note in conflicts_of(facts) if game.from_camera else []:
                print(f"  {'':8s}  camera conflict, shot {i + 1}: {note}", file=out)
            if camera is None:
                run.match, verdict = run.match.play(facts)
            else:
                run.match, verdict = run.match.record(facts, camera), camera
        except KaisaError as err:
            located = err if err.where.startswith(where) else err.at(where)
            hint = (f" (judged with {', '.join(o.describe() for o in applying)}; `kaisa journal "
                    f"show {run.match_id}` lists the entries, `kaisa journal undo "
                    f"{run.match_id}` withdraws the last)" if applying else "")
            raise RefereeingStopped(str(located) + hint, str(game.path), run) from None
        journal.record_verdict(run.match_id, shot_key, facts, verdict, left_out)
        run.judged_now.append((i, facts, verdict))
        if game.on_verdict is not None:
            game.on_verdict(facts, verdict, run.match.state)
        print(shot_line(i, facts, verdict), file=out, flush=True)
        if pace_s:
            time.sleep(pace_s)
    return run


def _overridden(facts: ShotFacts, overrides: Sequence[JournalledOverride], state: GameState,
                index: int) -> ShotFacts:
    """A shot judged again with the operator's overrides applied (``kaisa journal override``),
    each named in its facts (``overrides``: entry, reason, what it changes) and said on stderr,
    as is any part that found nothing to change in the shot as read (or found) again."""
    applied = apply_overrides(facts, [o.override for o in overrides], state.table,
                              where="override")
    for pending in overrides:
        print(f"kaisa: shot {index + 1} judged again with {pending.describe()}: "
              f"{pending.override.describe()}", file=sys.stderr, flush=True)
    for missed in applied.not_applied:
        print(f"kaisa: shot {index + 1}, override: {missed}", file=sys.stderr, flush=True)
    named = [{"entry": o.seq, "reason": o.note, "change": o.override.describe()}
             for o in overrides]
    return replace(applied.facts, extra={**applied.facts.extra, "overrides": named})


def _skip_after_the_win(run: RefereeRun, index: int, raw: Mapping[str, Any] | ShotFacts) -> None:
    """A shot after the game was won (a recorded session that goes on): not judged, said, and
    listed in the report (``skipped_shots``); the run goes on to its reports."""
    state = run.match.state
    t = raw.strike.t if isinstance(raw, ShotFacts) else None
    at = f" at {int(t // 60)}:{t % 60:05.2f}" if t is not None else ""
    reason = (f"the game was already won by player {state.winner} "
              f"({state.score[0]}:{state.score[1]}); a new game is its own match: referee it "
              "from its own start (--start)")
    run.skipped.append({"shot": index, "t": t, "reason": reason})
    print(f"kaisa: {run.game.path}: shots[{index}] (shot {index + 1}{at}) not judged: {reason}",
          file=sys.stderr, flush=True)


# farther than this (ball diameters) from where the start state has it: not there (100 mm on
# the 68 mm ball)
START_TOLERANCE_DIAMETERS = 1.5


def start_contradictions(state: GameState, shot: Mapping[str, Any] | ShotFacts) -> list[str]:
    """What the balls measured at a shot's strike (``start_positions``, a camera's) say against
    ``state``: balls far from where it has them, missing, or on the table while it has them in
    hand (the shooter's own white, placed from hand, excepted). Empty: nothing against it, or
    nothing measured."""
    extra = shot.extra if isinstance(shot, ShotFacts) else shot.get("extra", {})
    measured = extra.get("start_positions") if isinstance(extra, Mapping) else None
    if not isinstance(measured, Mapping) or not measured:
        return []
    try:
        seen = {Ball(b): (float(xy[0]), float(xy[1])) for b, xy in measured.items()}
    except (ValueError, TypeError, IndexError, KeyError):
        return []
    wrong = []
    for ball, (x, y) in sorted(state.on_table.items(), key=lambda kv: kv[0].value):
        if ball not in seen:
            wrong.append(f"{ball.value} not seen")
            continue
        off = ((seen[ball][0] - x) ** 2 + (seen[ball][1] - y) ** 2) ** 0.5
        if off > START_TOLERANCE_DIAMETERS * state.table.ball_diameter_mm:
            wrong.append(f"{ball.value} {off:.0f} mm from where it should be")
    wrong += [f"{b.value} on the table, not in hand" for b in sorted(
        state.in_hand, key=lambda b: b.value) if b in seen and b is not cue_ball_of(
        state.shooter)]
    return wrong


def placement_warnings(state: GameState, shot: ShotFacts) -> list[PlacementWarning]:
    """§6.5: before a strike, were the balls the last verdict respotted put on their points
    (within 5 mm), and is the shooter's white from hand in the house? Measured from the shot's
    ``start_positions`` (where the balls lay at the strike); nothing to say without them."""
    measured = shot.extra.get("start_positions")
    if not isinstance(measured, Mapping) or not (state.respot_targets or state.in_hand):
        return []
    try:
        where = {Ball(b): (float(xy[0]), float(xy[1])) for b, xy in measured.items()}
    except (ValueError, TypeError, IndexError, KeyError):
        return []  # not ours to judge: the shot's own fields are validated when it is judged
    to_place = [b for b in state.in_hand if b is cue_ball_of(state.shooter)]
    return check_placement(state.table, state.respot_targets, to_place, where)


def match_report(run: RefereeRun, timings: dict[str, float], status: str | None = None
                 ) -> dict[str, Any]:
    """DESIGN.md's match report: the labelled-clip structure with the facts and verdicts, and
    the match's ``status`` in the journal when known (finished, ended, running)."""
    game = run.game
    shots = []
    played = 0
    for entry in run.match.entries:
        if isinstance(entry, ShotEntry):
            shot = {**entry.facts.to_dict(), "verdict": entry.verdict.to_dict()}
            if run.placement.get(played):
                shot["placement_warnings"] = [w.to_dict() for w in run.placement[played]]
            if run.camera_notes.get(played):
                shot["left_out"] = list(run.camera_notes[played])
            shots.append(shot)
            played += 1
        else:
            shots.append({"correction": {"score": {"1": entry.score[0], "2": entry.score[1]},
                                         "reason": entry.reason}})
    final = run.match.state
    return {
        "format": "kaisa-match-report/1", "video": None, "source": str(game.path),
        "match_id": run.match_id, "table": game.options.table.to_dict(), "calibration": None,
        "rules": game.options.to_dict(), "start": game.start.to_dict(), "shots": shots,
        "final": final.to_dict(), "winner": final.winner,
        "detector": None,  # facts came from a record, not from the camera
        "timings": timings,
        "players": list(DEFAULT_PLAYERS), "date": datetime.now(UTC).date().isoformat(),
        **({"skipped_shots": list(run.skipped)} if run.skipped else {}),
        **({"status": status} if status is not None else {}),
    }


def timed() -> Callable[[], float]:
    start = time.perf_counter()
    return lambda: round(time.perf_counter() - start, 4)


# --- one input, start to finish (also the unit of work of `--jobs`) ---------------------------
VIDEO_SUFFIXES = frozenset({".mp4", ".avi", ".mov", ".mkv", ".webm", ".m4v"})


def is_video(path: Path) -> bool:
    return path.suffix.lower() in VIDEO_SUFFIXES


@dataclass(frozen=True)
class RefereeJob:
    """One input to referee and where its outputs go. Plain data, so it can be sent to a worker
    process (``kaisa referee --jobs N``)."""

    source: Path
    journal: Path
    options: RuleOptions | None = None  # from --rules; None: the GAME file's own, or defaults
    calibration: Path | None = None
    calls: Path | None = None
    start: Path | None = None
    output: Path | None = None
    html: Path | None = None
    annotated: Path | None = None
    resume: bool = False
    pace_s: float = 0.0


@dataclass(frozen=True)
class JobOutcome:
    """How a job ended: ``error`` is one line, ``internal`` says it was not the input's fault."""

    source: Path
    error: str | None = None
    internal: bool = False
    written: tuple[Path, ...] = ()
    died: bool = False  # its worker process died (killed, out of memory...): said as such


LABELS_SUFFIX = ".labels.json"


def labels_beside(video: Path) -> Path | None:
    """A labelled clip's labels file (``X.labels.json`` beside ``X.mp4``), when there is one."""
    path = video.with_name(video.stem + LABELS_SUFFIX)
    return path if path.is_file() else None


def is_labels_doc(data: Any) -> bool:
    return isinstance(data, Mapping) and str(data.get("format", "")).startswith(
        "kaisa-clip-labels/")


def calls_of_labels(data: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A labels document's calls, as a calls file has them (by shot index)."""
    shots = data.get("shots")
    calls: list[dict[str, Any]] = []
    for i, shot in enumerate(shots if isinstance(shots, list) else []):
        call = shot.get("call") if isinstance(shot, Mapping) else None
        if isinstance(call, Mapping):
            calls.append({"shot": i, **call})
    return calls


@dataclass(frozen=True)
class StartAndCalls:
    """A video's start state, its calls and its options, and where they came from."""

    options: RuleOptions
    start: GameState
    calls: list[dict[str, Any]]
    start_assumed: bool  # nothing said where the balls are: the opening is assumed


def start_and_calls(job: RefereeJob) -> StartAndCalls:
    """From ``--start`` (a start state, or a labelled clip's labels file: its start, and its
    calls unless ``--calls`` is given) and ``--calls``; with neither, from the labels file
    beside the video when there is one (a sample clip referees right on its own); else the
    opening, uncalled. ``--rules`` prevail over a labels file's rules."""
    from referee.pipeline import load_calls

    start_path = job.start
    labels: Any = None
    if start_path is None and job.calls is None:
        start_path = labels_beside(job.source)
        if start_path is not None:
            print(f"kaisa: {job.source.name}: start state and calls from {start_path.name} "
                  "(the labels beside the clip; --start and --calls give others)",
                  file=sys.stderr)
    data = read_json(start_path, "a start state, or a clip's labels") if start_path else None
    if data is not None and is_labels_doc(data):
        labels = data
        data = labels.get("start")
    try:
        opts = job.options or (
            RuleOptions.from_mapping({**(labels.get("rules") or {}), "table": labels["table"]})
            if labels is not None and "table" in labels else RuleOptions())
        start = GameState(options=opts) if data is None else GameState.from_dict(data, opts)
    except KaisaError as err:
        raise InputError(str(err), str(start_path)) from None
    if job.calls is not None:
        calls = load_calls(job.calls)
    elif labels is not None:
        calls = calls_of_labels(labels)
        for k, call in enumerate(calls):
            try:
                Call.from_dict(call)
            except KaisaError as err:
                raise InputError(str(err), f"{start_path}: calls of shot {k}") from None
    else:
        calls = []
    return StartAndCalls(opts, start, calls, start_assumed=start_path is None)


def load_source(job: RefereeJob) -> tuple[Game, VideoFacts | None]:
    """A GAME record, or a video's game whose shots are found as it is read (calibration
    first, then tracks and shot facts as the shots are judged)."""
    if not is_video(job.source):
        return load_game(job.source, job.options), None
    from referee.pipeline import game_from_video, load_calibration

    given = start_and_calls(job)
    calibration = load_calibration(job.calibration) if job.calibration else None
    found = game_from_video(job.source, given.options, given.start, calibration, given.calls,
                            resume=_resume_point(job) if job.resume else None,
                            annotated=job.annotated)
    found.game = replace(found.game, start_assumed=given.start_assumed)
    return found.game, found


def _resume_point(job: RefereeJob) -> ResumePoint | None:
    """Where to take the video up for ``--resume``: after the last shot the journal's
    unfinished match of this input has (None: no such match, or nothing to go by)."""
    from referee.pipeline import resume_point

    with Journal(job.journal) as journal:
        previous = journal.latest_unfinished(source_key(job.source))
        last = journal.last_verdict(previous) if previous is not None else None
        if previous is None or last is None:
            return None
        return resume_point(*last, journal.load(previous).match.state)


def video_report(found: VideoFacts) -> dict[str, Any]:
    """The report fields of a video refereed to its end."""
    from referee.pipeline import camera_watch_params

    extra: dict[str, Any] = {"calibration": found.calibration.to_dict(), "timings": found.timings,
             "camera_drift": found.drift_report(), "shot_stream": found.stream.to_dict(),
             "shot_facts_params": found.shot_facts.to_dict(),
             "detection_params": found.detection.to_dict(),
             "tracking_params": found.tracking.to_dict(),
             "camera_watch_params": camera_watch_params(),
             "detector": {"tracker": "vision.tracking.tracker",
                          "shot_facts": "vision.shots.stream"}}
    if found.ended_early:
        extra["video_ended_early"] = dict(found.ended_early)
    if found.cloth_rgb is not None:
        extra["cloth_rgb"] = list(found.cloth_rgb)
    return extra


def run_job(job: RefereeJob, out: TextIO | None = None) -> tuple[Path, ...]:
    """Referee one input: judge every shot (journalled as it is decided), draw the annotated
    video on request, write the reports. Returns the files written; bad input raises
    InputError. Shot lines go to ``out`` (stdout), notices to stderr."""
    clock = timed()
    if job.resume:
        finished = _finished_match(job)
        if finished is not None:
            return rewrite_reports(job.journal, finished, job.output, job.html, clock, out)
    game, found = load_source(job)
    try:
        return _referee_and_report(job, game, found, clock, out)
    finally:
        if found is not None:
            found.rows.close()


def _referee_and_report(job: RefereeJob, game: Game, found: VideoFacts | None,
                        clock: Callable[[], float], out: TextIO | None) -> tuple[Path, ...]:
    drawing = found.drawing if found is not None else None
    stopped: RefereeingStopped | None = None
    try:
        with Journal(job.journal) as journal:
            try:
                run = referee_game(game, journal, resume=job.resume, pace_s=job.pace_s,
                                   out=out)
            except RefereeingStopped as err:  # what was decided still gets its reports
                stopped, run = err, err.run
            if (game.start_assumed and not run.judged_now and not run.resumed_shots
                    and stopped is None):
                print(f"kaisa: warning: {game.path.name}: no shot was found. The balls were "
                      "looked for from the opening, assumed as no start state was given: if "
                      "the video does not begin from the opening, give it with --start FILE "
                      "(a start state JSON, or the clip's .labels.json)", file=sys.stderr)
            if run.match.state.winner is None:
                # the input was refereed to its end (or to a shot the rules refuse, where a
                # run of the same input would stop again) without a winner: nothing to resume
                journal.set_status(run.match_id, ENDED)
    except BaseException:
        if drawing is not None:
            drawing.abandon()
        raise
    extra = video_report(found) if found is not None else {}
    report = match_report(run, {**extra.pop("timings", {}), "total_s": clock()},
                          "finished" if run.match.state.winner is not None else ENDED)
    report.update(extra)
    if stopped is not None:
        report["stopped"] = str(stopped)
    if is_video(job.source):
        report["video"] = str(job.source)
    written: list[Path] = []
    failed: list[KaisaError] = []  # each said; the last one raised (exit 2)
    try:
        if drawing is not None and stopped is not None:
            drawing.abandon()
        elif drawing is not None:
            try:
                result = drawing.finish()
            except KaisaError as err:
                failed.append(err)
            else:
                report["annotated_video"] = str(result.path)
                report["timings"]["annotated_s"] = round(result.seconds, 3)
                report["annotated_early_frames"] = result.drawn_early
                written.append(result.path)
                print(result.log_line(), file=sys.stderr)
    finally:  # the verdicts are the main job: their reports are written whatever came after
        try:
            written += write_reports(report, job.output, job.html)
        except KaisaError as err:
            failed.append(err)
    if stopped is not None:
        failed.append(stopped)
    for earlier in failed[:-1]:
        print(f"kaisa: {earlier}", file=sys.stderr)
    if failed:
        raise failed[-1]
    return tuple(written)


# A match whose input was refereed to its end without a winner (a clip, a session cut short):
# not "running" (nothing is left to --resume), not "finished" (no winner).
ENDED = "ended"


def write_reports(report: dict[str, Any], output: Path | None, html: Path | None) -> list[Path]:
    """The JSON report (``output``) and the HTML one, each on request; the paths written. One
    that cannot be written does not stop the other: every failure is said (stderr), then the
    first is raised (exit 2)."""
    written = []
    failed: list[InputError] = []
    for path, kind in ((output, "report"), (html, "html report")):
        if path is None:
            continue
        try:
            text = (json.dumps(report, indent=1) + "\n" if kind == "report"
                    else render_html(_links_from(report, path)))
            write_text_atomically(path, text)
        except InputError as error:
            failed.append(error)
            continue
        written.append(path)
        print(f"{kind}: {path}", file=sys.stderr)
    for earlier in failed[:-1]:
        print(f"kaisa: {earlier}", file=sys.stderr)
    if failed:
        raise failed[-1]
    return written


def _finished_match(job: RefereeJob) -> int | None:
    """For ``--resume``: the input's last match when it is finished (nothing of it to judge)."""
    try:
        key = source_key(job.source)
    except OSError:
        return None  # not readable: said as the input is loaded
    if not job.journal.is_file():
        return None
    with Journal(job.journal, readonly=True) as journal:
        if journal.latest_unfinished(key) is not None:
            return None
        return journal.latest_finished(key)


def run_from_journal(journal: Journal, match_id: int) -> RefereeRun:
    """A match as its run had it, rebuilt from the journal alone (nothing judged again): the
    placement warnings found again from the states, what the camera left out as journalled."""
    record = journal.load(match_id)
    start = record.match.start
    game = Game(Path(record.source), start.options, start, ())
    run = RefereeRun(game, match_id, record.match, resumed_shots=len(record.shot_keys))
    played = 0
    for k, entry in enumerate(record.match.entries):
        if not isinstance(entry, ShotEntry):
            continue
        before = record.match.states[k - 1] if k else start
        run.placement[played] += placement_warnings(before, entry.facts)
        if played < len(record.left_out):
            run.camera_notes[played] += record.left_out[played]
        played += 1
    return run


def rewrite_reports(journal_path: Path, match_id: int | None, output: Path | None,
                    html: Path | None, clock: Callable[[], float] | None = None,
                    out: TextIO | None = None, *, resumed: bool = True) -> tuple[Path, ...]:
    """A match's reports written again from the journal, without judging anything (``--resume``
    on a finished match; ``kaisa journal report``). ``match_id`` None: the latest match."""
    clock = clock or timed()
    with Journal(journal_path, readonly=True) as journal:
        if match_id is None:
            match_id = journal.last_match_id()
        run = run_from_journal(journal, match_id)
        status = journal.load(match_id).status
    state = run.match.state
    if resumed:
        won = f"player {state.winner} won" if state.winner else status
        done = ("was refereed to its end (no winner)" if status == ENDED and not state.winner
                else "is finished")
        print(f"kaisa: match {match_id} of this input {done} ({won}, "
              f"{state.score[0]}:{state.score[1]}); nothing to judge"
              + ("; its reports are written again from the journal" if output or html else ""),
              file=sys.stderr)
    report = match_report(run, {"total_s": clock()}, status)
    if is_video(Path(run.game.path)):
        report["video"] = str(run.game.path)
    return tuple(write_reports(report, output, html))


def _links_from(report: dict[str, Any], page: Path) -> dict[str, Any]:
    """The report with the annotated video's path relative to the HTML page (a link that
    still works when the two are moved together)."""
    if not report.get("annotated_video"):
        return report
    target = Path(report["annotated_video"]).resolve()
    rel = os.path.relpath(target, page.resolve().parent)
    return {**report, "annotated_video": Path(rel).as_posix()}


# --- several inputs, each in its own process ---------------------------------------------------
class PrefixedLines(io.TextIOBase):
    """A text stream that writes whole lines, each prefixed (``[name] ``), to a file descriptor
    with one write call: the lines of processes sharing a terminal do not cut into each other.
    A carriage return (a progress line rewritten in place) ends a line too."""

    def __init__(self, fd: int, prefix: str) -> None:
        super().__init__()
        self._fd = fd
        self._prefix = prefix
        self._pending = ""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self._pending += text
        *lines, self._pending = self._pending.replace("\r", "\n").split("\n")
        for line in lines:
            if line.strip():
                os.write(self._fd, f"{self._prefix}{line}\n".encode())
        return len(text)

    def flush(self) -> None:
        if self._pending.strip():
            os.write(self._fd, f"{self._prefix}{self._pending}\n".encode())
        self._pending = ""


def run_job_safely(job: RefereeJob) -> JobOutcome:
    """:func:`run_job` with every failure turned into one line (several inputs: one failure
    does not stop the others)."""
    try:
        return JobOutcome(job.source, written=run_job(job))
    except KaisaError as err:
        return JobOutcome(job.source, error=str(err))
    except Exception as err:
        return JobOutcome(job.source, error=f"internal error ({type(err).__name__}: {err})",
                          internal=True)


def job_in_worker(job: RefereeJob) -> JobOutcome:
    """A worker process's whole task: one job, its output lines prefixed with the input's name
    (exceptions are not sent between processes: failures come back as one line)."""
    prefix = f"[{job.source.name}] "
    sys.stdout = PrefixedLines(1, prefix)
    sys.stderr = PrefixedLines(2, prefix)
    try:
        return run_job_safely(job)
    finally:
        sys.stdout.flush()
        sys.stderr.flush()


# TEST HOOK (for tests only; nothing else sets it): "NAME" or "NAME:K". The worker of the input
# named NAME (its file name) kills itself with SIGKILL at once (K = 0, the default) or just after
# journalling its K-th verdict: a worker that dies as an out-of-memory kill or a crash in a
# native library would, to test that it fails only its own input.
TEST_DIE_ON = "KAISA_TEST_DIE_ON"


def _test_hook_die(job: RefereeJob) -> None:
    name, _, after = os.environ.get(TEST_DIE_ON, "").partition(":")
    if not name or name != job.source.name:
        return
    if not after or int(after) <= 0:
        os.kill(os.getpid(), signal.SIGKILL)
    real = Journal.record_verdict
    recorded = 0

    def record_then_die(self: Journal, *args: Any, **kwargs: Any) -> None:
        nonlocal recorded
        real(self, *args, **kwargs)
        recorded += 1
        if recorded >= int(after):
            os.kill(os.getpid(), signal.SIGKILL)

    Journal.record_verdict = record_then_die  # type: ignore[method-assign]  # (this process)


def _worker_main(job: RefereeJob, results: Connection) -> None:
    """A worker process: one job; its outcome sent back on ``results`` (a process that dies
    sends nothing: the parent sees the pipe closed)."""
    try:
        _test_hook_die(job)
        outcome = job_in_worker(job)
    except KeyboardInterrupt:  # (Ctrl-C reaches every process of the terminal's group)
        outcome = JobOutcome(job.source, error="interrupted; every verdict so far is in the "
                             "journal (--resume continues)")
    with contextlib.suppress(OSError):  # (the parent is gone: nobody to tell)
        results.send(outcome)
        results.close()


def describe_death(exitcode: int | None) -> str:
    """A worker's end as people say it: ``signal 9, SIGKILL`` or ``exit code 3``."""
    if exitcode is None:
        return "no exit code"
    if exitcode < 0:
        try:
            return f"signal {-exitcode}, {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"signal {-exitcode}"
    return f"exit code {exitcode}"


def died_outcome(job: RefereeJob, pid: int, exitcode: int | None) -> JobOutcome:
    """A worker that died without a word (killed, out of memory, a crash in a native library):
    the matches it held are released (its lease names a process that is gone) and kept as they
    are, to be continued with --resume."""
    held: list[int] = []
    with contextlib.suppress(KaisaError):
        if job.journal.is_file():
            with Journal(job.journal) as journal:
                held = journal.release_process(pid)
    what = (f"its match {', '.join(map(str, held))} is kept as journalled" if held else
            "nothing of it was journalled")
    return JobOutcome(job.source, internal=True, died=True, error=(
        f"the worker process died ({describe_death(exitcode)}); {what}: resume with --resume "
        "(the same command will do: the inputs that finished are not judged again)"))


WORKER_EXIT_S = 30.0  # how long a worker that sent its outcome may take to exit


def run_jobs(jobs: Sequence[RefereeJob], workers: int) -> list[JobOutcome]:
    """Every job in a process of its own, ``workers`` at a time, in input order; a failing job,
    or a worker process that dies, fails its own input only: the others go on, nothing is
    judged twice (a dead worker's input is not run again: its match waits for --resume)."""
    context = multiprocessing.get_context("spawn")  # no fork of a threaded process
    outcomes: dict[int, JobOutcome] = {}
    waiting = list(range(len(jobs)))
    running: dict[Connection, tuple[int, BaseProcess]] = {}
    limit = max(1, min(workers, len(jobs)))
    try:
        while waiting or running:
            while waiting and len(running) < limit:
                i = waiting.pop(0)
                receive, send = context.Pipe(duplex=False)
                worker = context.Process(target=_worker_main, args=(jobs[i], send),
                                         name=f"kaisa {jobs[i].source.name}")
                worker.start()
                send.close()  # (the worker holds the only writing end: closed when it ends)
                running[receive] = (i, worker)
            for ready in wait(list(running)):
                assert isinstance(ready, Connection)
                i, process = running.pop(ready)
                try:
                    outcomes[i] = ready.recv()
                except (EOFError, OSError):
                    process.join(10)
                    assert process.pid is not None
                    outcomes[i] = died_outcome(jobs[i], process.pid, process.exitcode)
                    print(f"[{jobs[i].source.name}] kaisa: {outcomes[i].error}",
                          file=sys.stderr, flush=True)
                finally:
                    ready.close()
                process.join(WORKER_EXIT_S)  # its work is done (its outcome is in)
                if process.is_alive():  # (a thread that does not end keeps it alive)
                    process.terminate()
                    process.join()
    except KeyboardInterrupt:  # the workers have it too: let them say so, then stop them
        for _, process in running.values():
            process.join(5)
            if process.is_alive():
                process.terminate()
        raise
    return [outcomes[i] for i in range(len(jobs))]
