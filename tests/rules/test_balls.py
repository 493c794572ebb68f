"""Ball ids and owners (rules.balls)."""

import pytest

from rules.balls import Ball, cue_ball_of, opponent
from tests.rules.builders import midgame


def test_each_player_strikes_his_own_white():
    assert cue_ball_of(1) is Ball.W1
    assert cue_ball_of(2) is Ball.W2
    assert Ball.W1.owner == 1 and Ball.W2.owner == 2 and Ball.Y.owner is None


def test_the_opponent_of_each_player():
    assert opponent(1) == 2
    assert opponent(2) == 1


@pytest.mark.parametrize("wrong", [0, 3, True, "1", None])
def test_anything_but_a_player_is_refused(wrong):
    # (a caller that passed something else used to be told W2 and player 1)
    with pytest.raises(TypeError, match="expected a player, 1 or 2"):
        cue_ball_of(wrong)
    with pytest.raises(TypeError, match="expected a player, 1 or 2"):
        opponent(wrong)


def test_a_game_state_is_not_a_player():
    with pytest.raises(TypeError, match="expected a player"):
        cue_ball_of(midgame())  # type: ignore[arg-type]
