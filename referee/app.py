"""Refereeing a match from a record of shot facts: judge each shot, journal it at once, print a
line, write the report. (Video sources will feed the same loop with facts from the camera.)"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from referee.describe import describe
from referee.errors import InputError
from referee.gamefile import Game
from referee.journal import Journal, source_key
from rules import KaisaError, Match, ShotEntry, ShotFacts, Verdict


@dataclass
class RefereeRun:
    """What one run decided: the match (resumed entries included) and the shots judged now."""

    game: Game
    match_id: int
    match: Match
    resumed_shots: int = 0
    judged_now: list[tuple[int, ShotFacts, Verdict]] = field(default_factory=list)


def shot_line(index: int, facts: ShotFacts, verdict: Verdict) -> str:
    t = facts.strike.t
    return (f"{int(t // 60):3d}:{t % 60:05.2f}  shot {index + 1:2d}  P{verdict.shooter} "
            f"({verdict.cue_ball.value})  {describe(verdict)}")


def referee_game(game: Game, journal: Journal, *, resume: bool = False, pace_s: float = 0.0,
                 out: TextIO | None = None) -> RefereeRun:
    """Judge every shot of ``game`` not yet in the journal, recording each verdict as it is made.
    Shot lines and notices go to ``out`` (stdout); stderr is kept for the one-line errors."""
    out = out or sys.stdout

    def notice(message: str) -> None:
        print(message, file=out)

    key = source_key(game.path)
    previous = journal.latest_unfinished(key)
    if resume and previous is not None:
        record = journal.load(previous)
        run = RefereeRun(game, previous, record.match, resumed_shots=len(record.shot_keys))
        done = record.shot_keys
        notice(f"kaisa: resuming match {previous}: {len(done)} shot(s) already recorded, "
               f"score {record.match.state.score[0]}:{record.match.state.score[1]}")
    else:
        if resume:
            notice("kaisa: nothing to resume for this input; starting a new match")
        elif previous is not None:
            notice(f"kaisa: match {previous} of this input was not finished; "
                   "use --resume to continue it")
        match_id = journal.start_match(str(game.path), key, game.options, game.start)
        run = RefereeRun(game, match_id, Match(game.start))
        done = frozenset()

    start = run.match.state
    print(f"kaisa referee: {game.path.name}" + (f" - {game.description}" if game.description
                                                 else ""), file=out)
    print(f"match {run.match_id}: {start.score[0]}:{start.score[1]}, player {start.shooter} to "
          f"play, target {game.options.target} ({game.options.finish.value} finish)", file=out)
    for i, raw in enumerate(game.shots):
        shot_key = f"shot{i}"
        if shot_key in done:
            continue
        where = f"shots[{i}]"
        try:
            facts = ShotFacts.from_dict(raw, where)
            run.match, verdict = run.match.play(facts)
        except KaisaError as err:
            located = err if err.where.startswith(where) else err.at(where)
            raise InputError(str(located), str(game.path)) from None
        journal.record_verdict(run.match_id, shot_key, facts, verdict)
        run.judged_now.append((i, facts, verdict))
        print(shot_line(i, facts, verdict), file=out, flush=True)
        if pace_s:
            time.sleep(pace_s)
    return run


def match_report(run: RefereeRun, timings: dict[str, float]) -> dict[str, Any]:
    """DESIGN.md's match report: the labelled-clip structure with the facts and verdicts."""
    game = run.game
    shots = []
    for entry in run.match.entries:
        if isinstance(entry, ShotEntry):
            shots.append({**entry.facts.to_dict(), "verdict": entry.verdict.to_dict()})
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
    }


def write_text_atomically(path: Path, text: str) -> None:
    """A crash mid-write leaves the previous file, never half a file."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
    except OSError as err:
        raise InputError(f"cannot write here ({err.strerror})", str(path)) from None
    tmp.replace(path)


def write_report(path: Path, report: dict[str, Any]) -> None:
    write_text_atomically(path, json.dumps(report, indent=1) + "\n")


def timed() -> Callable[[], float]:
    start = time.perf_counter()
    return lambda: round(time.perf_counter() - start, 4)
