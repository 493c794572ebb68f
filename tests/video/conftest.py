"""Small videos written for the video tests, and a clock tests move by hand."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from video import VideoWriter

SIZE = (64, 48)  # width, height
FRAMES = 12


def picture(k: int) -> np.ndarray:
    """Frame ``k``: a grey level that steps by 15 a frame, with a seeded pattern on it (so the
    encoder has something to encode, and each frame is told from the next by its mean)."""
    rng = np.random.default_rng(1000 + k)
    image = np.full((SIZE[1], SIZE[0], 3), 40 + 15 * k, np.uint8)
    image[8:24, 8:40] = rng.integers(0, 255, (16, 32, 3), dtype=np.uint8)
    return image


@pytest.fixture(scope="module")
def clip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 64 x 48 H.264 video of FRAMES frames at 30 fps."""
    path = tmp_path_factory.mktemp("video") / "clip.mp4"
    with VideoWriter(path, SIZE, 30) as writer:
        for k in range(FRAMES):
            writer.write(picture(k))
    return path


class FakeClock:
    """A clock that moves only when told (``sleep`` moves it too): timing without waiting."""

    def __init__(self, now: float = 100.0) -> None:
        self.now = now
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds
