"""The tracker's answers written as CSV, one row per ball and frame (the labels' format)."""

from __future__ import annotations

import csv
from collections.abc import Iterable
from pathlib import Path

from vision.tracking.state import BALLS, FrameTracks


def write_tracks_csv(path: str | Path, results: Iterable[FrameTracks]) -> int:
    """Write ``frame,ball,x_mm,y_mm,visible`` rows (the labels' format); returns the frames."""
    n = 0
    p = Path(path)
    tmp = p.with_name(p.name + ".part")
    with tmp.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["frame", "ball", "x_mm", "y_mm", "visible"])
        for r in results:
            for ball in BALLS:
                if ball in r.balls:
                    x, y, vis = r.balls[ball]
                    w.writerow([r.frame, ball, f"{x:.2f}", f"{y:.2f}", int(vis)])
            n += 1
    tmp.replace(p)
    return n
