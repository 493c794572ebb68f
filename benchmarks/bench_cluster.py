"""The Dask backend's overhead (issue 54): eight sample clips refereed by `kaisa referee CLIPS
--jobs 2`, then by `kaisa referee CLIPS --cluster ADDRESS` on a local cluster of two worker
processes (one thread each), on the same machine in one run, one after the other (the machine's
other load hits both alike; with --repeat the rounds alternate which goes first).

    python benchmarks/bench_cluster.py [--clips N] [--repeat N]

Each command runs in a child process with a fresh journal and its reports in a scratch folder;
the clips are the N smallest sample clips (each with its labels: its start and calls), the
table found by the program itself. Printed per round: wall seconds of each command, the
cluster's start (not counted in its command's time: a league's cluster is up before the season
is refereed), the CPU seconds of each (every process's: steadier than wall time on a loaded
machine; the cluster's own start and end in it), and the overhead ratios (cluster / jobs - 1).
The two journals are checked to hold the same verdicts, or the figures are not printed.
Target (issue 54): overhead under 10 %.
"""

from __future__ import annotations

import argparse
import os
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_videos"


def smallest_clips(n: int) -> list[Path]:
    """The ``n`` smallest labelled sample clips (the demo match aside: it is long)."""
    clips = [p for p in SAMPLES.glob("*.mp4") if p.with_name(p.stem + ".labels.json").is_file()]
    return sorted(clips, key=lambda p: (p.stat().st_size, p.name))[:n]


def cpu_s() -> float:
    """CPU seconds of this process and of its children that have ended (the command's child,
    its workers, the cluster's worker processes once closed)."""
    own, children = (resource.getrusage(who) for who in (resource.RUSAGE_SELF,
                                                          resource.RUSAGE_CHILDREN))
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def referee(clips: list[Path], work: Path, *how: str) -> float:
    """Wall seconds of `kaisa referee CLIPS HOW...` in a child process."""
    work.mkdir(parents=True)
    argv = [sys.executable, "-m", "referee.cli", "referee", *map(str, clips), *how,
            "--journal", str(work / "journal.sqlite"), "-o", str(work)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    t0 = time.perf_counter()
    done = subprocess.run(argv, env=env, cwd=ROOT, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    if done.returncode != 0:
        sys.exit(f"bench_cluster: {' '.join(how)} failed ({done.returncode}):\n{done.stderr}")
    return wall


def local(clips: list[Path], work: Path) -> tuple[float, float]:
    """Wall and CPU seconds of the command with --jobs 2."""
    cpu = cpu_s()
    wall = referee(clips, work / "jobs", "--jobs", "2")
    return wall, cpu_s() - cpu


def verdicts(journal: Path) -> dict[str, list[str]]:
    with sqlite3.connect(journal) as db:
        found: dict[str, list[str]] = {}
        for source, verdict in db.execute(
                "SELECT m.source, e.verdict_json FROM matches m JOIN entries e "
                "ON e.match_id = m.id WHERE e.kind = 'verdict' ORDER BY m.source, e.seq"):
            found.setdefault(Path(source).name, []).append(verdict)
        return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clips", type=int, default=8, help="how many clips (default 8)")
    parser.add_argument("--repeat", type=int, default=1, help="rounds (default 1)")
    args = parser.parse_args()
    import dask
    from distributed import LocalCluster

    clips = smallest_clips(args.clips)
    print(f"{len(clips)} clips, {sum(p.stat().st_size for p in clips) / 1e6:.1f} MB; "
          f"{os.cpu_count()} cores (shared: other load makes single runs swing)")
    with tempfile.TemporaryDirectory(prefix="bench-cluster-") as tmp:
        for k in range(args.repeat):
            work = Path(tmp) / f"round{k}"
            if k % 2 == 0:
                jobs_s, jobs_cpu = local(clips, work)
            cpu, t0 = cpu_s(), time.perf_counter()
            with dask.config.set({"distributed.scheduler.allowed-failures": 1}), LocalCluster(
                    n_workers=2, threads_per_worker=1, processes=True,
                    dashboard_address=":0") as cluster:
                start_s = time.perf_counter() - t0
                dask_s = referee(clips, work / "dask", "--cluster", cluster.scheduler_address)
            dask_cpu = cpu_s() - cpu  # (the cluster's start and end in it)
            if k % 2 == 1:  # (alternate rounds: the other one first)
                jobs_s, jobs_cpu = local(clips, work)
            same = verdicts(work / "jobs" / "journal.sqlite") == \
                verdicts(work / "dask" / "journal.sqlite")
            if not same:
                sys.exit("bench_cluster: the two backends journalled different verdicts")
            print(f"round {k + 1}: --jobs 2 {jobs_s:.1f} s ({jobs_cpu:.1f} s of CPU); --cluster "
                  f"(2 workers) {dask_s:.1f} s (+ {start_s:.1f} s to start the cluster; "
                  f"{dask_cpu:.1f} s of CPU); overhead {dask_s / jobs_s - 1:+.1%} wall, "
                  f"{dask_cpu / jobs_cpu - 1:+.1%} CPU; the same verdicts", flush=True)


if __name__ == "__main__":
    main()
