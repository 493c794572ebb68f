"""How the whites' dots read on labelled clips: W1 and W2 read as W2's pair, W1's single dot, or
neither, on every look the tracker counts (a clean white at rest, once per detection, see
vision/tracking/observe.py), each look's white told by the labels' true tracks (the white
nearest the detection, within 30 mm).

The tracker runs as ``referee.evaluate.tracker_rows`` runs it (the start state and the shooter
from the labels); the looks are taken where the tracker counts them. What matters most is W1
read as a pair: the tracker swaps the whites when the track named W1 shows the pair clearly more
often than the other.

    python benchmarks/bench_dots.py LABELS_OR_DIR ... [-v]
"""

from __future__ import annotations

import argparse
import math
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import vision.tracking.observe as observing  # noqa: E402
from referee.evaluate import read_tracks, tracker_rows  # noqa: E402
from referee.labels import load_labels  # noqa: E402

READS = ("pair", "single", "neither")
NEAREST_MM = 30.0


Look = tuple[int, str, float, float, str]


def counting_looks(looks: list[Look]) -> None:
    """Wrap the tracker's ``observe`` (where it is imported; once) so that each look whose dots
    are counted is appended to ``looks``: (frame, track, x_mm, y_mm, what it read)."""
    original = observing.observe

    def observe(setting: Any, s: Any, det: Any, frame: int, balls: Any, *args: Any,
                **kwargs: Any) -> None:
        pair, single, looked = s.pair, s.single, s.looked
        original(setting, s, det, frame, balls, *args, **kwargs)
        if s.looked is det and looked is not det and s.ball in ("W1", "W2"):
            read = "pair" if s.pair > pair else "single" if s.single > single else "neither"
            looks.append((frame, s.ball, det.x_mm, det.y_mm, read))

    for module in list(sys.modules.values()):
        if (getattr(module, "__name__", "").startswith("vision.")
                and getattr(module, "observe", None) is original):
            module.observe = observe  # type: ignore[attr-defined]


def clip_confusion(labels_path: Path, looks: list[Look]) -> Counter[tuple[str, str]]:
    """(true white, read) counts of one clip's counted looks (``looks``: where
    :func:`counting_looks` puts them)."""
    looks.clear()
    labels = load_labels(labels_path)
    tracker_rows(labels)
    truth = read_tracks(labels.tracks_path)
    out: Counter[tuple[str, str]] = Counter()
    for frame, _, x, y, read in looks:
        near = [(math.hypot(t[0] - x, t[1] - y), w) for w in ("W1", "W2")
                if (t := truth.get((frame, w))) is not None and t[2]]
        if near and min(near)[0] < NEAREST_MM:
            out[(min(near)[1], read)] += 1
    return out


def line(name: str, c: Counter[tuple[str, str]]) -> str:
    return f"{name:32s} " + " | ".join(
        f"{w}: " + " ".join(f"{r} {c[(w, r)]:4d}" for r in READS) for w in ("W1", "W2"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="+", type=Path, help="*.labels.json files or directories")
    ap.add_argument("-v", action="store_true", help="one line per clip")
    args = ap.parse_args()
    files = [f for p in args.paths
             for f in (sorted(p.glob("*.labels.json")) if p.is_dir() else [p])]
    total: Counter[tuple[str, str]] = Counter()
    looks: list[Look] = []
    counting_looks(looks)
    for f in files:
        c = clip_confusion(f, looks)
        total.update(c)
        if args.v:
            print(line(f.name.removesuffix(".labels.json"), c), flush=True)
    print(line(f"all ({len(files)} clips)", total))


if __name__ == "__main__":
    main()
