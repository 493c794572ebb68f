"""The tracker's rows of a whole video, kept on disk as the video is read, so that refereeing a
long match holds no more in memory at its end than at its start.

A row is (frame, ball, x_mm, y_mm, visible). Rows are written in frame order to a temporary
file of fixed-size records (the floats as they are, to the bit) a few thousand at a time, and
read back by frame range (a shot's paths) or all in order (the annotated video)."""

from __future__ import annotations

import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np
import numpy.typing as npt

from rules import Ball

Row = tuple[int, str, float, float, bool]

BALLS: tuple[str, ...] = tuple(b.value for b in Ball)
_INDEX = {b: i for i, b in enumerate(BALLS)}
RECORD = np.dtype([("frame", "<i4"), ("ball", "u1"), ("visible", "?"), ("x", "<f8"),
                   ("y", "<f8")])
PENDING_ROWS = 4096  # rows held in memory before they are written out
READ_ROWS = 65536  # rows read back at a time


class TrackRows:
    """Rows appended in frame order, stored in a temporary file (deleted on :meth:`close`)."""

    def __init__(self, directory: Path | None = None) -> None:
        # (open for the object's life, closed by close(): no with-block spans it)
        self._file = tempfile.TemporaryFile(dir=directory, prefix="kaisa-rows-")  # noqa: SIM115
        self._pending: list[Row] = []
        self._written = 0  # records in the file
        self._last_frame = -1

    def extend(self, rows: Iterable[Row]) -> None:
        for row in rows:
            if row[0] < self._last_frame:
                raise ValueError(f"rows must come in frame order: {row[0]} after "
                                 f"{self._last_frame}")
            if row[1] not in _INDEX:
                raise ValueError(f"unknown ball {row[1]!r} (expected one of {BALLS})")
            self._last_frame = row[0]
            self._pending.append(row)
        if len(self._pending) >= PENDING_ROWS:
            self._flush()

    @property
    def last_frame(self) -> int:
        """The frame of the last row kept (-1 before the first)."""
        return self._last_frame

    def __len__(self) -> int:
        return self._written + len(self._pending)

    def _flush(self) -> None:
        if not self._pending:
            return
        records = np.array([(f, _INDEX[b], bool(v), x, y) for f, b, x, y, v in self._pending],
                           dtype=RECORD)
        self._file.seek(0, 2)
        self._file.write(records.tobytes())
        self._written += len(records)
        self._pending.clear()

    def _records(self, start: int, stop: int) -> npt.NDArray[np.void]:
        self._file.seek(start * RECORD.itemsize)
        data = self._file.read((stop - start) * RECORD.itemsize)
        return np.frombuffer(data, dtype=RECORD)

    def _first_at_or_after(self, frame: int) -> int:
        """The index of the first written record of ``frame`` or later (binary search on disk)."""
        lo, hi = 0, self._written
        while lo < hi:
            mid = (lo + hi) // 2
            if int(self._records(mid, mid + 1)["frame"][0]) < frame:
                lo = mid + 1
            else:
                hi = mid
        return lo

    def between(self, first: int, last: int) -> list[Row]:
        """The rows of frames ``first`` to ``last`` (both included)."""
        self._flush()
        start = self._first_at_or_after(first)
        stop = self._first_at_or_after(last + 1)
        return _as_rows(self._records(start, stop))

    def __iter__(self) -> Iterator[Row]:
        self._flush()
        for start in range(0, self._written, READ_ROWS):
            yield from _as_rows(self._records(start, min(start + READ_ROWS, self._written)))

    def close(self) -> None:
        self._file.close()


def _as_rows(records: npt.NDArray[np.void]) -> list[Row]:
    return [(int(f), BALLS[int(b)], float(x), float(y), bool(v))
            for f, b, v, x, y in zip(records["frame"], records["ball"], records["visible"],
                                     records["x"], records["y"], strict=True)]
