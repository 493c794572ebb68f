"""Scoring against labels: event matching, pocket ids, verdict fields, tracks."""

from __future__ import annotations

from pathlib import Path

from referee.evaluate import (
    match_events,
    pocket_ids,
    read_tracks,
    score_shots,
    score_tracks,
    verdict_differences,
)
from rules import Event, EventType
from rules.balls import Ball
from rules.table import Pocket


def contact(t: float, a: str = "W1", b: str = "R1") -> Event:
    return Event(EventType.CONTACT, t, (Ball(a), Ball(b)))


def pot(t: float, ball: str, pocket: str) -> Event:
    return Event(EventType.POCKET, t, (Ball(ball),), pocket=Pocket(pocket))


def test_events_match_one_to_one_within_the_tolerance():
    truth = [contact(1.0), contact(2.0), contact(3.0, "W1", "Y")]
    found = [contact(1.05), contact(1.08), contact(2.5), contact(3.02, "Y", "W1")]
    counts = match_events(truth, found, tolerance_s=0.1)[EventType.CONTACT]
    # 1.0<->1.05 and 3.0<->3.02 (ball order does not matter); 1.08 and 2.5 are false, 2.0 missed.
    assert (counts.tp, counts.fp, counts.fn) == (2, 2, 1)
    assert counts.precision == 0.5 and abs(counts.recall - 2 / 3) < 1e-9
    assert sorted(round(e, 3) for e in counts.timing_errors_s) == [0.02, 0.05]


def test_pocket_ids_are_scored_apart_from_finding_the_pot():
    assert pocket_ids([pot(1, "R1", "FL"), pot(2, "Y", "MR")],
                      [pot(1, "R1", "FR"), pot(2, "Y", "MR")]) == (1, 2)


def test_verdict_differences():
    base = {"shooter": 1, "points": 5, "caroms": ["W2", "Y"], "fouls": [], "respots": [
        {"ball": "R1", "point": "point1", "xy_mm": [1, 2]}]}
    same = {**base, "caroms": ["Y", "W2"], "respots": [
        {"ball": "R1", "point": "point1", "xy_mm": [1.5, 2]}]}
    assert verdict_differences(base, same) == []
    assert verdict_differences(base, {**base, "points": 3}) == ["points"]


def test_score_shots_pairs_shots_by_strike_time():
    def shot(t0: float, points: int) -> dict:
        return {"events": [{"t": t0, "type": "strike", "ball": "W1"},
                           {"t": t0 + 0.5, "type": "contact", "balls": ["W1", "R1"]}],
                "verdict": {"points": points}}
    scores = score_shots([shot(1, 3), shot(10, 0)], [shot(1.08, 3), shot(10.05, 5)])
    assert (scores.shots, scores.shots_matched, scores.verdicts_equal) == (2, 2, 1)
    assert scores.verdict_diffs == [(1, ["points"])]
    assert scores.events[EventType.STRIKE].tp == 2


def test_tracks(tmp_path: Path):
    truth_csv = tmp_path / "t.csv"
    truth_csv.write_text("frame,ball,x_mm,y_mm,visible\n"
                         "0,W1,100,100,1\n1,W1,100,100,1\n2,W1,150,100,1\n3,W1,200,100,0\n"
                         "0,W2,500,500,1\n1,W2,500,500,1\n2,W2,500,500,1\n3,W2,500,500,1\n")
    truth = read_tracks(truth_csv)
    found = {(0, "W1"): (101.0, 100.0, True), (1, "W1"): (100.0, 102.0, True),
             (2, "W1"): (154.0, 100.0, True), (0, "W2"): (500.0, 500.0, True),
             (1, "W2"): (500.0, 500.0, True), (2, "W2"): (900.0, 500.0, True),
             (3, "W1"): (500.0, 500.0, True), (3, "W2"): (200.0, 100.0, True)}
    s = score_tracks(truth, found)
    assert s.visible == 7  # W1 at frame 3 is hidden
    assert s.found == 5  # W2 at frame 2 is too far; W2 at frame 3 is where W1 is
    assert s.rest_errors_mm == [1.0, 2.0, 0.0, 0.0] and s.motion_errors_mm == [4.0]
    assert s.white_swaps == 1
