"""``kaisa live``: the engine started in a process of its own, the pages served in this one.

The engine (:mod:`live.engine`) referees the source and writes the folder's files; this process
checks the input first (a one-line error, exit 2), starts the engine, prints where the pages
are, serves them (``live.web.serve``, the ``[live]`` extra) or, without them, waits for the
engine (its verdict lines are printed as ``kaisa referee`` prints them), and watches the
engine's heartbeat (the status's ``updated_unix``): an engine that stops answering is said.
Ctrl-C stops both; every verdict is in the journal already (``--resume`` continues).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import multiprocessing
import os
import secrets
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

from live.addresses import is_loopback, page_urls
from live.engine import EngineConfig, engine_main, source_file
from live.files import LiveFiles, read_status
from referee.errors import InputError
from video import parse_spec

DEFAULT_FOLDER = Path("kaisa-live")
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
STUCK_AFTER_S = 10.0  # no heartbeat for this long: the engine is said to be stuck
START_WAIT_S = 120.0  # the longest the engine's first words are waited for


def config_from_args(args: argparse.Namespace) -> EngineConfig:
    """The engine's settings from the command line, each input checked (InputError: one
    line)."""
    spec = str(args.source)
    parse_spec(spec)  # (a VideoError for a URL of another scheme)
    file = source_file(spec)
    if file is not None and not file.is_file():
        raise InputError("expected a video file, a camera index (0) or a stream URL "
                         "(rtsp://, http://...); found no file there", str(file))
    for given, what in ((args.calibration, "a calibration file"), (args.start, "a start "
                                                                    "state or labels file")):
        if given is not None and not given.is_file():
            raise InputError(f"no such file (expected {what})", str(given))
    if args.calibration is not None:
        from referee.pipeline import load_calibration

        load_calibration(args.calibration)
    if args.pace <= 0:
        raise InputError(f"expected a pace above 0, got {args.pace}", "--pace")
    folder: Path = args.folder
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise InputError(f"cannot make the session's folder here ({err.strerror})",
                         str(folder)) from None
    if args.journal is not None and args.journal.is_dir():
        raise InputError("is a directory (expected a journal file)", str(args.journal))
    return EngineConfig(source=spec, folder=folder, journal=args.journal,
                        realtime=args.realtime, pace=args.pace, calibration=args.calibration,
                        start=args.start, resume=args.resume, echo=True)


def start_engine(config: EngineConfig) -> BaseProcess:
    """The engine in a process of its own (spawned: nothing of this one's threads in it)."""
    process = multiprocessing.get_context("spawn").Process(
        target=engine_main, args=(config,), name="kaisa-live-engine", daemon=True)
    process.start()
    return process


def wait_for_start(files: LiveFiles, engine: BaseProcess, wait_s: float = START_WAIT_S
                   ) -> int | None:
    """Wait until the engine has claimed its match (its status names it) or has ended: its
    exit code then (None: it runs)."""
    until = time.monotonic() + wait_s
    while time.monotonic() < until:
        if not engine.is_alive():
            return engine.exitcode
        status = read_status(files)
        if status is not None and status.engine_pid == engine.pid \
                and status.match_id is not None:
            return None
        time.sleep(0.1)
    return None


class Watchdog:
    """Watches the engine's heartbeat from this process and says (stderr) when it stops: a
    hung decoder or a stuck engine, or one that ended."""

    def __init__(self, files: LiveFiles, engine: BaseProcess, stuck_after_s: float = STUCK_AFTER_S,
                 say: Callable[[str], None] | None = None) -> None:
        self.files, self.engine, self.stuck_after_s = files, engine, stuck_after_s
        self.say = say or (lambda m: print(f"kaisa live: {m}", file=sys.stderr, flush=True))
        self.stop = threading.Event()
        self.stuck = False
        self.thread = threading.Thread(target=self._watch, name="watchdog", daemon=True)

    def start(self) -> Watchdog:
        self.thread.start()
        return self

    def check(self, now: float | None = None) -> None:
        now = time.time() if now is None else now
        if not self.engine.is_alive():
            return
        status = read_status(self.files)
        quiet = now - status.updated_unix if status is not None else 0.0
        if quiet > self.stuck_after_s and not self.stuck:
            self.stuck = True
            self.say(f"the engine (pid {self.engine.pid}) has not answered for {quiet:.0f} s: "
                     "stuck (the pages show its last status); Ctrl-C and --resume restart it")
        elif quiet <= self.stuck_after_s and self.stuck:
            self.stuck = False
            self.say("the engine answers again")

    def _watch(self) -> None:
        told_end = False
        while not self.stop.wait(1.0):
            self.check()
            if not self.engine.is_alive() and not told_end:
                told_end = True
                code = self.engine.exitcode
                if code not in (0, None):
                    self.say(f"the engine ended with exit code {code} (see "
                             f"{self.files.folder / 'engine.log'}); the pages stay up")


def stop_engine(engine: BaseProcess, wait_s: float = 10.0) -> None:
    """The engine stopped as Ctrl-C stops it (told by the terminal as this process was, or
    here: its handler leaves the journal whole and the match to --resume); one that does not
    end then is terminated."""
    engine.join(1.0)
    if engine.is_alive() and engine.pid is not None:
        with contextlib.suppress(OSError):
            os.kill(engine.pid, signal.SIGINT)
        engine.join(wait_s)
    if engine.is_alive():
        engine.terminate()
        engine.join(5.0)


def check_port(host: str, port: int) -> None:
    """InputError when the pages' address cannot be served (taken, or not this machine's),
    before the engine is started."""
    try:
        with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host, port))
    except OSError as err:
        raise InputError(f"cannot serve the pages there ({err.strerror}); expected a free "
                         "port on an address of this machine", f"{host}:{port}") from None


def web_serve() -> Callable[..., Any] | None:
    """``live.web.serve`` when the pages can be served (the ``[live]`` extra), else None."""
    try:
        web = importlib.import_module("live.web")
    except ImportError:
        return None
    serve = getattr(web, "serve", None)
    return serve if callable(serve) else None


def run_live(args: argparse.Namespace) -> int:
    """``kaisa live``: see the module's docstring."""
    token: str | None = args.token
    if not is_loopback(args.host) and not token:
        token = secrets.token_urlsafe(12)
    config = config_from_args(args)
    files = config.files
    serve = None if args.no_pages else web_serve()
    if serve is not None:
        check_port(args.host, args.port)
    if serve is None and not args.no_pages:
        print("kaisa live: the pages need the [live] extra (pip install "
              "'kaisa-referee[live]'); refereeing without them", file=sys.stderr)
    engine = start_engine(config)
    try:
        code = wait_for_start(files, engine)
        if code is not None:
            return code
        print(f"kaisa live: {config.source}: engine pid {engine.pid}, session folder "
              f"{files.folder}, journal {files.journal}", file=sys.stderr, flush=True)
        watchdog = Watchdog(files, engine).start()
        if serve is not None:
            urls = page_urls(args.host, args.port, token)
            for page, url in urls.items():
                print(f"kaisa live: {page} page: {url}", file=sys.stderr, flush=True)
            qr = importlib.import_module("live.web").qr_terminal(urls["operator"])
            print(f"kaisa live: the operator page, for a phone's camera:\n{qr}", file=sys.stderr,
                  flush=True)
            serve(files, args.host, args.port, token)
        else:
            engine.join()
        watchdog.stop.set()
        return (engine.exitcode or 0) if serve is None else 0
    except KeyboardInterrupt:
        print("kaisa live: stopped; every verdict so far is in the journal (--resume "
              "continues)", file=sys.stderr)
        return 0
    finally:
        stop_engine(engine)

