"""§6: the respot planner (occupancy, fallbacks, order), the yellow's return, placement."""

from __future__ import annotations

import math

import pytest

from rules import (
    Ball,
    PlacementProblem,
    Respot,
    TableSpec,
    advance,
    check_placement,
    judge,
    plan_respots,
)
from rules.respot import _first_free_toward_foot
from rules.table import Spot
from tests.rules.builders import cushion, hit, midgame, pot, shot, strike

T = TableSpec()
P1, P2, P3 = (T.spot_xy(s) for s in (Spot.POINT1, Spot.POINT2, Spot.POINT3))
NEAR_HEAD, NEAR_FOOT = (500.0, 300.0), (3000.0, 300.0)


def spots(plan: list[Respot]) -> list[tuple[Ball, Spot]]:
    return [(r.ball, r.spot) for r in plan]


def test_red_goes_to_point_1():
    plan = plan_respots(T, {Ball.W1: NEAR_HEAD}, [Ball.R1], NEAR_HEAD)
    assert spots(plan) == [(Ball.R1, Spot.POINT1)] and plan[0].xy_mm == P1


def test_red_goes_to_point_3_when_point_1_is_occupied():
    near_p1 = (P1[0] + 50, P1[1])
    assert spots(plan_respots(T, {Ball.Y: near_p1}, [Ball.R1], None)) == [(Ball.R1, Spot.POINT3)]


@pytest.mark.parametrize(("cue", "spot"), [(NEAR_HEAD, Spot.CUSHION_HEAD),
                                           (NEAR_FOOT, Spot.CUSHION_FOOT),
                                           (None, Spot.CUSHION_HEAD)])  # in hand: at the head
def test_red_goes_to_the_short_cushion_nearest_the_next_cue_ball(cue, spot):
    on = {Ball.Y: P1, Ball.R2: P3}
    plan = plan_respots(T, on, [Ball.R1], cue)
    assert spots(plan) == [(Ball.R1, spot)]
    x, y = plan[0].xy_mm
    assert y == T.width_mm / 2 and min(x, T.length_mm - x) == T.ball_radius_mm


def test_cushion_spot_taken_falls_back_to_the_other_cushion_then_the_long_axis():
    on = {Ball.Y: P1, Ball.R2: P3, Ball.W2: T.spot_xy(Spot.CUSHION_HEAD)}
    assert spots(plan_respots(T, on, [Ball.R1], NEAR_HEAD)) == [(Ball.R1, Spot.CUSHION_FOOT)]
    on[Ball.W1] = T.spot_xy(Spot.CUSHION_FOOT)
    plan = plan_respots(T, on, [Ball.R1], NEAR_HEAD)
    # §7.6: both cushion places taken: the long axis from the centre toward the foot. The four
    # other balls then hold points 1 and 3 and both cushion places, so the centre is free.
    assert spots(plan) == [(Ball.R1, Spot.POINT2)] and plan[0].xy_mm == P2


def test_the_long_axis_place_is_the_first_free_one_from_the_centre_toward_the_foot():
    # (more balls than a game has, to reach past the centre)
    blocking = [(P2[0] - 30.0, P2[1] + 10.0), (P2[0] + 40.0, P2[1] - 20.0)]
    x, y = _first_free_toward_foot(T, blocking)
    assert y == P2[1] and x > P2[0] + 40.0
    assert math.isclose(math.dist((x, y), blocking[1]), T.ball_diameter_mm)
    assert not T.is_occupied((x, y), blocking)
    assert _first_free_toward_foot(T, [(P2[0] - 68.0, P2[1])]) == P2  # touching is free


def test_yellow_goes_to_point_2_then_1_then_3_then_a_cushion():
    assert spots(plan_respots(T, {}, [Ball.Y], None)) == [(Ball.Y, Spot.POINT2)]
    assert spots(plan_respots(T, {Ball.R1: P2}, [Ball.Y], None)) == [(Ball.Y, Spot.POINT1)]
    assert spots(plan_respots(T, {Ball.R1: P2, Ball.R2: P1}, [Ball.Y], None)) == [
        (Ball.Y, Spot.POINT3)]
    on = {Ball.R1: P2, Ball.R2: P1, Ball.W1: P3}
    assert spots(plan_respots(T, on, [Ball.Y], NEAR_FOOT)) == [(Ball.Y, Spot.CUSHION_FOOT)]


def test_several_balls_yellow_first_then_r1_then_r2():
    plan = plan_respots(T, {Ball.W1: NEAR_HEAD}, [Ball.R2, Ball.R1, Ball.Y], NEAR_HEAD)
    assert spots(plan) == [(Ball.Y, Spot.POINT2), (Ball.R1, Spot.POINT1), (Ball.R2, Spot.POINT3)]


def test_respots_never_overlap_each_other_or_the_balls_on_the_table():
    on = {Ball.W1: (P1[0] + 30, P1[1] + 20), Ball.W2: (P2[0] - 40, P2[1])}
    plan = plan_respots(T, on, [Ball.Y, Ball.R1, Ball.R2], None)
    placed = list(on.values())
    for r in plan:
        assert not T.is_occupied(r.xy_mm, placed)
        placed.append(r.xy_mm)


class TestYellowReturn:
    def moved_yellow(self, dx: float) -> dict[Ball, tuple[float, float]]:
        return {Ball.W1: NEAR_HEAD, Ball.W2: NEAR_FOOT, Ball.R1: P1, Ball.R2: P3,
                Ball.Y: (P2[0] + dx, P2[1])}

    def test_back_to_point_2_when_the_inning_ends(self):
        assert spots(plan_respots(T, self.moved_yellow(300), [], None, return_yellow=True)) == [
            (Ball.Y, Spot.POINT2)]

    def test_not_while_the_inning_goes_on(self):
        assert plan_respots(T, self.moved_yellow(300), [], None, return_yellow=False) == []

    def test_not_within_5_mm(self):
        assert plan_respots(T, self.moved_yellow(5.0), [], None, return_yellow=True) == []
        assert len(plan_respots(T, self.moved_yellow(5.1), [], None, return_yellow=True)) == 1

    def test_not_when_point_2_is_taken(self):
        on = self.moved_yellow(300)
        on[Ball.W2] = (P2[0] - 60, P2[1])
        assert plan_respots(T, on, [], None, return_yellow=True) == []

    def test_through_judge_at_the_end_of_an_inning(self):
        finals = {"W1": [500.0, 300.0], "W2": [300.0, 1300.0], "R1": [887.5, 887.5],
                  "Y": [2100.0, 600.0], "R2": [2662.5, 887.5]}
        v = judge(midgame(), shot(strike("W1"), hit("W1", "Y"), cushion("Y", "left"),
                                  finals=finals, call="Y FL"))
        assert v.turn_passes and spots(list(v.respots)) == [(Ball.Y, Spot.POINT2)]
        assert v.positions_after[Ball.Y] == P2


class TestPlacementCheck:
    plan = (Respot(Ball.R1, Spot.POINT1, P1),)

    def test_on_target(self):
        assert check_placement(T, self.plan, [], {Ball.R1: (P1[0] + 3, P1[1] + 4)}) == []

    def test_more_than_5_mm_off(self):
        (w,) = check_placement(T, self.plan, [], {Ball.R1: (P1[0] + 6, P1[1])})
        assert (w.problem, w.ball) == (PlacementProblem.OFF_TARGET, Ball.R1)
        assert math.isclose(w.distance_mm, 6.0) and "6 mm" in w.describe()

    def test_missing(self):
        (w,) = check_placement(T, self.plan, [], {})
        assert w.problem is PlacementProblem.MISSING

    def test_white_in_hand_outside_the_house(self):
        (w,) = check_placement(T, (), [Ball.W1], {Ball.W1: (T.house_line_x, 400.0)})
        assert w.problem is PlacementProblem.OUTSIDE_HOUSE
        assert check_placement(T, (), [Ball.W1], {Ball.W1: (T.house_line_x - 1, 400.0)}) == []

    def test_the_state_remembers_what_to_check(self):
        state = midgame()
        v = judge(state, shot(strike("W1"), hit("W1", "R1"), pot("R1", "FL"), call="R FL"))
        after = advance(state, v)
        assert after.respot_targets == v.respots and v.respots[0].ball is Ball.R1
