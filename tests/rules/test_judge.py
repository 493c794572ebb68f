"""§3-§5, rule by rule, each with a hand-built event list."""

from __future__ import annotations

import pytest

from rules import (
    Ball,
    Banks,
    Calls,
    FactsError,
    Finish,
    Flag,
    Foul,
    GameState,
    RuleOptions,
    StateError,
    YellowTwice,
    advance,
    judge,
)
from rules.table import Spot
from tests.rules.builders import cushion, hit, midgame, off, pot, shot, strike


def opts(**kw: object) -> RuleOptions:
    return RuleOptions.from_mapping(kw)


# --- §3 calls ----------------------------------------------------------------------------------
class TestCalls:
    def test_a_red_call_is_met_by_either_red(self):
        for called in ("R", "R1", "R2"):
            v = judge(midgame(), shot(strike("W1"), hit("W1", "R2"), pot("R2", "FL"),
                                      call=f"{called} FL"))
            assert (v.points, v.scored_ball, v.turn_passes) == (3, Ball.R2, False)

    def test_of_two_reds_in_the_called_pocket_the_first_legal_one_scores(self):
        # both legal: the first in, R2, scores; R1, hit by W1 after R2, is its carom (red + R =
        # 6) and then an extra pot
        v = judge(midgame(), shot(strike("W1"), hit("W1", "R2"), pot("R2", "FL"),
                                  hit("W1", "R1"), pot("R1", "FL"), call="R FL"))
        assert (v.scored_ball, v.points, v.caroms) == (Ball.R2, 6, (Ball.R1,))
        assert Flag.EXTRA_POT in v.flags and not v.turn_passes
        # neither legal (each by a chain of three): the first one's reason is reported
        v = judge(midgame(), shot(strike("W1"), hit("W1", "W2"), hit("W2", "Y"),
                                  hit("Y", "R2"), hit("Y", "R1"), pot("R2", "FL"),
                                  pot("R1", "FL"), call="R FL"))
        assert (v.scored_ball, v.points, v.fouls) == (None, 0, (Foul.CHAIN_TOO_LONG,))
        # a red banked into a corner (refused under `banks: seed`) does not hide a legal one
        v = judge(midgame(), shot(strike("W1"), hit("W1", "R1"), cushion("R1", "left"),
                                  pot("R1", "HL"), hit("W1", "R2"), pot("R2", "HL"),
                                  call="R HL"))
        assert (v.scored_ball, v.points, v.bank, v.fouls) == (Ball.R2, 3, False, ())

    def test_calling_the_opponents_white(self):
        for called in ("W", "W2"):
            v = judge(midgame(), shot(strike("W1"), hit("W1", "W2"), pot("W2", "HL"),
                                      call=f"{called} HL"))
            assert (v.points, v.scored_ball, v.in_hand) == (2, Ball.W2, (Ball.W2,))

    def test_calling_ones_own_cue_ball_is_refused(self):
        with pytest.raises(FactsError, match="own cue ball"):
            judge(midgame(), shot(strike("W1"), hit("W1", "W2"), call="W1 HL"))

    def test_only_the_called_ball_scores(self):
        v = judge(midgame(), shot(strike("W1"), hit("W1", "R1"), pot("R1", "FL"),
                                  hit("W1", "Y"), pot("Y", "MR"), call="R FL"))
        assert (v.points, v.scored_ball) == (9, Ball.R1)  # red with a yellow carom
        assert Flag.EXTRA_POT in v.flags and not v.turn_passes
        assert {r.ball for r in v.respots} == {Ball.R1, Ball.Y}

    def test_the_called_ball_in_another_pocket_scores_nothing(self):
        v = judge(midgame(), shot(strike("W1"), hit("W1", "R1"), pot("R1", "FR"), call="R FL"))
        assert (v.points, v.scored_ball, v.turn_passes) == (0, None, True)
        assert Flag.WRONG_POCKET in v.flags and v.fouls == () and v.penalty == 0
        assert [r.ball for r in v.respots] == [Ball.R1]

    def test_a_miss_is_not_penalised(self):
        v = judge(midgame(), shot(strike("W1"), hit("W1", "R1"), cushion("R1", "foot"),
                                  call="R FL"))
        assert (v.points, v.penalty, v.fouls, v.turn_passes) == (0, 0, (), True)

    def test_a_safety_scores_nothing_and_is_not_penalised(self):
        v = judge(midgame(), shot(strike("W1"), cushion("W1", "foot")))
        assert (v.points, v.penalty, v.fouls, v.turn_passes) == (0, 0, (), True)
        assert v.called is None and Flag.UNCALLED in v.flags

    def test_calls_assume_takes_the_pocketed_ball_and_flags_it(self):
        v = judge(midgame(), shot(strike("W1"), hit("W1", "R1"), pot("R1", "FL")))
        assert (v.points, v.called.to_dict()) == (3, {"ball": "R", "pocket": "FL"})
        assert Flag.UNCALLED in v.flags and not v.turn_passes

    def test_calls_assume_takes_the_first_ball_that_would_score(self):
        # R1 banked into a corner would not score (§3 banks); the yellow after it would.
        v = judge(midgame(), shot(strike("W1"), hit("W1", "R1"), cushion("R1", "left"),
                                  pot("R1", "FL"), hit("W1", "Y"), pot("Y", "HR")))
        assert (v.scored_ball, v.points, v.called.to_dict()) == (Ball.Y, 6, {"ball": "Y",
                                                                             "pocket": "HR"})

    def test_calls_assume_says_why_when_nothing_would_score(self):
        v = judge(midgame(), shot(strike("W1"), hit("W1", "R1"), cushion("R1", "left"),
                                  pot("R1", "FL")))
        assert v.points == 0 and v.fouls == (Foul.BANK_NOT_ALLOWED,) and v.bank

    def test_calls_strict_scores_nothing_without_a_call(self):
        state = midgame(options=opts(calls="strict"))
        assert state.options.calls is Calls.STRICT
        v = judge(state, shot(strike("W1"), hit("W1", "R1"), pot("R1", "FL")))
        assert (v.points, v.turn_passes, v.called) == (0, True, None)
        assert Flag.UNCALLED in v.flags
        assert [r.ball for r in v.respots] == [Ball.R1]


# --- §3 direct, combination, chain, caroms, banks ---------------------------------------------
class TestHowTheBallWentIn:
    def test_combination_scores_the_base_and_no_caroms(self):
        v = judge(midgame(), shot(strike("W1"), hit("W1", "R2"), hit("R2", "R1"),
                                  pot("R1", "FL"), hit("W1", "Y"), call="R FL"))
        assert (v.points, v.combination, v.caroms) == (3, True, ())

    def test_a_chain_of_two_intermediate_balls_does_not_score(self):
        v = judge(midgame(), shot(strike("W1"), hit("W1", "R2"), hit("R2", "Y"), hit("Y", "R1"),
                                  pot("R1", "FL"), call="R FL"))
        assert (v.points, v.fouls, v.turn_passes, v.penalty) == (0, (Foul.CHAIN_TOO_LONG,),
                                                                  True, 0)

    def test_cue_ball_contacts_before_the_called_ball_are_not_caroms(self):
        v = judge(midgame(), shot(strike("W1"), hit("W1", "Y"), hit("W1", "R1"),
                                  pot("R1", "FL"), call="R FL"))
        assert (v.points, v.caroms) == (3, ())

    def test_caroms_count_each_ball_once(self):
        v = judge(midgame(), shot(strike("W1"), hit("W1", "R1"), hit("W1", "Y"), hit("W1", "Y"),
                                  pot("R1", "FL"), call="R FL"))
        assert (v.points, v.caroms) == (9, (Ball.Y,))

    def test_a_carom_ball_that_jumps_off_the_table_still_counts(self):
        v = judge(midgame(), shot(strike("W1"), hit("W1", "R1"), pot("R1", "FL"),
                                  hit("W1", "Y"), off("Y"), call="R FL"))
        assert (v.points, v.caroms, v.fouls) == (9, (Ball.Y,), (Foul.OBJECT_OFF_TABLE,))
        assert v.turn_passes and v.penalty == 0

    @pytest.mark.parametrize(("banks", "pocket", "points"), [
        ("seed", "MR", 3), ("seed", "FL", 0), ("finnish", "FL", 3), ("finnish", "MR", 3)])
    def test_banked_red(self, banks: str, pocket: str, points: int):
        state = midgame(options=opts(banks=banks))
        v = judge(state, shot(strike("W1"), hit("W1", "R1"), cushion("R1", "right"),
                              pot("R1", pocket), call=f"R {pocket}"))
        assert (v.points, v.bank) == (points, True)
        assert (Foul.BANK_NOT_ALLOWED in v.fouls) == (points == 0)
        assert state.options.banks is Banks(banks)

    @pytest.mark.parametrize(("banks", "pocket", "points"), [
        ("seed", "ML", 2), ("seed", "HL", 0), ("finnish", "HL", 2)])
    def test_banked_white(self, banks: str, pocket: str, points: int):
        v = judge(midgame(options=opts(banks=banks)),
                  shot(strike("W1"), hit("W1", "W2"), cushion("W2", "head"), pot("W2", pocket),
                       call=f"W {pocket}"))
        assert (v.points, v.bank) == (points, True)

    def test_banked_yellow_stays_in_the_twelve_class_under_finnish_banks(self):
        v = judge(midgame(options=opts(banks="finnish")),
                  shot(strike("W1"), hit("W1", "Y"), cushion("Y", "foot"), pot("Y", "FL"),
                       call="Y FL"))
        assert v.points == 12

    def test_a_cushion_before_the_last_ball_contact_is_no_bank(self):
        v = judge(midgame(), shot(strike("W1"), hit("W1", "R1"), cushion("R1", "foot"),
                                  hit("R1", "Y"), pot("R1", "FL"), call="R FL"))
        assert (v.points, v.bank) == (3, False)

    def test_a_ball_that_drops_untouched_scores_nothing(self):
        v = judge(midgame(), shot(strike("W1"), cushion("W1", "foot"), pot("R1", "FL"),
                                  call="R FL"))
        assert v.points == 0 and Flag.NOT_HIT in v.flags


# --- §5 scratch, wrong cue ball, penalties ----------------------------------------------------
class TestScratch:
    @pytest.mark.parametrize(("first", "penalty"), [("R1", 3), ("Y", 6), ("W2", 2), (None, 2)])
    def test_penalty_is_the_value_of_the_first_ball_touched(self, first: str | None,
                                                            penalty: int):
        events = [strike("W1")] + ([hit("W1", first)] if first else []) + [pot("W1", "HR")]
        v = judge(midgame(score=(10, 4)), shot(*events))
        assert (v.fouls, v.penalty, v.points, v.score) == ((Foul.SCRATCH,), penalty, 0,
                                                           (10 - penalty, 4))
        assert v.turn_passes and v.next_shooter == 2 and Ball.W1 in v.in_hand

    def test_a_scratch_voids_the_called_ball_and_respots_it(self):
        v = judge(midgame(), shot(strike("W1"), hit("W1", "R1"), pot("R1", "FL"),
                                  pot("W1", "FR"), call="R FL"))
        assert (v.points, v.scored_ball, v.penalty, v.score) == (0, None, 3, (-3, 0))
        assert [r.ball for r in v.respots] == [Ball.R1]

    def test_cue_ball_off_the_table_is_a_scratch(self):
        v = judge(midgame(), shot(strike("W1"), hit("W1", "R1"), off("W1")))
        assert (v.fouls, v.penalty, v.in_hand) == ((Foul.SCRATCH,), 3, (Ball.W1,))

    def test_penalty_to_opponent(self):
        v = judge(midgame(score=(10, 4), options=opts(penalty="to_opponent")),
                  shot(strike("W1"), hit("W1", "Y"), pot("W1", "HR")))
        assert (v.penalty, v.score) == (6, (10, 10))

    def test_penalty_to_opponent_may_win_the_game(self):
        v = judge(midgame(score=(10, 57), options=opts(penalty="to_opponent")),
                  shot(strike("W1"), hit("W1", "R1"), pot("W1", "HR")))
        assert (v.score, v.winner, v.next_shooter) == ((10, 60), 2, None)

    def test_penalty_to_opponent_does_not_pass_an_exact_finish(self):
        v = judge(midgame(score=(10, 58), options=opts(penalty="to_opponent")),
                  shot(strike("W1"), hit("W1", "R1"), pot("W1", "HR")))
        assert v.score == (10, 58) and Flag.PENALTY_BUST in v.flags and v.winner is None

    @pytest.mark.parametrize("struck", ["W2", "R1", "Y"])
    def test_wrong_cue_ball(self, struck: str):
        v = judge(midgame(score=(5, 0)), shot(strike(struck), hit(struck, "R2"),
                                              pot("R2", "FR"), call="R FR"))
        assert (v.fouls, v.points, v.penalty, v.score) == ((Foul.WRONG_CUE_BALL,), 0, 2, (3, 0))
        assert v.turn_passes and [r.ball for r in v.respots] == [Ball.R2]

    @pytest.mark.parametrize("struck", ["W2", "R2"])
    def test_wrong_cue_ball_reports_the_called_balls_bank(self, struck: str):
        # §3, §7.4: void, but `bank` says the called red went into the called pocket banked
        banked = shot(strike(struck), hit(struck, "R1"), cushion("R1", "left"), pot("R1", "MR"),
                      call="R MR")
        v = judge(midgame(), banked)
        assert (v.bank, v.fouls, v.points, v.caroms) == (True, (Foul.WRONG_CUE_BALL,), 0, ())
        # not banked (no cushion after its last ball contact), or into another pocket: no bank
        straight = shot(strike(struck), hit(struck, "R1"), pot("R1", "MR"), call="R MR")
        elsewhere = shot(strike(struck), hit(struck, "R1"), cushion("R1", "left"),
                         pot("R1", "MR"), call="R ML")
        assert not judge(midgame(), straight).bank and not judge(midgame(), elsewhere).bank

    def test_several_faults_are_penalised_once_at_the_largest_amount(self):
        v = judge(midgame(), shot(strike("W2"), hit("W2", "R1"), hit("R1", "W1"),
                                  pot("W1", "HL")))
        assert set(v.fouls) == {Foul.WRONG_CUE_BALL, Foul.SCRATCH}
        assert (v.penalty, v.score) == (3, (-3, 0))  # W1 first touched a red: 3 beats 2

    def test_player_two_scratch(self):
        v = judge(midgame(shooter=2, score=(7, 7)),
                  shot(strike("W2"), hit("W2", "R2"), pot("W2", "ML")))
        assert (v.cue_ball, v.score, v.next_shooter, v.in_hand) == (Ball.W2, (7, 4), 1,
                                                                    (Ball.W2,))


# --- §5 object ball off the table ---------------------------------------------------------------
class TestObjectOffTable:
    def test_after_a_scoring_shot_points_stand_and_the_turn_passes(self):
        v = judge(midgame(), shot(strike("W1"), hit("W1", "R1"), pot("R1", "FL"), hit("W1", "R2"),
                                  off("R2"), call="R FL"))
        assert (v.points, v.penalty, v.turn_passes) == (6, 0, True)
        assert v.fouls == (Foul.OBJECT_OFF_TABLE,)
        assert {r.ball for r in v.respots} == {Ball.R1, Ball.R2}

    def test_on_a_shot_that_scored_nothing(self):
        v = judge(midgame(), shot(strike("W1"), hit("W1", "Y"), off("Y"), call="R FL"))
        assert (v.points, v.penalty, v.turn_passes) == (0, 0, True)
        assert [(r.ball, r.spot) for r in v.respots] == [(Ball.Y, Spot.POINT2)]

    def test_a_white_off_the_table_goes_in_hand_to_its_owner(self):
        v = judge(midgame(), shot(strike("W1"), hit("W1", "R1"), pot("R1", "FL"),
                                  hit("W1", "W2"), off("W2"), call="R FL"))
        assert v.points == 5 and v.in_hand == (Ball.W2,) and v.turn_passes
        assert Ball.W2 not in {r.ball for r in v.respots}
        nxt = advance(midgame(), v)
        assert nxt.shooter == 2 and Ball.W2 in nxt.in_hand


# --- §5 opening shot ----------------------------------------------------------------------------
class TestOpening:
    def opening(self) -> GameState:
        return GameState()  # the §2 layout, both whites in hand

    def test_pocketing_the_red_from_point_1_is_forbidden(self):
        v = judge(self.opening(), shot(strike("W1"), hit("W1", "R1"), pot("R1", "FL"),
                                       call="R FL"))
        assert (v.fouls, v.points, v.penalty, v.turn_passes) == ((Foul.OPENING_SHOT,), 0, 0, True)
        assert [(r.ball, r.spot) for r in v.respots] == [(Ball.R1, Spot.POINT1)]

    def test_the_red_from_point_3_may_be_pocketed_in_a_corner(self):
        v = judge(self.opening(), shot(strike("W1"), hit("W1", "R2"), pot("R2", "FR"),
                                       call="R FR"))
        assert (v.points, v.fouls) == (3, ())

    @pytest.mark.parametrize("ball", ["R2", "W1"])
    def test_nothing_may_go_into_a_middle_pocket(self, ball: str):
        events = [strike("W1"), hit("W1", "R2"), pot(ball, "MR")]
        v = judge(self.opening(), shot(*events, call="R MR"))
        assert Foul.OPENING_SHOT in v.fouls and v.points == 0

    def test_the_cue_ball_may_not_touch_the_yellow_first(self):
        v = judge(self.opening(), shot(strike("W1"), hit("W1", "Y"), hit("W1", "R2"),
                                       pot("R2", "FR"), call="R FR"))
        assert (v.fouls, v.points) == ((Foul.OPENING_SHOT,), 0)

    def test_only_the_first_shot_is_the_opening(self):
        state = advance(self.opening(), judge(self.opening(), shot(strike("W1"),
                                                                   cushion("W1", "foot"))))
        assert not state.opening
        v = judge(state, shot(strike("W2"), hit("W2", "Y"), pot("Y", "MR"), call="Y MR"))
        assert v.points == 12


# --- §5 yellow in a middle pocket twice ---------------------------------------------------------
def _yellow_middle(pocket: str = "MR", ball: str = "W1") -> object:
    return shot(strike(ball), hit(ball, "Y"), pot("Y", pocket), call=f"Y {pocket}")


class TestYellowTwice:
    def test_the_second_in_a_row_scores_nothing_and_ends_the_inning(self):
        state = midgame()
        v1 = judge(state, _yellow_middle("MR"))
        assert (v1.points, v1.turn_passes) == (12, False)
        state = advance(state, v1)
        v2 = judge(state, _yellow_middle("ML"))
        assert (v2.points, v2.fouls, v2.turn_passes) == (0, (Foul.YELLOW_MIDDLE_TWICE,), True)
        assert [(r.ball, r.spot) for r in v2.respots] == [(Ball.Y, Spot.POINT2)]
        assert v2.score == (12, 0)

    def test_option_counts_keeps_the_points_but_passes_the_turn(self):
        state = midgame(options=opts(yellow_twice="counts"))
        assert state.options.yellow_twice is YellowTwice.COUNTS
        state = advance(state, judge(state, _yellow_middle()))
        v = judge(state, _yellow_middle())
        assert (v.points, v.turn_passes, v.score) == (12, True, (24, 0))
        assert v.fouls == (Foul.YELLOW_MIDDLE_TWICE,)

    def test_a_shot_in_between_breaks_the_sequence(self):
        state = midgame()
        state = advance(state, judge(state, _yellow_middle()))
        state = advance(state, judge(state, shot(strike("W1"), hit("W1", "R1"), pot("R1", "FL"),
                                                 call="R FL")))
        assert judge(state, _yellow_middle()).points == 12

    def test_a_new_inning_starts_afresh(self):
        state = midgame()
        state = advance(state, judge(state, _yellow_middle()))
        state = advance(state, judge(state, shot(strike("W1"), cushion("W1", "foot"))))  # miss
        state = advance(state, judge(state, shot(strike("W2"), cushion("W2", "foot"))))
        assert state.shooter == 1
        assert judge(state, _yellow_middle()).points == 12

    def test_yellow_banked_into_a_corner_is_not_a_middle_pocket(self):
        state = midgame()
        state = advance(state, judge(state, _yellow_middle()))
        v = judge(state, shot(strike("W1"), hit("W1", "Y"), cushion("Y", "left"),
                              pot("Y", "FL"), call="Y FL"))
        assert (v.points, v.turn_passes) == (12, False)


# --- §5 turn and finish -------------------------------------------------------------------------
class TestFinish:
    def test_exact_above_the_target_scores_nothing_and_passes_the_turn(self):
        v = judge(midgame(score=(55, 0)), shot(strike("W1"), hit("W1", "R1"), pot("R1", "FL"),
                                               hit("W1", "Y"), call="R FL"))
        assert (v.points, v.fouls, v.turn_passes, v.score) == (0, (Foul.BUST,), True, (55, 0))
        assert [r.ball for r in v.respots] == [Ball.R1]

    def test_the_seeds_example_59_and_a_white_without_carom(self):
        v = judge(midgame(score=(59, 0)), shot(strike("W1"), hit("W1", "W2"), pot("W2", "HL"),
                                               call="W HL"))
        assert (v.points, v.fouls, v.next_shooter) == (0, (Foul.BUST,), 2)

    def test_exactly_the_target_wins(self):
        v = judge(midgame(score=(55, 30)), shot(strike("W1"), hit("W1", "R1"), pot("R1", "FL"),
                                                hit("W1", "W2"), call="R FL"))
        assert (v.points, v.score, v.winner, v.next_shooter, v.respots) == (5, (60, 30), 1,
                                                                            None, ())

    def test_reach_wins_above_the_target(self):
        state = midgame(score=(55, 0), options=opts(finish="reach"))
        assert state.options.finish is Finish.REACH
        v = judge(state, shot(strike("W1"), hit("W1", "R1"), pot("R1", "FL"), hit("W1", "Y"),
                              call="R FL"))
        assert (v.points, v.score, v.winner) == (9, (64, 0), 1)

    def test_the_target_is_an_option(self):
        v = judge(midgame(score=(28, 0), options=opts(target=30)),
                  shot(strike("W1"), hit("W1", "W2"), pot("W2", "HL"), call="W HL"))
        assert v.winner == 1

    def test_no_shot_after_the_game_is_won(self):
        state = midgame(score=(55, 30))
        state = advance(state, judge(state, shot(strike("W1"), hit("W1", "R1"), pot("R1", "FL"),
                                                 hit("W1", "W2"), call="R FL")))
        with pytest.raises(StateError, match="game is over"):
            judge(state, shot(strike("W1"), cushion("W1", "foot")))

    def test_a_legal_score_keeps_the_turn(self):
        v = judge(midgame(), shot(strike("W1"), hit("W1", "R1"), pot("R1", "FL"), call="R FL"))
        assert (v.turn_passes, v.next_shooter) == (False, 1)


class TestExtraPots:
    def test_extra_pot_does_not_end_the_turn_by_default(self):
        v = judge(midgame(), shot(strike("W1"), hit("W1", "R1"), hit("R1", "R2"),
                                  pot("R2", "FR"), pot("R1", "FL"), call="R FL"))
        # R2 dropped first but the call names a red in FL: R1 is the called ball.
        assert (v.scored_ball, v.points, v.turn_passes) == (Ball.R1, 3, False)
        assert Flag.EXTRA_POT in v.flags
        assert [(r.ball, r.spot) for r in v.respots] == [(Ball.R1, Spot.POINT1),
                                                         (Ball.R2, Spot.POINT3)]

    def test_option_extra_pot_ends_turn(self):
        v = judge(midgame(options=opts(extra_pot_ends_turn=True)),
                  shot(strike("W1"), hit("W1", "R1"), pot("R1", "FL"), hit("W1", "Y"),
                       pot("Y", "ML"), call="R FL"))
        assert (v.points, v.turn_passes, v.next_shooter) == (9, True, 2)


# --- state fit and positions ---------------------------------------------------------------------
class TestFactsMustFitTheState:
    def test_a_ball_in_hand_cannot_be_hit(self):
        state = GameState()  # both whites in hand
        with pytest.raises(FactsError, match=r"events\[1\].*W2 is in hand"):
            judge(state, shot(strike("W1"), hit("W1", "W2")))

    def test_final_positions_off_the_table_are_refused(self):
        with pytest.raises(FactsError, match=r"final_positions\.R1"):
            judge(midgame(), shot(strike("W1"), hit("W1", "R1"),
                                  finals={"R1": [5000.0, 100.0]}))

    def test_cue_ball_from_hand_is_placed_in_the_house_when_not_given(self):
        v = judge(GameState(), shot(strike("W1"), hit("W1", "R2")))
        x, _ = v.positions_after[Ball.W1]
        assert x < GameState().table.house_line_x
        assert Flag.POSITIONS_ESTIMATED in v.flags

    def test_given_final_positions_are_used(self):
        finals = {"W1": [3000.0, 300.0], "W2": [300.0, 1300.0], "R1": [887.5, 887.5],
                  "Y": [1775.0, 887.5], "R2": [3100.0, 1500.0]}
        v = judge(midgame(), shot(strike("W1"), hit("W1", "R2"), finals=finals))
        assert v.positions_after[Ball.R2] == (3100.0, 1500.0)
        assert Flag.POSITIONS_ESTIMATED not in v.flags


def test_the_referees_flags_are_never_set_by_judge_and_round_trip():
    """``camera_conflict`` and ``not_judged`` are the referee's (a camera's facts repaired, or
    not judgeable): judge sets neither; a verdict carrying them reads back as it was written."""
    from dataclasses import replace

    from rules import Verdict

    v = judge(midgame(), shot(strike("W2"), hit("W2", "R2")))  # a real foul: wrong cue ball
    assert not {Flag.CAMERA_CONFLICT, Flag.NOT_JUDGED} & set(v.flags)
    flagged = replace(v, flags=(*v.flags, Flag.CAMERA_CONFLICT, Flag.NOT_JUDGED))
    back = Verdict.from_dict(flagged.to_dict())
    assert back.flags == flagged.flags
    assert flagged.to_dict()["flags"][-2:] == ["camera_conflict", "not_judged"]
