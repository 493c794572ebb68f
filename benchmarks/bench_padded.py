"""The whole pipeline on labelled clips as a slower camera padded to 30 frames a second gives
them: each picture shown twice (15 fps, as 5 of the 14 club clips are) or more, re-encoded
with the clips' own encoder; labels unchanged. The tracker is shown the video, told the start
state and shooter as `kaisa eval --source video` tells it (a measurement, not a test).

    python benchmarks/bench_padded.py [CLIPS_DIR] [--shown N] [--keep DIR]

Needs the `synth` extra (PyAV's H.264 encoder).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from referee.evaluate import print_evaluation, tracker_rows  # noqa: E402
from referee.labels import load_labels  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("clips", nargs="?", default=str(ROOT / "sample_videos"),
                    help="a folder of labelled clips (default: sample_videos)")
    ap.add_argument("--shown", type=int, default=2,
                    help="frames each picture is shown for (2: 15 fps padded to 30)")
    ap.add_argument("--keep", help="write the padded clips here (default: a temporary folder)")
    args = ap.parse_args()
    try:
        from synth.video import padded_copy
    except ImportError:
        print("error: expected PyAV (av), a dependency: pip install -e .", file=sys.stderr)
        return 2
    src = Path(args.clips)
    names = sorted(p.name.removesuffix(".labels.json") for p in src.glob("*.labels.json"))
    if not names:
        print(f"error: expected labelled clips (name.labels.json) in {src}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(args.keep) if args.keep else Path(tmp)
        cases = []
        for k, name in enumerate(names, 1):
            t0 = time.perf_counter()
            padded_copy(src, out, name, shown=args.shown)
            labels = load_labels(out / f"{name}.labels.json")
            cases.append((name, labels, tracker_rows(labels)))
            print(f"[{k}/{len(names)}] {name} ({time.perf_counter() - t0:.1f} s)",
                  file=sys.stderr)
        print_evaluation(cases)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
