"""Progress of a long phase on stderr (tqdm): "frame N of M", the percent and the time left. On a
terminal one line redrawn in place; elsewhere (a log file, a pipe, the processes of ``--jobs``)
plain lines, one per update, every ``LOG_EVERY_S`` seconds and at the end."""

from __future__ import annotations

import os
import sys
from typing import Any, TextIO

from tqdm import tqdm  # type: ignore[import-untyped]

LOG_EVERY_S = 10.0  # not a terminal: at most one line this often (and the last one)
TERMINAL_EVERY_S = 0.5


class _PlainLines:
    """What tqdm writes (``\\r`` + the bar, redrawn) turned into whole lines, each once."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._last = ""

    def write(self, text: str) -> int:
        for piece in text.replace("\r", "\n").split("\n"):
            line = piece.rstrip()
            if line and line != self._last:
                self._stream.write(line + "\n")
                self._last = line
        return len(text)

    def flush(self) -> None:
        self._stream.flush()


def _is_terminal(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _size(stream: TextIO) -> tuple[int, int]:
    """The terminal's width and height (one that says 0, as some pseudo-terminals do: 100 by
    24; tqdm would hide its line outside a height of 0)."""
    try:
        size = os.get_terminal_size(stream.fileno())
        return size.columns or 100, size.lines or 24
    except (AttributeError, ValueError, OSError):
        return 100, 24


class Progress:
    """One phase's progress: ``to(n)`` sets how far it is (of ``total``, None: not known);
    ``clear()`` before a line is printed to the terminal (it is drawn again at the next
    update); ``close()`` prints the final line."""

    def __init__(self, desc: str, total: int | None, unit: str = "frame",
                 stream: TextIO | None = None, shown: bool = True, initial: int = 0) -> None:
        """``initial``: where the phase takes up (a resumed match: the frames before it are
        not counted in the rate, nor so in the time left)."""
        stream = stream or sys.stderr
        self.terminal = _is_terminal(stream)
        self.shown = shown
        of = "{n_fmt} of {total_fmt} ({percentage:3.0f} %)" if total else "{n_fmt}"
        left = ", {remaining} left" if total else ""  # (before the elapsed: cut last)
        self._bar: Any = tqdm(
            total=total or None, initial=initial, desc=desc, disable=not shown, leave=True,
            file=stream if self.terminal else _PlainLines(stream),
            mininterval=TERMINAL_EVERY_S if self.terminal else LOG_EVERY_S,
            maxinterval=TERMINAL_EVERY_S * 4 if self.terminal else LOG_EVERY_S * 6,
            ncols=_size(stream)[0] if self.terminal else None,
            nrows=_size(stream)[1] if self.terminal else None, ascii=not self.terminal,
            bar_format="{desc}: " + unit + " " + of + left + ", {elapsed} elapsed")

    def to(self, n: int) -> None:
        if n > self._bar.n:
            self._bar.update(n - self._bar.n)

    def step(self, k: int = 1) -> None:
        self._bar.update(k)

    def describe(self, desc: str) -> None:
        self._bar.set_description_str(desc, refresh=False)

    def clear(self) -> None:
        if self.terminal and self.shown:
            self._bar.clear()

    def close(self) -> None:
        self._bar.close()

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
