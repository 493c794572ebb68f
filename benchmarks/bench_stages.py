"""Where the tracking's CPU goes, stage by stage, on one video (the demo match by default).

    python benchmarks/bench_stages.py [VIDEO] [--repeat N]

The whole ``track_video`` runs as in the referee (the reader thread and all); each stage's
method is wrapped to add up the CPU of the thread that runs it (``time.thread_time``), so a
stage is counted whichever thread does it. Per frame, median of the runs:

- work image and cloth work (``BallDetector.prepare``: the shrink, and every 30th frame the
  cloth model's update work made ahead);
- detection (``BallDetector.detect``), and within it the foreground map, the candidates, the
  full-resolution centres with colours, and the cloth model's update (a search of all the
  candidates counts in both candidate lines when the search where the picture changed hands
  over to it, and learning the cloth's own search counts there too);
- the tracker (``Tracker._step``);
- the rest of the process's CPU: decoding (and the glue between stages).

Why: on this shared machine the wall time of one run swings by a third from minute to minute
(`bench_tracking.py --repeat` interleaves decoding and tracking to cancel that), so a change
that saves a few per cent is told by the CPU of the stage it changes, in runs of the two codes
in turn (run this in two checkouts, alternately). Needs the video's ``.labels.json`` (its
calibration).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench_tracking import clip_inputs  # noqa: E402

from vision.detection import BallDetector  # noqa: E402
from vision.tracking import Tracker, track_video  # noqa: E402

# (class, method, what it is, the stage it is part of or None)
STAGES: list[tuple[type, str, str, str | None]] = [
    (BallDetector, "prepare", "work image and cloth work", None),
    (BallDetector, "detect", "detection", None),
    (BallDetector, "_foreground_now", "foreground map", "detection"),
    (BallDetector, "_blobs", "candidates (all)", "detection"),
    (BallDetector, "_blobs_where_changed", "candidates (where changed)", "detection"),
    (BallDetector, "_refine", "centres and colours", "detection"),
    (BallDetector, "_update_cloth", "cloth model updates", "detection"),
    (Tracker, "_step", "tracker", None),
]


def _timed(acc: Counter[str], lock: threading.Lock, name: str,
           method: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        t0 = time.thread_time()
        try:
            return method(*args, **kwargs)
        finally:
            dt = time.thread_time() - t0
            with lock:
                acc[name] += dt
    return wrapper


def run(video: Path) -> tuple[int, dict[str, float]]:
    """One tracking run: frames, and CPU seconds per stage ("process": all of it)."""
    cal, table, cue_ball, start, _ = clip_inputs(video)
    acc: Counter[str] = Counter()
    lock = threading.Lock()
    originals = [(cls, name, getattr(cls, name)) for cls, name, _, _ in STAGES]
    for cls, name, method in originals:
        setattr(cls, name, _timed(acc, lock, name, method))
    try:
        c0 = time.process_time()
        n = sum(1 for _ in track_video(video, cal, table, cue_ball=cue_ball,
                                       start_positions=start))
        process = time.process_time() - c0
    finally:
        for cls, name, method in originals:
            setattr(cls, name, method)
    return n, {**acc, "process": process}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("video", nargs="?", default=str(ROOT / "sample_videos/demo_match.mp4"))
    ap.add_argument("--repeat", type=int, default=3, help="runs (medians are shown)")
    args = ap.parse_args(argv)
    video = Path(args.video)
    if not video.is_file() or not video.with_suffix(".labels.json").is_file():
        print(f"error: expected a video with its .labels.json beside it, got {str(video)!r}",
              file=sys.stderr)
        return 2
    runs = []
    n = 0
    for k in range(max(1, args.repeat)):
        n, cpu = run(video)
        runs.append(cpu)
        print(f"run {k + 1}: {cpu['process'] / n * 1e3:.3f} ms of CPU a frame", flush=True)

    def per_frame(key: str) -> float:
        return statistics.median(r.get(key, 0.0) for r in runs) / n * 1e3

    print(f"{video.name}: {n} frames, CPU a frame (median of {len(runs)} runs)")
    for _, name, what, part_of in STAGES:
        print(f"  {'  ' if part_of else ''}{what:32s} {per_frame(name):7.3f} ms")
    staged = sum(per_frame(name) for _, name, _, part_of in STAGES if part_of is None)
    print(f"  {'decoding and glue (the rest)':32s} {per_frame('process') - staged:7.3f} ms")
    print(f"  {'all':32s} {per_frame('process'):7.3f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
