"""The tracker's identity logic on hand-made detections (no video), for the cases that look
inside the tracker (its states, its leftovers, the repeats filled in, its memory), that do not
care which of two ids a ball gets, or that are known failures. The cases whose detections go in
and whose tracks are checked are regression fixtures: ``fixtures/tracking/`` and
``test_tracker_fixtures.py``."""

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
from vision.tracking.whites import UnseenWays

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


def test_without_the_game_state_a_hand_is_not_taken_for_a_white():
    hand = det(130.0, 450.0, "white", score=0.38)
    on_table = {b: xy for b, xy in LAYOUT.items() if b != "W2"}
    tracker = Tracker(TABLE)
    out = feed(tracker, [[*layout_dets(on_table), hand]] * 40)
    whites = [b for b in ("W1", "W2") if b in out[-1].balls]
    assert len(whites) == 1 and out[-1].balls[whites[0]][:2] == LAYOUT["W1"]


@pytest.mark.xfail(strict=True, reason="known: a resting ball takes a piece of an arm that "
                   "came over it and merged with it (in three rendered clips of one set: a "
                   "phantom strike). Tried (2026-11-30): no leaving beyond jitter as an arm "
                   "comes, and only clean sightings while covered: +2 verdicts on that set, none "
                   "lost on the synthetic sets, but in a clip of the club footage the cue ball "
                   "was seen in 40 % of the frames (85 % before) and a phantom off-table came; "
                   "not merged. Since 2026-11-30 (late) the ball goes back to its place as soon "
                   "as it shows there clean (reacquire.back_to_rest), and shot facts see that it "
                   "never left (that clip's verdict right): while covered it still follows the "
                   "arm")
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


def test_a_ball_off_a_cushion_is_expected_back_the_way_it_bounced():
    """A red at 6.6 m/s (220 mm a frame) reaches the cushion
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


@pytest.mark.xfail(strict=True, reason="known: a resting ball takes a piece of the cue that came "
                   "over it (a rendered clip's scratch). Tried (2026-11-30): no leaving toward "
                   "the cue behind a resting or hidden ball. On the side of the cue (a "
                   "half-plane) it won that clip and lost nothing on the synthetic sets once a "
                   "ball hit by a ball was left out, but on the club footage 48 of 60 balls by "
                   "id (53) and 5 of 8 pots (8): strikes timed early; within 30 degrees of a cue "
                   "of two things or more: 52 of 60 and 7 of 8; not merged. Since 2026-11-30 "
                   "(late) the ball goes back to its place when it shows there clean before the "
                   "strike (that clip right): while the cue lies over it, it still follows")
def test_a_resting_ball_does_not_follow_the_cue_that_came_over_it():
    """The pale cue comes in over W1's side; W1, merged with its tip,
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


def test_a_ball_seen_whole_at_rest_does_not_leap_to_a_faint_sharp_thing_two_balls_off():
    """Without the game state: in the first picture after the strike the
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


def test_whites_named_by_the_game_state_and_never_near_each_other_keep_their_names():
    # On a blue cloth, W1's one dot read as a pair and W2's pair as one dot, in
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
    # W1 lies at rest on a padded camera, seen clean in the repeated
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


def test_a_camera_of_10_frames_a_second_padded_to_30_shows_two_repeats_in_a_row():
    frames, changes = _padded_rolling(3, 36)
    left_out, out = _repeats_told(frames, changes)
    new_pictures = [11 + k for k in range(1, 37) if k % 3 == 0]
    assert left_out == [f for f in range(12, len(frames)) if f not in new_pictures]
    xs = [r.balls["W1"][0] for r in out[14:-2]]
    steps = [b - a for a, b in itertools.pairwise(xs)]
    assert all(abs(s - 20.0) < 2.0 for s in steps), steps


def test_without_the_game_state_a_white_the_first_frames_missed_is_named_once_it_rolls():
    # the white under the cue's tip seen in 4 of its first 30 frames, too few to be named,
    # rolled away from the strike with no id at all (club footage)
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




def _ways(frames: list[dict[str, tuple[float, float, bool]]]) -> tuple[UnseenWays, list]:
    """An UnseenWays fed ``frames`` (from frame 0), and what it said of each."""
    ways = UnseenWays(Tracker(TABLE).setting)
    return ways, [ways.back_by_a_way_unseen(f, balls) for f, balls in enumerate(frames)]


def test_a_white_back_in_sight_far_off_its_way_by_the_other_white_came_back_by_a_way_unseen():
    w2 = (200.0, 1600.0, True)
    lost = [{"W1": (800.0, 400.0, True), "W2": w2}] * 2 + [{"W1": (800.0, 400.0, False),
                                                            "W2": w2}] * 3
    # seen again 200 mm from W2, 1.3 m from where it lay: it may have passed W2
    _, said = _ways([*lost, {"W1": (300.0, 1700.0, True), "W2": w2}])
    assert said == [None] * 5 + ["W1"]
    # seen again where it lay (an arm over it): it did not go anywhere
    _, said = _ways([*lost, {"W1": (801.0, 401.0, True), "W2": w2}])
    assert said == [None] * 6
    # seen again far off, but W2 lies beyond what the hardest shot reaches in four frames
    far = (3400.0, 1700.0, True)
    _, said = _ways([{**f, "W2": far} for f in lost] + [{"W1": (300.0, 900.0, True), "W2": far}])
    assert said == [None] * 6
    # rolling on the way it went when lost (seen again where its last speed took it): no
    rolling = [{"W1": (800.0 - 100 * k, 400.0, k not in (2, 3)), "W2": w2} for k in range(6)]
    _, said = _ways(rolling)
    assert said == [None] * 6


def test_of_two_whites_leaving_a_place_of_rest_the_one_whose_way_goes_back_through_it_was_there():
    rest = (200.0, 1600.0)
    ways, _ = _ways([{"W1": (200.0, 1450.0, True), "W2": (300.0, 1660.0, True)},
                     {"W1": (205.0, 1300.0, True), "W2": (540.0, 1660.0, True)}])
    # W1 goes up along x = 200 (through the place); W2 along y = 1660, 60 mm from it
    assert ways.struck_from(rest, since=0) == "W1"
    assert ways.struck_from(rest, since=1) is None  # (each must be seen twice since then)
    # straight on, both going the way through the place: their ways do not tell
    ways, _ = _ways([{"W1": (200.0, 1450.0, True), "W2": (200.0, 1500.0, True)},
                     {"W1": (200.0, 1300.0, True), "W2": (200.0, 1480.0, True)}])
    assert ways.struck_from(rest, since=0) is None
    # one still on the place: not yet
    ways, _ = _ways([{"W1": (200.0, 1450.0, True), "W2": (*rest, True)},
                     {"W1": (205.0, 1300.0, True), "W2": (*rest, True)}])
    assert ways.struck_from(rest, since=0) is None
