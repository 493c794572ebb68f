"""The live pages' server: the table display (``/display``, a TV read from 2 m) and the
operator page (``/operator``, a phone), with the state pushed to them as server-sent events.

The pages only read (the status, the still, the journal) and append operator commands
(``commands.jsonl``); the engine, in its own process, applies the commands. So a hung camera or
decoder never freezes the pages, and the pages can never write a verdict.

Served on 127.0.0.1 unless told otherwise; serving to the network needs a token, and with a
token every request must carry it (``?token=`` once, kept as a cookie; or the
``X-Kaisa-Token`` header, or ``Authorization: Bearer``), else 401.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import threading
import time
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any
from urllib.parse import quote

import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import (
    FileResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from fastapi.staticfiles import StaticFiles
from starlette.concurrency import run_in_threadpool
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from live.addresses import is_loopback, lan_address
from live.files import LiveFiles, append_command
from live.web_state import SHOT_KEY, JournalView, Since, page_state, stamp

STATIC = Path(__file__).parent / "static"
COOKIE = "kaisa_token"
BALLS = ("W", "R", "Y", "W1", "W2", "R1", "R2")
POCKETS = ("HL", "HR", "ML", "MR", "FL", "FR")
NAME_CHARS = 40


@dataclass(frozen=True)
class StreamTiming:
    """How the event stream watches the files: ``poll_s`` between looks at their mtimes,
    ``heartbeat_s`` of quiet before a ``tick`` event with the server's clock (it keeps a proxy
    or a phone from dropping a silent connection, and lets a page tell a silent engine),
    ``lifetime_s`` before the server ends a stream (the browser reconnects at once, from where
    it was: a stream cannot outlive a dead client for long), ``retry_ms`` the browser's wait
    before it reconnects."""

    poll_s: float = 0.1  # (a verdict reaches the pages this much after the journal at most)
    heartbeat_s: float = 5.0
    lifetime_s: float = 600.0
    retry_ms: int = 1000


class CommandError(ValueError):
    """An operator command's payload is not what its kind expects (one line, for the page)."""


def _names(value: object, what: str) -> list[str]:
    if (not isinstance(value, list) or len(value) != 2
            or not all(isinstance(n, str) and n.strip() for n in value)):
        raise CommandError(f"{what}: expected two names, got {value!r}"[:200])
    return [n.strip()[:NAME_CHARS] for n in value]


def checked_payload(kind: str, payload: object) -> dict[str, Any]:
    """The payload of an operator command of ``kind`` as the engine reads it (see
    :class:`live.files.OperatorCommand`), or CommandError saying what was expected."""
    if payload is None:
        payload = {}
    if not isinstance(payload, Mapping):
        raise CommandError(f"expected a JSON object as the payload, got {payload!r}"[:200])
    note = payload.get("note", "")
    if not isinstance(note, str):
        raise CommandError(f"note: expected text, got {note!r}"[:200])
    if kind == "call":
        if not payload.get("ball") and not payload.get("pocket"):
            return {}  # no call for the next shot
        ball, pocket = payload.get("ball"), payload.get("pocket")
        if ball not in BALLS or pocket not in POCKETS:
            raise CommandError(f"call: expected a ball of {', '.join(BALLS[:3])} and a pocket "
                               f"of {', '.join(POCKETS)}, got {ball!r} and {pocket!r}"[:200])
        return {"ball": ball, "pocket": pocket}
    if kind == "undo":
        return {"note": note or "undone on the operator page"}
    if kind == "correct":
        score = payload.get("score")
        if (not isinstance(score, list) or len(score) != 2
                or not all(isinstance(s, int) and not isinstance(s, bool) and 0 <= s <= 999
                           for s in score)):
            raise CommandError(f"score: expected two whole numbers of points, got {score!r}"
                               [:200])
        return {"score": score, "note": note or "corrected on the operator page"}
    if kind == "new_match":
        players = payload.get("players")
        return {"players": _names(players, "players")} if players is not None else {}
    if kind == "players":
        return {"names": _names(payload.get("names"), "names")}
    if kind == "confirm":
        shot = payload.get("shot")
        if not isinstance(shot, str) or not SHOT_KEY.fullmatch(shot):
            raise CommandError(f"shot: expected a shot key like 'shot3', got {shot!r}"[:200])
        return {"shot": shot}
    raise CommandError(f"expected a command kind of call, undo, correct, new_match, players, "
                       f"confirm, got {kind!r}"[:200])


def qr_svg(text: str) -> str:
    """``text`` as a QR code in SVG (dark on white, with its quiet zone; sized by its viewBox,
    so that it scales to the box it is shown in)."""
    import io

    import segno

    out = io.BytesIO()
    segno.make(text, error="m").save(out, kind="svg", xmldecl=False, svgns=True, omitsize=True,
                                     dark="#000", light="#fff")
    return out.getvalue().decode()


def qr_terminal(text: str) -> str:
    """``text`` as a QR code in text (for a terminal: two rows of modules a line)."""
    import io

    import segno

    out = io.StringIO()
    segno.make(text, error="m").terminal(out=out, compact=True)
    return out.getvalue()


class TokenCheck:
    """Every request must carry the token (``?token=``, then kept as a cookie; or a header),
    else 401. Plain ASGI, so that the event stream passes through untouched."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.token = token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        given = _given_token(request)
        if given is None or not hmac.compare_digest(given.encode(), self.token):
            refused = PlainTextResponse("401: this page needs the token: open the URL that "
                                        "`kaisa live` printed (or scan its QR code)", 401)
            await refused(scope, receive, send)
            return
        if not request.query_params.get("token"):
            await self.app(scope, receive, send)
            return
        cookie = Response()
        cookie.set_cookie(COOKIE, self.token.decode(), httponly=True, samesite="strict",
                          max_age=7 * 24 * 3600)
        extra = [(k, v) for k, v in cookie.raw_headers if k == b"set-cookie"]

        async def send_with_cookie(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, send_with_cookie)


def _given_token(request: Request) -> str | None:
    bearer = request.headers.get("authorization", "")
    return (request.query_params.get("token") or request.headers.get("x-kaisa-token")
            or (bearer[7:] if bearer.lower().startswith("bearer ") else None)
            or request.cookies.get(COOKIE))


def make_app(files: LiveFiles, token: str | None = None, *, public_host: str | None = None,
             timing: StreamTiming = StreamTiming()) -> FastAPI:
    """The pages' app over the live folder ``files``. ``token``: every request must carry it
    (None or empty: no check, for 127.0.0.1). ``public_host``: the host name put in the
    operator's QR code when a page was opened on this machine's loopback (a phone cannot reach
    that)."""
    app = FastAPI(title="kaisa live", docs_url=None, redoc_url=None, openapi_url=None)
    # set when the server is to stop: the event streams end at once (a stream left open
    # would be cancelled after the grace time, with a traceback in the log)
    closing = threading.Event()
    app.state.closing = closing

    if token:
        app.add_middleware(TokenCheck, token=token)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    def page(name: str) -> FileResponse:
        return FileResponse(STATIC / f"{name}.html", headers={"Cache-Control": "no-cache"})

    @app.get("/")
    def index() -> RedirectResponse:
        return RedirectResponse("/display")

    @app.get("/display")
    def display() -> FileResponse:
        return page("display")

    @app.get("/operator")
    def operator() -> FileResponse:
        return page("operator")

    @app.get("/api/state")
    def state(match: str | None = None, since: str | None = None) -> dict[str, Any]:
        """The state after ``since`` (a journal seq of match ``match``), once."""
        return page_state(files, Since.parse(None, match, since))[0]

    @app.get("/api/events")
    async def events(request: Request, match: str | None = None, since: str | None = None,
                     lifetime_s: float | None = None) -> StreamingResponse:
        """Server-sent events: the state now, then each time the files change. A browser
        that reconnects sends the last event's id (``MATCH:SEQ``) and gets only what came
        after it."""
        where = Since.parse(request.headers.get("last-event-id"), match, since)
        life = timing.lifetime_s if lifetime_s is None else min(max(lifetime_s, 0.1),
                                                                   timing.lifetime_s)
        return StreamingResponse(_stream(request, files, where, timing, life, closing),
                                 media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache",
                                          "X-Accel-Buffering": "no"})

    @app.post("/api/command")
    async def command(request: Request) -> JSONResponse:
        # JSON only: another site's page cannot send it without asking first (CORS), so it
        # cannot slip a command in through the operator's browser
        if not request.headers.get("content-type", "").startswith("application/json"):
            return JSONResponse({"error": "expected Content-Type: application/json"}, 415)
        try:
            body = await request.json()
        except ValueError:
            body = None
        if not isinstance(body, Mapping):
            return JSONResponse({"error": 'expected a JSON object {"kind": ..., "payload": '
                                          '{...}}'}, 400)
        kind = str(body.get("kind"))
        try:
            payload = checked_payload(kind, body.get("payload"))
        except CommandError as err:
            return JSONResponse({"error": str(err)}, 400)
        sent = await run_in_threadpool(append_command, files, kind, payload)
        return JSONResponse(sent.to_dict())

    @app.get("/still.jpg")
    def still() -> Response:
        if not files.still.is_file():
            return PlainTextResponse("no camera picture yet", 404)
        return Response(files.still.read_bytes(), media_type="image/jpeg",
                        headers={"Cache-Control": "no-store"})

    @app.get("/qr.svg")
    def qr(request: Request) -> Response:
        """The operator page's URL (with the token) as a QR code, for the display to show."""
        host = request.url.hostname or "127.0.0.1"
        if is_loopback(host) and public_host:
            host = public_host
        port = request.url.port
        shown = f"[{host}]" if ":" in host else host
        url = f"{request.url.scheme}://{shown}{f':{port}' if port else ''}/operator"
        if token:
            url += f"?token={quote(token)}"
        return Response(qr_svg(url), media_type="image/svg+xml",
                        headers={"Cache-Control": "no-cache", "X-Operator-Url": url})

    return app


def _event(state: Mapping[str, Any], where: Since) -> bytes:
    return (f"id: {where.event_id()}\nevent: state\ndata: {json.dumps(state)}\n\n").encode()


async def _stream(request: Request, files: LiveFiles, where: Since, timing: StreamTiming,
                  lifetime_s: float, closing: threading.Event) -> AsyncIterator[bytes]:
    yield f"retry: {timing.retry_ms}\n\n".encode()
    view = JournalView()
    seen = None
    start = last_sent = time.monotonic()
    while True:
        now_stamp = stamp(files)
        if now_stamp != seen:
            seen = now_stamp
            state, where = await run_in_threadpool(page_state, files, where, view)
            yield _event(state, where)
            last_sent = time.monotonic()
        elif time.monotonic() - last_sent > timing.heartbeat_s:
            # the server's clock: a page tells a silent engine from a quiet table by it
            yield f"event: tick\ndata: {json.dumps({'server_unix': time.time()})}\n\n".encode()
            last_sent = time.monotonic()
        if (time.monotonic() - start > lifetime_s or closing.is_set()
                or await request.is_disconnected()):
            return
        await asyncio.sleep(timing.poll_s)


def serve(files: LiveFiles, host: str = "127.0.0.1", port: int = 8080,
          token: str | None = None) -> None:
    """Serve the pages until interrupted (blocking). Any host but loopback needs a token:
    ValueError without one."""
    if not is_loopback(host) and not token:
        raise ValueError(f"serving on {host} (the network) needs a token; expected one, or "
                         "--host 127.0.0.1")
    public = lan_address() if host in ("0.0.0.0", "::", "") else \
        (None if is_loopback(host) else host)
    app = make_app(files, token, public_host=public)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False,
                            timeout_graceful_shutdown=2)
    ClosingServer(config, app.state.closing).run()


class ClosingServer(uvicorn.Server):
    """uvicorn's server that tells the app's event streams to end when it is told to stop
    (Ctrl-C, SIGTERM)."""

    def __init__(self, config: uvicorn.Config, closing: threading.Event) -> None:
        super().__init__(config)
        self.closing = closing

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        self.closing.set()
        super().handle_exit(sig, frame)

