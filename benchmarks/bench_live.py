"""The live mode's speed: the demo video played at real time through ``kaisa live`` (no pages),
as a camera would give it.

    python benchmarks/bench_live.py [--video F] [--pace X] [--json F]

Measured from the engine's own status (live/files.py) and /proc:
- latency: from the last ball stopping to the verdict being in the journal, per shot; "last
  ball stopping" as the clip's labels have it (``rest_frame``; the video's time 0 placed on
  the clock by the frames read earliest, the paced file handing each out at its time), and as
  the engine found it (its shot's ``rest_frame``, when that frame was read);
- CPU: the engine process's user + system time over the wall time it ran, as a share of the
  machine's cores (two here), calibration included.
The verdicts are also checked against the labels' (points and score per shot).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from live.files import LiveFiles, LiveStatus, read_status  # noqa: E402


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds of a process (Linux /proc), None once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks  # utime, stime


def run(video: Path, pace: float, folder: Path) -> dict[str, Any]:
    files = LiveFiles(folder)
    command = [sys.executable, "-m", "referee.cli", "live", str(video), "--realtime",
               "--pace", str(pace), "--folder", str(folder), "--no-pages"]
    began = time.time()
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "PYTHONPATH": str(ROOT)})
    pid = None
    cpu = 0.0
    last: LiveStatus | None = None
    while process.poll() is None:
        status = read_status(files)
        if status is not None and status.engine_pid:
            last = status
            pid = status.engine_pid
            used = cpu_seconds(pid)
            if used is not None:
                cpu = used
        time.sleep(0.2)
    out, err = process.communicate()
    wall = time.time() - began
    last = read_status(files) or last
    if process.returncode != 0 or last is None:
        raise SystemExit(f"kaisa live failed ({process.returncode}): {err[-2000:]}")
    return {"wall_s": wall, "cpu_s": cpu, "status": last, "lines": out.splitlines()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--video", type=Path, default=ROOT / "sample_videos" / "demo_match.mp4")
    parser.add_argument("--pace", type=float, default=1.0, help="times real time (1: real time)")
    parser.add_argument("--json", type=Path, help="write the figures there")
    args = parser.parse_args()
    labels = json.loads(args.video.with_name(args.video.stem + ".labels.json").read_text())
    fps = float(labels["fps"])
    with tempfile.TemporaryDirectory(prefix="kaisa-bench-live-") as tmp:
        result = run(args.video, args.pace, Path(tmp))
    status: LiveStatus = result["status"]
    times = [t for t in status.verdict_times if t.get("rest_seen_unix")]
    # the clock time of the video's time 0: frames are handed out no earlier than their time
    origin = min(t["rest_seen_unix"] - t["rest_frame"] / fps / args.pace for t in times)
    rows = []
    for t in times:
        index = int(str(t["shot"]).removeprefix("shot"))
        truth = labels["shots"][index]
        stopped = origin + truth["rest_frame"] / fps / args.pace
        rows.append({"shot": index + 1, "label_rest_frame": truth["rest_frame"],
                     "found_rest_frame": t["rest_frame"],
                     "latency_from_labels_rest_s": round(t["judged_unix"] - stopped, 3),
                     "latency_from_found_rest_s": round(t["judged_unix"] - t["rest_seen_unix"],
                                                        3)})
    cores = os.cpu_count() or 1
    cpu_share = result["cpu_s"] / result["wall_s"] / cores
    figures = {
        "video": str(args.video), "pace": args.pace, "shots": len(rows),
        "wall_s": round(result["wall_s"], 1), "engine_cpu_s": round(result["cpu_s"], 1),
        "cores": cores, "engine_cpu_share_of_machine": round(cpu_share, 3),
        "latency_from_labels_rest_s": {
            "median": statistics.median(r["latency_from_labels_rest_s"] for r in rows),
            "max": max(r["latency_from_labels_rest_s"] for r in rows)},
        "latency_from_found_rest_s": {
            "median": statistics.median(r["latency_from_found_rest_s"] for r in rows),
            "max": max(r["latency_from_found_rest_s"] for r in rows)},
        "final_score": list(status.score), "winner": status.winner,
        "labels_final_score": [labels["shots"][-1]["verdict"]["score"][k] for k in "12"],
        "per_shot": rows,
    }
    print(f"{figures['shots']} verdicts, final score {status.score[0]}:{status.score[1]} "
          f"(labels {figures['labels_final_score'][0]}:{figures['labels_final_score'][1]})")
    for r in rows:
        print(f"  shot {r['shot']:2d}: rest frame {r['label_rest_frame']} (labels) "
              f"{r['found_rest_frame']} (found); verdict journalled "
              f"{r['latency_from_labels_rest_s']:.2f} s after the labels' rest, "
              f"{r['latency_from_found_rest_s']:.2f} s after the found rest frame was read")
    lab, fnd = figures["latency_from_labels_rest_s"], figures["latency_from_found_rest_s"]
    print(f"latency from the last ball stopping (labels): median {lab['median']:.2f} s, "
          f"max {lab['max']:.2f} s; from the found rest frame: median {fnd['median']:.2f} s, "
          f"max {fnd['max']:.2f} s")
    print(f"engine CPU: {result['cpu_s']:.1f} s over {result['wall_s']:.1f} s = "
          f"{100 * cpu_share:.1f} % of the machine's {cores} cores (calibration included)")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
