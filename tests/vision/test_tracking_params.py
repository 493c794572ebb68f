"""The tracker's thresholds as one frozen, checked parameter object (vision.tracking.params)."""

from __future__ import annotations

import dataclasses

import pytest

from rules.table import TableSpec
from vision.tracking import DEFAULT_TRACKING, Tracker, TrackingParams, TrackingParamsError

# the module-level constants of vision/tracking/tracker.py before they became fields, by value
OLD_CONSTANTS = {
    "init_score_share": 0.5,  # INIT_SCORE
    "jaws_s": 0.25,  # JAWS_S
    "struck_diameters_per_frame": 0.3,  # STRUCK_DIAMETERS
    "pick_up_score_share": 0.6,  # PICK_UP_SCORE
    "pick_up_frames": 5,  # PICK_UP_FRAMES
    "pick_up_window_ratio": 2,  # PICK_UP_WINDOW
    "clean_score_share": 0.7,  # CLEAN_SCORE
    "piece_off_diameters": 0.5,  # PIECE_OFF_DIAMETERS
    "alone_diameters": 2.0,  # ALONE_DIAMETERS
    "start_gate_diameters": 2.0,  # START_GATE_DIAMETERS
    "pieces_diameters": 0.95,  # PIECES_DIAMETERS
    "glint_share": 0.6,  # GLINT_SHARE
    "streak_step_diameters": 1.6,  # STREAK_STEP_DIAMETERS
    "rest_speed_diameters_per_frame": 0.05,  # REST_SPEED_DIAMETERS
    "coast_frames": 2,  # COAST_FRAMES
    "near_pair_diameters": 1.5,  # NEAR_PAIR_DIAMETERS
    "between_diameters": 0.3,  # BETWEEN_DIAMETERS
    "front_piece_diameters": 1.2,  # FRONT_PIECE_DIAMETERS
    "cue_diameters": 5.0,  # CUE_DIAMETERS
    "hardest_shot_diameters_per_frame": 7.0,  # HARDEST_SHOT_DIAMETERS
    "unhit_gate_diameters": 0.5,  # UNHIT_GATE_DIAMETERS
    "sent_frames": 10,  # SENT_FRAMES
    "velocity_gain_share": 0.5,  # BETA
    "doubtful_colour_diameters": 2.0,  # DOUBTFUL_COLOUR_DIAMETERS
    "streak_score_share": 0.3,  # STREAK_SCORE
    "back_from_pocket_s": 1.0,  # BACK_FROM_POCKET_S
    "moving_chain_frames": 3,  # MOVING_CHAIN
    "slowest_roll_diameters_per_frame": 0.1,  # SLOWEST_ROLL_DIAMETERS
    "creep_step_mm": 3.0,  # CREEP_STEP_MM
    "mouth_depth_radii": 0.5,  # MOUTH_DEPTH_RADII
    "return_s": 1.0,  # RETURN_S
    "whites_apart_diameters": 2.0,  # WHITES_APART_DIAMETERS
    "repeat_change_ratio": 4.0,  # REPEAT_CHANGE_RATIO
    "faint_s": 0.5,  # FAINT_S
    "kiss_stop_frames": 2,  # KISS_STOP_FRAMES
    "score_cost_diameters": 1.0,  # SCORE_COST_DIAMETERS
    "fixture_looks": 8,  # FIXTURE_LOOKS
    "fixture_cell_diameters": 0.25,  # FIXTURE_CELL_DIAMETERS
    "history_s": 20.0,  # HISTORY_S
}

# numbers written inline in vision/tracking/*.py before they became fields, by value
OLD_INLINE = {
    "init_seen_share": 0.5,  # first_frames.by_class: frames // 2
    "placed_unseen_frames": 1,  # first_frames.named_by_start: frames - 1
    "same_place_diameters": 0.5,  # first_frames, pick_up, vetoes: 0.5 * setting.d
    "pair_spread_radii": 0.25,  # whites.is_pair (0.2 before the dots were read against the shading)
    "single_spread_radii": 0.15,  # whites.is_single
    "init_dots_lead_looks": 3,  # first_frames.named_by_dots_and_place: < 3
    "swap_lead_looks": 10,  # whites.dots_say: w2.pair + 10
    "swap_pair_ratio": 3,  # whites.dots_say: 3 * w2.pair
    "decided_lead_looks": 5,  # whites.dots_say: w1.pair + 5
    "hard_shot_diameters_per_frame": 5.0,  # association.second_chance: 5.0 * setting.d
    "hit_speed_share": 0.6,  # association.looked_for: 0.6 * the hitter's speed
    "reach_diameters": 1.5,  # motion.reach_of, motion.collisions: 1.5 * setting.d
    "reach_speed_ratio": 2.0,  # motion.reach_of: 2.0 * speed * gap
    "stop_reach_diameters": 2.0,  # motion.stop_reach
    "hidden_stop_reach_diameters": 1.5,  # motion.stop_reach
    "pocketed_gate_diameters": 1.0,  # association.looked_for
    "hidden_gate_diameters": 0.75,  # association.looked_for
    "collision_speed_diameters_per_frame": 0.2,  # motion.collisions: (0.2 * setting.d) ** 2
    "collision_back_frames": 1,  # motion.collisions: min(last_seen) - 1.0
    "pocket_near_diameters": 1.5,  # motion.near_pocket
    "cushion_reach_ratio": 2.0,  # vetoes.behind_it: 2.0 * speed * gap
    "just_left_frames": 2,  # departure.ahead: last_seen - left_rest > 2
    "struck_gap_frames": 3,  # shot_start.struck_in: f - run[0] > 3
    "same_way_deg": 30.0,  # geometry.within_30
    "streak_least_diameters": 0.5,  # departure.ball_like_streak
    "on_line_diameters": 0.5,  # observe.inside_the_streak, departure.in_a_row_from, pieces
    "blur_step_share": 0.5,  # geometry.likeness_along: 0.5 * step
    "touching_blob_diameters": 3.0,  # pieces.split_touching
    "touching_middle_diameters": 0.25,  # pieces.split_touching
    "front_place_diameters": 0.25,  # vetoes.its_front
    "slow_behind_diameters": 0.5,  # vetoes.behind_it
    "rolling_off_diameters": 1.0,  # vetoes.a_known_thing
    "row_step_off_diameters": 0.5,  # reacquire.rolling_row
    "row_step_off_share": 0.5,  # reacquire.rolling_row
    "hidden_pick_up_ratio": 3,  # pick_up.pick_up: 3 * pick_up_frames
}
# the thresholds added since the move, each with the rule that reads it
ADDED = {
    "swept_diameters": 1.5,  # departure.swept_by
    "passing_row_diameters": 2.5,  # vetoes.passing_by: a row of pieces passing a still ball
    # whites.UnseenWays: a white back by a way unseen, the other struck from its place of rest
    "unseen_meeting_frames": 5,
    "struck_way_diameters": 0.35,
    "hitter_way_diameters": 0.7,
}


def test_the_defaults_are_the_old_constants():
    assert DEFAULT_TRACKING.to_dict() == OLD_CONSTANTS | OLD_INLINE | ADDED
    # the same type: ints stay counts
    for name, value in (OLD_CONSTANTS | OLD_INLINE | ADDED).items():
        assert type(getattr(DEFAULT_TRACKING, name)) is type(value), name


def test_the_parameters_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        DEFAULT_TRACKING.jaws_s = 1.0  # type: ignore[misc]


@pytest.mark.parametrize(("field", "value"), [
    ("init_score_share", 1.5),  # a share over 1
    ("clean_score_share", 0.0),
    ("jaws_s", -0.25),  # a time below 0
    ("creep_step_mm", float("nan")),
    ("repeat_change_ratio", 0.5),  # a factor under 1
    ("pick_up_frames", 0),  # a count under 1
    ("sent_frames", 2.5),  # a count not whole
    ("moving_chain_frames", 1),  # a chain of one sighting
    ("history_s", "20"),  # not a number
    ("same_way_deg", 190.0),  # an angle over 180 degrees
    ("hit_speed_share", 1.2),
    ("swap_pair_ratio", 0),
])
def test_a_bad_value_is_refused_naming_its_field(field, value):
    with pytest.raises(TrackingParamsError, match=f"^{field}: "):
        TrackingParams(**{field: value})


def test_a_range_the_wrong_way_round_is_refused():
    with pytest.raises(TrackingParamsError, match=r"^hardest_shot_diameters_per_frame: "):
        TrackingParams(hardest_shot_diameters_per_frame=0.2)
    with pytest.raises(TrackingParamsError, match=r"^hard_shot_diameters_per_frame: "):
        TrackingParams(hard_shot_diameters_per_frame=0.2)
    with pytest.raises(TrackingParamsError, match=r"^clean_score_share: "):
        TrackingParams(clean_score_share=0.4)


def test_to_dict_round_trips():
    params = TrackingParams(jaws_s=0.3, pick_up_frames=6, glint_share=0.5)
    assert TrackingParams(**params.to_dict()) == params
    assert TrackingParams(**DEFAULT_TRACKING.to_dict()) == DEFAULT_TRACKING


def test_whole_numbers_given_for_float_fields_are_stored_as_floats():
    params = TrackingParams(history_s=10)
    assert params.history_s == 10.0 and type(params.history_s) is float


def test_the_tracker_keeps_and_reads_its_parameters():
    table = TableSpec()
    assert Tracker(table).params is DEFAULT_TRACKING
    tracker = Tracker(table, 30.0, params=TrackingParams(jaws_s=0.5, history_s=2.0,
                                                         moving_chain_frames=5))
    assert tracker.jaws_frames == 15
    assert tracker._history.maxlen == 60
    assert tracker._free_history.maxlen == 4
