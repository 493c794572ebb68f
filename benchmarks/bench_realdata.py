"""The tracker and the shot facts on the real club footage (a measurement, not a test).

    python benchmarks/bench_realdata.py [--clips NAME ...] [--frames DIR] [--every N]
                                        [--at CLIP:F,F,...] [--ball-mm MM]

Reads ../shared/realdata/club-overhead (beside the project; skipped with a message when it is
absent). For each clip: calibrate as ``kaisa calibrate`` does (the median of 9 frames; the
default table spec, russian-12ft, stands in for the unknown pool table, as in
tests/calibration/test_calibration_realdata.py), track every frame with
``vision.track.track_video`` and find the shots with ``vision.shotfacts.shots_from_tracks`` (as
referee/pipeline.py chains them, with no start state and no cue ball named). Prints per clip: the
frames, the balls of each colour the tracker reports visible per frame (median, min, max) and the
raw detections per frame, the share of frames in which each identity is visible, the shots found
and the pots (ball, pocket, time, frame).

There are no labels for this footage: these numbers say what the tracker *reports*, not whether
it is right. ``--frames DIR`` writes overlay pictures for checking by eye (every ``--every``
frames, and the frames named by ``--at``): each tracked id drawn at
``Calibration.table_to_image`` of its position (filled label when visible, grey in brackets when
hidden), each raw detection as a thin circle with its colour letter and score, the pockets'
names, and a line of the frame's tracks. benchmarks/realdata_handcheck.md is the hand check
made with these pictures.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]
REALDATA = ROOT.parent / "shared" / "realdata"
CLIPS = REALDATA / "club-overhead"

COLOUR_OF = {"W1": "white", "W2": "white", "R1": "red", "R2": "red", "Y": "yellow"}
DRAW_BGR = {"white": (255, 255, 255), "red": (0, 0, 255), "yellow": (0, 255, 255),
            "other": (255, 0, 255)}


def _parse_at(values: list[str]) -> dict[str, set[int]]:
    at: dict[str, set[int]] = {}
    for v in values:
        clip, _, frames = v.partition(":")
        at.setdefault(clip, set()).update(int(f) for f in frames.split(",") if f)
    return at


def _overlay(frame: Any, calibration: Any, result: Any, clip: str) -> Any:
    import cv2
    import numpy as np

    img = frame.copy()
    for pocket, (px, py) in calibration.pockets_px().items():
        cv2.putText(img, pocket.value, (int(px) - 10, int(py) + 5), cv2.FONT_HERSHEY_SIMPLEX,
                    0.45, (255, 255, 0), 1, cv2.LINE_AA)
    for d in result.detections:
        colour = DRAW_BGR.get(d.colour, (255, 0, 255))
        c = (round(d.x_px), round(d.y_px))
        cv2.circle(img, c, max(2, round(d.radius_px) + 3), colour, 1, cv2.LINE_AA)
        cv2.putText(img, f"{d.colour[0]}{d.score:.1f}", (c[0] + 12, c[1] + 22),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.35, colour, 1, cv2.LINE_AA)
    names = sorted(result.balls)
    if names:
        pts = calibration.table_to_image(
            np.array([[result.balls[b][0], result.balls[b][1]] for b in names]))
        for b, (x, y) in zip(names, pts, strict=True):
            visible = result.balls[b][2]
            colour = DRAW_BGR[COLOUR_OF[b]] if visible else (128, 128, 128)
            c = (round(x), round(y))
            cv2.drawMarker(img, c, colour, cv2.MARKER_CROSS, 8, 1, cv2.LINE_AA)
            label = b if visible else f"({b})"
            cv2.putText(img, label, (c[0] + 10, c[1] - 10), cv2.FONT_HERSHEY_SIMPLEX, 0.6,
                        (0, 0, 0), 3, cv2.LINE_AA)
            cv2.putText(img, label, (c[0] + 10, c[1] - 10), cv2.FONT_HERSHEY_SIMPLEX, 0.6,
                        colour, 1, cv2.LINE_AA)
    text = " ".join(f"{b}{'' if result.balls[b][2] else '(hidden)'}"
                    f"@{result.balls[b][0]:.0f},{result.balls[b][1]:.0f}" for b in names)
    cv2.rectangle(img, (0, 0), (img.shape[1], 22), (0, 0, 0), -1)
    cv2.putText(img, f"{clip} frame {result.frame} dets {len(result.detections)} | {text}",
                (4, 16), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 255, 255), 1, cv2.LINE_AA)
    return img


def _save_overlays(path: Path, calibration: Any, by_frame: dict[int, Any], wanted: set[int],
                   out: Path) -> int:
    import cv2

    from calibration import read_frames

    out.mkdir(parents=True, exist_ok=True)
    n = 0
    for index, frame in read_frames(path):
        if index in wanted and index in by_frame:
            img = _overlay(frame, calibration, by_frame[index], path.stem)
            cv2.imwrite(str(out / f"{path.stem}_{index:04d}.png"), img)
            n += 1
        if index > max(wanted, default=-1):
            break
    return n


def _stats(values: list[int]) -> str:
    if not values:
        return "-"
    return f"{statistics.median(values):g}/{min(values)}/{max(values)}"


def table_spec(ball_mm: float | None) -> Any:
    """The default spec (russian-12ft, as the calibration tests use for this footage), or the
    same table with the ball (and the pocket mouths, in proportion) resized so that a ball is as
    big in the picture as the real balls are (a diagnostic: the footage's balls are much bigger
    relative to the table than Kaisa's on a 12 ft table)."""
    from rules import TableSpec

    table = TableSpec()
    if ball_mm is None:
        return table
    k = ball_mm / table.ball_diameter_mm
    return TableSpec(name="custom", ball_diameter_mm=ball_mm,
                     corner_mouth_mm=table.corner_mouth_mm * k,
                     middle_mouth_mm=table.middle_mouth_mm * k)


def run_clip(path: Path, frames_dir: Path | None, every: int, at: set[int],
             ball_mm: float | None = None) -> dict[str, Any]:
    from calibration import detect_table_in_video
    from vision.shotfacts import shots_from_tracks, tracks_from_rows
    from vision.track import track_video, video_fps

    table = table_spec(ball_mm)
    t0 = time.perf_counter()
    calibration = detect_table_in_video(path, table).calibration
    t1 = time.perf_counter()
    fps = video_fps(path)
    results = list(track_video(path, calibration, table))
    t2 = time.perf_counter()
    rows = [(r.frame, b, x, y, v) for r in results for b, (x, y, v) in r.balls.items()]
    shots = shots_from_tracks(table, tracks_from_rows(rows, fps), fps)
    t3 = time.perf_counter()

    n = len(results)
    per_colour: dict[str, list[int]] = {c: [] for c in ("white", "red", "yellow")}
    raw: dict[str, list[int]] = {c: [] for c in ("white", "red", "yellow", "other")}
    visible_frames: Counter[str] = Counter()
    reported_frames: Counter[str] = Counter()
    for r in results:
        counts = Counter(COLOUR_OF[b] for b, (_, _, v) in r.balls.items() if v)
        for c in per_colour:
            per_colour[c].append(counts[c])
        dets = Counter(d.colour for d in r.detections)
        for c in raw:
            raw[c].append(dets[c])
        for b, (_, _, v) in r.balls.items():
            reported_frames[b] += 1
            visible_frames[b] += int(v)

    print(f"\n{path.stem}: {n} frames at {fps:g} fps; calibration {t1 - t0:.1f} s, tracking "
          f"{t2 - t1:.1f} s, shot facts {t3 - t2:.2f} s")
    print("  tracked visible per frame (median/min/max): "
          + ", ".join(f"{c} {_stats(v)}" for c, v in per_colour.items()))
    print("  raw detections per frame (median/min/max):  "
          + ", ".join(f"{c} {_stats(v)}" for c, v in raw.items()))
    for b in sorted(reported_frames):
        print(f"  {b:3}: visible in {visible_frames[b]:4d}/{n} frames "
              f"({100 * visible_frames[b] / max(n, 1):5.1f} %), on the table (visible or "
              f"hidden) in {reported_frames[b]}")
    pots = []
    for k, shot in enumerate(shots):
        events = shot["events"]
        kinds = Counter(str(e["type"]) for e in events)
        print(f"  shot {k}: strike frame {shot['strike_frame']}, rest frame {shot['rest_frame']}, "
              f"events {dict(kinds)}")
        for e in events:
            if e["type"] in ("pocket", "off_table", "off"):
                t = float(e["t"])
                pots.append((e["ball"], e.get("pocket"), t, round(t * fps)))
                print(f"    {e['type']}: {e['ball']} in {e.get('pocket')} at {t:.2f} s "
                      f"(frame {round(t * fps)})")
    if not shots:
        print("  no shots found")

    if frames_dir is not None:
        wanted = set(range(0, n, every)) | at if every > 0 else set(at)
        for _, _, _, f in pots:  # the frames around each reported pot
            wanted |= {f - 6, f - 3, f, f + 3, f + 6}
        saved = _save_overlays(path, calibration, {r.frame: r for r in results},
                               {f for f in wanted if 0 <= f < n}, frames_dir)
        print(f"  {saved} overlay pictures in {frames_dir}")
    return {"frames": n, "visible": visible_frames, "shots": len(shots), "pots": pots,
            "seconds": t3 - t0}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clips", nargs="*", default=[],
                        help="clip names (default: every clip in club-overhead)")
    parser.add_argument("--frames", type=Path, help="write overlay PNGs for the hand check here")
    parser.add_argument("--every", type=int, default=15, help="overlay every N frames (0: none)")
    parser.add_argument("--at", action="append", default=[], metavar="CLIP:F,F,...",
                        help="also overlay these frames of this clip")
    parser.add_argument("--ball-mm", type=float,
                        help="diagnostic: a ball this big (mm in the russian-12ft frame; the "
                             "footage's balls measure about 95) instead of the preset's 68")
    args = parser.parse_args()
    if not CLIPS.is_dir():
        print(f"bench_realdata: {CLIPS} not found (the real footage lives beside the project in "
              "../shared/realdata); skipped")
        return 0
    paths = sorted(CLIPS.glob("*.mp4"))
    if args.clips:
        paths = [p for p in paths if p.stem in args.clips]
    at = _parse_at(args.at)
    print(f"real club footage: {len(paths)} clips from {CLIPS}; table {table_spec(args.ball_mm)}")
    summary = []
    for path in paths:
        summary.append((path.stem, run_clip(path, args.frames, args.every,
                                            at.get(path.stem, set()), args.ball_mm)))
    print("\nsummary")
    print(f"{'clip':36} {'frames':>6} {'shots':>5} {'pots':>4} {'s':>5}  visible share per id")
    total = 0.0
    for name, s in summary:
        share = " ".join(f"{b} {100 * v / max(s['frames'], 1):.0f}%"
                         for b, v in sorted(s["visible"].items()))
        print(f"{name:36} {s['frames']:6d} {s['shots']:5d} {len(s['pots']):4d} "
              f"{s['seconds']:5.1f}  {share}")
        total += s["seconds"]
    print(f"total {sum(s['frames'] for _, s in summary)} frames, "
          f"{sum(len(s['pots']) for _, s in summary)} pots reported, {total:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
