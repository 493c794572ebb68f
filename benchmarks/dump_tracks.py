"""Dump the tracker's per-frame output (ball positions and raw detections) of labelled clips, to
check that a speed change leaves the answers exactly as they were.

    python benchmarks/dump_tracks.py OUT.txt [CLIPS_DIR_OR_MP4 ...]
    diff OLD.txt NEW.txt

Each line is one frame of one clip: its balls and every detection with all fields (repr: exact
floats). The true calibration and game state come from each clip's labels, as in
``bench_tracking.py``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from calibration import Calibration  # noqa: E402
from rules.table import TableSpec  # noqa: E402
from vision.tracking import track_video  # noqa: E402


def dump_clip(video: Path, out: list[str]) -> None:
    labels = json.loads(video.with_suffix(".labels.json").read_text())
    cal = Calibration.from_dict(labels["calibration"])
    table = TableSpec.from_value(labels["table"])
    shooter = labels.get("start", {}).get("shooter")
    cue_ball = {1: "W1", 2: "W2"}.get(shooter)
    start = labels.get("start", {}).get("positions")
    for r in track_video(video, cal, table, cue_ball=cue_ball, start_positions=start):
        dets = [dataclasses.astuple(d) for d in r.detections]
        out.append(f"{video.stem} {r.frame} {sorted(r.balls.items())!r} {dets!r}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("inputs", nargs="*", type=Path, default=[ROOT / "sample_videos"])
    args = ap.parse_args(argv)
    videos: list[Path] = []
    for p in args.inputs:
        videos += sorted(p.glob("*.mp4")) if p.is_dir() else [p]
    videos = [v for v in videos if v.with_suffix(".labels.json").is_file()]
    lines: list[str] = []
    for v in videos:
        dump_clip(v, lines)
        print(v.stem, flush=True)
    args.out.write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
