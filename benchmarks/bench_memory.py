"""Memory of detection and tracking against the video's length (issue 5: it must not grow).

Makes a video ``--times`` times as long as the given one by writing its compressed packets that
many times in a row (PyAV, no re-encoding: the same pictures, which jump back to the first one at
each seam, as if the balls were put back), tracks it with ``vision.tracking.tracker.track_video``
with each row dropped as it comes (as ``kaisa track`` writes it out), and samples, every
``--every`` frames and at the end of each pass: the Python heap that ``tracemalloc`` traces
(numpy's and OpenCV's arrays included) and the process's resident memory. Prints the samples, each
pass's largest, and the growth from the first pass's largest to the last's, per thousand frames.
Bounded memory: every pass the same, give or take a few frames' arrays.

    python benchmarks/bench_memory.py [VIDEO] [--times K] [--every N] [--no-trace] [--referee]

``--referee``: instead of the tracker alone, the referee's one reading of a video
(``referee.pipeline.game_from_video``: tracking, the shot stream, the rows kept on disk, each
shot's paths and still), sampled as each shot is given out (the shots are not judged: the
repeated video puts the balls back at each seam, which no match does).

VIDEO defaults to the demo match (its labels give the calibration); another video needs its
``.labels.json`` beside it. ``--no-trace``: the resident memory only (tracemalloc slows Python
down by about half).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from calibration import Calibration  # noqa: E402
from rules import ShotFacts  # noqa: E402
from rules.table import TableSpec  # noqa: E402
from video import repeat_video  # noqa: E402
from vision.tracking import track_video  # noqa: E402

MIB = 1024 * 1024


def resident_mib() -> float:
    """The process's resident memory now (Linux: /proc/self/statm), 0 where unknown."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, ValueError, IndexError):
        return 0.0
    return pages * os.sysconf("SC_PAGE_SIZE") / MIB


def referee_reading(video: Path, cal: Calibration, sample: Callable[[int], None]) -> int:
    """The referee's reading of ``video`` from the demo's start state (no calls, shots not
    judged), sampled as each shot is given out; returns the frames read."""
    from referee.pipeline import game_from_video
    from rules import GameState, RuleOptions

    options = RuleOptions()
    start = GameState.from_dict(json.loads(
        (ROOT / "referee" / "data" / "demo_match.start.json").read_text()), options)
    found = game_from_video(video, options, start, replace(cal, table=options.table), [])
    try:
        for shot in found.game.shots:
            assert isinstance(shot, ShotFacts)
            sample(int(shot.extra["found_frame"]) + 1)
        return found.rows.last_frame + 1
    finally:
        found.rows.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("video", nargs="?", type=Path,
                        default=ROOT / "sample_videos" / "demo_match.mp4")
    parser.add_argument("--times", type=int, default=3, help="passes over the video (>= 2)")
    parser.add_argument("--every", type=int, default=500, help="sample every N frames")
    parser.add_argument("--no-trace", action="store_true", help="resident memory only")
    parser.add_argument("--referee", action="store_true",
                        help="the referee's reading (tracking, shot stream, rows, pictures)")
    args = parser.parse_args(argv)
    labels_path = args.video.with_suffix(".labels.json")
    if not args.video.is_file() or not labels_path.is_file():
        print(f"error: expected a video with its .labels.json beside it, got {args.video}",
              file=sys.stderr)
        return 2
    if args.times < 2:
        print("error: expected --times of 2 or more (growth is measured between passes)",
              file=sys.stderr)
        return 2
    labels = json.loads(labels_path.read_text())
    cal = Calibration.from_dict(labels["calibration"])
    table = TableSpec.from_value(labels["table"])
    with tempfile.TemporaryDirectory() as tmp:
        long_video = Path(tmp) / f"{args.video.stem}_x{args.times}.mp4"
        n = repeat_video(args.video, long_video, args.times)
        per_pass = n // args.times
        print(f"{args.video.name} x{args.times}: {n} frames ({per_pass} a pass)", flush=True)
        if not args.no_trace:
            tracemalloc.start()
        samples: list[tuple[int, float, float]] = []  # (frames done, traced MiB, resident MiB)

        def sample(done: int) -> None:
            traced = tracemalloc.get_traced_memory()[0] / MIB if not args.no_trace else 0.0
            samples.append((done, traced, resident_mib()))
            print(f"  frame {done:6d}: traced {traced:7.1f} MiB, resident "
                  f"{samples[-1][2]:7.1f} MiB", flush=True)

        t0 = time.perf_counter()
        done = 0
        if args.referee:
            done = referee_reading(long_video, cal, sample)
            sample(done)
        else:
            for _ in track_video(long_video, cal, table):
                done += 1
                if done % args.every == 0 or done % per_pass == 0:
                    sample(done)
        seconds = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1] / MIB if not args.no_trace else 0.0
    if done != n:
        print(f"error: tracked {done} frames of {n}", file=sys.stderr)
        return 1
    # each pass's largest sample (at its end the read-ahead queue is full or, after the last
    # pass, empty: the largest of a pass is the fair thing to compare)
    passes = [[s for s in samples if k * per_pass < s[0] <= (k + 1) * per_pass]
              for k in range(args.times)]
    tops = [(max(s[1] for s in p), max(s[2] for s in p)) for p in passes]
    for k, (traced, resident) in enumerate(tops, 1):
        print(f"pass {k}: largest traced {traced:.1f} MiB, resident {resident:.1f} MiB")
    per_k = 1000.0 / ((args.times - 1) * per_pass)
    (t1, r1), (tk, rk) = tops[0], tops[-1]
    print(f"{done} frames in {seconds:.0f} s; pass 1 to pass {args.times}: traced "
          f"{(tk - t1) * per_k:+.3f} MiB a thousand frames, resident {(rk - r1) * per_k:+.3f} "
          f"MiB a thousand frames; traced peak {peak:.1f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
