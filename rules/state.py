"""Game state and verdicts as immutable values, with the DESIGN.md JSON forms."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from rules.balls import Ball, opponent
from rules.errors import StateError
from rules.events import Call
from rules.options import RuleOptions
from rules.respot import Respot
from rules.table import Pocket, Point, Spot, TableSpec


class Foul(StrEnum):
    """Why a shot scored nothing or ended the turn (the verdict's ``fouls``)."""

    SCRATCH = "scratch"
    WRONG_CUE_BALL = "wrong_cue_ball"
    OPENING_SHOT = "opening_shot"
    YELLOW_MIDDLE_TWICE = "yellow_middle_twice"
    BUST = "bust"
    OBJECT_OFF_TABLE = "object_off_table"
    CHAIN_TOO_LONG = "chain_too_long"
    BANK_NOT_ALLOWED = "bank_not_allowed"


class Flag(StrEnum):
    """Remarks on a verdict that are not fouls (the verdict's ``flags``)."""

    UNCALLED = "uncalled"  # no call was known; see the `calls` option
    EXTRA_POT = "extra_pot"  # an object ball dropped that is not the one that scored (respotted)
    WRONG_POCKET = "wrong_pocket"  # the called ball dropped, but into another pocket
    NOT_HIT = "not_hit"  # the called ball dropped with no ball contact recorded
    PENALTY_BUST = "penalty_bust"  # a penalty to the opponent would pass an exact finish
    POSITIONS_ESTIMATED = "positions_estimated"  # a ball's final position was not given
    # Set by the referee, never by judge(): a camera's facts contradicted the game state and were
    # repaired to be judged (the facts' ``conflicts`` say how); the operator confirms or corrects.
    CAMERA_CONFLICT = "camera_conflict"
    # ... and no repair made them judgeable: nothing scored, the turn passed; the operator judges.
    NOT_JUDGED = "not_judged"


def _score_dict(score: tuple[int, int]) -> dict[str, int]:
    return {"1": score[0], "2": score[1]}


def _score_tuple(data: object, where: str) -> tuple[int, int]:
    if not isinstance(data, Mapping) or not all(
        isinstance(data.get(k), int) and not isinstance(data.get(k), bool) for k in ("1", "2")
    ):
        raise StateError(f'expected {{"1": points, "2": points}}, got {data!r}', where)
    return (int(data["1"]), int(data["2"]))


def _flag(value: object, where: str) -> bool:
    if not isinstance(value, bool):
        raise StateError(f"expected true or false, got {value!r}", where)
    return value


def _player(value: object, where: str) -> int:
    if value not in (1, 2) or isinstance(value, bool):
        raise StateError(f"expected player 1 or 2, got {value!r}", where)
    return 1 if value == 1 else 2


def default_layout(table: TableSpec) -> dict[Ball, Point]:
    """§2: R1 on point 1, Y on point 2, R2 on point 3 (the whites start in hand)."""
    return {
        Ball.R1: table.spot_xy(Spot.POINT1),
        Ball.Y: table.spot_xy(Spot.POINT2),
        Ball.R2: table.spot_xy(Spot.POINT3),
    }


@dataclass(frozen=True)
class GameState:
    """Everything the next verdict depends on. Player 1 plays W1, player 2 plays W2."""

    options: RuleOptions = field(default_factory=RuleOptions)
    score: tuple[int, int] = (0, 0)
    shooter: int = 1
    opening: bool = True
    positions: Mapping[Ball, Point] | None = None  # None: the §2 layout
    in_hand: frozenset[Ball] = frozenset({Ball.W1, Ball.W2})
    # The shooter's previous shot in this inning put the yellow in a middle pocket and scored (§5).
    yellow_middle_last: bool = False
    winner: int | None = None
    shots_played: int = 0
    # What the last verdict told the operator to put where (checked before the next strike).
    respot_targets: tuple[Respot, ...] = ()

    def __post_init__(self) -> None:
        if self.positions is None:
            object.__setattr__(self, "positions", default_layout(self.options.table))
        _player(self.shooter, "start.shooter")
        self._check_balls_accounted_for()

    @property
    def table(self) -> TableSpec:
        return self.options.table

    @property
    def on_table(self) -> Mapping[Ball, Point]:
        assert self.positions is not None  # set in __post_init__
        return self.positions

    def score_of(self, player: int) -> int:
        return self.score[player - 1]

    def _check_balls_accounted_for(self) -> None:
        for ball in self.in_hand:
            if not ball.is_white:
                raise StateError(f"only whites can be in hand, got {ball.value}", "start.in_hand")
            if ball in self.on_table:
                raise StateError(f"{ball.value} is both in hand and on the table", "start.in_hand")
        if self.winner is not None:
            return  # after the winning shot nothing is respotted
        for ball in Ball:
            if ball not in self.on_table and ball not in self.in_hand:
                what = "on the table or in hand" if ball.is_white else "on the table"
                raise StateError(f"{ball.value} must be {what}", "start.positions")

    def check_positions(self) -> None:
        """Refuse positions off the field or overlapping (done where states come from input)."""
        table = self.table
        for ball, xy in self.on_table.items():
            if not table.can_rest_at(xy, tolerance_mm=10.0):
                raise StateError(
                    f"{ball.value} at ({xy[0]:g}, {xy[1]:g}) mm is off the "
                    f"{table.length_mm:g} x {table.width_mm:g} mm playing field",
                    f"start.positions.{ball.value}",
                )
        for ball, other, apart in table.overlapping(self.on_table):
            raise StateError(
                f"{ball.value} and {other.value} overlap ({apart:.0f} mm apart, a ball is "
                f"{table.ball_diameter_mm:g} mm)",
                f"start.positions.{other.value}",
            )

    def to_dict(self) -> dict[str, Any]:
        return {
            "score": _score_dict(self.score),
            "shooter": self.shooter,
            "opening": self.opening,
            "positions": {b.value: [xy[0], xy[1]] for b, xy in self.on_table.items()},
            "in_hand": sorted(b.value for b in self.in_hand),
            "yellow_middle_last": self.yellow_middle_last,
            "winner": self.winner,
            "shots_played": self.shots_played,
            "respot_targets": [r.to_dict() for r in self.respot_targets],
        }

    @classmethod
    def from_dict(
        cls, data: object, options: RuleOptions | None = None, where: str = "start"
    ) -> GameState:
        """A start state as GAME.json and the labels write it; missing fields take defaults."""
        options = options or RuleOptions()
        if data is None:
            return cls(options=options)
        if not isinstance(data, Mapping):
            raise StateError(f"expected a start object, got {type(data).__name__}", where)
        known = {
            "score",
            "shooter",
            "opening",
            "positions",
            "in_hand",
            "yellow_middle_last",
            "winner",
            "shots_played",
            "respot_targets",
        }
        unknown = sorted(set(data) - known)
        if unknown:
            raise StateError(
                f"unknown field {unknown[0]!r} (expected {', '.join(sorted(known))})",
                f"{where}.{unknown[0]}",
            )
        positions: dict[Ball, Point] | None = None
        if "positions" in data:
            raw = data["positions"]
            if not isinstance(raw, Mapping):
                raise StateError(
                    "expected an object of ball id -> [x_mm, y_mm]", f"{where}.positions"
                )
            positions = {}
            for key, xy in raw.items():
                try:
                    ball = Ball(key)
                    positions[ball] = (float(xy[0]), float(xy[1]))
                    if len(xy) != 2:
                        raise ValueError
                except (ValueError, TypeError, IndexError, KeyError):
                    raise StateError(
                        f"expected a ball id and [x_mm, y_mm], got {key!r}: {xy!r}",
                        f"{where}.positions.{key}",
                    ) from None
        in_hand_raw = data.get("in_hand", None)
        if in_hand_raw is None:
            on = positions if positions is not None else {}
            in_hand = frozenset(b for b in (Ball.W1, Ball.W2) if b not in on)
        else:
            try:
                in_hand = frozenset(Ball(b) for b in in_hand_raw)
            except (ValueError, TypeError):
                raise StateError(
                    f"expected a list of white ids, got {in_hand_raw!r}", f"{where}.in_hand"
                ) from None
        winner = data.get("winner")
        shots_played = data.get("shots_played", 0)
        if isinstance(shots_played, bool) or not isinstance(shots_played, int) or shots_played < 0:
            raise StateError(f"expected a whole number >= 0, got {shots_played!r}",
                             f"{where}.shots_played")
        # Without "opening", a count of the shots played says whether this is the first shot.
        opening = (
            _flag(data["opening"], f"{where}.opening")
            if "opening" in data
            else shots_played == 0
        )
        targets = data.get("respot_targets", [])
        if not isinstance(targets, list):
            raise StateError(f"expected a list of respots, got {targets!r}",
                             f"{where}.respot_targets")
        state = cls(
            options=options,
            score=_score_tuple(data.get("score", {"1": 0, "2": 0}), f"{where}.score"),
            shooter=_player(data.get("shooter", 1), f"{where}.shooter"),
            opening=opening,
            positions=positions,
            in_hand=in_hand,
            yellow_middle_last=_flag(data.get("yellow_middle_last", False),
                                     f"{where}.yellow_middle_last"),
            winner=None if winner is None else _player(winner, f"{where}.winner"),
            shots_played=shots_played,
            respot_targets=tuple(
                Respot.from_dict(r, f"{where}.respot_targets[{i}]") for i, r in enumerate(targets)
            ),
        )
        state.check_positions()
        _check_possible_start(state, data, where)
        return state


def _check_possible_start(state: GameState, data: Mapping[str, Any], where: str) -> None:
    """RULES.md §7.8: refuse a start that cannot be, or that leaves open which game it is."""
    options = state.options
    for player, points in enumerate(state.score, start=1):
        if state.winner is None and points >= options.target:
            raise StateError(
                f"player {player} has {points} points, at or above the target "
                f"{options.target}, but the start names no winner (expected a score below "
                f'{options.target}, or "winner": {player})',
                f"{where}.score",
            )
    if "opening" in data or "shots_played" in data:
        return
    given = []
    if "positions" in data:
        given.append("positions")
    if state.score != (0, 0):
        given.append(f"the score {state.score[0]}:{state.score[1]}")
    if given:
        raise StateError(
            f"the start gives {' and '.join(given)} but not whether the next shot is the "
            'opening: add "opening": true (the game\'s first shot, RULES.md §5) or '
            '"opening": false (a game under way)',
            f"{where}.opening",
        )


@dataclass(frozen=True)
class Verdict:
    """The referee's decision on one shot (DESIGN.md "Verdict"), plus the table after it."""

    shooter: int
    cue_ball: Ball
    called: Call | None
    scored_ball: Ball | None
    caroms: tuple[Ball, ...]
    combination: bool
    bank: bool
    points: int
    fouls: tuple[Foul, ...]
    penalty: int
    turn_passes: bool
    next_shooter: int | None
    in_hand: tuple[Ball, ...]
    respots: tuple[Respot, ...]
    score: tuple[int, int]
    winner: int | None
    flags: tuple[Flag, ...]
    # Balls on the table once the respots are made (whites in hand absent): the next start.
    positions_after: Mapping[Ball, Point]
    # Where the scored ball went (None when nothing scored).
    pocket: Pocket | None = None

    @property
    def yellow_middle(self) -> bool:
        """The yellow scored in a middle pocket on this shot and the inning goes on."""
        return (
            self.scored_ball is Ball.Y
            and not self.turn_passes
            and self.pocket is not None
            and self.pocket.is_middle
        )

    @property
    def opponent(self) -> int:
        return opponent(self.shooter)

    def to_dict(self) -> dict[str, Any]:
        return {
            "shooter": self.shooter,
            "cue_ball": self.cue_ball.value,
            "called": self.called.to_dict() if self.called else None,
            "scored_ball": self.scored_ball.value if self.scored_ball else None,
            "caroms": [b.value for b in self.caroms],
            "combination": self.combination,
            "bank": self.bank,
            "points": self.points,
            "fouls": [f.value for f in self.fouls],
            "penalty": self.penalty,
            "turn_passes": self.turn_passes,
            "next_shooter": self.next_shooter,
            "in_hand": [b.value for b in self.in_hand],
            "respots": [r.to_dict() for r in self.respots],
            "score": _score_dict(self.score),
            "winner": self.winner,
            "flags": [f.value for f in self.flags],
            "pocket": self.pocket.value if self.pocket else None,
            "positions_after": {b.value: [xy[0], xy[1]] for b, xy in self.positions_after.items()},
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], where: str = "verdict") -> Verdict:
        try:
            return cls(
                shooter=_player(data["shooter"], f"{where}.shooter"),
                cue_ball=Ball(data["cue_ball"]),
                called=Call.from_dict(data["called"], f"{where}.called")
                if data.get("called")
                else None,
                scored_ball=Ball(data["scored_ball"]) if data.get("scored_ball") else None,
                caroms=tuple(Ball(b) for b in data["caroms"]),
                combination=bool(data["combination"]),
                bank=bool(data["bank"]),
                points=int(data["points"]),
                fouls=tuple(Foul(f) for f in data["fouls"]),
                penalty=int(data["penalty"]),
                turn_passes=bool(data["turn_passes"]),
                next_shooter=data.get("next_shooter"),
                in_hand=tuple(Ball(b) for b in data["in_hand"]),
                respots=tuple(Respot.from_dict(r, f"{where}.respots") for r in data["respots"]),
                score=_score_tuple(data["score"], f"{where}.score"),
                winner=data.get("winner"),
                flags=tuple(Flag(f) for f in data.get("flags", [])),
                positions_after={
                    Ball(b): (float(xy[0]), float(xy[1]))
                    for b, xy in data.get("positions_after", {}).items()
                },
                pocket=Pocket(data["pocket"]) if data.get("pocket") else None,
            )
        except (KeyError, ValueError, TypeError) as err:
            raise StateError(f"not a verdict: {err}", where) from None
