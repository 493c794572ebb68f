"""Issue 50, item 5: under `kaisa referee --jobs N` a worker process that dies (SIGKILL: as an
out-of-memory kill would) fails only its own input. The others, in flight or not yet started,
finish exactly once; the dead one is said as such, its match kept and released, and the same
command with --resume continues it to the uninterrupted run's score; no second match."""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

from referee.app import TEST_DIE_ON
from referee.cli import demo_game_path
from referee.gamefile import load_game
from referee.journal import Journal

ROOT = Path(__file__).resolve().parents[2]
DEMO = [v.to_dict() for _, _, v in load_game(demo_game_path()).judged()]
SHOTS = len(DEMO)
SHOT_LINE = re.compile(r"^\[(\S+)\]\s+\d+:\d\d\.\d\d\s+shot\s+(\d+)", re.M)


def _games(folder: Path, names: list[str]) -> list[Path]:
    """Copies of the demo's GAME record, each its own input (its own source key)."""
    text = demo_game_path().read_text()
    paths = []
    for k, name in enumerate(names):
        paths.append(folder / f"{name}.game.json")
        paths[-1].write_text(text + " " * (k + 1))
    return paths


def _referee(journal: Path, *argv: str, die_on: str | None = None
             ) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "KAISA_JOURNAL": str(journal), "PYTHONPATH": str(ROOT)}
    env.pop(TEST_DIE_ON, None)
    if die_on is not None:
        env[TEST_DIE_ON] = die_on
    return subprocess.run([sys.executable, "-m", "referee.cli", "referee", *argv], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=120)


def _matches(journal: Path) -> list[tuple[Any, ...]]:
    with sqlite3.connect(journal) as db:
        return list(db.execute("SELECT id, source, status, lease_pid FROM matches ORDER BY id"))


def _verdicts(journal: Path, match_id: int) -> list[dict[str, Any]]:
    with Journal(journal, readonly=True) as j:
        return [v.to_dict() for v in j.load(match_id).match.verdicts]


def _judged(stdout: str) -> dict[str, list[int]]:
    """The shot numbers each input's worker printed, by input name."""
    judged: dict[str, list[int]] = {}
    for name, number in SHOT_LINE.findall(stdout):
        judged.setdefault(name, []).append(int(number))
    return judged


def test_a_killed_worker_fails_only_its_own_input(tmp_path: Path):
    journal = tmp_path / "journal.sqlite"
    games = _games(tmp_path, ["a", "b", "c"])
    argv = [*map(str, games), "--jobs", "2", "--pace", "0.1"]
    # b's worker is killed after its 4th verdict, while a's is judging (c starts after)
    run = _referee(journal, *argv, die_on="b.game.json:4")
    assert run.returncode == 1, run.stderr
    assert "Traceback" not in run.stderr
    ids = {Path(source).name: match_id for match_id, source, _, _ in _matches(journal)}
    said = [line for line in run.stderr.splitlines() if "died" in line]
    assert said[0].startswith("[b.game.json] kaisa: the worker process died (signal 9, SIGKILL)")
    assert f"its match {ids['b.game.json']} is kept" in said[0] and "--resume" in said[0]
    assert any(line.startswith(f"kaisa: {games[1]}: the worker process died") for line in said)
    assert run.stderr.splitlines()[-1].startswith("kaisa: 1 of 3 inputs failed (1 worker "
                                                  "process died")
    judged = _judged(run.stdout)
    assert judged["a.game.json"] == list(range(1, SHOTS + 1))
    assert judged["c.game.json"] == list(range(1, SHOTS + 1))
    assert judged["b.game.json"] == [1, 2, 3]  # (the 4th was journalled, then the kill)
    for name in ("a", "c"):
        assert (tmp_path / f"{name}.report.json").is_file()
    assert not (tmp_path / "b.report.json").exists()

    matches = _matches(journal)  # (a and b started together: either may be match 1)
    assert sorted((Path(source).name, status, lease) for _, source, status, lease in matches) \
        == [("a.game.json", "finished", None), ("b.game.json", "running", None),
            ("c.game.json", "finished", None)]
    assert _verdicts(journal, ids["a.game.json"]) == DEMO
    assert _verdicts(journal, ids["c.game.json"]) == DEMO
    assert _verdicts(journal, ids["b.game.json"]) == DEMO[:4]

    # The same command with --resume: b continues from its 5th shot; a and c judge nothing.
    again = _referee(journal, *argv, "--resume")
    assert again.returncode == 0, again.stderr
    assert _judged(again.stdout) == {"b.game.json": list(range(5, SHOTS + 1))}
    assert (f"[b.game.json] kaisa: resuming match {ids['b.game.json']}: 4 shots already "
            "recorded") in again.stderr
    assert _verdicts(journal, ids["b.game.json"]) == DEMO
    assert [(m[0], m[2], m[3]) for m in _matches(journal)] == [
        (1, "finished", None), (2, "finished", None), (3, "finished", None)]


def test_a_worker_killed_before_it_journalled_anything(tmp_path: Path):
    journal = tmp_path / "journal.sqlite"
    games = _games(tmp_path, ["a", "b"])
    run = _referee(journal, *map(str, games), "--jobs", "2", die_on="a.game.json")
    assert run.returncode == 1, run.stderr
    assert (f"kaisa: {games[0]}: the worker process died (signal 9, SIGKILL); nothing of it "
            "was journalled") in run.stderr
    assert _judged(run.stdout) == {"b.game.json": list(range(1, SHOTS + 1))}
    assert [(Path(m[1]).name, m[2]) for m in _matches(journal)] == [("b.game.json", "finished")]
    again = _referee(journal, str(games[0]), "--resume")
    assert again.returncode == 0, again.stderr
    assert _verdicts(journal, 2) == DEMO
