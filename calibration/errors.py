"""The calibration stage's error: the table cannot be found, or its fit is not good enough."""

from __future__ import annotations

from rules.errors import KaisaError


class CalibrationError(KaisaError):
    """No table found in the frames, a fit too poor to use, or a malformed calibration file.

    The message is one line that says what was expected and what was found, so the CLI can print
    it and exit 2.
    """
