"""The live pages' server (live/web.py, live/web_state.py) through FastAPI's test client: the
pages and their state, the operator's commands, the token, the event stream and its catch-up."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx2")
pytest.importorskip("segno")

from fastapi.testclient import TestClient

from live.addresses import is_loopback, page_urls
from live.files import LiveFiles, PlacementMark, read_commands, write_still
from live.web import StreamTiming, make_app, serve
from live.web_state import JournalView, Since, page_state
from referee.describe import describe
from referee.journal import Journal
from tests.live.web_helpers import record_shots, start_match, status_after, write

FAST = StreamTiming(poll_s=0.02, heartbeat_s=0.2, lifetime_s=5.0)


@pytest.fixture
def files(tmp_path: Path) -> LiveFiles:
    return LiveFiles(tmp_path / "live")


@pytest.fixture
def four_shots(files: LiveFiles) -> int:
    """A match with the demo's first four shots journalled, and the status after them."""
    match_id = start_match(files)
    verdicts = record_shots(files, match_id, 0, 4)
    write(files, status_after(match_id, verdicts[-1]))
    return match_id


def client(files: LiveFiles, token: str | None = None, **kwargs: object) -> TestClient:
    return TestClient(make_app(files, token, timing=FAST), **kwargs)  # type: ignore[arg-type]


def events(text: str) -> list[tuple[str, str, dict[str, object]]]:
    """(event, id, data) of each event of a server-sent stream."""
    out = []
    for block in text.split("\n\n"):
        fields: dict[str, str] = {}
        for line in block.splitlines():
            if line and not line.startswith(":") and ":" in line:
                key, value = line.split(":", 1)
                fields[key] = value.strip()
        if "data" in fields:
            out.append((fields.get("event", "message"), fields.get("id", ""),
                        json.loads(fields["data"])))
    return out


# --- pages and state ------------------------------------------------------------------------
def test_the_pages_and_their_scripts_are_served(files):
    c = client(files)
    for path, words in (("/display", "table display"), ("/operator", "Call for the next shot"),
                        ("/static/live.js", "EventSource"), ("/static/operator.js", "PageDown")):
        r = c.get(path)
        assert r.status_code == 200, path
        assert words in r.text, path
    assert c.get("/", follow_redirects=False).headers["location"] == "/display"


def test_before_the_engine_wrote_anything_the_state_is_empty_not_an_error(files):
    state = client(files).get("/api/state").json()
    assert state["status"] is None and state["entries"] == [] and state["match_id"] is None
    assert state["table"]["length_mm"] > state["table"]["width_mm"] > 0


def test_the_state_has_the_verdicts_in_the_reports_words(files, four_shots):
    state = client(files).get("/api/state").json()
    assert state["match_id"] == four_shots
    assert [e["shot_key"] for e in state["entries"]] == ["shot0", "shot1", "shot2", "shot3"]
    last = state["entries"][-1]
    with Journal(files.journal, readonly=True) as journal:
        recorded = journal.timeline(four_shots)[-1].verdict
    assert recorded is not None
    assert last["line"] == describe(recorded)
    assert last["short"] == "red in FR: +3" and last["score"] == [55, 45]
    assert last["shooter_name"] == "Anna" and "red in any pocket = 3 points" in last["why"]
    assert last["respots"][0]["ball"] == "R1" and "point 1" in last["respots"][0]["text"]
    assert state["status"]["score"] == [55, 45] and state["last_seq"] == 3


def test_a_page_asks_only_for_what_came_after_what_it_has(files, four_shots):
    c = client(files)
    later = c.get(f"/api/state?match={four_shots}&since=1").json()
    assert [e["seq"] for e in later["entries"]] == [2, 3] and not later["reset"]
    other = c.get("/api/state?match=99&since=3").json()  # another match: from its start
    assert other["reset"] and [e["seq"] for e in other["entries"]] == [0, 1, 2, 3]
    assert c.get(f"/api/state?match={four_shots}&since=3").json()["entries"] == []


def test_an_undo_withdraws_an_entry_the_page_already_has(files, four_shots):
    with Journal(files.journal) as journal:
        journal.record_undo(four_shots, "not a pot")
    state = client(files).get(f"/api/state?match={four_shots}&since=3").json()
    assert [(e["seq"], e["kind"]) for e in state["entries"]] == [(4, "undo")]
    assert state["undone"] == {"3": 4}


def test_a_flagged_shot_waits_until_confirmed(files):
    match_id = start_match(files)
    verdicts = record_shots(files, match_id, 0, 3,
                            extra={1: {"conflicts": ["W2 was seen struck while in hand"]}})
    write(files, status_after(match_id, verdicts[-1], flagged=("shot1",)))
    c = client(files)
    (flag,) = c.get("/api/state").json()["flagged"]
    assert flag["shot_key"] == "shot1" and flag["waiting"] and not flag["confirm_sent"]
    assert flag["reasons"] == ["W2 was seen struck while in hand"]
    assert c.post("/api/command", json={"kind": "confirm",
                                        "payload": {"shot": "shot1"}}).status_code == 200
    assert c.get("/api/state").json()["flagged"][0]["confirm_sent"]
    write(files, status_after(match_id, verdicts[-1], flagged=(), commands_applied=1))
    (flag,) = c.get("/api/state").json()["flagged"]
    assert not flag["waiting"]  # the engine applied it: it stands as judged


def test_a_camera_gap_in_a_shot_flags_it(files):
    match_id = start_match(files)
    verdicts = record_shots(files, match_id, 0, 2)
    status = status_after(match_id, verdicts[-1], flagged=("shot0",))
    write(files, type(status)(**{**status.__dict__,
                                 "gaps": ({"t_s": 3.0, "gap_s": 2.5, "shot": "shot0"},)}))
    (flag,) = client(files).get("/api/state").json()["flagged"]
    assert flag["shot_key"] == "shot0" and "frames were missing" in flag["reasons"][0]


# --- commands ---------------------------------------------------------------------------------
@pytest.mark.parametrize(("kind", "payload", "written"), [
    ("call", {"ball": "R", "pocket": "FL"}, {"ball": "R", "pocket": "FL"}),
    ("call", {}, {}),
    ("undo", {}, {"note": "undone on the operator page"}),
    ("correct", {"score": [30, 41], "note": "miscount"}, {"score": [30, 41], "note": "miscount"}),
    ("new_match", {"players": ["Anna ", "Boris"]}, {"players": ["Anna", "Boris"]}),
    ("players", {"names": ["Vera", "Gleb"]}, {"names": ["Vera", "Gleb"]}),
    ("confirm", {"shot": "shot3"}, {"shot": "shot3"}),
])
def test_a_command_is_appended_as_the_engine_reads_it(files, kind, payload, written):
    r = client(files).post("/api/command", json={"kind": kind, "payload": payload})
    assert r.status_code == 200, r.text
    (command,) = read_commands(files)
    assert (command.seq, command.kind, dict(command.payload)) == (1, kind, written)
    assert r.json()["seq"] == 1


@pytest.mark.parametrize(("body", "expected"), [
    ({"kind": "call", "payload": {"ball": "B", "pocket": "FL"}}, "expected a ball of W, R, Y"),
    ({"kind": "call", "payload": {"ball": "R", "pocket": "XX"}}, "a pocket of HL"),
    ({"kind": "correct", "payload": {"score": [10, -1]}}, "two whole numbers"),
    ({"kind": "correct", "payload": {"score": "10:20"}}, "two whole numbers"),
    ({"kind": "players", "payload": {"names": ["only one"]}}, "two names"),
    ({"kind": "confirm", "payload": {"shot": "the last"}}, "a shot key like"),
    ({"kind": "explode", "payload": {}}, "expected a command kind"),
    ([1, 2], "expected a JSON object"),
])
def test_a_bad_command_is_refused_in_one_line_and_nothing_is_appended(files, body, expected):
    r = client(files).post("/api/command", json=body)
    assert r.status_code == 400
    assert expected in r.json()["error"] and "\n" not in r.json()["error"]
    assert read_commands(files) == []


def test_commands_are_numbered_in_the_order_given(files):
    c = client(files)
    for pocket in ("HL", "MR", "FR"):
        c.post("/api/command", json={"kind": "call", "payload": {"ball": "Y", "pocket": pocket}})
    assert [(x.seq, x.payload["pocket"]) for x in read_commands(files)] == [
        (1, "HL"), (2, "MR"), (3, "FR")]


# --- the token --------------------------------------------------------------------------------
def test_with_a_token_every_request_needs_it(files, four_shots):
    c = client(files, token="s3cret-token")
    for path in ("/display", "/operator", "/api/state", "/static/live.js", "/qr.svg"):
        assert c.get(path).status_code == 401, path
    assert c.get("/api/state?token=wrong").status_code == 401
    assert c.get("/api/state", headers={"X-Kaisa-Token": "s3cret-token"}).status_code == 200
    assert c.get("/api/state",
                 headers={"Authorization": "Bearer s3cret-token"}).status_code == 200
    r = c.post("/api/command", json={"kind": "undo", "payload": {}})
    assert r.status_code == 401 and read_commands(files) == []


def test_the_token_given_once_in_the_url_is_kept_as_a_cookie(files):
    c = client(files, token="s3cret-token")
    first = c.get("/operator?token=s3cret-token")
    assert first.status_code == 200 and "kaisa_token" in first.headers["set-cookie"]
    assert "httponly" in first.headers["set-cookie"].lower()
    assert c.get("/api/state").status_code == 200  # the cookie, no token in the URL
    assert c.post("/api/command", json={"kind": "undo", "payload": {}}).status_code == 200
    assert len(read_commands(files)) == 1


def test_serving_beyond_loopback_without_a_token_is_refused(files):
    with pytest.raises(ValueError, match="needs a token"):
        serve(files, host="0.0.0.0", port=1, token=None)
    assert is_loopback("127.0.0.1") and is_loopback("localhost") and is_loopback("::1")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.20")


def test_the_printed_urls_carry_the_token(files):
    urls = page_urls("192.168.1.20", 8080, "a b")
    assert urls == {"display": "http://192.168.1.20:8080/display?token=a%20b",
                    "operator": "http://192.168.1.20:8080/operator?token=a%20b"}
    assert page_urls("127.0.0.1", 8080, None)["operator"] == "http://127.0.0.1:8080/operator"


def test_the_qr_code_is_the_operators_url_a_phone_can_reach(files):
    app = make_app(files, "tok", public_host="192.168.1.20")
    c = TestClient(app, base_url="http://127.0.0.1:8080")
    r = c.get("/qr.svg?token=tok")
    assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml")
    assert r.text.startswith("<svg") and "viewBox" in r.text
    assert r.headers["x-operator-url"] == "http://192.168.1.20:8080/operator?token=tok"


# --- the still --------------------------------------------------------------------------------
def test_the_still_is_the_engines_latest_picture_never_cached(files):
    c = client(files)
    assert c.get("/still.jpg").status_code == 404
    write_still(files, b"\xff\xd8fake jpeg\xff\xd9")
    r = c.get("/still.jpg")
    assert r.content == b"\xff\xd8fake jpeg\xff\xd9" and r.headers["cache-control"] == "no-store"
    assert r.headers["content-type"] == "image/jpeg"


# --- the event stream -------------------------------------------------------------------------
def test_the_stream_sends_the_state_at_once_with_its_place_as_the_event_id(files, four_shots):
    r = client(files).get("/api/events?lifetime_s=0.1")
    assert r.headers["content-type"].startswith("text/event-stream")
    assert r.text.startswith("retry: ")
    (kind, event_id, state), *_ = events(r.text)
    assert kind == "state" and event_id == f"{four_shots}:3"
    assert [e["seq"] for e in state["entries"]] == [0, 1, 2, 3]  # type: ignore[index]


def test_a_reconnecting_page_gets_each_verdict_once(files, four_shots):
    c = client(files)
    (_, first_id, first), *_ = events(c.get("/api/events?lifetime_s=0.1").text)
    record_shots(files, four_shots, 4, 3)  # three more shots while the page was away
    later = events(c.get("/api/events?lifetime_s=0.1",
                         headers={"Last-Event-ID": first_id}).text)
    seen = [e["seq"] for e in first["entries"]]  # type: ignore[index]
    for _, _, state in later:
        seen += [e["seq"] for e in state["entries"]]  # type: ignore[index]
    assert seen == list(range(7))  # every entry, none twice
    # a page reloaded from scratch gets them all again (its own copy starts empty)
    (_, _, fresh), *_ = events(c.get("/api/events?lifetime_s=0.1").text)
    assert [e["seq"] for e in fresh["entries"]] == list(range(7))  # type: ignore[index]


def test_the_stream_pushes_a_change_of_the_status(files, four_shots):
    match_id = four_shots

    def engine() -> None:
        time.sleep(0.3)
        status = status_after(match_id, None, placement=(
            PlacementMark("R1", (887.5, 887.5), (888.0, 887.0), 1.1, True),))
        write(files, status)

    worker = threading.Thread(target=engine)
    worker.start()
    text = client(files).get("/api/events?lifetime_s=1.0").text
    worker.join()
    states = [s for kind, _, s in events(text) if kind == "state"]
    assert len(states) >= 2
    assert states[0]["status"]["placement"] == []  # type: ignore[index]
    assert states[-1]["status"]["placement"][0]["ok"] is True  # type: ignore[index]
    assert states[-1]["entries"] == []  # nothing new in the journal: nothing sent again


def test_a_quiet_stream_sends_the_servers_clock(files, four_shots):
    text = client(files).get("/api/events?lifetime_s=0.6").text
    ticks = [s for kind, _, s in events(text) if kind == "tick"]
    assert ticks and abs(float(ticks[-1]["server_unix"]) - time.time()) < 5  # type: ignore[arg-type]


def test_a_place_is_read_from_the_last_event_id_before_the_query():
    assert Since.parse("2:7", "1", "3") == Since(2, 7)
    assert Since.parse(None, "1", "3") == Since(1, 3)
    assert Since.parse("garbage", "x", "y") == Since(None, -1)
    assert Since.parse(None, "none", None) == Since(None, -1)


def test_the_page_state_follows_the_status_match_over_the_journals_last(files, four_shots):
    second = start_match(files)  # a new match started: the status still says the first
    state, where = page_state(files)
    assert state["match_id"] == four_shots and where == Since(four_shots, 3)
    write(files, status_after(second, None))
    state, where = page_state(files, where)
    assert state["match_id"] == second and state["reset"] and state["entries"] == []


def test_a_stream_reads_the_journal_again_only_when_it_changed(files, four_shots, monkeypatch):
    view = JournalView()
    _, where = page_state(files, Since(), view)
    reads = []
    timeline = Journal.timeline
    monkeypatch.setattr(Journal, "timeline",
                        lambda self, match_id: reads.append(match_id) or timeline(self, match_id))
    write(files, status_after(four_shots, None, camera="stalled"))  # the status alone changed
    state, where = page_state(files, where, view)
    assert reads == [] and state["status"]["camera"] == "stalled"
    with Journal(files.journal) as journal:
        journal.record_undo(four_shots, "not a pot")
    state, where = page_state(files, where, view)
    assert len(reads) >= 1 and state["undone"] == {"3": 4}
    record_shots(files, four_shots, 3, 1)  # the shot judged again
    state, _ = page_state(files, where, view)
    assert [(e["seq"], e["shot_key"]) for e in state["entries"]] == [(5, "shot3")]


def test_a_command_not_sent_as_json_is_refused(files):
    r = client(files).post("/api/command", content='{"kind": "undo", "payload": {}}',
                           headers={"Content-Type": "text/plain"})
    assert r.status_code == 415 and read_commands(files) == []


SERVE = """
import sys
from pathlib import Path
from live.files import LiveFiles
from live.web import serve
try:
    serve(LiveFiles(Path(sys.argv[1])), "127.0.0.1", int(sys.argv[2]))
except KeyboardInterrupt:
    pass
print("stopped")
"""


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.slow
def test_ctrl_c_stops_the_server_at_once_with_a_page_open(files, four_shots):
    import http.client
    import signal
    import subprocess
    import sys

    port = free_port()
    server = subprocess.Popen([sys.executable, "-c", SERVE, str(files.folder), str(port)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              cwd=Path(__file__).resolve().parents[2])
    page: http.client.HTTPConnection | None = None
    stream: http.client.HTTPResponse | None = None
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                page = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                page.request("GET", "/api/events")
                stream = page.getresponse()
                break
            except OSError:
                page.close()
                if time.monotonic() > deadline or server.poll() is not None:
                    pytest.fail("the server did not start: " + server.stderr.read())  # type: ignore[union-attr]
                time.sleep(0.1)
        assert stream.status == 200 and b"event: state" in stream.read1(65536) + stream.read1(
            65536)
        asked = time.monotonic()
        server.send_signal(signal.SIGINT)
        out, err = server.communicate(timeout=10)
        assert time.monotonic() - asked < 1.8  # before uvicorn's grace time (2 s) ran out
        # (once stopped, uvicorn returns, or hands the Ctrl-C back: a KeyboardInterrupt, or the
        # signal's own end when the handler in force then is the default one)
        assert "stopped" in out or server.returncode in (-signal.SIGINT, 130), (out, err)
        assert "Exception in ASGI" not in err and "graceful shutdown exceeded" not in err, err
    finally:
        for opened in (stream, page):
            if opened is not None:
                opened.close()
        if server.poll() is None:
            server.kill()
            server.wait()


def test_the_operators_url_as_a_qr_code_for_a_terminal():
    from live.web import qr_terminal

    lines = qr_terminal("http://192.168.1.20:8080/operator?token=t").splitlines()
    assert len(lines) >= 12 and len({len(line) for line in lines if line}) <= 2
