"""The pots of the real club footage, checked by eye frame by frame (see
benchmarks/realdata_handcheck.md), found by the whole path as the referee runs it: the table
calibrated for the balls as they measure, the tracker, the shot facts. Scored as
``benchmarks/bench_realdata.py`` scores them."""

from __future__ import annotations

import functools
import json
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
REAL = ROOT.parent / "shared" / "realdata" / "club-overhead"
HAND = json.loads((ROOT / "benchmarks" / "realdata_handlabels.json").read_text())
POT_CLIPS = sorted({p["clip"] for p in HAND["pots"]})

pytestmark = pytest.mark.skipif(not REAL.is_dir(), reason="no real footage")


@functools.cache
def scores(clip: str) -> Counter[str]:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import bench_realdata
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    result = bench_realdata.run_clip(REAL / f"{clip}.mp4", None, 0, set(), "auto", HAND)
    return Counter(result["scores"])


@pytest.mark.parametrize("clip", POT_CLIPS)
def test_each_real_pot_is_found_in_the_right_kind_of_pocket_and_no_other(clip):
    pots = sum(p["clip"] == clip for p in HAND["pots"])
    s = scores(clip)
    assert s["pots right"] == pots, s
    assert s["phantom pots"] == 0, s


@pytest.mark.parametrize("clip", POT_CLIPS)
def test_no_ball_is_reported_off_the_table_in_the_real_footage(clip):
    assert scores(clip)["phantom off-table"] == 0
