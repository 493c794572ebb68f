"""`kaisa calibrate`: a real clip, the manual corners, and the refusals (one line, exit 2)."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.cli import main

REAL = Path(__file__).resolve().parents[3] / "shared" / "realdata" / "club-overhead"
CLIP = REAL / "video_9_0056_0101.mp4"
needs_real = pytest.mark.skipif(not CLIP.exists(), reason="../shared/realdata is absent")


def one_line(err: str) -> str:
    """The one error line; the progress lines of the pass over the video before it (stderr
    too: "VIDEO: calibration, ...", "VIDEO: finding the table ...") are left out."""
    lines = [x for x in err.splitlines() if x.startswith("kaisa")]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0] + "\n"


@needs_real
def test_a_real_clip_is_calibrated(tmp_path: Path, capsys):
    out, preview = tmp_path / "c.json", tmp_path / "c.png"
    assert main(["calibrate", str(CLIP), "-o", str(out), "--preview", str(preview)]) == 0
    doc = json.loads(out.read_text())
    assert doc["format"] == "kaisa-calibration/1" and doc["source"] == "auto"
    assert doc["image_size"] == [1280, 720] and doc["rms_residual_mm"] < 5
    assert cv2.imread(str(preview)).shape == (720, 1280, 3)
    assert "RMS residual" in capsys.readouterr().out


@needs_real
def test_manual_corners(tmp_path: Path):
    out = tmp_path / "m.json"
    corners = "64,647,56,79,1183,635,1181,82"  # HR, HL, FR, FL (rough clicks)
    assert main(["calibrate", str(CLIP), "--corners", corners, "-o", str(out), "--preview",
                 str(tmp_path / "m.png")]) == 0
    assert json.loads(out.read_text())["source"] == "manual"


def test_no_table_is_refused_with_a_picture(tmp_path: Path, capsys):
    video = tmp_path / "wall.mp4"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"mp4v"), 30, (640, 480))
    rng = np.random.default_rng(3)
    for _ in range(20):
        writer.write((rng.random((480, 640, 3)) * 40 + 100).astype(np.uint8))
    writer.release()
    preview = tmp_path / "wall.png"
    assert main(["calibrate", str(video), "-o", str(tmp_path / "w.json"), "--preview",
                 str(preview)]) == 2
    assert "no table found" in one_line(capsys.readouterr().err)
    assert preview.exists() and not (tmp_path / "w.json").exists()


@pytest.mark.parametrize("content", [None, b"not a video at all"])
def test_missing_or_corrupt_video(tmp_path: Path, capsys, content: bytes | None):
    video = tmp_path / "x.mp4"
    if content is not None:
        video.write_bytes(content)
    assert main(["calibrate", str(video)]) == 2
    assert "expected a video" in one_line(capsys.readouterr().err)
