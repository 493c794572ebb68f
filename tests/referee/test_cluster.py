"""Issue 54: `kaisa referee INPUTS --cluster tcp://HOST:PORT` on a Dask cluster of two worker
processes gives what `--jobs 2` gives (verdicts, reports, journal); the driver alone writes the
journal; a worker killed mid-run has its task run again, and a task whose worker dies each time
fails its input alone, nothing lost or counted twice; a rerun with --resume skips the finished
inputs and continues the unfinished ones."""

from __future__ import annotations

import importlib
import json
import os
import re
import shutil
import signal
import sqlite3
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from dataclasses import replace
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import pytest

distributed = pytest.importorskip("distributed")
dask = pytest.importorskip("dask")

from referee import batch  # noqa: E402  (after the skip: the extra may be absent)
from referee.app import TEST_DIE_ON, RefereeJob  # noqa: E402
from referee.cli import demo_game_path, main  # noqa: E402
from referee.gamefile import load_game  # noqa: E402
from referee.journal import Journal, source_key  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden"
SAMPLES = ROOT / "sample_videos"
GAMES = ["opening_realistic_default", "finish_reach_overshoot_wins",
         "banks_finnish_any_pocket"]
CLIPS = ["cue_off_table", "scratch_pocket"]  # the two shortest sample clips
DEMO = [v.to_dict() for _, _, v in load_game(demo_game_path()).judged()]
SHOT_LINE = re.compile(r"^\[(\S+)\]\s+\d+:\d\d\.\d\d\s+shot\s+(\d+)", re.M)
needs_clips = pytest.mark.skipif(not all((SAMPLES / f"{c}.mp4").exists() for c in CLIPS),
                                 reason="sample clips not made")


def _cluster(**worker: Any) -> Any:
    """Two worker processes, one thread each; a task whose worker dies is tried once more
    (the scheduler's allowed-failures, read as it starts)."""
    with dask.config.set({"distributed.scheduler.allowed-failures": 1}):
        return distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                        dashboard_address=":0", **worker)


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    with _cluster() as started:
        yield started


@pytest.fixture
def client(cluster: Any) -> Iterator[Any]:
    """A client of the test's own (to watch and kill workers); both workers up."""
    with distributed.Client(cluster, set_as_default=False) as watching:
        watching.wait_for_workers(2, timeout=60)
        yield watching


def _run(capfd: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["referee", *argv])
    out, err = capfd.readouterr()
    return code, out, err


def _copies(folder: Path, names: list[str]) -> list[Path]:
    """Copies of the demo's GAME record, each its own input (its own source key)."""
    folder.mkdir(parents=True, exist_ok=True)
    text = demo_game_path().read_text()
    paths = []
    for k, name in enumerate(names):
        paths.append(folder / f"{name}.game.json")
        paths[-1].write_text(text + " " * (k + 1))
    return paths


def _journal(path: Path) -> dict[str, dict[str, Any]]:
    """A journal's matches by input name, without what differs run to run (ids, times)."""
    with sqlite3.connect(path) as db:
        matches = list(db.execute("SELECT id, source, status, rules_json, start_json, lease_pid "
                                  "FROM matches ORDER BY id"))
        found = {}
        for match_id, source, status, rules, start, lease in matches:
            entries = list(db.execute(
                "SELECT seq, kind, shot_key, facts_json, verdict_json, left_out_json, "
                "undone_by, void FROM entries WHERE match_id = ? ORDER BY seq", (match_id,)))
            found[Path(source).name] = {"status": status, "rules": rules, "start": start,
                                        "lease": lease, "entries": entries}
    assert len(found) == len(matches), "one match per input"
    return found


def _reports(folder: Path) -> dict[str, dict[str, Any]]:
    reports = {}
    for path in sorted(folder.glob("*.report.json")):
        report = json.loads(path.read_text())
        del report["timings"], report["match_id"]  # (--jobs numbers matches as they start)
        reports[path.name] = report
    return reports


def _judged(stdout: str) -> dict[str, list[int]]:
    judged: dict[str, list[int]] = {}
    for name, number in SHOT_LINE.findall(stdout):
        judged.setdefault(name, []).append(int(number))
    return judged


@needs_clips
def test_the_cluster_gives_what_jobs_2_gives(tmp_path: Path, cluster: Any, capfd):
    inputs = tmp_path / "in"
    inputs.mkdir()
    for name in GAMES:
        shutil.copy(GOLDEN / f"{name}.game.json", inputs)
    for name in CLIPS:  # (each with its labels beside it: its start and calls)
        for suffix in (".mp4", ".labels.json"):
            shutil.copy(SAMPLES / f"{name}{suffix}", inputs)
    sources = sorted(str(p) for p in inputs.iterdir() if not p.name.endswith(".labels.json"))
    local, remote = tmp_path / "jobs", tmp_path / "cluster"

    code, out_j, err_j = _run(capfd, *sources, "--jobs", "2", "--journal",
                              str(local / "j.sqlite"), "-o", str(local), "--html", str(local))
    assert code == 0, err_j
    code, out_c, err_c = _run(capfd, str(inputs), "--cluster", cluster.scheduler_address,
                              "--journal", str(remote / "j.sqlite"), "-o", str(remote),
                              "--html", str(remote))  # (a folder: its games and videos)
    assert code == 0, err_c
    assert "Traceback" not in err_c

    journal = _journal(remote / "j.sqlite")
    assert journal == _journal(local / "j.sqlite")
    assert sorted(journal) == sorted(Path(s).name for s in sources)
    assert all(m["lease"] is None and m["entries"] for m in journal.values())
    assert journal["finish_reach_overshoot_wins.game.json"]["status"] == "finished"
    assert _reports(remote) == _reports(local)
    assert len(_reports(remote)) == len(sources)
    assert sorted(p.name for p in remote.glob("*.html")) == \
        sorted(p.name for p in local.glob("*.html"))
    # The same shot lines, each input's whole and prefixed; one summary line per input.
    assert _judged(out_c) == _judged(out_j)
    assert _judged(out_c)["cue_off_table.mp4"] == [1]

    def summaries(out: str) -> list[str]:
        lines = out.splitlines()[-len(sources):]
        return [re.sub(r"match \d+", "match N", line) for line in lines]

    assert summaries(out_c) == summaries(out_j)
    assert summaries(out_c)[0].startswith("[banks_finnish_any_pocket.game.json] match N ")
    assert any(line.startswith("[finish_reach_overshoot_wins.game.json] match N finished: "
                               "player 2 won") for line in summaries(out_c))
    # The driver alone wrote the journal and the reports (named without the workers' scratch).
    assert "kaisa-task-" not in out_c + err_c


def test_a_local_process_pool_serves_as_well(tmp_path: Path, capfd):
    """The same batch on a local executor: what the inputs refereed one after another give."""
    games = _copies(tmp_path / "in", ["a", "b"])
    code, _, err = _run(capfd, *map(str, games), "--journal", str(tmp_path / "one.sqlite"),
                        "-o", str(tmp_path / "one"))
    assert code == 0, err
    (tmp_path / "pool").mkdir()
    jobs = [RefereeJob(g, tmp_path / "pool.sqlite", output=tmp_path / "pool" / g.name)
            for g in games]
    with ProcessPoolExecutor(2, mp_context=get_context("spawn")) as pool:
        outcomes = batch.run_batch(jobs, pool)
    assert [o.error for o in outcomes] == [None, None]
    assert _journal(tmp_path / "pool.sqlite") == _journal(tmp_path / "one.sqlite")
    out = capfd.readouterr().out
    assert _judged(out) == {g.name: list(range(1, len(DEMO) + 1)) for g in games}


class _GarblesOnce(Executor):
    """A pool whose first task's end is lost on the way back: an error of the executor's own
    (as Dask once raised from ``result()`` while another task's worker was being killed)."""

    def __init__(self, pool: Executor) -> None:
        self.pool, self.garbled = pool, 0

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future[Any]:
        if self.garbled:
            return self.pool.submit(fn, *args, **kwargs)
        self.garbled += 1
        lost: Future[Any] = Future()
        lost.set_exception(TypeError("cannot unpack non-iterable TaskResult object"))
        return lost


def test_a_task_whose_end_the_executor_garbled_is_run_again(tmp_path: Path, capfd):
    games = _copies(tmp_path / "in", ["a", "b"])
    journal = tmp_path / "j.sqlite"
    with ProcessPoolExecutor(2, mp_context=get_context("spawn")) as pool:
        garbling = _GarblesOnce(pool)
        outcomes = batch.run_batch([RefereeJob(g, journal) for g in games], garbling)
    assert garbling.garbled == 1
    assert [o.error for o in outcomes] == [None, None]
    assert _judged(capfd.readouterr().out) == {g.name: list(range(1, len(DEMO) + 1))
                                               for g in games}
    done = _journal(journal)
    assert [m["status"] for m in done.values()] == ["finished"] * 2
    assert all(len(m["entries"]) == len(DEMO) for m in done.values())


def test_on_a_local_pool_a_death_fails_the_tasks_in_flight(tmp_path: Path, capfd,
                                                           monkeypatch: pytest.MonkeyPatch):
    """Why `--jobs` keeps a process of its own per input: a process pool that loses a worker
    is broken, and every task still in it fails with it (reported, nothing of it journalled;
    --resume redoes them); a task done before is journalled whole."""
    games = _copies(tmp_path / "in", ["a", "b"])
    journal = tmp_path / "j.sqlite"
    monkeypatch.setenv(TEST_DIE_ON, "b.game.json:1")  # (a: 6 s at this pace, b dies at once)
    jobs = [RefereeJob(g, journal, pace_s=0.5) for g in games]
    with ProcessPoolExecutor(2, mp_context=get_context("spawn")) as pool:
        outcomes = batch.run_batch(jobs, pool)
    a, b = outcomes
    assert b.died and "its worker process died" in str(b.error)
    done = _journal(journal)  # (a, unless it ran first in the same worker: then it is done)
    assert (a.died and done == {}) or (
        a.error is None and list(done) == ["a.game.json"]
        and len(done["a.game.json"]["entries"]) == len(DEMO)), (a, done)
    monkeypatch.delenv(TEST_DIE_ON)
    with ProcessPoolExecutor(2, mp_context=get_context("spawn")) as pool:
        outcomes = batch.run_batch([replace(j, resume=True, pace_s=0) for j in jobs], pool)
    assert [o.error for o in outcomes] == [None, None]
    matches = _journal(journal)
    assert all(len(m["entries"]) == len(DEMO) for m in matches.values()) and len(matches) == 2
    capfd.readouterr()


def test_a_worker_killed_mid_run_has_its_task_run_again(tmp_path: Path, cluster: Any,
                                                       client: Any, capsys):
    journal = tmp_path / "j.sqlite"
    games = _copies(tmp_path, ["a", "b", "c"])
    ended: dict[str, int] = {}
    argv = ["referee", *map(str, games), "--pace", "0.2", "--cluster",
            cluster.scheduler_address, "--journal", str(journal)]
    run = threading.Thread(target=lambda: ended.update(code=main(argv)))
    run.start()
    deadline = time.monotonic() + 60
    busy: list[str] = []
    while not busy and time.monotonic() < deadline:
        busy = [worker for worker, keys in client.processing().items() if keys]
        time.sleep(0.05)
    assert busy, "no task started"
    time.sleep(0.6)  # a few shots into its scratch journal
    pid = client.run(os.getpid, workers=busy[:1])[busy[0]]
    os.kill(pid, signal.SIGKILL)
    run.join(120)
    assert not run.is_alive()
    assert busy[0] not in client.scheduler_info()["workers"]  # (it died; a new one took over)
    out, err = capsys.readouterr()
    assert ended["code"] == 0, err

    # Every input once: its shots each judged (and said) once, its match finished, released.
    assert _judged(out) == {g.name: list(range(1, len(DEMO) + 1)) for g in games}
    matches = _journal(journal)
    assert sorted(matches) == [g.name for g in games]
    with Journal(journal, readonly=True) as j:
        for match_id, _, status, _ in j.matches():
            assert status == "finished"
            assert [v.to_dict() for v in j.load(match_id).match.verdicts] == DEMO
    assert all(len(m["entries"]) == len(DEMO) and m["lease"] is None for m in matches.values())


def test_a_task_whose_worker_dies_again_fails_its_input_alone(tmp_path: Path, cluster: Any,
                                                              capfd):
    journal = tmp_path / "j.sqlite"
    games = _copies(tmp_path, ["a", "b", "c"])
    argv = [*map(str, games), "--journal", str(journal)]
    # b's worker is killed after its 4th verdict, each time b is tried
    with _cluster(env={TEST_DIE_ON: "b.game.json:4"}) as dying:
        code, out, err = _run(capfd, *argv, "--cluster", dying.scheduler_address)
    assert code == 1, err
    assert "Traceback" not in err
    said = [line for line in err.splitlines() if "task failed" in line]
    assert said[0] == ("[b.game.json] kaisa: the task failed (its worker died each of the 2 "
                       "times it was run); nothing of it was journalled: the same command with "
                       "--resume continues it (the inputs that finished are not judged again)")
    assert err.splitlines()[-1].startswith("kaisa: 1 of 3 inputs failed (1 worker process died")
    assert _judged(out) == {"a.game.json": list(range(1, len(DEMO) + 1)),
                            "c.game.json": list(range(1, len(DEMO) + 1))}
    assert "[b.game.json] failed: the task failed" in out
    assert {name: m["status"] for name, m in _journal(journal).items()} == {
        "a.game.json": "finished", "c.game.json": "finished"}

    # The same command with --resume: a and c are not judged again; b is, once.
    code, out, err = _run(capfd, *argv, "--resume", "--cluster", cluster.scheduler_address)
    assert code == 0, err
    assert _judged(out) == {"b.game.json": list(range(1, len(DEMO) + 1))}
    assert "[a.game.json] kaisa: match 1 of this input is finished" in err
    matches = _journal(journal)
    assert [m["status"] for m in matches.values()] == ["finished"] * 3
    assert all(len(m["entries"]) == len(DEMO) for m in matches.values())


def test_resume_goes_on_from_the_journalled_shots(tmp_path: Path, cluster: Any, capfd):
    journal = tmp_path / "j.sqlite"
    (game,) = _copies(tmp_path, ["demo"])
    loaded = load_game(game)
    with Journal(journal) as j:  # a run that stopped after 5 shots
        claim = j.claim(str(game), source_key(game), loaded.options, loaded.start, resume=False)
        for i, facts, verdict in list(loaded.judged())[:5]:
            j.record_verdict(claim.match_id, f"shot{i}", facts, verdict)
        j.release(claim.match_id)
    code, out, err = _run(capfd, str(game), "--resume", "--cluster", cluster.scheduler_address,
                          "--journal", str(journal), "-o", str(tmp_path / "r.json"))
    assert code == 0, err
    assert "[demo.game.json] kaisa: resuming match 1: 5 shots already recorded" in err
    assert _judged(out) == {"demo.game.json": list(range(6, len(DEMO) + 1))}
    with Journal(journal, readonly=True) as j:
        assert [v.to_dict() for v in j.load(1).match.verdicts] == DEMO
        assert len(j.matches()) == 1
    report = json.loads((tmp_path / "r.json").read_text())
    assert [s["verdict"] for s in report["shots"]] == DEMO
    assert report["source"] == str(game) and report["match_id"] == 1


@pytest.mark.parametrize(("address", "said"), [
    ("localhost:8786", "expected a Dask scheduler address, tcp://HOST:PORT"),
    ("tcp://127.0.0.1:9", "no Dask scheduler answers there"),
])
def test_a_bad_cluster_address_is_one_line(tmp_path: Path, capfd, address: str, said: str,
                                           monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(batch, "CONNECT_TIMEOUT_S", 1.0)
    (game,) = _copies(tmp_path, ["a"])
    code, _, err = _run(capfd, str(game), "--cluster", address,
                          "--journal", str(tmp_path / "j.sqlite"))
    assert code == 2
    assert err.count("\n") == 1 and said in err and address in err
    assert not (tmp_path / "j.sqlite").exists()


def test_jobs_and_cluster_are_not_given_together(tmp_path: Path, capfd):
    (game,) = _copies(tmp_path, ["a"])
    code, _, err = _run(capfd, str(game), "--jobs", "2", "--cluster", "tcp://127.0.0.1:9")
    assert code == 2 and "give one" in err and err.count("\n") == 1


def test_without_the_extra_the_cluster_is_one_line(tmp_path: Path, capfd,
                                                   monkeypatch: pytest.MonkeyPatch):
    real = importlib.import_module

    def without_dask(name: str, package: str | None = None) -> Any:
        if name == "distributed":
            raise ImportError("No module named 'distributed'")
        return real(name, package)

    monkeypatch.setattr(importlib, "import_module", without_dask)
    (game,) = _copies(tmp_path, ["a"])
    code, _, err = _run(capfd, str(game), "--cluster", "tcp://127.0.0.1:9",
                        "--journal", str(tmp_path / "j.sqlite"))
    assert code == 2 and err.count("\n") == 1
    assert "pip install 'kaisa-referee[cluster]'" in err
