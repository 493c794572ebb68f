"""The camera watch on labelled clips: bumps found, false bumps, and how far the calibration in
force is from the truth after each (a benchmark, not a test).

    python benchmarks/bench_bumps.py DIR [DIR ...]      (clips of ``kaisa synth --hard``)

Each clip is read from its first frame with its true calibration, and the referee's camera watch
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
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench_calibration_clips import table_grid  # noqa: E402

from calibration import Calibration  # noqa: E402
from referee.pipeline import camera_watch  # noqa: E402
from rules import TableSpec  # noqa: E402


def error_mm(found: Calibration, truth: Calibration, grid: np.ndarray) -> float:
    back = found.image_to_table(truth.table_to_image(grid))
    return float(np.mean(np.hypot(*(back - grid).T)))


def clip(labels_path: Path, within_s: float) -> dict[str, object]:
    doc = json.loads(labels_path.read_text())
    table = TableSpec.from_value(doc["table"])
    before = Calibration.from_dict(doc["calibration"])
    bump = (doc.get("conditions") or {}).get("bump")
    after = Calibration.from_dict(bump["calibration"]) if bump else before
    bump_frame = bump["frame"] if bump else None
    fps = float(doc["fps"])
    grid = table_grid(table)
    watch = camera_watch(before)
    cap = cv2.VideoCapture(str(labels_path.with_name(doc["video"])))
    size = before.image_size
    half = (round(size[0] * 0.5), round(size[1] * 0.5))
    found_at: float | None = None
    false: list[str] = []
    errors: list[float] = []
    k = 0
    while True:
        ok, frame = cap.read()
        if not ok:
            break
        t = k / fps
        if watch.due(t):
            small = cv2.resize(frame, half, interpolation=cv2.INTER_AREA)
            event = watch.check(k, t, small, scale=0.5)
            if event is not None and event.status == "recalibrated":
                truth = after if bump_frame is not None and k >= bump_frame else before
                err = error_mm(event.calibration, truth, grid)
                late = None if bump_frame is None else t - bump_frame / fps
                if late is not None and 0 <= late <= within_s and found_at is None:
                    found_at = late
                else:
                    false.append(f"{t:.1f} s ({event.drift_mm:.1f} mm)")
                errors.append(err)
        k += 1
    truth = after if bump_frame is not None and k > bump_frame else before
    return {"bumped": bump_frame is not None, "found_after_s": found_at, "false": false,
            "errors_after": errors, "end_error_mm": error_mm(watch.calibration, truth, grid)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dirs", nargs="+", type=Path)
    parser.add_argument("--within", type=float, default=1.0,
                        help="seconds after the true bump a followed motion counts as it")
    args = parser.parse_args(argv)
    bumped = found = false = 0
    ends: list[float] = []
    for d in args.dirs:
        for path in sorted(d.glob("*.labels.json")):
            r = clip(path, args.within)
            bumped += bool(r["bumped"])
            found += r["found_after_s"] is not None
            false += len(r["false"])  # type: ignore[arg-type]
            ends.append(float(r["end_error_mm"]))  # type: ignore[arg-type]
            late = r["found_after_s"]
            print(f"{path.name.removesuffix('.labels.json'):30s} "
                  f"{'bumped' if r['bumped'] else 'steady':6s} "
                  f"found {'-' if late is None else f'{late:.2f} s after':12s} "
                  f"false {', '.join(r['false']) or '-':30s} "  # type: ignore[arg-type]
                  f"after each {', '.join(f'{e:.1f}' for e in r['errors_after']) or '-':18s} "  # type: ignore[attr-defined]
                  f"end {r['end_error_mm']:.1f} mm", flush=True)
    e = np.array(ends)
    print(f"clips {len(ends)}: bumps found {found} of {bumped}, false bumps {false}; end error "
          f"within 3 mm {int(np.sum(e <= 3.0))} of {len(e)}, mean {e.mean():.2f} mm, "
          f"worst {e.max():.1f} mm")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
