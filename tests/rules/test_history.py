"""Immutable states, a history of verdicts, and undo; the lag (§2)."""

from __future__ import annotations

import copy

import pytest

from rules import (
    Ball,
    GameState,
    Lag,
    LagFault,
    LagSide,
    Match,
    ShotFacts,
    StateError,
    TableSpec,
    judge,
    lag_faults,
    lag_winner,
)
from tests.rules.builders import cushion, hit, midgame, pot, shot, strike


def test_judge_changes_nothing():
    state = midgame()
    before = copy.deepcopy(state)
    judge(state, shot(strike("W1"), hit("W1", "R1"), pot("R1", "FL"), call="R FL"))
    assert state == before


def test_start_state_is_the_section_2_layout():
    s = GameState()
    t = s.table
    assert s.on_table == {Ball.R1: (t.length_mm / 4, t.width_mm / 2),
                          Ball.Y: (t.length_mm / 2, t.width_mm / 2),
                          Ball.R2: (3 * t.length_mm / 4, t.width_mm / 2)}
    assert s.in_hand == {Ball.W1, Ball.W2} and s.opening and s.shooter == 1


def test_match_play_and_undo():
    match = Match(midgame())
    match, v1 = match.play(shot(strike("W1"), hit("W1", "R1"), pot("R1", "FL"), call="R FL"))
    match, v2 = match.play(shot(strike("W1"), cushion("W1", "foot")))
    assert match.state.score == (3, 0) and match.state.shooter == 2
    assert match.verdicts == (v1, v2)
    undone = match.undo()
    assert undone.state.shooter == 1 and undone.verdicts == (v1,)
    assert undone.undo().state == midgame()
    with pytest.raises(StateError, match="nothing to undo"):
        undone.undo().undo()


def test_states_from_input_are_checked():
    with pytest.raises(StateError, match="overlap"):
        GameState.from_dict({"positions": {"R1": [900, 887.5], "Y": [920, 887.5],
                                           "R2": [2662.5, 887.5]}})
    with pytest.raises(StateError, match="off the"):
        GameState.from_dict({"positions": {"R1": [-100, 887.5], "Y": [1775, 887.5],
                                           "R2": [2662.5, 887.5]}})
    with pytest.raises(StateError, match="R2 must be on the table"):
        GameState.from_dict({"positions": {"R1": [887.5, 887.5], "Y": [1775, 887.5]}})
    with pytest.raises(StateError, match="player 1 or 2"):
        GameState.from_dict({"shooter": 3})


def lag(side: str, *events: dict, final: list[float] | None) -> Lag:
    timed = [{**e, "t": float(i)} for i, e in enumerate(events)]
    finals = {events[0]["ball"]: final} if final else None
    return Lag(LagSide(side), ShotFacts.from_dict({"events": timed, "final_positions": finals}))


T = TableSpec()


def test_lag_nearer_the_head_cushion_wins():
    a = lag("right", strike("W1"), cushion("W1", "foot"), final=[150.0, 500.0])
    b = lag("left", strike("W2"), cushion("W2", "foot"), cushion("W2", "head"),
            final=[90.0, 1300.0])
    assert lag_faults(a, T) == [] and lag_faults(b, T) == []
    assert lag_winner(a, b, T) == 2
    assert lag_winner(b, a, T) == 1


@pytest.mark.parametrize(("events", "final", "fault"), [
    ([strike("W1"), cushion("W1", "foot"), hit("W1", "R1")], [100.0, 500.0],
     LagFault.TOUCHED_BALL),
    ([strike("W1"), cushion("W1", "foot"), cushion("W1", "right")], [100.0, 500.0],
     LagFault.LONG_CUSHION),
    ([strike("W1")], [2000.0, 500.0], LagFault.NO_FOOT_CUSHION),
    ([strike("W1"), cushion("W1", "foot"), pot("W1", "HR")], None, LagFault.POCKETED),
    ([strike("W1"), cushion("W1", "foot")], [100.0, 1200.0], LagFault.OPPONENTS_HALF),
])
def test_a_lag_is_lost(events: list, final: list[float] | None, fault: LagFault):
    bad = lag("right", *events, final=final)
    good = lag("left", strike("W2"), cushion("W2", "foot"), final=[900.0, 1300.0])
    assert fault in lag_faults(bad, T)
    assert lag_winner(bad, good, T) == 2


def test_both_lags_lost_or_a_tie_is_lagged_again():
    a = lag("right", strike("W1"), final=[100.0, 500.0])
    b = lag("left", strike("W2"), final=[100.0, 1300.0])
    assert lag_winner(a, b, T) is None
    a = lag("right", strike("W1"), cushion("W1", "foot"), final=[100.0, 500.0])
    b = lag("left", strike("W2"), cushion("W2", "foot"), final=[100.0, 1300.0])
    assert lag_winner(a, b, T) is None


def test_score_correction_is_an_entry_that_can_be_undone():
    match = Match(midgame())
    match, _ = match.play(shot(strike("W1"), hit("W1", "R1"), pot("R1", "FL"), call="R FL"))
    corrected = match.correct_score((8, 2), "disputed carom on shot 1")
    assert corrected.state.score == (8, 2) and corrected.state.shooter == 1
    assert corrected.entries[-1].reason == "disputed carom on shot 1"
    assert corrected.undo().state.score == (3, 0)
    assert match.correct_score((60, 2), "end").state.winner == 1
