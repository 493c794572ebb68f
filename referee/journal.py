"""The match journal: every verdict written to SQLite (WAL) the moment it is made.

A run that stops or crashes is continued with ``--resume``: the recorded entries are read back (the
verdicts as recorded, not judged again) and the run goes on after the last shot it has, so no shot
is lost or counted twice. A human referee's undo and score corrections are entries too; an undone
verdict is withdrawn (kept, marked) and its shot is judged again on the next resume, with the
operator's overrides of it applied (``override`` entries: its call or facts changed, see
:mod:`referee.overrides`).

The file is a format of its own (``PRAGMA user_version``, see :data:`SCHEMA_VERSION`):
- version 0: the first journals (no version written): ``matches`` and ``entries``;
- version 1: a run's lease on its match (``matches.lease_pid/lease_host/lease_at``); on
  ``entries``, ``undone_by`` (the seq of the undo that withdrew the entry), ``void`` (why a row is
  not part of the match: a second verdict for one shot, written by two runs at once before
  version 1) and ``left_out_json`` (what of a camera's facts was left out); and the unique index
  ``one_verdict_per_shot``: a match holds at most one standing verdict per shot key;
- version 2: ``override`` entries (an operator's override of an undone shot, see
  :mod:`referee.overrides`: its shot key, its reason in ``note``, what it changes in
  ``entries.override_json``).
A journal of an older version is migrated when it is opened for writing (one transaction, each
step in turn; no row is dropped); it is read as it is when opened read-only. One of a newer
version than this program knows is refused, before anything is written into it.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import socket
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from referee.errors import InputError
from referee.overrides import Override, apply_overrides
from rules import GameState, KaisaError, Match, RuleOptions, ShotEntry, ShotFacts, Verdict, judge

SCHEMA_VERSION = 2

SCHEMA = """
CREATE TABLE IF NOT EXISTS matches (
    id INTEGER PRIMARY KEY,
    source TEXT NOT NULL,          -- what was refereed (a file path, a camera)
    source_key TEXT NOT NULL,      -- identifies the same input again, for --resume
    rules_json TEXT NOT NULL,
    start_json TEXT NOT NULL,
    status TEXT NOT NULL,          -- running | finished
    created_at TEXT NOT NULL,
    lease_pid INTEGER,             -- the run refereeing it now (NULL: none)
    lease_host TEXT,
    lease_at TEXT
);
CREATE TABLE IF NOT EXISTS entries (
    match_id INTEGER NOT NULL REFERENCES matches(id),
    seq INTEGER NOT NULL,          -- order of entries within the match
    kind TEXT NOT NULL,            -- verdict | undo | correction | override
    shot_key TEXT,                 -- for verdicts: which shot of the source
    facts_json TEXT,
    verdict_json TEXT,
    score_json TEXT,               -- for corrections: the score set by hand
    note TEXT,
    created_at TEXT NOT NULL,
    left_out_json TEXT,            -- for verdicts: what of a camera's facts was left out
    undone_by INTEGER,             -- the seq of the undo that withdrew this entry
    void TEXT,                     -- why this row is not part of the match (NULL: it is)
    override_json TEXT,            -- for overrides: what it changes in its shot (version 2)
    PRIMARY KEY (match_id, seq)
);
"""
UNIQUE_SHOTS = ("CREATE UNIQUE INDEX IF NOT EXISTS one_verdict_per_shot ON entries "
                "(match_id, shot_key) WHERE kind = 'verdict' AND undone_by IS NULL "
                "AND void IS NULL")


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


class JournalError(InputError):
    """The journal file cannot be used as asked (a database fault, a newer format, a damaged
    row, a match another run holds): one line that names the file and what to do."""


class MatchHeld(JournalError):
    """Another run referees this match (or this input) now."""


def shot_number(shot_key: str | None) -> str:
    """``shot3`` -> ``shot 4`` (shots are counted from 1 where people read them)."""
    if shot_key and shot_key.startswith("shot") and shot_key[4:].isdigit():
        return f"shot {int(shot_key[4:]) + 1}"
    return f"shot {shot_key}" if shot_key else "an entry"


def shot_index(shot_key: str) -> int | None:
    return int(shot_key[4:]) if shot_key.startswith("shot") and shot_key[4:].isdigit() else None


def what_to_do(err: sqlite3.Error) -> str:
    """An SQLite fault as what happened and what to do about it."""
    text = str(err)
    low = text.lower()
    if "full" in low:
        return (f"the disk is full ({text}); free some space, then run again with --resume: "
                "every verdict journalled before this is kept")
    if "readonly" in low or "read-only" in low:
        return (f"the journal cannot be written ({text}); make the file and its folder "
                "writable, or give another file with --journal")
    if "locked" in low or "busy" in low:
        return (f"the journal is locked by another program ({text}); try again when it is "
                "done")
    if "malformed" in low or "not a database" in low or "corrupt" in low:
        return (f"the journal is damaged ({text}); keep a copy of it and check it with "
                "`sqlite3 FILE 'PRAGMA integrity_check'`, or give another file with --journal")
    if "unable to open" in low:
        return (f"cannot open the journal ({text}); expected a readable SQLite file in an "
                "existing folder")
    return f"SQLite error ({text}); expected a kaisa journal file"


@dataclass(frozen=True)
class Lease:
    pid: int
    host: str
    since: str

    def alive(self) -> bool:
        """Is the holder still running? A process on another host cannot be asked: it is."""
        if self.host != socket.gethostname():
            return True
        if self.pid == os.getpid():
            return False  # ours, left by an earlier run in this process
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True  # someone else's process
        except OverflowError:
            return False
        return not _a_zombie(self.pid)

    def describe(self) -> str:
        return f"pid {self.pid} on {self.host} (since {self.since})"


def _a_zombie(pid: int) -> bool:
    """The process has ended and waits only to be reaped (a killed worker whose parent died
    too, under a first process that reaps nothing, as in some containers): it holds nothing."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False  # (no /proc: not Linux; ask no further)
    return stat[stat.rfind(")") + 2:].startswith("Z")


@dataclass(frozen=True)
class MatchRecord:
    id: int
    source: str
    status: str
    created_at: str
    match: Match
    shot_keys: frozenset[str]  # the standing verdicts' shot keys (undone ones not)
    last_shot: int | None = None  # the index of the last standing verdict's shot
    left_out: tuple[tuple[str, ...], ...] = ()  # per standing verdict, in order
    entry_keys: tuple[str | None, ...] = ()  # per entry of ``match``: its shot key or None
    # the standing overrides of shots not judged again yet, in journal order
    overrides: tuple[JournalledOverride, ...] = ()


@dataclass(frozen=True)
class JournalledOverride:
    """An override entry: its seq, the shot it is for, its reason, what it changes."""

    seq: int
    shot_key: str
    note: str
    override: Override

    def describe(self) -> str:
        return f"the override of entry {self.seq} ({self.note or 'no reason given'})"


@dataclass(frozen=True)
class Claim:
    """A match a run now holds: its id, whether it was resumed, and what to tell the user."""

    match_id: int
    resumed: bool
    notices: tuple[str, ...] = ()


@dataclass(frozen=True)
class TimelineEntry:
    """One row of a match, as `kaisa journal show` lists it."""

    seq: int
    kind: str
    shot_key: str | None
    facts: ShotFacts | None
    verdict: Verdict | None
    score: tuple[int, int] | None
    note: str | None
    created_at: str
    undone_by: int | None
    void: str | None
    override: Override | None = None


P = ParamSpec("P")
T = TypeVar("T")


def _faults(method: Callable[P, T]) -> Callable[P, T]:
    """Every SQLite fault of a journal method as one JournalError naming the file."""

    @functools.wraps(method)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return method(*args, **kwargs)
        except sqlite3.Error as err:
            journal = args[0]
            assert isinstance(journal, Journal)
            raise JournalError(journal.explain(err), str(journal.path)) from None
    return wrapper


class Journal:
    """One SQLite file, many matches. Every write is its own committed transaction.
    ``readonly``: opened for reading only (``journal list``, ``show``, ``report``); nothing is
    written, not even a migration, and a file on read-only storage can be read."""

    def __init__(self, path: Path, *, readonly: bool = False) -> None:
        self.path = path
        self.readonly = readonly
        self.version = 0
        self._db: sqlite3.Connection | None = None
        try:
            if readonly:
                self._db = self._open_readonly(path)
                if not self._has_tables():
                    # a file a run made and was killed before it set it up: an empty journal
                    self._db.close()
                    self._db = sqlite3.connect(":memory:", isolation_level=None)
                    self._create_or_migrate()
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                self._db = sqlite3.connect(path, isolation_level=None, timeout=10.0)
            self.version = self._check_version()
            if not readonly:
                self._set_up_for_writing()
        except sqlite3.Error as err:
            self.close()
            raise JournalError(self.explain(err), str(path)) from None
        except OSError as err:
            self.close()
            raise JournalError(f"cannot open the journal ({err.strerror}); expected a writable "
                               "SQLite file in a folder that can be made", str(path)) from None
        except JournalError:
            self.close()
            raise

    def _set_up_for_writing(self, wait_s: float = 10.0) -> None:
        """WAL, full syncs, the schema made or migrated. Two runs opening a new journal at once
        may find it locked without SQLite's wait (switching to WAL wants the file alone):
        tried again for ``wait_s``."""
        deadline = time.monotonic() + wait_s
        while True:
            try:
                self.db.execute("PRAGMA journal_mode=WAL")
                self.db.execute("PRAGMA synchronous=FULL")  # a verdict survives a pulled cable
                self._create_or_migrate()
                return
            except sqlite3.OperationalError as err:
                if "locked" not in str(err).lower() or time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    @property
    def db(self) -> sqlite3.Connection:
        assert self._db is not None
        return self._db

    def explain(self, err: sqlite3.Error) -> str:
        return what_to_do(err)

    @staticmethod
    def _open_readonly(path: Path) -> sqlite3.Connection:
        if not path.is_file():
            raise JournalError("no journal here (expected the SQLite file `kaisa referee` "
                               "writes; see --journal)", str(path))
        uri = path.absolute().as_uri()
        db = sqlite3.connect(f"{uri}?mode=ro", uri=True, isolation_level=None, timeout=10.0)
        try:
            db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
            return db
        except sqlite3.OperationalError:
            # A WAL journal in a read-only folder with no -shm file: read it as it is on disk.
            db.close()
            return sqlite3.connect(f"{uri}?mode=ro&immutable=1", uri=True,
                                   isolation_level=None)

    def _check_version(self) -> int:
        (version,) = self.db.execute("PRAGMA user_version").fetchone()
        if version > SCHEMA_VERSION:
            raise JournalError(
                f"the journal is of schema version {version}, newer than this kaisa reads "
                f"({SCHEMA_VERSION}); use a newer kaisa, or give another file with --journal",
                str(self.path))
        return int(version)

    def _has_tables(self) -> bool:
        (count,) = self.db.execute("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' "
                                   "AND name IN ('matches', 'entries')").fetchone()
        return bool(count == 2)

    def _create_or_migrate(self) -> None:
        if self.version == SCHEMA_VERSION:
            return
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            version = self._check_version()  # another process may have done it meanwhile
            if version < SCHEMA_VERSION:
                if self._has_tables():
                    if version < 1:
                        _migrate_0_to_1(db)
                    if version < 2:
                        _migrate_1_to_2(db)
                else:
                    for statement in SCHEMA.split(";"):
                        if statement.strip():
                            db.execute(statement)
                    db.execute(UNIQUE_SHOTS)
                db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        self.version = SCHEMA_VERSION

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """BEGIN IMMEDIATE ... COMMIT (ROLLBACK on any error): all of it or nothing."""
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise

    # --- writing ------------------------------------------------------------------------------
    @_faults
    def start_match(self, source: str, key: str, options: RuleOptions, start: GameState) -> int:
        """A new running match, held by no run (see :meth:`claim` for a run's own)."""
        with self._transaction() as db:
            return self._insert_match(db, source, key, options, start, lease=False)

    def _insert_match(self, db: sqlite3.Connection, source: str, key: str,
                      options: RuleOptions, start: GameState, *, lease: bool) -> int:
        pid, host, at = (os.getpid(), socket.gethostname(), _now()) if lease else (None,) * 3
        cur = db.execute(
            "INSERT INTO matches (source, source_key, rules_json, start_json, status, created_at,"
            " lease_pid, lease_host, lease_at) VALUES (?, ?, ?, ?, 'running', ?, ?, ?, ?)",
            (source, key, json.dumps(options.to_dict()), json.dumps(start.to_dict()), _now(),
             pid, host, at))
        assert cur.lastrowid is not None
        return cur.lastrowid

    @_faults
    def claim(self, source: str, key: str, options: RuleOptions, start: GameState, *,
              resume: bool) -> Claim:
        """The match this run referees, held by it (a lease: this process's id and host) until
        :meth:`release`: with ``resume`` the input's unfinished match, else (or when there is
        none) a new one. Refused (MatchHeld) when a live run holds the input's unfinished
        match; a lease whose process is gone (on this host) is taken over. One transaction."""
        notices: list[str] = []
        with self._transaction() as db:
            row = db.execute(
                "SELECT id, lease_pid, lease_host, lease_at FROM matches WHERE source_key = ? "
                "AND status = 'running' ORDER BY id DESC LIMIT 1", (key,)).fetchone()
            if row is not None:
                previous, lease = int(row[0]), _lease(row[1:])
                if lease is not None and lease.alive():
                    raise MatchHeld(
                        f"match {previous} of this input is being refereed by another run, "
                        f"{lease.describe()}; wait for it to end (or stop that process), then "
                        "run again with --resume (a process there that is not kaisa: `kaisa "
                        f"journal release {previous}`)", str(self.path))
                if lease is not None and resume and lease.pid != os.getpid():
                    notices.append(f"kaisa: match {previous}: the run that held it "
                                   f"({lease.describe()}) is gone; taken over")
                if resume:
                    db.execute("UPDATE matches SET lease_pid = ?, lease_host = ?, lease_at = ? "
                               "WHERE id = ?", (os.getpid(), socket.gethostname(), _now(),
                                                previous))
                    return Claim(previous, True, tuple(notices))
                notices.append(f"kaisa: match {previous} of this input was not finished; "
                               "use --resume to continue it")
            elif resume:
                notices.append("kaisa: nothing to resume for this input; starting a new match")
            match_id = self._insert_match(db, source, key, options, start, lease=True)
            return Claim(match_id, False, tuple(notices))

    @_faults
    def release(self, match_id: int, *, anyone: bool = False) -> None:
        """Give the match up (this process's lease; ``anyone``: whoever holds it)."""
        mine = "" if anyone else " AND lease_pid = ? AND lease_host = ?"
        args: tuple[Any, ...] = () if anyone else (os.getpid(), socket.gethostname())
        with self._transaction() as db:
            db.execute("UPDATE matches SET lease_pid = NULL, lease_host = NULL, lease_at = NULL"
                       f" WHERE id = ?{mine}", (match_id, *args))

    @_faults
    def release_process(self, pid: int) -> list[int]:
        """Free the matches a process of this host held, one that is known to be gone (a
        worker of ``--jobs`` that died): their ids. They are kept as journalled, running, to be
        continued with --resume."""
        if self.version < 1:
            return []
        host = socket.gethostname()
        with self._transaction() as db:
            held = [int(r[0]) for r in db.execute(
                "SELECT id FROM matches WHERE lease_pid = ? AND lease_host = ? ORDER BY id",
                (pid, host))]
            db.execute("UPDATE matches SET lease_pid = NULL, lease_host = NULL, lease_at = NULL"
                       " WHERE lease_pid = ? AND lease_host = ?", (pid, host))
        return held

    @_faults
    def holder(self, match_id: int) -> Lease | None:
        if self.version < 1:
            return None
        row = self.db.execute("SELECT lease_pid, lease_host, lease_at FROM matches WHERE id = ?",
                              (match_id,)).fetchone()
        if row is None:
            raise JournalError(f"no match {match_id} in the journal", str(self.path))
        return _lease(row)

    @_faults
    def record_verdict(self, match_id: int, shot_key: str, facts: ShotFacts,
                       verdict: Verdict, left_out: list[str] | None = None) -> None:
        """The verdict, and (a winning one) the match's finished status: one transaction."""
        with self._transaction() as db:
            try:
                self._append(db, match_id, "verdict", shot_key=shot_key,
                             facts_json=json.dumps(facts.to_dict()),
                             verdict_json=json.dumps(verdict.to_dict()),
                             left_out_json=json.dumps(left_out) if left_out else None)
            except sqlite3.IntegrityError:
                raise JournalError(
                    f"match {match_id} already has a verdict for {shot_number(shot_key)} "
                    "(another run judged it); nothing was written: see `kaisa journal show "
                    f"{match_id}`", str(self.path)) from None
            if verdict.winner is not None:
                db.execute("UPDATE matches SET status = 'finished' WHERE id = ?", (match_id,))

    @_faults
    def record_undo(self, match_id: int, note: str) -> None:
        """Withdraw the match's last entry (a verdict's shot is then judged again on resume);
        the match is running again (an undone winning shot reopens it)."""
        with self._transaction() as db:
            self._refuse_if_held(db, match_id)
            standing = self._standing(db, match_id)
            if not standing:
                raise JournalError(f"match {match_id} has nothing to undo", str(self.path))
            seq = self._append(db, match_id, "undo", note=note)
            last_seq, _ = standing[-1]
            db.execute("UPDATE entries SET undone_by = ? WHERE match_id = ? AND seq = ?",
                       (seq, match_id, last_seq))
            db.execute("UPDATE matches SET status = 'running' WHERE id = ?", (match_id,))

    @_faults
    def record_correction(self, match_id: int, score: tuple[int, int], note: str) -> None:
        with self._transaction() as db:
            self._refuse_if_held(db, match_id)
            record = self.load(match_id)  # refuses an unknown (or damaged) match
            status = "finished" if record.match.correct_score(score, "").state.winner else \
                "running"
            self._append(db, match_id, "correction", score_json=json.dumps(list(score)),
                         note=note)
            db.execute("UPDATE matches SET status = ? WHERE id = ?", (status, match_id))

    @_faults
    def record_override(self, match_id: int, override: Override, note: str,
                        shot: int | None = None) -> tuple[str, ShotFacts]:
        """Journal an override of an undone shot, to be applied when it is judged again
        (``shot``: its index; default the next shot to be judged again). Refused, nothing
        written, when the match has no such shot, or when the override cannot be applied to
        the shot's facts as journalled (or, for the next shot, the rules cannot judge them
        from the state before it). The shot key and the facts it would now be judged from."""
        with self._transaction() as db:
            self._refuse_if_held(db, match_id)
            record = self.load(match_id)  # refuses an unknown (or damaged) match
            after = record.last_shot if record.last_shot is not None else -1
            undone: dict[str, ShotFacts] = {}  # the shots to be judged again: last facts
            for entry in self.timeline(match_id):
                index = shot_index(entry.shot_key or "")
                if (entry.kind == "verdict" and entry.undone_by is not None and entry.void is None
                        and entry.facts is not None and index is not None and index > after):
                    undone[str(entry.shot_key)] = entry.facts
            where = f"match {match_id}"
            if not undone:
                raise JournalError(
                    f"{where} has no undone shot to override (an override changes a shot that "
                    f"is judged again: first `kaisa journal undo {match_id}` its verdict)",
                    str(self.path))
            order = sorted(undone, key=lambda k: shot_index(k) or 0)
            key = order[0] if shot is None else f"shot{shot}"
            if key not in undone:
                raise JournalError(
                    f"{shot_number(key)} of {where} is not an undone shot to be judged again "
                    f"(those are: {', '.join(map(shot_number, order))})", str(self.path))
            earlier = [o.override for o in record.overrides if o.shot_key == key]
            state = record.match.state
            try:
                applied = apply_overrides(undone[key], [*earlier, override], state.table)
                if applied.not_applied:
                    raise KaisaError("; ".join(applied.not_applied))
                if key == order[0]:  # judged from the state before it: known
                    judge(state, applied.facts)
            except KaisaError as err:
                raise JournalError(f"the override cannot be applied to {shot_number(key)} of "
                                   f"{where}: {err}; nothing was written", str(self.path)
                                   ) from None
            self._append(db, match_id, "override", shot_key=key, note=note,
                         override_json=json.dumps(override.to_dict()))
            return key, applied.facts

    @_faults
    def set_status(self, match_id: int, status: str) -> None:
        with self._transaction() as db:
            db.execute("UPDATE matches SET status = ? WHERE id = ?", (status, match_id))

    def _refuse_if_held(self, db: sqlite3.Connection, match_id: int) -> None:
        row = db.execute("SELECT lease_pid, lease_host, lease_at FROM matches WHERE id = ?",
                         (match_id,)).fetchone()
        if row is None:
            raise JournalError(f"no match {match_id} in the journal", str(self.path))
        lease = _lease(row)
        if lease is not None and lease.alive():
            raise MatchHeld(f"match {match_id} is being refereed by {lease.describe()}; wait "
                            "for that run to end, then try again", str(self.path))

    def _standing(self, db: sqlite3.Connection, match_id: int) -> list[tuple[int, str]]:
        """(seq, kind) of the entries that stand (not undone, not void), oldest first."""
        standing: list[tuple[int, str]] = []
        for seq, kind in db.execute(
                "SELECT seq, kind FROM entries WHERE match_id = ? AND void IS NULL ORDER BY seq",
                (match_id,)):
            if kind == "undo":
                if standing:
                    standing.pop()
            else:
                standing.append((int(seq), str(kind)))
        return standing

    @staticmethod
    def _append(db: sqlite3.Connection, match_id: int, kind: str, **fields: Any) -> int:
        """Insert an entry (inside the caller's transaction); its seq."""
        columns = ["match_id", "seq", "kind", "created_at", *fields]
        (seq,) = db.execute("SELECT COALESCE(MAX(seq), -1) + 1 FROM entries WHERE match_id = ?",
                            (match_id,)).fetchone()
        db.execute(f"INSERT INTO entries ({', '.join(columns)}) "
                   f"VALUES ({', '.join('?' for _ in columns)})",
                   (match_id, seq, kind, _now(), *fields.values()))
        return int(seq)

    # --- reading ------------------------------------------------------------------------------
    @_faults
    def matches(self) -> list[tuple[int, str, str, str]]:
        """(id, source, status, created_at) of every match, oldest first."""
        if not self._has_tables():
            return []
        return list(self.db.execute(
            "SELECT id, source, status, created_at FROM matches ORDER BY id"))

    @_faults
    def latest_unfinished(self, key: str) -> int | None:
        row = self.db.execute(
            "SELECT id FROM matches WHERE source_key = ? AND status = 'running' "
            "ORDER BY id DESC LIMIT 1", (key,)).fetchone()
        return None if row is None else int(row[0])

    @_faults
    def latest_finished(self, key: str) -> int | None:
        """The input's last match when it is finished, or ended (its input refereed to the end
        without a winner), none running after it; else None."""
        row = self.db.execute("SELECT id, status FROM matches WHERE source_key = ? "
                              "ORDER BY id DESC LIMIT 1", (key,)).fetchone()
        return int(row[0]) if row is not None and row[1] in ("finished", "ended") else None

    @_faults
    def last_match_id(self) -> int:
        row = self.db.execute("SELECT MAX(id) FROM matches").fetchone() \
            if self._has_tables() else None
        if row is None or row[0] is None:
            raise JournalError("the journal holds no match yet", str(self.path))
        return int(row[0])

    @_faults
    def load(self, match_id: int) -> MatchRecord:
        """The match rebuilt from its entries (recorded verdicts, undos, corrections). A row
        that cannot be read raises JournalError naming the match, the shot and the entry."""
        row = self.db.execute(
            "SELECT source, rules_json, start_json, status, created_at FROM matches WHERE id = ?",
            (match_id,)).fetchone() if self._has_tables() else None
        if row is None:
            raise JournalError(f"no match {match_id} in the journal", str(self.path))
        source, rules_json, start_json, status, created = row
        try:
            options = RuleOptions.from_mapping(json.loads(rules_json))
            start = GameState.from_dict(_start_fields(json.loads(start_json)), options)
        except (ValueError, TypeError, KeyError, KaisaError) as err:
            raise self._damaged(match_id, None, None, err) from None
        match = Match(start)
        # the entries that stand, oldest first (an undo withdraws the last of them: a verdict,
        # a correction or an override); overrides are not entries of ``match``
        stack: list[TimelineEntry] = []
        for entry in self.timeline(match_id):
            if entry.void is not None:
                continue
            try:
                if entry.kind == "verdict":
                    assert entry.facts is not None and entry.verdict is not None
                    if match.state.winner is not None:
                        raise ValueError("a verdict after the match was won")
                    match = match.record(entry.facts, entry.verdict)
                    stack.append(entry)
                elif entry.kind == "undo":
                    if stack and stack.pop().kind != "override":
                        match = match.undo()
                elif entry.kind == "correction":
                    assert entry.score is not None
                    match = match.correct_score(entry.score, entry.note or "")
                    stack.append(entry)
                elif entry.kind == "override":
                    if entry.override is None or entry.shot_key is None:
                        raise ValueError("an override without its shot or its content")
                    stack.append(entry)
                else:
                    raise ValueError(f"unknown entry kind {entry.kind!r}")
            except (ValueError, TypeError, KeyError, KaisaError) as err:
                raise self._damaged(match_id, entry.shot_key, entry.seq, err) from None
        keys = [e.shot_key if e.kind == "verdict" else None for e in stack
                if e.kind != "override"]
        standing = [k for k in keys if k is not None]
        indices = [i for i in map(shot_index, standing) if i is not None]
        overrides = tuple(JournalledOverride(e.seq, e.shot_key, e.note or "", e.override)
                          for e in stack if e.kind == "override" and e.override is not None
                          and e.shot_key is not None and e.shot_key not in standing)
        return MatchRecord(match_id, source, status, created, match, frozenset(standing),
                           max(indices) if indices else None, self._left_out(match_id, standing),
                           tuple(keys), overrides)

    def _left_out(self, match_id: int, keys: list[str]) -> tuple[tuple[str, ...], ...]:
        if self.version < 1 or not keys:
            return tuple(() for _ in keys)
        found: dict[str, tuple[str, ...]] = {}
        for key, text in self.db.execute(
                "SELECT shot_key, left_out_json FROM entries WHERE match_id = ? AND kind = "
                "'verdict' AND undone_by IS NULL AND void IS NULL", (match_id,)):
            try:
                found[key] = tuple(json.loads(text)) if text else ()
            except (ValueError, TypeError):
                found[key] = ()  # a note for the report only: not worth refusing the match
        return tuple(found.get(k, ()) for k in keys)

    def _damaged(self, match_id: int, shot_key: str | None, seq: int | None,
                 err: Exception) -> JournalError:
        where = "its start (rules or start state)" if seq is None else \
            f"{shot_number(shot_key)} (entry {seq})"
        return JournalError(f"match {match_id} is damaged at {where}: {err}; the other matches "
                            "are not affected; keep a copy of the file before any repair",
                            str(self.path))

    @_faults
    def timeline(self, match_id: int) -> list[TimelineEntry]:
        """Every entry of the match in order, undone and void ones too (``journal show``)."""
        extra = "undone_by, void" if self.version >= 1 else "NULL, NULL"
        extra += ", override_json" if self.version >= 2 else ", NULL"
        rows = list(self.db.execute(
            "SELECT seq, kind, shot_key, facts_json, verdict_json, score_json, note, created_at,"
            f" {extra} FROM entries WHERE match_id = ? ORDER BY seq", (match_id,)))
        out = []
        for (seq, kind, key, facts_json, verdict_json, score_json, note, created, undone, void,
             override_json) in rows:
            try:
                facts = verdict = score = override = None
                if kind == "verdict":
                    facts = ShotFacts.from_dict(json.loads(facts_json))
                    verdict = Verdict.from_dict(json.loads(verdict_json))
                elif kind == "correction":
                    a, b = json.loads(score_json)
                    score = (int(a), int(b))
                elif kind == "override":
                    override = Override.from_dict(json.loads(override_json))
            except (ValueError, TypeError, KeyError, KaisaError) as err:
                raise self._damaged(match_id, key, seq, err) from None
            out.append(TimelineEntry(int(seq), str(kind), key, facts, verdict, score, note,
                                     str(created), undone, void, override))
        return out

    @_faults
    def last_verdict(self, match_id: int) -> tuple[str, ShotFacts] | None:
        """The shot key and facts of the match's last standing verdict (an undone one is
        judged again, from the state before it); None before the first."""
        record = self.load(match_id)
        for entry, key in zip(reversed(record.match.entries), reversed(record.entry_keys),
                              strict=True):
            if key is not None and isinstance(entry, ShotEntry):
                return key, entry.facts
        return None

    @_faults
    def history(self, match_id: int) -> list[tuple[int, str, str | None, str | None, str]]:
        """(seq, kind, shot_key, note, created_at) of every entry, for `kaisa journal show`."""
        return list(self.db.execute(
            "SELECT seq, kind, shot_key, note, created_at FROM entries WHERE match_id = ? "
            "ORDER BY seq", (match_id,)))


def _lease(row: tuple[Any, ...]) -> Lease | None:
    pid, host, at = row
    return None if pid is None else Lease(int(pid), str(host), str(at))


def _migrate_0_to_1(db: sqlite3.Connection) -> None:
    """Version 0 -> 1 inside the caller's transaction: the new columns; each undone verdict
    marked by its undo; a second verdict for one shot (two runs at once) voided (kept, not
    counted; the first stands); then the unique index. No row is dropped."""
    for table, column in (("matches", "lease_pid INTEGER"), ("matches", "lease_host TEXT"),
                          ("matches", "lease_at TEXT"), ("entries", "left_out_json TEXT"),
                          ("entries", "undone_by INTEGER"), ("entries", "void TEXT")):
        db.execute(f"ALTER TABLE {table} ADD COLUMN {column}")
    rows = list(db.execute("SELECT match_id, seq, kind, shot_key FROM entries "
                           "ORDER BY match_id, seq"))
    by_match: dict[int, list[tuple[int, str, str | None]]] = {}
    for match_id, seq, kind, key in rows:
        by_match.setdefault(int(match_id), []).append((int(seq), str(kind), key))
    for match_id, entries in by_match.items():
        standing: list[tuple[int, str, str | None]] = []
        for seq, kind, key in entries:
            if kind == "undo":
                if standing:
                    last_seq = standing.pop()[0]
                    db.execute("UPDATE entries SET undone_by = ? WHERE match_id = ? AND seq = ?",
                               (seq, match_id, last_seq))
            elif kind == "verdict" and any(k == key for _, kd, k in standing
                                           if kd == "verdict"):
                first = next(s for s, kd, k in standing if kd == "verdict" and k == key)
                db.execute("UPDATE entries SET void = ? WHERE match_id = ? AND seq = ?",
                           (f"a second verdict for {shot_number(key)} (the first is entry "
                            f"{first}), written by two runs at once before schema version 1",
                            match_id, seq))
            else:
                standing.append((seq, kind, key))
    db.execute(UNIQUE_SHOTS)


def _migrate_1_to_2(db: sqlite3.Connection) -> None:
    """Version 1 -> 2 inside the caller's transaction: the column of override entries."""
    db.execute("ALTER TABLE entries ADD COLUMN override_json TEXT")


def _start_fields(data: dict[str, Any]) -> dict[str, Any]:
    """A stored start state, as GameState.from_dict reads it."""
    return {k: v for k, v in data.items() if k != "respot_targets" or v}
