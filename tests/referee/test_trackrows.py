"""The tracker's rows kept on disk (referee/trackrows.py): read back to the bit, by frame range
and whole, in order; rows out of order or of an unknown ball refused."""

from __future__ import annotations

import random

import pytest

import referee.trackrows
from referee.trackrows import BALLS, Row, TrackRows


def _rows(frames: int, seed: int) -> list[Row]:
    rng = random.Random(seed)
    out: list[Row] = []
    for frame in range(frames):
        for ball in BALLS:
            if rng.random() < 0.9:  # (a ball off the table has no row)
                out.append((frame, ball, rng.uniform(-50, 3600) / 3, rng.uniform(0, 1800) / 7,
                            rng.random() < 0.8))
    return out


def test_rows_come_back_to_the_bit_in_order_and_by_frame_range(monkeypatch):
    monkeypatch.setattr(referee.trackrows, "PENDING_ROWS", 100)  # (many writes, many reads)
    monkeypatch.setattr(referee.trackrows, "READ_ROWS", 37)
    rows = _rows(500, seed=7)
    kept = TrackRows()
    try:
        for frame in range(500):
            kept.extend(r for r in rows if r[0] == frame)
        assert len(kept) == len(rows)
        assert list(kept) == rows
        assert kept.between(120, 130) == [r for r in rows if 120 <= r[0] <= 130]
        assert kept.between(499, 600) == [r for r in rows if r[0] == 499]
        assert kept.between(600, 700) == []
        kept.extend([(500, "Y", 1.0, 2.0, True)])  # (the rows not yet written count too)
        assert kept.between(499, 500)[-1] == (500, "Y", 1.0, 2.0, True)
    finally:
        kept.close()


def test_rows_out_of_order_or_of_no_ball_are_refused():
    kept = TrackRows()
    try:
        kept.extend([(5, "W1", 0.0, 0.0, True)])
        with pytest.raises(ValueError, match="frame order"):
            kept.extend([(4, "W1", 0.0, 0.0, True)])
        with pytest.raises(ValueError, match="unknown ball"):
            kept.extend([(6, "R3", 0.0, 0.0, True)])
    finally:
        kept.close()
