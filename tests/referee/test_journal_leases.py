"""A match's lease (referee/journal.py): held while its process runs, free once it has ended, a
process that ended but was never reaped (a zombie) included."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time

import pytest

from referee.journal import Lease


def lease_of(pid: int) -> Lease:
    return Lease(pid, socket.gethostname(), "2026-12-06T00:00:00")


def test_a_running_process_holds_its_lease_and_an_ended_one_does_not():
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        assert lease_of(child.pid).alive()
    finally:
        child.kill()
        child.wait()
    assert not lease_of(child.pid).alive()


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="zombies are told apart through /proc")
def test_a_process_ended_but_not_reaped_holds_nothing():
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:  # ended, not waited for: a zombie
        with open(f"/proc/{child.pid}/stat") as stat:
            if stat.read().rsplit(")", 1)[1].split()[0] == "Z":
                break
        time.sleep(0.05)
    try:
        assert not lease_of(child.pid).alive()
    finally:
        child.wait()


def test_a_lease_of_another_host_is_taken_as_held():
    assert Lease(os.getpid() + 1, socket.gethostname() + "-elsewhere", "x").alive()
