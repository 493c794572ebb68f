"""Many inputs refereed by workers that never touch the journal: the executor-generic batch of
``kaisa referee --cluster`` (Dask's executor; a local process pool serves too).

Why the driver alone writes: the journal is one SQLite file, and SQLite must not be shared over
a network file system. So each input is one task. The driver claims the input's match in its
journal (a new one, or with ``--resume`` the unfinished one: the match id is known and the match
held, by the driver's lease, while the task runs) and sends the task what the journal has of it.
The worker referees into a scratch journal on its own disk, seeded with those rows, so the
judging code runs as it does in one process (same ids, same lines, same resume point). It sends
back the rows it added, the report and its lines, as data. The driver then writes the rows into
its journal (one transaction: all of a task's verdicts or none), writes the reports and prints
the lines, each prefixed with the input's name.

A task whose worker dies leaves nothing in the journal: it is run again from the same point (by
Dask: ``retries`` for an exception, the scheduler's ``allowed-failures`` for a death), then
reported as failed; a rerun with ``--resume`` continues from the last journalled point.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import os
import sqlite3
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TextIO

from referee.app import (
    ENDED,
    JobOutcome,
    RefereeJob,
    _finished_match,
    _test_hook_die,
    is_video,
    plural,
    rewrite_reports,
    run_job_safely,
    start_and_calls,
    write_reports,
)
from referee.errors import InputError
from referee.gamefile import load_game
from referee.journal import Journal, source_key
from rules import GameState, KaisaError, RuleOptions

Row = dict[str, Any]  # one SQLite row, column name -> value (plain data: sent between machines)


@dataclass(frozen=True)
class MatchSeed:
    """What a task starts from: the match the driver claimed for it. ``match`` and ``entries``
    are its rows as journalled (a resumed match: its entries so far; a new one: none)."""

    match_id: int
    resumed: bool
    match: Row
    entries: tuple[Row, ...] = ()


@dataclass(frozen=True)
class Task:
    """One input for a worker: the job (its paths as given, read from ``cwd``) and its seed."""

    job: RefereeJob
    seed: MatchSeed
    cwd: str


@dataclass(frozen=True)
class TaskResult:
    """What a worker sends back, as data: the entries it added to the match (in order) and the
    match's status after them, the report (None: none was made), its printed lines, how it
    ended (``error``: one line; ``internal``: not the input's fault) and the files it wrote
    itself (an annotated video)."""

    source: Path
    claimed: bool  # the worker got as far as claiming the match (else: failed before it)
    entries: tuple[Row, ...]
    status: str | None
    report: dict[str, Any] | None
    stdout: tuple[str, ...]
    stderr: tuple[str, ...]
    error: str | None = None
    internal: bool = False
    written: tuple[Path, ...] = ()


# --- the worker's side -------------------------------------------------------------------------
_ONE_AT_A_TIME = threading.Lock()  # (the folder and the printed lines are the process's)


def referee_task(task: Task) -> TaskResult:
    """A worker's whole task: referee one input into a scratch journal seeded with its match,
    and send back what was added. Runs in the driver's folder (the inputs' paths are as given:
    the worker must see them at the same place, a shared file system) with stdout and stderr
    captured, both the process's own: so one task at a time runs in a worker process (more
    threads would wait; start processes instead: ``dask worker --nworkers N --nthreads 1``)."""
    with _ONE_AT_A_TIME, tempfile.TemporaryDirectory(prefix="kaisa-task-") as scratch_dir, \
            _in_folder(task.cwd) as moved, _captured() as (out, err):
        scratch = Path(scratch_dir) / "journal.sqlite"
        report_path = Path(scratch_dir) / "report.json"
        _seeded(scratch, task.seed)
        job = replace(task.job, journal=scratch, output=report_path, html=None,
                      resume=task.seed.resumed)
        outcome = moved or _referee(job)
        entries, status = _added(scratch, task.seed)
        report = json.loads(report_path.read_text()) if report_path.is_file() else None
    said = f"report: {report_path}"
    return TaskResult(
        task.job.source, claimed=status is not None, entries=entries, status=status,
        report=report, stdout=tuple(_lines(out.getvalue())),
        stderr=tuple(line for line in _lines(err.getvalue()) if line != said),
        error=outcome.error, internal=outcome.internal,
        written=tuple(p for p in outcome.written if p != report_path))


def _referee(job: RefereeJob) -> JobOutcome:
    _test_hook_die(job)  # (a test's worker death; nothing else sets it)
    return run_job_safely(job)


@contextlib.contextmanager
def _in_folder(folder: str) -> Iterator[JobOutcome | None]:
    """Work in the driver's folder; a JobOutcome (failed) when this worker has no such folder."""
    before = os.getcwd()
    try:
        os.chdir(folder)
    except OSError as err:
        yield JobOutcome(Path(folder), internal=True, error=(
            f"the worker cannot work in the driver's folder {folder} ({err.strerror}); the "
            "workers must see the inputs and outputs at the same paths (a shared file system)"))
        return
    try:
        yield None
    finally:
        os.chdir(before)


@contextlib.contextmanager
def _captured() -> Iterator[tuple[io.StringIO, io.StringIO]]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        yield out, err


def _lines(text: str) -> Iterator[str]:
    """Printed text as lines; a line rewritten in place (a progress bar's ``\\r``) as its last
    state."""
    for line in text.splitlines():
        last = line.rsplit("\r", 1)[-1]
        if last.strip():
            yield last


def _seeded(scratch: Path, seed: MatchSeed) -> None:
    """The scratch journal with the seed's match in it (a resumed one: its rows, unheld), or,
    for a new match, with the ids below it taken: the worker's match gets the driver's id."""
    with Journal(scratch) as journal, _transaction(journal.db) as db:
        if seed.resumed:
            _insert(db, "matches", {**seed.match, "lease_pid": None, "lease_host": None,
                                    "lease_at": None})
            for entry in seed.entries:
                _insert(db, "entries", entry)
        elif seed.match_id > 1:  # a placeholder that nothing will take for its input
            _insert(db, "matches", {**seed.match, "id": seed.match_id - 1, "source_key": "",
                                    "status": "finished", "lease_pid": None,
                                    "lease_host": None, "lease_at": None})


def _added(scratch: Path, seed: MatchSeed) -> tuple[tuple[Row, ...], str | None]:
    """The rows the run added to the seed's match, and its status (None: no such match: the
    run stopped before it claimed it)."""
    with Journal(scratch, readonly=True) as journal:
        if seed.match_id not in [m for m, *_ in journal.matches()]:
            return (), None
        match, entries = _rows(journal, seed.match_id)
    start = max((int(e["seq"]) for e in seed.entries), default=-1)
    return tuple(e for e in entries if int(e["seq"]) > start), str(match["status"])


# --- the driver's side -------------------------------------------------------------------------
@dataclass(frozen=True)
class _Prepared:
    """A job as the driver sent it: its task and the claim's notices (said with its lines)."""

    index: int
    task: Task
    notices: tuple[str, ...]


def run_batch(jobs: Sequence[RefereeJob], executor: Executor,
              slots: Callable[[], int] | None = None, out: TextIO | None = None,
              err: TextIO | None = None) -> list[JobOutcome]:
    """Referee every job on ``executor`` (Dask's, or a local process pool), one task each, the
    journal and the reports written here alone as the tasks end; outcomes in input order. An
    input that fails (bad input, a worker that died after its retry) fails alone; a task whose
    end the executor itself garbled (see :func:`_lost_on_the_way`) is submitted once more.

    ``slots``: how many tasks to keep in flight (asked again as tasks end: workers may come and
    go); None: all at once. Dask blames a worker's death on every task the worker holds, queued
    ones too: with no more tasks in flight than the cluster has threads, a task seldom waits on
    a worker beside another, and one that kills its worker does not take innocent ones along."""
    out, err = out or sys.stdout, err or sys.stderr
    outcomes: dict[int, JobOutcome] = {}
    journals: dict[Path, Journal] = {}
    running: dict[Future[TaskResult], _Prepared] = {}
    sent_again: set[int] = set()  # the inputs whose task was submitted a second time
    waiting = list(enumerate(jobs))
    try:
        while waiting or running:
            limit = max(1, slots()) if slots is not None else len(jobs)
            while waiting and len(running) < limit:
                i, job = waiting.pop(0)
                if job.journal not in journals:
                    journals[job.journal] = Journal(job.journal)
                prepared = _prepare(i, job, journals[job.journal], out, err)
                if isinstance(prepared, JobOutcome):
                    outcomes[i] = prepared
                else:
                    running[executor.submit(referee_task, prepared.task)] = prepared
            if not running:
                continue
            done, _ = wait(list(running), return_when=FIRST_COMPLETED)
            for future in sorted(done, key=lambda f: running[f].index):
                prepared = running.pop(future)
                job = jobs[prepared.index]
                if _lost_on_the_way(future) and prepared.index not in sent_again:
                    # (nothing of it is journalled yet: running it again loses nothing and
                    # counts nothing twice)
                    sent_again.add(prepared.index)
                    running[executor.submit(referee_task, prepared.task)] = prepared
                    continue
                outcomes[prepared.index] = _taken_in(job, prepared, future,
                                                     journals[job.journal], out, err)
    except BaseException:  # (Ctrl-C): what is journalled stays; the rest is released
        for future, prepared in running.items():
            future.cancel()
            _give_back(journals[prepared.task.job.journal], prepared.task.seed)
        raise
    finally:
        for journal in journals.values():
            journal.close()
    return [outcomes[i] for i in range(len(jobs))]


def _prepare(index: int, job: RefereeJob, journal: Journal, out: TextIO,
             err: TextIO) -> _Prepared | JobOutcome:
    """Claim the job's match (a finished one with --resume: its reports written again, no
    task), or the input's error as its outcome."""
    prefix = f"[{job.source.name}] "
    try:
        finished = _finished_match(job) if job.resume else None
        if finished is not None:
            with _prefixed(prefix, out, err):
                written = rewrite_reports(job.journal, finished, job.output, job.html)
            return JobOutcome(job.source, written=written)
        options, start = _rules_and_start(job)
        claim = journal.claim(str(job.source), source_key(job.source), options, start,
                              resume=job.resume)
    except KaisaError as error:
        return JobOutcome(job.source, error=str(error))
    except OSError as error:
        return JobOutcome(job.source, error=f"{job.source}: cannot read it ({error.strerror})")
    match, entries = _rows(journal, claim.match_id)
    seed = MatchSeed(claim.match_id, claim.resumed, match, entries if claim.resumed else ())
    return _Prepared(index, Task(job, seed, os.getcwd()), claim.notices)


def _rules_and_start(job: RefereeJob) -> tuple[RuleOptions, GameState]:
    """What the input's match is journalled with, read as its run reads it (said there)."""
    with contextlib.redirect_stderr(io.StringIO()):
        if is_video(job.source):
            given = start_and_calls(job)
            return given.options, given.start
        game = load_game(job.source, job.options)
        return game.options, game.start


def _taken_in(job: RefereeJob, prepared: _Prepared, future: Future[TaskResult],
              journal: Journal, out: TextIO, err: TextIO) -> JobOutcome:
    """A task's end: its rows journalled, its lines said, its reports written."""
    prefix = f"[{job.source.name}] "
    seed = prepared.task.seed
    for line in prepared.notices:
        print(prefix + line, file=err, flush=True)
    try:
        result = future.result()
    except Exception as lost:  # its worker died (again), or the task could not be run
        _give_back(journal, seed)
        what = (f"its match {seed.match_id} is kept as journalled" if seed.resumed else
                "nothing of it was journalled")
        death = _death(lost)
        died = type(lost).__name__ in ("KilledWorker", "BrokenProcessPool")
        outcome = JobOutcome(job.source, internal=True, died=died, error=(
            f"the task failed ({death or f'{type(lost).__name__}: {lost}'}); {what}: the "
            "same command with --resume continues it (the inputs that finished are not "
            "judged again)"))
        print(f"{prefix}kaisa: {outcome.error}", file=err, flush=True)
        return outcome
    for line in result.stdout:
        print(prefix + line, file=out, flush=True)
    for line in result.stderr:
        print(prefix + line, file=err, flush=True)
    try:
        _journal_rows(journal, seed, result)
    except sqlite3.Error as fault:  # (a full disk...): this input fails, its rows not written
        return JobOutcome(job.source, error=f"{journal.path}: {journal.explain(fault)}")
    finally:
        _give_back(journal, seed, keep=result.claimed)
    written = result.written
    error, internal = result.error, result.internal
    if result.report is not None:  # (its paths as given: the worker ran in this folder)
        try:
            with _prefixed(prefix, out, err):
                written = (*written, *write_reports(result.report, job.output, job.html))
        except KaisaError as failed:
            if error is not None:  # (the task's own error is the one said last)
                print(f"{prefix}kaisa: {failed}", file=err)
            error = error or str(failed)
    return JobOutcome(job.source, error=error, internal=internal, written=written)


def _lost_on_the_way(future: Future[TaskResult]) -> bool:
    """The task's end is an error of the executor's own, not the task's nor its worker's death:
    the task's own failures come back as data (:class:`TaskResult`), a death as KilledWorker or
    BrokenProcessPool. Seen once on a loaded machine: Dask handed input a a "TypeError: cannot
    unpack non-iterable TaskResult object" from ``result()`` while the worker of input b was
    being killed, and a, refereed whole, failed. Such a task is submitted once more."""
    error = future.exception()
    return error is not None and not _death(error) and not isinstance(error, KeyboardInterrupt)


def _death(error: BaseException) -> str:
    """How a task's worker died, as said ('' when it did not: the task could not be run)."""
    if isinstance(error, ImportError):  # (unpickling the task on a worker without kaisa)
        return f"{error}: install kaisa-referee on every worker"
    name = type(error).__name__
    if name == "KilledWorker":  # (Dask: after the tries its scheduler allows)
        tries = int(getattr(error, "allowed_failures", 0)) + 1
        return f"its worker died each of the {tries} times it was run"
    if name == "BrokenProcessPool":  # (a local pool: every task in flight fails with it)
        return "its worker process died"
    return ""


def _journal_rows(journal: Journal, seed: MatchSeed, result: TaskResult) -> None:
    """The rows a task added, written in one transaction with the match's status."""
    if not result.claimed:
        return
    with _transaction(journal.db) as db:
        for entry in result.entries:
            _insert(db, "entries", entry)
        db.execute("UPDATE matches SET status = ? WHERE id = ?", (result.status, seed.match_id))


def _give_back(journal: Journal, seed: MatchSeed, *, keep: bool = False) -> None:
    """Release the driver's lease on the seed's match. A new match the worker never got to
    (its input failed before the claim, or its worker died) and holding nothing is removed:
    as in a run in one process, where the match is made only once its input is loaded."""
    with contextlib.suppress(KaisaError, sqlite3.Error):
        journal.release(seed.match_id)
        if keep or seed.resumed:
            return
        with _transaction(journal.db) as db:
            db.execute("DELETE FROM matches WHERE id = ? AND NOT EXISTS (SELECT 1 FROM entries "
                       "WHERE match_id = ?)", (seed.match_id, seed.match_id))


def _rows(journal: Journal, match_id: int) -> tuple[Row, tuple[Row, ...]]:
    """The match's row and its entries' rows, as plain data."""
    db = journal.db
    db.row_factory = sqlite3.Row
    try:
        match = db.execute("SELECT * FROM matches WHERE id = ?", (match_id,)).fetchone()
        entries = db.execute("SELECT * FROM entries WHERE match_id = ? ORDER BY seq",
                             (match_id,)).fetchall()
    finally:
        db.row_factory = None
    return dict(match), tuple(dict(e) for e in entries)


def _insert(db: sqlite3.Connection, table: str, row: Mapping[str, Any]) -> None:
    columns = list(row)
    db.execute(f"INSERT INTO {table} ({', '.join(columns)}) "
               f"VALUES ({', '.join('?' for _ in columns)})", tuple(row.values()))


@contextlib.contextmanager
def _transaction(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise


@contextlib.contextmanager
def _prefixed(prefix: str, out: TextIO, err: TextIO) -> Iterator[None]:
    """What the driver prints for an input, prefixed as its worker's lines are."""
    got_out, got_err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(got_out), contextlib.redirect_stderr(got_err):
            yield
    finally:
        for line in _lines(got_out.getvalue()):
            print(prefix + line, file=out, flush=True)
        for line in _lines(got_err.getvalue()):
            print(prefix + line, file=err, flush=True)


# --- the end of a batch ------------------------------------------------------------------------
def summary_line(job: RefereeJob, outcome: JobOutcome) -> str:
    """One line for an input at the end of a batch: its match in the journal (status, score,
    winner, shots) or its failure."""
    prefix = f"[{job.source.name}] "
    if outcome.error is not None:
        return f"{prefix}failed: {outcome.error}"
    try:
        key = source_key(job.source)
        with Journal(job.journal, readonly=True) as journal:
            latest = journal.latest_finished(key) or journal.latest_unfinished(key)
            if latest is None:
                return f"{prefix}done"
            record = journal.load(latest)
    except (KaisaError, OSError):
        return f"{prefix}done (the journal cannot be read now)"
    state = record.match.state
    score = f"{state.score[0]}:{state.score[1]}"
    shots = plural(len(record.shot_keys), "shot")
    if state.winner is not None:
        return f"{prefix}match {latest} finished: player {state.winner} won {score} ({shots})"
    if record.status == ENDED:
        return f"{prefix}match {latest} ended without a winner at {score} ({shots})"
    return f"{prefix}match {latest} {record.status} at {score} ({shots})"


CONNECT_TIMEOUT_S = 30.0  # to reach the scheduler, then for its first worker


@contextlib.contextmanager
def dask_executor(address: str) -> Iterator[tuple[Executor, Callable[[], int]]]:
    """A Dask scheduler's executor (``--cluster ADDRESS``), and the cluster's thread count now
    (the tasks to keep in flight, see :func:`run_batch`): every task may be tried again once
    after an exception (``retries=1``); a worker's death is the scheduler's to retry (its
    ``allowed-failures``). Bad address, no scheduler there, no worker: one line (InputError)."""
    wait_s = CONNECT_TIMEOUT_S
    if "://" not in address:
        raise InputError("expected a Dask scheduler address, tcp://HOST:PORT", address)
    try:  # (imported by name: an optional extra, typed or not)
        distributed = importlib.import_module("distributed")
    except ImportError:
        raise InputError("--cluster needs Dask distributed: pip install "
                         "'kaisa-referee[cluster]'", address) from None
    try:
        client = distributed.Client(address, timeout=f"{wait_s}s", set_as_default=False)
    except (OSError, TimeoutError, ValueError) as error:
        raise InputError(f"no Dask scheduler answers there ({error}); start one with `dask "
                         "scheduler`, and workers with `dask worker ADDRESS --nthreads 1`",
                         address) from None
    try:
        try:
            client.wait_for_workers(1, timeout=wait_s)
        except (OSError, TimeoutError) as error:
            raise InputError(f"the scheduler has no worker ({error}); start some with `dask "
                             "worker ADDRESS --nthreads 1`", address) from None
        yield (client.get_executor(retries=1, pure=False),
               lambda: sum(client.nthreads().values()))
    finally:
        client.close()
