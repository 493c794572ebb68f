"""The match journal: every verdict written to SQLite (WAL) the moment it is made.

A run that stops or crashes is continued with ``--resume``: the recorded entries are read back (the
verdicts as recorded, not judged again) and the run skips the shots it already has, so no shot is
lost or counted twice. A human referee's undo and score corrections are entries too.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from referee.errors import InputError
from rules import GameState, Match, RuleOptions, ShotFacts, Verdict

SCHEMA = """
CREATE TABLE IF NOT EXISTS matches (
    id INTEGER PRIMARY KEY,
    source TEXT NOT NULL,          -- what was refereed (a file path, a camera)
    source_key TEXT NOT NULL,      -- identifies the same input again, for --resume
    rules_json TEXT NOT NULL,
    start_json TEXT NOT NULL,
    status TEXT NOT NULL,          -- running | finished
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS entries (
    match_id INTEGER NOT NULL REFERENCES matches(id),
    seq INTEGER NOT NULL,          -- order of entries within the match
    kind TEXT NOT NULL,            -- verdict | undo | correction
    shot_key TEXT,                 -- for verdicts: which shot of the source (never judged twice)
    facts_json TEXT,
    verdict_json TEXT,
    score_json TEXT,               -- for corrections: the score set by hand
    note TEXT,
    created_at TEXT NOT NULL,
    PRIMARY KEY (match_id, seq)
);
"""


def default_journal_path() -> Path:
    """$KAISA_JOURNAL, else the per-user data folder ($XDG_DATA_HOME/kaisa/journal.sqlite)."""
    if os.environ.get("KAISA_JOURNAL"):
        return Path(os.environ["KAISA_JOURNAL"])
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "kaisa" / "journal.sqlite"


def source_key(path: Path) -> str:
    """The same file gives the same key wherever it is: size and a hash of its first 4 MiB."""
    digest = hashlib.sha256()
    with path.open("rb") as f:
        digest.update(f.read(4 << 20))
    return f"{path.stat().st_size}:{digest.hexdigest()[:32]}"


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


@dataclass(frozen=True)
class MatchRecord:
    id: int
    source: str
    status: str
    created_at: str
    match: Match
    shot_keys: frozenset[str]


class Journal:
    """One SQLite file, many matches. Every write is its own committed transaction."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(path, isolation_level=None, timeout=10.0)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")  # a verdict survives a pulled cable
            self._db.executescript(SCHEMA)
        except (sqlite3.Error, OSError) as err:
            raise InputError(f"cannot open the journal ({err}); expected a writable SQLite file",
                             str(path)) from None

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- writing ------------------------------------------------------------------------------
    def start_match(self, source: str, key: str, options: RuleOptions, start: GameState) -> int:
        cur = self._db.execute(
            "INSERT INTO matches (source, source_key, rules_json, start_json, status, created_at)"
            " VALUES (?, ?, ?, ?, 'running', ?)",
            (source, key, json.dumps(options.to_dict()), json.dumps(start.to_dict()), _now()))
        assert cur.lastrowid is not None
        return cur.lastrowid

    def record_verdict(self, match_id: int, shot_key: str, facts: ShotFacts,
                       verdict: Verdict) -> None:
        self._append(match_id, "verdict", shot_key=shot_key,
                     facts_json=json.dumps(facts.to_dict()),
                     verdict_json=json.dumps(verdict.to_dict()))
        if verdict.winner is not None:
            self.set_status(match_id, "finished")

    def record_undo(self, match_id: int, note: str) -> None:
        record = self.load(match_id)
        if not record.match.entries:
            raise InputError(f"match {match_id} has nothing to undo", str(self.path))
        self._append(match_id, "undo", note=note)
        self.set_status(match_id, "running")

    def record_correction(self, match_id: int, score: tuple[int, int], note: str) -> None:
        self.load(match_id)  # refuses an unknown match
        self._append(match_id, "correction", score_json=json.dumps(list(score)), note=note)

    def set_status(self, match_id: int, status: str) -> None:
        self._db.execute("UPDATE matches SET status = ? WHERE id = ?", (status, match_id))

    def _append(self, match_id: int, kind: str, **fields: Any) -> None:
        columns = ["match_id", "seq", "kind", "created_at", *fields]
        placeholders = ", ".join("?" for _ in columns[4:])
        with self._db:  # BEGIN ... COMMIT: the seq is read and written in one transaction
            self._db.execute("BEGIN IMMEDIATE")
            (seq,) = self._db.execute(
                "SELECT COALESCE(MAX(seq), -1) + 1 FROM entries WHERE match_id = ?",
                (match_id,)).fetchone()
            self._db.execute(
                f"INSERT INTO entries ({', '.join(columns)}) VALUES (?, ?, ?, ?"
                f"{', ' if placeholders else ''}{placeholders})",
                (match_id, seq, kind, _now(), *fields.values()))

    # --- reading ------------------------------------------------------------------------------
    def matches(self) -> list[tuple[int, str, str, str]]:
        """(id, source, status, created_at) of every match, oldest first."""
        return list(self._db.execute(
            "SELECT id, source, status, created_at FROM matches ORDER BY id"))

    def latest_unfinished(self, key: str) -> int | None:
        row = self._db.execute(
            "SELECT id FROM matches WHERE source_key = ? AND status = 'running' "
            "ORDER BY id DESC LIMIT 1", (key,)).fetchone()
        return None if row is None else int(row[0])

    def last_match_id(self) -> int:
        row = self._db.execute("SELECT MAX(id) FROM matches").fetchone()
        if row is None or row[0] is None:
            raise InputError("the journal holds no match yet", str(self.path))
        return int(row[0])

    def load(self, match_id: int) -> MatchRecord:
        """The match rebuilt from its entries (recorded verdicts, undos, corrections)."""
        row = self._db.execute(
            "SELECT source, rules_json, start_json, status, created_at FROM matches WHERE id = ?",
            (match_id,)).fetchone()
        if row is None:
            raise InputError(f"no match {match_id} in the journal", str(self.path))
        source, rules_json, start_json, status, created = row
        options = RuleOptions.from_mapping(json.loads(rules_json))
        match = Match(GameState.from_dict(_start_fields(json.loads(start_json)), options))
        keys: set[str] = set()  # every shot ever judged, undone ones too: never judged again
        for kind, shot_key, facts_json, verdict_json, score_json, note in self._entries(match_id):
            if kind == "verdict":
                match = match.record(ShotFacts.from_dict(json.loads(facts_json)),
                                     Verdict.from_dict(json.loads(verdict_json)))
                keys.add(shot_key)
            elif kind == "undo":
                match = match.undo()
            else:
                a, b = json.loads(score_json)
                match = match.correct_score((int(a), int(b)), note or "")
        return MatchRecord(match_id, source, status, created, match, frozenset(keys))

    def last_verdict(self, match_id: int) -> tuple[str, ShotFacts] | None:
        """The shot key and facts of the match's last recorded verdict, undone or not (the
        table is where that shot left it either way); None before the first."""
        row = self._db.execute(
            "SELECT shot_key, facts_json FROM entries WHERE match_id = ? AND kind = 'verdict' "
            "ORDER BY seq DESC LIMIT 1", (match_id,)).fetchone()
        if row is None:
            return None
        return str(row[0]), ShotFacts.from_dict(json.loads(row[1]))

    def _entries(self, match_id: int) -> Iterator[tuple[Any, ...]]:
        with closing(self._db.execute(
                "SELECT kind, shot_key, facts_json, verdict_json, score_json, note FROM entries "
                "WHERE match_id = ? ORDER BY seq", (match_id,))) as cur:
            yield from cur

    def history(self, match_id: int) -> list[tuple[int, str, str | None, str | None, str]]:
        """(seq, kind, shot_key, note, created_at) of every entry, for `kaisa journal show`."""
        return list(self._db.execute(
            "SELECT seq, kind, shot_key, note, created_at FROM entries WHERE match_id = ? "
            "ORDER BY seq", (match_id,)))


def _start_fields(data: dict[str, Any]) -> dict[str, Any]:
    """A stored start state, as GameState.from_dict reads it."""
    return {k: v for k, v in data.items() if k != "respot_targets" or v}
