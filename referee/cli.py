"""The `kaisa` command. Exit codes: 0 done, 2 bad input (one line on stderr), 1 internal error."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from importlib import resources
from pathlib import Path

from referee.describe import describe
from referee.errors import InputError
from referee.gamefile import Game, load_game, read_rules_file
from rules import KaisaError

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


def _referee_game(game: Game) -> int:
    print(f"kaisa referee: {game.path.name}" + (f" - {game.description}" if game.description
                                                 else ""))
    start = game.start
    print(f"start {start.score[0]}:{start.score[1]}, player {start.shooter} to play, "
          f"target {game.options.target} ({game.options.finish.value} finish)")
    for i, facts, verdict in game.judged():
        t = facts.strike.t
        print(f"{int(t // 60):3d}:{t % 60:05.2f}  shot {i + 1:2d}  P{verdict.shooter} "
              f"({verdict.cue_ball.value})  {describe(verdict)}")
    return 0


def _cmd_referee(args: argparse.Namespace) -> int:
    options = read_rules_file(args.rules) if args.rules else None
    sources = args.inputs or [demo_game_path()]
    for source in sources:
        if source.suffix.lower() in VIDEO_SUFFIXES:
            print(f"kaisa: {source}: refereeing video is not built yet (it needs calibration, "
                  "tracking and shot facts); give a GAME.json of shot facts instead",
                  file=sys.stderr)
            return 1
        _referee_game(load_game(source, options))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kaisa", description="Automatic referee for Kaisa.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    ref = sub.add_parser("referee", help="referee a match (with no input: the bundled demo)")
    ref.add_argument("inputs", nargs="*", type=Path, metavar="GAME_OR_VIDEO")
    ref.add_argument("--rules", type=Path, help="rules options file (TOML or JSON)")
    ref.set_defaults(run=_cmd_referee)

    score = sub.add_parser("score", help="judge a GAME.json of shot facts; verdicts as JSON")
    score.add_argument("game", type=Path, metavar="GAME.json")
    score.add_argument("--rules", type=Path, help="rules options file; replaces the game's own")
    score.set_defaults(run=_cmd_score)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:  # `kaisa` alone: the main job on the demo
        args = parser.parse_args(["referee"])
    try:
        code: int = args.run(args)
        return code
    except (InputError, KaisaError) as err:
        print(f"kaisa: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        print("kaisa: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
