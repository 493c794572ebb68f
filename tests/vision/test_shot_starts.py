"""The game state before each later shot, told to the tracker once the shot before has been
judged (``Tracker.begin_shot``, ``track_video(..., shot_starts=...)``): hand-made detections,
and a committed clip of many shots fed as the referee feeds it."""

from __future__ import annotations

import json
import math
import queue
from pathlib import Path

import pytest

from rules.table import TableSpec
from vision.detection import Detection, VisionError
from vision.tracking import FrameTracks, ShotStart, Tracker

TABLE = TableSpec()
D = TABLE.ball_diameter_mm
POINT1 = (TABLE.length_mm / 4, TABLE.width_mm / 2)
POINT3 = (3 * TABLE.length_mm / 4, TABLE.width_mm / 2)
SAMPLES = Path(__file__).resolve().parents[2] / "sample_videos"
COLOUR = {"W1": "white", "W2": "white", "R1": "red", "R2": "red", "Y": "yellow"}


def det(x: float, y: float, colour: str, score: float = 0.85, **kw: object) -> Detection:
    return Detection(x_px=x / 3, y_px=y / 3, x_mm=x, y_mm=y, radius_px=11.0, colour=colour,
                     score=score, **kw)  # type: ignore[arg-type]


def at(places: dict[str, tuple[float, float]]) -> list[Detection]:
    return [det(x, y, COLOUR[b]) for b, (x, y) in places.items()]


def run(tracker: Tracker, frames: list[list[Detection]],
        told: dict[int, ShotStart] | None = None) -> dict[int, FrameTracks]:
    """Feed ``frames`` (numbered from 0), telling ``told[k]`` before frame k; every answer."""
    out: list[FrameTracks] = []
    for k, dets in enumerate(frames):
        if told and k in told:
            tracker.begin_shot(told[k])
        out += tracker.update(k, dets)
    out += tracker.flush()
    return {r.frame: r for r in out}


def near(r: FrameTracks, ball: str, xy: tuple[float, float], mm: float = 1.0) -> bool:
    got = r.balls.get(ball)
    return got is not None and got[2] and math.dist(got[:2], xy) < mm


# W1 (the first shooter's) rests in the house; struck at frame 12, it rolls 40 mm a frame to
# rest 600 mm on at frame 26
LAYOUT = {"W1": (500.0, 400.0), "W2": (2800.0, 400.0), "R1": (2000.0, 1200.0),
          "R2": (1500.0, 300.0), "Y": (1800.0, 600.0)}
W1_REST = (1100.0, 400.0)


def first_shot(still: dict[str, tuple[float, float]], frames_after: int,
               extra: list[Detection] | None = None) -> list[list[Detection]]:
    """Twelve frames at rest, W1 struck and rolling to W1_REST, then ``frames_after`` frames
    with W1 there (and ``still`` at rest throughout, ``extra`` in every frame after)."""
    frames = [at({**still, "W1": LAYOUT["W1"]})] * 12
    for k in range(1, 16):
        frames.append(at({**still, "W1": (LAYOUT["W1"][0] + 40.0 * k, 400.0)}))
    frames += [at({**still, "W1": W1_REST}) + list(extra or ())] * frames_after
    return frames


def test_a_white_in_hand_is_picked_up_only_in_the_house_once_the_state_says_so():
    # W2 leaves the table as W1 rolls (off it, nowhere near a pocket): the tracker has it
    # hidden where it was. The state, told after the rest, has W2 in its owner's hand, and he
    # plays next. A white thing that stays put mid-table is not W2; W2 put down in the house is.
    still = {b: xy for b, xy in LAYOUT.items() if b not in ("W1", "W2")}
    thing = det(2500.0, 1000.0, "white", score=0.7)
    frames = [at({**still, "W1": LAYOUT["W1"], "W2": LAYOUT["W2"]})] * 12
    for k in range(1, 16):
        frames.append(at({**still, "W1": (LAYOUT["W1"][0] + 40.0 * k, 400.0)}))
    frames += [at({**still, "W1": W1_REST})] * 45
    frames += [[*at({**still, "W1": W1_REST}), thing]] * 45
    frames += [at({**still, "W1": W1_REST, "W2": (600.0, 1200.0)})] * 20
    start = ShotStart(after_frame=27, cue_ball="W2", in_hand=frozenset({"W2"}),
                      positions={b: xy for b, xy in {**still, "W1": W1_REST}.items()})

    told = run(Tracker(TABLE, cue_ball="W1", start_positions=LAYOUT), frames, {72: start})
    assert all(not near(told[f], "W2", (2500.0, 1000.0), D) for f in range(72, 117))
    assert near(told[max(told)], "W2", (600.0, 1200.0))

    # (untold, the thing took W2's id)
    untold = run(Tracker(TABLE, cue_ball="W1", start_positions=LAYOUT), frames)
    assert near(untold[116], "W2", (2500.0, 1000.0))


@pytest.mark.parametrize("told_at", [50, 75])
def test_the_other_white_in_hand_waits_for_the_shooters_shot_to_be_over(told_at):
    # W1 pots W2 (by the foot right corner) and plays again: W2 is in its owner's hand. A white
    # thing in the house while W1's next shot is played (struck at frame 70, at rest from 85)
    # is not W2, told before that strike or after it; once every ball rests it may be W2, put
    # down by its owner.
    still = {b: xy for b, xy in LAYOUT.items() if b not in ("W1", "W2")}
    w2 = (3400.0, 150.0)
    thing = det(450.0, 1300.0, "white", score=0.7)
    frames = [at({**still, "W1": LAYOUT["W1"], "W2": w2})] * 12
    for k in range(1, 16):
        rolling = {"W2": (w2[0] + 25.0 * (k - 1), w2[1] - 25.0 * (k - 1))} if k < 5 else {}
        frames.append(at({**still, **rolling, "W1": (LAYOUT["W1"][0] + 40.0 * k, 400.0)}))
    frames += [at({**still, "W1": W1_REST})] * 28
    frames += [[*at({**still, "W1": W1_REST}), thing]] * 15
    frames += [[*at({**still, "W1": (W1_REST[0] + 40.0 * k, 400.0)}), thing]
               for k in range(1, 16)]
    frames += [[*at({**still, "W1": (W1_REST[0] + 600.0, 400.0)}), thing]] * 30
    start = ShotStart(after_frame=27, cue_ball="W1", in_hand=frozenset({"W2"}),
                      positions={**still, "W1": W1_REST})
    out = run(Tracker(TABLE, cue_ball="W1", start_positions=LAYOUT), frames, {told_at: start})
    assert all("W2" not in out[f].balls for f in range(told_at, 86))
    assert near(out[max(out)], "W2", (450.0, 1300.0))

    untold = run(Tracker(TABLE, cue_ball="W1", start_positions=LAYOUT), frames)
    assert near(untold[70], "W2", (450.0, 1300.0))  # (put down while the shot was played)


def pocketing_both_reds(places_after: list[tuple[int, str, tuple[float, float]]],
                        frames_after: int) -> list[list[Detection]]:
    """R1 (by the head right corner) and R2 (by the foot left one) roll into them as W1
    rolls; then each red of ``places_after`` (from frame, red, where) is put back."""
    reds = {"R1": (150.0, 150.0), "R2": (3400.0, 1625.0)}
    still = {"W2": LAYOUT["W2"], "Y": LAYOUT["Y"]}
    frames = [at({**still, **reds, "W1": LAYOUT["W1"]})] * 12
    for k in range(1, 16):
        rolling = {"R1": (150.0 - 25.0 * (k - 1), 150.0 - 25.0 * (k - 1)),
                   "R2": (3400.0 + 25.0 * (k - 1), 1625.0 + 25.0 * (k - 1))} if k < 5 else {}
        frames.append(at({**still, **rolling, "W1": (LAYOUT["W1"][0] + 40.0 * k, 400.0)}))
    for f in range(27, 27 + frames_after):
        back = {red: xy for since, red, xy in places_after if f >= since}
        frames.append(at({**still, "W1": W1_REST, **back}))
    return frames


# the state after that shot: R1 respotted on point 1, R2 (point 1 taken) on point 3
RESPOTTED = ShotStart(after_frame=27, cue_ball="W2", in_hand=frozenset(),
                      positions={"W1": W1_REST, "W2": LAYOUT["W2"], "Y": LAYOUT["Y"],
                                 "R1": POINT1, "R2": POINT3})


def test_a_respotted_ball_put_back_after_the_state_is_told_takes_its_own_id():
    # R2 is put back first (on point 3), R1 later (on point 1): untold, the first red put back
    # took the first free red id
    frames = pocketing_both_reds([(50, "R2", POINT3), (65, "R1", POINT1)], 60)
    out = run(Tracker(TABLE, cue_ball="W1", start_positions=LAYOUT), frames, {40: RESPOTTED})
    last = out[max(out)]
    assert near(last, "R1", POINT1) and near(last, "R2", POINT3)
    assert all(near(out[f], "R2", POINT3) for f in range(51, 80))  # (seen at once: expected)

    untold = run(Tracker(TABLE, cue_ball="W1", start_positions=LAYOUT), frames)
    assert near(untold[max(untold)], "R1", POINT3)


def test_a_respotted_ball_picked_up_before_the_state_is_told_is_named_by_its_spot():
    frames = pocketing_both_reds([(35, "R2", POINT3), (40, "R1", POINT1)], 60)
    out = run(Tracker(TABLE, cue_ball="W1", start_positions=LAYOUT), frames, {70: RESPOTTED})
    assert near(out[60], "R1", POINT3)  # (picked up for the first free id)
    for f in range(70, max(out) + 1):
        assert near(out[f], "R1", POINT1) and near(out[f], "R2", POINT3), f


def two_shots() -> list[list[Detection]]:
    """The first shot (W1), then W2 struck at frame 60 rolling 30 mm a frame toward the head
    for 40 frames, then at rest."""
    still = {b: xy for b, xy in LAYOUT.items() if b not in ("W1", "W2")}
    frames = first_shot(still, 33, [det(*LAYOUT["W2"], "white")])
    for k in range(1, 41):
        frames.append(at({**still, "W1": W1_REST, "W2": (2800.0 - 30.0 * k, 400.0)}))
    frames += [at({**still, "W1": W1_REST, "W2": (1600.0, 400.0)})] * 20
    return frames


@pytest.mark.parametrize("cue_ball", ["W2", "W1"])
def test_a_shot_start_told_after_the_next_strike_leaves_the_struck_ball_as_it_is(cue_ball):
    # The state comes while W2 rolls. Whether it names W2 (who struck) or W1 (W2 struck the
    # wrong white), nothing of the moment before the strike is applied after it: W2 is not
    # renamed nor held back to where it lay, and every answer is the untold one.
    frames = two_shots()
    start = ShotStart(after_frame=27, cue_ball=cue_ball, in_hand=frozenset(),
                      positions={**LAYOUT, "W1": W1_REST})
    untold = run(Tracker(TABLE, cue_ball="W1", start_positions=LAYOUT), frames)
    tracker = Tracker(TABLE, cue_ball="W1", start_positions=LAYOUT)
    told = run(tracker, frames, {75: start})
    assert tracker.cue_ball == cue_ball
    assert [told[f].balls for f in sorted(told)] == [untold[f].balls for f in sorted(untold)]
    assert near(told[90], "W2", (2800.0 - 30.0 * 31, 400.0), 5.0)  # (rolling)
    assert near(told[max(told)], "W2", (1600.0, 400.0), 5.0)
    assert near(told[max(told)], "W1", W1_REST)


def test_a_white_struck_while_the_state_names_the_other_is_followed():
    # Told before the strike that W1 plays (a verdict gone wrong, or a foul to come): W2 is
    # struck. The state told after a verdict is the referee's own reading, so either white may
    # be the one struck: W2 is followed as it rolls, not held to its place.
    frames = two_shots()
    start = ShotStart(after_frame=27, cue_ball="W1", in_hand=frozenset(),
                      positions={**LAYOUT, "W1": W1_REST})
    out = run(Tracker(TABLE, cue_ball="W1", start_positions=LAYOUT), frames, {45: start})
    for f in range(61, 100):
        assert near(out[f], "W2", (2800.0 - 30.0 * (f - 59), 400.0), 5.0), f
    assert near(out[max(out)], "W2", (1600.0, 400.0), 5.0)


def test_a_shot_start_told_before_the_strike_holds_the_other_balls_to_their_places():
    # Told before W2 is struck: the shot begins as the first one does. A reddish piece of the
    # player's forearm beside R2, while R2 is unseen under the arm, does not take R2 away:
    # nothing has been hit.
    still = {b: xy for b, xy in LAYOUT.items() if b not in ("W1", "W2", "R2")}
    frames = first_shot({**still, "R2": LAYOUT["R2"]}, 33, [det(*LAYOUT["W2"], "white")])
    arm = det(LAYOUT["R2"][0] + 50.0, LAYOUT["R2"][1] + 33.0, "red", score=0.4)
    frames += [[*at({**still, "W1": W1_REST, "W2": LAYOUT["W2"]}), arm]] * 20
    start = ShotStart(after_frame=27, cue_ball="W2", in_hand=frozenset(),
                      positions={**LAYOUT, "W1": W1_REST})
    out = run(Tracker(TABLE, cue_ball="W1", start_positions=LAYOUT), frames, {55: start})
    assert all(math.dist(out[f].balls["R2"][:2], LAYOUT["R2"]) < 1.0 for f in range(56, 80))

    # (untold, the shot before is the last known: R2 walked onto the arm)
    untold = run(Tracker(TABLE, cue_ball="W1", start_positions=LAYOUT), frames)
    assert math.dist(untold[79].balls["R2"][:2], LAYOUT["R2"]) > 0.5 * D


def test_a_shot_start_naming_balls_the_tracker_does_not_know_is_refused():
    tracker = Tracker(TABLE, cue_ball="W1", start_positions=LAYOUT)
    with pytest.raises(VisionError):
        tracker.begin_shot(ShotStart(10, "R1", frozenset(), LAYOUT))
    with pytest.raises(VisionError):
        tracker.begin_shot(ShotStart(10, "W1", frozenset({"W2"}), LAYOUT))


def test_a_shot_start_told_before_the_first_frames_names_the_balls_as_start_positions_do():
    told = Tracker(TABLE)
    told.begin_shot(ShotStart(-1, "W1", frozenset(), LAYOUT))
    given = Tracker(TABLE, cue_ball="W1", start_positions=LAYOUT)
    frames = first_shot({b: xy for b, xy in LAYOUT.items() if b != "W1"}, 20)
    a, b = run(told, frames), run(given, frames)
    assert [a[f].balls for f in sorted(a)] == [b[f].balls for f in sorted(b)]


def most_shots_clip() -> Path | None:
    """The committed labelled clip of the most shots (a match), if the clips are here."""
    clips = sorted(SAMPLES.glob("*.labels.json"))
    if not clips:
        return None
    return max(clips, key=lambda p: (len(json.loads(p.read_text())["shots"]), p.name))


def test_a_match_fed_its_game_state_after_each_shot_gives_its_labels_verdicts():
    """As the referee feeds it: each shot given out by the shot stream is judged, and the state
    after it (the labels' verdict: next shooter, whites in hand, positions with the respots)
    is put in the queue the tracker reads before each frame."""
    path = most_shots_clip()
    if path is None or not path.with_name(path.name.replace(".labels.json", ".mp4")).is_file():
        pytest.skip("no committed clips")
    from calibration import Calibration
    from referee.evaluate import score_clips
    from referee.labels import load_labels
    from rules import cue_ball_of
    from vision.shots import ShotStream
    from vision.tracking import track_video

    labels = load_labels(path)
    shots = labels.doc["shots"]
    assert len(shots) >= 10
    starts: queue.SimpleQueue[ShotStart] = queue.SimpleQueue()
    stream = ShotStream(labels.table, labels.fps)
    rows = []
    given = 0
    told = 0
    for r in track_video(labels.video_path, Calibration.from_dict(labels.doc["calibration"]),
                         labels.table, cue_ball=cue_ball_of(labels.start.shooter).value,
                         start_positions={b.value: xy for b, xy in labels.start.on_table.items()},
                         shot_starts=starts):
        rows += [(r.frame, b, x, y, v) for b, (x, y, v) in r.balls.items()]
        for shot in stream.feed(r.frame, r.balls):
            verdict = shots[given]["verdict"]
            given += 1
            if verdict["next_shooter"] is None:
                continue
            starts.put(ShotStart(
                after_frame=shot.rest_frame,
                cue_ball="W1" if verdict["next_shooter"] == 1 else "W2",
                in_hand=frozenset(verdict["in_hand"]),
                positions={b: (x, y) for b, (x, y) in verdict["positions_after"].items()}))
            told += 1
    assert told >= len(shots) - 2
    total = score_clips([(path.stem, labels, rows)])
    assert total.verdicts_equal == len(shots), total.lines
