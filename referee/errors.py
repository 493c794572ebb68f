"""Errors the application reports as one line with exit code 2 (bad input)."""

from __future__ import annotations

from rules.errors import KaisaError


class InputError(KaisaError):
    """A file the user gave cannot be used: missing, unreadable, not the expected format."""
