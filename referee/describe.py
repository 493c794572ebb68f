"""Verdicts in words, for the operator's screen and the reports (prose lives at the edge)."""

from __future__ import annotations

from rules import Ball, Flag, Foul, Verdict
from rules.table import Spot

_BALL_WORDS = {Ball.W1: "white W1", Ball.W2: "white W2", Ball.R1: "red", Ball.R2: "red",
               Ball.Y: "yellow"}
_FOUL_WORDS = {
    Foul.SCRATCH: "scratch",
    Foul.WRONG_CUE_BALL: "wrong cue ball",
    Foul.OPENING_SHOT: "forbidden on the opening shot",
    Foul.YELLOW_MIDDLE_TWICE: "yellow in a middle pocket twice",
    Foul.BUST: "would pass 60: does not count",
    Foul.OBJECT_OFF_TABLE: "object ball off the table",
    Foul.CHAIN_TOO_LONG: "chain of two or more balls",
    Foul.BANK_NOT_ALLOWED: "banked into a corner",
}
_SPOT_WORDS = {Spot.POINT1: "point 1", Spot.POINT2: "point 2", Spot.POINT3: "point 3",
               Spot.CUSHION_HEAD: "the head cushion", Spot.CUSHION_FOOT: "the foot cushion"}


def describe(verdict: Verdict) -> str:
    """One line: what happened, the points, the score and what to put where."""
    parts: list[str] = []
    if verdict.scored_ball is not None:
        how = " (combination)" if verdict.combination else ""
        how += " banked" if verdict.bank else ""
        caroms = ", caroms " + "+".join(b.value for b in verdict.caroms) if verdict.caroms else ""
        parts.append(f"{_BALL_WORDS[verdict.scored_ball]} in {verdict.pocket}{how}{caroms}"
                     f": +{verdict.points}")
    elif verdict.called is not None and not verdict.fouls:
        parts.append(f"called {verdict.called.target.value} in {verdict.called.pocket.value}: "
                     "missed")
    elif not verdict.fouls:
        parts.append("safety" if Flag.UNCALLED in verdict.flags else "no score")
    if verdict.fouls:
        parts.append("; ".join(_FOUL_WORDS[f] for f in verdict.fouls))
    if verdict.penalty:
        parts.append(f"penalty {verdict.penalty}")
    line = ", ".join(parts)
    line += f"  score {verdict.score[0]}:{verdict.score[1]}"
    if verdict.winner is not None:
        line += f"  player {verdict.winner} WINS"
    elif verdict.turn_passes:
        line += f"  -> player {verdict.next_shooter}"
    todo = [f"{r.ball.value} on {_SPOT_WORDS[r.spot]}" for r in verdict.respots]
    todo += [f"{b.value} in hand" for b in verdict.in_hand]
    if todo:
        line += "  [" + ", ".join(todo) + "]"
    if Flag.UNCALLED in verdict.flags and verdict.scored_ball is not None:
        line += "  (uncalled)"
    return line
