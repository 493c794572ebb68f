"""Ball ids, colours and owners (RULES.md §1)."""

from __future__ import annotations

from enum import StrEnum

from rules.errors import FactsError


class Colour(StrEnum):
    """Ball classes as the points table sees them; the letter is what calls and caroms use."""

    WHITE = "W"
    RED = "R"
    YELLOW = "Y"

    @property
    def value_points(self) -> int:
        """The ball's value (W 2, R 3, Y 6): the cross-check formula and the scratch penalty."""
        return {Colour.WHITE: 2, Colour.RED: 3, Colour.YELLOW: 6}[self]


class Ball(StrEnum):
    """The five balls. ``W1`` (one dot) is player 1's cue ball, ``W2`` (two dots) player 2's."""

    W1 = "W1"
    W2 = "W2"
    R1 = "R1"
    R2 = "R2"
    Y = "Y"

    @property
    def colour(self) -> Colour:
        return Colour(self.value[0])

    @property
    def is_white(self) -> bool:
        return self.colour is Colour.WHITE

    @property
    def owner(self) -> int | None:
        """The player whose cue ball this is (1 or 2), or None for an object-only ball."""
        return {Ball.W1: 1, Ball.W2: 2}.get(self)

    @classmethod
    def parse(cls, value: object, where: str) -> Ball:
        try:
            return cls(str(value))
        except ValueError:
            raise FactsError(
                f"unknown ball id {value!r} (expected one of {' '.join(b.value for b in cls)})",
                where,
            ) from None


def cue_ball_of(player: int) -> Ball:
    """The white a player strikes: player 1 plays W1, player 2 plays W2."""
    return Ball.W1 if _player(player) == 1 else Ball.W2


def opponent(player: int) -> int:
    return 2 if _player(player) == 1 else 1


def _player(player: object) -> int:
    """``player`` itself when it is 1 or 2. Anything else (a game state passed by mistake, a
    player 3) is a programming error: named here rather than read as player 2."""
    if isinstance(player, bool) or player not in (1, 2):
        raise TypeError(f"expected a player, 1 or 2, got {player!r}")
    return int(player)


# §6.3: when several balls are respotted at once, the yellow first, then R1, then R2.
RESPOT_ORDER: tuple[Ball, ...] = (Ball.Y, Ball.R1, Ball.R2)
