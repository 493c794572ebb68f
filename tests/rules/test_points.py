"""§4: every entry of the seed's points table, through judge(), and the cross-check formula."""

from __future__ import annotations

import pytest

from rules import POINTS_TABLE, Ball, Colour, PotClass, judge, points_for
from rules.points import carom_key
from tests.rules.builders import cushion, hit, midgame, pot, shot, strike

ALL_ENTRIES = [(cls, key, pts) for cls, row in POINTS_TABLE.items() for key, pts in row.items()]

# Seed printing, item by item ([S table 1-8]).
SEED_ROWS = {
    PotClass.RED: [3, 5, 6, 8, 9, 11, 12, 14],
    PotClass.WHITE: [2, 4, 7, 7, 10, 13],
    PotClass.YELLOW_CORNER: [6, 11, 12, 14, 15, 17],
    PotClass.YELLOW_TWELVE: [12, 17, 18, 20, 21, 23],
}


def test_table_has_the_seeds_26_entries():
    assert len(ALL_ENTRIES) == 26
    for cls, values in SEED_ROWS.items():
        assert list(POINTS_TABLE[cls].values()) == values


@pytest.mark.parametrize(("cls", "key", "pts"), ALL_ENTRIES)
def test_cross_check_formula(cls: PotClass, key: str, pts: int):
    # Values W=2, R=3, Y=6; no carom = base; with caroms: base + k + sum of carom values.
    base, k = {PotClass.WHITE: (2, -1), PotClass.RED: (3, 0), PotClass.YELLOW_CORNER: (6, 3),
               PotClass.YELLOW_TWELVE: (12, 3)}[cls]
    values = {"W": 2, "R": 3, "Y": 6}
    expected = base if not key else base + k + sum(values[c] for c in key)
    assert pts == expected


def _carom_balls(key: str, scored: Ball) -> list[str]:
    """Ball ids for a carom key, for player 1 (W1) shooting: W = W2, reds other than ``scored``."""
    reds = [b for b in ("R1", "R2") if b != scored.value]
    out = []
    for letter in key:
        out.append({"W": "W2", "Y": "Y"}.get(letter) or reds.pop(0))
    return out


@pytest.mark.parametrize(("cls", "key", "pts"), ALL_ENTRIES)
def test_every_entry_through_judge(cls: PotClass, key: str, pts: int):
    """Each entry played as a real shot: the called ball straight in, then the caroms."""
    scored = {PotClass.WHITE: Ball.W2, PotClass.RED: Ball.R1}.get(cls, Ball.Y)
    pocket = "ML" if cls is PotClass.YELLOW_TWELVE else "FL"
    events = [strike("W1"), hit("W1", scored.value), pot(scored.value, pocket)]
    events += [hit("W1", b) for b in _carom_balls(key, scored)]
    verdict = judge(midgame(), shot(*events, call=f"{scored.colour.value} {pocket}"))
    assert verdict.points == pts
    assert verdict.scored_ball is scored
    assert carom_key(b.colour for b in verdict.caroms) == key
    assert verdict.fouls == ()
    assert not verdict.turn_passes


@pytest.mark.parametrize(("key", "pts"), list(POINTS_TABLE[PotClass.YELLOW_TWELVE].items()))
def test_yellow_banked_into_a_corner_is_the_twelve_class(key: str, pts: int):
    events = [strike("W1"), hit("W1", "Y"), *[hit("W1", b) for b in _carom_balls(key, Ball.Y)],
              cushion("Y", "left"), pot("Y", "FR")]
    verdict = judge(midgame(), shot(*events, call="Y FR"))
    assert (verdict.points, verdict.bank) == (pts, True)


def test_points_for_rejects_an_impossible_carom_set():
    with pytest.raises(KeyError):
        points_for(PotClass.WHITE, [Colour.WHITE])
