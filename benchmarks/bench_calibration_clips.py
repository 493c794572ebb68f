"""Calibration on the labelled clips: the found calibration against the renderer's true one.

Mean and max table-point error (mm) over a 50 mm grid of the whole playing field: a table point
is sent to pixels by the true calibration and back to the table by the found one.

    python benchmarks/bench_calibration_clips.py [CLIPS_DIR]
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np

from calibration import Calibration, CalibrationError, detect_table_in_video
from rules import TableSpec


def table_grid(table: TableSpec, step_mm: float = 50.0) -> np.ndarray:
    xs = np.arange(0.0, table.length_mm + 1e-9, step_mm)
    ys = np.arange(0.0, table.width_mm + 1e-9, step_mm)
    return np.array([(x, y) for x in xs for y in ys])


def clip_error(labels_path: Path) -> tuple[float, float, float, float]:
    """(mean mm, max mm, rms residual mm, seconds) for one labelled clip."""
    doc = json.loads(labels_path.read_text())
    table = TableSpec.from_value(doc["table"])
    truth = Calibration.from_dict(doc["calibration"])
    start = time.perf_counter()
    found = detect_table_in_video(labels_path.with_name(doc["video"]), table).calibration
    seconds = time.perf_counter() - start
    grid = table_grid(table)
    back = found.image_to_table(truth.table_to_image(grid))
    err = np.hypot(*(back - grid).T)
    return float(err.mean()), float(err.max()), float(found.rms_residual_mm), seconds


def main(folder: Path) -> int:
    rows = []
    for path in sorted(folder.glob("*.labels.json")):
        try:
            mean, worst, rms, seconds = clip_error(path)
        except CalibrationError as err:
            print(f"{path.name:40s} FAILED {err}")
            rows.append(float("inf"))
            continue
        rows.append(mean)
        print(f"{path.name:40s} mean {mean:5.2f} mm  max {worst:5.2f} mm  rms {rms:4.2f} mm  "
              f"{seconds:4.1f} s")
    finite = [r for r in rows if np.isfinite(r)]
    print(f"clips {len(rows)}, found {len(finite)}, mean of means {np.mean(finite):.2f} mm, "
          f"worst mean {max(finite):.2f} mm")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("sample_videos")))
