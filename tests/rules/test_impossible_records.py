"""RULES.md §7.8 in detail: records that cannot be are refused (a KaisaError naming the field),
with room for measurement error; and a camera's overlapping positions are left out instead."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rules import (
    Ball,
    FactsError,
    Flag,
    GameState,
    RuleOptions,
    ShotFacts,
    StateError,
    TableSpec,
    judge,
    overlaps_at_rest,
)
from tests.rules.builders import hit, midgame, pot, shot, strike

T = TableSpec()
MID = {"W1": [300.0, 500.0], "W2": [300.0, 1300.0], "R1": [887.5, 887.5], "Y": [1775.0, 887.5],
       "R2": [2662.5, 887.5]}


# --- final positions ------------------------------------------------------------------------------
def test_the_overlap_limit_is_a_diameter_less_a_tenth():
    assert T.overlap_mm == pytest.approx(61.2)
    assert TableSpec(ball_diameter_mm=60.0).overlap_mm == pytest.approx(54.0)


@pytest.mark.parametrize(("apart", "refused"), [(68.0, False), (64.0, False), (61.3, False),
                                                (61.1, True), (30.0, True), (0.0, True)])
def test_final_positions_closer_than_the_limit_are_refused(apart: float, refused: bool):
    facts = shot(strike("W1"), hit("W1", "W2"),
                 finals={"W1": [1500.0, 880.0], "W2": [1500.0 + apart, 880.0]})
    if refused:
        with pytest.raises(FactsError, match="W1 and W2 overlap at rest") as err:
            judge(midgame(), facts)
        assert err.value.where == "final_positions.W2"
        assert f"{apart:.1f} mm apart" in str(err.value)
    else:
        assert judge(midgame(), facts).positions_after[Ball.W2] == (1500.0 + apart, 880.0)


def test_a_final_position_on_a_ball_that_did_not_move_is_refused():
    # W1 is said to stop on R2, which took part in nothing and so still lies on point 3
    facts = shot(strike("W1"), hit("W1", "Y"), finals={"W1": [2650.0, 880.0], "Y": [1900.0, 600.0]})
    with pytest.raises(FactsError, match=r"R2 took no part") as err:
        judge(midgame(), facts)
    assert err.value.where == "final_positions.W1"


def test_balls_without_a_final_position_are_not_checked():
    # Y moved but has no final position: it keeps its place (estimated), next to W1's: allowed
    v = judge(midgame(), shot(strike("W1"), hit("W1", "Y"), finals={"W1": [1760.0, 880.0]}))
    assert Flag.POSITIONS_ESTIMATED in v.flags


def test_overlaps_at_rest_lists_every_clash():
    facts = shot(strike("W1"), hit("W1", "Y"), hit("W1", "R1"),
                 finals={"W1": [1000.0, 880.0], "Y": [1010.0, 880.0], "R1": [2660.0, 890.0]})
    clashes = {(a, b) for a, b, _ in overlaps_at_rest(midgame(), facts)}
    assert clashes == {(Ball.W1, Ball.Y), (Ball.R1, Ball.R2)}


def test_a_cameras_overlapping_positions_are_left_out_not_refused():
    from referee.gamefile import fit_to_state

    facts = shot(strike("W1"), hit("W1", "Y"), pot("Y", "MR"), hit("W1", "R1"),
                 finals={"W1": [1000.0, 880.0], "R1": [1020.0, 890.0], "W2": [300.0, 1300.0]},
                 call="Y MR")
    fitted, notes = fit_to_state(midgame(), facts)
    assert fitted.final_positions == {Ball.W2: (300.0, 1300.0)}
    assert notes == ["final_positions of R1, W1 left out (overlapping: W1-R1 22 mm apart)"]
    v = judge(midgame(), fitted)
    assert (v.points, v.scored_ball) == (18, Ball.Y) and Flag.POSITIONS_ESTIMATED in v.flags


# --- start states -------------------------------------------------------------------------------
@pytest.mark.parametrize(("rules", "score"), [({}, (60, 10)), ({}, (10, 61)),
                                              ({"finish": "reach"}, (65, 10)),
                                              ({"target": 30}, (30, 0))])
def test_a_start_score_at_or_above_the_target_needs_a_winner(rules, score):
    options = RuleOptions.from_mapping(rules)
    data = {"score": {"1": score[0], "2": score[1]}, "opening": False}
    with pytest.raises(StateError, match="no winner") as err:
        GameState.from_dict(data, options)
    assert err.value.where == "start.score"
    player = 1 if score[0] >= options.target else 2
    won = GameState.from_dict({**data, "winner": player}, options)
    assert won.winner == player


def test_a_start_score_below_the_target_is_fine():
    for score in ((59, 0), (-4, 58)):
        state = GameState.from_dict({"score": {"1": score[0], "2": score[1]}, "opening": False})
        assert state.score == score and state.winner is None


@pytest.mark.parametrize("data", [
    {"positions": MID},
    {"score": {"1": 30, "2": 20}},
    {"score": {"1": 30, "2": 20}, "positions": MID, "shooter": 2},
], ids=["positions", "score", "both"])
def test_a_start_that_leaves_the_opening_open_is_refused(data):
    with pytest.raises(StateError, match=r'"opening": true .* or "opening": false') as err:
        GameState.from_dict(data)
    assert err.value.where == "start.opening"


def test_the_opening_is_said_or_follows_from_the_shots_played():
    assert GameState.from_dict({"positions": MID, "opening": False}).opening is False
    assert GameState.from_dict({"positions": MID, "opening": True}).opening is True
    assert GameState.from_dict({"positions": MID, "shots_played": 7}).opening is False
    assert GameState.from_dict({"shots_played": 0}).opening is True
    # nothing but the defaults: the opening (§2 layout, 0:0)
    plain = GameState.from_dict({"shooter": 2})
    assert plain.opening is True and plain.score == (0, 0)
    assert GameState.from_dict(None).opening is True


def test_start_positions_use_the_same_overlap_limit():
    close = {**MID, "W2": [300.0, 500.0 + 61.0]}
    with pytest.raises(StateError, match="W1 and W2 overlap"):
        GameState.from_dict({"positions": close, "opening": False})
    touching = {**MID, "W2": [300.0, 500.0 + 62.0]}
    assert GameState.from_dict({"positions": touching, "opening": False}).on_table[Ball.W2]


def test_a_ball_that_moved_without_a_final_position_is_where_the_facts_estimate_it():
    # R2 moved and was lost from sight: last seen at (2400, 400), the camera's best guess
    facts = replace(shot(strike("W1"), hit("W1", "R2"), finals={"W1": [1500.0, 880.0]}),
                    estimated_positions={Ball.R2: (2400.0, 400.0)})
    v = judge(midgame(), facts)
    assert v.positions_after[Ball.R2] == (2400.0, 400.0)
    assert Flag.POSITIONS_ESTIMATED in v.flags
    # an estimate on another ball's place is no better than none: R2 keeps its old place
    on_w1 = replace(facts, estimated_positions={Ball.R2: (1520.0, 880.0)})
    assert judge(midgame(), on_w1).positions_after[Ball.R2] == tuple(MID["R2"])
    # a ball that took part in nothing lies where it lay, whatever is estimated for it
    still = replace(facts, estimated_positions={Ball.R1: (2400.0, 400.0)})
    assert judge(midgame(), still).positions_after[Ball.R1] == tuple(MID["R1"])


def test_estimated_positions_round_trip_and_are_refused_for_a_ball_gone():
    record = {**shot(strike("W1"), hit("W1", "Y")).to_dict(),
              "estimated_positions": {"Y": [2400.0, 400.0]}}
    facts = ShotFacts.from_dict(record)
    assert facts.estimated_positions == {Ball.Y: (2400.0, 400.0)}
    assert "estimated_positions" not in facts.extra
    assert facts.to_dict()["estimated_positions"] == {"Y": [2400.0, 400.0]}
    gone = {**shot(strike("W1"), hit("W1", "Y"), pot("Y", "MR")).to_dict(),
            "estimated_positions": {"Y": [2400.0, 400.0]}}
    with pytest.raises(FactsError, match="Y has an estimated position but left the table") as err:
        ShotFacts.from_dict(gone)
    assert err.value.where == "shot.estimated_positions.Y"
