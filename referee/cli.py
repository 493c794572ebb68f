"""The `kaisa` command. Exit codes: 0 done, 2 bad input (one line on stderr), 1 internal error."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import textwrap
from collections.abc import Iterator, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from referee.app import (
    RefereeJob,
    is_video,
    plural,
    rewrite_reports,
    run_job,
    run_job_safely,
    run_jobs,
    shot_line,
)
from referee.batch import dask_executor, run_batch, summary_line
from referee.conflicts import conflicts_of
from referee.errors import InputError
from referee.gamefile import load_game, read_json, read_rules_file
from referee.journal import (
    Journal,
    JournalError,
    default_journal_path,
    shot_index,
    shot_number,
)
from referee.outpaths import (
    check_output_file,
    check_output_folder,
    check_outputs,
    write_text_atomically,
)
from referee.overrides import EventSpec, Override, parse_call, parse_final
from rules import KaisaError, ShotFacts

# Decoder chatter ("moov atom not found") would break the one-line error promise; errors are
# reported by us instead.
os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")
os.environ.setdefault("OPENCV_LOG_LEVEL", "ERROR")


def demo_game_path() -> Path:
    return Path(str(resources.files("referee") / "data" / "demo_match.game.json"))


DEMO_VIDEO = Path(__file__).resolve().parents[1] / "sample_videos" / "demo_match.mp4"
DEMO_OUTPUT = Path("kaisa-demo")


def _demo(args: argparse.Namespace) -> None:
    """`kaisa referee` with no input: the demo match's video (from its known start, with its
    calls), reports and the annotated video in ./kaisa-demo/; the demo's recorded shot facts
    when the video is not there (an install without the sample videos)."""
    if not DEMO_VIDEO.is_file():
        print(f"kaisa: the demo video is not installed ({DEMO_VIDEO}); refereeing its recorded "
              "shot facts instead", file=sys.stderr)
        args.inputs = [demo_game_path()]
        return
    data = Path(str(resources.files("referee") / "data"))
    args.inputs = [DEMO_VIDEO]
    args.start = args.start or data / "demo_match.start.json"
    args.calls = args.calls or data / "demo_match.calls.json"
    args.output = args.output or DEMO_OUTPUT / "demo_match.report.json"
    args.html = args.html or DEMO_OUTPUT / "demo_match.html"
    args.annotated = args.annotated or DEMO_OUTPUT / "demo_match.annotated.mp4"
    check_output_folder(DEMO_OUTPUT, "the demo's reports (run it where you may write, or give "
                        "-o, --html and --annotated)")
    print(f"kaisa referee: no input given, refereeing the demo match video ({DEMO_VIDEO.name}, "
          f"78 s); the reports and the annotated video go to {DEMO_OUTPUT}/", file=sys.stderr)


def _cmd_score(args: argparse.Namespace) -> int:
    options = read_rules_file(args.rules) if args.rules else None
    game = load_game(args.game, options)
    verdicts: list[dict[str, object]] = []
    try:
        for _, _, verdict in game.judged():
            verdicts.append(verdict.to_dict())
    finally:
        # What was decided before a bad shot is still printed (nothing recorded is lost).
        json.dump({"format": "kaisa-verdicts/1", "rules": game.options.to_dict(),
                   "verdicts": verdicts}, sys.stdout, indent=1)
        sys.stdout.write("\n")
    return 0


# Where each input's outputs go. One input: the paths as given. Several inputs: each gets its
# own file, named after the input (its name without the suffix, and without ".game" for GAME
# files): in PATH when PATH is a directory (an existing one, one ending in "/", or a name with no
# suffix: created), else beside PATH as NAME.<PATH's file name> (the rule before there were
# directories). With several inputs and no -o, each JSON report goes beside its input.
OUTPUT_KINDS = {"output": "report.json", "html": "html", "annotated": "annotated.mp4"}


def _input_name(source: Path) -> str:
    return source.stem.removesuffix(".game")


def _is_dir_arg(path: Path) -> bool:
    return path.is_dir() or str(path).endswith(("/", os.sep)) or not path.suffix


def _output_path(base: Path | None, source: Path, kind: str, many: bool) -> Path | None:
    name = _input_name(source)
    if base is None:
        return source.with_name(f"{name}.report.json") if many and kind == "output" else None
    if _is_dir_arg(base) and (many or base.is_dir()):
        return base / f"{name}.{OUTPUT_KINDS[kind]}"
    return base.with_name(f"{name}.{base.name}") if many else base


def _per_input(given: Path | None, source: Path, kind: str) -> Path | None:
    """An input file option (--start, --calls, --calibration): a file serves every input; a
    directory holds one per input, DIR/NAME.<kind> (when it is missing, the default)."""
    if given is None or not given.is_dir():
        return given
    path = given / f"{_input_name(source)}.{kind}"
    if not path.is_file():
        print(f"kaisa: {source.name}: no {path}; the default is used", file=sys.stderr)
        return None
    return path


def _referee_jobs(args: argparse.Namespace) -> list[RefereeJob]:
    options = read_rules_file(args.rules) if args.rules else None
    if not args.inputs:
        _demo(args)
    sources: list[Path] = args.inputs
    many = len(sources) > 1
    if args.annotated is not None and not any(is_video(s) for s in sources):
        raise InputError("--annotated needs a video input (a GAME record has no frames)",
                         " ".join(map(str, sources)))
    for kind in OUTPUT_KINDS:
        base = getattr(args, kind)
        if many and base is not None and _is_dir_arg(base):
            check_output_folder(base, f"the {OUTPUT_KINDS[kind]} files")
    jobs: list[RefereeJob] = []
    taken: dict[Path, Path] = {}
    for source in sources:
        paths = {kind: _output_path(getattr(args, kind), source, kind, many)
                 for kind in OUTPUT_KINDS}
        if not is_video(source):
            paths["annotated"] = None
        for path in paths.values():
            if path is None:
                continue
            if path.resolve() in taken:
                raise InputError(f"{taken[path.resolve()]} and {source} would both write "
                                 f"{path}; give the inputs different names", str(path))
            taken[path.resolve()] = source
        jobs.append(RefereeJob(
            source, args.journal or default_journal_path(), options,
            calibration=_per_input(args.calibration, source, "calib.json"),
            calls=_per_input(args.calls, source, "calls.json"),
            start=_per_input(args.start, source, "start.json"), output=paths["output"],
            html=paths["html"],
            annotated=paths["annotated"], resume=args.resume, pace_s=args.pace))
    for job in jobs:  # every place written, checked before any work
        check_outputs([(job.output, "the JSON report"), (job.html, "the HTML report"),
                       (job.annotated, "the annotated video")])
    check_journal_place(args.journal)
    return jobs


def _expand_dirs(inputs: list[Path]) -> list[Path]:
    """A folder among the inputs stands for its GAME records and videos (not its subfolders),
    in name order."""
    expanded: list[Path] = []
    for given in inputs:
        if not given.is_dir():
            expanded.append(given)
            continue
        found = sorted(p for p in given.iterdir() if p.is_file() and (
            is_video(p) or p.name.endswith(".game.json")))
        if not found:
            raise InputError("a directory with no GAME record (NAME.game.json) or video in "
                             "it; expected a GAME file, a video, or a directory of them",
                             str(given))
        expanded += found
    return expanded


def check_journal_place(given: Path | None) -> None:
    """The journal's folder can be written in (SQLite writes its log beside the file): a
    folder given (--journal) must exist; the default one is made."""
    path = given or default_journal_path()
    if given is None and not path.parent.exists():
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise InputError(f"cannot make the journal's folder ({err.strerror}); give "
                             "--journal FILE or set KAISA_JOURNAL", str(path.parent)) from None
    try:
        check_output_file(path, "the journal")
    except InputError as err:
        raise InputError(f"{err.detail}; give --journal FILE in a folder you may write in",
                         err.where) from None


def _cmd_referee(args: argparse.Namespace) -> int:
    if args.cluster is not None and args.jobs > 1:
        raise InputError("--jobs runs processes here, --cluster on a Dask cluster: give one",
                         f"--jobs {args.jobs} --cluster {args.cluster}")
    args.inputs = _expand_dirs(args.inputs)
    jobs = _referee_jobs(args)
    if len(jobs) == 1 and args.cluster is None:
        run_job(jobs[0])
        return 0
    if args.cluster is not None:
        with dask_executor(args.cluster) as (executor, threads):
            outcomes = run_batch(jobs, executor, threads)
    else:
        outcomes = (run_jobs(jobs, args.jobs) if args.jobs > 1
                    else [run_job_safely(job) for job in jobs])
    for job, outcome in zip(jobs, outcomes, strict=True):  # one line per input, at the end
        print(summary_line(job, outcome), flush=True)
    for outcome in outcomes:
        if outcome.error is not None:
            named = str(outcome.source) in outcome.error
            print(f"kaisa: {'' if named else f'{outcome.source}: '}{outcome.error}",
                  file=sys.stderr)
    failed = [o for o in outcomes if o.error is not None]
    if failed:
        died = sum(o.died for o in failed)
        print(f"kaisa: {len(failed)} of {len(outcomes)} inputs failed" + (
            f" ({plural(died, 'worker process', 'worker processes')} died: --resume "
            "continues their matches)" if died else ""), file=sys.stderr)
    return 1 if any(o.internal for o in failed) else 2 if failed else 0


def _cmd_journal(args: argparse.Namespace) -> int:
    path = args.journal or default_journal_path()
    if args.action == "report":
        if args.output is None and args.html is None:
            raise InputError("journal report needs -o FILE and/or --html FILE (where to write "
                             "the reports)", "journal report")
        check_outputs([(args.output, "the JSON report"), (args.html, "the HTML report")])
        rewrite_reports(path, args.match, args.output, args.html, resumed=False)
        return 0
    if args.action == "list":
        if not path.exists():
            print(f"no match journalled yet ({path} does not exist)")
            return 0
        return _journal_list(path)
    override = _override_of(args)
    readonly = args.action == "show"
    with Journal(path, readonly=readonly) as journal:
        match_id = args.match if args.match is not None else journal.last_match_id()
        if override is not None:
            shot = None if args.shot is None else args.shot - 1
            key, _ = journal.record_override(match_id, override, args.reason or "", shot)
            _journal_show(journal, match_id)
            print(f"the next --resume of this match judges {shot_number(key)} again with the "
                  "override")
            return 0
        if args.action == "undo":
            journal.record_undo(match_id, args.reason or "")
        elif args.action == "correct":
            if args.score is None:
                raise InputError("--score A:B is needed to correct a score", "journal correct")
            journal.record_correction(match_id, args.score, args.reason or "")
        elif args.action == "release":
            holder = journal.holder(match_id)
            journal.release(match_id, anyone=True)
            print(f"match {match_id}: " + (f"released ({holder.describe()} held it)" if holder
                                           else "no run held it"))
            return 0
        _journal_show(journal, match_id)
    return 0


OVERRIDE_OPTIONS = ("call", "drop_event", "add_event", "final", "facts", "shot")


OVERRIDE_HELP = "\n".join([
    textwrap.fill(
        "override: after `journal undo`, the shot whose verdict was withdrawn is judged again "
        "by the next `kaisa referee INPUT --resume`, from the state before it. An override "
        "says what the referee got wrong in it; it is journalled (with --reason) and applied "
        "to the shot's facts, as read again from the GAME file or found again in the video, "
        "before it is judged:", 88),
    "  kaisa journal override 3 --drop-event pocket:R1 --reason 'R1 stayed on the lip'",
    "  kaisa journal override 3 --call R:FL --reason 'he called the foot-left pocket'",
    textwrap.fill(
        "Event specs are TYPE:BALL[:WHAT]: pocket:R1[:FL], off_table:Y, cushion:W1[:foot], "
        "contact:W1:R1; an added one names its pocket or cushion, and may give its time in "
        "seconds, @T (default: after the shot's last event). A ball whose pocket event is "
        "dropped stayed on the pocket's lip; one whose off_table event is dropped, where it "
        "was (or, both, where --final puts it). Several overrides of one shot add up; `journal "
        "undo` withdraws the last entry, an override too. An override that names no undone "
        "shot, an unknown ball or pocket, or facts the rules cannot judge is refused (exit 2), "
        "nothing written.", 88)])


def _override_of(args: argparse.Namespace) -> Override | None:
    """`journal override`'s options as an Override (None for the other actions, which take
    none of them)."""
    given = [f"--{name.replace('_', '-')}" for name in OVERRIDE_OPTIONS
             if getattr(args, name) not in (None, [])]
    if args.action != "override":
        if given:
            raise InputError(f"{given[0]} is for `kaisa journal override`", f"journal "
                             f"{args.action}")
        return None
    if not given or given == ["--shot"]:
        raise InputError("an override changes something: give --call, --drop-event, "
                         "--add-event, --final or --facts", "journal override")
    if args.shot is not None and args.shot < 1:
        raise InputError(f"--shot: expected a shot number >= 1, got {args.shot}",
                         "journal override")
    facts = None
    if args.facts is not None:
        data = read_json(args.facts, "a shot's facts {\"call\": ..., \"events\": [...], "
                         "\"final_positions\": {...}}")
        try:
            facts = ShotFacts.from_dict(data, "facts")
        except KaisaError as err:
            raise InputError(str(err), str(args.facts)) from None
    final = dict(parse_final(f) for f in args.final)
    return Override(
        facts=facts, set_call=args.call is not None,
        call=parse_call(args.call) if args.call is not None else None,
        drop=tuple(EventSpec.parse(d, "--drop-event") for d in args.drop_event),
        add=tuple(EventSpec.parse(a, "--add-event", timed=True) for a in args.add_event),
        final=final)


def _journal_list(path: Path) -> int:
    """Every match, one line each; a damaged match is listed as such (the others are not
    hidden) and named on stderr, exit code 2."""
    damaged: list[str] = []
    with Journal(path, readonly=True) as journal:
        matches = journal.matches()
        if not matches:
            print(f"no match journalled yet ({path})")
            return 0
        width = max(len(created) for _, _, _, created in matches)
        print(f"{'id':>4s}  {'started':{width}s}  {'status':8s}  {'score':7s}  source")
        for match_id, source, status, created in matches:
            holder = journal.holder(match_id)
            held = f"  [being refereed: {holder.describe()}]" if holder and holder.alive() else ""
            try:
                state = journal.load(match_id).match.state
            except JournalError as err:
                damaged.append(err.detail)
                print(f"{match_id:4d}  {created:{width}s}  {'DAMAGED':8s}  {'?':>3s}:{'?':<3s}  "
                      f"{source}")
                continue
            print(f"{match_id:4d}  {created:{width}s}  {status:8s}  {state.score[0]:3d}:"
                  f"{state.score[1]:<3d}  {source}{held}")
    if damaged:
        more = (f" (and {plural(len(damaged) - 1, 'more damaged match', 'more damaged matches')})"
                if len(damaged) > 1 else "")
        print(f"kaisa: {path}: {damaged[0]}{more}", file=sys.stderr)
        return 2
    return 0


def _journal_show(journal: Journal, match_id: int) -> None:
    """The match's entries in order: verdicts under their own shot numbers, undone ones
    marked, undos and corrections in place with their reasons."""
    record = journal.load(match_id)
    print(f"match {match_id}: {record.source} ({record.status}, started {record.created_at})")
    timeline = journal.timeline(match_id)
    withdrawn = {e.undone_by: e for e in timeline if e.undone_by is not None}
    undone = "  [undone]"
    for entry in timeline:
        if entry.void is not None:
            print(f"           (entry {entry.seq} not counted: {entry.void})")
        elif entry.kind == "verdict" and entry.facts and entry.verdict and entry.shot_key:
            index = shot_index(entry.shot_key)
            line = shot_line(index if index is not None else 0, entry.facts, entry.verdict)
            applied = entry.facts.extra.get("overrides")
            if isinstance(applied, list) and applied:
                line += "  [with the override of entry " + ", ".join(
                    str(o.get("entry")) for o in applied if isinstance(o, dict)) + "]"
            print(line + (undone if entry.undone_by is not None else ""))
            for note in conflicts_of(entry.facts):  # (what the camera's facts were changed in)
                print(f"           camera conflict: {note}")
        elif entry.kind == "undo":
            gone = withdrawn.get(entry.seq)
            what = ("nothing (there was nothing to undo)" if gone is None else
                    shot_number(gone.shot_key) if gone.kind == "verdict" else
                    f"the override of {shot_number(gone.shot_key)} (entry {gone.seq})"
                    if gone.kind == "override" else f"the correction of entry {gone.seq}")
            print(f"           undo        {what} withdrawn  ({entry.note or 'no reason given'})")
        elif entry.kind == "override" and entry.override is not None:
            print(f"           override    {shot_number(entry.shot_key)}: "
                  f"{entry.override.describe()}  ({entry.note or 'no reason given'})"
                  + (undone if entry.undone_by is not None else ""))
        elif entry.score is not None:
            print(f"           correction  score set to {entry.score[0]}:{entry.score[1]}"
                  f"  ({entry.note or 'no reason given'})"
                  + (undone if entry.undone_by is not None else ""))
    state = record.match.state
    tail = f"player {state.winner} won" if state.winner else f"player {state.shooter} to play"
    print(f"score {state.score[0]}:{state.score[1]}, {tail}")


def _cmd_calibrate(args: argparse.Namespace) -> int:
    import cv2

    from calibration import (
        Calibration,
        CalibrationError,
        detect_table_in_video,
        median_frame,
        save_preview,
    )
    from referee.pipeline import sample_frames_shown
    from rules import TableSpec
    from vision.detection import with_ball_check

    video: Path = args.video
    table = TableSpec.from_value(args.table)
    out = args.output or Path(f"{video.stem}.calib.json")
    preview = args.preview or Path(f"{video.stem}.calib.png")
    check_outputs([(out, "the calibration"), (preview, "the preview picture")])
    frames = sample_frames_shown(video, 9)
    print(f"{video.name}: finding the table in the sample frames", file=sys.stderr, flush=True)
    detection = None
    try:
        if args.corners:
            calibration = Calibration.from_corners(args.corners, table,
                                                   (frames[0][1].shape[1], frames[0][1].shape[0]),
                                                   frame=frames[0][0])
        else:
            detection = detect_table_in_video(video, table, head=args.head, sample=frames)
            calibration = detection.calibration
        calibration = with_ball_check(calibration, [f for _, f in frames])
    except CalibrationError as err:
        # Refused: still show what the camera saw, so the operator can see why.
        still = median_frame([f for _, f in frames])
        # (the refusal says itself whether a table was found; the whole of it, in lines)
        for k, line in enumerate(textwrap.wrap(err.detail, 80)[:4]):
            cv2.putText(still, line, (20, 40 + 32 * k),
                        cv2.FONT_HERSHEY_SIMPLEX, 0.8, (0, 0, 255), 2, cv2.LINE_AA)
        cv2.imwrite(str(preview), still)
        raise CalibrationError(f"{err.detail} (what the camera saw: {preview})",
                               str(video)) from None
    write_text_atomically(out, json.dumps(calibration.to_dict(), indent=1) + "\n")
    save_preview(preview, median_frame([f for _, f in frames]), calibration, detection)
    k1 = float(calibration.distortion[0]) if calibration.distortion is not None else 0.0
    head = {"house_line": "from the house line drawn on the cloth", "user": "as given",
            "default": "by the default rule (--head to say it)"}[calibration.head_from]
    sights = (calibration.checks or {}).get("sights")
    print(f"{video}: table found ({calibration.source}"
          f"{f', from {sights} sights on the rails' if sights else ''}), RMS residual "
          f"{calibration.rms_residual_mm:.2f} mm, k1 {k1:+.4f}; head end {head}")
    for warning in calibration.warnings:
        print(f"kaisa calibrate: warning: {warning}", file=sys.stderr)
    print(f"calibration: {out}\npreview: {preview}")
    return 0


def _corners_arg(text: str) -> list[tuple[float, float]]:
    try:
        values = [float(v) for v in text.split(",")]
    except ValueError:
        values = []
    if len(values) != 8:
        raise argparse.ArgumentTypeError(
            f"expected 8 numbers x1,y1,...,x4,y4 (corners HR, HL, FR, FL in pixels), got {text!r}")
    return [(values[i], values[i + 1]) for i in range(0, 8, 2)]


def _cmd_synth(args: argparse.Namespace) -> int:
    try:
        from synth.make import (
            ScenarioError,
            make_clip,
            manifest_is_hard,
            random_set,
            read_manifest,
            write_manifest,
            write_readme,
        )
        from synth.scenarios import SCENARIO_BUILDERS, scenario
    except ImportError as err:
        print(f"kaisa: making clips needs {err.name}, which is missing: reinstall with "
              "pip install -e .", file=sys.stderr)
        return 1
    if args.list:
        for name in SCENARIO_BUILDERS:
            print(f"{name:22s} {scenario(name).shows}")
        return 0
    if args.output is None and not args.committed:
        raise InputError("expected -o DIR, the folder to write the clips in (only --committed "
                         "has a default: sample_videos/, the committed clips remade)", "synth")
    out: Path = args.output or Path("sample_videos")
    check_output_folder(out, "the clips", create=not args.committed)
    hard = bool(args.hard)
    if args.committed:
        try:
            clips = read_manifest(out)
            listed_hard = manifest_is_hard(out)
        except (OSError, ValueError, KeyError) as err:
            raise InputError(f"cannot read {out}/manifest.json ({err})", str(out)) from None
        if hard and not listed_hard:
            raise InputError("--hard with --committed remakes a hard set, and this manifest "
                             "lists clips made without --hard", str(out / "manifest.json"))
        hard = listed_hard  # a hard set is remade hard
    elif args.scenario:
        if args.scenario not in SCENARIO_BUILDERS:
            raise InputError(f"unknown scenario (expected one of {', '.join(SCENARIO_BUILDERS)})",
                             args.scenario)
        tag = "h" if hard else "s"
        clips = [(args.scenario if args.seed is None else f"{args.scenario}_{tag}{args.seed}",
                  args.scenario, args.seed or 0)]
    else:
        clips = random_set(args.seed or 0, hard=True) if hard else random_set(args.seed or 0)
    # A random set goes on past a scenario its seed cannot play (the others are still worth
    # having); a clip asked for by name, or listed in a manifest, must be made.
    go_on = not args.committed and not args.scenario
    made: list[tuple[str, str, int]] = []
    skipped: list[str] = []
    from referee.progress import Progress

    for k, (name, scenario_name, seed) in enumerate(clips, 1):
        bars: list[Progress] = []

        def progress(done: int, total: int, name: str = name, k: int = k,
                     bars: list[Progress] = bars) -> None:
            if not bars:
                bars.append(Progress(f"[{k}/{len(clips)}] {name}: rendering", total))
            bars[0].to(done)

        try:
            paths = (make_clip(name, scenario_name, seed, out, progress, hard=True) if hard
                     else make_clip(name, scenario_name, seed, out, progress))
        except ScenarioError as err:
            for bar in bars:
                bar.close()
            print(f"kaisa: {err}", file=sys.stderr)
            if not go_on:
                return 1
            skipped.append(name)
            continue
        except OSError as err:
            raise InputError(f"cannot write the clip ({err.strerror})", str(out)) from None
        for bar in bars:
            bar.close()
        made.append((name, scenario_name, seed))
        print(f"[{k}/{len(clips)}] {paths['video']}", file=sys.stderr)
    if not args.committed and args.manifest:
        if hard:
            write_manifest(out, made, hard=True)
        else:
            write_manifest(out, made)
    if args.committed or args.manifest:
        if hard:
            write_readme(out, hard=True)
        else:
            write_readme(out)
    if skipped:
        print(f"kaisa: made {len(made)} of {len(clips)} clips; not playable with this seed: "
              f"{', '.join(skipped)}", file=sys.stderr)
        return 1
    return 0


def _cmd_detect(args: argparse.Namespace) -> int:
    from vision.commands import run_detect

    code = run_detect(args)
    print("kaisa detect: score (0 to 1) is how ball-like each blob is; low ones are often "
          "pieces of the cue, an arm or a shadow (see kaisa detect --help)", file=sys.stderr)
    return code


def _cmd_track(args: argparse.Namespace) -> int:
    """``kaisa track``: the output place checked first; the balls named from a start state;
    progress shown; a video that ends early said."""
    check_output_file(args.output, "the tracks CSV")
    from referee.app import is_labels_doc, labels_beside
    from referee.gamefile import read_json
    from referee.pipeline import early_end, tracking_progress
    from rules import GameState, RuleOptions, cue_ball_of
    from vision.commands import VIDEO_SUFFIXES, calibration_for, check_size, read_frame
    from vision.detection import VisionError
    from vision.tracking import track_video, write_tracks_csv

    video: Path = args.input
    if video.suffix.lower() not in VIDEO_SUFFIXES:
        raise VisionError(f"expected a video ({', '.join(sorted(VIDEO_SUFFIXES))}), got "
                          f"{str(video)!r}")
    if not video.is_file():
        raise VisionError(f"expected a video file, found nothing at {str(video)!r}")
    start_path = args.start or labels_beside(video)
    positions = None
    cue_ball = args.cue_ball
    if start_path is not None:
        data = read_json(start_path, "a start state, or a clip's labels")
        if is_labels_doc(data):
            data = data.get("start")
        try:
            state = GameState.from_dict(data, RuleOptions())
        except KaisaError as err:
            raise InputError(str(err), str(start_path)) from None
        positions = {b.value: xy for b, xy in state.on_table.items()}
        cue_ball = cue_ball or cue_ball_of(state.shooter).value
        if args.start is None:
            print(f"kaisa track: the balls named from the start of {start_path.name} (the "
                  "labels beside the video; --start to give another)", file=sys.stderr)
    cal = calibration_for(args)
    check_size(cal, read_frame(video, 0))
    bar = tracking_progress(video)
    read = 0

    def shown() -> Iterator[Any]:
        nonlocal read
        for result in track_video(video, cal, cal.table, cue_ball=cue_ball,
                                  start_positions=positions):
            read = result.frame + 1
            bar.to(read)
            yield result

    part = args.output.with_name(args.output.name + ".part")  # (write_tracks_csv's own)
    try:
        n = write_tracks_csv(args.output, shown())
    except OSError as err:
        raise InputError(f"cannot write here ({err.strerror})", str(args.output)) from None
    finally:
        bar.close()
        part.unlink(missing_ok=True)  # (a failure: no half file left behind)
    early_end(video, read)
    print(f"tracks: {args.output} ({plural(n, 'frame')})", file=sys.stderr)
    return 0


def _labels_paths(inputs: list[Path]) -> list[Path]:
    paths: list[Path] = []
    for item in inputs or [Path("sample_videos")]:
        if item.is_dir():
            paths += sorted(item.glob("*.labels.json"))
        elif item.name.endswith(".labels.json"):
            paths.append(item)
        else:
            paths.append(item.with_name(item.stem + ".labels.json"))
    if not paths:
        raise InputError("no labelled clips (*.labels.json) found", " ".join(map(str, inputs)))
    return paths


def _cmd_eval(args: argparse.Namespace) -> int:
    from referee.evaluate import (
        TrackScores,
        print_evaluation,
        read_tracks,
        score_tracks,
        tracker_rows,
        true_track_rows,
    )
    from referee.labels import load_labels

    check_output_file(args.json, "the metrics")
    from referee.progress import Progress

    cases = []
    tracking = []
    refused: list[str] = []  # clips whose table --calibrate refused
    paths = _labels_paths(args.clips)
    bar = Progress("kaisa eval", len(paths), unit="clip", shown=args.source == "video")
    for k, path in enumerate(paths):
        labels = load_labels(path)
        name = path.name.removesuffix(".labels.json")
        if args.source == "tracks":
            rows = true_track_rows(labels)
        else:
            calibration = None
            if args.calibrate:
                from calibration import CalibrationError, detect_table_in_video

                try:
                    calibration = detect_table_in_video(labels.video_path,
                                                        labels.table).calibration
                except CalibrationError as err:
                    # (the referee stops on such a video: here the clip counts as nothing
                    # seen, and the others are judged)
                    refused.append(name)
                    print(f"kaisa eval: {name}: the table was refused ({err.detail}); nothing "
                          "of this clip is counted as found", file=sys.stderr)
            rows = ([] if args.calibrate and calibration is None
                    else tracker_rows(labels, calibration))
            found = {(f, b): (x, y, v) for f, b, x, y, v in rows}
            tracking.append(score_tracks(read_tracks(labels.tracks_path), found,
                                         labels.table.ball_diameter_mm))
        cases.append((name, labels, rows))
        bar.to(k + 1)
    bar.close()
    total = print_evaluation(cases)
    metrics = total.to_dict()
    if tracking:
        overall = TrackScores()
        for t in tracking:
            overall.add(t)
        print(f"tracking: {overall.summary()}")
        metrics["tracking"] = overall.to_dict()
    if args.calibrate:
        print(f"calibration: {len(paths) - len(refused)} of {len(paths)} tables found"
              + (f"; refused: {', '.join(refused)}" if refused else ""))
        metrics["tables_refused"] = refused
    if args.json:
        write_text_atomically(args.json, json.dumps(metrics, indent=1) + "\n")
    failed = []
    checks = [("verdicts", total.verdict_share, args.min_verdicts)]
    for kind in ("contact", "pocket"):
        counts = next(c for t, c in total.events.items() if t.value == kind)
        checks += [(f"{kind} precision", counts.precision, args.min_event_precision),
                   (f"{kind} recall", counts.recall, args.min_event_recall)]
    for what, value, floor in checks:
        if floor is not None and value < floor:
            failed.append(f"{what} {value:.3f} < {floor}")
    if failed:
        print("kaisa eval: below the thresholds: " + "; ".join(failed), file=sys.stderr)
        return 1
    return 0


def _cmd_season(args: argparse.Namespace) -> int:
    """``kaisa season``: the season page and CSV files from a journal or a folder of reports.
    Every input is read and every output place checked before anything is written."""
    from referee.season import (
        name_matches,
        parse_players,
        refereed_again,
        season_statistics,
    )
    from referee.season_io import (
        match_from_report,
        matches_from_journal,
        matches_from_reports,
        output_paths,
        read_matches_file,
        write_season,
    )

    if args.source is not None and args.journal is not None:
        raise InputError("give the journal or the reports once: a JOURNAL_OR_REPORTS argument, "
                         "or --journal FILE", "season")
    if args.players is not None and args.matches is not None:
        raise InputError("give the players once: --players \"A,B\" (every match) or "
                         "--matches FILE (each match its own)", "season")
    players = None
    if args.players is not None:
        try:
            players = parse_players(args.players)
        except ValueError as err:
            raise InputError(str(err), "--players") from None
    paths = output_paths(args.output)
    if paths["html"].parent == args.output:
        check_output_folder(args.output, "the season's page and CSV files")
    check_outputs([(paths["html"], "the season page"),
                   (paths["players"], "the players' CSV"), (paths["matches"], "the matches' CSV")])
    info = read_matches_file(args.matches) if args.matches is not None else None
    source: Path = args.source or args.journal or default_journal_path()
    if source.is_dir():
        matches = matches_from_reports(source)
    elif source.name.endswith(".json"):
        matches = [match_from_report(source)]
    else:
        matches = matches_from_journal(source)
    matches, missing = name_matches(matches, info, players)
    if missing:
        print(f"kaisa season: {plural(len(missing), 'match', 'matches')} not in "
              f"{args.matches} ({', '.join(missing[:5])}{', ...' if len(missing) > 5 else ''}): "
              "their players are Player 1 and Player 2", file=sys.stderr)
    for again, ids in refereed_again(matches).items():
        print(f"kaisa season: {again} is in {len(ids)} matches"
              + (f" ({', '.join(str(i) for i in ids if i is not None)})" if any(ids) else "")
              + ": each is counted (a match refereed again is a match of its own in the "
              "journal)", file=sys.stderr)
    season = season_statistics(matches)
    for path in write_season(season, paths, str(source)):
        print(f"season: {path}", file=sys.stderr)
    counts = season.counts()
    print(f"kaisa season: {plural(len(season.matches), 'match', 'matches')} "
          f"({counts['finished']} finished, {counts['ended']} with no result, "
          f"{counts['running']} running), {plural(len(season.players), 'player')}")
    return 0


def _jobs_arg(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of processes >= 1, got "
                                         f"{text!r}")
    return value


def _score_arg(text: str) -> tuple[int, int]:
    try:
        a, b = text.split(":")
        return int(a), int(b)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected A:B (e.g. 12:30), got {text!r}") from None


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kaisa", description="Automatic referee for Kaisa.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    journal_help = "match journal (SQLite); default $KAISA_JOURNAL or ~/.local/share/kaisa/"

    ref = sub.add_parser(
        "referee", help="referee a match (with no input: the bundled demo)",
        description="Referee matches: GAME records or videos (the bundled demo with no input).",
        epilog="Several inputs: each is its own match in the journal and gets its own files, "
               "named after the input (NAME.report.json, NAME.html, NAME.annotated.mp4): in "
               "DIR when the option names a directory (an existing one, one ending in '/', or "
               "a name without a suffix: created), else beside the path given as "
               "NAME.<its file name>. Without -o each JSON report is written beside its input. "
               "An input that fails does not stop the others: one line each on stderr, exit "
               "code 2 (1 if the failure was an internal error). With --jobs each input has "
               "a process of its own: one that dies (killed, out of memory) fails its input "
               "alone, said as such (exit code 1); its match is kept, and the same command "
               "with --resume continues it without judging the finished inputs again. With "
               "--cluster each input is a task on a Dask cluster (workers started with "
               "--nthreads 1, seeing the inputs and outputs at the same paths); the journal "
               "and the reports are written here alone; a task whose worker dies is run again "
               "as the scheduler allows (its allowed-failures), then fails its input alone. "
               "At the end, one line per input says its match's result.")
    ref.add_argument("inputs", nargs="*", type=Path, metavar="GAME_OR_VIDEO",
                     help="GAME records or videos; a folder: its GAME records and videos")
    ref.add_argument("--rules", type=Path, help="rules options file (TOML or JSON)")
    ref.add_argument("--calibration", type=Path,
                     help="calibration file (default: find the table); a directory: "
                          "DIR/NAME.calib.json for each input NAME")
    ref.add_argument("--calls", type=Path,
                     help="calls file (default: calls assumed, flagged); a directory: "
                          "DIR/NAME.calls.json for each input")
    ref.add_argument("--start", type=Path,
                     help="start state JSON (default: the opening); a directory: "
                          "DIR/NAME.start.json for each input")
    ref.add_argument("-o", "--output", type=Path, metavar="PATH",
                     help="write the match report JSON here (several inputs: a directory, see "
                          "below)")
    ref.add_argument("--html", type=Path, metavar="PATH",
                     help="write the HTML report here (several inputs: as -o)")
    ref.add_argument("--annotated", type=Path, metavar="PATH",
                     help="video input: write the video with the balls' ids and trails, the "
                          "events, the scoreboard and the respots drawn on it (mp4: H.264, or "
                          "MPEG-4 for an odd frame size; several inputs: as -o)")
    ref.add_argument("-j", "--jobs", type=_jobs_arg, default=1, metavar="N",
                     help="referee up to N inputs at once, each in its own process (default 1); "
                          "their lines are prefixed with the input's name")
    ref.add_argument("--cluster", metavar="tcp://HOST:PORT",
                     help="referee the inputs on a Dask cluster, one task per input (with "
                          "Dask installed: pip install -e '.[cluster]'); the journal and the "
                          "reports are written here alone")
    ref.add_argument("--journal", type=Path, help=journal_help)
    ref.add_argument("--resume", action="store_true",
                     help="continue the unfinished match of this input from the journal")
    ref.add_argument("--pace", type=float, default=0.0, metavar="SECONDS",
                     help="wait this long after each shot (replay at a watchable pace)")
    ref.set_defaults(run=_cmd_referee)

    score = sub.add_parser("score", help="judge a GAME.json of shot facts; verdicts as JSON")
    score.add_argument("game", type=Path, metavar="GAME.json")
    score.add_argument("--rules", type=Path, help="rules options file; replaces the game's own")
    score.set_defaults(run=_cmd_score)

    cal = sub.add_parser("calibrate", help="find the table; write the calibration and a preview")
    cal.add_argument("video", type=Path, metavar="VIDEO")
    cal.add_argument("--table", default="russian-12ft",
                     help="table preset (russian-12ft, kaisa-10ft)")
    cal.add_argument("-o", "--output", type=Path, help="calibration file (VIDEO.calib.json)")
    cal.add_argument("--preview", type=Path, help="preview picture (VIDEO.calib.png)")
    cal.add_argument("--head", choices=["left", "right", "top", "bottom"],
                     help="where the head (house) cushion is in the picture (default: left for "
                          "a table seen lengthwise across the image, top for one seen upright)")
    cal.add_argument("--corners", type=_corners_arg, metavar="x1,y1,...,x4,y4",
                     help="manual: the cushion-nose corners HR, HL, FR, FL in pixels")
    cal.set_defaults(run=_cmd_calibrate)

    sy = sub.add_parser("synth", help="make labelled synthetic clips")
    sy.add_argument("-o", "--output", type=Path, metavar="DIR",
                    help="the folder to write the clips in (required, except with --committed: "
                         "sample_videos)")
    sy.add_argument("--seed", type=int, help="seed of the clip, or of the random set")
    sy.add_argument("--scenario", help="one scenario (see --list); default: every scenario")
    sy.add_argument("--committed", action="store_true",
                    help="remake the clips listed in OUTPUT/manifest.json")
    sy.add_argument("--manifest", action="store_true", help="write OUTPUT/manifest.json")
    sy.add_argument("--hard", action="store_true",
                    help="a club room's conditions, drawn per clip from its seed and written "
                         "into its labels as \"conditions\": drifting and flickering light, hot "
                         "spots, hard shadows, defocus, noise, white balance, 960x540, low-quality "
                         "H.264, other cloths, a camera bump")
    sy.add_argument("--list", action="store_true", help="list the scenarios")
    sy.set_defaults(run=_cmd_synth)

    ev = sub.add_parser("eval", help="accuracy on labelled clips (events, pockets, verdicts)")
    ev.add_argument("clips", nargs="*", type=Path, metavar="CLIP_OR_DIR",
                    help="labelled clips or folders (default: sample_videos)")
    ev.add_argument("--source", choices=["tracks", "video"], default="video",
                    help="facts from the video through the tracker (default), or from the "
                         "clips' true tracks (the event inference alone)")
    ev.add_argument("--calibrate", action="store_true",
                    help="with --source video: find the table instead of the true calibration")
    ev.add_argument("--min-verdicts", type=float, help="least share of verdicts equal to labels")
    ev.add_argument("--min-event-precision", type=float, help="for contacts and pockets")
    ev.add_argument("--min-event-recall", type=float, help="for contacts and pockets")
    ev.add_argument("--json", type=Path, help="write the metrics as JSON")
    ev.set_defaults(run=_cmd_eval)

    det = sub.add_parser(
        "detect", help="every ball seen in one frame, as JSON lines",
        description="Every ball candidate seen in one frame, one JSON object a line.",
        epilog="Fields: x_px, y_px (image pixels); x_mm, y_mm (table frame, mm from the head-"
               "right corner); radius_px; colour; score, 0 to 1: how ball-like the blob is (a "
               "filled disc with cloth all round it): balls at rest score high, while the low "
               "ones are often pieces of the cue, an arm or a shadow, which the tracker "
               "weighs accordingly; dots (W1 shows one, W2 two); streak_mm and streak_dir, a "
               "motion-blur streak (0 when sharp).")
    det.add_argument("input", type=Path, metavar="IMAGE_OR_VIDEO")
    det.add_argument("--frame", type=int, default=0, help="frame index in a video (default 0)")
    det.add_argument("--calibration", type=Path, default=None,
                     help="a *.calib.json (default: find the table in the input)")
    det.set_defaults(run=_cmd_detect)
    trk = sub.add_parser("track", help="ball positions for every frame (tracks CSV)")
    trk.add_argument("input", type=Path, metavar="VIDEO")
    trk.add_argument("--calibration", type=Path, default=None,
                     help="a *.calib.json (default: find the table in the video)")
    trk.add_argument("-o", "--output", type=Path, required=True,
                     help="the tracks CSV to write (required: a labelled clip's own "
                          "VIDEO.tracks.csv must never be overwritten by default)")
    trk.add_argument("--start", type=Path,
                     help="start state JSON, or a clip's .labels.json: the balls are named "
                          "from where it has them, and the shooter's white is the cue ball "
                          "(default: the labels beside the video, else none)")
    trk.add_argument("--cue-ball", choices=["W1", "W2"], default=None,
                     help="the white struck first (the shooter's), to name the whites when "
                          "their dots are not seen (default: from --start)")
    trk.set_defaults(run=_cmd_track)

    jr = sub.add_parser(
        "journal", help="show matches; undo the last verdict; override; correct a score; "
                        "reports",
        description=textwrap.fill(
            "The match journal. list, show and report only read it (a read-only file will "
            "do); undo withdraws the last entry (a verdict's shot is judged again on "
            "--resume); override changes an undone shot's call or facts before it is judged "
            "again; correct sets the score; report writes a match's reports from the journal, "
            "judging nothing; release frees a match from a run that cannot be asked (on "
            "another host) and is known to be gone.", 88),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=OVERRIDE_HELP)
    jr.add_argument("action", choices=["list", "show", "undo", "override", "correct", "report",
                                       "release"])
    jr.add_argument("match", nargs="?", type=int, help="match id (default: the latest)")
    jr.add_argument("--shot", type=int, metavar="N",
                    help="with override: the undone shot, by its number as `journal show` has "
                         "it (default: the next one to be judged again)")
    jr.add_argument("--call", metavar="BALL:POCKET",
                    help="with override: the shot's call (R:FL, Y:ML, W:HR), or none")
    jr.add_argument("--drop-event", action="append", default=[], metavar="TYPE:BALL[:WHAT]",
                    help="with override: take out the shot's events of this kind (repeatable)")
    jr.add_argument("--add-event", action="append", default=[],
                    metavar="TYPE:BALL[:WHAT][@T]",
                    help="with override: put an event in the shot (repeatable)")
    jr.add_argument("--final", action="append", default=[], metavar="BALL:X,Y",
                    help="with override: where a ball came to rest, mm (repeatable)")
    jr.add_argument("--facts", type=Path, metavar="FILE.json",
                    help="with override: the shot's facts replaced as a whole (shot facts "
                         "JSON: call, events, final_positions)")
    jr.add_argument("--score", type=_score_arg, help="with correct: the score to set, A:B")
    jr.add_argument("--reason", help="why (kept in the journal)")
    jr.add_argument("-o", "--output", type=Path, metavar="PATH",
                    help="with report: the match report JSON")
    jr.add_argument("--html", type=Path, metavar="PATH", help="with report: the HTML report")
    jr.add_argument("--journal", type=Path, help=journal_help)
    jr.set_defaults(run=_cmd_journal)

    se = sub.add_parser(
        "season", help="season statistics per player and per match (HTML page and CSV files)",
        description="Season statistics from a journal or a folder of JSON reports: per player "
                    "matches, results, innings, points, average per inning, best inning, "
                    "caroms, pots by ball, fouls by kind; per match date, players and result.",
        epilog="Players are named by --players (every match) or --matches FILE: CSV with the "
               "columns input,player1,player2[,date], or JSON {\"NAME\": {\"players\": [\"A\", "
               "\"B\"], \"date\": \"YYYY-MM-DD\"}}, NAME being the input's file name without "
               "its suffix (as NAME.report.json), its file name or its path. Unnamed matches "
               "have Player 1 and Player 2, totalled per seat. Running matches are listed, "
               "not counted in wins.")
    se.add_argument("source", nargs="?", type=Path, metavar="JOURNAL_OR_REPORTS",
                    help="a journal, a folder of NAME.report.json files or one report (default: "
                         "the journal, as --journal)")
    se.add_argument("--journal", type=Path, help=journal_help)
    se.add_argument("-o", "--output", type=Path, required=True, metavar="DIR_OR_HTML",
                    help="a folder: season.html, season.players.csv and season.matches.csv in "
                         "it (made if missing); or a page's name (X.html): the CSV files beside "
                         "it (X.players.csv, X.matches.csv)")
    se.add_argument("--players", metavar="A,B", help="the two players of every match (A plays W1)")
    se.add_argument("--matches", type=Path, metavar="FILE",
                    help="each match's players and date (CSV or JSON, see below)")
    se.set_defaults(run=_cmd_season)

    lv = sub.add_parser(
        "live", help="referee a camera while the match is played (table display, operator page)",
        description="Referee a camera, a stream or a file played at its pace while the match is "
                    "played: each verdict journalled at once, a table display and an operator "
                    "page in the browser (the [live] extra; without it the verdicts are "
                    "printed). See docs/live.md.")
    lv.add_argument("source", metavar="SOURCE",
                    help="a camera index (0), a stream URL (rtsp://, http://...) or a video file")
    lv.add_argument("--realtime", action="store_true",
                    help="a file played at its own pace (the live mode tried without a camera)")
    lv.add_argument("--pace", type=float, default=1.0, help=argparse.SUPPRESS)  # (tests)
    lv.add_argument("--calibration", type=Path, metavar="F",
                    help="the table's calibration (default: found at the start)")
    lv.add_argument("--start", type=Path, metavar="F",
                    help="the start state, or a clip's labels (default: the opening)")
    lv.add_argument("--resume", action="store_true",
                    help="continue this source's unfinished match from the journal")
    lv.add_argument("--folder", type=Path, default=Path("kaisa-live"), metavar="DIR",
                    help="the session's files: status, picture, commands, journal (default "
                         "./kaisa-live)")
    lv.add_argument("--journal", type=Path, metavar="F",
                    help="the match journal (default DIR/journal.sqlite)")
    lv.add_argument("--host", default="127.0.0.1",
                    help="where the pages are served (default 127.0.0.1, this machine only; "
                         "another address needs a token, made up when not given)")
    lv.add_argument("--port", type=_port_arg, default=8765, help="the pages' port (8765)")
    lv.add_argument("--token", help="the pages' access token")
    lv.add_argument("--no-pages", action="store_true",
                    help="no pages: the verdicts printed, one line a shot")
    lv.set_defaults(run=_cmd_live)
    return parser


def _port_arg(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        port = 0
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"expected a port from 1 to 65535, got {text!r}")
    return port


def _cmd_live(args: argparse.Namespace) -> int:
    """`kaisa live`: the live mode sits on top of the referee (live/cli.py), found by name."""
    import importlib

    code: int = importlib.import_module("live.cli").run_live(args)
    return code


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:  # `kaisa` alone: what it can do (`kaisa referee`: the demo)
        parser.print_help()
        return 0
    try:
        code: int = args.run(args)
        return code
    except KaisaError as err:
        print(f"kaisa: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # stdout closed (`kaisa referee ... | head -1`): stop here. Every verdict printed was
        # journalled first; the match is left running, to be continued with --resume.
        with contextlib.suppress(OSError, ValueError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())  # (no second error as Python exits)
        if args.command == "referee":
            print("kaisa: the output was closed; stopped. Every verdict so far is in the "
                  "journal: the same command with --resume continues the match",
                  file=sys.stderr)
        return 141  # (128 + SIGPIPE, as a process the pipe stopped)
    except KeyboardInterrupt:
        print("kaisa: interrupted; every verdict so far is in the journal (--resume continues)",
              file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
