"""Shots given out as the frames come (vision/shots/stream.py): the same facts as from the finished
match's tracks, each shot soon after its balls rest, memory bounded in the video's length, and
parameters and frame order checked."""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest

from referee.evaluate import true_track_rows
from referee.labels import load_labels
from rules.events import EventType
from rules.table import TableSpec
from vision.shots import (
    ShotFactsParams,
    ShotStream,
    ShotStreamParams,
    StreamError,
    shots_from_rows,
    shots_from_tracks,
    tracks_from_rows,
)

SAMPLES = Path(__file__).resolve().parents[2] / "sample_videos"
FPS = 30.0
REST = {"W1": (700.0, 600.0), "W2": (2900.0, 1200.0), "R1": (887.5, 887.5),
        "R2": (2662.5, 887.5), "Y": (1775.0, 887.5)}


def _rolling_match(shots: int, seed: int) -> tuple[list[tuple[int, dict[str, tuple[float, float,
                                                                                   bool]]]],
                                                      list[int]]:
    """Frames of a match where, every 10 s, one ball rolls 600 mm in 2 s (slowing evenly) and
    stops; the rest lie still with 0.3 mm of read noise. Also each roll's last moving frame."""
    rng = random.Random(seed)
    where = dict(REST)
    frames = []
    rests = []
    period, roll = round(10 * FPS), round(2 * FPS)
    for shot in range(shots):
        ball = ("W1", "W2")[shot % 2]
        x0, y0 = where[ball]
        heading = 1.0 if x0 < 1775 else -1.0
        for k in range(period):
            frame = shot * period + k
            if 90 <= k < 90 + roll:
                u = (k - 89) / roll
                where[ball] = (x0 + heading * 600 * (1 - (1 - u) ** 2), y0)
                if k == 89 + roll:
                    rests.append(frame)
            balls = {b: (x + rng.gauss(0, 0.3), y + rng.gauss(0, 0.3), True)
                     for b, (x, y) in where.items()}
            frames.append((frame, balls))
    return frames, rests


def test_each_roll_is_given_out_once_soon_after_it_stops_and_memory_stays_bounded():
    table = TableSpec.from_value("russian-12ft")
    frames, rests = _rolling_match(shots=30, seed=11)  # 5 minutes of video
    params = ShotStreamParams()
    stream = ShotStream(table, FPS, params)
    given, kept = [], []
    for frame, balls in frames:
        given += stream.feed(frame, balls)
        kept.append(stream.kept_samples)
    given += stream.finish()
    assert len(given) == len(rests)
    for shot, rest in zip(given, rests, strict=True):
        assert shot.facts.strike.type is EventType.STRIKE
        # (the roll's last 4-5 steps, under 1.5 mm a frame give or take the noise, are rest)
        rest_frame = shot.rest_frame
        assert rest - 8 <= rest_frame <= rest
        late = (shot.found_frame - rest_frame) / FPS
        assert params.settle_s - 0.1 <= late <= params.settle_s + params.check_every_s + 0.1
    minute = round(60 * FPS)
    # no growth with the video's length (beyond the few frames between two looks)
    between_looks = 5 * round(params.check_every_s * FPS)
    assert max(kept[-minute:]) <= max(kept[:minute]) + between_looks
    assert max(kept) < 5 * round((params.history_s + 2 + params.settle_s + 1) * FPS)


def test_frames_are_settled_only_once_every_shot_they_may_belong_to_is_given_out():
    # what the annotated video waits for: a frame of a shot in progress is never settled
    # before that shot is given out, and quiet frames are settled within settle_s and a look
    table = TableSpec.from_value("russian-12ft")
    frames, rests = _rolling_match(shots=4, seed=5)
    params = ShotStreamParams()
    stream = ShotStream(table, FPS, params)
    given: list = []
    settled = []
    for frame, balls in frames:
        given += stream.feed(frame, balls)
        settled.append(stream.settled_before)
        for shot in given:  # (a shot given out: its frames may go)
            assert int(shot.facts.extra["strike_frame"]) < settled[-1]
        strikes_open = [f for f in (90 + k * 300 for k in range(4))
                        if f <= frame and not any(
                            int(s.facts.extra["strike_frame"]) >= f - 3 for s in given)]
        if strikes_open:  # a shot struck and not yet given out holds its frames back
            assert settled[-1] <= strikes_open[0]
    assert settled == sorted(settled)  # (never taken back)
    lag = [frame + 1 - s for (frame, _), s in zip(frames, settled, strict=True)
           if all(frame - r > 60 for r in rests if r <= frame) and frame % 300 < 80]
    step = round(params.check_every_s * FPS)
    assert lag and max(lag) <= round(params.settle_s * FPS) + step
    assert len(given) + len(stream.finish()) == len(rests)
    assert stream.settled_before == frames[-1][0] + 1


def test_streamed_facts_equal_the_whole_tracks_on_every_committed_clip():
    labels_files = sorted(SAMPLES.glob("*.labels.json"))
    if not labels_files:
        pytest.skip("sample clips not made")
    for path in labels_files:
        labels = load_labels(path)
        rows = true_track_rows(labels)
        whole = shots_from_tracks(labels.table, tracks_from_rows(rows, labels.fps), labels.fps)
        streamed = shots_from_rows(rows, labels.table, labels.fps)
        assert [s.facts.to_dict() for s in streamed] == whole, path.name
        for s in streamed[:-1]:  # (the last is given out when the video ends)
            assert s.found_frame - s.rest_frame <= 2 * labels.fps


def test_parameters_and_frame_order_are_checked():
    table = TableSpec.from_value("russian-12ft")
    # (settle_s against the shot facts' next_strike_s: checked where both are known)
    with pytest.raises(StreamError, match="settle_s must exceed next_strike_s"):
        ShotStream(table, FPS, ShotStreamParams(settle_s=0.5))
    with pytest.raises(StreamError, match="settle_s must exceed next_strike_s"):
        ShotStream(table, FPS, facts=ShotFactsParams(next_strike_s=1.6))
    ShotStream(table, FPS, ShotStreamParams(settle_s=0.5), ShotFactsParams(next_strike_s=0.4))
    with pytest.raises(StreamError, match="history_s"):
        ShotStreamParams(settle_s=2.0, history_s=1.5)
    with pytest.raises(StreamError, match="check_every_s"):
        ShotStreamParams(check_every_s=0)
    with pytest.raises(StreamError, match="frame rate"):
        ShotStream(TableSpec.from_value("russian-12ft"), 0.0)
    stream = ShotStream(TableSpec.from_value("russian-12ft"), FPS)
    stream.feed(3, {"W1": (1.0, 2.0, True)})
    with pytest.raises(StreamError, match="increasing order"):
        stream.feed(3, {"W1": (1.0, 2.0, True)})
    assert ShotStreamParams().to_dict()["settle_s"] == 1.5
    assert math.isclose(ShotStreamParams(settle_s=1.8).settle_s, 1.8)
