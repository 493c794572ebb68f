"""The journal as a club can trust it (issue 50): one run owns a match at a time, one standing
verdict per shot, a finished match's reports rewritten without judging, undo then resume judges
the undone shot again, a schema version, and every database fault one line with exit code 2 and
nothing journalled lost. All on the demo's GAME record (no video): quick."""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from referee.cli import demo_game_path
from referee.gamefile import load_game
from referee.journal import SCHEMA_VERSION, Journal, JournalError, source_key
from tests.referee.conftest import run_cli as _run

ROOT = Path(__file__).resolve().parents[2]
DEMO = [v.to_dict() for _, _, v in load_game(demo_game_path()).judged()]
SHOTS = len(DEMO)
SHOT_LINE = re.compile(r"^\s*\d+:\d\d\.\d\d\s+shot\s+(\d+)", re.M)

# The schema of the first journals (no user_version): what a version-0 file holds.
SCHEMA_V0 = """
CREATE TABLE matches (id INTEGER PRIMARY KEY, source TEXT NOT NULL, source_key TEXT NOT NULL,
    rules_json TEXT NOT NULL, start_json TEXT NOT NULL, status TEXT NOT NULL,
    created_at TEXT NOT NULL);
CREATE TABLE entries (match_id INTEGER NOT NULL REFERENCES matches(id), seq INTEGER NOT NULL,
    kind TEXT NOT NULL, shot_key TEXT, facts_json TEXT, verdict_json TEXT, score_json TEXT,
    note TEXT, created_at TEXT NOT NULL, PRIMARY KEY (match_id, seq));
"""


def _one_line(err: str, *must_name: str) -> str:
    lines = err.strip("\n").splitlines()
    assert len(lines) == 1, f"expected one line on stderr, got:\n{err}"
    assert "Traceback" not in err
    for text in must_name:
        assert text in lines[0], f"{text!r} not in: {lines[0]}"
    return lines[0]


def _verdicts(path: Path, match_id: int = 1) -> list[dict[str, Any]]:
    with Journal(path, readonly=True) as j:
        return [v.to_dict() for v in j.load(match_id).match.verdicts]


def _rows(path: Path, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    with sqlite3.connect(path) as db:
        return list(db.execute(sql, args))


def _cli(*argv: str, journal: Path, prefix: tuple[str, ...] = ()) -> subprocess.Popen[str]:
    env = {**os.environ, "KAISA_JOURNAL": str(journal), "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([*prefix, sys.executable, "-m", "referee.cli", *argv], cwd=ROOT,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _unused_pid() -> int:
    """A process id no process can have (above the kernel's pid_max)."""
    try:
        return int(Path("/proc/sys/kernel/pid_max").read_text()) + 1
    except OSError:
        return 4_194_305


def _lease(path: Path, match_id: int, pid: int) -> None:
    import socket

    with sqlite3.connect(path) as db:
        db.execute("UPDATE matches SET lease_pid = ?, lease_host = ?, lease_at = '2026-01-01' "
                   "WHERE id = ?", (pid, socket.gethostname(), match_id))


def _unfinished_match(path: Path, game: Path) -> None:
    """Match 1 of ``game``, started and held by no run (as a killed run leaves it, minus the
    lease)."""
    g = load_game(game)
    with Journal(path) as j:
        j.start_match(str(g.path), source_key(g.path), g.options, g.start)


# --- 1. one owner per match ------------------------------------------------------------------
def test_two_resumes_started_together_exactly_one_proceeds(journal_path: Path, game: Path):
    _unfinished_match(journal_path, game)
    procs = [_cli("referee", str(game), "--resume", "--pace", "0.3", journal=journal_path)
             for _ in range(2)]
    results = [(p, *p.communicate(timeout=60)) for p in procs]
    codes = sorted(p.returncode for p, _, _ in results)
    assert codes == [0, 2], [(p.returncode, err) for p, _, err in results]
    (winner, out, _), = [r for r in results if r[0].returncode == 0]
    (_, judged_nothing, refused), = [r for r in results if r[0].returncode == 2]
    _one_line(refused, str(journal_path), "match 1", f"pid {winner.pid}", "--resume")
    assert not SHOT_LINE.search(judged_nothing)
    assert len(SHOT_LINE.findall(out)) == SHOTS
    assert _verdicts(journal_path) == DEMO
    assert _rows(journal_path, "SELECT COUNT(*) FROM matches") == [(1,)]
    assert _rows(journal_path, "SELECT status, lease_pid FROM matches") == [("finished", None)]


def test_a_held_match_refuses_another_run_and_the_operators_writes(journal_path: Path,
                                                                   game: Path, capsys):
    """The input's unfinished match is held by a live process (this test's parent): a new run
    on the same input, with or without --resume, and undo / correct on it are refused."""
    _unfinished_match(journal_path, game)
    holder = os.getppid()
    _lease(journal_path, 1, holder)
    for argv in (["referee", str(game)], ["referee", str(game), "--resume"],
                 ["journal", "undo", "1"], ["journal", "correct", "1", "--score", "1:2"]):
        code, out, err = _run(capsys, *argv)
        assert code == 2, argv
        _one_line(err, str(journal_path), "match 1", f"pid {holder}")
        assert not SHOT_LINE.search(out)
    assert _rows(journal_path, "SELECT COUNT(*) FROM matches") == [(1,)]
    assert _rows(journal_path, "SELECT COUNT(*) FROM entries") == [(0,)]
    # `journal list` shows who holds it; `journal release` frees it (a run known to be gone)
    code, out, _ = _run(capsys, "journal", "list")
    assert code == 0 and f"being refereed: pid {holder}" in out
    assert _run(capsys, "journal", "release", "1")[0] == 0
    assert _run(capsys, "referee", str(game), "--resume")[0] == 0
    assert _verdicts(journal_path) == DEMO


def test_a_stale_lease_is_taken_over(journal_path: Path, game: Path, capsys):
    _unfinished_match(journal_path, game)
    gone = _unused_pid()
    _lease(journal_path, 1, gone)
    code, _out, err = _run(capsys, "referee", str(game), "--resume")
    assert code == 0, err
    assert f"pid {gone}" in err and "taken over" in err
    assert _verdicts(journal_path) == DEMO
    assert _rows(journal_path, "SELECT lease_pid FROM matches") == [(None,)]  # released


def test_a_killed_run_leaves_a_lease_that_resume_takes_over(journal_path: Path, game: Path):
    proc = _cli("referee", str(game), "--pace", "0.5", journal=journal_path)
    assert proc.stdout is not None
    while not SHOT_LINE.match(proc.stdout.readline()):
        pass
    proc.kill()
    proc.communicate(timeout=10)
    assert _rows(journal_path, "SELECT lease_pid FROM matches") == [(proc.pid,)]
    done = _cli("referee", str(game), "--resume", journal=journal_path)
    _out, err = done.communicate(timeout=60)
    assert done.returncode == 0, err
    assert "taken over" in err
    assert _verdicts(journal_path) == DEMO


def test_the_journal_holds_one_standing_verdict_per_shot(journal_path: Path, game: Path,
                                                         capsys):
    assert _run(capsys, "referee", str(game))[0] == 0
    copy = ("INSERT INTO entries (match_id, seq, kind, shot_key, facts_json, verdict_json, "
            "created_at) SELECT match_id, 100, kind, shot_key, facts_json, verdict_json, "
            "created_at FROM entries WHERE match_id = 1 AND shot_key = 'shot3'")
    with pytest.raises(sqlite3.IntegrityError, match="UNIQUE"), sqlite3.connect(journal_path) as db:
        db.execute(copy)
    # through the journal: one line, nothing written
    with Journal(journal_path) as j:
        entry = j.load(1).match.entries[3]
        with pytest.raises(JournalError, match="already has a verdict for shot 4"):
            j.record_verdict(1, "shot3", entry.facts, entry.verdict)  # type: ignore[union-attr]
    assert _rows(journal_path, "SELECT COUNT(*) FROM entries") == [(SHOTS,)]
    # an undone verdict no longer stands: its shot may be judged again
    assert _run(capsys, "journal", "undo", "1")[0] == 0
    with sqlite3.connect(journal_path) as db:
        db.execute(copy.replace("shot3", f"shot{SHOTS - 1}"))


# --- 3. atomic finishes; reports from the journal --------------------------------------------
def test_resume_on_a_finished_match_rewrites_the_reports_without_judging(
        journal_path: Path, game: Path, tmp_path: Path, capsys):
    first = (tmp_path / "first.json", tmp_path / "first.html")
    again = (tmp_path / "again.json", tmp_path / "again.html")
    code, _, _ = _run(capsys, "referee", str(game), "-o", str(first[0]), "--html", str(first[1]))
    assert code == 0
    assert _rows(journal_path, "SELECT status FROM matches") == [("finished",)]
    code, out, err = _run(capsys, "referee", str(game), "--resume", "-o", str(again[0]),
                          "--html", str(again[1]))
    assert code == 0, err
    assert not SHOT_LINE.search(out)
    assert out == "" and err.count("\n") == 3  # the notice, then the two reports written
    assert "match 1 of this input is finished" in err
    assert _rows(journal_path, "SELECT COUNT(*) FROM matches") == [(1,)]
    assert _rows(journal_path, "SELECT COUNT(*) FROM entries") == [(SHOTS,)]

    def content(path: Path) -> dict[str, Any]:
        report = json.loads(path.read_text())
        report.pop("timings")
        return report

    assert content(again[0]) == content(first[0])
    assert len(content(first[0])["shots"]) == SHOTS
    html = [re.sub(r"[\d.]+\s*s\b", "", p.read_text()) for p in (first[1], again[1])]
    assert html[0] == html[1]
    # the same for any match, by its id
    report = tmp_path / "by_id.json"
    assert _run(capsys, "journal", "report", "1", "-o", str(report))[0] == 0
    assert content(report) == content(first[0])


def test_the_winning_verdict_and_the_finished_status_are_one_write(journal_path: Path,
                                                                   game: Path, capsys,
                                                                   monkeypatch):
    """A fault at the status update (after the winning verdict's insert, same transaction):
    neither is written, so the match is not left with a winner but running."""
    real = Journal._transaction

    def failing_transaction(self: Journal) -> Any:
        import contextlib

        @contextlib.contextmanager
        def wrapped() -> Iterator[sqlite3.Connection]:
            with real(self) as db:
                yield _FailOnFinish(db)
        return wrapped()

    with monkeypatch.context() as patched:
        patched.setattr(Journal, "_transaction", failing_transaction)
        code, _, err = _run(capsys, "referee", str(game))
    assert code == 2
    _one_line(err, str(journal_path), "disk is full", "--resume")
    assert _verdicts(journal_path) == DEMO[:-1]
    assert _rows(journal_path, "SELECT status FROM matches") == [("running",)]
    assert _run(capsys, "referee", str(game), "--resume")[0] == 0
    assert _verdicts(journal_path) == DEMO
    assert _rows(journal_path, "SELECT status FROM matches") == [("finished",)]


class _FailOnFinish:
    """A connection that fails the statement marking a match finished."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
        if "status = 'finished'" in sql:
            raise sqlite3.OperationalError("database or disk is full")
        return self._db.execute(sql, *args)


# --- 2. undo then resume ----------------------------------------------------------------------
def test_undo_then_resume_judges_the_undone_shots_again(journal_path: Path, game: Path, capsys):
    assert _run(capsys, "referee", str(game))[0] == 0
    assert _run(capsys, "journal", "undo", "--reason", "the carom was not seen")[0] == 0
    assert _run(capsys, "journal", "undo", "--reason", "R1 stayed on the lip")[0] == 0
    # the winning shot undone: the match is open again
    assert _rows(journal_path, "SELECT status FROM matches") == [("running",)]
    code, out, _ = _run(capsys, "journal", "show")
    assert code == 0
    numbers = [int(n) for n in SHOT_LINE.findall(out)]
    assert numbers == list(range(1, SHOTS + 1))  # every shot under its own number
    assert out.count("[undone]") == 2
    lines = out.splitlines()
    undo_lines = [k for k, line in enumerate(lines) if line.lstrip().startswith("undo ")]
    assert len(undo_lines) == 2 and undo_lines[0] == len(lines) - 3  # in place, after the shots
    assert "(the carom was not seen)" in lines[undo_lines[0]]
    assert "(R1 stayed on the lip)" in lines[undo_lines[1]]

    code, out, err = _run(capsys, "referee", str(game), "--resume")
    assert code == 0
    assert f"{SHOTS - 2} shots already recorded" in err
    assert [int(n) for n in SHOT_LINE.findall(out)] == [SHOTS - 1, SHOTS]
    assert _verdicts(journal_path) == DEMO  # the same as the straight run: no turn lost
    assert _rows(journal_path, "SELECT status FROM matches") == [("finished",)]


# --- 4. faults: one line, exit 2, nothing lost ------------------------------------------------
def test_disk_full_at_a_verdict_is_one_line_and_keeps_the_earlier_ones(
        journal_path: Path, game: Path, capsys, monkeypatch):
    real = Journal._append
    written: list[str] = []

    def append(db: sqlite3.Connection, match_id: int, kind: str, **fields: Any) -> int:
        if kind == "verdict" and len(written) == 4:
            raise sqlite3.OperationalError("database or disk is full")
        written.append(kind)
        return real(db, match_id, kind, **fields)

    with monkeypatch.context() as patched:
        patched.setattr(Journal, "_append", staticmethod(append))
        code, out, err = _run(capsys, "referee", str(game))
    assert code == 2
    _one_line(err, str(journal_path), "disk is full", "free some space", "--resume")
    assert len(SHOT_LINE.findall(out)) == 4
    assert _verdicts(journal_path) == DEMO[:4]
    assert _rows(journal_path, "SELECT status, lease_pid FROM matches") == [("running", None)]
    code, out, err = _run(capsys, "referee", str(game), "--resume")
    assert code == 0 and "4 shots already recorded" in err
    assert _verdicts(journal_path) == DEMO


def test_a_real_sqlite_full_is_one_line(journal_path: Path, game: Path, capsys, monkeypatch):
    """SQLite's own SQLITE_FULL: the file may not grow past its size when the run began."""
    real = Journal._create_or_migrate

    def capped(self: Journal) -> None:
        real(self)
        (pages,) = self.db.execute("PRAGMA page_count").fetchone()
        self.db.execute(f"PRAGMA max_page_count = {pages + 1}")

    _unfinished_match(journal_path, game)
    with monkeypatch.context() as patched:
        patched.setattr(Journal, "_create_or_migrate", capped)
        code, out, err = _run(capsys, "referee", str(game), "--resume")
    assert code == 2
    notice, error = err.splitlines(keepends=True)  # (notices are on stderr too)
    assert notice.startswith("kaisa: resuming match 1")
    _one_line(error, str(journal_path), "disk is full")
    judged = len(SHOT_LINE.findall(out))
    assert judged < SHOTS
    assert _verdicts(journal_path) == DEMO[:judged]
    assert _run(capsys, "referee", str(game), "--resume")[0] == 0
    assert _verdicts(journal_path) == DEMO


@pytest.fixture
def read_only_folder() -> Iterator[Path]:
    """A folder (world-readable, under /tmp) to make read-only; removed after."""
    folder = Path(tempfile.mkdtemp(prefix="kaisa-ro-"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        folder.chmod(0o755)
        for f in folder.iterdir():
            f.chmod(0o644)
        shutil.rmtree(folder)


def test_a_read_only_journal_can_be_listed_and_shown_but_not_refereed_into(
        journal_path: Path, game: Path, read_only_folder: Path, capsys):
    """Root writes read-only files: run as root without the capability to (setpriv)."""
    assert _run(capsys, "referee", str(game))[0] == 0
    shutil.copy(game, read_only_folder / game.name)
    journal = read_only_folder / "journal.sqlite"
    shutil.copy(journal_path, journal)
    journal.chmod(0o444)
    (read_only_folder / game.name).chmod(0o444)
    read_only_folder.chmod(0o555)
    prefix: tuple[str, ...] = ()
    if os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("running as root without setpriv: a read-only file is writable")
        prefix = ("setpriv", "--bounding-set=-dac_override,-dac_read_search")
    before = journal.read_bytes()

    def cli(*argv: str) -> tuple[int, str, str]:
        proc = _cli(*argv, journal=journal, prefix=prefix)
        out, err = proc.communicate(timeout=60)
        return proc.returncode, out, err

    code, out, err = cli("journal", "list")
    assert code == 0, err
    assert "finished" in out and f"{DEMO[-1]['score']['1']:3d}:" in out
    code, out, err = cli("journal", "show", "1")
    assert code == 0, err
    assert len(SHOT_LINE.findall(out)) == SHOTS
    code, out, err = cli("referee", str(read_only_folder / game.name))
    assert code == 2
    _one_line(err, str(journal), "--journal")
    assert not SHOT_LINE.search(out)
    assert journal.read_bytes() == before


def test_a_newer_schema_is_refused_before_anything_is_written(journal_path: Path, game: Path,
                                                              capsys):
    assert _run(capsys, "referee", str(game))[0] == 0
    with sqlite3.connect(journal_path) as db:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    for argv in (["journal", "list"], ["journal", "show"], ["referee", str(game)],
                 ["referee", str(game), "--resume"], ["journal", "undo"]):
        code, _, err = _run(capsys, *argv)
        assert code == 2, argv
        _one_line(err, str(journal_path), f"schema version {SCHEMA_VERSION + 1}", "newer")
    assert _rows(journal_path, "SELECT COUNT(*) FROM matches") == [(1,)]
    assert _rows(journal_path, "SELECT COUNT(*) FROM entries") == [(SHOTS,)]


def test_a_damaged_row_is_named_and_hides_no_other_match(journal_path: Path, game: Path,
                                                         tmp_path: Path, capsys):
    other = tmp_path / "other.game.json"
    other.write_text(game.read_text() + " ")  # another input: its own match
    assert _run(capsys, "referee", str(game))[0] == 0
    assert _run(capsys, "referee", str(other))[0] == 0
    with sqlite3.connect(journal_path) as db:
        db.execute("UPDATE entries SET verdict_json = '{\"shooter\": 1, ' "
                   "WHERE match_id = 1 AND shot_key = 'shot2'")
    code, out, err = _run(capsys, "journal", "list")
    assert code == 2
    _one_line(err, str(journal_path), "match 1", "shot 3")
    header, *lines = out.splitlines()
    assert header.split() == ["id", "started", "status", "score", "source"]
    assert len(lines) == 2
    assert "DAMAGED" in lines[0]
    final = DEMO[-1]["score"]
    assert re.search(rf"finished\s+{final['1']}:{final['2']}\s+{re.escape(str(other))}", lines[1])
    code, _, err = _run(capsys, "journal", "show", "1")
    assert code == 2
    _one_line(err, "match 1", "shot 3")
    assert _run(capsys, "journal", "show", "2")[0] == 0
    # resuming the damaged match's input: one line too
    with sqlite3.connect(journal_path) as db:
        db.execute("UPDATE matches SET status = 'running' WHERE id = 1")
    code, _, err = _run(capsys, "referee", str(game), "--resume")
    assert code == 2
    _one_line(err, "match 1", "shot 3")


def test_a_version_0_journal_is_migrated_and_its_duplicate_shots_voided(
        journal_path: Path, game: Path, tmp_path: Path, capsys):
    """A first-version journal where two runs at once judged shots 9-12 twice (issue 50):
    read as it is (read-only: not migrated), then migrated on the first write; no row lost."""
    assert _run(capsys, "referee", str(game))[0] == 0
    old = tmp_path / "old.sqlite"
    with sqlite3.connect(old) as db:
        db.executescript(SCHEMA_V0)
        db.execute(f"ATTACH '{journal_path}' AS new")
        db.execute("INSERT INTO matches SELECT id, source, source_key, rules_json, start_json, "
                   "status, created_at FROM new.matches")
        columns = "match_id, seq, kind, shot_key, facts_json, verdict_json, score_json, note, " \
                  "created_at"
        db.execute(f"INSERT INTO entries SELECT {columns} FROM new.entries")
        # the second run's verdicts, interleaved after the first run's
        db.execute(f"INSERT INTO entries SELECT match_id, seq + {SHOTS}, kind, shot_key, "
                   "facts_json, verdict_json, score_json, note, created_at FROM new.entries "
                   f"WHERE seq >= {SHOTS - 4}")
    assert _rows(old, "PRAGMA user_version") == [(0,)]
    code, out, err = _run(capsys, "journal", "list", "--journal", str(old))  # read-only
    assert code == 2 and "match 1" in err  # the doubled shots break the chain, said so
    assert _rows(old, "PRAGMA user_version") == [(0,)]
    with Journal(old) as j:  # opened for writing: migrated
        assert j.version == SCHEMA_VERSION
        assert [v.to_dict() for v in j.load(1).match.verdicts] == DEMO
    assert _rows(old, "PRAGMA user_version") == [(SCHEMA_VERSION,)]
    assert _rows(old, "SELECT COUNT(*) FROM entries") == [(SHOTS + 4,)]
    assert _rows(old, "SELECT COUNT(*) FROM entries WHERE void IS NOT NULL") == [(4,)]
    code, out, _ = _run(capsys, "journal", "show", "--journal", str(old))
    assert code == 0 and out.count("not counted") == 4
    assert len(SHOT_LINE.findall(out)) == SHOTS


def test_kills_at_seeded_points_then_resume_give_the_straight_run(journal_path: Path,
                                                                   game: Path):
    """SIGKILL after k shot lines (seeded k, and once after the last verdict, in the pace wait),
    then --resume: the verdicts of an uninterrupted run, one match, never a second one."""
    import random

    rng = random.Random(50)
    points = [*sorted(rng.sample(range(1, SHOTS), 3)), SHOTS]
    for k in points:
        journal_path.unlink(missing_ok=True)
        proc = _cli("referee", str(game), "--pace", "0.2", journal=journal_path)
        assert proc.stdout is not None
        seen = 0
        while seen < k:
            line = proc.stdout.readline()
            assert line, f"the run ended before {k} shots"
            seen += bool(SHOT_LINE.match(line))
        proc.kill()
        proc.communicate(timeout=10)
        done = _cli("referee", str(game), "--resume", journal=journal_path)
        out, err = done.communicate(timeout=60)
        assert done.returncode == 0, err
        assert _verdicts(journal_path) == DEMO, k
        assert _rows(journal_path, "SELECT COUNT(*), MIN(status) FROM matches") == \
            [(1, "finished")], k
        if k == SHOTS:
            assert "is finished" in err and not SHOT_LINE.search(out)


def test_a_file_that_is_not_a_journal_is_one_line_and_left_as_it_is(journal_path: Path,
                                                                     game: Path, capsys):
    rng = __import__("random").Random(7)
    junk = bytes(rng.randrange(256) for _ in range(3000))
    journal_path.write_bytes(junk)
    for argv in (["journal", "list"], ["journal", "show"], ["referee", str(game)],
                 ["referee", str(game), "--resume"]):
        code, out, err = _run(capsys, *argv)
        assert code == 2, argv
        _one_line(err, str(journal_path), "damaged", "--journal")
        assert not SHOT_LINE.search(out)
    assert journal_path.read_bytes() == junk


def _open_together(path: str, barrier: Any, k: int, out: Any) -> None:
    from rules import GameState, RuleOptions

    barrier.wait()
    try:
        with Journal(Path(path)) as journal:
            opts = RuleOptions()
            out.put(journal.start_match(f"input{k}", f"key{k}", opts, GameState(options=opts)))
    except JournalError as err:
        out.put(str(err))


def test_runs_opening_a_new_journal_at_once_all_open_it(tmp_path: Path):
    # (the processes of --jobs: switching a new file to WAL wants it alone, and SQLite says
    # "locked" at once rather than wait)
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    for attempt in range(3):
        path = tmp_path / f"j{attempt}.sqlite"
        barrier, out = ctx.Barrier(4), ctx.Queue()
        workers = [ctx.Process(target=_open_together, args=(str(path), barrier, k, out))
                   for k in range(4)]
        for w in workers:
            w.start()
        for w in workers:
            w.join(60)
        got = sorted(out.get(timeout=5) for _ in workers)
        assert got == [1, 2, 3, 4], got


def test_kills_at_two_dozen_seeded_random_times_then_resume_give_the_straight_run(
        journal_path: Path, game: Path, tmp_path: Path):
    """SIGKILL at 24 seeded random moments of a paced run (before the first verdict, between
    verdicts, in the pace wait, while the reports are written), then --resume: every time the
    verdicts of an uninterrupted run, one match finished, reports written whole."""
    import random
    import time

    rng = random.Random(5024)
    report = tmp_path / "r.json"
    for trial in range(24):
        for left in journal_path.parent.glob(journal_path.name + "*"):  # with its -wal, -shm
            left.unlink()
        report.unlink(missing_ok=True)
        proc = _cli("referee", str(game), "--pace", "0.1", "-o", str(report),
                    journal=journal_path)
        time.sleep(rng.uniform(0.2, 2.2))  # start-up, twelve verdicts 0.1 s apart, reports
        proc.kill()
        proc.communicate(timeout=10)
        done = _cli("referee", str(game), "--resume", "-o", str(report), journal=journal_path)
        _, err = done.communicate(timeout=60)
        assert done.returncode == 0, (trial, err)
        assert _verdicts(journal_path) == DEMO, trial
        assert _rows(journal_path, "SELECT COUNT(*), MIN(status) FROM matches") == \
            [(1, "finished")], trial
        assert json.loads(report.read_text())["final"]["score"] == DEMO[-1]["score"], trial
        assert not list(tmp_path.glob("*.tmp")), trial


@pytest.mark.parametrize("made", ["empty file", "WAL set, no tables"])
def test_a_journal_file_killed_before_its_set_up_reads_as_empty(journal_path: Path, game: Path,
                                                                 capsys, made: str):
    # a run killed as it made the file: listing finds no match, --resume referees from the start
    if made == "empty file":
        journal_path.write_bytes(b"")
    else:
        with sqlite3.connect(journal_path) as db:
            db.execute("PRAGMA journal_mode=WAL")
    code, out, err = _run(capsys, "journal", "list", "--journal", str(journal_path))
    assert code == 0 and "no match" in out + err
    code, out, err = _run(capsys, "referee", str(game), "--resume", "--journal",
                          str(journal_path))
    assert code == 0, err
    assert _verdicts(journal_path) == DEMO


def test_a_report_says_its_matchs_status(journal_path: Path, game: Path, tmp_path: Path,
                                         capsys):
    # a season read from reports needs it: finished (a winner), running (from the journal)
    report = tmp_path / "r.json"
    code, _, err = _run(capsys, "referee", str(game), "-o", str(report), "--journal",
                        str(journal_path))
    assert code == 0, err
    assert json.loads(report.read_text())["status"] == "finished"
    code, _, err = _run(capsys, "journal", "undo", "1", "--journal", str(journal_path))
    assert code == 0, err
    code, _, err = _run(capsys, "journal", "report", "1", "-o", str(report), "--journal",
                        str(journal_path))
    assert code == 0, err
    assert json.loads(report.read_text())["status"] == "running"
