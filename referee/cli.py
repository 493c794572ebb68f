"""The `kaisa` command. Exit codes: 0 done, 2 bad input (one line on stderr), 1 internal error."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from importlib import resources
from pathlib import Path

from referee.app import (
    match_report,
    referee_game,
    shot_line,
    timed,
    write_report,
    write_text_atomically,
)
from referee.errors import InputError
from referee.gamefile import load_game, read_rules_file
from referee.html_report import render_html
from referee.journal import Journal, default_journal_path
from rules import KaisaError, ShotEntry

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


def _cmd_referee(args: argparse.Namespace) -> int:
    options = read_rules_file(args.rules) if args.rules else None
    sources = args.inputs or [demo_game_path()]
    for source in sources:
        if source.suffix.lower() in VIDEO_SUFFIXES:
            print(f"kaisa: {source}: refereeing video is not built yet (it needs calibration, "
                  "tracking and shot facts); give a GAME.json of shot facts instead",
                  file=sys.stderr)
            return 1
    with Journal(args.journal or default_journal_path()) as journal:
        for source in sources:
            clock = timed()
            game = load_game(source, options)
            run = referee_game(game, journal, resume=args.resume, pace_s=args.pace)
            report = match_report(run, {"total_s": clock()})
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
