"""The thresholds by which the five balls are tracked (:mod:`vision.tracking`), as one
frozen, checked parameter object that a caller can set, see and record.

Each field's unit ends its name: ``_mm``, ``_s``, ``_frames`` (a count of frames),
``_diameters`` and ``_radii`` (of a ball), ``_diameters_per_frame`` (a ball's speed),
``_score_share`` (a detection's ball-likeness, in (0, 1]), ``_share`` (a fraction, in (0, 1])
``_ratio`` (a factor, at least 1), ``_deg`` (an angle, in (0, 180]) and ``_looks`` (a count of
looks). A ``...`` comment goes on from the one before it.
"""

from __future__ import annotations

from dataclasses import dataclass

from vision.params import ParamsError, as_dict, check_fields, check_order

# counts below which a rule cannot work (1 for the rest): a ball found again rolling is a chain of
# two sightings at least (the frames before the last are kept, moving_chain_frames - 1 of them)
_LEAST_COUNT = {"moving_chain_frames": 2}


class TrackingParamsError(ParamsError):
    """A tracking threshold out of its range (the message names the field)."""


@dataclass(frozen=True)
class TrackingParams:
    """Every threshold of :mod:`vision.tracking`; the defaults are the tuned values."""

    # --- naming the balls, and what looks like a ball
    # least median ball-likeness of an object named in the first frames
    init_score_share: float = 0.5
    # a ball is named from the start state only this near its place
    start_gate_diameters: float = 2.0
    clean_score_share: float = 0.7  # a detection this ball-like shows the whole ball
    # least ball-likeness of a streak that may be a ball struck from its place
    streak_score_share: float = 0.3
    # a sighting not at all ball-like costs this much more than a ball
    score_cost_diameters: float = 1.0
    # what a detection of another colour, doubtful (a streak, a ball under the cue), costs over its
    # distance: a ball takes one of its own colour unless that is this much further than expected
    doubtful_colour_diameters: float = 2.0
    # whites kept further apart than this cannot have been mixed up
    whites_apart_diameters: float = 2.0
    # an object named in the first frames is seen in at least this share of them
    init_seen_share: float = 0.5
    # a white already placed in the house is seen in all the first frames but this many at most
    placed_unseen_frames: int = 1
    # two sightings this near are of one thing in one place (an object of the first frames seen
    # again, a ball put on the table seen in place, a thing left there the last frame)
    same_place_diameters: float = 0.5
    # W2's pair of dots: dots spread over more than this (of the ball's radius) ...
    pair_spread_radii: float = 0.25
    single_spread_radii: float = 0.15  # ... W1's one dot: spread over less than this
    # in the first frames, whites whose pair counts differ by less than this are undecided
    init_dots_lead_looks: int = 3
    # the track named W1 shows W2's pair this many looks more often than the other ...
    swap_lead_looks: int = 10
    swap_pair_ratio: int = 3  # ... and this many times as often: the whites are swapped
    decided_lead_looks: int = 5  # W2 shows its pair this many looks more often: decided
    # a white back in sight by a way unseen where the other lay at rest (whites.UnseenWays): the
    # white whose way out, seen twice in this many frames, goes back within this of that place ...
    unseen_meeting_frames: int = 5
    struck_way_diameters: float = 0.35
    hitter_way_diameters: float = 0.7  # ... while the other's passes this far off: struck from it

    # --- motion
    # share of the surprise (sighting minus prediction) taken into the velocity
    velocity_gain_share: float = 0.5
    rest_speed_diameters_per_frame: float = 0.05  # slower than this per frame, a ball is at rest
    # a ball moving this many diameters a frame was clearly struck
    struck_diameters_per_frame: float = 0.3
    # a ball struck as hard as any (13 m/s) goes this far a frame
    hardest_shot_diameters_per_frame: float = 7.0
    # a ball struck hard (170 mm a frame at 30 fps) goes this far a frame: the reach of a
    # ball's second chance beyond its gate
    hard_shot_diameters_per_frame: float = 5.0
    # a ball at rest that is hit may leave at this share of the hitter's speed
    hit_speed_share: float = 0.6
    # a ball is seen this near where it is predicted (or where a collision sends it) ...
    reach_diameters: float = 1.5
    # ... and this many times its travel further (a ball just hit leaves faster than its first
    # sightings say)
    reach_speed_ratio: float = 2.0
    # a ball on the table found at rest after a moment unseen, without being seen on its way,
    # lies this near where it was last seen ...
    stop_reach_diameters: float = 2.0
    hidden_stop_reach_diameters: float = 1.5  # ... a hidden one this near
    pocketed_gate_diameters: float = 1.0  # a ball vanished in a pocket's jaws is seen this near
    hidden_gate_diameters: float = 0.75  # a hidden ball is seen this near where it was last seen
    # two balls closing slower than this are not run into each other (a ball at rest jitters)
    collision_speed_diameters_per_frame: float = 0.2
    # a moving ball's path is run back this many frames before its last sighting for a collision
    collision_back_frames: int = 1
    pocket_near_diameters: float = 1.5  # a ball vanishing this near a pocket's point dropped
    # a rolling ball this near a cushion's nose, by this many times its speed (and a diameter),
    # may come back off it
    cushion_reach_ratio: float = 2.0
    # a ball seen leaving its rest this few frames ago: its speed is not yet known
    just_left_frames: int = 2
    # sightings of a ball this many frames apart at most tell its speed (a strike)
    struck_gap_frames: int = 3
    # a resting ball's sightings further off, frame after frame, by this: rolling
    creep_step_mm: float = 3.0
    coast_frames: int = 2  # a rolling ball unseen this many frames is looked for along its way
    # a ball at rest before the cue ball is struck is seen this near
    unhit_gate_diameters: float = 0.5
    sent_frames: int = 10  # a ball hit from rest while unseen is looked for its way this long
    # a ball at rest unseen with another ball's streak's line this near its centre (along the
    # streak) was hit by it: touching is a diameter, and the blur of the hitter bending away at
    # the contact puts the streak's fitted line up to half a diameter further
    swept_diameters: float = 1.5
    # a ball seen rolling this few frames ago and still now was stopped by a kiss, not found at
    # rest: a ball that then comes is no hitter of it (a white, its speed read as nothing just after
    # a kiss off the yellow, had its own next picture barred as lying toward the yellow, "hitting"
    # it, and took the other white's)
    kiss_stop_frames: int = 2

    # --- pieces of a ball's picture, and the things beside it
    # a piece of a split blob: its centre this far off the ball's, at most
    piece_off_diameters: float = 0.5
    # ... when no other ball is this near (else it may be that ball's piece)
    alone_diameters: float = 2.0
    pieces_diameters: float = 0.95  # same-colour detections nearer than this are pieces of one ball
    # ... unless one looks whole and the other is less than this share as ball-like
    glint_share: float = 0.6
    # pieces of a faint streak in a row, this near each other: one ball
    streak_step_diameters: float = 1.6
    # two pieces of one colour this far apart at most (a fast ball's blur) make a row: off a
    # still ball's place, a row whose line misses the place is another ball passing by
    passing_row_diameters: float = 2.5
    # two balls this near, one moving, may show as one blob between them
    near_pair_diameters: float = 1.5
    # ... a picture this near their middle, further from each: both of them
    between_diameters: float = 0.3
    # a ball-like piece of a resting ball's colour this near: its streak
    front_piece_diameters: float = 1.2
    # a non-ball this near a resting ball may be the cue (its middle, if long)
    cue_diameters: float = 5.0
    # a ball seen for this long only in sightings less ball-like than init_score_share, and now more
    # than a diameter from where it last looked like one (or from where it was named), is no ball:
    # it walked onto a piece of the cue, a hand, a light projected on the cloth. It is lost, free to
    # be found again. (A ball at rest half hidden under the cue or an arm is seen as faint for
    # longer, but in its place.)
    faint_s: float = 0.5
    # a faint thing (less ball-like than init_score_share) left unclaimed in one place in this many
    # frames (counted in cells fixture_cell_diameters wide, none more than hide_s after the one
    # before, the last within hide_s: a hand or the cue passing now and then over a match is none)
    # is a fixture of the picture: a mark or a light on the cloth, the cue's tip held at address. A
    # faint sighting there, off a ball's own place, is that thing and not the ball come to it (a
    # white blurred out of sight after a contact gave its id to a pale mark that had lain unclaimed
    # two diameters away for the whole second before, and its id stayed there)
    fixture_looks: int = 8
    fixture_cell_diameters: float = 0.25  # ... the cells' width
    # two directions this near each other point the same way (a streak, a row, the cue, a way)
    same_way_deg: float = 30.0
    streak_least_diameters: float = 0.5  # a ball's streak is longer than this
    # a point this near a line (across it) lies on it: a ball on a streak's line, the pieces
    # of a streak in a row, a row pointing back at a ball
    on_line_diameters: float = 0.5
    # a streak drawn out along a ball's way for this share of its step is that motion's blur
    blur_step_share: float = 0.5
    # a streak no longer than this, its middle this near two touching balls' ...
    touching_blob_diameters: float = 3.0
    touching_middle_diameters: float = 0.25  # ... middle, is those two as one blob
    # a ball's own streak front left in the last frame: the ball is seen this near where it lay
    front_place_diameters: float = 0.25
    # a faint sighting behind a slowly creeping ball by more than this is not it
    slow_behind_diameters: float = 0.5
    # a faint thing this near where a rolling ball is expected may be the ball over it
    rolling_off_diameters: float = 1.0
    # a rolling row's steps are the same within this ...
    row_step_off_diameters: float = 0.5
    row_step_off_share: float = 0.5  # ... or this share of the step, if less (creep_step_mm least)

    # --- balls lost, found again, pocketed and put back
    # a ball that vanished by a pocket and is seen again this soon did not drop
    jaws_s: float = 0.25
    # a centre this far past a nose line (in radii) is in a pocket's mouth
    mouth_depth_radii: float = 0.5
    back_from_pocket_s: float = 1.0  # a pocketed ball is back on the table no sooner than this
    # least ball-likeness of a ball that appears (respotted, placed by hand)
    pick_up_score_share: float = 0.6
    pick_up_frames: int = 5  # ... seen in place in this many frames
    pick_up_window_ratio: int = 2  # ... of the last this many times as many
    # a ball put where a hidden ball of its class may have gone: this many times as long
    hidden_pick_up_ratio: int = 3
    # a ball lost from view is found again rolling in this many frames running
    moving_chain_frames: int = 3
    # ... each a step of at least this (7 mm: 0.2 m/s; a rest is still)
    slowest_roll_diameters_per_frame: float = 0.1
    return_s: float = 1.0  # a ball seen clean back on the place it left this soon never left it

    # --- the video and the game state
    # A picture that changed from the last frame's this many times less than the last frame's and
    # the next frame's did is the last picture shown again (a camera of 15 frames a second padded to
    # 30 by its recorder; see repeats.RepeatsFilled). Measured: a repeat of a re-encoded synthetic
    # clip changes by 5-13 grey levels at most, a frame in which a ball or the cue moves by 35-190;
    # recorded repeats by a tenth of their other frames' mean change
    repeat_change_ratio: float = 4.0
    # the tracker's answers are kept this long: the game state before a shot is told once the shot
    # before has been judged, 1.5 s of video after its balls came to rest (and the few frames the
    # tracker reads ahead), and says where they lay at that rest (see Tracker.begin_shot)
    history_s: float = 20.0

    def __post_init__(self) -> None:
        check_fields(self, TrackingParamsError, least_counts=_LEAST_COUNT)
        check_order(self, TrackingParamsError,
                    ("rest_speed_diameters_per_frame", "slowest_roll_diameters_per_frame"),
                    ("slowest_roll_diameters_per_frame", "struck_diameters_per_frame"),
                    ("struck_diameters_per_frame", "hard_shot_diameters_per_frame"),
                    ("hard_shot_diameters_per_frame", "hardest_shot_diameters_per_frame"),
                    ("streak_score_share", "init_score_share"),
                    ("init_score_share", "clean_score_share"),
                    ("pick_up_score_share", "clean_score_share"),
                    ("struck_way_diameters", "hitter_way_diameters"))

    def to_dict(self) -> dict[str, float | int]:
        """Every field by name (for a report; ``TrackingParams(**d)`` gives it back)."""
        return as_dict(self)


DEFAULT_TRACKING = TrackingParams()
