"""The lag for the first shot (RULES.md §2)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from rules.events import EventType, ShotFacts
from rules.table import TableSpec


class LagSide(StrEnum):
    """The lengthwise half a player lags in: right (y < W/2) or left (y > W/2)."""

    RIGHT = "right"
    LEFT = "left"


class LagFault(StrEnum):
    TOUCHED_BALL = "touched_ball"
    LONG_CUSHION = "long_cushion"
    NO_FOOT_CUSHION = "no_foot_cushion"  # it must reach the foot cushion and come back
    POCKETED = "pocketed"
    OFF_TABLE = "off_table"
    OPPONENTS_HALF = "opponents_half"
    NOT_AT_REST = "not_at_rest"  # no final position given


@dataclass(frozen=True)
class Lag:
    side: LagSide
    facts: ShotFacts  # the lagging ball's strike and events, and its final position


def lag_faults(lag: Lag, table: TableSpec) -> list[LagFault]:
    """Why a lag is lost (empty: a valid lag)."""
    ball = lag.facts.strike.ball
    events = [e for e in lag.facts.events if e.involves(ball)]
    faults: list[LagFault] = []
    if any(e.type is EventType.CONTACT for e in events):
        faults.append(LagFault.TOUCHED_BALL)
    cushions = [e.cushion for e in events if e.type is EventType.CUSHION]
    if any(c is not None and c.is_long for c in cushions):
        faults.append(LagFault.LONG_CUSHION)
    if not any(c is not None and c.value == "foot" for c in cushions):
        faults.append(LagFault.NO_FOOT_CUSHION)
    for e in events:
        if e.type is EventType.POCKET:
            faults.append(LagFault.POCKETED)
        elif e.type is EventType.OFF_TABLE:
            faults.append(LagFault.OFF_TABLE)
    xy = (lag.facts.final_positions or {}).get(ball)
    if xy is None:
        if not {LagFault.POCKETED, LagFault.OFF_TABLE} & set(faults):
            faults.append(LagFault.NOT_AT_REST)
    else:
        half = table.width_mm / 2
        if (lag.side is LagSide.RIGHT and xy[1] > half) or (
            lag.side is LagSide.LEFT and xy[1] < half
        ):
            faults.append(LagFault.OPPONENTS_HALF)
    return faults


def lag_winner(first: Lag, second: Lag, table: TableSpec) -> int | None:
    """1 or 2: the player whose valid lag stopped nearer the head cushion; None: lag again
    (both lost, or a tie)."""
    valid = [not lag_faults(lag, table) for lag in (first, second)]
    if valid == [True, False]:
        return 1
    if valid == [False, True]:
        return 2
    if not any(valid):
        return None
    x1 = (first.facts.final_positions or {})[first.facts.strike.ball][0]
    x2 = (second.facts.final_positions or {})[second.facts.strike.ball][0]
    return None if x1 == x2 else (1 if x1 < x2 else 2)
