"""Shot facts from tracks: the helpers' own behaviour on hand-made samples, the thresholds as a
parameter object, and the labelled clips' true tracks (hidden frames left out) against their
labels. The track-in, events-out regression cases are data: ``fixtures/shot_facts/``, run by
``test_shot_fact_fixtures.py``."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

import vision.shots
from referee.evaluate import judge_found_shots, read_tracks, score_shots
from referee.labels import load_labels
from rules import EventType, Pocket, TableSpec
from vision.shots import (
    DEFAULT_SHOT_FACTS,
    FoundEvent,
    Sample,
    ShotFactsParams,
    ShotFactsParamsError,
    cut_into_pieces,
    shots_from_rows,
    shots_from_tracks,
    tracks_from_rows,
)
from vision.shots.cushions import once_per_cushion_visit
from vision.shots.pieces import kinked
from vision.shots.segmentation import until_placed

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


def samples(rows: list[tuple[int, float, float]]) -> list[Sample]:
    return [Sample(f, f / FPS, (x, y)) for f, x, y in rows]


def events_of(shot: dict) -> list[tuple[str, object]]:
    return [(e["type"], e.get("ball") or tuple(e["balls"])) for e in shot["events"]]


def test_a_ball_comes_off_a_cushion_once_until_something_turns_it_back():
    """W1 comes off the left cushion; a second kink there 0.1 s later (the track wobbling as it
    leaves the corner) is the same visit. After a ball or another cushion, it may come back."""
    def cushion(t: float, which: str) -> FoundEvent:
        return FoundEvent(t, "cushion", ("W1",), (3400.0, 1730.0), cushion=which)

    wobble = [cushion(1.0, "left"), cushion(1.1, "left"), cushion(1.2, "foot")]
    assert [(e.t, e.cushion) for e in once_per_cushion_visit(wobble)] == [(1.0, "left"),
                                                                         (1.2, "foot")]
    back = [cushion(1.0, "left"), FoundEvent(1.5, "contact", ("R1", "W1"), (3000.0, 900.0)),
            cushion(2.0, "left"), cushion(2.5, "right"), cushion(3.0, "left")]
    assert once_per_cushion_visit(back) == back
    other = [cushion(1.0, "left"), FoundEvent(1.1, "cushion", ("W2",), (3400.0, 1730.0),
                                              cushion="left")]
    assert once_per_cushion_visit(other) == other


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
    # a slow ball at 90 mm/s kisses another and goes on at 23 mm/s the other way; the change
    # (112 mm/s) is under what a fast ball's track wobbles by, but half the ball's speed.
    assert kinked(np.array([77.0, -46.0]), np.array([-16.0, 17.0]), DEFAULT_SHOT_FACTS)
    # a fast ball whose fit wobbles by 100 mm/s has not turned; nor a slow one by 40 mm/s
    assert not kinked(np.array([1500.0, 0.0]), np.array([1480.0, 98.0]), DEFAULT_SHOT_FACTS)
    assert not kinked(np.array([60.0, 0.0]), np.array([50.0, 39.0]), DEFAULT_SHOT_FACTS)


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
    from vision.shots.segmentation import _without_rest_flicker
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
    """A ball slowing to rest stepped 1.8 mm off one sample and stayed; 800 frames later it
    was struck back across that sample's place. Passing through a place is not being
    back at rest on it: the samples between are real and stay as they were."""
    from vision.shots.segmentation import _without_rest_flicker
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
    assert until_placed(rolling, DEFAULT_SHOT_FACTS) == rolling
    # at rest, unseen four frames (a hand over it), then 120 mm away, staying: put there by hand
    rest = [Sample(f, f / 30, (1000.0, 500.0)) for f in range(6)]
    moved = [*rest, *(Sample(f, f / 30, (1120.0, 500.0)) for f in range(10, 14))]
    assert until_placed(moved, DEFAULT_SHOT_FACTS) == rest
    # rolling, unseen, then seen off its way (sideways), staying: put there by hand
    aside = [*rolling[:6], *(Sample(f, f / 30, (1150.0, 620.0)) for f in range(10, 14))]
    assert until_placed(aside, DEFAULT_SHOT_FACTS) == rolling[:6]


def test_a_ball_at_rest_and_back_elsewhere_at_rest_or_creeping_was_placed():
    """At rest, unseen four frames, then 450 mm away creeping at 5 mm a frame (as a hand moves
    a ball): put there by hand; its samples end at its place. (Seen there rolling fast, on a
    line that does not lead back to it, it was struck: a fixture.)"""
    rest = [Sample(f, f / FPS, (1950.0, 305.0)) for f in range(20, 31)]
    put = [Sample(f, f / FPS, (2400.0 + 5.0 * (f - 35), 700.0)) for f in range(35, 45)]
    assert until_placed(rest + put, DEFAULT_SHOT_FACTS) == rest


def test_a_ball_at_rest_seen_next_further_away_than_the_hardest_shot_goes_was_placed():
    """At rest, unseen a frame, then 1.8 m away and rolling on at 150 mm a frame: a jump faster
    than the hardest shot is a ball put down elsewhere (or another ball). (Seen 1240 mm away
    two frames on, as fast as the hardest shot, it was struck: a fixture.)"""
    rest = [Sample(f, f / FPS, (854.0, 494.0)) for f in range(10, 31)]
    far = [Sample(f, f / FPS, (2400.0 + 150.0 * (f - 32), 1500.0)) for f in range(32, 40)]
    assert until_placed(rest + far, DEFAULT_SHOT_FACTS) == rest


def test_the_jaws_are_the_ends_of_the_cushion_noses_at_the_pockets():
    from vision.shots import nearest_jaw
    L, W, a = TABLE.length_mm, TABLE.width_mm, TABLE.jaw_offset_mm(Pocket.HR)
    m = TABLE.jaw_offset_mm(Pocket.ML)
    cases = {(40.0, 100.0): ("head", (0.0, a)), (100.0, 40.0): ("right", (a, 0.0)),
             (L - 100.0, W - 40.0): ("left", (L - a, W)), (40.0, W - 100.0): ("head", (0.0, W - a)),
             (L / 2 + 30.0, 20.0): ("right", (L / 2 + m, 0.0))}
    for xy, (cushion, jaw) in cases.items():
        c, where, gap = nearest_jaw(TABLE, xy)
        assert (c.value, where) == (cushion, pytest.approx(jaw)), xy
        assert gap == pytest.approx(abs(math.dist(xy, jaw) - TABLE.ball_radius_mm))


def test_a_ball_seen_in_two_frames_running_faster_than_a_hand_but_not_the_hardest_shot_rolled():
    """A ball struck at 9.6 m/s: its blurred centres lag and lead its
    true place, 246 then 412 mm a frame (over the 400 mm that no shot but the hardest goes),
    then unseen a frame (a blur): seen in two frames running, no hand moved it; it rolled."""
    rest = [Sample(f, f / FPS, (1723.0, 465.0)) for f in range(20, 31)]
    blurred = [Sample(31, 31 / FPS, (1588.0, 671.0)), Sample(32, 32 / FPS, (1295.0, 960.0))]
    on = [Sample(f, f / FPS, (911.0 - 230.0 * (f - 34), 1221.0 + 150.0 * (f - 34)))
          for f in range(34, 37)]
    assert until_placed(rest + blurred + on, DEFAULT_SHOT_FACTS) == rest + blurred + on
    # unseen between the two (two frames apart), as far: put there by hand
    jumped = [*rest, Sample(32, 32 / FPS, (1723.0 - 800.0, 465.0)),
              Sample(40, 40 / FPS, (1723.0 - 800.0, 465.0))]
    assert until_placed(jumped, DEFAULT_SHOT_FACTS) == rest


def test_a_ball_seen_rolling_on_from_a_jump_faster_than_the_hardest_shot_rolled():
    """A ball struck at 11.6 m/s into another: its blurred centre in the frame of the contact
    lags 116 mm behind its place, so the next step reads 505 mm (more
    than the hardest shot's 480); then it rolls on at a steady 380 mm a frame. No hand puts a
    ball down rolling: it rolled. The same jump to a ball at rest there was a hand's (or
    another ball)."""
    rest = [Sample(f, f / FPS, (2009.0, 368.0)) for f in range(20, 31)]
    blurred = [Sample(31, 31 / FPS, (2202.0, 587.0))]
    on = [Sample(f, f / FPS, (2591.0 + 320.0 * (f - 32), 909.0 + 206.0 * (f - 32)))
          for f in range(32, 35)]
    assert until_placed(rest + blurred + on, DEFAULT_SHOT_FACTS) == rest + blurred + on
    still = [Sample(f, f / FPS, (2591.0, 909.0)) for f in range(32, 40)]
    assert until_placed(rest + blurred + still, DEFAULT_SHOT_FACTS) == rest + blurred
    # a phantom ball seen in real footage: a jump of 519 mm, then steps of 207 and 244 mm and
    # a slow roll: a thing wandering (no ball slows so), not rolling
    wander = [Sample(17, 17 / FPS, (573.0, 932.0)), Sample(18, 18 / FPS, (384.0, 847.0)),
              Sample(19, 19 / FPS, (162.0, 748.0))]
    wander += [Sample(f, f / FPS, (162.0 - 20.0 * (f - 19), 748.0 - 13.0 * (f - 19)))
               for f in range(20, 24)]
    jumped = [Sample(f, f / FPS, (1050.0, 1135.0)) for f in range(10, 17)]
    assert until_placed(jumped + wander, DEFAULT_SHOT_FACTS) == jumped


def test_a_contact_pushes_a_ball_away_from_the_other_along_the_line_of_centres():
    """Two rolling balls, R1 and Y, pass 70 mm apart (a hair more than a ball), and there the
    tracker's centres wobble by 6-13 mm, so Y's track seems to turn (by 200 mm/s, more than the
    least kink) as R1 passes within the contact tolerance. A contact pushes each ball away from
    the other along their line of centres (within 60 degrees: a cut's throw, the track's
    noise); Y's turn went sideways to that line: no contact."""
    from vision.shots.contacts import pushed_away
    y, r1 = (3254.0, 361.0), (3206.0, 303.0)
    within = DEFAULT_SHOT_FACTS.push_angle_deg
    away = np.subtract(y, r1) / math.dist(y, r1)
    across = np.array([-away[1], away[0]])
    assert pushed_away(300.0 * away, y, r1, within)  # straight away from R1
    assert pushed_away(300.0 * (away + 0.5 * across), y, r1, within)  # a cut, thrown a little
    assert not pushed_away(200.0 * across, y, r1, within)  # sideways: the track's wobble
    assert not pushed_away(-300.0 * away, y, r1, within)  # toward R1: no push pulls
    assert pushed_away(np.zeros(2), y, None, within)  # no other ball's place to judge by


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
ADDED = {
    "least_rebound_share": 0.2,  # cushions.bounced_off_cushion: a bounce comes back off it
    "touch_speed_mm_per_frame": 15.0,  # contacts.grazes: two slow balls this near touched
    "touch_mm": 1.5,
    "unseen_way_deg": 5.0,  # events._potted_unseen: a ball hit unseen went its hitter's way
    "unseen_bounce_frames": 3,  # cushions.unseen_bounces: a gap this long may hide a bounce
}
# defaults changed since, with the rule that changed them
CHANGED = {
    "graze_mm": 6.0,  # contacts.grazes: the way before a touch taken since the ball's last event
}


def test_the_default_thresholds_are_the_previous_constants():
    defaults = DEFAULT_SHOT_FACTS.to_dict()
    assert defaults == PREVIOUS_CONSTANTS | ADDED | CHANGED
    # the same types too: counts stay whole numbers, the rest floats
    assert {k: type(v) for k, v in defaults.items()} == {
        k: type(v) for k, v in (PREVIOUS_CONSTANTS | ADDED).items()}
    # the derived ones, computed as before (three still steps)
    assert DEFAULT_SHOT_FACTS.flicker_return_mm == 3 * 1.5 == 4.5
    assert DEFAULT_SHOT_FACTS.reseated_mm == 4.5
    assert ShotFactsParams(still_mm_per_frame=2.0).reseated_mm == 6.0
    # the names the tracker reads them by
    assert (vision.shots.REST_JITTER_DIAMETERS, vision.shots.TOUCHING_DIAMETERS) == (0.3, 1.15)
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


def test_the_fits_are_evaluated_as_numpy_sums_their_terms_to_the_bit():
    """A piece's end fits and a straight motion's prediction are evaluated in plain floats:
    the same values, to the bit, as the sum of the terms ``c * dt ** (degree - k)`` on the
    coefficient rows that they replace (a shot's facts depend on them through every event's
    time and place)."""
    from vision.shots.pieces import _predict
    from vision.shots.samples import Sample, _fit

    rng = np.random.default_rng(12)
    params = vision.shots.DEFAULT_SHOT_FACTS
    for n in (2, 3, 4, 5, 8):
        for _ in range(40):
            t0 = float(rng.uniform(0, 60))
            samples = [Sample(k, t0 + k / 30, (float(x), float(y))) for k, (x, y) in enumerate(
                rng.uniform(0, 3000, (n, 2)).cumsum(axis=0) / n)]
            t = np.array([s.t for s in samples])
            p = np.array([s.xy for s in samples])
            degree = 2 if n >= 3 else 1
            coeffs = np.polyfit(t - t[0], p, degree)
            when = float(rng.uniform(t0 - 0.5, t0 + 1.0))
            summed = sum(c * (when - t[0]) ** (degree - i) for i, c in enumerate(coeffs))
            assert np.array_equal(_fit(samples)(when), summed)
            recent = samples[-params.predict_samples:]
            ts = np.array([q.t for q in recent]) - recent[-1].t
            degree = 2 if len(recent) >= 5 else 1
            coef = np.polyfit(ts, np.array([q.xy for q in recent]), degree)
            dt = when - recent[-1].t
            expected = sum(c * dt ** (degree - k) for k, c in enumerate(coef))
            assert _predict(samples, when, params) == (float(expected[0]), float(expected[1]))


def test_a_ball_that_moved_and_was_lost_on_the_cloth_is_estimated_where_it_was_last_seen():
    """W1 stuns Y off its place; Y rolls 500 mm on, slowing, and as it comes to rest an arm
    lies over it to the end of the video. Its final place is no measurement: it goes out as an
    estimate (``estimated_positions``: where it was last seen), W1 and the red as final
    positions. (Before, Y was left out, and the judge kept it on its old place.)"""
    rows: list[tuple[int, str, float, float, bool]] = []
    for f in range(201):
        w1 = 500.0 + 25.0 * min(max(f - 30, 0), 25.28)  # struck at 30, stops dead at the hit
        rows += [(f, "W1", w1, 900.0, True), (f, "R1", 887.5, 400.0, True)]
        k = min(max(f - 55, 0), 50)
        if f <= 100:  # then unseen under the arm
            rows.append((f, "Y", 1200.0 + 20.0 * k - 0.2 * k * k, 900.0, True))
    [shot] = shots_from_tracks(TableSpec(), tracks_from_rows(rows, FPS), FPS)
    assert [(e["type"], e.get("ball") or e.get("balls")) for e in shot["events"]] == [
        ("strike", "W1"), ("contact", ["W1", "Y"])]
    assert set(shot["final_positions"]) == {"W1", "R1"}
    assert shot["estimated_positions"]["Y"] == pytest.approx([1695.0, 900.0], abs=1.0)
