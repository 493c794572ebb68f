"""The seed's points table (RULES.md §4), kept as data: 26 entries, exactly as printed.

A carom set is written as its ball letters in the order W, R, Y (``"WRY"``, ``"RR"``, ``""`` for no
carom). The cross-check formula is a test, not the source of the numbers.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum

from rules.balls import Colour


class PotClass(StrEnum):
    """The four rows of the table: which ball went in, and for the yellow, how."""

    WHITE = "white"
    RED = "red"
    YELLOW_CORNER = "yellow_corner"  # yellow, direct (not banked) into a corner pocket
    YELLOW_TWELVE = "yellow_twelve"  # yellow into a middle pocket, or banked into any pocket


POINTS_TABLE: dict[PotClass, dict[str, int]] = {
    # [S table 3-4] white (the opponent's), any pocket
    PotClass.WHITE: {"": 2, "R": 4, "RR": 7, "Y": 7, "RY": 10, "RRY": 13},
    # [S table 1-2] red, any pocket
    PotClass.RED: {"": 3, "W": 5, "R": 6, "WR": 8, "Y": 9, "WY": 11, "RY": 12, "WRY": 14},
    # [S table 5-6] yellow, corner pocket, direct
    PotClass.YELLOW_CORNER: {"": 6, "W": 11, "R": 12, "WR": 14, "RR": 15, "WRR": 17},
    # [S table 7-8] yellow, middle pocket, or banked into any pocket
    PotClass.YELLOW_TWELVE: {"": 12, "W": 17, "R": 18, "WR": 20, "RR": 21, "WRR": 23},
}

_LETTER_ORDER = {Colour.WHITE: 0, Colour.RED: 1, Colour.YELLOW: 2}


def carom_key(colours: Iterable[Colour]) -> str:
    """The table's key for a set of carom balls, e.g. [Y, R, W] -> "WRY"."""
    return "".join(c.value for c in sorted(colours, key=_LETTER_ORDER.__getitem__))


def points_for(pot: PotClass, carom_colours: Iterable[Colour]) -> int:
    """Points for the called ball pocketed in ``pot`` with caroms on ``carom_colours``.

    Raises KeyError for a carom set that cannot occur (e.g. a white carom when the white is the
    pocketed ball): the table has an entry for every possible one.
    """
    return POINTS_TABLE[pot][carom_key(carom_colours)]
