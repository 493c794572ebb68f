"""The tracker's identity logic on hand-made detections (no video): naming from the game state,
a hand is no ball, a ball half under the cue stays put, a hit ball leaves away from its hitter,
pieces of one ball are one ball, a respotted ball is picked up."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from rules.table import TableSpec
from vision.detection import Detection
from vision.tracking.departure import nearest_end
from vision.tracking.pieces import join_streak_pieces
from vision.tracking.repeats import RepeatsFilled
from vision.tracking.tracker import Tracker

TABLE = TableSpec()
D = TABLE.ball_diameter_mm


def det(x: float, y: float, colour: str, score: float = 0.85, **kw: object) -> Detection:
    return Detection(x_px=x / 3, y_px=y / 3, x_mm=x, y_mm=y, radius_px=11.0, colour=colour,
                     score=score, **kw)  # type: ignore[arg-type]


def feed(tracker: Tracker, frames: list[list[Detection]], first: int = 0) -> list:
    out = []
    for k, dets in enumerate(frames):
        out += tracker.update(first + k, dets)
    return out


LAYOUT = {"W1": (800.0, 900.0), "W2": (2800.0, 400.0), "R1": (2000.0, 1200.0),
          "R2": (900.0, 300.0), "Y": (1800.0, 600.0)}


def layout_dets(layout=LAYOUT) -> list[Detection]:
    colour = {"W1": "white", "W2": "white", "R1": "red", "R2": "red", "Y": "yellow"}
    return [det(x, y, colour[b]) for b, (x, y) in layout.items()]


OTHERS = {"W2": (2800.0, 1400.0), "R1": (2000.0, 1200.0), "R2": (900.0, 300.0),
          "Y": (3000.0, 400.0)}


def at_rest_first(places: dict[str, tuple[float, float]], moving: tuple[str, ...]
                  ) -> tuple[Tracker, list[Detection], list[list[Detection]]]:
    """A tracker named from ``places`` (over OTHERS), the detections of the balls that stay
    still, and twelve frames of every ball at rest."""
    layout = {**OTHERS, **places}
    tracker = Tracker(TABLE, start_positions=layout)
    still = layout_dets({b: xy for b, xy in layout.items() if b not in moving})
    return tracker, still, [layout_dets(layout) for _ in range(12)]


def test_start_positions_name_the_reds_and_whites_where_they_were_left():
    tracker = Tracker(TABLE, start_positions=LAYOUT)
    out = feed(tracker, [layout_dets()] * 12)
    assert out, "frames are released after the first ones"
    for ball, (x, y) in LAYOUT.items():
        bx, by, visible = out[-1].balls[ball]
        assert visible and math.dist((bx, by), (x, y)) < 1.0, ball


def test_a_ball_unseen_in_the_first_frame_is_where_it_looked_most_like_a_ball():
    # touching_whites_s127: two whites resting touching, W2 unseen in frame 0, seen clean for
    # seven frames, then twice read (with W1 and their shadows) as one poor blob between them,
    # under half a ball from W2's place. Frame 0 has W2 where it was seen clean, not there.
    w1, w2 = (2095.0, 740.0), (2074.0, 676.0)
    middle = (2083.0, 705.0)
    places = {**OTHERS, "W1": w1, "W2": w2}
    clean = layout_dets(places)
    merged = [d for d in clean if (d.x_mm, d.y_mm) not in (w1, w2)] + [
        det(*middle, "white", score=0.37)]
    first = [d for d in clean if (d.x_mm, d.y_mm) != w2]
    out = feed(Tracker(TABLE, start_positions=places), [first] + [clean] * 7 + [merged] * 4)
    x, y, _ = out[0].balls["W2"]
    assert math.dist((x, y), w2) < 1.0


def test_without_start_positions_R1_is_the_red_nearer_the_head():
    tracker = Tracker(TABLE)
    out = feed(tracker, [layout_dets()] * 12)
    assert out[-1].balls["R1"][:2] == LAYOUT["R2"]  # the red at x=900 is nearer the head


def test_a_hand_is_not_taken_for_the_white_in_hand():
    hand = det(130.0, 450.0, "white", score=0.38)
    on_table = {b: xy for b, xy in LAYOUT.items() if b != "W2"}
    tracker = Tracker(TABLE, start_positions=on_table)
    out = feed(tracker, [[*layout_dets(on_table), hand]] * 40)
    assert "W2" not in out[-1].balls


def test_a_ball_the_state_has_on_the_table_but_unseen_waits_hidden_where_it_was_left():
    seen = [d for d in layout_dets() if d.colour != "yellow"]
    tracker = Tracker(TABLE, start_positions=LAYOUT)
    out = feed(tracker, [seen] * 12)
    x, y, visible = out[-1].balls["Y"]
    assert not visible and (x, y) == LAYOUT["Y"]
    out = feed(tracker, [layout_dets()] * 3, first=12)
    assert out[-1].balls["Y"][2] is True


def test_a_ball_half_under_the_cue_stays_where_it_rests():
    tracker = Tracker(TABLE, start_positions=LAYOUT)
    feed(tracker, [layout_dets()] * 12)
    yx, yy = LAYOUT["Y"]
    jitter = [d for d in layout_dets() if d.colour != "yellow"]
    frames = [[*jitter, det(yx + 12, yy - 8, "yellow", score=0.5)],
              [*jitter, det(yx - 10, yy + 5, "yellow", score=0.55),
               det(yx + 15, yy + 10, "yellow", score=0.45)]]
    out = feed(tracker, frames, first=12)
    for r in out:
        x, y, visible = r.balls["Y"]
        assert visible and math.dist((x, y), LAYOUT["Y"]) < 8.0  # pieces merged at most


def test_a_hit_red_leaves_away_from_the_red_that_hit_it():
    """R2 rolls fast into the resting R1 full: R2 stops at the contact, R1 goes on. Predicted
    straight on, R2 is nearer the ball that goes on: a tracker that only predicts swaps them."""
    rest = (2000.0, 900.0)
    layout = {"W1": (500.0, 500.0), "R1": rest, "R2": (1060.0, 900.0), "Y": (3000.0, 1500.0)}
    tracker = Tracker(TABLE, start_positions=layout)
    still = [det(500, 500, "white"), det(3000, 1500, "yellow")]
    frames = [[*still, det(*rest, "red"), det(1060, 900, "red")]] * 12
    for x in range(1180, 1901, 120):  # R2 at 120 mm per frame, last seen 32 mm from the contact
        frames.append([*still, det(*rest, "red"), det(float(x), 900, "red")])
    contact = rest[0] - D
    after = rest[0] + 120 * (1 - 32 / 120)  # R1 took R2's speed at the contact
    for k in range(5):
        frames.append([*still, det(contact, 900, "red"), det(after + 110 * k, 900, "red")])
    out = feed(tracker, frames)
    out += tracker.flush()
    last = out[-1].balls
    assert abs(last["R2"][0] - contact) < 2.0
    assert last["R1"][0] > rest[0] + 300


def test_without_the_game_state_a_hand_is_not_taken_for_a_white():
    hand = det(130.0, 450.0, "white", score=0.38)
    on_table = {b: xy for b, xy in LAYOUT.items() if b != "W2"}
    tracker = Tracker(TABLE)
    out = feed(tracker, [[*layout_dets(on_table), hand]] * 40)
    whites = [b for b in ("W1", "W2") if b in out[-1].balls]
    assert len(whites) == 1 and out[-1].balls[whites[0]][:2] == LAYOUT["W1"]


def test_two_pieces_of_one_blurred_ball_are_one_ball_at_their_middle():
    layout = {"W1": (1000.0, 900.0), "R1": (2500.0, 300.0)}
    tracker = Tracker(TABLE, start_positions=layout)
    base = [det(2500, 300, "red")]
    frames = [[*base, det(1000, 900, "white")]] * 12
    frames.append([*base, det(1100, 900, "white", streak_mm=40.0)])
    frames.append([*base, det(1180, 880, "white", colour_sure=False),
                   det(1220, 920, "red", score=0.6, colour_sure=False)])
    out = feed(tracker, frames)
    x, y, _ = out[-1].balls["W1"]
    assert math.dist((x, y), (1200, 900)) < 1.0
    assert math.dist(out[-1].balls["R1"][:2], (2500, 300)) < 1.0


def test_a_ball_seen_in_two_pieces_in_the_first_frames_is_named_once():
    """As in the real footage (simulation_vs_reality_1_0008): a red at rest is now one
    detection, now two pieces (a projected line across it). The first frames are read as
    every frame is, pieces joined: one red, not R1 and R2 on one ball."""
    tracker = Tracker(TABLE)
    white = det(1000, 900, "white")
    one = [white, det(1784, 258, "red", score=0.9)]
    two = [white, det(1766, 250, "red", score=0.6, piece=True),
           det(1800, 268, "red", score=0.6, piece=True)]
    out = feed(tracker, [one if k % 3 == 0 else two for k in range(15)])
    assert "R2" not in out[-1].balls
    assert math.dist(out[-1].balls["R1"][:2], (1784, 258)) < 20.0


def test_two_balls_resting_touching_read_nearer_than_a_ball_apart_are_not_pieces_of_one():
    """As touching_whites_s167: two whites touching, each read as its own detection, W1's
    pulled 8 mm toward W2 (60 mm apart: nearer than two balls can be). Each seen at its place
    is that ball, not a piece of one white between them."""
    w1, w2 = (2227.3, 1304.6), (2204.3, 1240.6)
    places = {**OTHERS, "W1": w1, "W2": w2}
    seen = [d for d in layout_dets(places) if (d.x_mm, d.y_mm) not in (w1, w2)] + [
        det(2227.0, 1296.0, "white", score=0.66, piece=True),
        det(2204.0, 1240.0, "white", score=0.64, piece=True)]
    assert math.dist((2227.0, 1296.0), (2204.0, 1240.0)) < 0.95 * D
    out = feed(Tracker(TABLE, start_positions=places), [seen] * 20)
    for frame in (out[0], out[-1]):
        for ball, xy in (("W1", w1), ("W2", w2)):
            x, y, visible = frame.balls[ball]
            assert visible and math.dist((x, y), xy) < 10.0, (frame.frame, ball)


def test_a_respotted_ball_is_picked_up_once_it_stays_put():
    layout = {"W1": (1000.0, 900.0), "Y": (3400.0, 100.0)}
    tracker = Tracker(TABLE, start_positions=layout)
    w1 = det(1000, 900, "white")
    frames = [[w1, det(3400, 100, "yellow")]] * 12
    frames += [[w1, det(3440, 60, "yellow", streak_mm=30)], [w1], [w1]]  # into the pocket
    frames += [[w1]] * 30  # taken out of the pocket (a second)
    frames += [[w1, det(1775, 888, "yellow")]] * 6  # put back on its spot
    out = feed(tracker, frames)
    assert "Y" not in out[13].balls or not out[13].balls["Y"][2] or out[13].balls["Y"][0] > 3400
    x, y, visible = out[-1].balls["Y"]
    assert visible and math.dist((x, y), (1775, 888)) < 1.0


def test_before_the_cue_ball_is_struck_a_hidden_ball_does_not_jump_to_a_thing_nearby():
    """As Y in pot_HR_s163: hidden under the player from the start, and the player's head, read
    as a yellow, shows 92 mm from Y's place, then moves about. The cue ball (W1, the shooter's)
    rests in its place: nothing has been hit, so Y has not moved. Once the cue ball is struck
    and rolling, a ball hidden may be hit and leave (the usual second chance)."""
    layout = {"W1": (758.0, 545.0), "R1": (337.0, 337.0), "Y": (1775.0, 887.5)}
    tracker = Tracker(TABLE, cue_ball="W1", start_positions=layout)
    still = [det(758, 545, "white"), det(337, 337, "red")]
    frames = [still] * 25
    head = [(1734.0, 805.0)] * 3 + [(1611.0, 734.0), (1631.0, 744.0), (1608.0, 730.0),
                                    (1579.0, 717.0), (1611.0, 734.0), (1632.0, 744.0)]
    frames += [[*still, det(x, y, "yellow", score=0.7)] for x, y in head]
    out = feed(tracker, frames)
    assert all(r.balls["Y"][:2] == layout["Y"] for r in out)


def test_a_ball_that_flickers_in_and_out_is_picked_up_all_the_same():
    """A ball with the cue's tip on it (or a hand's shadow beside it) is detected in two frames
    of three: seen in place in most frames of a while, it is a ball; a hand flickering at 0.4
    is not."""
    layout = {"W1": (1000.0, 900.0)}
    tracker = Tracker(TABLE, start_positions=layout)
    w1 = det(1000, 900, "white")
    frames = [[w1]] * 12
    frames += [[w1, det(2400, 600, "red"), det(300, 1500, "white", score=0.4)] if k % 3 else [w1]
               for k in range(12)]
    out = feed(tracker, frames)
    assert math.dist(out[-1].balls["R1"][:2], (2400, 600)) < 1.0
    assert "W2" not in out[-1].balls


def test_a_resting_ball_seen_drawn_toward_a_ball_rolling_up_stays_put():
    """W2 rolls up to the resting R1 and passes it; R1's picture merges with W2's and its
    detection creeps 12 mm toward W2: R1 has not moved (a hit ball leaves away from its hitter)."""
    rest = (2000.0, 900.0)
    layout = {"W1": (500.0, 500.0), "W2": (1500.0, 980.0), "R1": rest}
    tracker = Tracker(TABLE, start_positions=layout)
    w1 = det(500, 500, "white")
    frames = [[w1, det(1500, 980, "white"), det(*rest, "red")]] * 12
    for k in range(1, 13):  # W2 at 60 mm per frame along y = 980, 80 mm beside R1 at closest
        x = 1500.0 + 60 * k
        pull = 12.0 if abs(x - rest[0]) < 70 else 0.0  # the pictures touch
        toward = (x - rest[0], 80.0)
        norm = math.hypot(*toward)
        frames.append([w1, det(x, 980, "white"),
                       det(rest[0] + pull * toward[0] / norm, rest[1] + pull * toward[1] / norm,
                           "red", score=0.85)])
    out = feed(tracker, frames)
    for r in out:
        assert math.dist(r.balls["R1"][:2], rest) < 1.0, r.frame


def test_a_resting_ball_kissed_into_a_slow_roll_beside_a_passing_ball_is_followed():
    """R1 is kissed into a slow roll along x (5 mm in its first frame, then a little faster)
    while W2 rolls by close beside it, on R1's side: R1's first sightings are doubtful (drawn
    toward W2?) and kept as jitter, but they go further the same way frame after frame: R1
    rolls, and is followed. (Held in place, R1 was lost two frames on: in carom_3_s61 W1 was,
    and W2 took its sightings.)"""
    rest = (2000.0, 900.0)
    layout = {"W1": (500.0, 500.0), "W2": (2130.0, 910.0), "R1": rest}
    tracker = Tracker(TABLE, start_positions=layout)
    w1 = det(500, 500, "white")

    def w2(k: int) -> Detection:  # rolling at 12 mm a frame, by R1 (94 mm off) at k = 10
        return det(2130 - 8.0 * k, 910 - 9.0 * k, "white", score=0.95)

    frames = [[w1, w2(0), det(*rest, "red")]] * 12
    frames += [[w1, w2(k), det(*rest, "red")] for k in range(1, 10)]
    true_r1 = []
    x = rest[0]
    for k in range(10, 25):
        x += min(5.0 + 2.0 * (k - 10), 11.0)
        true_r1.append((x, rest[1]))
        frames.append([w1, w2(k), det(x, rest[1], "red", score=0.95)])
    out = feed(tracker, frames)
    for r, truth in zip(out[-len(true_r1) + 1:], true_r1[1:], strict=True):
        bx, by, visible = r.balls["R1"]
        assert visible and math.dist((bx, by), truth) < 6.0, (r.frame, (bx, by), truth)


@pytest.mark.xfail(strict=True, reason="known: a resting ball takes a piece of an arm that "
                   "came over it and merged with it (touching_whites_s61, scratch_pocket_s61, "
                   "carom_2_s61: a phantom strike). Tried (2026-11-30): no leaving beyond jitter "
                   "as an arm comes, and only clean sightings while covered: +2 verdicts on seed "
                   "61, none lost on the synthetic sets, but on the club footage W1 was seen in "
                   "40 % of null_grad_stoss_1_0130_0135 (85 % before) and a phantom off-table "
                   "came; not merged. Since 2026-11-30 (late) the ball goes back to its place "
                   "as soon as it shows there clean (reacquire.back_to_rest), and shot facts see "
                   "that it never left (touching_whites_s61 right): while covered it still "
                   "follows the arm")
def test_a_resting_ball_does_not_follow_the_pieces_of_an_arm_that_came_over_it():
    """The bridge hand comes down by R1 (a skin-coloured, reddish blob): for five frames R1 and
    the hand are one blob, seen as faint red pieces 80 and 110 mm off R1's place; then the hand
    lifts and R1 shows again. R1 never moved."""
    rest = (1740.0, 490.0)
    layout = {"W1": (1756.0, 775.0), "W2": (1778.0, 839.0), "R1": rest}
    tracker = Tracker(TABLE, start_positions=layout)
    w = [det(1756, 775, "white"), det(1778, 839, "white")]
    frames = [[*w, det(*rest, "red")]] * 12
    arm = [det(1821, 478, "red", score=0.2, piece=True), det(1816, 410, "red", score=0.45,
                                                            piece=True)]
    frames += [[*w, *arm]] * 5
    frames += [[*w, det(*rest, "red")]] * 5
    out = feed(tracker, frames)
    for r in out:
        assert math.dist(r.balls["R1"][:2], rest) < 5.0, (r.frame, r.balls["R1"])


def test_a_rolling_ball_unseen_two_frames_is_found_again_along_its_way():
    # Y rolls 60 mm a frame and is not detected in two frames (merged with another ball, or
    # too blurred): it is looked for where it should be by then, and found there.
    tracker = Tracker(TABLE, start_positions=LAYOUT)
    rest = layout_dets({b: xy for b, xy in LAYOUT.items() if b != "Y"})
    frames = [[*rest, det(*LAYOUT["Y"], "yellow")] for _ in range(12)]
    x, y = LAYOUT["Y"]
    for k in range(1, 9):
        seen = k not in (4, 5)
        frames.append([*rest, det(x + 60.0 * k, y, "yellow")] if seen else list(rest))
    out = feed(tracker, frames)
    last = out[-1].balls["Y"]
    assert last[2] and math.dist(last[:2], (x + 480.0, y)) < 1.0


def test_a_struck_ball_seen_only_as_pieces_of_a_faint_streak_is_followed():
    # W1 is struck at 250 mm a frame: too fast and faint for one blob, it shows as pieces in a
    # row, each a ball's mixture with the cloth (colour unsure); two whites touching elsewhere
    # are sure of their colour and stay two balls.
    layout = {**LAYOUT, "W2": (2800.0, 400.0)}
    tracker = Tracker(TABLE, start_positions=layout)
    rest = layout_dets({b: xy for b, xy in layout.items() if b != "W1"})
    x, y = layout["W1"]
    frames = [[*rest, det(x, y, "white")] for _ in range(12)]
    for k in (1, 2, 3):
        cx = x + 250.0 * k
        frames.append([*rest, *(det(cx + o, y, "white", score=0.6, piece=True,
                                    colour_sure=False) for o in (-90.0, -30.0, 30.0, 90.0))])
    out = feed(tracker, frames)
    bx, by, visible = out[-1].balls["W1"]
    assert visible and math.dist((bx, by), (x + 750.0, y)) < 5.0
    assert math.dist(out[-1].balls["W2"][:2], layout["W2"]) < 1.0
    # two whites touching, sure of their colour: both kept
    pair = [det(1500.0, 900.0, "white", piece=True), det(1500.0 + D, 900.0, "white", piece=True)]
    joined, _ = join_streak_pieces(tracker.setting, pair, list(tracker.states.values()))
    assert len(joined) == 2


def test_a_ball_hit_full_while_unseen_leaves_as_a_streak_of_its_own_colour():
    """W1 at 150 mm a frame hits the resting Y full. In the frame of the contact both are one
    blurred blob at Y's place; the next frames W1 lies still at the contact, and Y is a streak
    whose colour is unsure. Going straight on, W1 would be nearer Y's streak than its own
    place: the collision must send W1's prediction to the contact and Y's along the line."""
    y_rest = (1800.0, 600.0)
    tracker, still, frames = at_rest_first({"W1": (900.0, 600.0), "Y": y_rest}, ("W1", "Y"))
    for x in range(1050, 1651, 150):  # W1 rolls in, blurred; last seen 89 mm short of the touch
        frames.append([*still, det(float(x), 600, "white", streak_mm=100.0),
                       det(*y_rest, "yellow")])
    contact = y_rest[0] - D
    frames.append([*still, det(*y_rest, "white", score=0.5, streak_mm=150.0)])
    away = [y_rest[0] + (150.0 - 89.0) + 150.0 * k for k in range(1, 4)]
    for x in away:
        frames.append([*still, det(contact, 600, "white"),
                       det(x, 600, "yellow", score=0.5, streak_mm=150.0, colour_sure=False)])
    out = feed(tracker, frames) + tracker.flush()
    last = out[-1].balls
    assert abs(last["W1"][0] - contact) < 5.0 and last["W1"][2]
    assert abs(last["Y"][0] - away[-1]) < 5.0 and last["Y"][2]


def test_a_ball_hit_while_unseen_and_unseen_a_while_is_found_the_way_it_was_sent():
    """W1 hits the resting Y full and stops; Y is not seen for three frames (merged, then a
    faint blur), then clean 200 mm down the line: it is Y, sent there, not a new ball."""
    y_rest = (1800.0, 600.0)
    tracker, still, frames = at_rest_first({"W1": (1100.0, 600.0), "Y": y_rest}, ("W1", "Y"))
    for x in range(1200, 1701, 100):
        frames.append([*still, det(float(x), 600, "white"), det(*y_rest, "yellow")])
    contact = y_rest[0] - D
    frames.append([*still, det(contact + 30.0, 600, "white", score=0.5, streak_mm=100.0)])
    frames += [[*still, det(contact, 600, "white")] for _ in range(3)]
    seen = y_rest[0] + 260.0
    frames += [[*still, det(contact, 600, "white"), det(seen + 50.0 * k, 600, "yellow")]
               for k in range(2)]
    out = feed(tracker, frames) + tracker.flush()
    last = out[-1].balls
    assert abs(last["Y"][0] - (seen + 50.0)) < 5.0 and last["Y"][2]
    assert abs(last["W1"][0] - contact) < 5.0


def test_a_ball_struck_in_the_frame_shows_the_front_of_its_streak_and_is_followed_that_way():
    """As in bank_red_corner_s29: at the strike W1 is smeared over the frame into two pieces, one
    on its place and one touching it (its streak's front, a little less round). The next frame
    it is 220 mm (3.2 diameters) further that way. That front piece is the ball's, not the cue's
    tip: W1 is followed, not left at rest with the cue on the far side."""
    tracker, still, frames = at_rest_first({"W1": (1060.0, 120.0)}, ("W1",))
    frames += [[*still, det(1060, 120, "white")] for _ in range(3)]
    frames.append([*still, det(1060, 122, "white", score=0.8), det(1022, 176, "white", score=0.66)])
    frames.append([*still, det(915, 343, "white", score=0.66), det(966, 260, "white", score=0.6)])
    out = feed(tracker, frames) + tracker.flush()
    x, y, visible = out[-1].balls["W1"]
    assert visible and math.dist((x, y), (1060, 120)) > 150.0


def test_a_ball_struck_too_fast_to_be_seen_whole_is_followed_along_its_streaks_pieces():
    """As in bank_red_corner_s13: W1 at rest is struck at 7.9 m/s; in the next frame it is two
    pieces of its streak 230 and 330 mm away, in a row that points back at its place. Those are
    W1. W2, at rest behind W1 on that line but never seen (a white on a pale cloth), was not
    hit by it: W1's path is not run back to before it was struck."""
    w2 = (1190.0, 190.0)
    tracker, still, frames = at_rest_first({"W1": (1086.0, 484.0), "W2": w2}, ("W1", "W2"))
    frames = [[*still, det(1086, 484, "white")] for _ in range(15)]
    frames.append([*still, det(1009, 708, "white", score=0.6), det(969, 804, "white", score=0.5)])
    frames.append([*still, det(882, 962, "white", score=0.5, streak_mm=120.0)])
    frames.append([*still, det(780, 1084, "white", score=0.7), det(719, 1147, "white", score=0.6),
                   det(671, 1199, "white", score=0.7)])  # three pieces of it
    out = feed(tracker, frames) + tracker.flush()
    x, y, visible = out[-1].balls["W1"]
    assert visible and math.dist((x, y), (719, 1147)) < 70.0
    assert math.dist(out[-1].balls["W2"][:2], w2) < 1.0


def test_a_ball_lost_at_the_strike_is_found_again_along_streaks_drawn_its_way():
    """As bank_red_corner_s167: W1 struck at 7 m/s is lost at once (its first pictures are
    pieces, gone into a cushion); then it shows as streaks 130-190 mm long along its path,
    200 mm apart: scored as discs, 0.47-0.52. A streak drawn along the row's own way is the
    blur of that motion: W1 is found again. The same dots as round blobs that poor are not
    taken for it."""
    def run(streak: bool) -> tuple[float, float, bool]:
        tracker, still, frames = at_rest_first({"W1": (1381.0, 546.0)}, ("W1",))
        frames = [[*still, det(1381, 546, "white")] for _ in range(15)]
        frames += [list(still) for _ in range(8)]  # lost
        way = (130.0 / 197.0, -142.0 / 197.0)
        for k in range(5):
            x, y = 905.0 + 130.0 * k, 784.0 - 142.0 * k
            extra = {"streak_mm": 140.0, "streak_dir": way} if streak else {}
            frames.append([*still, det(x, y, "white", score=0.49, **extra)])
        out = feed(tracker, frames) + tracker.flush()
        return out[-1].balls["W1"]

    x, y, visible = run(streak=True)
    assert visible and math.dist((x, y), (905.0 + 520.0, 784.0 - 568.0)) < 1.0
    assert not run(streak=False)[2]


def test_a_ball_off_a_cushion_is_expected_back_the_way_it_bounced():
    """As R2 in bank_red_corner_s179: a red at 6.6 m/s (220 mm a frame) reaches the cushion
    and comes back. Its motion is predicted mirrored off the cushion's nose, so its velocity
    after the bounce points back into the table at its speed (straight on, it was predicted
    beyond the cushion, and half of that surprise left it with a third of its speed, along
    the cushion, and its next sighting beyond its reach)."""
    r = TABLE.ball_radius_mm
    wall = TABLE.width_mm - r  # the centre's limit at the cushion
    tracker, still, frames = at_rest_first({"R2": (700.0, 1000.0)}, ("R2",))
    frames = [[*still, det(700, 1000, "red")] for _ in range(15)]
    ys = [1000.0 + 220.0 * k for k in range(1, 4)]  # up to 1660, then the bounce
    ys += [2 * wall - (1000.0 + 220.0 * k) for k in range(4, 8)]
    for y in ys:
        frames.append([*still, det(700, y, "red", score=0.6, streak_mm=150.0,
                                   streak_dir=(0.0, 1.0))])
    out = feed(tracker, frames[:15 + 4])
    vy = tracker.states["R2"].vy
    assert vy < -150.0, vy  # back into the table, near its speed
    out += feed(tracker, frames[15 + 4:], first=15 + 4) + tracker.flush()
    x, y, visible = out[-1].balls["R2"]
    assert visible and math.dist((x, y), (700.0, ys[-1])) < 1.0


def test_a_ball_nudged_by_the_cue_then_struck_too_fast_to_see_is_followed_along_its_pieces():
    """As in fast_shot_s41: in the strike's frame W1 is already a short streak 8 mm off its
    place (so no longer at rest), and in the next it is three pieces of a streak in a row
    150-260 mm away, pointing back at it: W1."""
    tracker, still, frames = at_rest_first({"W1": (2301.0, 1212.0)}, ("W1",))
    frames += [[*still, det(2301, 1212, "white")] for _ in range(3)]
    frames.append([*still, det(2307, 1206, "white", score=0.7, streak_mm=20.0)])
    frames.append([*still, det(2417, 1102, "white", score=0.7), det(2468, 1057, "white"),
                   det(2518, 1014, "white", score=0.7)])
    out = feed(tracker, frames) + tracker.flush()
    x, _, visible = out[-1].balls["W1"]
    assert visible and x > 2400.0


def test_the_cue_is_on_the_side_where_most_non_balls_lie():
    """As in bank_yellow_corner_s37: in the strike's frame the cue shows as four pale pieces in
    a row behind W1, and W1's streak front as one doubtful piece on the other side. Next frame
    W1 is 260 mm away on the front's side (a doubtful colour), a cue piece 315 mm away behind:
    W1 is struck away from the cue, so it is the one in front."""
    tracker, still, frames = at_rest_first({"W1": (2503.0, 289.0)}, ("W1",))
    frames += [[*still, det(2503, 289, "white")] for _ in range(3)]
    cue = [det(2436, 197, "yellow", score=0.6, colour_sure=False),
           det(2380, 150, "red", score=0.5, colour_sure=False),
           det(2305, 101, "white", score=0.5, colour_sure=False),
           det(2236, 47, "red", score=0.3, colour_sure=False)]
    front = det(2574, 376, "red", score=0.5, colour_sure=False)
    frames.append([*still, det(2502, 289, "white", score=0.7), front, *cue])
    frames.append([*still, det(2670, 488, "red", score=0.5, colour_sure=False),
                   det(2274, 73, "red", score=0.2, colour_sure=False)])
    out = feed(tracker, frames) + tracker.flush()
    x, y, visible = out[-1].balls["W1"]
    assert visible and math.dist((x, y), (2670, 488)) < 1.0


def test_a_long_thing_aimed_at_a_resting_ball_is_the_cue_behind_it():
    """As in bank_red_corner_s71: the thin cue does not show, but the bridge hand and forearm
    along it do, as one long smeared thing (326 mm) whose middle is 365 mm from W1, beyond the
    cue's reach from a ball, and whose axis points at W1. W1, struck at 9.6 m/s, is gone next
    frame; its blurred picture is 246 mm away on the far side: W1, struck away from the cue."""
    tracker, still, frames = at_rest_first({"W1": (1723.0, 465.0)}, ("W1",))
    frames += [[*still, det(1723, 465, "white")] for _ in range(3)]
    arm = det(1878, 134, "red", score=0.13, colour_sure=False, streak_mm=326.0,
              streak_dir=(-0.24, 0.97))
    frames.append([*still, det(1723, 465, "white"), arm])
    frames.append([*still, det(1588, 671, "white", score=0.59), arm])
    frames.append([*still, det(1295, 960, "white", score=0.58), arm])
    out = feed(tracker, frames) + tracker.flush()
    x, y, visible = out[-2].balls["W1"]
    assert visible and math.dist((x, y), (1588, 671)) < 1.0
    x, y, visible = out[-1].balls["W1"]
    assert visible and math.dist((x, y), (1295, 960)) < 1.0
    # the same thing lying across the line to the ball (not aimed at it) is no cue behind it:
    # W1 stays hidden on its place
    tracker, still, frames = at_rest_first({"W1": (1723.0, 465.0)}, ("W1",))
    frames += [[*still, det(1723, 465, "white")] for _ in range(3)]
    across = det(1878, 134, "red", score=0.13, colour_sure=False, streak_mm=326.0,
                 streak_dir=(0.9, 0.44))
    frames.append([*still, det(1723, 465, "white"), across])
    frames.append([*still, det(1588, 671, "white", score=0.59), across])
    out = feed(tracker, frames) + tracker.flush()
    x, y, visible = out[-1].balls["W1"]
    assert not visible and math.dist((x, y), (1723, 465)) < 1.0


def test_a_resting_ball_under_an_arm_does_not_take_the_arm_s_streak_beside_its_place():
    """As R2 in carom_2_s61: an arm sweeps in over the resting R2, which vanishes under it; the
    arm shows as a long smeared streak (410 mm, doubtful yellow) whose middle is 155 mm from R2
    but whose axis passes 140 mm beside R2's place. A ball struck from its place is smeared
    along a line through it: R2 stays hidden where it lay. The same streak along a line through
    the place is R2's own, struck away."""
    place = (3053.0, 832.0)

    def run(streak_dir: tuple[float, float], centre: tuple[float, float]) -> tuple:
        tracker, still, frames = at_rest_first({"R2": place}, ("R2",))
        frames += [[*still, det(*place, "red")] for _ in range(3)]
        arm = det(*centre, "yellow", score=0.42, colour_sure=False, streak_mm=410.0,
                  streak_dir=streak_dir)
        frames.append([*still, arm])
        out = feed(tracker, frames) + tracker.flush()
        return out[-1].balls["R2"]

    x, y, visible = run((0.0, 1.0), (3193.0, 768.0))
    assert not visible and math.dist((x, y), place) < 1.0
    along = (3193.0 - place[0], 768.0 - place[1])
    n = math.hypot(*along)
    x, y, visible = run((along[0] / n, along[1] / n), (3193.0, 768.0))
    assert visible and math.dist((x, y), (3193.0, 768.0)) < 1.0


def test_a_ball_hidden_under_the_cue_does_not_take_a_faint_piece_of_it():
    """As in safety_s23: the cue and arm come in over the resting R1, which vanishes under them;
    faint pale pieces of the cue (score 0.3, no streak) lie in a row 110-330 mm from it. R1 is
    hidden where it was, not carried along the cue."""
    rest = (2288.0, 1443.0)
    tracker, still, frames = at_rest_first({"R1": rest}, ("R1",))
    frames += [[*still, det(*rest, "red")] for _ in range(3)]
    cue = [det(2183, 1481, "white", score=0.3, colour_sure=False),
           det(2126, 1539, "white", score=0.3, colour_sure=False),
           det(2077, 1612, "white", score=0.3, colour_sure=False)]
    frames += [[*still, *cue] for _ in range(4)]
    out = feed(tracker, frames) + tracker.flush()
    x, y, visible = out[-1].balls["R1"]
    assert not visible and math.dist((x, y), rest) < 1.0


@pytest.mark.xfail(strict=True, reason="known: a resting ball takes a piece of the cue that came "
                   "over it (scratch_pocket_s71). Tried (2026-11-30): no leaving toward the cue "
                   "behind a resting or hidden ball. On the side of the cue (a half-plane) it won "
                   "scratch_pocket_s71 and lost nothing on the synthetic sets once a ball hit by "
                   "a ball was left out, but on the club footage 48 of 60 balls by id (53) and 5 "
                   "of 8 pots (8): strikes timed early; within 30 degrees of a cue of two things "
                   "or more: 52 of 60 and 7 of 8; not merged. Since 2026-11-30 (late) the ball "
                   "goes back to its place when it shows there clean before the strike "
                   "(scratch_pocket_s71 right): while the cue lies over it, it still follows")
def test_a_resting_ball_does_not_follow_the_cue_that_came_over_it():
    """As in scratch_pocket_s71: the pale cue comes in over W1's side; W1, merged with its tip,
    is not seen, and the nearest of the cue's pieces lies 70 mm from W1's place, toward the
    cue. A ball struck leaves away from the cue: W1 stays where it rested (it had followed the
    cue's pieces for 23 frames before the strike)."""
    rest = (3157.0, 398.0)
    tracker, still, frames = at_rest_first({"W1": rest}, ("W1",))
    cue = [det(3057, 497, "white", score=0.33), det(2891, 668, "white", score=0.47),
           det(3012, 582, "yellow", score=0.48)]
    frames += [[*still, det(3162, 401, "white", score=0.47), *cue] for _ in range(2)]
    frames += [[*still, det(3105, 446, "white", score=0.34), *cue[:2]]]
    frames += [[*still, det(3069, 489, "white", score=0.3), *cue] for _ in range(3)]
    out = feed(tracker, frames) + tracker.flush()
    for r in out:
        assert math.dist(r.balls["W1"][:2], rest) < 10.0, (r.frame, r.balls["W1"])


def test_a_resting_red_does_not_take_a_piece_of_the_cue_arriving_over_it():
    """As in scratch_pocket_s71: the cue comes in over the resting R1 in one frame (nothing lay
    by R1 the frame before, so no cue is known yet); R1 vanishes under it, and the cue shows as
    pale pieces in a row, the nearest 70 mm from R1. A sharp piece of another colour, not
    ball-like, is no ball leaving its place: R1 stays put (else a phantom strike)."""
    rest = (2926.0, 740.0)
    tracker, still, frames = at_rest_first({"R1": rest}, ("R1",))
    cue = [det(x, y, "white", score=sc, colour_sure=False) for x, y, sc in (
        (2890, 681, 0.31), (2838, 734, 0.38), (2793, 782, 0.37), (2749, 832, 0.35))]
    frames += [[*still, *cue] for _ in range(3)]
    frames += [[*still, det(*rest, "red"), *cue] for _ in range(3)]
    out = feed(tracker, frames) + tracker.flush()
    for r in out:
        assert math.dist(r.balls["R1"][:2], rest) < 10.0, (r.frame, r.balls["R1"])


def test_a_ball_hidden_under_the_cue_does_not_take_the_faint_cue_and_ball_as_one():
    """As in pot_HL_s79: the cue comes over the resting R1, which is unseen for a frame; then
    the cue and the red under it show as one faint, not ball-like thing of no sure colour 29
    and 51 mm off R1's place. A hidden ball is where it was last seen: the thing is the cue
    (taking it, R1 jumped about and the shot got a phantom strike of R1)."""
    rest = (888.0, 888.0)
    tracker, still, frames = at_rest_first({"R1": rest}, ("R1",))
    frames.append(list(still))
    frames.append([*still, det(909.0, 908.0, "white", score=0.21, colour_sure=False)])
    frames.append([*still, det(924.0, 923.0, "white", score=0.26, colour_sure=False)])
    frames += [[*still, det(*rest, "red")] for _ in range(3)]
    out = feed(tracker, frames) + tracker.flush()
    for r in out:
        assert math.dist(r.balls["R1"][:2], rest) < 10.0, (r.frame, r.balls["R1"])


def test_a_ball_hidden_under_an_arm_does_not_take_a_row_of_pieces_of_another_balls_colour():
    """As in hidden_under_arm_s79: Y is under the player's arm; the pale cue shows as four
    pieces in a row pointing back at Y's place, 310-630 mm away, each sure to be white. A
    yellow ball's streak is yellow or a mixture with the cloth, not white: Y stays hidden
    where it was (taking them, Y was struck before the strike)."""
    cue = [det(x, y, "white", score=sc, piece=True) for x, y, sc in (
        (2515, 476, 0.34), (2464, 398, 0.37), (2408, 312, 0.43), (2345, 212, 0.37))]
    assert_y_stays_hidden_by((2678.0, 744.0), cue, hidden_frames=4)


def assert_y_stays_hidden_by(rest: tuple[float, float], cue: list[Detection],
                             hidden_frames: int) -> None:
    """Y at rest, then unseen for ``hidden_frames``, then unseen with ``cue`` lying by it for
    four frames: Y is reported at its place throughout."""
    tracker, still, frames = at_rest_first({"Y": rest}, ("Y",))
    frames += [list(still) for _ in range(hidden_frames)]
    frames += [[*still, *cue] for _ in range(4)]
    out = feed(tracker, frames) + tracker.flush()
    for r in out:
        assert math.dist(r.balls["Y"][:2], rest) < 10.0, (r.frame, r.balls["Y"])


def test_a_ball_hidden_under_the_cue_does_not_take_its_pieces_read_as_white_and_cloth():
    """As in scratch_pocket_s83: Y vanishes under the pale cue, whose pieces lie in a row
    pointing back at Y's place, the nearest 110 mm away, read as white mixed with the cloth
    (not sure of their colour). A yellow's streak is yellow mixed with the cloth: Y stays."""
    cue = [det(x, y, "white", score=sc, colour_sure=False) for x, y, sc in (
        (2704, 899, 0.24), (2751, 849, 0.36), (2828, 761, 0.34), (2944, 633, 0.31))]
    assert_y_stays_hidden_by((2615.0, 963.0), cue, hidden_frames=1)


def test_a_resting_ball_that_followed_an_arm_is_back_on_its_place_when_seen_there_clean():
    """As in touching_whites_s61: the player's arm (a red sleeve) comes down over the resting
    R1, which vanishes under it; R1 takes a faint red piece of the arm 80 mm away. Four frames
    later R1 shows clean on its place again, with the arm's piece still there: R1 never left,
    and is back there at once (not held on the arm until the shot)."""
    rest = (1740.0, 490.0)
    tracker, still, frames = at_rest_first({"R1": rest}, ("R1",))
    arm = [det(1821.0, 478.0, "red", score=0.21, piece=True),
           det(1816.0, 410.0, "red", score=0.49, piece=True),
           det(1807.0, 327.0, "red", score=0.38, piece=True)]
    frames += [[*still, *arm] for _ in range(4)]
    frames += [[*still, *arm, det(*rest, "red", score=0.8)] for _ in range(20)]
    out = feed(tracker, frames) + tracker.flush()
    for r in out[-20:]:
        assert math.dist(r.balls["R1"][:2], rest) < 10.0, (r.frame, r.balls["R1"])


def test_a_ball_struck_away_from_the_cue_is_not_the_cue_tip():
    """Behind the resting W1 the cue's tip shows as a white blob 110 mm away for a few frames.
    W1 is struck away from it at 150 mm a frame, seen as two pieces of its streak: W1 is the
    nearer piece, not the tip (which was there already, nearer to W1's place)."""
    tracker, still, frames = at_rest_first({"W1": (1500.0, 800.0)}, ("W1",))
    tip = det(1390.0, 800.0, "white", score=0.5)
    frames += [[*still, det(1500, 800, "white"), tip] for _ in range(3)]
    for k in (1, 2):
        x = 1500.0 + 150.0 * k
        frames.append([*still, tip, det(x - 35.0, 800.0, "white", piece=True),
                       det(x + 35.0, 800.0, "white", piece=True)])
    out = feed(tracker, frames) + tracker.flush()
    x, _, visible = out[-1].balls["W1"]
    assert visible and abs(x - 1800.0) < 40.0


def test_a_ball_struck_too_hard_to_be_seen_is_found_again_the_way_the_cue_sent_it():
    """The cue lies 250 mm behind the resting W1 (a long blob); W1 is struck at 280 mm a frame
    and not seen for two frames, then seen 840 mm away, straight away from the cue: W1, not a
    new ball (and never the cue)."""
    tracker, still, frames = at_rest_first({"W1": (1500.0, 800.0)}, ("W1",))
    cue = det(1250.0, 800.0, "red", score=0.3, streak_mm=190.0, colour_sure=False)
    frames += [[*still, det(1500, 800, "white"), cue] for _ in range(2)]
    frames += [[*still, cue] for _ in range(2)]
    frames += [[*still, cue, det(1500.0 + 280.0 * k, 800.0, "white", score=0.6)]
               for k in (3, 4)]
    out = feed(tracker, frames) + tracker.flush()
    x, _, visible = out[-1].balls["W1"]
    assert visible and abs(x - 2620.0) < 5.0
    assert all(abs(r.balls["W1"][0] - 1250.0) > 100.0 for r in out if "W1" in r.balls)


def test_a_ball_held_on_the_bridge_hand_follows_its_streak_leaving_its_place():
    """video_9_0056_0101: the bridge hand and the cue lie over the resting W1's place once it
    is struck, and their faint pieces, 30 mm off, hold its id; W1 itself shows only as a faint
    streak 290 mm long, on its line from the place and already 700 mm away, rolling on at
    250 mm a frame. W1 is the streak, not the hand."""
    tracker, still, frames = at_rest_first({"W1": (1500.0, 800.0)}, ("W1",))
    hand = det(1480.0, 822.0, "white", score=0.33)
    frames += [[*still, det(1500, 800, "white")] for _ in range(3)]
    frames += [[*still, hand] for _ in range(3)]
    frames += [[*still, hand, det(2200.0 + 250.0 * k, 800.0 + 20.0 * k, "white", score=0.46,
                                  streak_mm=290.0, streak_dir=(1.0, 0.0), colour_sure=False)]
               for k in range(3)]
    out = feed(tracker, frames) + tracker.flush()
    x, y, visible = out[-1].balls["W1"]
    assert visible and math.dist((x, y), (2700.0, 840.0)) < 5.0
    # and a faint piece of a projected line just past the place, along its line, is not W1
    tracker, still, frames = at_rest_first({"W1": (1500.0, 800.0)}, ("W1",))
    frames += [[*still, det(1500, 800, "white")] for _ in range(3)]
    frames += [[*still, hand, det(1500.0 + 190.0, 800.0, "white", score=0.33,
                                  streak_mm=190.0, streak_dir=(1.0, 0.0))] for _ in range(3)]
    out = feed(tracker, frames) + tracker.flush()
    assert math.dist(out[-1].balls["W1"][:2], (1500.0, 800.0)) < 40.0


def test_a_ball_seen_whole_at_rest_does_not_leap_to_a_faint_sharp_thing_two_balls_off():
    """video_9_0056_0101 without the game state: in the first picture after the strike the
    white is gone from its place (joined to the cue's follow through), and a faint, sharp piece
    of the bridge hand lies 1.9 diameters back toward the player. A ball that got there in one
    picture would be a streak: W1 is not the hand; it is unseen."""
    tracker = Tracker(TABLE)
    w1, hand = det(1500.0, 800.0, "white"), det(1500.0 - 1.9 * D, 780.0, "white", score=0.26)
    red = det(2500.0, 400.0, "red")
    out = feed(tracker, [[w1, red]] * 12 + [[hand, red]]) + tracker.flush()
    ball = next(b for b, (x, y, _) in out[0].balls.items() if b[0] == "W")
    assert out[-2].balls[ball][2] and not out[-1].balls[ball][2]
    assert math.dist(out[-1].balls[ball][:2], (1500.0, 800.0)) < 1.0


def test_a_rolling_ball_stopped_where_its_streaks_front_was_left_is_not_barred_there():
    """video_9_0056_0101: a projected ring lies by the red. The struck white's last picture in
    its roll is a streak in two pieces: its front, over the ring (so taken for the ring, a
    thing that lay there), and its tail, which the id took. Then it stops where the front
    was. A piece of its colour left just ahead on its way was its own front, not a thing
    lying there: W1 is the ball at rest there."""
    tracker, still, frames = at_rest_first({"W1": (1500.0, 800.0)}, ("W1",))
    ring = det(1915.0, 800.0, "white", score=0.4)
    frames = [[*f, ring] for f in frames]
    frames += [[*still, ring, det(1500.0 + 100.0 * k, 800.0, "white", score=0.75)]
               for k in range(4)]
    frames.append([*still, det(1830.0, 800.0, "white", score=0.76),
                   det(1912.0, 800.0, "white", score=0.66)])
    frames += [[*still, det(1914.0, 801.0, "white", score=0.72)] for _ in range(3)]
    out = feed(tracker, frames) + tracker.flush()
    for r in out[-3:]:  # from the first frame it lies there
        x, y, visible = r.balls["W1"]
        assert visible and math.dist((x, y), (1914.0, 801.0)) < 1.0


def test_a_resting_ball_read_with_a_line_through_it_as_one_streak_stays_in_its_place():
    """video_13_0030_0034: a projected line runs through the resting white, and ball and line
    are read as one 410 mm streak whose middle lies 30-40 mm off the ball. W1 stays where it
    lies; and a ball struck from its place, its streak starting there, follows the streak."""
    for start, moved in ((1500.0 - 40.0, False), (1500.0 + 205.0 - 30.0, True)):
        tracker, still, frames = at_rest_first({"W1": (1500.0, 800.0)}, ("W1",))
        frames += [[*still, det(1500.0, 800.0, "white")] for _ in range(3)]
        frames.append([*still, det(start, 810.0, "white", score=0.72, streak_mm=410.0,
                                   streak_dir=(1.0, 0.0))])
        out = feed(tracker, frames) + tracker.flush()
        x, y, visible = out[-1].balls["W1"]
        assert visible and math.dist((x, y), (start, 810.0) if moved else (1500.0, 800.0)) < 1.0


def test_one_misread_of_a_resting_whites_dots_repeated_frame_after_frame_is_one_look():
    # W1 at rest by the cushion: its one dot read as W2's pair by the cushion's shadow. The
    # detector gives the same detection while the picture there does not change; counted every
    # frame, a hundred frames of it outvoted W2's real dots and swapped the whites.
    tracker = Tracker(TABLE, start_positions=LAYOUT)
    misread = det(*LAYOUT["W1"], "white", score=0.9, dots=2)
    others = [det(x, y, c) for b, (x, y) in LAYOUT.items() for c in [
        {"R1": "red", "R2": "red", "Y": "yellow"}.get(b)] if c]
    out = feed(tracker, [[misread, det(*LAYOUT["W2"], "white", score=0.9, dots=1), *others]
                         for _ in range(100)])
    assert math.dist(out[-1].balls["W1"][:2], LAYOUT["W1"]) < 1.0


def test_whites_named_by_the_game_state_and_never_near_each_other_keep_their_names():
    # scratch_pocket_s73 (blue cloth): W1's one dot read as a pair and W2's pair as one dot, in
    # a new detection every frame, for 25 frames before the strike; the dots swapped the whites
    # and the strike was W2's. Named by where they were left, and never near each other since,
    # the whites cannot have been mixed up: continuity names them, not the dots.
    others = [det(x, y, c) for b, (x, y) in LAYOUT.items() for c in [
        {"R1": "red", "R2": "red", "Y": "yellow"}.get(b)] if c]
    tracker = Tracker(TABLE, start_positions=LAYOUT)
    out = feed(tracker, [[det(*LAYOUT["W1"], "white", score=0.9, dots=2),
                          det(*LAYOUT["W2"], "white", score=0.9, dots=1), *others]
                         for _ in range(100)])
    assert math.dist(out[-1].balls["W1"][:2], LAYOUT["W1"]) < 1.0
    assert tracker.whites_known


def test_whites_that_came_near_each_other_are_named_by_the_dots_seen_after():
    # W2 rolls up next to W1 and stops (the tracker may have mixed them up there); then the
    # dots, in new looks frame after frame, say the ball at W1's place is W2: they swap.
    others = [det(x, y, c) for b, (x, y) in LAYOUT.items() for c in [
        {"R1": "red", "R2": "red", "Y": "yellow"}.get(b)] if c]
    w1 = LAYOUT["W1"]
    stop = (w1[0] + 1.8 * D, w1[1])
    start = LAYOUT["W2"]
    n = 50
    rolling = [(start[0] + (stop[0] - start[0]) * k / n, start[1] + (stop[1] - start[1]) * k / n)
               for k in range(n + 1)]
    tracker = Tracker(TABLE, start_positions=LAYOUT)
    frames = [[det(*w1, "white", score=0.9), det(*p, "white", score=0.9), *others]
              for p in rolling]
    frames += [[det(*w1, "white", score=0.9, dots=2),
                det(*stop, "white", score=0.9, dots=1), *others] for _ in range(60)]
    out = feed(tracker, frames)
    assert not tracker.whites_known
    assert math.dist(out[-1].balls["W1"][:2], stop) < 1.0, "the dots swap the whites"
    assert math.dist(out[-1].balls["W2"][:2], w1) < 1.0


def test_a_ball_dropping_in_a_mouth_does_not_take_a_mark_of_another_colour_on_the_table():
    """As in the real footage (video_1): the red creeps into ML's mouth, its centre past the
    cushion's nose, and vanishes; a projected mark (white, doubtful) lies 90 mm back on the
    cloth. The red is pocketed where it vanished, not carried back onto the table."""
    L, W = TABLE.length_mm, TABLE.width_mm
    layout = {"W1": (800.0, 900.0), "R1": (L / 2 - 30, W - 60)}
    tracker = Tracker(TABLE, start_positions=layout)
    w1 = det(800, 900, "white")
    frames = [[w1, det(*layout["R1"], "red")]] * 12
    frames += [[w1, det(L / 2 - 30 + 5 * k, W - 60 + 8 * k, "red", score=0.6)]
               for k in range(1, 8)]  # into the mouth: the centre 0.8 of a radius past the nose
    mark = det(L / 2, W - 95, "white", score=0.4, colour_sure=False)
    frames += [[w1, mark]] * 8
    out = feed(tracker, frames)
    assert "R1" not in out[-1].balls, "pocketed"
    assert all("R1" not in r.balls or r.balls["R1"][1] >= W - 60 for r in out[12:]), "never back"


def test_a_ball_lost_from_view_is_found_again_rolling_where_nothing_is_tracked():
    # W1 is struck too hard to be followed (gone from its place into a blur and a collision)
    # and reappears far away, rolling: three sightings in a row at a steady step make it W1
    # again, while the other white stays where it is
    tracker, still, frames = at_rest_first({"W1": (800.0, 900.0)}, moving=("W1",))
    frames += [still] * 4  # W1 unseen
    rolling = [(2000.0 + 120.0 * k, 500.0 + 60.0 * k) for k in range(6)]
    frames += [[*still, det(x, y, "white", score=0.75)] for x, y in rolling]
    out = feed(tracker, frames)
    by_frame = {r.frame: r for r in out + tracker.flush()}
    last = by_frame[len(frames) - 1]
    x, y, visible = last.balls["W1"]
    assert visible and math.dist((x, y), rolling[-1]) < 1.0
    assert last.balls["W2"][:2] == OTHERS["W2"]
    # not before the third sighting in a row
    assert not by_frame[12 + 4 + 1].balls["W1"][2]


def test_the_cue_following_through_beside_the_struck_ball_is_not_that_ball_rolling():
    """As in bank_red_corner_s131: W1 is struck at 12 m/s and not seen again for two frames;
    the pale cue (read as white, ball-like) was seen beside it as it lay, and follows through
    toward its place in a row of steady steps. That row began while W1 was still seen at its
    place: it is something else, not W1 rolling. W1 is the streak found further on."""
    w1 = (1110.0, 330.0)
    tracker, still, frames = at_rest_first({"W1": w1}, moving=("W1",))
    cue = [(1238.0, 82.0), (1228.0, 96.0), (1205.0, 112.0), (1190.0, 125.0)]
    frames[-1] = [*frames[-1], det(*cue[0], "white", score=0.74)]  # W1 still seen, the cue by it
    frames += [[*still, det(*xy, "white", score=0.7)] for xy in cue[1:]]  # W1 unseen, struck
    out = feed(tracker, frames) + tracker.flush()
    by_frame = {r.frame: r for r in out}
    for f in (12, 13, 14):
        x, y, _ = by_frame[f].balls["W1"]
        assert math.dist((x, y), w1) < 1.0, f


def test_two_whites_touching_seen_as_one_streak_stay_in_their_places():
    """As in touching_whites_s127 (a grey cloth): W1 and W2 rest touching; from the tenth
    frame their blob, with their shadows, is as wide all along as a streak and is read as one
    (121 mm long, along their line, at their middle). It is the two of them: both stay where
    they lie, seen, and neither takes a white thing by the cue's tip 250 mm away."""
    w1, w2 = (2095.0, 740.0), (2074.0, 676.0)
    tracker, still, frames = at_rest_first({"W1": w1, "W2": w2}, moving=("W1", "W2"))
    ux, uy = (w1[0] - w2[0]) / 67.4, (w1[1] - w2[1]) / 67.4
    pair = det(2084.0, 706.0, "white", score=0.36, streak_mm=121.0, streak_dir=(ux, uy))
    frames += [[*still, pair]] * 5 + [[*still, pair, det(2334.0, 816.0, "white", score=0.33)]] * 5
    out = feed(tracker, frames) + tracker.flush()
    for r in out[12:]:
        for ball, place in (("W1", w1), ("W2", w2)):
            x, y, visible = r.balls[ball]
            assert visible and math.dist((x, y), place) < 1.0, (r.frame, ball)


def test_a_ball_lost_from_view_is_found_again_rolling_slowly_after_a_hit():
    # As W1 in fast_shot_s23: struck at 6 m/s, unseen for three frames (too fast to be
    # detected), it hits R1 and is found again rolling slowly, 10 mm a frame, 550 mm from its
    # place. It is W1 from the third sighting in a row, not only once it stops a second later.
    tracker, still, frames = at_rest_first({"W1": (2561.0, 950.0)}, moving=("W1",))
    frames += [still] * 3
    rolling = [(2967.0 + 10.5 * k, 583.0 - 0.3 * k) for k in range(8)]
    frames += [[*still, det(x, y, "white", score=0.8)] for x, y in rolling]
    out = feed(tracker, frames) + tracker.flush()
    by_frame = {r.frame: r for r in out}
    for k in range(2, 8):
        x, y, visible = by_frame[12 + 3 + k].balls["W1"]
        assert visible and math.dist((x, y), rolling[k]) < 1.0, k


def test_a_resting_thing_that_jitters_is_not_a_lost_ball_rolling_slowly():
    # a white thing lying still (a hand on the cloth), its centre jittering 3 mm frame to
    # frame: no steady step of a rolling ball, so not the lost W1
    tracker, still, frames = at_rest_first({"W1": (800.0, 900.0)}, moving=("W1",))
    frames += [still] * 4
    jitter = [(2000.0 + dx, 500.0 + dy) for dx, dy in ((0, 0), (3, 1), (0, 3), (3, -1),
                                                        (-1, 2), (2, 0))]
    frames += [[*still, det(x, y, "white", score=0.75)] for x, y in jitter]
    out = feed(tracker, frames) + tracker.flush()
    assert not out[-1].balls["W1"][2]


def test_a_hand_moving_about_is_not_a_lost_ball_found_again():
    # white-ish things that do not roll at a steady step (a hand moving about) are no ball
    tracker, still, frames = at_rest_first({"W1": (800.0, 900.0)}, moving=("W1",))
    frames += [still] * 4
    wander = [(2000.0, 500.0), (2150.0, 520.0), (2200.0, 700.0), (2450.0, 650.0),
              (2500.0, 900.0), (2700.0, 880.0)]
    frames += [[*still, det(x, y, "white", score=0.75)] for x, y in wander]
    out = feed(tracker, frames) + tracker.flush()
    assert not out[-1].balls["W1"][2]


def test_a_hand_resting_on_the_cloth_is_not_the_ball_just_pocketed_put_back():
    # As in bank_red_corner_s43: the bridge hand, skin-white and still, lies on the cloth all
    # along; W1 drops into a pocket. A ball cannot be back from a pocket within a second, and
    # what was there before it dropped is not it: W1 stays off the table.
    layout = {"W1": (1000.0, 900.0), "W2": (3000.0, 900.0)}
    tracker = Tracker(TABLE, start_positions=layout)
    hand = det(1671, 243, "white", score=0.7)
    w2 = det(3000, 900, "white")
    frames = [[det(1000, 900, "white"), w2, hand]] * 12
    frames += [[det(1000 - 200 * k, 900 + 170 * k, "white", streak_mm=150), w2, hand]
               for k in range(1, 5)]  # rolling into the head-left pocket
    frames += [[w2, hand]] * 14
    out = feed(tracker, frames)
    assert "W1" not in out[-1].balls or not out[-1].balls["W1"][2]


def test_a_ball_hidden_under_an_arm_does_not_follow_a_faint_smear_of_the_arm():
    # As Y in hidden_under_arm_s53: the arm covers the yellow; a piece of the moving arm is
    # seen as a faint streak (ball-likeness 0.1) a few diameters away. A ball struck from its
    # place leaves a streak scoring 0.5-0.8: this one is not the yellow, which stays where it
    # was, unseen, and is seen there again when the arm goes.
    y = (2811.0, 810.0)
    tracker, still, frames = at_rest_first({"Y": y}, moving=("Y",))
    frames += [still] * 2
    frames += [[*still, det(2613.0, 618.0, "red", score=0.1, streak_mm=120.0)]] * 6
    frames += [[*still, det(*y, "yellow")]] * 4
    out = feed(tracker, frames) + tracker.flush()
    by_frame = {r.frame: r for r in out}
    for f in range(14, 20):
        assert math.dist(by_frame[f].balls["Y"][:2], y) < 1.0, f
    assert by_frame[len(frames) - 1].balls["Y"][2]


def test_a_long_thing_reaching_over_a_resting_ball_lies_on_the_side_of_its_middle():
    """A smeared arm 400 mm long whose middle lies 100 mm from W1, aimed along the line to it:
    its near end, 200 mm from its middle, would lie 100 mm past W1 on the far side. The cue
    behind W1 is on the side of the thing's middle, half a ball from W1 at the nearest."""
    tracker = Tracker(TABLE, start_positions=LAYOUT)
    feed(tracker, [layout_dets()] * 12)
    w1 = tracker.states["W1"]
    arm = det(w1.x + 100.0, w1.y, "red", score=0.1, colour_sure=False, streak_mm=400.0,
              streak_dir=(1.0, 0.0))
    x, y = nearest_end(tracker.setting, w1, arm)
    assert x == pytest.approx(0.5 * D) and y == pytest.approx(0.0)
    far = det(w1.x - 365.0, w1.y, "red", score=0.1, colour_sure=False, streak_mm=326.0,
              streak_dir=(-1.0, 0.0))
    x, y = nearest_end(tracker.setting, w1, far)
    assert x == pytest.approx(-365.0 + 163.0) and y == pytest.approx(0.0)


def test_the_other_white_in_hand_is_not_on_the_table_before_the_shooters_shot_is_over():
    # The opening: both whites in hand, the shooter (W1) placed his in the house. A clean white
    # thing in the house (a shadow's edge, a hand) is not W2 while W1's shot is played; once
    # every ball is at rest again, a white put down there is W2, placed from hand.
    on_table = {b: xy for b, xy in LAYOUT.items() if b != "W2"}
    other = det(450.0, 400.0, "white", score=0.7)
    tracker = Tracker(TABLE, cue_ball="W1", start_positions=on_table)
    frames = [[*layout_dets(on_table), other] for _ in range(30)]
    x, y = on_table["W1"]
    still = [d for d in layout_dets(on_table) if d.colour != "white"]
    for k in range(1, 16):  # W1 struck toward the foot, 40 mm a frame
        frames.append([*still, det(x + 40.0 * k, y, "white"), other])
    frames += [[*still, det(x + 600.0, y, "white"), other] for _ in range(30)]
    out = feed(tracker, frames)
    assert all("W2" not in r.balls for r in out[:45])
    assert "W2" in out[-1].balls
    assert math.dist(out[-1].balls["W2"][:2], (450.0, 400.0)) < 1.0


def test_two_balls_close_together_read_as_one_blob_between_them_are_neither_seen_there():
    """As in carom_1_s149: W1 rolls slowly up to Y at rest and hits it; in the frame they touch
    the two are read as one poor streak at their middle (yellow), Y unseen. Neither ball is
    seen there (W1 taking it put it 41 mm off its way, toward Y: a false second contact); each
    is followed on from its next clean sighting."""
    y_rest = (3260.0, 1168.0)
    layout = {**OTHERS, "W1": (3372.0, 1302.0), "Y": y_rest}
    tracker = Tracker(TABLE, start_positions=layout)
    rest = layout_dets({b: xy for b, xy in layout.items() if b not in ("W1", "Y")})
    frames = [[*rest, det(3372.0, 1302.0, "white"), det(*y_rest, "yellow")]] * 12

    def w1(k: int) -> tuple[float, float]:  # 12 mm a frame toward Y, to 71 mm off it at k = 9
        return 3372.0 - 7.0 * k, 1302.0 - 9.0 * k

    frames += [[*rest, det(*w1(k), "white"), det(*y_rest, "yellow")] for k in range(1, 10)]
    middle = ((w1(10)[0] + y_rest[0]) / 2, (w1(10)[1] + y_rest[1]) / 2)
    frames.append([*rest, det(*middle, "yellow", score=0.28, streak_mm=104.0,
                              streak_dir=(0.6, 0.8))])
    frames += [[*rest, det(3304.0 - 2.0 * k, 1217.0 - 3.0 * k, "white"),
                det(3254.0 - 7.0 * k, 1158.0 - 6.0 * k, "yellow")] for k in range(4)]
    out = feed(tracker, frames)
    at = {r.frame: r.balls for r in out}
    touch = 12 + 9
    assert not at[touch]["W1"][2] and not at[touch]["Y"][2]
    assert math.dist(at[touch + 1]["W1"][:2], (3304.0, 1217.0)) < 1.0


def test_a_struck_ball_unseen_does_not_take_a_piece_that_stayed_put_behind_it():
    """As in bank_red_corner_s191: the bridge hand shows as a red piece 240 mm behind the
    resting W1, frame after frame. As W1 is struck, its front shows as a pale white piece
    (taken for the cue, so the hand lies 'away from the cue'); next frame W1 is unseen. The
    piece that stayed put is no ball that left its place: W1 is not there."""
    w1 = (1255.0, 252.0)
    tracker, still, frames = at_rest_first({"W1": w1}, ("W1",))
    hand = det(1346.0, 31.0, "red", score=0.41, piece=True)
    frames += [[*still, det(*w1, "white"), hand] for _ in range(3)]
    frames.append([*still, det(1260.0, 263.0, "white", score=0.56),
                   det(1219.0, 325.0, "white", score=0.59), hand])
    frames.append([*still, hand])
    frames += [[*still, hand, det(1118.0 - 190.0 * k, 475.0 + 210.0 * k, "white", score=0.6)]
               for k in (1, 2, 3)]
    out = feed(tracker, frames) + tracker.flush()
    assert all(math.dist(r.balls["W1"][:2], (hand.x_mm, hand.y_mm)) > D
               for r in out if "W1" in r.balls)
    x, y, visible = out[-1].balls["W1"]
    assert visible and math.dist((x, y), (1118.0 - 570.0, 475.0 + 630.0)) < 5.0


def test_a_cue_ball_lost_while_rolling_on_the_opening_shot_is_not_taken_for_the_white_in_hand():
    """As opening_yellow_first_s211: W1 (the shooter's; W2 still in hand) is lost from view on
    its way (a white on a pale cloth), and seen again rolling slowly far on. Lost while rolling,
    it was not at rest, so the shot was not over and W2 could not have been placed: the white
    seen is W1."""
    layout = {"W1": (300.0, 300.0), "R1": (887.5, 887.5), "Y": (1775.0, 887.5),
              "R2": (2662.5, 887.5)}
    tracker = Tracker(TABLE, cue_ball="W1", start_positions=layout)
    still = [det(*layout[b], colour) for b, colour in (("R1", "red"), ("Y", "yellow"),
                                                       ("R2", "red"))]
    frames = [[*still, det(300, 300, "white")]] * 12
    frames += [[*still, det(300 + 35 * k, 300 + 14 * k, "white")] for k in range(1, 20)]
    frames += [still] * 40  # lost on its way
    # (too slow a roll to be found again by its steps: seen in place, picked up)
    frames += [[*still, det(2000 + 5 * k, 900 + k, "white")] for k in range(20)]
    frames += [[*still, det(2095, 919, "white")]] * 20  # ... and at rest there
    out = feed(tracker, frames) + tracker.flush()
    assert "W2" not in out[-1].balls
    assert math.dist(out[-1].balls["W1"][:2], (2095, 919)) < 1.0


def test_before_the_cue_ball_is_struck_a_resting_ball_does_not_walk_off_onto_a_forearm():
    """As R1 in scratch_pocket_s199: the player's arm comes down over R1, and a reddish piece of
    the forearm shows 60 mm from R1's place while R1 is unseen. Before the cue ball is struck
    no other ball moves: R1 stays on its place (followed onto the arm, it was given the
    strike)."""
    layout = {"W1": (3291.0, 259.0), "R1": (3022.0, 767.0), "Y": (1775.0, 887.5)}
    tracker = Tracker(TABLE, cue_ball="W1", start_positions=layout)
    w1, y = det(3291, 259, "white"), det(1775, 887.5, "yellow")
    frames = [[w1, y, det(3022, 767, "red")]] * 12
    frames += [[w1, y, det(3033, 708, "red", score=0.38)]] * 15
    out = feed(tracker, frames) + tracker.flush()
    assert all(math.dist(r.balls["R1"][:2], layout["R1"]) < 1.0 for r in out)


def test_a_fast_ball_unseen_a_frame_does_not_take_a_thing_that_stayed_put_far_off():
    """As in bank_red_corner_s251: W1 rolls 400 mm a frame, is unseen a frame (too blurred),
    and the bridge hand, a faint white thing that has lain still 1.2 m away all along, is
    within the wide gate of a fast ball unseen. A ball rolling that fast does not stop dead
    unseen; the thing that stayed put is not W1."""
    w1 = (800.0, 900.0)
    tracker, still, frames = at_rest_first({"W1": w1}, ("W1",))
    hand = det(1250.0, 120.0, "white", score=0.36)
    frames += [[*still, det(*w1, "white"), hand] for _ in range(3)]
    frames += [[*still, det(w1[0] + 400.0 * k, w1[1] - 150.0 * k, "white", score=0.6), hand]
               for k in (1, 2, 3)]
    frames += [[*still, hand], [*still, hand]]
    out = feed(tracker, frames) + tracker.flush()
    assert all(math.dist(r.balls["W1"][:2], (hand.x_mm, hand.y_mm)) > D
               for r in out if "W1" in r.balls)


def test_two_whites_meeting_read_as_two_faint_pieces_are_both_seen_where_expected():
    """As in carom_2_s251: W1 rolls 21 mm a frame into W2 at rest. In the frame they touch,
    each is read as a faint piece of unsure colour pulled a little toward the other, 72 mm
    apart: like two pieces of a streak, but each where its ball is expected. Both balls are
    seen there (joined, neither was seen at the contact, and the carom was lost)."""
    w1, w2 = (3200.0, 1400.0), (3474.0, 1411.0)
    tracker, still, frames = at_rest_first({"W1": w1, "W2": w2}, ("W1",))
    frames += [[*still, det(w1[0] + 21.0 * k, w1[1], "white")] for k in range(1, 10)]
    touch = (w1[0] + 21.0 * 10, w1[1])  # 64 mm from W2's centre
    others = [d for d in still if (d.x_mm, d.y_mm) != w2]
    frames.append([*others,
                   det(touch[0] - 3.0, touch[1], "white", score=0.6, piece=True,
                       colour_sure=False),
                   det(w2[0] + 4.0, w2[1], "white", score=0.6, piece=True, colour_sure=False)])
    out = feed(tracker, frames) + tracker.flush()
    last = out[-1].balls
    assert last["W1"][2] and math.dist(last["W1"][:2], touch) < 5.0
    assert last["W2"][2] and math.dist(last["W2"][:2], w2) < 5.0


def test_a_ball_just_hit_faster_than_first_seen_is_the_hitter_of_the_ball_it_merges_with():
    """As in combination_s257: R2, just sent by the cue ball, is read at 78 mm a frame (it goes
    115), and is seen last 224 mm short of R1 at rest. In the next frame the two are one blob
    47 mm off R1's place toward R2. Then R1 leaves fast along the line and R2 creeps on by the
    contact. R2 is within its gate of R1, so it is R1's hitter: R1 does not take the blob, and
    the two reds are not swapped (taken by R1, the blob gave it a speed toward R2, and which
    red took which ball after was a tie of the costs)."""
    rest, y = 2000.0, 900.0
    layout = {"W1": (500.0, 500.0), "W2": (500.0, 1500.0), "R1": (rest, y),
              "R2": (1500.0, y), "Y": (3000.0, 1500.0)}
    tracker = Tracker(TABLE, start_positions=layout)
    still = [det(500, 500, "white"), det(500, 1500, "white"), det(3000, 1500, "yellow")]
    frames = [[*still, det(rest, y, "red"), det(1500.0, y, "red")] for _ in range(12)]
    for x in (1620.0, 1698.0, 1776.0):  # R2 rolling, read slower than it goes
        frames.append([*still, det(rest, y, "red"), det(x, y, "red")])
    frames.append([*still, det(rest - 47.0, y, "red", score=0.7)])  # the two as one blob
    for k in range(6):  # R1 away along the line, R2 creeping on beside the contact
        frames.append([*still, det(rest + 88.0 + 106.0 * k, y, "red"),
                       det(rest - 65.0 + 1.5 * k, y, "red")])
    out = feed(tracker, frames) + tracker.flush()
    merged = next(r.balls for r in out if r.frame == 15)
    assert merged["R1"][:2] == (rest, y) and merged["R2"][0] == rest - 47.0
    last = out[-1].balls
    assert last["R1"][0] > rest + 500.0
    assert abs(last["R2"][0] - (rest - 57.5)) < 5.0


def test_before_the_cue_ball_is_struck_a_ball_under_an_arm_stays_near_where_it_lay():
    """As Y in hidden_under_arm_s269: the player's arm comes over Y before his strike. Y takes
    a piece of the arm 25 mm off its place (within half a ball: it may be Y), is unseen, then
    pieces of the arm show further along it, 54 and 95 mm off, yellow-ish. Nothing has been hit:
    Y is no further from where it lay than half a ball, and after the arm is gone and the cue
    ball struck, it is back on its place (the shot's first mover is the cue ball, not Y)."""
    place = (2738.0, 656.0)
    layout = {"W1": (2863.0, 881.0), "R1": (337.0, 337.0), "Y": place}
    tracker = Tracker(TABLE, cue_ball="W1", start_positions=layout)
    still = [det(2863, 881, "white"), det(337, 337, "red")]
    frames = [[*still, det(*place, "yellow")] for _ in range(15)]
    arm = [(2723.0, 635.0), None, None, (2699.0, 618.0), (2699.0, 618.0), (2699.0, 618.0),
           None, (2666.0, 594.0), None, (2699.0, 618.0), (2666.0, 594.0), (2666.0, 594.0)]
    frames += [[*still, *([det(*xy, "yellow", score=0.5, piece=True)] if xy else [])]
               for xy in arm]
    frames += [[*still, det(*place, "yellow")] for _ in range(3)]
    frames += [[det(2863.0 + 28.0 * k, 881.0 + 54.0 * k, "white"), still[1], det(*place, "yellow")]
               for k in range(1, 6)]
    out = feed(tracker, frames) + tracker.flush()
    assert all(math.dist(r.balls["Y"][:2], place) <= 0.5 * D for r in out)
    assert math.dist(out[-1].balls["Y"][:2], place) < 2.0 and out[-1].balls["Y"][2]


def test_a_white_in_hand_already_placed_is_named_rather_than_pieces_of_the_arm_beside_it():
    """As in opening_yellow_first_s271: both whites in hand, W1 already placed in the house,
    resting, read a little less ball-like (0.59) than the pieces of the player's arm beside it
    (0.62-0.65), which come and go as the arm moves. The white resting through the first frames
    is W1; no piece of the arm is named."""
    on_table = {"R1": (887.5, 887.5), "Y": (1775.0, 887.5), "R2": (2662.5, 887.5)}
    ball = (748.0, 493.0)
    tracker = Tracker(TABLE, cue_ball="W1", start_positions=on_table)
    frames = []
    for k in range(40):  # the arm's pieces in seven and in five frames of ten
        arm = [det(162.0 + 3.0 * (k % 4), 407.0, "white", score=0.65, piece=True)] * (
            k % 10 < 7) + [det(279.0, 411.0 - 2.0 * (k % 3), "white", score=0.62,
                               piece=True)] * (k % 2)
        frames.append([*layout_dets(on_table), det(*ball, "white", score=0.59), *arm])
    out = feed(tracker, frames)
    assert out and all(math.dist(r.balls["W1"][:2], ball) < 2.0 for r in out)
    assert all("W2" not in r.balls for r in out)


# --- a camera of 15 frames a second padded to 30 ------------------------------------------------
def _rolling(frames: int, step: float, repeat_every_other: bool) -> list[list[Detection]]:
    """W1 rolling along the table ``step`` mm a frame beside two balls at rest, the picture of
    every odd frame the even one's when ``repeat_every_other``."""
    out = []
    for f in range(frames):
        shown = f - f % 2 if repeat_every_other else f
        out.append([det(600.0 + step * shown, 900.0, "white"), det(2000.0, 1200.0, "red"),
                    det(2800.0, 400.0, "white")])
    return out


class _Recording(Tracker):
    """A tracker that notes the frames it is fed."""

    def __init__(self, *args: object, **kw: object) -> None:
        super().__init__(*args, **kw)  # type: ignore[arg-type]
        self.fed: list[int] = []

    def update(self, frame: int, detections: list[Detection]) -> list:
        self.fed.append(frame)
        return super().update(frame, detections)


def _repeats_told(frames: list[list[Detection]], changes: list[float]) -> tuple[list[int], list]:
    """The frames left out as repeats, and every frame's answer, given each frame's picture
    change (see BallDetector.picture_change)."""
    tracker = _Recording(TABLE, start_positions={"W1": (600.0, 900.0), "R1": (2000.0, 1200.0),
                                                 "W2": (2800.0, 400.0)})
    filled = RepeatsFilled(tracker)
    out = [r for f, (d, c) in enumerate(zip(frames, changes, strict=True))
           for r in filled.update(f, d, c)] + list(filled.flush())
    return [f for f in range(len(frames)) if f not in tracker.fed], out


def _padded_rolling(shown: int, frames_rolling: int) -> tuple[list[list[Detection]],
                                                               list[float]]:
    """Still for 12 frames (the camera's noise), then W1 rolling at 20 mm a frame, every
    picture shown ``shown`` times (a repeat changes by the codec's noise only): the sightings
    and picture changes of each frame."""
    frames = _rolling(12, 0.0, False) + [
        [det(600.0 + 20.0 * (k - k % shown), 900.0, "white"), det(2000.0, 1200.0, "red"),
         det(2800.0, 400.0, "white")] for k in range(1, frames_rolling + 1)]
    changes = [math.inf] + [20.0] * 11 + [3.0 if k % shown else 150.0
                                          for k in range(1, frames_rolling + 1)]
    return frames, changes


def test_every_other_frame_of_a_padded_camera_is_told_as_a_repeat():
    frames, changes = _padded_rolling(2, 30)
    left_out, out = _repeats_told(frames, changes)
    # frame 12 shows frame 11 again, 13 the first step
    assert left_out == list(range(12, len(frames), 2))
    assert [r.frame for r in out] == list(range(len(frames))), "every frame answered, in order"
    xs = [r.balls["W1"][0] for r in out[11:-1]]
    steps = [b - a for a, b in itertools.pairwise(xs)]
    # the ball rolls on at 20 mm a frame through the repeats (no stop, no double step)
    assert all(abs(s - 20.0) < 2.0 for s in steps), steps
    assert all(r.balls["W1"][2] for r in out[12:])


def test_a_ball_slowing_or_stopping_and_a_noisy_still_camera_give_no_repeat():
    # 30 frames a second: a ball slowing from 12 mm a frame to rest, its picture changing less
    # and less, then all still but the camera's noise
    rng = np.random.default_rng(5)
    x, frames, changes = 600.0, [], []
    for f in range(80):
        step = max(0.0, 12.0 - 0.3 * f)
        x += step
        frames.append([det(x, 900.0, "white"), det(2000.0, 1200.0, "red"),
                       det(2800.0, 400.0, "white")])
        changes.append(max(15.0 * step, float(rng.uniform(8.0, 30.0))))
    changes[0] = math.inf
    assert _repeats_told(frames, changes)[0] == []


def test_a_ball_gone_from_the_picture_after_a_repeat_is_not_seen_in_the_repeat():
    # W1 rolls at 20 mm a frame on a padded camera, and is gone from frame 23's picture on (a
    # pot, an arm): frame 22 showed frame 21's picture, but the ball had left that place
    frames, changes = _rolling(12, 0.0, False), [math.inf] + [20.0] * 11
    for k in range(1, 21):
        shown = k - k % 2
        balls = [det(2000.0, 1200.0, "red"), det(2800.0, 400.0, "white")]
        if 12 + shown < 23:
            balls.append(det(600.0 + 20.0 * shown, 900.0, "white"))
        frames.append(balls)
        changes.append(3.0 if k % 2 else 150.0)
    left_out, out = _repeats_told(frames, changes)
    assert 22 in left_out
    by_frame = {r.frame: r for r in out}
    assert by_frame[21].balls["W1"][2], "seen in the last picture it is in"
    assert not by_frame[22].balls["W1"][2]


def test_a_ball_at_rest_gone_after_a_repeat_is_seen_in_its_place_in_the_repeat():
    # video_9_0056_0101 27: W1 lies at rest on a padded camera, seen clean in the repeated
    # picture too, and is gone from the next picture on (struck, its streak joined to the
    # cue): the repeat shows it where it lay
    frames, changes = _rolling(12, 0.0, False), [math.inf] + [20.0] * 11
    for k in range(1, 13):
        balls = [det(2000.0, 1200.0, "red"), det(2800.0, 400.0, "white")]
        if 12 + k - k % 2 < 23:
            balls.append(det(600.0, 900.0, "white"))
        frames.append(balls)
        changes.append(3.0 if k % 2 else 150.0)
    left_out, out = _repeats_told(frames, changes)
    assert 22 in left_out
    x, y, seen = {r.frame: r for r in out}[22].balls["W1"]
    assert seen and math.dist((x, y), (600.0, 900.0)) < 1.0


def test_a_cue_ball_rolled_off_slowly_was_struck_and_the_next_shot_is_followed():
    # the first shot: W1 rolls off at 18 mm a frame (0.54 m/s, under the struck speed) to rest
    # 540 mm on; the next: W2 struck at 35 mm a frame. Before, W1 never counted as struck, and
    # W2 was held to where it lay at the start as a ball nothing had hit
    layout = {"W1": (800.0, 900.0), "W2": (2800.0, 400.0), "R1": (2000.0, 1200.0)}
    tracker = Tracker(TABLE, cue_ball="W1", start_positions=layout)
    frames, x1, x2 = [], 800.0, 2800.0
    for f in range(120):
        if 12 <= f < 42:
            x1 += 18.0
        if f >= 80:
            x2 -= 35.0
        frames.append([det(x1, 900.0, "white"), det(x2, 400.0, "white"),
                       det(2000.0, 1200.0, "red")])
    out = feed(tracker, frames) + tracker.flush()
    last = out[-1].balls["W2"]
    assert last[2] and abs(last[0] - x2) < 5.0, last


def test_a_camera_of_10_frames_a_second_padded_to_30_shows_two_repeats_in_a_row():
    frames, changes = _padded_rolling(3, 36)
    left_out, out = _repeats_told(frames, changes)
    new_pictures = [11 + k for k in range(1, 37) if k % 3 == 0]
    assert left_out == [f for f in range(12, len(frames)) if f not in new_pictures]
    xs = [r.balls["W1"][0] for r in out[14:-2]]
    steps = [b - a for a, b in itertools.pairwise(xs)]
    assert all(abs(s - 20.0) < 2.0 for s in steps), steps


def test_without_the_game_state_a_white_the_first_frames_missed_is_named_once_it_rolls():
    # video_13 of the club footage: the white under the cue's tip was seen in 4 of its first 30
    # frames, too few to be named, and rolled away from the strike with no id at all
    w2 = (2800.0, 1400.0)
    reds = [det(2000.0, 1200.0, "red"), det(900.0, 300.0, "red")]
    still = [det(*w2, "white"), *reds]
    tracker = Tracker(TABLE)
    frames = [still] * 12
    rolling = [(1500.0 + 60.0 * k, 700.0 + 30.0 * k) for k in range(5)]
    frames += [[*still, det(x, y, "white", score=0.75)] for x, y in rolling]
    by_frame = {r.frame: r for r in feed(tracker, frames) + tracker.flush()}
    named = [b for b in ("W1", "W2") if b in by_frame[16].balls
             and math.dist(by_frame[16].balls[b][:2], rolling[-1]) < 1.0]
    assert len(named) == 1 and by_frame[16].balls[named[0]][2]
    other = "W2" if named == ["W1"] else "W1"
    assert math.dist(by_frame[16].balls[other][:2], w2) < 1.0  # the resting one kept its id
    # ... not before three sightings in a row
    assert not any(math.dist(xy[:2], rolling[1]) < 1.0 for xy in by_frame[13].balls.values())


def test_with_the_game_state_a_white_not_in_it_is_not_named_when_it_rolls():
    # the game state says which balls are on the table: the other white is in hand, and a white
    # thing rolling (the cue's shaft) is not it
    places = {b: xy for b, xy in OTHERS.items() if b != "W2"} | {"W1": (800.0, 900.0)}
    tracker = Tracker(TABLE, start_positions=places)
    frames = [layout_dets(places)] * 12
    rolling = [(1500.0 + 60.0 * k, 700.0 + 30.0 * k) for k in range(5)]
    frames += [[*layout_dets(places), det(x, y, "white", score=0.75)] for x, y in rolling]
    out = feed(tracker, frames) + tracker.flush()
    assert "W2" not in out[-1].balls or not out[-1].balls["W2"][2]


def test_a_resting_ball_by_a_cushion_shadow_does_not_follow_its_split_piece():
    # simulation_vs_reality_2 of the club footage: a white at rest by the cushion's nose, its blob
    # now joined to the nose's shadow and split (a piece 0.37 balls off its centre, clean), now
    # not; following the piece, it jumped 40 mm back and forth
    tracker, still, frames = at_rest_first({"W1": (800.0, 900.0)}, moving=("W1",))
    feed(tracker, frames)
    piece = det(800.0 + 0.37 * D * 0.6, 900.0 - 0.37 * D * 0.8, "white", score=0.8, piece=True)
    out = feed(tracker, [[*still, piece], [*still, det(800.0, 900.0, "white")]] * 3, first=12)
    out += tracker.flush()
    for r in out:
        x, y, visible = r.balls["W1"]
        assert visible and math.dist((x, y), (800.0, 900.0)) < 1.0, r.frame


def test_a_resting_ball_beside_another_follows_its_split_piece():
    # carom_1_s269: two touching balls rolling slowly past each other are seen as pieces of one
    # blob; held at rest, the ball that rolled off would lose its contact
    tracker, still, frames = at_rest_first({"W1": (800.0, 900.0), "Y": (800.0 + D, 900.0)},
                                           moving=("W1",))
    feed(tracker, frames)
    off = (800.0 - 0.37 * D, 900.0)
    out = feed(tracker, [[*still, det(*off, "white", score=0.8, piece=True)]], first=12)
    out += tracker.flush()
    assert math.dist(out[-1].balls["W1"][:2], off) < 1.0


def test_a_ball_beside_a_faint_glint_of_its_colour_is_not_put_at_their_middle():
    # video_9 of the club footage: a red on a pocket's lip (0.64) beside a red glint in the hole
    # (0.35) nine tenths of a ball away was read at their middle, 14 px off; on the synthetic
    # sets the 65 rows this changed are 3 mm off the truth on average, against 22 before
    tracker, still, frames = at_rest_first({"R1": (2000.0, 1200.0)}, moving=("R1",))
    feed(tracker, frames)
    ball = det(2000.0, 1200.0, "red", score=0.64)
    glint = det(2000.0 + 0.9 * D * 0.6, 1200.0 + 0.9 * D * 0.8, "red", score=0.35)
    out = feed(tracker, [[*still, ball, glint]] * 3, first=12) + tracker.flush()
    for r in out:
        x, y, visible = r.balls["R1"]
        assert visible and math.dist((x, y), (2000.0, 1200.0)) < 1.0, r.frame


def test_without_the_game_state_a_blur_unsure_of_its_colour_names_no_ball_never_seen():
    # video_9 of the club footage: the white struck hard blurs into a warm streak, read as a red
    # mixed with the cloth (not sure of its colour); it named a red no frame had shown
    w2 = (2800.0, 1400.0)
    still = [det(*w2, "white"), det(2000.0, 1200.0, "red")]
    tracker = Tracker(TABLE)
    frames = [still] * 12
    rolling = [(1500.0 + 100.0 * k, 700.0 + 40.0 * k) for k in range(5)]
    frames += [[*still, det(x, y, "red", score=0.75, colour_sure=False)] for x, y in rolling]
    out = feed(tracker, frames) + tracker.flush()
    assert all(not (r.balls.get("R2") or (0, 0, False))[2] for r in out)


def test_a_ball_that_walked_off_on_faint_sightings_is_lost_and_found_again_where_it_shows():
    """The cue ball's id walks off its place on a faint white thing (the cue's ferrule after the
    strike, a projected ring: 0.35, never ball-like) while the ball itself is not seen. Half a
    second of that and more than a diameter away, the id is dropped; the white showing clean
    and still elsewhere is then picked up as it (club footage, video_9_0056_0101 and
    video_12_0205_0208)."""
    place, later = (1000.0, 700.0), (2400.0, 900.0)
    layout = {"W1": place, "R1": (2000.0, 300.0)}
    tracker = Tracker(TABLE, start_positions=layout)
    red = det(2000, 300, "red")
    frames = [[det(*place, "white"), red]] * 12
    frames += [[det(place[0] + 12.0 * k, place[1], "white", score=0.35), red] for k in range(1, 31)]
    frames += [[det(*later, "white"), red]] * 12
    out = feed(tracker, frames)
    walked = [r for r in out if 12 <= r.frame < 42 and r.balls.get("W1", (0, 0, False))[2]]
    # followed while near its place and for half a second, then no longer
    assert walked and max(r.frame for r in walked) < 12 + 30
    assert not out[41].balls.get("W1", (0, 0, False))[2]
    assert out[-1].balls["W1"][2] and math.dist(out[-1].balls["W1"][:2], later) < 1.0


def test_a_ball_at_rest_seen_only_faintly_in_its_place_is_kept():
    """A ball at rest half under an arm, seen for two seconds as a faint piece a third of a
    ball off its centre (synthetic chain_two_s271: W2 at 0.38-0.44, 17-21 mm off), is kept."""
    place = (2600.0, 1500.0)
    layout = {"W2": place, "R1": (2000.0, 300.0)}
    tracker = Tracker(TABLE, start_positions=layout)
    red = det(2000, 300, "red")
    frames = [[det(*place, "white"), red]] * 12
    frames += [[det(place[0], place[1] + 20.0, "white", score=0.42), red]] * 60
    out = feed(tracker, frames)
    assert all(r.balls["W2"][2] for r in out)


def test_a_struck_ball_unseen_a_moment_takes_itself_rolling_off_not_the_cues_tip():
    """The white at rest is struck and unseen for two frames; then the cue's tip (a faint white
    piece, 0.33) lies nearer its place than the ball rolling off (0.52): the ball is the more
    ball-like one (null_grad_stoss_1_0130_0135, frame 18)."""
    place = (1500.0, 700.0)
    layout = {"W1": place, "R1": (2500.0, 300.0)}
    tracker = Tracker(TABLE, start_positions=layout)
    red = det(2500, 300, "red")
    frames = [[det(*place, "white"), red]] * 12 + [[red]] * 2
    tip, ball = (place[0] + 0.45 * D, place[1]), (place[0] - 0.6 * D, place[1])
    frames.append([det(*tip, "white", score=0.33), det(*ball, "white", score=0.52), red])
    out = feed(tracker, frames)
    assert math.dist(out[-1].balls["W1"][:2], ball) < 1.0


def test_a_struck_cue_ball_unseen_does_not_take_the_cue_tip_that_lay_beside_it():
    """The cue ball rests with the cue's tip at address a diameter behind it (a faint white
    thing, 0.35). Struck, the ball is blurred out of sight for two frames while the tip stays
    put: its id waits where it lay, not on the tip, and takes the ball when it shows again
    ahead (club footage, video_1_0233_0240, with the game state: the id went off with the cue)."""
    place = (1500.0, 700.0)
    tracker = Tracker(TABLE, cue_ball="W1", start_positions={"W1": place, "R1": (2500.0, 300.0)})
    red = det(2500, 300, "red")
    tip = det(place[0] - 1.0 * D, place[1] + 0.2 * D, "white", score=0.35)
    frames = [[det(*place, "white"), tip, red]] * 12
    frames += [[tip, red]] * 2
    ahead = (place[0] + 2.5 * D, place[1] - 0.5 * D)
    frames += [[det(*ahead, "white"), tip, red]]
    out = feed(tracker, frames)
    for r in out[12:14]:
        x, y, seen = r.balls["W1"]
        assert not seen and math.dist((x, y), place) < 1.0
    assert out[-1].balls["W1"][2] and math.dist(out[-1].balls["W1"][:2], ahead) < 1.0


def _rolling_by_a_mark(mark: tuple[float, float], path: list[tuple[float, float] | None],
                       hidden: range = range(0)) -> list:
    """A faint white mark on the cloth (0.4, never taken by a ball) for twenty frames while
    W1 rests; then W1 rolls along ``path`` (None: unseen that frame), the mark there but in
    the ``hidden`` steps of the roll (the ball's light and shadow over it)."""
    place = path[0]
    assert place is not None
    tracker = Tracker(TABLE, start_positions={"W1": place, "R1": (2500.0, 300.0)})
    red = det(2500, 300, "red")
    spot = det(*mark, "white", score=0.4)
    frames = [[det(*place, "white"), spot, red]] * 20
    frames += [[red] + ([] if k in hidden else [spot])
               + ([] if p is None else [det(*p, "white", score=0.6)])
               for k, p in enumerate(path[1:], start=1)]
    return feed(tracker, frames)


def test_a_rolling_ball_unseen_a_moment_does_not_take_a_mark_on_the_cloth_beside_its_way():
    """A pale mark on the cloth has lain unclaimed for a second, two diameters off the way of a
    rolling white; the white, blurred out of sight for a frame as it passes, keeps its way and
    is found again further on (club footage, video_12_0130_0140_Trim: the mark, unseen while
    the ball came near, showed again as the ball vanished, and the white's id stayed on it for
    the rest of the clip)."""
    step = 0.5 * D
    path: list[tuple[float, float] | None] = [(1000.0 + step * k, 700.0) for k in range(12)]
    path[6] = None
    out = _rolling_by_a_mark((1000.0 + 6 * step, 700.0 + 2.0 * D), path, hidden=range(3, 6))
    unseen = out[20 + 5]
    assert not unseen.balls["W1"][2]
    last = out[-1].balls["W1"]
    assert last[2] and math.dist(last[:2], path[-1]) < 1.0  # type: ignore[arg-type]


def test_a_ball_rolling_over_a_mark_on_the_cloth_is_seen_on_it():
    """A white rolling over such a mark is seen as faint as the mark, where it is expected: it
    is the ball (video_1_0233_0240, frame 28)."""
    step = 0.5 * D
    path: list[tuple[float, float] | None] = [(1000.0 + step * k, 700.0) for k in range(12)]
    mark = (1000.0 + 6 * step, 700.0)
    out = _rolling_by_a_mark(mark, [*path[:6], mark, *path[7:]])
    over = out[20 + 5].balls["W1"]
    assert over[2] and math.dist(over[:2], mark) < 1.0


def _struck_unseen(after: list[list[Detection]]) -> list:
    """The cue lies behind the resting W1 (a long blob 250 mm off); W1, struck away from it
    too hard to be seen, is unseen for two frames; then the frames ``after``."""
    tracker, still, frames = at_rest_first({"W1": (1500.0, 800.0)}, ("W1",))
    cue = det(1250.0, 800.0, "red", score=0.3, streak_mm=190.0, colour_sure=False)
    frames += [[*still, det(1500, 800, "white"), cue] for _ in range(2)]
    frames += [[*still, cue] for _ in range(2)]
    frames += [[*still, cue, *dets] for dets in after]
    return feed(tracker, frames) + tracker.flush()


def test_a_ball_struck_while_unseen_is_not_the_cue_s_tip_come_over_its_place_from_behind():
    """Struck too hard to be seen, the cue ball is not the faint tip then seen over its place
    on the cue's side (simulation_vs_reality_1_0008_0011: its id took the tip and walked off on
    faint things while the ball lay clean further on)."""
    tip = det(1500.0 - 0.6 * D, 800.0, "white", score=0.3)
    out = _struck_unseen([[tip], [tip]])
    assert all(not r.balls["W1"][2] for r in out[-2:])


def test_a_ball_struck_while_unseen_is_the_ball_further_its_way_not_a_faint_thing_nearer():
    """Struck too hard to be seen, then seen clean 3 diameters on the way it was sent while
    a faint thing (the cue following through) lies just past its place: the ball is the clean
    one (simulation_vs_reality_1_0008_0011, frame 31)."""
    ball = (1500.0 + 3.0 * D, 800.0)
    out = _struck_unseen([[det(1500.0 + 0.6 * D, 800.0, "white", score=0.3),
                           det(*ball, "white", score=0.84)]])
    x, y, visible = out[-1].balls["W1"]
    assert visible and math.dist((x, y), ball) < 1.0


def test_a_ball_stopped_dead_by_a_kiss_is_no_ball_at_rest_hit_by_the_ball_it_kissed():
    """carom_3_s241's detections: W1 rolls up to Y and kisses it; its next picture puts it
    almost where it was (its speed read as nothing), the one after (two faint pieces) a little
    toward Y, which left. W1 is not a ball at rest that Y is hitting (whose picture toward the
    hitter would be the hitter's): it takes that picture, and W2 resting beside keeps its own
    (they swapped for the rest of the clip)."""
    layout = {"W1": (3000.0, 1360.0), "W2": (3471.0, 1403.0), "R2": (3477.0, 1310.0),
              "Y": (3411.0, 1259.0), "R1": (1000.0, 300.0)}
    tracker = Tracker(TABLE, cue_ball="W1", start_positions=layout)
    still = [det(*layout["W2"], "white", score=0.75), det(*layout["R2"], "red"),
             det(*layout["R1"], "red")]
    frames = [[*still, det(*layout["W1"], "white"), det(*layout["Y"], "yellow")]] * 12
    w1: list[list[Detection]] = [
        [det(3083.0, 1375.0, "white", score=0.72, streak_mm=117.0)],
        [det(3141.0, 1387.0, "white", score=0.56)],
        [det(3195.0, 1400.0, "white", score=0.55, piece=True)],
        [det(3224.0, 1381.0, "white", score=0.7)],
        [det(3284.0, 1352.0, "white", score=0.62), det(3255.0, 1365.0, "white", score=0.59)],
        [det(3281.0, 1346.0, "white", score=0.72)], [det(3311.0, 1332.0, "white", score=0.75)],
        [det(3344.0, 1318.0, "white", score=0.72)], [det(3373.0, 1314.0, "white", score=0.7)],
        [det(3387.0, 1326.0, "white", score=0.73)],
        [det(3404.0, 1318.0, "white", score=0.44), det(3408.0, 1351.0, "white", score=0.44)]]
    y = [[det(*layout["Y"], "yellow")]] * 8 + [
        [det(3422.0, 1242.0, "yellow", score=0.57), det(3405.0, 1271.0, "yellow", score=0.47)],
        [det(3436.0, 1230.0, "yellow", score=0.88)], [det(3450.0, 1209.0, "yellow")]]
    frames += [[*still, *a, *b] for a, b in zip(w1, y, strict=True)]
    out = feed(tracker, frames) + tracker.flush()
    last = out[-1].balls
    assert math.dist(last["W1"][:2], (3406.0, 1334.5)) < 5.0
    assert math.dist(last["W2"][:2], layout["W2"]) < 1.0


def test_a_ball_unseen_under_the_cue_is_not_a_faint_spot_far_down_the_cues_line():
    """The cue lies behind the resting W1; W1 is unseen a frame (the cue's tip over it) while a
    faint sharp spot (0.39, no streak) shows five diameters away the way the cue points: a ring
    of a projected aiming line, not W1 struck away (video_13_0030_0034, with the game state:
    the cue ball's id jumped onto it during a practice stroke). W1 waits where it lay."""
    tracker, still, frames = at_rest_first({"W1": (1500.0, 800.0)}, ("W1",))
    cue = det(1250.0, 800.0, "red", score=0.3, streak_mm=190.0, colour_sure=False)
    frames += [[*still, det(1500, 800, "white"), cue] for _ in range(2)]
    frames += [[*still, cue, det(1500.0 + 5.0 * D, 800.0, "white", score=0.39)]]
    out = feed(tracker, frames) + tracker.flush()
    x, y, visible = out[-1].balls["W1"]
    assert not visible and math.dist((x, y), (1500.0, 800.0)) < 1.0


def test_a_faint_thing_left_in_place_is_a_fixture_but_one_passing_now_and_then_is_not():
    """A faint mark seen unclaimed in eight frames running is a fixture of the picture; a
    faint thing seen there once every three seconds (a hand passing over a match) is not,
    however often, nor is the mark once it has been gone longer than hide_s."""
    layout = {"W1": (1000.0, 700.0), "R1": (2500.0, 300.0)}
    balls = [det(*layout["W1"], "white"), det(*layout["R1"], "red")]
    mark = (2000.0, 1200.0)
    spot = det(*mark, "white", score=0.4)
    tracker = Tracker(TABLE, start_positions=layout)
    feed(tracker, [balls] * 12 + [[*balls, spot]] * 8)
    assert tracker.leftovers.at_a_fixture(spot, 20)
    assert not tracker.leftovers.at_a_fixture(spot, 20 + tracker.hide_frames + 1)
    passing = Tracker(TABLE, start_positions=layout)
    frames = [[*balls, spot] if k % 90 == 45 else balls for k in range(90 * 10)]
    feed(passing, frames)
    assert not passing.leftovers.at_a_fixture(spot, len(frames))


def test_a_ball_lost_from_view_while_rolling_is_found_again_on_its_way_at_once():
    """As W1 in yellow_middle_twice_s257: struck, rolling at 35 mm a frame, unseen for five
    frames (too few to be given up), then seen on its line again: it is W1 at its first
    sighting there, not after a row of them (it had no id for eleven frames)."""
    place = (1745.0, 900.0)
    layout = {"W1": place, "W2": (2100.0, 1000.0), "R1": (900.0, 900.0)}
    tracker = Tracker(TABLE, cue_ball="W1", start_positions=layout)
    still = [det(*layout["W2"], "white"), det(*layout["R1"], "red")]
    frames = [[*still, det(*place, "white")]] * 12
    way = [(place[0] + 1.0 * k, place[1] - 35.0 * k) for k in range(1, 16)]
    frames += [[*still] + ([] if 3 <= k <= 7 else [det(*xy, "white", score=0.6)])
               for k, xy in enumerate(way)]
    out = feed(tracker, frames) + tracker.flush()
    back = out[12 + 8].balls["W1"]
    assert back[2] and math.dist(back[:2], way[8]) < 1.0


def test_a_ball_lost_from_view_as_it_rolls_into_a_cushion_is_found_coming_back_off_it():
    """A ball lost from view while rolling is looked for the way it went, but it may have met a
    cushion meanwhile: seen again behind where it was lost, coming back off the cushion, it is
    that ball at once (not a thing on the far side of a ball sent from rest)."""
    place = (1500.0, 1200.0)
    layout = {"W1": place, "W2": (2600.0, 400.0), "R1": (900.0, 600.0)}
    tracker = Tracker(TABLE, cue_ball="W1", start_positions=layout)
    still = [det(*layout["W2"], "white"), det(*layout["R1"], "red")]
    frames = [[*still, det(*place, "white")]] * 12
    way = [(place[0], place[1] + 40.0 * k) for k in range(1, 11)]  # last seen 1600 mm
    back = [(place[0], 1560.0 - 40.0 * k) for k in range(4)]  # off the cushion, 40 mm behind
    frames += [[*still, det(*xy, "white", score=0.6)] for xy in way]
    frames += [[*still]] * 4
    frames += [[*still, det(*xy, "white", score=0.6)] for xy in back]
    out = feed(tracker, frames) + tracker.flush()
    first = out[12 + len(way) + 4].balls["W1"]
    assert first[2] and math.dist(first[:2], back[0]) < 1.0


def test_a_ball_rolling_away_from_a_resting_one_is_not_its_hitter():
    """video_13_0030_0034: the white hit the red and rolled on slowly behind it. The red,
    leaving, was taken for a ball arriving at the white, and the white's own sightings toward
    it for the red's (a hit ball leaves away from its hitter): the white had no id. A ball
    rolling away is no hitter: the white's sighting a little toward it is the white."""
    layout = {"W1": (1500.0, 800.0), "R1": (1500.0 + D + 2.0, 800.0), "W2": (3000.0, 400.0)}
    tracker = Tracker(TABLE, start_positions=layout)
    w2 = det(*layout["W2"], "white")
    frames = [[w2, det(*layout["W1"], "white"), det(*layout["R1"], "red")]] * 12
    red = [(layout["R1"][0] + 30.0 * k, 800.0) for k in range(1, 6)]
    white = [layout["W1"], layout["W1"], (1500.0 + 0.4 * D, 800.0),
             (1500.0 + 0.4 * D + 5.0, 800.0), (1500.0 + 0.4 * D + 10.0, 800.0)]
    frames += [[w2, det(*w, "white"), det(*r, "red")] for w, r in zip(white, red, strict=True)]
    out = feed(tracker, frames) + tracker.flush()
    for k in (2, 3, 4):
        x, y, visible = out[12 + k].balls["W1"]
        assert visible and math.dist((x, y), white[k]) < 3.0, k


def test_a_ball_last_seen_faint_takes_its_whole_picture_where_a_piece_of_it_was_left():
    """video_13_0030_0034, with the game state: a projected ring splits the resting white's
    picture into two faint pieces; its id takes the nearer, a piece of the ring, and the
    white's own piece is left. Next frame the white shows whole where its piece was: it is the
    white (its last sighting was doubtful), not the thing left there (the id followed the ring
    for fourteen frames)."""
    place = (1500.0, 800.0)
    layout = {"W1": place, "W2": (3000.0, 400.0), "R1": (500.0, 300.0)}
    tracker = Tracker(TABLE, start_positions=layout)
    still = [det(*layout["W2"], "white"), det(*layout["R1"], "red")]
    frames = [[*still, det(*place, "white", score=0.73)]] * 12
    ring = det(place[0] - 0.32 * D, place[1], "white", score=0.44)
    own = det(place[0] + 0.8 * D, place[1] - 0.1 * D, "white", score=0.45)
    whole = (place[0] + 0.8 * D, place[1] + 0.05 * D)
    frames += [[*still, ring, own], [*still, det(*whole, "white", score=0.76)]]
    out = feed(tracker, frames) + tracker.flush()
    x, y, visible = out[-1].balls["W1"]
    assert visible and math.dist((x, y), whole) < 3.0


def test_a_rolling_ball_unseen_a_moment_is_no_streak_whose_line_misses_its_way():
    """video_12_0205_0208: the white, rolling slowly, merged a moment with the red it had
    hit; its id took a smear of the cue 600 mm off, whose line passed nowhere near the
    white's way, and followed the cue for twenty frames while the white rolled on unnamed.
    A ball hit while unseen goes straight on from somewhere on its way: its streak lies on a
    line through that way (here one crossing it is taken)."""
    layout = {"W1": (1500.0, 800.0), "W2": (3000.0, 400.0), "R1": (500.0, 300.0)}
    tracker = Tracker(TABLE, start_positions=layout)
    still = [det(*layout["W2"], "white"), det(*layout["R1"], "red")]
    frames = [[*still, det(*layout["W1"], "white")]] * 12
    way = [(1500.0, 800.0 + 25.0 * k) for k in range(1, 12)]
    frames += [[*still, det(*xy, "white")] for xy in way[:5]]
    smear = det(1800.0, 960.0, "white", score=0.59, streak_mm=180.0, streak_dir=(0.0, 1.0))
    frames += [still, still, [*still, smear]]  # unseen, then only the smear
    out = feed(tracker, frames) + tracker.flush()
    x, y, visible = out[-1].balls["W1"]
    assert not (visible and math.dist((x, y), (1800.0, 960.0)) < 1.0)
    crossing = det(1800.0, 960.0, "white", score=0.59, streak_mm=180.0,
                   streak_dir=(0.998, 0.067))  # its line crosses the white's way
    tracker = Tracker(TABLE, start_positions=layout)
    out = feed(tracker, [*frames[:-1], [*still, crossing]]) + tracker.flush()
    x, y, visible = out[-1].balls["W1"]
    assert visible and math.dist((x, y), (1800.0, 960.0)) < 1.0


def test_a_rolling_ball_unseen_does_not_take_a_faint_thing_behind_and_beside_its_way():
    """video_12_0130_0140 without the game state: the white, rolling at 37 mm a frame, was
    unseen over a projected ring, and a faint piece of a projected line lay 1.8 diameters
    beside its way and half a ball behind its last place. A rolling ball slows but does not
    come back with nothing to hit it: W1 is not that piece (it stays unseen)."""
    tracker, still, frames = at_rest_first({"W1": (1500.0, 800.0)}, ("W1",))
    frames += [[*still, det(1500.0, 800.0, "white")] for _ in range(3)]
    frames += [[*still, det(1500.0 - 22.0 * k, 800.0 - 30.0 * k, "white")] for k in range(1, 7)]
    last = (1500.0 - 22.0 * 6, 800.0 - 30.0 * 6)
    piece = det(last[0] + 177.0, last[1] - 49.0, "white", score=0.37)
    frames += [still, [*still, piece]]
    out = feed(tracker, frames) + tracker.flush()
    for r in out[-2:]:
        x, y, visible = r.balls["W1"]
        assert not (visible and math.dist((x, y), (piece.x_mm, piece.y_mm)) < 1.0)


def test_a_resting_ball_held_on_its_own_smear_as_it_is_struck_follows_it_on():
    """chain_two: R2, struck by the yellow, is seen as a smear of its colour two diameters long
    whose middle lies 12 mm off its place (read as part of it seen, and held there); in the
    next picture it is 145 mm further on along the smear's line, near the corner pocket. R2
    is that ball, not held in its place."""
    tracker, still, frames = at_rest_first({"R1": (2000.0, 900.0)}, ("R1",))
    frames += [[*still, det(2000.0, 900.0, "red")] for _ in range(3)]
    ux, uy = 0.63, -0.78  # (its way, a unit vector)
    frames.append([*still, det(2000.0 + 12.0 * ux, 900.0 + 12.0 * uy, "red", score=0.66,
                               streak_mm=135.0, streak_dir=(ux, uy))])
    for k in (1, 2):
        frames.append([*still, det(2000.0 + (12.0 + 145.0 * k) * ux,
                                   900.0 + (12.0 + 145.0 * k) * uy, "red", score=0.78)])
    out = feed(tracker, frames) + tracker.flush()
    for r, k in zip(out[-2:], (1, 2), strict=True):
        x, y, visible = r.balls["R1"]
        assert visible and math.dist(
            (x, y), (2000.0 + (12.0 + 145.0 * k) * ux, 900.0 + (12.0 + 145.0 * k) * uy)) < 1.0


def test_no_ball_is_put_on_the_table_while_the_first_shot_rolls():
    """simulation_vs_reality_1_0049 one grey level brighter: the state has W1 (the cue ball) and
    R1 on the table; while W1 rolls after its strike, a red thing by the player's hand, ball-
    like enough for a pick-up, stays put for 20 frames: no ball is respotted during a shot, so
    it is no R2. Once every ball rests again, a red put there is picked up."""
    layout = {"W1": (800.0, 900.0), "R1": (2000.0, 1200.0)}
    tracker = Tracker(TABLE, cue_ball="W1", start_positions=layout)
    r1 = det(2000, 1200, "red")
    frames = [[det(800, 900, "white"), r1]] * 12
    thing = det(3000, 300, "red", score=0.65)
    for k in range(1, 21):  # W1 struck, rolling at 40 mm a frame
        frames.append([det(800 + 40.0 * k, 900, "white"), r1, thing])
    out = feed(tracker, frames)
    assert all("R2" not in r.balls or not r.balls["R2"][2] for r in out)
    rest = det(1600, 900, "white")
    out += feed(tracker, [[rest, r1]] * 12 + [[rest, r1, det(900, 300, "red")]] * 8, first=32)
    out += tracker.flush()
    assert math.dist(out[-1].balls["R2"][:2], (900, 300)) < 1.0 and out[-1].balls["R2"][2]


def test_a_white_in_hand_is_picked_up_only_in_the_house():
    """The state has W2 in hand (RULES.md 6.4: placed in the house by its owner): a white thing
    that stays put past mid-table after the shot is no W2 (simulation_vs_reality_1_0028 one grey
    level brighter); one put in the house is."""
    layout = {"W1": (2500.0, 900.0), "R1": (2000.0, 1200.0)}
    tracker = Tracker(TABLE, cue_ball="W1", start_positions=layout)
    r1 = det(2000, 1200, "red")
    frames = [[det(2500, 900, "white"), r1]] * 12
    frames += [[det(2500 + 40.0 * k, 900, "white"), r1] for k in range(1, 11)]  # struck
    rest = det(2900, 900, "white")
    frames += [[rest, r1]] * 12  # at rest: the shot is over
    frames += [[rest, r1, det(1700, 875, "white")]] * 10  # a white thing past mid-table
    out = feed(tracker, frames)
    assert all("W2" not in r.balls or not r.balls["W2"][2] for r in out)
    out += feed(tracker, [[rest, r1, det(500, 700, "white")]] * 8, first=len(frames))
    out += tracker.flush()
    assert math.dist(out[-1].balls["W2"][:2], (500, 700)) < 1.0 and out[-1].balls["W2"][2]


def test_the_cue_ball_not_yet_seen_does_not_take_the_cue_beside_it():
    """As null_grad_stoss_1_0130_0135: the state has the cue ball W1 at rest; in the first
    frames its picture is joined to the cue's tip and not found, while the ferrule beside it
    (0.9 diameters off, 0.44 ball-like) is; then the ball shows whole in its place. W1 stays in
    its place: it never went off with the cue."""
    place = (2930.0, 940.0)
    layout = {"W1": place, "R1": (2500.0, 950.0)}
    tracker = Tracker(TABLE, cue_ball="W1", start_positions=layout)
    r1 = det(2500, 950, "red")
    ferrule = [det(place[0] + 0.9 * D + 3.0 * k, place[1], "white", score=0.44) for k in range(8)]
    frames = [[r1, f] for f in ferrule[:4]]
    frames += [[r1, det(*place, "white", score=0.72), f] for f in ferrule[4:]]
    frames += [[r1, det(*place, "white", score=0.72)]] * 8
    out = feed(tracker, frames) + tracker.flush()
    for r in out:
        assert math.dist(r.balls["W1"][:2], place) < 1.0, r.frame
    assert "W2" not in out[-1].balls


def test_the_trackers_memory_does_not_grow_with_the_videos_length():
    # issue 5: memory does not grow with the video's length. A ball rolling to and fro along
    # the table, the others at rest, a hand-like thing coming and going by a cushion and a ball
    # hidden now and then: what the tracker keeps after 3000 frames is what it kept after 1000
    # (tracemalloc: every Python object and array it holds); the rows are dropped as they come,
    # as `kaisa track` writes them out.
    import tracemalloc

    tracker = RepeatsFilled(Tracker(TABLE, start_positions=LAYOUT))
    others = [d for d in layout_dets() if d.colour != "yellow"]
    span = TABLE.length_mm - 2 * D

    def frame_dets(k: int) -> list[Detection]:
        u = (12.0 * k) % (2 * span)  # to and fro at 12 mm a frame
        x = D + (u if u < span else 2 * span - u)
        dets = [d for i, d in enumerate(others) if not (k % 97 < 5 and i == 0)]
        dets.append(det(x, 600.0, "yellow"))
        if k % 61 < 8:
            dets.append(det(200.0 + 3 * (k % 61), 60.0, "other", score=0.3))
        return dets

    def run(first: int, last: int) -> None:
        for k in range(first, last):
            for _ in tracker.update(k, frame_dets(k)):
                pass

    tracemalloc.start()
    try:
        run(0, 1000)
        after_1000 = tracemalloc.get_traced_memory()[0]
        run(1000, 3000)
        after_3000 = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert after_3000 - after_1000 < 32 * 1024, (after_1000, after_3000)


# (null_grad_stoss_1_0130_0135 frames 18 and 19 one grey level brighter, then darker: the
# ball's first sighting off its place and its ball-likeness; the things beside it then and in
# the next frame, in diameters from that sighting, with theirs)
STRUCK_UNSEEN = [
    (0.52, ((1.1, 0.32), (2.6, 0.32)), ((0.64, 0.19), (1.8, 0.43), (3.3, 0.48))),
    (0.47, ((1.1, 0.33), (2.5, 0.32)), ((0.39, 0.24), (1.5, 0.36), (2.7, 0.36))),
]


@pytest.mark.parametrize(("score", "beside", "behind"), STRUCK_UNSEEN)
def test_a_ball_struck_while_unseen_and_seen_on_its_way_does_not_come_back_to_faint_things(
        score: float, beside: tuple[tuple[float, float], ...],
        behind: tuple[tuple[float, float], ...]):
    """The cue ball rests with the cue's tip at address 1.8 diameters behind it; struck, it is
    unseen for two frames, then seen half a ball off its place the way the cue sent it, the
    cue following through behind it (``beside``). In the next frame it is unseen and faint
    white things lie behind it (``behind``): it rolls on, it does not come back to them, and
    it takes itself when it shows clean further on (null_grad_stoss_1_0130_0135 one grey
    level brighter and darker, with the game state: W1, seen off its place but taken to be
    at rest there, took the cue's pieces for fifteen and thirty frames)."""
    place = (1500.0, 700.0)
    tracker = Tracker(TABLE, cue_ball="W1", start_positions={"W1": place, "R1": (2500.0, 300.0)})
    red = det(2500, 300, "red")
    tip = det(place[0] + 1.8 * D, place[1], "white", score=0.33)
    seen = (place[0] - 0.57 * D, place[1] - 0.1 * D)

    def cue(things: tuple[tuple[float, float], ...]) -> list[Detection]:
        return [det(seen[0] + back * D, place[1], "white", score=sc) for back, sc in things]

    on = (seen[0] - 0.8 * D, place[1])
    frames = [[det(*place, "white"), tip, red]] * 12 + [[tip, red]] * 2
    frames += [[det(*seen, "white", score=score), *cue(beside), red], [*cue(behind), red],
               [det(*on, "white", score=0.75), red]]
    out = feed(tracker, frames) + tracker.flush()
    x, y, visible = out[15].balls["W1"]
    assert not visible or x <= seen[0] + 1.0, "came back to the cue following through"
    x, y, visible = out[16].balls["W1"]
    assert visible and math.dist((x, y), on) < 1.0


def test_a_ball_read_merged_with_a_faint_thing_takes_itself_again_not_the_thing():
    """carom_2_s313 (held out): W2 rolls slowly (6 mm a frame) away from a faint white thing
    that stays put (the ghost of its own shadow in the first frame, learned into the cloth
    model), is read merged with it as one faint streak for four frames, centred nearer the
    thing, and then shows clean again 80 mm from where the streak was, the thing 35 mm from
    there: W2 is the clean ball from then on, not the faint thing."""
    places = {**OTHERS, "W1": (800.0, 900.0), "W2": (2009.6, 848.6)}
    tracker = Tracker(TABLE, start_positions=places)
    still = layout_dets({b: xy for b, xy in places.items() if b != "W2"})
    ghost = (2040.0, 790.0)

    def ball(k: int) -> tuple[float, float]:
        return (2009.6 - 2.7 * k, 848.6 + 5.3 * k)

    frames = [[*still, det(*ball(0), "white")] for _ in range(12)]
    for k in range(1, 40):
        if 4 <= k < 8:  # one faint streak over the ball and the ghost
            frames.append([*still, det(ghost[0] - 15.0, ghost[1] + 31.0, "white", score=0.22,
                                       streak_mm=135.0, streak_dir=(-0.45, 0.89),
                                       colour_sure=False)])
        else:
            frames.append([*still, det(*ball(k), "white", score=0.82)]
                          + ([det(*ghost, "white", score=0.37)] if k >= 4 else []))
    out = feed(tracker, frames) + tracker.flush()
    for r in out[12 + 10:]:
        x, y, visible = r.balls["W2"]
        assert visible and math.dist((x, y), ball(r.frame - 11)) < 5.0, r.frame
