"""Calibration on the labelled clips: the found calibration against the renderer's true one.

Mean and max table-point error (mm) over a 50 mm grid of the whole playing field: a table point
is sent to pixels by the true calibration and back to the table by the found one.

    python benchmarks/bench_calibration_clips.py [CLIPS_DIR]
    python benchmarks/bench_calibration_clips.py --fresh 101 102 103 [--scenario pot_HR]
                                                 [--fresh-dir DIR]

``--fresh SEED...`` makes one clip per seed (other renderer looks and cameras than the committed
clips; ``kaisa synth --seed SEED --scenario NAME``) in a temporary folder (or ``--fresh-dir``,
where clips already made are reused) and counts the outcomes: within 3 mm, refused (a
CalibrationError), doubtful (accepted but marked so by the plausibility checks), and silently
wrong (accepted, not marked, mean error over 3 mm) -- the worst outcome.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from calibration import Calibration, CalibrationError, detect_table_in_video  # noqa: E402
from rules import TableSpec  # noqa: E402

QUALITY_MM = 3.0


def table_grid(table: TableSpec, step_mm: float = 50.0) -> np.ndarray:
    xs = np.arange(0.0, table.length_mm + 1e-9, step_mm)
    ys = np.arange(0.0, table.width_mm + 1e-9, step_mm)
    return np.array([(x, y) for x in xs for y in ys])


def clip_result(labels_path: Path) -> tuple[float, float, Calibration, float]:
    """(mean mm, max mm, found calibration, seconds) for one labelled clip."""
    doc = json.loads(labels_path.read_text())
    table = TableSpec.from_value(doc["table"])
    truth = Calibration.from_dict(doc["calibration"])
    start = time.perf_counter()
    found = detect_table_in_video(labels_path.with_name(doc["video"]), table).calibration
    seconds = time.perf_counter() - start
    grid = table_grid(table)
    back = found.image_to_table(truth.table_to_image(grid))
    err = np.hypot(*(back - grid).T)
    return float(err.mean()), float(err.max()), found, seconds


def clip_error(labels_path: Path) -> tuple[float, float, float, float]:
    """(mean mm, max mm, rms residual mm, seconds) for one labelled clip."""
    mean, worst, found, seconds = clip_result(labels_path)
    return mean, worst, float(found.rms_residual_mm), seconds


def evaluate(paths: list[Path]) -> dict[str, int]:
    """Print one line per clip and the summary; the outcome counts."""
    rows = []
    counts = {"clips": len(paths), "within": 0, "refused": 0, "doubtful": 0,
              "doubtful_wrong": 0, "silently_wrong": 0}
    for path in paths:
        try:
            mean, worst, found, seconds = clip_result(path)
        except CalibrationError as err:
            print(f"{path.name:40s} REFUSED {err}")
            counts["refused"] += 1
            continue
        rows.append(mean)
        checks = found.checks or {}
        flag = "DOUBTFUL" if found.doubtful else ""
        counts["within"] += mean <= QUALITY_MM
        counts["doubtful"] += found.doubtful
        counts["doubtful_wrong"] += found.doubtful and mean > QUALITY_MM
        counts["silently_wrong"] += (not found.doubtful) and mean > QUALITY_MM
        print(f"{path.name:40s} mean {mean:5.2f} mm  max {worst:5.2f} mm  "
              f"rms {found.rms_residual_mm:4.2f} mm  pinhole "
              f"{100 * checks.get('pinhole_violation', 0.0):4.2f} %  shape "
              f"{checks.get('shape_error_mm', 0.0):4.1f} mm (warn > "
              f"{checks.get('shape_soft_mm', 0.0):4.1f})  {checks.get('reading', '-'):9s} width "
              f"{checks.get('cushion_width_from', '-')}  {seconds:4.1f} s {flag}")
    if rows:
        print(f"clips {len(paths)}, found {len(rows)}, mean of means {np.mean(rows):.2f} mm, "
              f"worst mean {max(rows):.2f} mm")
    print(f"within {QUALITY_MM:g} mm: {counts['within']}, refused: {counts['refused']}, "
          f"doubtful: {counts['doubtful']} ({counts['doubtful_wrong']} of them wrong), "
          f"silently wrong: {counts['silently_wrong']}")
    return counts


def fresh(seeds: list[int], scenario: str, folder: Path | None) -> dict[str, int]:
    from synth.make import make_clip  # only the fresh clips need the renderer and encoder

    def run(out: Path) -> dict[str, int]:
        paths = []
        for seed in seeds:
            name = f"{scenario}_s{seed}"
            labels = out / f"{name}.labels.json"
            if not labels.is_file():
                print(f"making {name} ...", flush=True)
                make_clip(name, scenario, seed, out)
            paths.append(labels)
        return evaluate(paths)

    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
        return run(folder)
    with tempfile.TemporaryDirectory(prefix="kaisa-fresh-") as tmp:
        return run(Path(tmp))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("clips_dir", nargs="?", type=Path, default=ROOT / "sample_videos")
    parser.add_argument("--fresh", nargs="+", type=int, metavar="SEED",
                        help="make one clip per seed with the renderer and evaluate those")
    parser.add_argument("--scenario", default="pot_HR", help="scenario of the fresh clips")
    parser.add_argument("--fresh-dir", type=Path, help="keep (and reuse) the fresh clips here")
    args = parser.parse_args(argv)
    if args.fresh:
        fresh(args.fresh, args.scenario, args.fresh_dir)
    else:
        evaluate(sorted(args.clips_dir.glob("*.labels.json")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
