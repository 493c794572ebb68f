"""Calibration accuracy and speed (a benchmark, not a test).

    python benchmarks/bench_calibration.py [--quick]

Synthetic: frames rendered with a known camera (tests/calibration/calib_synth.py); prints the
table-point error (grid over the field, true vs found calibration, mm; DESIGN.md bar: mean <= 3 mm
at 1280x720), the RMS cushion residual, k1 found vs true, and the time. Real: for each clip in
../shared/realdata/club-overhead, the corner error (px) against the hand measurements in
tests/calibration/test_calibration_realdata.py, from frame 0 and from the median of 9 frames
spread over the clip, and the time (detection only; reading the frames is timed apart).
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "calibration")]

from calib_synth import CLOTHS, Scene, grid_error_mm, render  # noqa: E402
from test_calibration_realdata import HAND_CORNERS, REALDATA  # noqa: E402

from calibration import CalibrationError, detect_table, read_frames, sample_frames  # noqa: E402
from rules.table import PRESETS, TableSpec  # noqa: E402


def synthetic(quick: bool) -> None:
    print("synthetic 1280x720: table-point error over a 15x7 grid (mm)")
    print(f"{'cloth':10} {'table':13} {'tilt':>11} {'roll':>5} {'k1':>6} {'seed':>4} | "
          f"{'mean':>5} {'max':>5} {'rms':>5} {'k1 found':>8} {'k1 true':>8} {'s':>5}")
    tilts = [(0.0, 0.0), (6.0, -4.0), (-10.0, 8.0)]
    k1s = [0.0, -0.08, -0.18, 0.04]
    seeds = [1, 2] if quick else [1, 2, 3]
    means, maxes = [], []
    for (cloth, tilt, k1, seed) in itertools.product(CLOTHS, tilts, k1s, seeds):
        if quick and (k1 == 0.04 or tilt == (0.0, 0.0)):
            continue
        table = PRESETS["kaisa-10ft"] if seed == 3 else TableSpec()
        scene = Scene(cloth=cloth, tilt_deg=tilt, roll_deg=(seed - 2) * 2.5, k1=k1, seed=seed)
        frame, true = render(scene, table)
        t = time.perf_counter()
        try:
            # calib_synth paints the noses on the plane of ball centres: no nose height
            found = detect_table(frame, table, nose_height_mm=0.0).calibration
        except CalibrationError as err:
            print(f"{cloth:10} {table.name:13} {tilt!s:>11} {scene.roll_deg:5.1f} {k1:6.2f} "
                  f"{seed:4} | FAILED: {err}")
            means.append(np.inf)
            continue
        dt = time.perf_counter() - t
        err = grid_error_mm(true, found)
        means.append(err.mean())
        maxes.append(err.max())
        k1_true = k1 * (found.camera_matrix[0, 0] / true.camera_matrix[0, 0]) ** 2
        print(f"{cloth:10} {table.name:13} {tilt!s:>11} {scene.roll_deg:5.1f} {k1:6.2f} "
              f"{seed:4} | {err.mean():5.2f} {err.max():5.2f} {found.rms_residual_mm:5.2f} "
              f"{found.distortion[0]:8.4f} {k1_true:8.4f} {dt:5.2f}")
    print(f"synthetic: {len(means)} cases, mean of means {np.mean(means):.2f} mm, worst mean "
          f"{np.max(means):.2f} mm, worst max {np.max(maxes):.2f} mm\n")


def real() -> None:
    if not REALDATA.is_dir():
        print(f"real: {REALDATA} not found, skipped")
        return
    print("real club-overhead clips: corner error vs hand measurement (px, HR HL FR FL)")
    print(f"{'clip':36} | {'frame 0: corners':26} {'max':>5} {'s':>5} | "
          f"{'median of 9: corners':26} {'max':>5} {'s':>5} {'read s':>6}")
    worst0, worst9 = [], []
    for clip, hand in sorted(HAND_CORNERS.items()):
        path = REALDATA / f"{clip}.mp4"
        frame0 = next(read_frames(path))[1]
        t = time.perf_counter()
        # the hand measured the noses in the picture: calibrate the nose plane to compare
        c0 = detect_table(frame0, TableSpec(), nose_height_mm=0.0).calibration.corners_px()
        t0 = time.perf_counter() - t
        t = time.perf_counter()
        frames = [f for _, f in sample_frames(path, 9)]
        tr = time.perf_counter() - t
        t = time.perf_counter()
        c9 = detect_table(frames, TableSpec(), nose_height_mm=0.0).calibration.corners_px()
        t9 = time.perf_counter() - t
        e0 = np.hypot(*(c0 - np.array(hand)).T)
        e9 = np.hypot(*(c9 - np.array(hand)).T)
        worst0.append(e0.max())
        worst9.append(e9.max())
        print(f"{clip:36} | {np.array2string(e0, precision=2):26} {e0.max():5.2f} {t0:5.2f} | "
              f"{np.array2string(e9, precision=2):26} {e9.max():5.2f} {t9:5.2f} {tr:6.2f}")
    print(f"real: worst corner error {max(worst0):.2f} px (frame 0), {max(worst9):.2f} px "
          f"(median of 9)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer synthetic cases")
    args = parser.parse_args()
    synthetic(args.quick)
    real()


if __name__ == "__main__":
    main()
