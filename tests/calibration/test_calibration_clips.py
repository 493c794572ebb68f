"""Calibration on committed labelled clips (sample_videos/, rendered by synth/render.py with
vignetting, a lighting gradient, wooden rails, pocket holes, a player and cue, H.264 at CRF 30):
the DESIGN.md bar, mean table-point error <= 3 mm at 1280x720, against the renderer's true
calibration. The committed clips use only two looks (green cloth under a hot spot with strong
vignetting and dim cushions, seed-0 camera; blue cloth, seed-2 camera with another lens and
tilt); the three below cover both, with different balls, players and cue in view.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from calibration import Calibration, detect_table_in_video
from rules.table import TableSpec

CLIPS_DIR = Path(__file__).resolve().parents[2] / "sample_videos"
CLIPS = ["carom_2", "bank_red_middle", "demo_match"]
QUALITY_MM = 3.0

pytestmark = pytest.mark.skipif(not CLIPS_DIR.is_dir(), reason="sample_videos/ is not available")


def table_grid(table: TableSpec, step_mm: float = 50.0) -> np.ndarray:
    xs = np.arange(0.0, table.length_mm + 1e-9, step_mm)
    ys = np.arange(0.0, table.width_mm + 1e-9, step_mm)
    return np.stack(np.meshgrid(xs, ys), axis=-1).reshape(-1, 2)


@pytest.mark.parametrize("clip", CLIPS)
def test_mean_table_point_error_within_quality_bar(clip):
    labels_path = CLIPS_DIR / f"{clip}.labels.json"
    if not labels_path.is_file():
        pytest.skip(f"{labels_path.name} is not available")
    doc = json.loads(labels_path.read_text())
    table = TableSpec.from_value(doc["table"])
    truth = Calibration.from_dict(doc["calibration"])
    found = detect_table_in_video(labels_path.with_name(doc["video"]), table).calibration
    grid = table_grid(table)
    back = found.image_to_table(truth.table_to_image(grid))
    err = np.hypot(*(back - grid).T)
    assert err.mean() <= QUALITY_MM, f"mean {err.mean():.2f} mm, max {err.max():.2f} mm"
