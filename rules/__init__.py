"""The Kaisa rules core: pure Python, no cv2, no I/O. Everything else depends on it.

Typical use::

    state = GameState(options=RuleOptions())
    verdict = judge(state, ShotFacts.from_dict(record))
    state = advance(state, verdict)
"""

from rules.balls import Ball, Colour, cue_ball_of, opponent
from rules.errors import FactsError, KaisaError, OptionsError, StateError
from rules.events import Call, Event, EventType, ShotFacts
from rules.history import Match, ScoreCorrection, ShotEntry
from rules.judge import advance, judge, overlaps_at_rest
from rules.lag import Lag, LagFault, LagSide, lag_faults, lag_winner
from rules.options import (
    Banks,
    Calls,
    Finish,
    Penalty,
    RuleOptions,
    YellowTwice,
    parse_rules_text,
)
from rules.points import POINTS_TABLE, PotClass, points_for
from rules.respot import (
    PLACEMENT_TOLERANCE_MM,
    PlacementProblem,
    PlacementWarning,
    Respot,
    check_placement,
    plan_respots,
)
from rules.state import Flag, Foul, GameState, Verdict
from rules.table import PRESETS, Cushion, Pocket, Spot, TableSpec

__all__ = [
    "PLACEMENT_TOLERANCE_MM",
    "POINTS_TABLE",
    "PRESETS",
    "Ball",
    "Banks",
    "Call",
    "Calls",
    "Colour",
    "Cushion",
    "Event",
    "EventType",
    "FactsError",
    "Finish",
    "Flag",
    "Foul",
    "GameState",
    "KaisaError",
    "Lag",
    "LagFault",
    "LagSide",
    "Match",
    "OptionsError",
    "Penalty",
    "PlacementProblem",
    "PlacementWarning",
    "Pocket",
    "PotClass",
    "Respot",
    "RuleOptions",
    "ScoreCorrection",
    "ShotEntry",
    "ShotFacts",
    "Spot",
    "StateError",
    "TableSpec",
    "Verdict",
    "YellowTwice",
    "advance",
    "check_placement",
    "cue_ball_of",
    "judge",
    "lag_faults",
    "lag_winner",
    "opponent",
    "overlaps_at_rest",
    "parse_rules_text",
    "plan_respots",
    "points_for",
]
