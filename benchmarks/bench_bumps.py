"""The camera watch on labelled clips: bumps found, false bumps, and how far the calibration in
force is from the truth after each (a benchmark, not a test).

    python benchmarks/bench_bumps.py DIR [DIR ...] [--calibrate]   (``kaisa synth --hard``)

Each clip is read from its first frame with its true calibration (``--calibrate``: the one the
referee finds, as ``kaisa referee`` does; a clip whose table is refused is left out and named),
and the referee's camera watch
(``referee.pipeline.camera_watch``) looks at it as the referee's reader does (half pictures). A
clip's labels say when its camera was bumped and its calibration after (``conditions.bump``).
A followed motion within ``--within`` seconds after the true bump is the bump found; any other
is a false bump. The calibration in force is compared with the true one at the end of the clip
and after each followed motion: the mean table-point error (mm) over a 50 mm grid of the field.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench_calibration_clips import table_grid  # noqa: E402

from calibration import Calibration, CalibrationError  # noqa: E402
from referee.pipeline import camera_watch  # noqa: E402
from rules import TableSpec  # noqa: E402
from video import half_picture  # noqa: E402


def error_mm(found: Calibration, truth: Calibration, grid: np.ndarray) -> float:
    back = found.image_to_table(truth.table_to_image(grid))
    return float(np.mean(np.hypot(*(back - grid).T)))


@dataclass
class ClipWatch:
    """What the camera watch did on one clip (see the module)."""

    bumped: bool
    found_after_s: float | None = None  # the true bump followed this long after it
    false: list[str] = field(default_factory=list)  # other motions followed: "t s (mm)"
    errors_after: list[float] = field(default_factory=list)  # mm, after each motion followed
    end_error_mm: float = 0.0


def clip(labels_path: Path, within_s: float, calibrate: bool = False) -> ClipWatch:
    """``calibrate``: the watch starts from the calibration found in the video (raises
    CalibrationError when the table is refused), else from the true one."""
    doc = json.loads(labels_path.read_text())
    table = TableSpec.from_value(doc["table"])
    before = Calibration.from_dict(doc["calibration"])
    bump = (doc.get("conditions") or {}).get("bump")
    after = Calibration.from_dict(bump["calibration"]) if bump else before
    bump_frame = bump["frame"] if bump else None
    fps = float(doc["fps"])
    grid = table_grid(table)
    start = before
    if calibrate:
        from calibration import detect_table_in_video

        start = detect_table_in_video(labels_path.with_name(doc["video"]), table).calibration
    watch = camera_watch(start)
    cap = cv2.VideoCapture(str(labels_path.with_name(doc["video"])))
    out = ClipWatch(bumped=bump_frame is not None)
    k = 0
    while True:
        ok, frame = cap.read()
        if not ok:
            break
        t = k / fps
        if watch.due(t):
            # (the half picture, as the referee's reader hands it over)
            picture = np.asarray(frame, np.uint8)
            event = watch.check(k, t, half_picture(picture), scale=0.5,
                                whole=partial(np.array, picture))
            if event is not None and event.status == "refitted":
                truth = after if bump_frame is not None and k >= bump_frame else before
                out.errors_after.append(error_mm(event.calibration, truth, grid))
            elif event is not None and event.status == "recalibrated":
                truth = after if bump_frame is not None and k >= bump_frame else before
                err = error_mm(event.calibration, truth, grid)
                late = None if bump_frame is None else t - bump_frame / fps
                if late is not None and 0 <= late <= within_s and out.found_after_s is None:
                    out.found_after_s = late
                else:
                    out.false.append(f"{t:.1f} s ({event.drift_mm:.1f} mm)")
                out.errors_after.append(err)
        k += 1
    truth = after if bump_frame is not None and k > bump_frame else before
    out.end_error_mm = error_mm(watch.calibration, truth, grid)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dirs", nargs="+", type=Path)
    parser.add_argument("--within", type=float, default=1.0,
                        help="seconds after the true bump a followed motion counts as it")
    parser.add_argument("--calibrate", action="store_true",
                        help="start from the calibration the referee finds, not the true one")
    args = parser.parse_args(argv)
    bumped = found = false = 0
    ends: list[float] = []
    refused: list[str] = []
    for d in args.dirs:
        for path in sorted(d.glob("*.labels.json")):
            try:
                r = clip(path, args.within, args.calibrate)
            except CalibrationError:
                refused.append(path.name.removesuffix(".labels.json"))
                continue
            bumped += r.bumped
            found += r.found_after_s is not None
            false += len(r.false)
            ends.append(r.end_error_mm)
            late = r.found_after_s
            after_each = ", ".join(f"{e:.1f}" for e in r.errors_after) or "-"
            print(f"{path.name.removesuffix('.labels.json'):30s} "
                  f"{'bumped' if r.bumped else 'steady':6s} "
                  f"found {'-' if late is None else f'{late:.2f} s after':12s} "
                  f"false {', '.join(r.false) or '-':30s} after each {after_each:18s} "
                  f"end {r.end_error_mm:.1f} mm", flush=True)
    e = np.array(ends)
    print(f"clips {len(ends)}: bumps found {found} of {bumped}, false bumps {false}; end error "
          f"within 3 mm {int(np.sum(e <= 3.0))} of {len(e)}, mean {e.mean():.2f} mm, "
          f"worst {e.max():.1f} mm" + (f"; tables refused (left out): {', '.join(refused)}"
                                       if refused else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
