"""The video stage's one error: a video that cannot be opened or decoded."""

from __future__ import annotations

from rules.errors import KaisaError


class VideoError(KaisaError):
    """Bad input for reading a video (no file, not a video, a video no decoder opens)."""
