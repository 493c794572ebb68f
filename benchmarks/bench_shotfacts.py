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

import sys
from pathlib import Path
from typing import Any

from referee.evaluate import print_evaluation, read_tracks, tracker_rows
from referee.labels import Labels, labels_from_doc, load_labels


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


def main(argv: list[str]) -> int:
    if argv[:1] == ["--fresh"]:
        print_evaluation(fresh_labels(int(argv[1])))
        return 0
    if argv[:1] == ["--tracker"]:
        folder = Path(argv[1]) if len(argv) > 1 else Path("sample_videos")
        cases = []
        for path in sorted(folder.glob("*.labels.json")):
            labels = load_labels(path)
            cases.append((path.name.removesuffix(".labels.json"), labels, tracker_rows(labels)))
        print_evaluation(cases)
        return 0
    cases = []
    for folder in [Path(p) for p in argv] or [Path("sample_videos")]:
        for path in sorted(folder.glob("*.labels.json")):
            labels = load_labels(path)
            rows = [(f, b, x, y, v)
                    for (f, b), (x, y, v) in read_tracks(labels.tracks_path).items()]
            cases.append((path.name.removesuffix(".labels.json"), labels, rows))
    print_evaluation(cases)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
