"""`kaisa eval` against the committed accuracy baseline: a change that makes any event,
pocket, verdict or tracking number worse on the sample clips fails here (the whole chain from
the videos, and the shot-fact inference from the true tracks).

Remake the baseline after an improvement:
    kaisa eval --source tracks --json /tmp/t.json
    kaisa eval --source video --json /tmp/v.json
and copy the numbers into tests/metrics_baseline.json.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from referee.cli import main

ROOT = Path(__file__).resolve().parents[1]
BASELINE = json.loads((ROOT / "tests" / "metrics_baseline.json").read_text())
SAMPLES = ROOT / "sample_videos"
SLACK = 1e-3
MM_SLACK = 0.05


def compare(now: dict, then: dict) -> list[str]:
    worse = []
    for kind, counts in then["events"].items():
        for key in ("precision", "recall"):
            if now["events"][kind][key] < counts[key] - SLACK:
                worse.append(f"{kind} {key} {now['events'][kind][key]} < {counts[key]}")
    if now["verdict_share"] < then["verdict_share"] - SLACK:
        worse.append(f"verdicts {now['verdict_share']} < {then['verdict_share']}")
    if now["pocket_ids_right"] < then["pocket_ids_right"]:
        worse.append("pocket ids")
    if "tracking" in then:
        got, had = now["tracking"], then["tracking"]
        if got["found_share"] < had["found_share"] - SLACK:
            worse.append(f"found {got['found_share']} < {had['found_share']}")
        for key in ("mean_error_rest_mm", "mean_error_motion_mm"):
            if got[key] > had[key] + MM_SLACK:
                worse.append(f"{key} {got[key]} > {had[key]}")
        if got["white_swap_frames"] > had["white_swap_frames"]:
            worse.append(f"white swaps {got['white_swap_frames']}")
    return worse


@pytest.mark.skipif(not (SAMPLES / "manifest.json").exists(), reason="sample clips not made")
@pytest.mark.parametrize("source", ["tracks", "video"])
def test_no_accuracy_regression(source: str, tmp_path: Path, capsys):
    then = BASELINE[source]
    clips = [str(SAMPLES)]  # every committed clip
    out = tmp_path / "metrics.json"
    assert main(["eval", "--source", source, *clips, "--json", str(out)]) == 0
    capsys.readouterr()
    assert compare(json.loads(out.read_text()), then) == []
