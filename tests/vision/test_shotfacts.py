"""Shot facts from tracks: hand-made motions with known answers, and the labelled clips' true
tracks (hidden frames left out) against their labels."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from referee.evaluate import judge_found_shots, read_tracks, score_shots
from referee.labels import load_labels
from rules import EventType, Pocket, TableSpec
from vision.shots import facts
from vision.shots.facts import (
    FoundEvent,
    Sample,
    _kinked,
    _once_per_cushion_visit,
    _until_placed,
    cut_into_pieces,
    shots_from_tracks,
    tracks_from_rows,
)
from vision.shots.params import DEFAULT_SHOT_FACTS, ShotFactsParams, ShotFactsParamsError
from vision.shots.stream import shots_from_rows

FPS = 30.0
TABLE = TableSpec()
SAMPLES = Path(__file__).resolve().parents[2] / "sample_videos"


def straight(start: tuple[float, float], velocity: tuple[float, float], t0: float, t1: float,
             frames: range) -> list[tuple[int, float, float]]:
    """Positions of a ball moving at constant velocity from t0 (at rest before, stopped at t1)."""
    out = []
    for f in frames:
        t = min(max(f / FPS, t0), t1)
        out.append((f, start[0] + velocity[0] * (t - t0), start[1] + velocity[1] * (t - t0)))
    return out


def test_a_hit_on_a_ball_at_rest_is_timed_between_frames():
    # W1 rolls at 3 m/s along x and hits R1 full at t = 1.0 + 300/3000 = 1.1 s (between frames
    # 33 and 34); W1 stops dead (stun), R1 leaves at 3 m/s until t = 1.4 s.
    frames = range(0, 60)
    w1 = straight((1000.0, 800.0), (3000.0, 0.0), 1.0, 1.1, frames)
    r1 = straight((1368.0, 800.0), (3000.0, 0.0), 1.1, 1.4, frames)
    yy = [(f, 2500.0, 1200.0) for f in frames]
    tracks = {"W1": [Sample(f, f / FPS, (x, y)) for f, x, y in w1],
              "R1": [Sample(f, f / FPS, (x, y)) for f, x, y in r1],
              "Y": [Sample(f, f / FPS, (x, y)) for f, x, y in yy]}
    (shot,) = shots_from_tracks(TABLE, tracks, FPS)
    kinds = [(e["type"], e.get("ball") or tuple(e["balls"])) for e in shot["events"]]
    assert kinds == [("strike", "W1"), ("contact", ("W1", "R1"))]
    strike, contact = shot["events"]
    assert math.isclose(strike["t"], 1.0, abs_tol=0.004)
    assert math.isclose(contact["t"], 1.1, abs_tol=0.004)  # to a few ms, not a frame (33 ms)
    assert shot["final_positions"]["Y"] == [2500.0, 1200.0]


def test_a_ball_put_back_by_hand_is_not_a_shot():
    frames = range(0, 40)
    rows = [(f, "Y", 1800.0 if f < 20 else 1775.0, 887.5, True) for f in frames]
    rows += [(f, "W1", 500.0, 500.0, True) for f in frames]
    assert shots_from_tracks(TABLE, tracks_from_rows(rows, FPS), FPS) == []


def test_a_ball_struck_from_rest_soon_after_the_last_shot_stopped_starts_a_new_shot():
    # W1 rolls 1 s and stops at t = 1.5 s; R1, at rest all along, is struck 0.6 s later (under
    # next_strike_s) and rolls at 1.2 m/s: two shots. W1 instead creeping on after the tracker
    # held it in place 0.6 s (seen again 5 mm on, then 3 mm a frame for 56 mm): one shot.
    frames = range(0, 150)
    w1 = straight((500.0, 500.0), (1500.0, 0.0), 0.5, 1.5, frames)
    r1 = straight((2000.0, 900.0), (0.0, 1200.0), 2.1, 2.6, frames)
    yy = [(f, 2500.0, 1200.0) for f in frames]
    gap = round(2.1 * FPS) - round(1.5 * FPS)
    assert DEFAULT_SHOT_FACTS.still_frames < gap <= DEFAULT_SHOT_FACTS.next_strike_s * FPS
    tracks = {"W1": samples(w1), "R1": samples(r1), "Y": samples(yy)}
    shots = shots_from_tracks(TABLE, tracks, FPS)
    assert [(e["type"], e.get("ball")) for s in shots for e in s["events"]] == [
        ("strike", "W1"), ("strike", "R1")]
    crept = [(f, x + (0.0 if f < 63 else 5.0 + 3.0 * (min(f, 80) - 63)), y) for f, x, y in w1]
    still_r1 = [(f, 2000.0, 900.0) for f in frames]
    tracks = {"W1": samples(crept), "R1": samples(still_r1), "Y": samples(yy)}
    (shot,) = shots_from_tracks(TABLE, tracks, FPS)
    assert [(e["type"], e.get("ball")) for e in shot["events"]] == [("strike", "W1")]
    # R1's id jumping 250 mm onto the next player's hand, which then moves 20 mm a frame: no
    # strike (a struck ball leaves fastest), still the shot before's
    jumped = [(f, 2000.0, 900.0) if f < 63 else (f, 2000.0, 1150.0 + 20.0 * min(f - 63, 10))
              for f in frames]
    tracks = {"W1": samples(w1), "R1": samples(jumped), "Y": samples(yy)}
    (shot,) = shots_from_tracks(TABLE, tracks, FPS)
    assert shot["events"][0]["ball"] == "W1"


def samples(rows: list[tuple[int, float, float]]) -> list[Sample]:
    return [Sample(f, f / FPS, (x, y)) for f, x, y in rows]


def events_of(shot: dict) -> list[tuple[str, object]]:
    return [(e["type"], e.get("ball") or tuple(e["balls"])) for e in shot["events"]]


def test_a_resting_ball_that_jitters_before_the_strike_is_not_struck():
    """The yellow, half under the cue, is seen 6 mm off its place for one frame before W1 is
    struck: the strike is W1's."""
    frames = range(0, 60)
    w1 = straight((1000.0, 800.0), (2000.0, 0.0), 1.0, 1.5, frames)
    y = [(f, 2500.0 + (6.0 if f == 25 else 0.0), 1200.0) for f in frames]
    (shot,) = shots_from_tracks(TABLE, {"W1": samples(w1), "Y": samples(y)}, FPS)
    assert events_of(shot)[0] == ("strike", "W1")
    assert math.isclose(shot["events"][0]["t"], 1.0, abs_tol=0.004)


def test_a_ball_seen_a_little_off_its_place_and_then_unseen_under_the_cue_left_after_it():
    """As W1 in scratch_pocket_s71: under the cue's tip it is seen 2.3 mm off its place in its
    last frame at rest, then unseen for five frames (the cue over it), then rolling at 64 mm a
    frame. That last sample is no start of motion: the strike is where the rolling leads
    back to the place (frame 30), not half a frame after the sample (26.5)."""
    rest = (3160.0, 385.0)
    rows = [(f, "W1", *rest, True) for f in range(0, 26)]
    rows += [(26, "W1", 3160.9, 387.2, True)]
    v = (45.0, -45.0)
    rows += [(f, "W1", rest[0] + v[0] * (f - 30), rest[1] + v[1] * (f - 30), True)
             for f in range(32, 40)]
    rows += [(f, "Y", 1000.0, 900.0, True) for f in range(0, 60)]
    (shot,) = shots_from_tracks(TABLE, tracks_from_rows(rows, FPS), FPS)
    assert events_of(shot)[0] == ("strike", "W1")
    assert math.isclose(shot["events"][0]["t"] * FPS, 30.0, abs_tol=0.5)


def test_a_resting_ball_whose_detection_wanders_under_the_cue_and_comes_back_did_not_move():
    """R1 as tracked in scratch_pocket_s79: the cue lies over part of it for a second before W1
    is struck, and its detection wanders up to 33 mm off its place (in frames 6-8 further each
    frame, as a ball leaving would) and back onto it. It never left: the strike is W1's."""
    r1 = [(2869.4, 771.1), (2866.6, 772.2), (2866.6, 772.2), (2838.0, 771.3), (2837.8, 771.4),
          (2861.2, 758.4), (2864.1, 765.3), (2869.5, 741.7), (2870.1, 739.4), (2867.6, 743.9),
          (2867.6, 743.9), (2865.9, 769.2), (2865.4, 771.0), (2868.8, 739.1), (2868.8, 739.1),
          (2863.9, 761.0), (2865.3, 770.3), (2868.9, 759.1), (2868.9, 759.1), (2836.8, 774.9),
          (2867.5, 742.0), (2868.8, 741.2), (2865.6, 770.7), (2865.0, 770.7), (2865.2, 771.1),
          (2865.3, 771.0), (2868.3, 741.8), (2864.3, 770.9), (2865.0, 771.0), (2837.4, 778.8),
          (2840.1, 778.7), (2862.9, 765.2), (2864.1, 770.7), (2864.8, 760.3)]
    r1 += [(2864.1, 769.7)] * 7 + [(2866.4, 771.8)] * 30
    rows = [(f, "R1", x, y, True) for f, (x, y) in enumerate(r1)]
    rows += [(f, "W1", 3221.0 + 28.0 * max(0, f - 30), 330.0 - 28.0 * max(0, f - 30), True)
             for f in range(0, 43)]
    (shot,) = shots_from_tracks(TABLE, tracks_from_rows(rows, FPS), FPS)
    assert events_of(shot)[0] == ("strike", "W1")
    assert math.isclose(shot["events"][0]["t"] * FPS, 30.0, abs_tol=0.5)


def test_a_ball_seen_far_off_its_place_after_a_gap_and_then_back_on_it_did_not_move():
    """As R1 in touching_whites_s61: unseen for a frame under the player's arm, then seen
    90 mm off its place (a piece of the arm taken for it), then on its place again. Seen again
    more than a diameter away after a gap would be a ball struck too fast to follow; back on
    its place it never left: the strike is W1's."""
    rest = (1742.0, 493.0)
    rows = [(f, "R1", *rest, True) for f in range(0, 60) if f != 20]
    rows = [(f, "R1", 1820.0, 448.0, True) if f == 21 else r for r, f in
            ((r, r[0]) for r in rows)]
    rows += [(f, "W1", 800.0 + 40.0 * max(0, f - 26), 900.0, True) for f in range(0, 60)]
    (shot,) = shots_from_tracks(TABLE, tracks_from_rows(rows, FPS), FPS)
    assert events_of(shot)[0] == ("strike", "W1")


def test_a_resting_ball_seen_settled_a_little_off_its_place_at_the_end_of_a_stir_did_not_move():
    """As R1 in pot_HL_s79: after the cue came over it, R1 is seen 4.5 mm off the place it was
    seen at before (the same ball, measured a little differently), a hundredth of a mm further
    in each of the last frames of the stir. That is no strike: no shot there."""
    rest = (889.0, 888.0)
    off = {4: 28.0, 6: 49.0, 10: 49.0}
    rows = [(f, "R1", rest[0] + off.get(f, 4.45 + 0.005 * max(0, f - 10) if f >= 5 else 0.0),
             rest[1], True) for f in range(0, 60)]
    rows += [(f, "W1", 742.0, 1098.0, True) for f in range(0, 60)]
    assert shots_from_tracks(TABLE, tracks_from_rows(rows, FPS), FPS) == []


def test_a_ball_that_leaves_in_a_video_showing_each_picture_twice_and_drops_is_potted():
    """As R1 in video_9 of the club footage (a 30 fps video of a 15 fps one): each position
    is seen in two frames running. R1, hit, is seen twice 104 mm off its place, then twice past
    the foot-left pocket's mouth, dropping. It left, and it was potted there."""
    L, W = TABLE.length_mm, TABLE.width_mm
    rest = (L - 114.0, W - 106.0)
    rows = [(f, "R1", *rest, True) for f in range(0, 52)]
    rows += [(f, "R1", L - 32.0, W - 43.0, True) for f in (52, 53)]
    rows += [(f, "R1", L - 20.0, W - 20.0, True) for f in (54, 55)]
    rows += [(f, "W1", 1000.0 + 40.0 * max(0, f - 40), 900.0, True) for f in range(0, 90)]
    shots = shots_from_tracks(TABLE, tracks_from_rows(rows, FPS), FPS)
    pots = [(e["ball"], e["pocket"]) for s in shots for e in s["events"] if e["type"] == "pocket"]
    assert pots == [("R1", "FL")]


def test_a_ball_passing_by_a_kink_is_no_contact():
    """W1 seems deflected (a tracking error of 25 mm) just as R1 rolls by, unchanged:
    a contact changes both balls' motion, so this is none."""
    frames = range(0, 60)
    w1 = [(f, x, y + (25.0 if f == 40 else 0.0))
          for f, x, y in straight((1000.0, 800.0), (1500.0, 0.0), 1.0, 1.8, frames)]
    r1 = straight((1575.0, 400.0), (0.0, 1200.0), 1.0, 1.8, frames)  # 75 mm off at frame 40
    (shot,) = shots_from_tracks(TABLE, {"W1": samples(w1), "R1": samples(r1)}, FPS)
    assert [k for k, _ in events_of(shot)].count("contact") == 0


def test_a_fast_hitter_seen_badly_near_the_contact_still_hits():
    """W1 at 4 m/s hits the resting R1 a third of a frame after its last sample before the
    contact, which is 35 mm short along its line (a blurred streak cut short), and goes on
    deflected: its pieces cannot say where it was at the contact; the path it took past R1's
    place can."""
    frames = range(0, 60)
    t_hit = 1.0 + 350.0 / 4000.0  # frame 32.6
    before = straight((1000.0, 800.0), (4000.0, 0.0), 1.0, t_hit, frames)
    after = straight((1350.0, 800.0), (1500.0, -1500.0), t_hit, 1.6, frames)
    w1 = [(f, *(b[1:] if f / FPS <= t_hit else a[1:]))
          for f, b, a in zip(frames, before, after, strict=True)]
    w1 = [(f, x - (35.0 if f == 32 else 0.0), y) for f, x, y in w1]
    r1 = straight((1418.0, 800.0), (3000.0, 0.0), t_hit, 1.4, frames)
    (shot,) = shots_from_tracks(TABLE, {"W1": samples(w1), "R1": samples(r1)}, FPS)
    assert events_of(shot)[:2] == [("strike", "W1"), ("contact", ("W1", "R1"))]


def test_a_ball_at_rest_beside_the_hit_ball_did_not_hit_it():
    """W1 hits R1 (its track 20 mm short near the contact); W2 lies still, nearly touching R1 on
    the other side: the nearest ball at a diameter is W2, but only a moving ball can hit."""
    frames = range(0, 60)
    w1 = straight((1000.0, 800.0), (3000.0, 0.0), 1.0, 1.1, frames)
    w1 = [(f, x - (20.0 if f >= 33 else 0.0), y) for f, x, y in w1]
    r1 = straight((1368.0, 800.0), (3000.0, 0.0), 1.1, 1.4, frames)
    w2 = [(f, 1368.0, 800.0 + 69.0) for f in frames]
    (shot,) = shots_from_tracks(TABLE, {"W1": samples(w1), "R1": samples(r1),
                                        "W2": samples(w2)}, FPS)
    assert [e for e in events_of(shot) if e[0] == "contact"] == [("contact", ("W1", "R1"))]


def test_a_ball_comes_off_a_cushion_once_until_something_turns_it_back():
    """W1 comes off the left cushion; a second kink there 0.1 s later (the track wobbling as it
    leaves the corner) is the same visit. After a ball or another cushion, it may come back."""
    def cushion(t: float, which: str) -> FoundEvent:
        return FoundEvent(t, "cushion", ("W1",), (3400.0, 1730.0), cushion=which)

    wobble = [cushion(1.0, "left"), cushion(1.1, "left"), cushion(1.2, "foot")]
    assert [(e.t, e.cushion) for e in _once_per_cushion_visit(wobble)] == [(1.0, "left"),
                                                                         (1.2, "foot")]
    back = [cushion(1.0, "left"), FoundEvent(1.5, "contact", ("R1", "W1"), (3000.0, 900.0)),
            cushion(2.0, "left"), cushion(2.5, "right"), cushion(3.0, "left")]
    assert _once_per_cushion_visit(back) == back
    other = [cushion(1.0, "left"), FoundEvent(1.1, "cushion", ("W2",), (3400.0, 1730.0),
                                              cushion="left")]
    assert _once_per_cushion_visit(other) == other


def test_a_ball_lost_in_the_open_cloth_did_not_leave_the_table():
    """W1 hits R1 mid-table; the tracker loses R1 two frames later, 600 mm from any cushion:
    no ball leaves the table there. Y, rolling fast at the left cushion and gone, did."""
    frames = range(0, 60)
    w1 = straight((1000.0, 800.0), (3000.0, 0.0), 1.0, 1.1, frames)
    r1 = [s for s in straight((1368.0, 800.0), (3000.0, 0.0), 1.1, 1.4, frames) if s[0] <= 35]
    y = [s for s in straight((2500.0, 1300.0), (0.0, 3000.0), 1.15, 1.6, frames)
         if s[0] <= 40 and s[2] < TABLE.width_mm - 20]
    (shot,) = shots_from_tracks(TABLE, {"W1": samples(w1), "R1": samples(r1),
                                        "Y": samples(y)}, FPS)
    assert [e for e in events_of(shot) if e[0] == "off_table"] == [("off_table", "Y")]


def test_a_sample_far_off_a_straight_motion_that_goes_on_is_left_out():
    """W1 rolls straight; at frame 40 it is measured 25 mm off its line (merged with a ball it
    passes), then back on it: one straight piece. Off by 25 mm for good: a kink, two pieces."""
    frames = range(30, 50)
    w1 = straight((1000.0, 800.0), (1500.0, 0.0), 1.0, 2.0, frames)
    glitch = [(f, x, y + (25.0 if f == 40 else 0.0)) for f, x, y in w1]
    (piece,) = cut_into_pieces(samples(glitch))
    assert 40 not in [s.frame for s in piece.samples] and len(piece.samples) == 19
    kink = [(f, x, y + (25.0 if f >= 40 else 0.0)) for f, x, y in w1]
    assert len(cut_into_pieces(samples(kink))) == 2


def test_a_slow_ball_turned_by_a_kiss_is_cut_where_it_turned():
    """W2 rolls slowly (7 mm a frame) toward a cushion-side ball, is kissed at frame 51.4 and
    goes back at 5 mm a frame: one frame after the kiss it is only 6 mm off its old line, less
    than the tolerance, and a fit that takes it in bends to the next. Still two pieces, cut at
    the kiss: its first sample after the kiss starts the second piece."""
    frames = range(44, 70)
    kiss = 51.4 / FPS
    before = straight((3076.0, 1730.0), (120.0, -210.0), 44 / FPS, kiss, frames)
    turn = (before[-1][1], before[-1][2])
    rows = [(f, x, y) if f / FPS <= kiss else
            (f, turn[0] + 140.0 * (f / FPS - kiss), turn[1] + 60.0 * (f / FPS - kiss))
            for f, x, y in before]
    first, second = cut_into_pieces(samples(rows))
    assert first.end.frame == 51 and second.start.frame == 52


def test_a_slow_ball_kissed_turns_by_less_than_the_noise_of_a_fast_one_and_still_turned():
    # carom_3_s11: W1 at 90 mm/s kisses Y and goes on at 23 mm/s the other way; the change
    # (112 mm/s) is under what a fast ball's track wobbles by, but half the ball's speed.
    assert _kinked(np.array([77.0, -46.0]), np.array([-16.0, 17.0]), DEFAULT_SHOT_FACTS)
    # a fast ball whose fit wobbles by 100 mm/s has not turned; nor a slow one by 40 mm/s
    assert not _kinked(np.array([1500.0, 0.0]), np.array([1480.0, 98.0]), DEFAULT_SHOT_FACTS)
    assert not _kinked(np.array([60.0, 0.0]), np.array([50.0, 39.0]), DEFAULT_SHOT_FACTS)


def clips() -> list[Path]:
    return sorted(SAMPLES.glob("*.labels.json"))


@pytest.mark.skipif(not clips(), reason="sample clips not made")
def test_true_tracks_of_the_labelled_clips_give_the_labelled_facts_and_verdicts():
    totals: dict[EventType, list[int]] = {t: [0, 0, 0] for t in EventType}
    shots = equal = 0
    for path in clips():
        labels = load_labels(path)
        rows = [(f, b, x, y, v) for (f, b), (x, y, v) in read_tracks(labels.tracks_path).items()]
        found = shots_from_tracks(labels.table, tracks_from_rows(rows, labels.fps), labels.fps)
        scores = score_shots(labels.doc["shots"], judge_found_shots(labels, found))
        for t, c in scores.events.items():
            totals[t][0] += c.tp
            totals[t][1] += c.fp
            totals[t][2] += c.fn
        shots += scores.shots
        equal += scores.verdicts_equal
    precision = {t: tp / max(tp + fp, 1) for t, (tp, fp, fn) in totals.items()}
    recall = {t: tp / max(tp + fn, 1) for t, (tp, fp, fn) in totals.items()}
    for kind in (EventType.STRIKE, EventType.CONTACT, EventType.POCKET, EventType.OFF_TABLE):
        assert precision[kind] >= 0.98, (kind, precision[kind])
    assert recall[EventType.STRIKE] == recall[EventType.POCKET] == 1.0
    assert recall[EventType.CONTACT] >= 0.95
    # Cushions are the weak point (jaw rattles and cushions right after another event).
    assert recall[EventType.CUSHION] >= 0.8
    assert equal == shots, f"verdicts equal to the label: {equal}/{shots}"


def test_a_resting_ball_whose_detection_flickers_between_two_places_did_not_move():
    """W1 rests at one place, seen for a few frames 30 mm off (a touching ball's split
    changing) and back: no real ball jumps from rest to rest, so nothing happened."""
    from vision.shots.facts import Sample, _without_rest_flicker
    place, other = (1000.0, 500.0), (1000.0, 530.0)
    xys = [place] * 5 + [other] * 3 + [place] * 4 + [other] * 2 + [place] * 3
    samples = [Sample(k, k / 30, xy) for k, xy in enumerate(xys)]
    assert all(s.xy == place for s in _without_rest_flicker(samples, DEFAULT_SHOT_FACTS))
    # a ball that is hit and rolls on, or one that moves and stays, is left as it was
    rolls = [Sample(k, k / 30, (1000.0 + max(0, k - 4) * 30.0, 500.0)) for k in range(12)]
    assert _without_rest_flicker(rolls, DEFAULT_SHOT_FACTS) == rolls
    stays = samples[:8]
    assert [s.xy for s in _without_rest_flicker(stays, DEFAULT_SHOT_FACTS)] == xys[:8]


def test_a_ball_struck_back_through_the_place_it_rolled_off_did_not_flicker_there():
    """demo_match, W2: slowing to rest it stepped 1.8 mm off one sample and stayed; 800 frames
    later it was struck back across that sample's place. Passing through a place is not being
    back at rest on it: the samples between are real and stay as they were."""
    from vision.shots.facts import Sample, _without_rest_flicker
    xs = [0.0, 0.0, 0.0, 1.8, 1.8, 1.8, 1.8, 1.8, 1.8, -1.0, -9.0, -17.0, -25.0]
    samples = [Sample(k, k / 30, (1000.0 + x, 500.0)) for k, x in enumerate(xs)]
    assert _without_rest_flicker(samples, DEFAULT_SHOT_FACTS) == samples
    # back on the place and staying near it (between two readings 1.6 mm apart): flicker
    flicker = [*samples[:9], *(Sample(k, k / 30, (1000.0 + (k % 2) * 1.6, 500.0))
                               for k in range(9, 13))]
    steady = _without_rest_flicker(flicker, DEFAULT_SHOT_FACTS)
    assert all(s.xy == (1000.0, 500.0) for s in steady[:9])


def test_a_rolling_ball_unseen_a_few_frames_rolled_on_a_ball_unseen_and_elsewhere_was_placed():
    # rolling at 30 mm a frame, unseen for four frames (in a cluster of balls), seen again
    # further along its way: still the same roll
    xs = [1000.0 + 30.0 * k for k in range(6)] + [1000.0 + 30.0 * k for k in range(10, 14)]
    frames = [*range(6), *range(10, 14)]
    rolling = [Sample(f, f / 30, (x, 500.0)) for f, x in zip(frames, xs, strict=True)]
    assert _until_placed(rolling, DEFAULT_SHOT_FACTS) == rolling
    # at rest, unseen four frames (a hand over it), then 120 mm away, staying: put there by hand
    rest = [Sample(f, f / 30, (1000.0, 500.0)) for f in range(6)]
    moved = [*rest, *(Sample(f, f / 30, (1120.0, 500.0)) for f in range(10, 14))]
    assert _until_placed(moved, DEFAULT_SHOT_FACTS) == rest
    # rolling, unseen, then seen off its way (sideways), staying: put there by hand
    aside = [*rolling[:6], *(Sample(f, f / 30, (1150.0, 620.0)) for f in range(10, 14))]
    assert _until_placed(aside, DEFAULT_SHOT_FACTS) == rolling[:6]


def test_a_ball_seen_blurred_in_the_frame_it_came_off_a_cushion_still_came_off_it():
    """R1 rolls at 100 mm a frame into the left cushion and comes off it; in the frame of the
    bounce its blurred picture lies between the lines in and out (on neither). The lines meet
    at the cushion: one piece ends there, the other starts there, and that is a bounce."""
    w, r = TABLE.width_mm, TABLE.ball_radius_mm
    bounce = 44.3  # frames

    def y(f: int) -> float:  # struck at frame 30 from y = w - r - 1430, toward the cushion
        f = max(f, 30)
        return w - r - abs(f - bounce) * (100.0 if f < bounce else 70.0)

    rows = [(f, 1600.0 + 5.0 * max(f - 30, 0), y(f) - (12.0 if f == 44 else 0.0))
            for f in range(20, 60)]  # at rest, then rolling; blurred at the bounce
    shots = shots_from_tracks(TABLE, tracks_from_rows(
        [(f, "R1", x, y, True) for f, x, y in rows], FPS), FPS)
    cushions = [e for s in shots for e in s["events"] if e["type"] == "cushion"]
    assert [(c["cushion"], round(c["t"] * FPS)) for c in cushions] == [("left", 44)]


def test_a_fast_ball_blurred_in_two_frames_at_a_cushion_still_came_off_it():
    """As Y in bank_yellow_corner_s37: 75 mm a frame into the left cushion and off it; the two
    frames about the bounce are both measured short of the cushion (their streaks bent or cut),
    on neither line. The lines meet at the cushion: a bounce there, not two kinks 40 mm off."""
    w, r = TABLE.width_mm, TABLE.ball_radius_mm
    bounce = 45.6  # frames

    def y(f: int) -> float:  # struck at frame 30, toward the cushion
        f = max(f, 30)
        return w - r - abs(f - bounce) * (68.0 if f < bounce else 45.0)

    def x(f: int) -> float:
        f = max(f, 30)
        return 2240.0 - (f - bounce) * (36.0 if f < bounce else 25.0)

    short = {45: (22.0, -20.0), 46: (6.0, -25.0)}  # the two blurred pictures, off both lines
    rows = [(f, x(f) + short.get(f, (0.0, 0.0))[0], y(f) + short.get(f, (0.0, 0.0))[1])
            for f in range(20, 60)]
    shots = shots_from_tracks(TABLE, tracks_from_rows(
        [(f, "Y", px, py, True) for f, px, py in rows], FPS), FPS)
    cushions = [e for s in shots for e in s["events"] if e["type"] == "cushion"]
    assert [(c["cushion"], round(c["t"] * FPS)) for c in cushions] == [("left", 46)]


def test_a_fast_ball_vanishing_on_its_way_into_a_corner_pocket_is_potted():
    """R1 at 5 m/s, last seen 210 mm from the foot-right pocket's point and rolling straight at
    it: potted there (two frames' travel), not off the table; rolling past the pocket along the
    cushion instead, it was not potted there."""
    L = TABLE.length_mm
    last = (L - 150.0, 152.0)
    v = (-1.0 / math.sqrt(2), 1.0 / math.sqrt(2))  # unit, away from the pocket

    def run(direction: tuple[float, float]) -> list[tuple[str, object]]:
        # at rest, then struck at 170 mm a frame; last seen at ``last`` in frame 35
        path = [(last[0] - direction[0] * 170.0 * (35 - f),
                 last[1] - direction[1] * 170.0 * (35 - f)) for f in range(30, 36)]
        rows = [(f, "R1", *path[0], True) for f in range(20, 30)]
        rows += [(f, "R1", x, y, True) for f, (x, y) in zip(range(30, 36), path, strict=True)]
        shots = shots_from_tracks(TABLE, tracks_from_rows(rows, FPS), FPS)
        return [(e["type"], e.get("pocket")) for s in shots for e in s["events"]
                if e["type"] in ("pocket", "off_table")]

    assert run((-v[0], -v[1])) == [("pocket", "FR")]
    assert ("pocket", "FR") not in run((1.0, 0.0))


def test_a_ball_hit_and_seen_once_heading_into_a_corner_pocket_is_potted_there():
    """As in fast_shot_s23: W1, struck at 6 m/s, is unseen for three frames and found again
    rolling slowly at 10 mm a frame after hitting R1 (struck, not placed: it rolls). R1 is seen
    once, 267 mm from its place and 490 mm from the foot-right pocket's point, heading
    straight at it, and never again: its speed known only from that one step (it left its
    place some time in it), it was potted there."""
    rows = [(f, "W1", 2561.0, 950.0, True) for f in range(0, 30)]
    rows += [(f, "W1", 2967.0 + 10.5 * (f - 33), 583.0, True) for f in range(33, 60)]
    rows += [(f, "R1", 3016.0, 531.0, True) for f in range(0, 33)]
    rows += [(34, "R1", 3205.0, 344.0, True)]
    rows += [(f, "Y", 1000.0, 900.0, True) for f in range(0, 60)]
    (shot,) = shots_from_tracks(TABLE, tracks_from_rows(rows, FPS), FPS)
    assert [(e["type"], e.get("ball") or tuple(e["balls"]), e.get("pocket"))
            for e in shot["events"]] == [("strike", "W1", None), ("contact", ("W1", "R1"), None),
                                         ("pocket", "R1", "FR")]


def test_a_ball_hit_hard_and_seen_once_leaves_as_fast_as_its_hitter_slowed():
    """As in fast_shot_s191: W1 at 7 m/s hits R1 full and nearly stops. R1 is seen once, its
    picture a streak's back piece 140 mm from its place (its speed read as 4 m/s), 677 mm from
    the foot-right pocket's point, rolling straight at it, and never again: it took W1's
    velocity (equal masses), fast enough to get there unseen, and was potted. Hit thinly (W1
    rolling on as fast), the same sighting is a ball the tracker lost: no pot."""

    def run(w1_after: tuple[float, float]) -> list[tuple[str, object, object]]:
        rows = [(f, "W1", 2300.0, 1265.0, True) for f in range(0, 29)]
        rows += [(f, "W1", 2300.0 + 155.0 * (f - 28), 1265.0 - 160.0 * (f - 28), True)
                 for f in range(29, 34)]
        rows += [(f, "W1", 2920.0 + w1_after[0] * (f - 33), 625.0 + w1_after[1] * (f - 33), True)
                 for f in range(34, 60)]
        rows += [(f, "R1", 2972.0, 577.0, True) for f in range(0, 34)]
        rows += [(34, "R1", 3072.0, 479.0, True)]
        rows += [(f, "Y", 1392.0, 1366.0, True) for f in range(0, 60)]
        (shot,) = shots_from_tracks(TABLE, tracks_from_rows(rows, FPS), FPS)
        return [(e["type"], e.get("ball") or tuple(e["balls"]), e.get("pocket"))
                for e in shot["events"]]

    assert run((4.0, -7.0)) == [("strike", "W1", None), ("contact", ("W1", "R1"), None),
                                ("pocket", "R1", "FR")]
    assert ("pocket", "R1", "FR") not in run((140.0, -60.0))


def test_a_ball_hit_from_rest_by_one_of_two_near_balls_was_hit_by_the_one_it_left_away_from():
    """As in carom_2_s71: W1 hits W2 and rolls on into Y. Y's picture creeps as W1 comes, so
    its start is timed a frame early, when W2 (just set moving) is as near to it as W1. Y
    left along the line from W1 through it, far off the line from W2: W1 hit it."""
    y0 = (3357.0, 1230.0)
    w1 = {f: (3441.0 - 17.0 * (f - 52), 1283.0 - 8.0 * (f - 52)) for f in range(30, 55)}
    w1.update({f: (3407.0 - 4.0 * (f - 54), 1267.0 + 2.0 * (f - 54)) for f in range(55, 70)})
    rows = [(f, "W1", *xy, True) for f, xy in w1.items()]
    rows += [(f, "W2", 3430.0, 1212.0 - 7.0 * max(0, f - 52), True) for f in range(0, 70)]
    away = (-0.83, -0.56)  # from W1 through Y at their touch
    rows += [(f, "Y", y0[0] + 6.0 * away[0] * max(0, f - 53),
              y0[1] + 6.0 * away[1] * max(0, f - 53), True) for f in range(0, 70)]
    (shot,) = shots_from_tracks(TABLE, tracks_from_rows(rows, FPS), FPS)
    contacts = [tuple(e["balls"]) for e in shot["events"] if e["type"] == "contact"]
    assert ("W1", "Y") in contacts and ("W2", "Y") not in contacts


def test_a_ball_hit_by_the_only_rolling_ball_while_that_ball_was_unseen_was_hit_by_it():
    """W1 is struck too hard to be seen for two frames; in between Y, at rest, starts moving.
    Nothing else moves: W1 hit Y (its chord between sightings cuts the corner of its
    deflection, so no path passes where the hitter must have been)."""
    rows = [(f, "W1", 1000.0, 600.0, True) for f in range(20, 31)]
    rows += [(f, "W1", 1000.0 + 300.0 * (f - 30), 600.0 + 250.0 * (f - 32), True)
             for f in range(33, 40)]
    y_rest = (1400.0, 800.0)
    rows += [(f, "Y", *y_rest, True) for f in range(20, 32)]
    rows += [(f, "Y", y_rest[0] + 40.0 * (f - 31.4), y_rest[1] + 40.0 * (f - 31.4), True)
             for f in range(32, 40)]
    shots = shots_from_tracks(TABLE, tracks_from_rows(rows, FPS), FPS)
    contacts = [e for s in shots for e in s["events"] if e["type"] == "contact"]
    assert [(c["balls"], round(c["t"] * FPS)) for c in contacts] == [(["W1", "Y"], 31)]


def pot_frames(rows: list[tuple[int, str, float, float, bool]]) -> list[tuple[str, int]]:
    """The pots (pocket, frame) found in the tracks of ``rows``."""
    shots = shots_from_tracks(TABLE, tracks_from_rows(rows, FPS), FPS)
    return [(e["pocket"], round(e["t"] * FPS)) for s in shots for e in s["events"]
            if e["type"] == "pocket"]


def first_events(rows: list[tuple[int, str, float, float, bool]], n: int
                 ) -> list[tuple[str, object]]:
    """The first ``n`` events (type, ball or balls) found in the tracks of ``rows``."""
    shots = shots_from_tracks(TABLE, tracks_from_rows(rows, FPS), FPS)
    return [(e["type"], e.get("ball") or e.get("balls")) for s in shots for e in s["events"]][:n]


def seen_rows(ball: str, first: int, seen: list[tuple[float, float]], still: int = 12
              ) -> list[tuple[int, str, float, float, bool]]:
    """Rows of ``ball`` seen at ``seen`` from frame ``first`` on, then still for ``still``
    frames at its last place (so that the shot ends)."""
    return [(first + k, ball, x, y, True) for k, (x, y) in enumerate(seen + [seen[-1]] * still)]


def test_whites_resting_touching_left_together_though_their_starts_differ_by_two_frames():
    """As in touching_whites_s127: W1 is struck into W2, which touches it; both leave at frame
    30. W2's first sightings read it accelerating (its start extrapolated back to 29), W1 is
    seen in place at 30-31 and unseen at 32 (its start: 31). Resting touching, they left
    together: W2 leaves along their line of centres, pushed by W1, the striker."""
    w1 = [(2094.8, 739.6)] * 4 + [(2092.0, 739.4)] * 2 + [None, (2033.3, 751.7),
                                                         (2015.2, 753.2), (1994.1, 757.1)]
    w2 = [(2074.4, 675.6)] * 4 + [(2073.6, 674.3), (2069.2, 654.3), (2064.3, 643.6),
                                  (2060.6, 629.2), (2056.2, 615.1), (2050.0, 596.8)]
    rows = [(f, "W1", 2094.8, 739.6, True) for f in range(10, 26)]
    rows += [(f, "W2", 2074.4, 675.6, True) for f in range(10, 26)]
    for k, (a, b) in enumerate(zip(w1, w2, strict=True)):
        if a is not None:
            rows.append((26 + k, "W1", *a, True))
        rows.append((26 + k, "W2", *b, True))
    rows += [(f, "W1", 1994.1 - 21.0 * (f - 35), 757.1 + 2.0 * (f - 35), True)
             for f in range(36, 50)]
    rows += [(f, "W2", 2050.0 - 5.0 * (f - 35), 596.8 - 15.0 * (f - 35), True)
             for f in range(36, 50)]
    assert first_events(rows, 2) == [("strike", "W1"), ("contact", ["W1", "W2"])]


def rows_of(tracks: dict[str, list[tuple[int, float, float]]], first: int = 10
            ) -> list[tuple[int, str, float, float, bool]]:
    """Rows of sampled tracks ``(frame, x, y)``, each ball seen at its first place from
    ``first`` on, and rolling on after its last sample at its last step's pace."""
    rows = []
    for ball, samples in tracks.items():
        f0, x0, y0 = samples[0]
        rows += [(f, ball, x0, y0, True) for f in range(first, f0)]
        rows += [(f, ball, x, y, True) for f, x, y in samples]
        (fa, xa, ya), (fb, xb, yb) = samples[-2:]
        vx, vy = (xb - xa) / (fb - fa), (yb - ya) / (fb - fa)
        rows += [(fb + k, ball, xb + vx * k, yb + vy * k, True) for k in range(1, 6)]
    return rows


# W1 struck at 16-17 m/s into R1 (resting 450-500 mm away), as in bank_red_corner_s137/s139
S137_TRUE = {"W1": [(30, 981.4, 544.0), (31, 626.2, 928.0), (32, 216.3, 1234.5),
                    (33, 214.6, 1491.5), (34, 539.1, 1708.4), (35, 836.1, 1594.5),
                    (36, 1126.8, 1423.1), (37, 1415.5, 1252.9), (38, 1702.5, 1083.9)],
             "R1": [(30, 700.2, 957.5), (31, 705.3, 964.2), (32, 765.7, 1045.9),
                    (33, 824.9, 1125.8), (34, 882.7, 1204.0), (35, 939.3, 1280.4),
                    (36, 994.5, 1355.1), (37, 1048.5, 1428.0), (38, 1101.2, 1499.2)]}
S137_TRACKED = {"W1": [(30, 979.6, 546.5), (32, 311.3, 1160.1), (33, 233.4, 1502.1),
                       (34, 450.0, 1642.8), (35, 754.1, 1640.3), (36, 1123.7, 1422.4),
                       (37, 1305.4, 1311.4), (38, 1606.1, 1142.2), (39, 1887.7, 975.9)],
                "R1": [(31, 699.1, 957.3), (32, 765.0, 1045.3), (33, 822.3, 1126.8),
                       (34, 881.3, 1203.9), (35, 935.5, 1277.9), (36, 994.0, 1354.5),
                       (37, 1048.3, 1429.1), (38, 1099.2, 1497.2), (39, 1151.0, 1566.7)]}
S139_TRACKED = {"W1": [(30, 1806.4, 637.2), (47, 3413.6, 1718.4), (48, 3498.0, 1656.6),
                       (49, 3351.4, 1536.0), (50, 3205.6, 1433.4), (51, 3071.9, 1338.7),
                       (52, 2934.4, 1240.9)],
                "R1": [(30, 1527.3, 1050.5), (31, 1540.6, 1067.3), (32, 1612.7, 1168.7),
                       (33, 1684.9, 1269.7), (34, 1753.8, 1360.5), (35, 1825.2, 1459.6),
                       (36, 1890.1, 1547.7), (37, 1952.6, 1638.7), (38, 2013.8, 1718.6),
                       (39, 2068.5, 1680.8), (40, 2113.9, 1612.9), (41, 2159.0, 1545.5)]}


@pytest.mark.parametrize("tracks", [S137_TRUE, S137_TRACKED, S139_TRACKED],
                         ids=["s137-true", "s137-tracked", "s139-tracked"])
def test_a_cue_ball_struck_faster_than_the_hardest_shot_struck_the_ball_it_hit(tracks):
    """The cue ball struck at 16-17 m/s hits R1 within a frame.
    - True track (s137): 522 mm in the first frame, 500 in the next, 257 in the one after (a
      cushion bounce inside it shortens the step): rolling on as fast, not put down by hand.
    - Tracked (s137): unseen at 31, seen next 907 mm away: its path from its place passed
      where R1's hitter must have been (its place is before the shot's first frame).
    - Tracked (s139): unseen for 16 frames, R1 leaving a third of a frame after it: far apart,
      they did not leave together; the order of their starts says W1 was struck."""
    assert first_events(rows_of(tracks), 2) == [("strike", "W1"), ("contact", ["W1", "R1"])]


def test_a_ball_struck_unseen_and_back_rolling_after_a_turn_was_struck_not_placed():
    """As W1 in bank_yellow_corner_s19: struck at 12 m/s, unseen for four frames (a blur, a
    collision with Y, a cushion), then seen rolling far from its place, on a line that does
    not lead back to it. It was struck first (before Y started) and hit Y; a hand puts a ball
    down at rest, so this is no ball placed by hand."""
    rows = [(f, "W1", 1950.0, 305.0, True) for f in range(20, 31)]
    rows += [(f, "W1", 3380.0 - 220.0 * (f - 35), 1430.0 - 110.0 * (f - 35), True)
             for f in range(35, 45)]
    y_rest = (2213.0, 731.0)
    rows += [(f, "Y", *y_rest, True) for f in range(20, 32)]
    rows += [(f, "Y", y_rest[0] - 60.0 * (f - 31.3), y_rest[1] + 100.0 * (f - 31.3), True)
             for f in range(32, 45)]
    assert first_events(rows, 2) == [("strike", "W1"), ("contact", ["W1", "Y"])]
    # at rest and back elsewhere at rest (or creeping, as a hand moves a ball): placed
    rest = [Sample(f, f / FPS, (1950.0, 305.0)) for f in range(20, 31)]
    put = [Sample(f, f / FPS, (2400.0 + 5.0 * (f - 35), 700.0)) for f in range(35, 45)]
    assert _until_placed(rest + put, DEFAULT_SHOT_FACTS) == rest


def test_a_ball_that_rattles_in_a_middle_pocket_s_jaws_and_comes_out_touched_the_cushion():
    """As R1 in bank_red_corner_s47: into the left middle pocket's mouth, off its jaws (the
    ends of the left cushion's nose, points) and back out: a cushion contact of the left
    cushion (then a bank into another pocket), though the centre came nearer the nose line than
    a radius (the turn lies in the mouth, a radius from a jaw)."""
    L, W = TABLE.length_mm, TABLE.width_mm
    turn = (L / 2 - 0.3, W - 6.6)  # 41.7 mm from the jaw at L/2 - 41.5

    def xy(f: float) -> tuple[float, float]:
        f = max(f, 30.0)
        if f < 49.25:
            return turn[0] - 45.0 * (49.25 - f), turn[1] - 82.0 * (49.25 - f)
        return turn[0] + 11.0 * (f - 49.25), turn[1] - 41.0 * (f - 49.25)

    rows = [(f, "R1", *xy(f), True) for f in range(20, 70)]
    shots = shots_from_tracks(TABLE, tracks_from_rows(rows, FPS), FPS)
    cushions = [(e["cushion"], round(e["t"] * FPS)) for s in shots for e in s["events"]
                if e["type"] == "cushion"]
    assert cushions == [("left", 49)]


def test_the_jaws_are_the_ends_of_the_cushion_noses_at_the_pockets():
    from vision.shots.facts import nearest_jaw
    L, W, a = TABLE.length_mm, TABLE.width_mm, TABLE.jaw_offset_mm(Pocket.HR)
    m = TABLE.jaw_offset_mm(Pocket.ML)
    cases = {(40.0, 100.0): ("head", (0.0, a)), (100.0, 40.0): ("right", (a, 0.0)),
             (L - 100.0, W - 40.0): ("left", (L - a, W)), (40.0, W - 100.0): ("head", (0.0, W - a)),
             (L / 2 + 30.0, 20.0): ("right", (L / 2 + m, 0.0))}
    for xy, (cushion, jaw) in cases.items():
        c, where, gap = nearest_jaw(TABLE, xy)
        assert (c.value, where) == (cushion, pytest.approx(jaw)), xy
        assert gap == pytest.approx(abs(math.dist(xy, jaw) - TABLE.ball_radius_mm))


def test_a_ball_struck_at_14_m_s_unseen_three_frames_hit_the_ball_that_then_moved():
    """As W1 in bank_red_corner_s41: struck at 14 m/s, unseen for the next two frames (a blur,
    the contact with R1, two cushions), seen again 1240 mm away (faster than any hand, as fast
    as the hardest shot) and rolling on. R1, at rest, starts moving meanwhile: W1 struck first
    and hit R1, though W1's samples in the shot begin only after it."""
    rows = [(f, "W1", 854.0, 494.0, True) for f in range(10, 31)]
    rows += [(f, "W1", 186.0 + 150.0 * (f - 33), 1536.0 - 80.0 * (f - 33), True)
             for f in range(33, 45)]
    r_rest = (643.0, 946.0)
    rows += [(f, "R1", *r_rest, True) for f in range(10, 32)]
    rows += [(f, "R1", r_rest[0] + 84.0 * (f - 31), r_rest[1] + 90.0 * (f - 31), True)
             for f in range(32, 45)]
    assert first_events(rows, 2) == [("strike", "W1"), ("contact", ["W1", "R1"])]
    # a jump faster than the hardest shot is a ball put down elsewhere (or another ball)
    rest = [Sample(f, f / FPS, (854.0, 494.0)) for f in range(10, 31)]
    far = [Sample(f, f / FPS, (2400.0 + 150.0 * (f - 32), 1500.0)) for f in range(32, 40)]
    assert _until_placed(rest + far, DEFAULT_SHOT_FACTS) == rest


def test_a_ball_seen_in_two_frames_running_faster_than_a_hand_but_not_the_hardest_shot_rolled():
    """As W1 in bank_red_corner_s71: struck at 9.6 m/s, its blurred centres lag and lead its
    true place, 246 then 412 mm a frame (over the 400 mm that no shot but the hardest goes),
    then unseen a frame (a blur): seen in two frames running, no hand moved it; it rolled."""
    rest = [Sample(f, f / FPS, (1723.0, 465.0)) for f in range(20, 31)]
    blurred = [Sample(31, 31 / FPS, (1588.0, 671.0)), Sample(32, 32 / FPS, (1295.0, 960.0))]
    on = [Sample(f, f / FPS, (911.0 - 230.0 * (f - 34), 1221.0 + 150.0 * (f - 34)))
          for f in range(34, 37)]
    assert _until_placed(rest + blurred + on, DEFAULT_SHOT_FACTS) == rest + blurred + on
    # unseen between the two (two frames apart), as far: put there by hand
    jumped = [*rest, Sample(32, 32 / FPS, (1723.0 - 800.0, 465.0)),
              Sample(40, 40 / FPS, (1723.0 - 800.0, 465.0))]
    assert _until_placed(jumped, DEFAULT_SHOT_FACTS) == rest


def test_a_ball_seen_rolling_on_from_a_jump_faster_than_the_hardest_shot_rolled():
    """As W1 in bank_yellow_corner_s103: struck at 11.6 m/s into Y, its blurred centre in the
    frame of the contact lags 116 mm behind its place, so the next step reads 505 mm (more
    than the hardest shot's 480); then it rolls on at a steady 380 mm a frame. No hand puts a
    ball down rolling: it rolled. The same jump to a ball at rest there was a hand's (or
    another ball)."""
    rest = [Sample(f, f / FPS, (2009.0, 368.0)) for f in range(20, 31)]
    blurred = [Sample(31, 31 / FPS, (2202.0, 587.0))]
    on = [Sample(f, f / FPS, (2591.0 + 320.0 * (f - 32), 909.0 + 206.0 * (f - 32)))
          for f in range(32, 35)]
    assert _until_placed(rest + blurred + on, DEFAULT_SHOT_FACTS) == rest + blurred + on
    still = [Sample(f, f / FPS, (2591.0, 909.0)) for f in range(32, 40)]
    assert _until_placed(rest + blurred + still, DEFAULT_SHOT_FACTS) == rest + blurred
    # as the phantom W2 on the club footage (simulation_vs_reality_2): a jump of 519 mm, then
    # steps of 207 and 244 mm and a slow roll: a thing wandering (no ball slows so), not rolling
    wander = [Sample(17, 17 / FPS, (573.0, 932.0)), Sample(18, 18 / FPS, (384.0, 847.0)),
              Sample(19, 19 / FPS, (162.0, 748.0))]
    wander += [Sample(f, f / FPS, (162.0 - 20.0 * (f - 19), 748.0 - 13.0 * (f - 19)))
               for f in range(20, 24)]
    jumped = [Sample(f, f / FPS, (1050.0, 1135.0)) for f in range(10, 17)]
    assert _until_placed(jumped + wander, DEFAULT_SHOT_FACTS) == jumped


def test_a_ball_sent_off_while_one_ball_alone_rolled_near_was_hit_by_it():
    """As in bank_yellow_corner_s103: W1, struck at 11.6 m/s, hits Y within its first frame
    and turns; its blurred centre in that frame lies off its way, so its path between samples
    passes 36 mm from where the hitter of Y must have been (more than the contact tolerance
    allows a path). It was the only ball rolling: it hit Y."""
    rows = [(f, "W1", 2009.0, 368.0, True) for f in range(10, 31)]
    rows += [(31, "W1", 2202.0, 587.0, True)]
    rows += [(f, "W1", 2591.0 + 320.0 * (f - 32), 909.0 + 206.0 * (f - 32), True)
             for f in range(32, 35)]
    y_rest = (2281.0, 787.0)
    rows += [(f, "Y", *y_rest, True) for f in range(10, 32)]
    rows += [(f, "Y", y_rest[0] - 57.0 * (f - 31.0), y_rest[1] + 88.0 * (f - 31.0), True)
             for f in range(32, 45)]
    assert first_events(rows, 2) == [("strike", "W1"), ("contact", ["W1", "Y"])]


def test_a_ball_touching_the_cue_ball_that_drifts_before_the_strike_was_hit_by_it():
    """As in touching_whites_s107: W2 touches W1. Two frames before the strike W2's picture
    drifts 1.6 mm, then 0.8 mm more (the cue's shadow coming); then W1 is struck and W2 goes
    along their line of centres at 23 mm a frame. A ball sent off goes fastest at once: the
    drift was not W2 leaving, and W1, struck, hit W2 (not W2 struck two frames early)."""
    w1, w2 = (1444.8, 555.2), (1505.9, 582.6)
    rows = [(f, "W1", *w1, True) for f in range(10, 30)]
    rows += [(f, "W1", w1[0] + 14.4 * (f - 29.8), w1[1] - 28.0 * (f - 29.8), True)
             for f in range(30, 45)]
    rows += [(f, "W2", *w2, True) for f in range(10, 29)]
    rows += [(29, "W2", w2[0] + 1.4, w2[1] + 0.8, True), (30, "W2", w2[0] + 2.3, w2[1] + 0.5, True)]
    rows += [(f, "W2", w2[0] + 21.6 * (f - 30.1), w2[1] + 9.8 * (f - 30.1), True)
             for f in range(31, 45)]
    assert first_events(rows, 2) == [("strike", "W1"), ("contact", ["W1", "W2"])]


def test_a_ball_creeping_into_a_corner_pocket_after_the_others_stopped_is_potted():
    """As W1 in bank_red_corner_s113: rolling along the left cushion at 7 mm a frame into the
    foot-left corner, it turns on the jaw and creeps on, slowing to a mm a frame (slower than a
    still ball drifts, so the shot is over), and is gone for good with its centre on the mouth
    line: it dropped into that pocket; it is no ball at rest. So too as tracked, its picture
    in the jaws read 1.5-5 mm past the line, its last 4.5 mm past."""
    W = TABLE.width_mm
    rows = [(f, "W1", 3000.0, W - 34.0, True) for f in range(10, 31)]
    rows += [(f, "W1", 3000.0 + 7.0 * (f - 30), W - 34.0, True) for f in range(31, 103)]
    rows += [(f, "R2", 900.0, 300.0, True) for f in range(10, 150)]
    true_track = [(3516.7, 1741.0), (3520.5, 1741.7), (3519.8, 1744.6), (3519.9, 1747.0),
                  (3520.3, 1748.6), (3521.4, 1748.8), (3522.4, 1749.0), (3523.2, 1749.2),
                  (3524.0, 1749.4)]  # (the last on the mouth line)
    as_tracked = [(3521.2, 1745.9), (3514.0, 1755.0), (3524.9, 1751.1), (3524.2, 1751.8),
                  (3527.8, 1752.8)] + [(3526.8, 1751.6)] * 3 + [(3528.0, 1752.3)]
    for into_the_jaws in (true_track, as_tracked):
        jaws = [(103 + k, "W1", x, y, True) for k, (x, y) in enumerate(into_the_jaws)]
        (shot,) = shots_from_tracks(TABLE, tracks_from_rows(rows + jaws, FPS), FPS)
        pots = [(e["ball"], e["pocket"]) for e in shot["events"] if e["type"] == "pocket"]
        assert pots == [("W1", "FL")]
        assert "W1" not in shot.get("final_positions", {})


def test_a_ball_rattling_in_the_jaws_read_a_little_past_the_mouth_and_back_out_stayed_out():
    """As Y in bank_yellow_corner_s61: into the head-right corner, its picture in the jaws reads
    5 mm past the mouth line (the truth: 6 mm short of it), then it comes back out onto the
    table (59 mm, 55 mm) and only later rolls in and is gone: potted then, not at the rattle.
    Read 17 mm past the line, it had dropped: what the tracker follows back out is something
    else (video_12 of the club footage)."""
    into = [(266.0, 291.0), (229.0, 251.0), (192.0, 211.0), (155.0, 172.0), (118.0, 132.0),
            (86.0, 98.0), (37.0, 46.0), (24.0, 21.0), (28.0, 27.0), (40.0, 36.0), (47.0, 43.0),
            (49.0, 46.0), (54.0, 52.0), (54.0, 53.0), (54.0, 53.0), (52.0, 50.0), (48.0, 47.0),
            (44.0, 42.0), (42.0, 40.0), (38.0, 36.0), (36.0, 34.0), (28.0, 27.0), (30.0, 28.0),
            (29.0, 26.0), (29.0, 26.0)]  # frames 70-94, as tracked
    rows = [(f, "Y", 266.0 + 37.0 * (70 - max(f, 50)), 291.0 + 40.0 * (70 - max(f, 50)), True)
            for f in range(10, 70)]  # at rest, struck at frame 50 toward the corner
    rows += [(70 + k, "Y", x, y, True) for k, (x, y) in enumerate(into)]
    rows += [(f, "R2", 2900.0, 300.0, True) for f in range(10, 140)]

    ((pocket, frame),) = pot_frames(rows)
    assert pocket == "HR" and frame >= 93
    deep = [(f, b, 10.0, 8.0, v) if (f, b) == (77, "Y") else (f, b, x, y, v)
            for f, b, x, y, v in rows]
    ((pocket, frame),) = pot_frames(deep)
    assert pocket == "HR" and frame <= 78


def test_a_ball_sitting_in_the_jaws_in_plain_view_dropped_when_it_was_gone():
    """As R1 in bank_red_corner_s107: into the foot-right corner, its picture in the jaws reads
    7-8 mm past the mouth line (the truth: 5 mm short of it) for three frames, then short of
    it for seven, then past again and gone (frame 99): seen there every frame, it sat in the
    jaws and dropped at the end (the truth: 98), not when first read past the line (89).
    Seen only now and then after the crossing, it was in the pocket's hole, its picture cut
    by the cloth's edge (a real middle pocket): it dropped at the crossing."""
    into = [(3270.1, 289.6), (3300.8, 258.6), (3334.3, 226.8), (3365.0, 196.2), (3392.0, 166.0),
            (3439.1, 121.4), (3453.1, 106.7), (3485.6, 69.3), (3519.3, 38.3), (3529.9, 20.6),
            (3530.2, 20.2), (3530.7, 21.8)] + [(3526.3, 28.4)] * 7 + [(3528.5, 19.4)]
    rows = [(f, "R1", 3270.1 - 30.7 * (80 - max(f, 60)), 289.6 + 31.0 * (80 - max(f, 60)), True)
            for f in range(10, 80)]  # at rest, struck at frame 60 toward the corner
    rows += [(80 + k, "R1", x, y, True) for k, (x, y) in enumerate(into)]
    rows += [(f, "R2", 900.0, 300.0, True) for f in range(10, 140)]

    ((pocket, frame),) = pot_frames(rows)
    assert pocket == "FR" and 97 <= frame <= 100
    now_and_then = [r for r in rows if r[1] != "R1" or r[0] not in (90, 91, 93, 94, 96, 97)]
    ((pocket, frame),) = pot_frames(now_and_then)
    assert pocket == "FR" and frame <= 89


def test_a_bounce_seen_only_in_blurred_pictures_on_neither_line_is_a_cushion():
    """As R1 in bank_red_corner_s127: rolling at 3.4 m/s into the left cushion; the bounce's
    two pictures (frames 40-41: a blurred centre short of the cushion, one just off it) lie on
    neither the line in nor the line out, so each end of that short piece is 27 and 53 mm from
    where a ball touches the cushion. The lines in and out meet on the cushion: R1 banked
    there (the pot after it was a bank)."""
    tracked = [(1571.4, 964.7), (1633.4, 1058.7), (1697.2, 1156.3), (1765.0, 1257.9),
               (1829.9, 1356.4), (1894.8, 1460.7), (1951.2, 1538.5), (2012.4, 1632.9),
               (2067.1, 1711.1), (2116.9, 1688.8), (2156.9, 1622.1), (2198.3, 1557.0),
               (2238.2, 1493.3), (2278.9, 1434.7), (2317.6, 1375.6), (2358.3, 1314.7),
               (2396.7, 1263.9), (2435.4, 1213.0)]  # frames 32-49
    rows = [(f, "R1", 1543.7, 925.2, True) for f in range(10, 32)]
    rows += [(32 + k, "R1", x, y, True) for k, (x, y) in enumerate(tracked)]
    rows += [(f, "W2", 900.0, 300.0, True) for f in range(10, 60)]
    shots = shots_from_tracks(TABLE, tracks_from_rows(rows, FPS), FPS)
    cushions = [(e["cushion"], round(e["t"] * FPS)) for s in shots for e in s["events"]
                if e["type"] == "cushion" and e["ball"] == "R1"]
    assert [c for c, f in cushions if 39 <= f <= 41] == ["left"]


def test_balls_resting_by_a_cushion_and_hit_into_it_were_hit_when_they_left():
    """As in carom_3_s89: W2 and Y rest 36 mm off the foot cushion; W1 comes up between them
    and hits both at once. Each goes into the cushion (16 then 30 mm off its place) and
    straight back off it, passing its place again: the offsets from the place are not further
    off frame after frame, yet each left at the contact, hit by W1, and bounced off the foot
    cushion. (Judged from its first sample further off after the bounce, each seemed to start
    two frames late, with no ball near to have hit it: two caroms lost.)"""
    L = TABLE.length_mm
    w2_rest, y_rest = (L - 71.0, 1401.0), (L - 70.0, 1318.0)
    rows = [(f, "W2", *w2_rest, True) for f in range(20, 39)]
    rows += [(39, "W2", L - 55.0, 1404.0, True), (40, "W2", L - 43.0, 1411.0, True)]
    rows += [(f, "W2", L - 66.0 - 22.0 * (f - 41), 1416.0 + 4.0 * (f - 41), True)
             for f in range(41, 60)]
    rows += [(f, "Y", *y_rest, True) for f in range(20, 40)]
    rows += [(40, "Y", L - 55.0, 1309.0, True), (41, "Y", L - 35.0, 1296.0, True)]
    rows += [(f, "Y", L - 52.0 - 12.0 * (f - 42), 1287.0 - 8.0 * (f - 42), True)
             for f in range(42, 60)]
    # W1 rolls up from the head side and stops between them, a little back off the contact
    rows += [(f, "W1", L - 133.0 - 42.0 * (38 - f), 1367.0, True) for f in range(25, 39)]
    rows += [(f, "W1", L - 136.0 - 4.0 * (f - 39), 1367.0 - 25.0 * (f - 39), True)
             for f in range(39, 60)]
    events = first_events(rows, 6)
    assert events[0] == ("strike", "W1")
    assert {tuple(sorted(b)) for t, b in events if t == "contact"} == {("W1", "W2"), ("W1", "Y")}
    assert ("cushion", "W2") in events and ("cushion", "Y") in events


def test_a_ball_creeping_into_a_cushion_and_off_it_came_off_it():
    """As W1 in yellow_middle_twice_s263: rolling at 5 mm a frame (slowing) into the right
    cushion at 45 degrees, it comes off at a third of its speed across. In the frames after,
    it is off its line by 4, 7 and 10 mm: each within the line's tolerance of a fit that bends
    to the one before. It touched the cushion."""
    rows = [(f, "R1", 2600.0, 900.0, True) for f in range(0, 140)]
    x, y, vx, vy = 2100.0, 110.0, 4.0, -4.0
    for f in range(0, 140):
        if f < 20:
            rows.append((f, "W1", 2100.0, 110.0, True))
            continue
        rows.append((f, "W1", round(x, 1), round(y, 1), True))
        if y + vy <= TABLE.ball_radius_mm and vy < 0:  # off the cushion's nose
            vy = -0.3 * vy
        x, y = x + vx, y + vy
        vx, vy = vx * 0.985, vy * 0.985
    events = first_events(rows, 5)
    assert ("cushion", "W1") in events


def test_a_fast_ball_off_a_middle_pocket_s_jaw_seen_blurred_came_off_the_cushion():
    """R1 in bank_red_middle_s271, as the tracker saw it: sent at 3.2 m/s across the table,
    off the left cushion beside the middle pocket's jaw and back at 2.3 m/s. Its blurred
    pictures by the cushion are measured short of it (1694 mm in both frames 42 and 43), so the
    motions in and out meet 30 mm short of where its centre touched: farther than a sharp
    picture's tolerance, but not than a blurred one's. It came off the cushion (a bank)."""
    seen = [(1786.2, 720.1)] * 6 + [
        (1786.2, 721.9), (1789.3, 812.3), (1793.7, 931.8), (1795.0, 1048.2), (1799.7, 1165.3),
        (1802.4, 1272.8), (1803.8, 1376.6), (1807.8, 1484.1), (1811.0, 1583.3),
        (1813.3, 1694.2), (1814.9, 1694.9), (1813.4, 1616.9), (1810.3, 1553.6),
        (1808.1, 1481.3), (1806.1, 1401.5), (1806.1, 1332.0), (1803.6, 1262.8),
        (1801.9, 1198.5), (1798.6, 1147.5), (1798.3, 1085.8), (1797.3, 1028.1),
        (1796.1, 971.5), (1796.5, 921.5), (1794.0, 866.6)]
    rows = [(27 + k, "R1", x, y, True) for k, (x, y) in enumerate(seen)]
    rows += [(f, "W1", 500.0, 500.0, True) for f in range(27, 27 + len(seen))]
    assert ("cushion", "R1") in first_events(rows, 5)


def test_a_slow_ball_off_a_cushion_cut_a_frame_early_by_a_noisy_picture_came_off_it():
    """W1 in carom_3_s241 (frames 48-90), as the tracker saw it: rolling at 6-7 mm a frame into
    the foot cushion and off it, its pictures 2-5 mm off. A noisy one cut the line into the
    cushion a frame early, and the turn's piece is three pictures long, on neither line. It
    came off the cushion where the lines around that piece meet."""
    seen = [
        (3422.7, 1358.3), (3422.7, 1358.3), (3424.3, 1366.1), (3427.3, 1368.9), (3433.9, 1373.5),
        (3438.9, 1376.8), (3445.6, 1382.8), (3451.3, 1386.6), (3456.9, 1390.2), (3463.6, 1395.5),
        (3469.1, 1398.1), (3475.1, 1402.3), (3481.3, 1409.3), (3487.5, 1410.0), (3491.1, 1415.6),
        (3497.0, 1419.6), (3504.9, 1422.7), (3506.9, 1426.2), (3512.8, 1430.3), (3512.7, 1433.6),
        (3509.4, 1437.1), (3506.9, 1439.2), (3504.8, 1441.3), (3503.7, 1443.7), (3503.4, 1446.3),
        (3501.5, 1448.3), (3500.6, 1450.9), (3500.6, 1451.9), (3498.5, 1454.8), (3497.3, 1457.5),
        (3496.6, 1460.5), (3496.1, 1461.2), (3494.5, 1463.5), (3494.0, 1466.0), (3494.1, 1466.6),
        (3493.2, 1467.5), (3492.8, 1469.1), (3492.0, 1470.5), (3491.2, 1471.3), (3489.5, 1472.4),
        (3489.6, 1473.2), (3489.2, 1474.0), (3489.2, 1474.0)]
    seen = [seen[0]] * 10 + seen + [seen[-1]] * 11
    rows = [(38 + k, "W1", x, y, True) for k, (x, y) in enumerate(seen)]
    rows += [(f, "R1", 500.0, 500.0, True) for f in range(38, 38 + len(seen))]
    assert ("cushion", "W1") in first_events(rows, 5)


def test_a_ball_read_off_its_place_toward_a_cushion_in_the_video_s_last_frame_stays_on():
    """As R2 in carom_3_s257: rolled to rest 40 mm from the foot cushion, read 13 mm
    nearer it in the video's last frame (the light flickered). The video ended there, the ball
    did not vanish: no ball left the table, and R2 is on it at the end."""
    L = TABLE.length_mm
    rows = [(f, "W1", 1000.0, 500.0, True) for f in range(20, 30)]
    rows += [(f, "W1", 1000.0 + 60.0 * (f - 29), 500.0 + 70.0 * (f - 29), True)
             for f in range(30, 36)]
    rows += [(f, "W1", 1360.0, 920.0, True) for f in range(36, 70)]  # stopped
    rows += [(f, "R2", L - 300.0, 954.0, True) for f in range(20, 40)]
    rows += [(f, "R2", L - 300.0 + 22.6 * (f - 39), 954.0, True) for f in range(40, 50)]
    rows += [(f, "R2", L - 74.0, 954.0, True) for f in range(50, 69)]  # stopped
    rows.append((69, "R2", L - 61.0, 961.0, True))
    shots = shots_from_tracks(TABLE, tracks_from_rows(rows, FPS), FPS)
    assert [e for s in shots for e in s["events"] if e["type"] == "off_table"] == []
    assert "R2" in shots[-1]["final_positions"]


def test_a_ball_that_rolls_into_a_cushion_and_is_gone_after_a_picture_on_it_left_the_table():
    """As Y in object_off_table_s47: rolling into the left cushion at 16 mm a frame, seen once
    more on it (rising onto the rail, its picture a little aside), then gone for good: it went
    over the cushion, it did not bounce off it. A ball that comes back off the cushion is seen
    rolling away from it: a cushion contact."""
    W = TABLE.width_mm
    rows = [(f, "W1", 1000.0, 500.0, True) for f in range(20, 30)]
    rows += [(f, "W1", 1000.0 + 60.0 * (f - 29), 500.0 + 70.0 * (f - 29), True)
             for f in range(30, 36)]
    rows += [(f, "W1", 1360.0, 920.0, True) for f in range(36, 70)]  # stopped
    rows += [(f, "Y", 3148.0, W - 270.0, True) for f in range(20, 38)]
    rows += [(f, "Y", 3148.0, W - 270.0 + 16.0 * (f - 38), True) for f in range(38, 52)]
    over = [*rows, (52, "Y", 3139.0, W - 40.0, True), (53, "Y", 3148.0, W - 41.0, True)]
    events = first_events(over, 10)
    assert ("off_table", "Y") in events and ("cushion", "Y") not in events
    back = [*rows, *((f, "Y", 3148.0 + 2.0 * (f - 52), W - 44.0 - 14.0 * (f - 52), True)
                     for f in range(52, 62))]
    events = first_events(back, 10)
    assert ("cushion", "Y") in events and ("off_table", "Y") not in events


def test_a_contact_pushes_a_ball_away_from_the_other_along_the_line_of_centres():
    """As R1 and Y in bank_red_corner_s73: they pass 70 mm apart (a hair more than a ball), and
    there the tracker's centres wobble by 6-13 mm, so Y's track seems to turn (by 200 mm/s,
    more than the least kink) as R1 passes within the contact tolerance. A contact pushes each
    ball away from the other along their line of centres (within 60 degrees: a cut's throw,
    the track's noise); Y's turn went sideways to that line: no contact."""
    from vision.shots.facts import _pushed_away
    y, r1 = (3254.0, 361.0), (3206.0, 303.0)
    within = DEFAULT_SHOT_FACTS.push_angle_deg
    away = np.subtract(y, r1) / math.dist(y, r1)
    across = np.array([-away[1], away[0]])
    assert _pushed_away(300.0 * away, y, r1, within)  # straight away from R1
    assert _pushed_away(300.0 * (away + 0.5 * across), y, r1, within)  # a cut, thrown a little
    assert not _pushed_away(200.0 * across, y, r1, within)  # sideways: the track's wobble
    assert not _pushed_away(-300.0 * away, y, r1, within)  # toward R1: no push pulls
    assert _pushed_away(np.zeros(2), y, None, within)  # no other ball's place to judge by


def test_a_ball_seen_moving_again_within_a_second_of_the_rest_is_still_the_same_shot():
    """As W1 in yellow_middle_twice_s101: it creeps to a stop at 3 mm a frame; the tracker holds
    it in place (a doubtful sighting near its place is jitter) for the still frames that end a
    shot, then sees it 23 mm on and creeping on. No player strikes within a second of the balls
    coming to rest: that is the same shot, not a new one with a strike. A strike two seconds
    after the rest is a new shot."""
    rows = [(f, "W1", 1000.0, 500.0, True) for f in range(20, 30)]
    rows += [(f, "W1", 1000.0 + 40.0 * (f - 29), 500.0, True) for f in range(30, 40)]
    xs = [1400.0 + 3.0 * k for k in range(8)]  # slowing down to a creep...
    rows += [(40 + k, "W1", x, 500.0, True) for k, x in enumerate(xs)]
    rows += [(f, "W1", xs[-1], 500.0, True) for f in range(48, 58)]  # ... held in place
    rows += [(f, "W1", xs[-1] + 23.0 + 3.0 * (f - 58), 500.0, True) for f in range(58, 66)]
    rows += [(f, "W1", xs[-1] + 44.0, 500.0, True) for f in range(66, 130)]
    shots = shots_from_tracks(TABLE, tracks_from_rows(rows, FPS), FPS)
    assert [e["type"] for s in shots for e in s["events"]] == ["strike"]
    later = [r for r in rows if r[0] < 66]
    later += [(f, "W1", xs[-1] + 44.0, 500.0, True) for f in range(66, 126)]
    later += [(f, "W1", xs[-1] + 44.0 + 40.0 * (f - 125), 500.0, True) for f in range(126, 136)]
    later += [(f, "W1", xs[-1] + 444.0, 500.0, True) for f in range(136, 160)]
    shots = shots_from_tracks(TABLE, tracks_from_rows(later, FPS), FPS)
    assert [[e["type"] for e in s["events"]] for s in shots] == [["strike"], ["strike"]]


def test_a_resting_ball_read_a_few_mm_aside_did_not_roll_and_joins_no_two_shots():
    """As W1 in yellow_middle_twice_s173: at rest after the first shot, it is read 2.9 mm aside
    once (the player addressing it) and at rest there; 20 frames later it is struck. No rolling
    ball stops dead: the shift is no motion, and the strike begins a second shot. A ball that
    rolls a few mm a frame to a stop is motion (one shot with the roll)."""
    rows = [(f, "W1", 1000.0, 500.0, True) for f in range(20, 30)]
    rows += [(f, "W1", 1000.0 + 40.0 * (f - 29), 500.0, True) for f in range(30, 40)]
    rows += [(f, "W1", 1400.0, 500.0, True) for f in range(40, 62)]
    rows += [(f, "W1", 1402.5, 501.5, True) for f in range(62, 82)]  # read aside: 2.9 mm
    rows += [(f, "W1", 1402.5 + 40.0 * (f - 81), 501.5, True) for f in range(82, 92)]
    rows += [(f, "W1", 1802.5, 501.5, True) for f in range(92, 130)]
    shots = shots_from_tracks(TABLE, tracks_from_rows(rows, FPS), FPS)
    assert [[e["type"] for e in s["events"]] for s in shots] == [["strike"], ["strike"]]
    assert [s["final_positions"]["W1"] for s in shots] == [[1400.0, 500.0], [1802.5, 501.5]]
    creep = [r for r in rows if r[0] < 40]  # a slow roll over a few frames is still motion
    creep += [(f, "W1", 1400.0 + 2.0 * min(f - 39, 3), 500.0, True) for f in range(40, 130)]
    (shot,) = shots_from_tracks(TABLE, tracks_from_rows(creep, FPS), FPS)
    assert shot["final_positions"]["W1"] == [1406.0, 500.0]


def test_two_rolling_balls_that_graze_touched_though_neither_track_turns_past_its_noise():
    """As W2 and Y in carom_3_s61: rolling at 11 and 8 mm a frame, they close to 69.8 mm (the
    frames fall either side of the touch) and each is pushed off its line away from the other
    by about 100 mm/s: too little to cut either track into two straight pieces, but a contact.
    The same paths without the push (a hair apart, as R1 and Y in bank_red_corner_s73) touch
    nothing."""
    # passing each other on parallel lines 69.8 mm apart, level at frame 51
    W2_0, Y_0 = np.array([2600.0, 900.0]), np.array([2809.0, 969.8])
    v_w2, v_y = np.array([11.0, 0.0]), np.array([-8.0, 0.0])  # mm a frame
    t_c = 51.0
    normal = (W2_0 + v_w2 * (t_c - 40)) - (Y_0 + v_y * (t_c - 40))
    normal /= np.linalg.norm(normal)  # from Y to W2 at the touch

    def rows_for(push: float) -> list:
        rows = [(f, "W1", 800.0, 900.0, True) for f in range(20, 30)]
        rows += [(f, "W1", 800.0 - 20.0 * (f - 29), 900.0, True) for f in range(30, 36)]
        rows += [(f, "W1", 680.0, 900.0, True) for f in range(36, 90)]
        for ball, p0, v, sign in (("W2", W2_0, v_w2, 1.0), ("Y", Y_0, v_y, -1.0)):
            rows += [(f, ball, *p0, True) for f in range(20, 40)]
            for f in range(40, 70):
                xy = p0 + v * (f - 40) + sign * push * normal * max(0.0, f - t_c)
                rows.append((f, ball, float(xy[0]), float(xy[1]), True))
            rows += [(f, ball, *map(float, xy), True) for f in range(70, 90)]
        return rows

    gap = min(np.linalg.norm((W2_0 + v_w2 * k) - (Y_0 + v_y * k)) for k in np.arange(0, 30, 0.25))
    assert TABLE.ball_diameter_mm < gap < TABLE.ball_diameter_mm + 4.0
    events = first_events(rows_for(3.5), 20)  # pushed apart by 3.5 mm a frame (105 mm/s)
    assert ("contact", ["W2", "Y"]) in events
    events = first_events(rows_for(0.0), 20)
    assert not [e for e in events if e[0] == "contact" and "W1" not in e[1]]


def test_a_ball_hung_on_the_lip_after_the_others_stopped_and_gone_before_the_next_shot_dropped():
    """As W1 in scratch_pocket_s149: into the foot-right corner, it stops on the lip (its
    picture held in place by the tracker while it creeps, 2 mm short of the mouth line) and
    drops 0.4 s after the shot is over: gone for good, or next seen put back elsewhere before
    the next shot. A pot of this shot. Still there when the next shot begins, it stayed."""
    L = TABLE.length_mm
    into = [(3350.0, 199.0), (3376.0, 170.0), (3397.0, 150.0), (3421.0, 125.0), (3444.0, 101.0),
            (3469.0, 76.0), (3501.0, 44.0), (3521.0, 28.0), (3530.0, 23.0), (3531.0, 22.0)]
    lip = (3526.0, 29.0)
    rows = [(f, "W1", 3350.0 - 26.0 * (38 - max(f, 30)), 199.0 + 27.0 * (38 - max(f, 30)), True)
            for f in range(10, 38)]  # at rest, struck at frame 30 toward the corner
    rows += [(38 + k, "W1", x, y, True) for k, (x, y) in enumerate(into)]
    rows += [(f, "W1", *lip, True) for f in range(48, 62)]
    rows += [(f, "R1", 2609.0, 844.0, True) for f in range(10, 200)]
    ((pocket, frame),) = pot_frames(rows)
    assert pocket == "FR" and 61 <= frame <= 62
    # gone, and put back by hand at the foot spot before the next shot
    placed = rows + [(f, "W1", 0.75 * L, 887.5, True) for f in range(120, 200)]
    assert pot_frames(placed) == pot_frames(rows)
    # still on the lip when R1 is struck, it stayed; it drops in that shot
    stays = [r for r in rows if r[1] != "R1"] + [(f, "W1", *lip, True) for f in range(62, 80)]
    stays += [(f, "R1", 2609.0 + 40.0 * max(f - 70, 0), 844.0, True) for f in range(10, 120)]
    pots = pot_frames(stays)
    assert pots and pots[0][1] >= 70


def test_a_ball_struck_unseen_and_back_rolling_with_a_frame_missed_was_struck_not_placed():
    """As R1 in carom_1_s107 (a red on a red cloth): hit by the cue ball, unseen for three
    frames, seen once, missed again, then seen rolling on toward the foot-left corner and gone
    into it. Its rolling starts within its first samples though a frame is missing there: it
    was hit and potted, not put back by hand."""
    w1 = [(f, "W1", 3228.0, 1313.0 - 54.0 * (37 - max(f, 30)), True) for f in range(10, 37)]
    w1 += [(f, "W1", 3228.0 - 20.0 * (f - 37), 1313.0 + 50.0 * (f - 37), True)
           for f in range(37, 60)]
    r1 = [(f, "R1", 3281.0, 1506.0, True) for f in range(10, 40)]
    r1 += [(f, "R1", x, y, True) for f, x, y in (
        (43, 3366.0, 1586.0), (45, 3410.0, 1634.0), (46, 3429.0, 1656.0), (47, 3448.0, 1677.0),
        (48, 3473.0, 1695.0), (50, 3522.0, 1746.0))]
    assert pot_frames(w1 + r1) == [("FL", 50)]


def test_a_ball_in_a_middle_pockets_hole_seen_now_and_then_short_of_the_line_dropped_on_arrival():
    """As R1 on the club footage (simulation_vs_reality_1_0028_0032, its track): into the right
    middle pocket, then seen in its hole now and then, its picture reading 5-10 mm short of the
    mouth line (it lies lower, nearer the camera's axis) and held in place by the tracker. It
    dropped when it arrived (the hand label: 38-40), not when last seen (52). Seen there every
    frame, it sat on the lip."""
    r1 = [(30, 1788.4, 194.9), (31, 1787.4, 175.8), (32, 1786.9, 157.4), (33, 1790.7, 139.9),
          (34, 1785.1, 119.7), (35, 1783.5, 102.5), (36, 1788.7, 99.4), (37, 1782.8, 64.7),
          (38, 1782.9, 44.0), (39, 1782.4, 28.5), (40, 1780.1, 17.3), (41, 1779.0, 7.3),
          (42, 1778.1, 4.9), (43, 1778.1, 7.8), (44, 1778.1, 7.8)]
    rows = [(f, "R1", 1789.1, 253.2, True) for f in range(10, 30)]
    rows += [(f, "R1", x, y, True) for f, x, y in r1]
    rows += [(f, "R1", 1784.1, 9.5, True) for f in range(49, 53)]
    rows += [(f, "W1", 900.0, 900.0, True) for f in range(10, 120)]
    ((pocket, frame),) = pot_frames(rows)
    assert pocket == "MR" and 44 <= frame <= 45
    every_frame = [r for r in rows if not (r[1] == "R1" and r[0] >= 49)]
    every_frame += [(f, "R1", 1778.1, 7.8, True) for f in range(45, 60)]
    assert all(frame >= 59 for _, frame in pot_frames(every_frame))


def test_a_ball_hit_unseen_and_seen_once_in_a_pockets_jaws_was_hit_and_potted():
    """As R1 in fast_shot_s157 (held out): W1 struck at 5 m/s, unseen as it hits R1; R1 sent at
    5.7 m/s into the foot-right corner, unseen until its one picture in the jaws, then gone. A
    ball seen once elsewhere and gone was not put there by hand (a placed ball stays); it left
    its place half a frame after it was last seen there (one picture has no motion to trace
    back), and W1, arriving then, hit it."""
    w1 = [(30, 2357.0, 1178.0), (31, 2466.0, 1067.0), (32, 2620.0, 925.0), (33, 2795.0, 753.0),
          (35, 2954.0, 601.0), (36, 2961.0, 596.0), (37, 2969.0, 591.0), (38, 2977.0, 585.0),
          (39, 2986.0, 580.0), (40, 2993.0, 574.0)]
    rows = [(f, "W1", 2355.0, 1180.0, True) for f in range(10, 30)]
    rows += [(f, "W1", x, y, True) for f, x, y in w1]
    rows += [(f, "W1", 2993.0 + 5.0 * (f - 40), 574.0 - 4.0 * (f - 40), True)
             for f in range(41, 60)]
    rows += [(f, "R1", 2997.0, 553.0, True) for f in range(10, 34)] + [(38, "R1", 3503.0, 51.0,
                                                                         True)]
    rows += [(f, "Y", 900.0, 900.0, True) for f in range(10, 120)]
    assert first_events(rows, 3) == [("strike", "W1"), ("contact", ["W1", "R1"]),
                                     ("pocket", "R1")]
    assert pot_frames(rows) == [("FR", 38)]


def bent(start: tuple[float, float], velocity: tuple[float, float], turn: tuple[float, float],
         t0: float, t_turn: float, t1: float, frames: range) -> list[Sample]:
    """A ball rolling from ``start`` at ``velocity`` from t0, its velocity changed by ``turn``
    at t_turn, stopped at t1."""
    out = []
    for f in frames:
        t = min(max(f / FPS, t0), t1)
        bend = max(0.0, t - t_turn)
        out.append(Sample(f, f / FPS, (start[0] + velocity[0] * (t - t0) + turn[0] * bend,
                                       start[1] + velocity[1] * (t - t0) + turn[1] * bend)))
    return out


@pytest.mark.parametrize(("y_turn", "contact"), [(-250.0, True), (250.0, False)])
def test_two_rolling_balls_turning_as_they_pass_touched_only_if_each_turned_away(y_turn,
                                                                              contact):
    """As W1 and Y in bank_yellow_corner_s223: they cross 5 mm apart at t = 2 s, and where
    their pictures meet both tracks bend. W1 turns away from Y, as a push would turn it; Y
    turns the other way, toward W1, which no push does: no contact. Turned away, it is one."""
    frames = range(0, 110)
    w1 = bent((576.0, 895.0), (348.0, -534.0), (0.0, 250.0), 1.0, 2.0, 2.4, frames)
    y = bent((1585.0, 708.0), (-660.0, -420.0), (0.0, y_turn), 1.0, 2.0, 2.4, frames)
    r1 = samples([(f, 2500.0, 1200.0) for f in frames])
    (shot,) = shots_from_tracks(TABLE, {"W1": w1, "Y": y, "R1": r1}, FPS)
    contacts = [e for e in shot["events"] if e["type"] == "contact"]
    assert [(set(e["balls"]), e["frame"]) for e in contacts] == (
        [({"W1", "Y"}, 60)] if contact else [])


def test_a_resting_ball_drawn_onto_a_hand_between_two_shots_does_not_join_them():
    """As W2 in yellow_middle_twice_s199: between the shots the player respots Y, and W2's
    picture, by the head cushion, is drawn onto his hand (up to 55 mm off) and back for 20
    frames, ending 8 frames before the next strike. A ball back at rest on the very place it
    left, this soon, never moved: two shots, not one."""
    w2 = [(2100.0, 111.0)] * 134 + [
        (2083, 58), (2096, 110), (2073, 70), (2095, 120), (2096, 94), (2097, 93), (2097, 114),
        (2085, 85), (2073, 70), (2097, 109), (2097, 110), (2096, 94)] + [(2097.0, 109.0)] * 6 + [
        (2084, 89)] + [(2097.0, 109.0)] * 140
    rows = [(f, "W2", float(x), float(y), True) for f, (x, y) in enumerate(w2)]
    # W1 rolls from frame 30 to 111, and again from 161 (the next shot) to 200
    rows += [(f, "W1", x, y, True) for f, x, y in
             straight((1000.0, 800.0), (300.0, 0.0), 1.0, 111 / FPS, range(0, 160))]
    rows += [(f, "W1", x, y, True) for f, x, y in
             straight((1810.0, 800.0), (-600.0, 0.0), 161 / FPS, 200 / FPS, range(160, 290))]
    shots = shots_from_tracks(TABLE, tracks_from_rows(rows, FPS), FPS)
    assert [(s["strike_frame"], events_of(s)[0]) for s in shots] == [
        (30, ("strike", "W1")), (161, ("strike", "W1"))]


def test_a_ball_lost_rolling_straight_into_a_far_pocket_and_never_seen_again_is_potted():
    """As R2 in opening_legal_s227 (a red on a red cloth): rolling at 0.8 m/s straight at the
    foot-left pocket, lost 560 mm from its point and never seen again: it rolled on into the
    pocket (even a heavy cloth's drag lets it roll 640 mm), timed by a usual cloth's drag. Seen
    again later, it was only lost a while; rolling at 0.3 m/s, it would have stopped short."""
    L, W = TABLE.length_mm, TABLE.width_mm
    unit = (1.0 / math.sqrt(2), 1.0 / math.sqrt(2))  # toward the foot-left pocket's point
    last = (L - 560.0 * unit[0], W - 560.0 * unit[1])

    def pots(speed: float, seen_again: bool = False) -> list[tuple[str, object, int]]:
        step = speed / FPS
        rows = [(f, "R2", last[0] - unit[0] * step * (45 - max(f, 30)),
                 last[1] - unit[1] * step * (45 - max(f, 30)), True) for f in range(0, 46)]
        if seen_again:
            rows += [(f, "R2", last[0] + 150.0, last[1] + 150.0, True) for f in range(80, 120)]
        rows += [(f, "W1", 800.0, 500.0, True) for f in range(0, 120)]
        shots = shots_from_tracks(TABLE, tracks_from_rows(rows, FPS), FPS)
        return [(e["type"], e.get("pocket"), e["frame"]) for s in shots for e in s["events"]
                if e["type"] in ("pocket", "off_table")]

    (pot,) = pots(800.0)
    assert pot[:2] == ("pocket", "FL") and 45 + 18 <= pot[2] <= 45 + 21
    assert pots(800.0, seen_again=True) == []
    assert pots(300.0) == []


def test_a_ball_hit_into_a_cushion_near_by_and_rolling_back_across_its_place_was_hit():
    """As Y in carom_2_s233: resting 47 mm from the foot cushion, hit thinly by W1 at 0.6 m/s,
    it bounces off the cushion and rolls back across its place at 0.2 m/s nine frames later.
    Seen back on its place while rolling, it did not stay there: it left at the hit (before, a
    ball seen back on its place was taken never to have left, and the carom was lost)."""
    D = TABLE.ball_diameter_mm
    y_rest = (TABLE.length_mm - D / 2 - 47.0, 1271.6)
    t_hit = 46.4 / FPS
    hit = (y_rest[0] - D, y_rest[1])  # W1's centre at the hit: Y is sent along +x
    v_in, v_out = (19.6 * FPS, -23.0 * FPS), (0.0, -23.0 * FPS)
    rows = []
    for f in range(0, 120):
        t = f / FPS
        v, dt = (v_in, t - t_hit) if t < t_hit else (v_out, min(t, 70 / FPS) - t_hit)
        rows.append((f, "W1", hit[0] + v[0] * dt, hit[1] + v[1] * dt, True))
        # Y: out at 0.55 m/s, 47 mm into the cushion, back at 0.3 m/s slowing by 0.3 m/s2
        out_s = 47.0 / (16.5 * FPS)
        if t <= t_hit:
            x = y_rest[0]
        elif t <= t_hit + out_s:
            x = y_rest[0] + 16.5 * FPS * (t - t_hit)
        else:
            back = min(t - t_hit - out_s, 1.0)
            x = y_rest[0] + 47.0 - (300.0 * back - 150.0 * back * back)
        rows.append((f, "Y", x, y_rest[1], True))
        rows.append((f, "R1", 800.0, 500.0, True))
    (shot,) = shots_from_tracks(TABLE, tracks_from_rows(rows, FPS), FPS)
    assert [set(e["balls"]) for e in shot["events"] if e["type"] == "contact"] == [{"W1", "Y"}]
    (y_hit,) = [e for e in shot["events"] if e["type"] == "contact"]
    assert abs(y_hit["t"] - t_hit) <= 1.5 / FPS


def test_a_slow_ball_unseen_for_a_few_frames_and_back_a_little_further_on_was_not_placed():
    """As W1 in carom_3_s233: rolling at 0.12 m/s by the foot-left pocket, unseen for four
    frames (with W2 beside it), its last picture before 5 mm aside, seen again 21 mm on. The
    one step before the gap points elsewhere, but no hand puts a ball down 0.17 s after it was
    seen, a ball's width away: it rolled on (taken for put back by hand, it was last seen
    before the gap and left the table there)."""
    stop = 100 / FPS
    rows = [(f, "W1", x, y, True) for f, x, y in
            straight((3470.0, 1420.0), (-6.0, 120.0), 30 / FPS, stop, range(0, 140))
            if not 63 <= f <= 66]
    rows = [(f, b, x - 5.0 if f == 62 else x, y, v) for f, b, x, y, v in rows]
    rows += [(f, "R1", 800.0, 500.0, True) for f in range(0, 140)]
    (shot,) = shots_from_tracks(TABLE, tracks_from_rows(rows, FPS), FPS)
    assert events_of(shot) == [("strike", "W1")]
    end = (3470.0 - 6.0 * (stop - 1.0), 1420.0 + 120.0 * (stop - 1.0))
    assert math.dist(shot["final_positions"]["W1"], end) < 2.0


def test_a_slow_ball_that_comes_to_a_cushion_and_goes_back_off_it_touched_it():
    """W1 in yellow_middle_twice_s257 (frames 70-110), as the tracker saw it: rolling into the
    right cushion at 5 mm a frame, its centre a radius and a millimetre from the nose, then back
    off it at 1 mm a frame. The turn bends the track by less than its noise, so no piece ends
    there: the ball's coming to the nose and going back off it is the cushion contact. A ball
    that rolls as near the nose along it, not off it, touched nothing."""
    seen = [
        (1853.7, 148.2), (1856.6, 141.8), (1858.4, 135.9), (1860.6, 128.9), (1863.1, 123.5),
        (1864.8, 117.9), (1868.5, 110.9), (1868.9, 105.5), (1873.6, 98.6), (1872.4, 95.1),
        (1874.8, 90.0), (1876.4, 83.5), (1878.0, 79.0), (1880.4, 73.6), (1881.9, 68.2),
        (1883.2, 64.1), (1884.7, 59.4), (1887.5, 53.1), (1888.8, 49.0), (1890.3, 43.5),
        (1891.9, 38.8), (1893.0, 34.7), (1893.0, 34.7), (1895.2, 35.8), (1896.4, 36.9),
        (1897.2, 38.1), (1898.0, 39.1), (1898.0, 39.1), (1899.9, 40.8), (1899.9, 40.8),
        (1901.2, 42.3), (1901.2, 42.3), (1901.8, 43.5), (1902.7, 44.3)]
    seen = [(1853.7, 168.0)] * 10 + seen  # (at rest, then struck)
    rows = seen_rows("W1", 60, seen) + seen_rows("R1", 60, [(500.0, 500.0)] * len(seen))
    assert ("cushion", "W1") in first_events(rows, 5)
    # the same ball rolling on along the nose from where it came nearest: no cushion
    along = seen[:32] + [(1893.0 + 2.0 * k, 34.7 + 0.1 * (k % 2)) for k in range(1, 15)]
    rows = seen_rows("W1", 60, along) + seen_rows("R1", 60, [(500.0, 500.0)] * len(along))
    assert ("cushion", "W1") not in first_events(rows, 5)


def test_two_slow_balls_touching_each_pushed_off_by_little_more_than_the_noise_touched():
    """W1 and Y in carom_1_s269 (frames 25-75), as the tracker saw them: W1 hits Y at rest
    (frame 49), Y comes off the foot cushion, and the two meet again at frame 61, W1 at 5 mm
    a frame and Y at 3, each turned away from the other by about 2 mm a frame (60 mm/s). The
    tracker's noise reads W1's turn at 50 mm/s: still each pushed off the other along their
    line of centres, a graze."""
    w1 = [
        (2943.1, 1315.2), (2943.1, 1315.2), (2943.1, 1315.2), (2943.1, 1315.2), (2943.0, 1315.6),
        (2947.9, 1317.0), (2982.8, 1329.8), (3017.4, 1342.5), (3050.0, 1355.6), (3085.4, 1370.2),
        (3121.5, 1383.5), (3153.9, 1396.2), (3186.0, 1407.2), (3200.2, 1400.0), (3213.1, 1393.3),
        (3228.0, 1386.8), (3244.3, 1382.2), (3262.0, 1378.8), (3279.2, 1375.8), (3296.7, 1372.4),
        (3313.7, 1368.1), (3331.0, 1365.0), (3346.6, 1362.5), (3365.2, 1359.8), (3381.3, 1357.1),
        (3387.1, 1353.9), (3390.8, 1350.4), (3395.5, 1346.5), (3401.3, 1342.9), (3405.5, 1339.7),
        (3410.0, 1336.3), (3415.7, 1332.8), (3420.4, 1329.4), (3425.8, 1326.7), (3429.9, 1323.5),
        (3433.9, 1320.0), (3437.1, 1317.0), (3441.0, 1312.7), (3443.1, 1308.5), (3446.5, 1304.0),
        (3449.0, 1299.9), (3451.2, 1295.8), (3453.7, 1292.7), (3456.0, 1287.8), (3459.1, 1284.5),
        (3461.1, 1281.6), (3463.8, 1278.0), (3465.8, 1274.5), (3468.0, 1271.4), (3470.5, 1267.3),
        (3472.4, 1264.1),
    ]
    y = [
        (3453.1, 1360.3), (3453.1, 1360.3), (3453.1, 1360.3), (3452.8, 1360.2), (3452.8, 1360.2),
        (3452.8, 1360.2), (3452.8, 1360.2), (3452.8, 1360.2), (3452.8, 1360.2), (3452.8, 1360.2),
        (3452.8, 1360.2), (3452.8, 1360.2), (3452.8, 1360.2), (3452.8, 1360.2), (3452.8, 1360.2),
        (3452.8, 1360.2), (3453.2, 1360.6), (3453.0, 1360.4), (3452.8, 1360.8), (3452.4, 1360.5),
        (3452.6, 1360.6), (3452.6, 1360.6), (3452.6, 1360.6), (3453.5, 1360.8), (3455.6, 1361.3),
        (3465.2, 1361.6), (3478.0, 1361.5), (3491.3, 1361.5), (3504.0, 1363.4), (3513.8, 1364.6),
        (3509.4, 1365.3), (3503.5, 1364.4), (3500.4, 1364.6), (3495.5, 1364.5), (3492.7, 1364.3),
        (3490.1, 1364.9), (3487.3, 1364.8), (3486.6, 1368.3), (3485.0, 1369.5), (3484.1, 1370.1),
        (3483.2, 1371.1), (3481.5, 1373.0), (3480.5, 1374.0), (3478.9, 1376.4), (3478.2, 1376.5),
        (3477.6, 1377.9), (3477.2, 1378.1), (3476.6, 1378.2), (3475.9, 1378.9), (3475.4, 1379.5),
        (3475.0, 1380.5),
    ]
    rows = seen_rows("W1", 25, w1) + seen_rows("Y", 25, y)
    (shot,) = shots_from_tracks(TABLE, tracks_from_rows(rows, FPS), FPS)
    touches = [e["frame"] for e in shot["events"]
               if e["type"] == "contact" and set(e["balls"]) == {"W1", "Y"}]
    assert any(abs(f - 49) <= 1 for f in touches)
    assert any(abs(f - 61) <= 1 for f in touches)


def test_a_ball_struck_into_a_touching_ball_that_left_with_it_in_the_same_frame_hit_it():
    """W1 and W2 in touching_whites_s277 (frames 25-44), as the tracker saw them: W1 struck
    into W2, which touches it; both leave in frame 30, W2 along their line of centres (pushed
    by W1, the striker), W1 aside. W2's first pictures put its start a little before W1's; the
    striker is given the first start, here W2's own: W1 was moving when W2 left all the same,
    and hit it."""
    w1 = [(1630.9, 726.7), (1630.7, 726.9), (1630.7, 726.9), (1629.7, 726.3), (1630.8, 727.0),
          (1628.4, 728.4), (1613.1, 744.6), (1596.5, 760.2), (1576.6, 782.5), (1559.7, 798.3),
          (1545.2, 815.0), (1527.8, 831.7), (1511.1, 847.3), (1495.9, 862.3), (1480.0, 879.6),
          (1464.2, 893.4), (1448.4, 909.3), (1431.8, 925.5), (1417.4, 940.3), (1403.8, 955.1)]
    w2 = [(1580.6, 681.8), (1580.6, 681.8), (1580.6, 681.8), (1580.6, 681.8), (1580.6, 681.6),
          (1578.4, 680.9), (1572.4, 673.3), (1568.3, 670.8), (1561.3, 664.0), (1554.0, 657.1),
          (1548.4, 651.6), (1543.3, 646.8), (1537.5, 640.9), (1532.4, 636.0), (1526.8, 631.4),
          (1521.4, 627.3), (1517.2, 622.4), (1511.5, 617.7), (1505.4, 612.7), (1500.6, 608.6)]
    rows = seen_rows("W1", 25, w1) + seen_rows("W2", 25, w2)
    assert first_events(rows, 2) == [("strike", "W1"), ("contact", ["W1", "W2"])]


def test_a_fast_cue_ball_passing_a_streak_length_off_where_the_hitter_was_hit_the_ball():
    """W1, R1 and Y in bank_red_corner_s269 (frames 26-40), as the tracker saw them: W1 at
    10 m/s hits R1 and then Y within two frames. Its blurred centres lie 40-90 mm off its true
    path, so the path between them passes 55 mm from where Y's hitter must have been; R1's
    passes 340 mm off. A long streak's centre is less sure: W1 hit Y."""
    w1 = [(735.3, 506.3)] * 4 + [
        (734.1, 508.8), (610.4, 748.2), (436.7, 1006.0), (106.0, 1185.6), (210.5, 1216.3),
        (423.5, 1247.7), (627.2, 1278.1), (832.4, 1310.1), (1043.2, 1341.4), (1249.8, 1375.3),
        (1445.5, 1406.3)]
    r1 = [(567.6, 975.9)] * 5 + [
        (568.7, 977.0), (625.2, 1038.9), (703.9, 1123.5), (781.7, 1208.4), (856.7, 1289.4),
        (935.7, 1372.2), (1009.1, 1451.7), (1080.6, 1531.3), (1153.4, 1606.4), (1222.3, 1680.9)]
    y = [(288.2, 1222.5)] * 3 + [
        (288.3, 1222.6), (288.5, 1221.9), (288.5, 1221.9), (288.0, 1225.4), (309.5, 1356.6),
        (333.9, 1548.7), (356.9, 1690.4), (374.9, 1601.0), (393.7, 1450.6), (409.4, 1309.0),
        (428.4, 1169.0), (445.2, 1027.0)]
    rows = seen_rows("W1", 26, w1) + seen_rows("R1", 26, r1) + seen_rows("Y", 26, y)
    assert first_events(rows, 3) == [("strike", "W1"), ("contact", ["W1", "R1"]),
                                     ("contact", ["W1", "Y"])]


def test_a_cue_ball_unseen_for_two_frames_and_then_rolling_fast_far_away_was_struck():
    """W1 and R1 in bank_red_corner_s251 (frames 26-42), as the tracker saw them: W1, struck
    at 16 m/s into R1, unseen in frames 31-32, is next seen 1.2 m away, bouncing between the
    cushions at 8-14 m/s. The jump is faster than any hand, and its steps after it, though
    unsteady (the cushions), are too: the ball was struck, not put there."""
    w1 = {26 + k: xy for k, xy in enumerate([(957.8, 503.3)] * 4 + [(957.8, 503.6)])}
    w1 |= {33: (242.5, 1492.1), 34: (457.5, 1648.2), 35: (821.0, 1597.9), 36: (1218.9, 1351.0)}
    r1 = [(687.1, 922.2)] * 5 + [
        (696.3, 930.5), (761.9, 1018.8), (824.9, 1100.2), (890.8, 1183.7), (951.5, 1265.0),
        (1011.7, 1334.9), (1071.1, 1414.8), (1130.5, 1492.3), (1185.9, 1564.5),
        (1242.4, 1635.7), (1293.7, 1705.0), (1339.2, 1714.0)]
    rows = [(f, "W1", x, y, True) for f, (x, y) in w1.items()] + seen_rows("R1", 26, r1)
    assert first_events(rows, 2) == [("strike", "W1"), ("contact", ["W1", "R1"])]


@pytest.mark.parametrize(("shift", "nudged"), [((3.0, 0.0), True), ((0.0, 3.0), False)])
def test_a_ball_crept_into_and_moved_a_few_mm_was_hit(shift: tuple[float, float],
                                                      nudged: bool) -> None:
    """As in carom_3_s263: W1 rolls to a stop against W2, the last frames creeping, and W2
    moves 3 mm along their line of centres, too slowly to be seen leaving: W1 hit W2. Read
    3 mm aside instead (the pictures of two touching balls split anew), W2 was not pushed."""
    D = TABLE.ball_diameter_mm
    frames = 60
    v0 = 2 * (1000.0 - D) / frames  # (mm a frame, slowing evenly to a stop at W2)
    w1 = [(1000.0, 500.0)] * 5 + [
        (1000.0 + v0 * k - v0 / (2 * frames) * k * k, 500.0) for k in range(1, frames + 1)]
    w2_place = (2000.0, 500.0)
    w2 = [w2_place] * (5 + frames - 3) + [
        (w2_place[0] + shift[0] * k / 5, w2_place[1] + shift[1] * k / 5) for k in range(1, 6)]
    rows = seen_rows("W1", 25, w1) + seen_rows("W2", 25, w2, still=len(w1) - len(w2) + 12)
    found = first_events(rows, 3)
    assert found[0] == ("strike", "W1")
    assert (("contact", ["W1", "W2"]) in found) == nudged


def test_a_ball_come_to_rest_in_a_middle_pockets_hole_then_gone_after_the_shot_dropped():
    """As R1 on the club footage (simulation_vs_reality_1_0008_0011, its track): sent into the
    right middle pocket, it is seen at rest in the hole, 6 mm short of the mouth line (its
    picture cut by the cloth's edge), for four frames while the cue ball stops, and is gone
    for good just after the shot is over: it dropped, in this shot."""
    w1 = [(f, "W1", 1784.0, 600.0 - 40.0 * min(max(f - 27, 0), 6), True) for f in range(10, 85)]
    r1 = [(f, "R1", 1784.0, 258.0, True) for f in range(10, 30)]
    r1 += [(31, "R1", 1783.0, 111.0, True), (32, "R1", 1777.0, 12.0, True)]
    r1 += [(f, "R1", 1777.0, 6.0, True) for f in range(34, 38)]
    assert pot_frames(w1 + r1) == [("MR", 37)]


# --- the thresholds as a parameter object ------------------------------------------------------
# the module constants' values before they became ShotFactsParams' fields, literally
PREVIOUS_CONSTANTS = {
    "still_mm_per_frame": 1.5, "still_frames": 8, "next_strike_s": 1.0,
    "struck_first_step_ratio": 2.0,  # (new with the field: a ball struck from rest soon after)
    "rest_jitter_diameters": 0.3, "first_step_share": 0.25, "touching_diameters": 1.15,
    "touching_s": 0.1, "near_diameters": 3.0, "wander_s": 0.5, "placed_mm_per_frame": 400.0,
    "hardest_mm_per_frame": 480.0, "min_travel_mm": 34.0, "min_shot_frames": 4,
    "max_gap_frames": 3, "hand_s": 0.2, "nudge_mm": 68.0, "line_tolerance_mm": 8.0,
    "blur_share": 0.08, "predict_samples": 6, "outlier_samples": 2, "turn_samples": 2,
    "drift_growth_ratio": 1.25, "local_samples": 4, "heavy_drag_mm_s2": 500.0,
    "typical_drag_mm_s2": 100.0, "rolling_samples": 3, "rolling_mm_per_frame": 7.0,
    "fast_mm_per_frame": 100.0, "steady_step_mm": 34.0, "min_kink_mm_s": 150.0,
    "slow_kink_mm_s": 60.0, "push_angle_deg": 60.0, "double_kiss_s": 0.1,
    "contact_tolerance_mm": 22.0, "lone_hitter_mm": 51.0, "graze_mm": 4.0, "graze_frames": 3,
    "graze_kink_mm_s": 40.0, "cushion_tolerance_mm": 22.0, "bounce_touch_mm": 6.0,
    "nudged_mm": 2.5, "nudge_angle_deg": 45.0, "jaw_tolerance_mm": 8.0,
    "pocket_reach_diameters": 2.5, "past_mouth_mm": 3.0, "in_the_hole_gap_frames": 2,
    "in_the_hole_radii": 0.5,
}


def test_the_default_thresholds_are_the_previous_constants():
    defaults = DEFAULT_SHOT_FACTS.to_dict()
    assert defaults == PREVIOUS_CONSTANTS
    # the same types too: counts stay whole numbers, the rest floats
    assert {k: type(v) for k, v in defaults.items()} == {
        k: type(v) for k, v in PREVIOUS_CONSTANTS.items()}
    # the derived ones, computed as before (three still steps)
    assert DEFAULT_SHOT_FACTS.flicker_return_mm == 3 * 1.5 == 4.5
    assert DEFAULT_SHOT_FACTS.reseated_mm == 4.5
    assert ShotFactsParams(still_mm_per_frame=2.0).reseated_mm == 6.0
    # the names the tracker reads them by
    assert (facts.REST_JITTER_DIAMETERS, facts.TOUCHING_DIAMETERS) == (0.3, 1.15)
    assert ShotFactsParams() == DEFAULT_SHOT_FACTS


@pytest.mark.parametrize(("changes", "field"), [
    ({"still_mm_per_frame": 0.0}, "still_mm_per_frame"),
    ({"contact_tolerance_mm": -22.0}, "contact_tolerance_mm"),
    ({"cushion_tolerance_mm": math.nan}, "cushion_tolerance_mm"),
    ({"next_strike_s": math.inf}, "next_strike_s"),
    ({"blur_share": 1.5}, "blur_share"),
    ({"first_step_share": 0.0}, "first_step_share"),
    ({"push_angle_deg": 0.0}, "push_angle_deg"),
    ({"nudge_angle_deg": 200.0}, "nudge_angle_deg"),
    ({"drift_growth_ratio": 0.9}, "drift_growth_ratio"),
    ({"still_frames": 0}, "still_frames"),
    ({"graze_frames": 2.5}, "graze_frames"),
    ({"rolling_samples": True}, "rolling_samples"),
    ({"predict_samples": 1}, "predict_samples"),
    ({"hand_s": "0.2"}, "hand_s"),
    ({"hardest_mm_per_frame": 300.0}, "hardest_mm_per_frame"),  # (below placed_mm_per_frame)
    ({"slow_kink_mm_s": 200.0}, "min_kink_mm_s"),  # (the slow ball's kink above the least)
])
def test_a_threshold_out_of_its_range_is_refused_naming_it(changes: dict[str, object],
                                                          field: str) -> None:
    with pytest.raises(ShotFactsParamsError, match=f"^{field}: expected ") as refused:
        ShotFactsParams(**changes)
    assert isinstance(refused.value, ValueError)
    assert "\n" not in str(refused.value)


def test_the_thresholds_go_to_a_dict_and_back():
    for params in (DEFAULT_SHOT_FACTS,
                   ShotFactsParams(contact_tolerance_mm=30.0, still_frames=10, blur_share=0.1)):
        d = params.to_dict()
        assert ShotFactsParams(**d) == params
        assert ShotFactsParams(**json.loads(json.dumps(d))) == params  # (as a report has it)
    # a whole number given for a length is kept as the same float
    given = ShotFactsParams(contact_tolerance_mm=30)
    assert type(given.contact_tolerance_mm) is float and given.contact_tolerance_mm == 30.0


def near_miss_rows(gap_mm: float) -> list[tuple[int, str, float, float, bool]]:
    """W1 struck at 3 m/s along x passes R1 with their centres a diameter and ``gap_mm`` apart
    (no turn of its own), and R1 leaves then, straight away from W1's line; Y, far off, is
    rolling meanwhile (so W1 is not the only ball that could have hit R1)."""
    frames = range(0, 60)
    w1 = straight((1000.0, 800.0), (3000.0, 0.0), 1.0, 1.4, frames)
    r1 = straight((1300.0, 800.0 + TABLE.ball_diameter_mm + gap_mm), (0.0, 1500.0), 1.1, 1.3,
                  frames)
    y = straight((2500.0, 1300.0), (0.0, -1500.0), 1.05, 1.3, frames)
    return [(f, ball, x, yy, True) for ball, rows in (("W1", w1), ("R1", r1), ("Y", y))
            for f, x, yy in rows]


def test_a_wider_contact_tolerance_takes_a_near_miss_for_a_contact():
    rows = near_miss_rows(45.0)
    tracks = tracks_from_rows(rows, FPS)
    wide = ShotFactsParams(contact_tolerance_mm=50.0)
    (narrow_shot,) = shots_from_tracks(TABLE, tracks, FPS)
    (wide_shot,) = shots_from_tracks(TABLE, tracks, FPS, wide)
    assert events_of(narrow_shot) == [("strike", "W1")]
    assert events_of(wide_shot) == [("strike", "W1"), ("contact", ("W1", "R1"))]
    # the stream passes the thresholds on: the same facts as the whole tracks by them
    streamed = shots_from_rows(rows, TABLE, FPS, facts=wide)
    assert [s.facts.to_dict() for s in streamed] == [wide_shot]
    # nearer, the default finds it too
    (near_shot,) = shots_from_tracks(TABLE, tracks_from_rows(near_miss_rows(10.0), FPS), FPS)
    assert events_of(near_shot) == [("strike", "W1"), ("contact", ("W1", "R1"))]


def test_a_shorter_least_travel_takes_a_small_push_for_a_shot():
    """W1 pushed 30 mm over six frames: less than half a ball, jitter by default; a shot when
    a shot need move a ball only 20 mm."""
    rows = [(f, "W1", 1000.0 + 5.0 * min(max(f - 20, 0), 6), 800.0, True) for f in range(60)]
    rows += [(f, "Y", 2500.0, 1200.0, True) for f in range(60)]
    tracks = tracks_from_rows(rows, FPS)
    assert shots_from_tracks(TABLE, tracks, FPS) == []
    (shot,) = shots_from_tracks(TABLE, tracks, FPS, ShotFactsParams(min_travel_mm=20.0))
    assert events_of(shot) == [("strike", "W1")]
