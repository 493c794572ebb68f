"""Shot facts from tracks against the labels: per event type precision and recall, timing error,
pocket ids, and the share of shots whose verdict equals the label.

The input is each clip's true tracks (`name.tracks.csv`) with the frames where a ball is hidden
left out, so this measures the event inference alone; with the tracker's output in place of the
true tracks it measures the whole pipeline.

    python benchmarks/bench_shotfacts.py [CLIPS_DIR ...]
    python benchmarks/bench_shotfacts.py --fresh SEED   # every scenario played anew (no video:
                                                        # true positions, all visible)
    python benchmarks/bench_shotfacts.py --tracker [CLIPS_DIR]  # the whole pipeline: the
        # tracker's output on each video (true calibration), reds named as in the labels
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any

from referee.evaluate import Counts, judge_found_shots, read_tracks, score_shots
from referee.labels import Labels, labels_from_doc, load_labels
from rules import EventType
from vision.shotfacts import shots_from_tracks, tracks_from_rows


def fresh_labels(seed: int) -> list[tuple[str, Labels, list[dict[str, Any]]]]:
    """Every scenario played with a new seed: its labels and true tracks (no rendering)."""
    from synth.clip import labels as make_labels
    from synth.clip import play
    from synth.scenarios import SCENARIO_BUILDERS, scenario
    from synth.video import true_positions

    out = []
    for k, name in enumerate(SCENARIO_BUILDERS):
        clip = play(scenario(name), seed * 1000 + k)
        doc = make_labels(clip, f"{name}.mp4", (1280, 720), None)
        rows = [(f, b, x, y, True) for f in range(clip.frame_count)
                for b, (x, y) in true_positions(clip, f).items()]
        out.append((name, labels_from_doc(doc), rows))
    return out


def evaluate(cases: list[tuple[str, Labels, list[Any]]]) -> dict[str, Any]:
    totals = {t: Counts() for t in EventType}
    shots = matched = equal = pockets_right = pockets = 0
    for name, labels, rows in cases:
        found = shots_from_tracks(labels.table, tracks_from_rows(rows, labels.fps), labels.fps)
        scores = score_shots(labels.doc["shots"], judge_found_shots(labels, found))
        for t, c in scores.events.items():
            totals[t].add(c)
        shots += scores.shots
        matched += scores.shots_matched
        equal += scores.verdicts_equal
        pockets_right += scores.pockets_right
        pockets += scores.pockets_compared
        misses = {t.value: (c.fn, c.fp) for t, c in scores.events.items() if c.fn or c.fp}
        print(f"{name:26s} shots {scores.shots_matched}/{scores.shots} verdicts "
              f"{scores.verdicts_equal}/{scores.shots} (missed, false) {misses} "
              f"{scores.verdict_diffs if scores.verdict_diffs else ''}")
    print()
    for t, c in totals.items():
        d = c.to_dict()
        print(f"{t.value:10s} precision {d['precision']:.3f} recall {d['recall']:.3f} "
              f"(tp {c.tp}, fp {c.fp}, fn {c.fn}) timing {d['timing_mean_abs_s']} s")
    print(f"pocket ids right {pockets_right}/{pockets}; shots found {matched}/{shots}; "
          f"verdicts equal to the label {equal}/{shots} ({equal / max(shots, 1):.1%})")
    return {"events": totals, "verdicts_equal": equal, "shots": shots,
            "pockets": (pockets_right, pockets)}


def tracker_rows(labels: Labels) -> list[Any]:
    """The tracker's rows for a labelled clip (true calibration, the shooter's white as hint);
    the two reds, which no camera can tell apart, named as the labels name them."""
    from calibration import Calibration
    from rules import cue_ball_of
    from vision.track import track_video

    calibration = Calibration.from_dict(labels.doc["calibration"])
    rows = [(r.frame, b, x, y, v) for r in track_video(
        labels.video_path, calibration, labels.table,
        cue_ball=cue_ball_of(labels.start.shooter).value) for b, (x, y, v) in r.balls.items()]
    start = labels.doc["start"]["positions"]
    first = {b: (x, y) for f, b, x, y, _ in rows if f == rows[0][0]}
    if "R1" in first and "R1" in start and "R2" in start:
        straight = math.dist(first["R1"], start["R1"])
        crossed = math.dist(first["R1"], start["R2"])
        if crossed < straight:
            swap = {"R1": "R2", "R2": "R1"}
            rows = [(f, swap.get(b, b), x, y, v) for f, b, x, y, v in rows]
    return rows


def main(argv: list[str]) -> int:
    if argv[:1] == ["--fresh"]:
        evaluate(fresh_labels(int(argv[1])))
        return 0
    if argv[:1] == ["--tracker"]:
        folder = Path(argv[1]) if len(argv) > 1 else Path("sample_videos")
        cases = []
        for path in sorted(folder.glob("*.labels.json")):
            labels = load_labels(path)
            cases.append((path.name.removesuffix(".labels.json"), labels, tracker_rows(labels)))
        evaluate(cases)
        return 0
    cases = []
    for folder in [Path(p) for p in argv] or [Path("sample_videos")]:
        for path in sorted(folder.glob("*.labels.json")):
            labels = load_labels(path)
            rows = [(f, b, x, y, v)
                    for (f, b), (x, y, v) in read_tracks(labels.tracks_path).items()]
            cases.append((path.name.removesuffix(".labels.json"), labels, rows))
    evaluate(cases)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
