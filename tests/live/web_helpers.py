"""What the pages' tests share: a live folder written as the engine writes it (a journal with
the demo match's verdicts, a status saying the score and the balls to put back)."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import islice

from live.files import LiveFiles, LiveStatus, PlacementMark, write_status
from referee.cli import demo_game_path
from referee.gamefile import load_game
from referee.journal import Journal
from rules import Verdict

SOURCE = "camera 0"


def start_match(files: LiveFiles) -> int:
    game = load_game(demo_game_path())
    with Journal(files.journal) as journal:
        return journal.start_match(SOURCE, "live:camera0", game.options, game.start)


def record_shots(files: LiveFiles, match_id: int, first: int, count: int,
                 extra: dict[int, dict[str, object]] | None = None) -> list[Verdict]:
    """The demo match's shots ``first`` .. ``first + count - 1``, judged and journalled as the
    engine does; ``extra``: facts' extras by shot index (e.g. the camera's conflicts)."""
    game = load_game(demo_game_path())
    verdicts = []
    with Journal(files.journal) as journal:
        for i, facts, verdict in islice(game.judged(), first, first + count):
            if extra and i in extra:
                facts = type(facts)(facts.events, facts.call, facts.final_positions,
                                    {**facts.extra, **extra[i]})
            journal.record_verdict(match_id, f"shot{i}", facts, verdict)
            verdicts.append(verdict)
    return verdicts


def status_after(match_id: int, verdict: Verdict | None, *,
                 placement: Sequence[PlacementMark] = (), flagged: Sequence[str] = (),
                 players: tuple[str, str] = ("Anna", "Boris"),
                 next_call: dict[str, str] | None = None, commands_applied: int = 0,
                 camera: str = "ok", updated_unix: float = 0.0) -> LiveStatus:
    """The status the engine writes after ``verdict`` (the demo's start before any)."""
    positions = ({b.value: (float(p[0]), float(p[1])) for b, p in verdict.positions_after.items()}
                 if verdict is not None else {})
    return LiveStatus(
        match_id=match_id, camera=camera,  # type: ignore[arg-type]
        fps=30.0, frames_read=900, video_t_s=30.0,
        score=verdict.score if verdict is not None else (40, 45),
        shooter=(verdict.next_shooter or verdict.shooter) if verdict is not None else 1,
        winner=verdict.winner if verdict is not None else None, players=players,
        table_mm=(3550.0, 1775.0), positions_mm=positions, placement=tuple(placement),
        flagged=tuple(flagged), next_call=next_call, commands_applied=commands_applied,
        updated_unix=updated_unix)


def write(files: LiveFiles, status: LiveStatus) -> None:
    write_status(files, status)


class Served:
    """The pages' app served by uvicorn on a free loopback port, in a thread (``url``; ``stop``
    ends it)."""

    def __init__(self, app: object, port: int = 0) -> None:
        import socket
        import threading
        import time

        import uvicorn

        if not port:
            with socket.socket() as probe:
                probe.bind(("127.0.0.1", 0))
                port = probe.getsockname()[1]
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        self.app = app
        self.server = uvicorn.Server(uvicorn.Config(
            app, host="127.0.0.1", port=port, log_level="warning",  # type: ignore[arg-type]
            timeout_graceful_shutdown=1, lifespan="off"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.05)

    def stop(self) -> None:
        """As the live command stops: the event streams are told first, then the server."""
        import time

        closing = getattr(getattr(self.app, "state", None), "closing", None)
        if closing is not None:
            closing.set()
            time.sleep(0.4)  # (a stream looks every 0.25 s)
        self.server.should_exit = True
        self.thread.join(10)
