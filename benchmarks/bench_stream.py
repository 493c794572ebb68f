"""Shot facts found as the video is read against those found from the finished match's tracks.

    python benchmarks/bench_stream.py [CLIPS_DIR_OR_LABELS ...] [--source video|tracks]
                                      [--settle S] [--json F]

For each labelled clip: the tracker's rows (``--source video``, the default: the clip's true
calibration and start state, as ``kaisa eval --source video``) or the true tracks
(``--source tracks``); the shots cut from all of them at once (``shots_from_tracks``) and the
shots given out by ``ShotStream`` frame by frame; whether the two lists are equal to the bit
(and the first difference when not); how long after each shot's balls came to rest it was
given out (seconds of video; a clip's last shot is given out when the video ends); the most
sightings the stream held; and the CPU time of each way.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from referee.evaluate import tracker_rows, true_track_rows  # noqa: E402
from referee.labels import load_labels  # noqa: E402
from vision.shots import (  # noqa: E402
    ShotStream,
    ShotStreamParams,
    StreamedShot,
    shots_from_tracks,
    tracks_from_rows,
)


def labels_files(inputs: list[Path]) -> list[Path]:
    out: list[Path] = []
    for p in inputs:
        out += sorted(p.glob("*.labels.json")) if p.is_dir() else [p]
    return out


def first_difference(batch: list[dict[str, Any]], streamed: list[dict[str, Any]]) -> str:
    if len(batch) != len(streamed):
        return f"{len(batch)} shots from the whole tracks, {len(streamed)} streamed"
    for i, (a, b) in enumerate(zip(batch, streamed, strict=True)):
        for key in sorted(set(a) | set(b)):
            if a.get(key) != b.get(key):
                return f"shot {i} {key}: {a.get(key)!r} != {b.get(key)!r}"
    return ""


def compare_clip(path: Path, source: str, params: ShotStreamParams) -> dict[str, Any]:
    labels = load_labels(path)
    rows = true_track_rows(labels) if source == "tracks" else tracker_rows(labels)
    fps = labels.fps
    clock = time.process_time()
    batch = shots_from_tracks(labels.table, tracks_from_rows(rows, fps), fps)
    batch_s = time.process_time() - clock
    by_frame: dict[int, dict[str, tuple[float, float, bool]]] = {}
    for frame, ball, x, y, visible in rows:
        by_frame.setdefault(frame, {})[ball] = (x, y, visible)
    stream = ShotStream(labels.table, fps, params)
    streamed: list[StreamedShot] = []
    most_kept = 0
    clock = time.process_time()
    for frame, balls in sorted(by_frame.items()):
        streamed += stream.feed(frame, balls)
        most_kept = max(most_kept, stream.kept_samples)
    streamed += stream.finish()
    stream_s = time.process_time() - clock
    facts = [s.facts.to_dict() for s in streamed]
    return {"clip": path.name.removesuffix(".labels.json"), "shots": len(batch),
            "equal": facts == batch, "difference": first_difference(batch, facts),
            "latency_s": [round((s.found_frame - s.rest_frame) / fps, 3) for s in streamed],
            "last_at_end": bool(streamed) and streamed[-1].found_frame == max(by_frame),
            "most_sightings_kept": most_kept, "frames": len(by_frame),
            "batch_cpu_s": round(batch_s, 3), "stream_cpu_s": round(stream_s, 3)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("inputs", nargs="*", type=Path, default=[ROOT / "sample_videos"])
    ap.add_argument("--source", choices=("video", "tracks"), default="video")
    ap.add_argument("--settle", type=float, default=ShotStreamParams().settle_s,
                    help="seconds at rest before a shot is given out")
    ap.add_argument("--json", type=Path, help="write the per-clip results here")
    args = ap.parse_args(argv)
    params = ShotStreamParams(settle_s=args.settle)
    results = []
    for path in labels_files(args.inputs):
        r = compare_clip(path, args.source, params)
        results.append(r)
        print(f"{r['clip']:28s} shots {r['shots']:2d} {'equal' if r['equal'] else 'DIFFER'}"
              f"  given out {r['latency_s']} s after rest  kept <= {r['most_sightings_kept']}"
              f"  cpu {r['batch_cpu_s']:.2f} / {r['stream_cpu_s']:.2f} s"
              + (f"\n    {r['difference']}" if r["difference"] else ""), flush=True)
    # (a clip's last shot is given out when its video ends, often sooner than settle_s)
    latencies = [x for r in results for x in (r["latency_s"][:-1] if r["last_at_end"]
                                              else r["latency_s"])]
    equal = sum(r["equal"] for r in results)
    print(f"\n{equal} of {len(results)} clips equal to the bit ({args.source}); shots "
          f"{sum(r['shots'] for r in results)}; given out {min(latencies, default=0):.2f}-"
          f"{max(latencies, default=0):.2f} s after their balls came to rest (the clips' last "
          f"shots, given out as their videos end, left out); CPU whole tracks "
          f"{sum(r['batch_cpu_s'] for r in results):.2f} s, streamed "
          f"{sum(r['stream_cpu_s'] for r in results):.2f} s")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")
    return 0 if equal == len(results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
