"""The real footage's hand check scoring (benchmarks/bench_realdata.py) on made-up frames: what
counts as found, wrong colour, missed and phantom, and the line written for each ball no id
found. Needs no footage."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np

from tests.benchmark_import import benchmark

ROOT = Path(__file__).resolve().parents[1]


def _bench():
    return benchmark("bench_realdata")


class _SameCoordinates:
    """A 'calibration' whose table frame is the picture itself."""

    def table_to_image(self, points):
        return np.asarray(points, np.float64)


def _det(colour: str, x: float, y: float, score: float = 0.8) -> SimpleNamespace:
    return SimpleNamespace(colour=colour, x_px=x, y_px=y, score=score)


def test_a_ball_with_no_id_of_its_colour_is_missed_and_said_with_the_detections_near_it():
    bench = _bench()
    labels = {"0": [{"colour": "white", "x_px": 100, "y_px": 100},
                    {"colour": "red", "x_px": 300, "y_px": 100}]}
    frame = SimpleNamespace(
        balls={"W1": (102.0, 100.0, True), "R1": (500.0, 500.0, True)},
        detections=[_det("white", 101.0, 100.0), _det("red", 320.0, 100.0, 0.61)])
    misses: list[str] = []
    n = bench.score_frames(labels, 15.0, _SameCoordinates(), {0: frame}, misses)
    assert n["ids found"] == 1 and n["ids missed"] == 1 and n["ids phantoms"] == 1
    assert n["detections found"] == 1 and n["detections missed"] == 1
    assert misses == ["frame 0: the red at (300, 100) px has no id; detections near: "
                      "red 0.61 at 20 px"]


def test_the_random_sample_is_the_seeded_draw_over_all_the_footage():
    # the second hand check's frames are what its file says they are: the seeded draw, uniform
    # over every frame of the clips in name order (not frames picked by looking at them)
    import json

    import cv2
    import pytest

    clips_dir = ROOT.parent / "shared" / "realdata" / "club-overhead"
    if not clips_dir.is_dir():
        pytest.skip("no real footage")
    labels = json.loads((ROOT / "benchmarks" / "realdata_randomlabels.json").read_text())
    counts = []
    for clip in sorted(clips_dir.glob("*.mp4")):
        cap = cv2.VideoCapture(str(clip))
        n = 0
        while cap.grab():
            n += 1
        cap.release()
        counts.append((clip.stem, n))
    total = sum(n for _, n in counts)
    assert str(total) in labels["about"]
    drawn = set()
    for k in np.random.default_rng(20261202).choice(total, size=30, replace=False):
        for name, n in counts:
            if k < n:
                drawn.add((name, int(k)))
                break
            k -= n
    listed = {(clip, int(f)) for clip, frames in labels["frames"].items() for f in frames}
    assert listed == drawn


def _everyframe():
    import json

    return json.loads((ROOT / "benchmarks" / "realdata_everyframe.json").read_text())


def test_the_every_frame_check_judges_each_ball_in_each_frame_of_its_clip_once():
    bench, doc = _bench(), _everyframe()
    totals = bench.everyframe_totals(doc)
    assert set(totals) == set(doc["frames"])
    for clip, counts in totals.items():
        assert sum(counts.values()) == doc["frames"][clip] * len(doc["clips"][clip])
        assert set(counts) <= set(bench.VERDICTS)
        for ball in doc["clips"][clip].values():  # a place for each found frame
            assert sorted(map(int, ball["found_px"])) == [
                f for run in ball["runs"] if run["verdict"] == "found"
                for f in range(run["from"], run["to"] + 1)]


def test_every_frame_runs_with_a_gap_or_an_overlap_or_a_short_end_are_refused():
    import copy

    import pytest

    bench = _bench()
    doc = {"frames": {"c": 10}, "clips": {"c": {"white": {"runs": [
        {"from": 0, "to": 4, "verdict": "found"}, {"from": 5, "to": 9, "verdict": "missed"}]}}}}
    assert bench.everyframe_totals(doc)["c"] == {"found": 5, "missed": 5}
    for run, change in ((1, {"from": 6}), (1, {"from": 4}), (1, {"to": 8}),
                        (0, {"verdict": "seen"})):
        bad = copy.deepcopy(doc)
        bad["clips"]["c"]["white"]["runs"][run].update(change)
        with pytest.raises(ValueError, match="c white"):
            bench.everyframe_totals(bad)


def test_the_every_frame_check_has_each_clips_frame_count():
    import cv2
    import pytest

    bench, doc = _bench(), _everyframe()
    if not bench.CLIPS.is_dir():
        pytest.skip("the real footage (../shared/realdata) is not here")
    for clip, n in doc["frames"].items():
        cap = cv2.VideoCapture(str(bench.CLIPS / f"{clip}.mp4"))
        count = 0
        while cap.grab():
            count += 1
        cap.release()
        assert count == n, clip


def test_a_run_is_re_scored_against_the_places_judged_by_eye():
    """Found again: an id within 5 px of a place judged on the ball; lost: no id at all;
    still missed: only ids where ids were judged not on it; looked at again: the rest."""
    bench = _bench()
    ball = {"runs": [{"from": 0, "to": 2, "verdict": "found"},
                     {"from": 3, "to": 5, "verdict": "missed"},
                     {"from": 6, "to": 6, "verdict": "gone"}],
            "found_px": {"0": [100.0, 100.0], "1": [110.0, 100.0], "2": [120.0, 100.0]},
            "wrong_ids_px": {"4": [[300.0, 300.0]], "5": [[300.0, 300.0]]}}
    ids = {0: [(103.0, 104.0)],          # 5 px off: found again
           1: [(120.0, 100.0)],          # moved 10 px: look again
           # 2: no id: lost
           # 3: no id, missed before: still missed
           4: [(301.0, 300.0)],          # the same wrong id: still missed
           5: [(300.0, 300.0), (200.0, 200.0)],  # an id somewhere new: look again
           6: [(50.0, 50.0)]}            # gone: not counted
    counts, look, lost = bench.everyframe_rescore(ball, ids)
    assert counts == {"found": 1, "lost": 1, "missed": 2}
    assert look == [1, 5] and lost == [2]
    # places judged on the ball in other runs: frame 1's moved id is on it, and frame 5's new
    # one is the ball the code of record missed
    ball["other_found_px"] = {"1": [[121.0, 101.0]], "5": [[200.0, 202.0]]}
    # and an id judged not on the ball in a frame found before: lost
    ball["wrong_ids_px"]["2"] = [[400.0, 400.0]]
    ids[2] = [(401.0, 400.0)]
    counts, look, lost = bench.everyframe_rescore(ball, ids)
    assert counts == {"found": 2, "lost": 1, "missed": 2, "gained": 1}
    assert look == [] and lost == [2]
    assert bench._ranges([1, 2, 3, 7, 9, 10]) == "1-3, 7, 9-10"
