"""What the referee's tests share: a journal of their own, a copy of the demo's GAME record."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from referee.cli import demo_game_path


@pytest.fixture
def journal_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A journal in the test's folder, the default of every command run (KAISA_JOURNAL)."""
    path = tmp_path / "journal.sqlite"
    monkeypatch.setenv("KAISA_JOURNAL", str(path))
    return path


@pytest.fixture
def game(tmp_path: Path) -> Path:
    """A copy of the demo's GAME record (its own input: its own source key)."""
    path = tmp_path / "demo.game.json"
    shutil.copy(demo_game_path(), path)
    return path


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``kaisa ARGV...`` in this process: the exit code, stdout and stderr."""
    from referee.cli import main

    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err
