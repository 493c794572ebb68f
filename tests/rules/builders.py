"""Tiny builders for hand-written shots: events get increasing times in the order given."""

from __future__ import annotations

from typing import Any

from rules import Ball, GameState, RuleOptions, ShotFacts
from rules.table import Point


def strike(ball: str) -> dict[str, Any]:
    return {"type": "strike", "ball": ball}


def hit(a: str, b: str) -> dict[str, Any]:
    return {"type": "contact", "balls": [a, b]}


def cushion(ball: str, which: str) -> dict[str, Any]:
    return {"type": "cushion", "ball": ball, "cushion": which}


def pot(ball: str, pocket: str) -> dict[str, Any]:
    return {"type": "pocket", "ball": ball, "pocket": pocket}


def off(ball: str) -> dict[str, Any]:
    return {"type": "off_table", "ball": ball}


def shot(*events: dict[str, Any], call: str | None = None,
         finals: dict[str, list[float]] | None = None) -> ShotFacts:
    """A shot from events in time order; ``call`` is "R FL" style or None."""
    timed = [{**e, "t": round(0.25 * i, 2), "frame": 8 * i} for i, e in enumerate(events)]
    record: dict[str, Any] = {"events": timed, "call": None}
    if call:
        ball, pocket = call.split()
        record["call"] = {"ball": ball, "pocket": pocket}
    if finals is not None:
        record["final_positions"] = finals
    return ShotFacts.from_dict(record)


def midgame(shooter: int = 1, score: tuple[int, int] = (0, 0), options: RuleOptions | None = None,
            positions: dict[Ball, Point] | None = None, **kw: Any) -> GameState:
    """A state after the opening: both whites on the table, the object balls on their points."""
    opts = options or RuleOptions()
    L, W = opts.table.length_mm, opts.table.width_mm
    default = {Ball.W1: (300.0, 500.0), Ball.W2: (300.0, 1300.0), Ball.R1: (L / 4, W / 2),
               Ball.Y: (L / 2, W / 2), Ball.R2: (3 * L / 4, W / 2)}
    return GameState(options=opts, score=score, shooter=shooter, opening=False,
                     positions=positions or default, in_hand=frozenset(), **kw)
