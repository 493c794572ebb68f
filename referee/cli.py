"""The `kaisa` command. Exit codes: 0 done, 2 bad input (one line on stderr), 1 internal error."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from referee.app import (
    match_report,
    referee_game,
    shot_line,
    timed,
    write_report,
    write_text_atomically,
)
from referee.errors import InputError
from referee.gamefile import Game, load_game, read_json, read_rules_file
from referee.html_report import render_html
from referee.journal import Journal, default_journal_path
from rules import GameState, KaisaError, RuleOptions, ShotEntry

# Decoder chatter ("moov atom not found") would break the one-line error promise; errors are
# reported by us instead.
os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")
os.environ.setdefault("OPENCV_LOG_LEVEL", "ERROR")

VIDEO_SUFFIXES = {".mp4", ".avi", ".mov", ".mkv", ".webm", ".m4v"}


def demo_game_path() -> Path:
    return Path(str(resources.files("referee") / "data" / "demo_match.game.json"))


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


def _report_path(base: Path | None, source: Path, many: bool) -> Path | None:
    if base is None or not many:
        return base
    return base.with_name(f"{source.stem}.{base.name}")


def _load_source(source: Path, args: argparse.Namespace, options: RuleOptions | None
                 ) -> tuple[Game, dict[str, Any]]:
    """A GAME record, or a video turned into one (calibration, tracks, shot facts)."""
    if source.suffix.lower() not in VIDEO_SUFFIXES:
        return load_game(source, options), {}
    from referee.pipeline import game_from_video, load_calibration, load_calls

    opts = options or RuleOptions()
    start = GameState(options=opts)
    if args.start:
        try:
            start = GameState.from_dict(read_json(args.start, "a start state"), opts)
        except KaisaError as err:
            raise InputError(str(err), str(args.start)) from None
    calibration = load_calibration(args.calibration) if args.calibration else None
    calls = load_calls(args.calls) if args.calls else []
    game, calibration, timings = game_from_video(source, opts, start, calibration, calls)
    return game, {"calibration": calibration.to_dict(), "timings": timings,
                  "detector": {"tracker": "vision.track", "shot_facts": "vision.shotfacts"}}


def _cmd_referee(args: argparse.Namespace) -> int:
    options = read_rules_file(args.rules) if args.rules else None
    sources = args.inputs or [demo_game_path()]
    with Journal(args.journal or default_journal_path()) as journal:
        for source in sources:
            clock = timed()
            game, extra = _load_source(source, args, options)
            run = referee_game(game, journal, resume=args.resume, pace_s=args.pace)
            report = match_report(run, {**extra.pop("timings", {}), "total_s": clock()})
            report.update(extra)
            if source.suffix.lower() in VIDEO_SUFFIXES:
                report["video"] = str(source)
            out = _report_path(args.output, source, len(sources) > 1)
            if out is not None:
                write_report(out, report)
                print(f"report: {out}", file=sys.stderr)
            page = _report_path(args.html, source, len(sources) > 1)
            if page is not None:
                write_text_atomically(page, render_html(report))
                print(f"html report: {page}", file=sys.stderr)
    return 0


def _cmd_journal(args: argparse.Namespace) -> int:
    with Journal(args.journal or default_journal_path()) as journal:
        if args.action == "list":
            for match_id, source, status, created in journal.matches():
                state = journal.load(match_id).match.state
                print(f"{match_id:4d}  {created}  {status:8s}  {state.score[0]:3d}:"
                      f"{state.score[1]:<3d}  {source}")
            return 0
        match_id = args.match if args.match is not None else journal.last_match_id()
        if args.action == "undo":
            journal.record_undo(match_id, args.reason or "")
        elif args.action == "correct":
            if args.score is None:
                raise InputError("--score A:B is needed to correct a score", "journal correct")
            journal.record_correction(match_id, args.score, args.reason or "")
        record = journal.load(match_id)
        print(f"match {match_id}: {record.source} ({record.status}, started {record.created_at})")
        shot_no = 0
        for entry in record.match.entries:
            if isinstance(entry, ShotEntry):
                print(shot_line(shot_no, entry.facts, entry.verdict))
                shot_no += 1
            else:
                print(f"           correction  score set to {entry.score[0]}:{entry.score[1]}"
                      f"  ({entry.reason or 'no reason given'})")
        state = record.match.state
        tail = f"player {state.winner} won" if state.winner else f"player {state.shooter} to play"
        print(f"score {state.score[0]}:{state.score[1]}, {tail}")
    return 0


def _cmd_calibrate(args: argparse.Namespace) -> int:
    import cv2

    from calibration import (
        Calibration,
        CalibrationError,
        detect_table_in_video,
        median_frame,
        sample_frames,
        save_preview,
    )
    from rules import TableSpec

    video: Path = args.video
    table = TableSpec.from_value(args.table)
    out = args.output or Path(f"{video.stem}.calib.json")
    preview = args.preview or Path(f"{video.stem}.calib.png")
    frames = sample_frames(video, 9)
    detection = None
    try:
        if args.corners:
            calibration = Calibration.from_corners(args.corners, table,
                                                   (frames[0][1].shape[1], frames[0][1].shape[0]),
                                                   frame=frames[0][0])
        else:
            detection = detect_table_in_video(video, table, head=args.head)
            calibration = detection.calibration
    except CalibrationError as err:
        # Refused: still show what the camera saw, so the operator can see why.
        still = median_frame([f for _, f in frames])
        cv2.putText(still, "no table found: " + err.detail[:80], (20, 40),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.8, (0, 0, 255), 2, cv2.LINE_AA)
        cv2.imwrite(str(preview), still)
        raise CalibrationError(f"{err.detail} (what the camera saw: {preview})",
                               str(video)) from None
    write_text_atomically(out, json.dumps(calibration.to_dict(), indent=1) + "\n")
    save_preview(preview, median_frame([f for _, f in frames]), calibration, detection)
    k1 = float(calibration.distortion[0]) if calibration.distortion is not None else 0.0
    print(f"{video}: table found ({calibration.source}), RMS residual "
          f"{calibration.rms_residual_mm:.2f} mm, k1 {k1:+.4f}")
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
            random_set,
            read_manifest,
            write_manifest,
            write_readme,
        )
        from synth.scenarios import SCENARIO_BUILDERS, scenario
    except ImportError as err:
        print(f"kaisa: making clips needs the synth extra ({err.name} is missing): "
              "pip install -e '.[synth]'", file=sys.stderr)
        return 1
    if args.list:
        for name in SCENARIO_BUILDERS:
            print(f"{name:22s} {scenario(name).shows}")
        return 0
    out: Path = args.output
    if args.committed:
        try:
            clips = read_manifest(out)
        except (OSError, ValueError, KeyError) as err:
            raise InputError(f"cannot read {out}/manifest.json ({err})", str(out)) from None
    elif args.scenario:
        if args.scenario not in SCENARIO_BUILDERS:
            raise InputError(f"unknown scenario (expected one of {', '.join(SCENARIO_BUILDERS)})",
                             args.scenario)
        clips = [(args.scenario if args.seed is None else f"{args.scenario}_s{args.seed}",
                  args.scenario, args.seed or 0)]
    else:
        clips = random_set(args.seed or 0)
    for k, (name, scenario_name, seed) in enumerate(clips, 1):
        def progress(done: int, total: int, name: str = name, k: int = k) -> None:
            if done == total or done % 30 == 0:
                print(f"\r[{k}/{len(clips)}] {name}: frame {done}/{total}", end="",
                      file=sys.stderr, flush=True)
        try:
            paths = make_clip(name, scenario_name, seed, out, progress)
        except ScenarioError as err:
            print(f"\nkaisa: {err}", file=sys.stderr)
            return 1
        print(f"\r[{k}/{len(clips)}] {paths['video']}", file=sys.stderr)
    if not args.committed and args.manifest:
        write_manifest(out, clips)
    if args.committed or args.manifest:
        write_readme(out)
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
        print_evaluation,
        read_tracks,
        score_tracks,
        tracker_rows,
        true_track_rows,
    )
    from referee.labels import load_labels

    cases = []
    tracking = []
    for path in _labels_paths(args.clips):
        labels = load_labels(path)
        name = path.name.removesuffix(".labels.json")
        if args.source == "tracks":
            rows = true_track_rows(labels)
        else:
            calibration = None
            if args.calibrate:
                from calibration import detect_table_in_video

                calibration = detect_table_in_video(labels.video_path, labels.table).calibration
            rows = tracker_rows(labels, calibration)
            found = {(f, b): (x, y, v) for f, b, x, y, v in rows}
            tracking.append(score_tracks(read_tracks(labels.tracks_path), found,
                                         labels.table.ball_diameter_mm))
        cases.append((name, labels, rows))
    total = print_evaluation(cases)
    if tracking:
        visible = sum(t.visible for t in tracking)
        found_n = sum(t.found for t in tracking)
        rest = [e for t in tracking for e in t.rest_errors_mm]
        motion = [e for t in tracking for e in t.motion_errors_mm]
        print(f"tracking: found {found_n}/{visible} visible ball-frames "
              f"({found_n / max(visible, 1):.2%}), mean error at rest "
              f"{sum(rest) / max(len(rest), 1):.2f} mm, in motion "
              f"{sum(motion) / max(len(motion), 1):.2f} mm, white swap frames "
              f"{sum(t.white_swaps for t in tracking)}")
    if args.json:
        write_text_atomically(args.json, json.dumps(total.to_dict(), indent=1) + "\n")
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

    ref = sub.add_parser("referee", help="referee a match (with no input: the bundled demo)")
    ref.add_argument("inputs", nargs="*", type=Path, metavar="GAME_OR_VIDEO")
    ref.add_argument("--rules", type=Path, help="rules options file (TOML or JSON)")
    ref.add_argument("--calibration", type=Path, help="calibration file (default: find the table)")
    ref.add_argument("--calls", type=Path, help="calls file (default: calls assumed, flagged)")
    ref.add_argument("--start", type=Path, help="start state JSON (default: the opening)")
    ref.add_argument("-o", "--output", type=Path, help="write the match report JSON here")
    ref.add_argument("--html", type=Path, help="write the HTML report here")
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

    sy = sub.add_parser("synth", help="make labelled synthetic clips (needs the synth extra)")
    sy.add_argument("-o", "--output", type=Path, default=Path("sample_videos"))
    sy.add_argument("--seed", type=int, help="seed of the clip, or of the random set")
    sy.add_argument("--scenario", help="one scenario (see --list); default: every scenario")
    sy.add_argument("--committed", action="store_true",
                    help="remake the clips listed in OUTPUT/manifest.json")
    sy.add_argument("--manifest", action="store_true", help="write OUTPUT/manifest.json")
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

    from vision.commands import add_vision_commands

    add_vision_commands(sub)

    jr = sub.add_parser("journal", help="show matches; undo the last verdict; correct a score")
    jr.add_argument("action", choices=["list", "show", "undo", "correct"])
    jr.add_argument("match", nargs="?", type=int, help="match id (default: the latest)")
    jr.add_argument("--score", type=_score_arg, help="with correct: the score to set, A:B")
    jr.add_argument("--reason", help="why (kept in the journal)")
    jr.add_argument("--journal", type=Path, help=journal_help)
    jr.set_defaults(run=_cmd_journal)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:  # `kaisa` alone: the main job on the demo
        args = parser.parse_args(["referee"])
    try:
        code: int = args.run(args)
        return code
    except KaisaError as err:
        print(f"kaisa: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        print("kaisa: interrupted; every verdict so far is in the journal (--resume continues)",
              file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
