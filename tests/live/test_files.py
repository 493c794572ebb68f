"""The files the live engine and the pages meet through (live/files.py)."""

from __future__ import annotations

import json
import multiprocessing

import pytest

from live.files import (
    LiveFiles,
    LiveStatus,
    PlacementMark,
    append_command,
    read_commands,
    read_status,
    write_status,
)


def test_a_status_reads_back_as_written(tmp_path):
    files = LiveFiles(tmp_path)
    assert read_status(files) is None
    status = LiveStatus(match_id=3, camera="reconnecting", camera_message="no frame for 5 s",
                        gaps=({"t_s": 12.5, "gap_s": 3.2, "shot": "shot4"},), score=(12, 30),
                        placement=(PlacementMark("R1", (900.0, 889.0), (903.0, 889.0), 3.0, True),
                                   PlacementMark("Y", (2677.0, 889.0))),
                        positions_mm={"W1": (100.0, 200.0)}, flagged=("shot4",),
                        still_homography=((0.3, 0.0, 40.0), (0.0, -0.3, 500.0), (0.0, 0.0, 1.0)))
    write_status(files, status)
    assert read_status(files) == status
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporary left


def test_a_damaged_status_reads_as_none(tmp_path):
    files = LiveFiles(tmp_path)
    files.status.write_text('{"match_id": 1, "cam')
    assert read_status(files) is None


def test_commands_are_numbered_in_order_and_read_after_a_number(tmp_path):
    files = LiveFiles(tmp_path)
    append_command(files, "call", {"ball": "R", "pocket": "FL"})
    append_command(files, "undo", {"note": "wrong"})
    third = append_command(files, "correct", {"score": [10, 20], "note": "by hand"})
    assert third.seq == 3
    assert [c.kind for c in read_commands(files)] == ["call", "undo", "correct"]
    assert [c.seq for c in read_commands(files, after_seq=1)] == [2, 3]
    assert read_commands(files, after_seq=3) == []


def test_an_unknown_command_kind_is_refused(tmp_path):
    with pytest.raises(ValueError, match="expected a command kind"):
        append_command(LiveFiles(tmp_path), "explode", {})


def test_a_torn_last_line_is_left_for_the_next_read(tmp_path):
    files = LiveFiles(tmp_path)
    append_command(files, "undo", {})
    with open(files.commands, "a", encoding="utf-8") as log:
        log.write('{"seq": 2, "kind": "und')
    assert [c.seq for c in read_commands(files)] == [1]


def _append_many(folder: str, n: int) -> None:
    for i in range(n):
        append_command(LiveFiles(__import__("pathlib").Path(folder)), "call", {"i": i})


def test_commands_appended_by_two_processes_at_once_get_distinct_numbers(tmp_path):
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_append_many, args=(str(tmp_path), 25)) for _ in range(2)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(60)
    lines = [json.loads(line) for line in LiveFiles(tmp_path).commands.read_text().splitlines()]
    assert sorted(d["seq"] for d in lines) == list(range(1, 51))
