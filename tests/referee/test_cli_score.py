"""Bad input for `kaisa score` and `kaisa referee`: exit code 2, exactly one line on stderr that
names the file (and, for a shot, the shot index and the field), no traceback; the verdicts of the
shots before a bad shot are still printed. And `kaisa` / `kaisa referee` alone referee the demo.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from referee.cli import demo_game_path
from referee.gamefile import load_game
from tests.referee.conftest import run_cli as _run

COMMANDS = ["score", "referee"]


@pytest.fixture(autouse=True)
def _private_journal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`kaisa referee` journals every verdict: keep it out of the home folder."""
    monkeypatch.setenv("KAISA_JOURNAL", str(tmp_path / "journal.sqlite"))


# --- a valid game to spoil ----------------------------------------------------------------------
def _shot(t0: float, call: str | None, *events: tuple[str, ...],
          finals: dict[str, list[float]] | None = None) -> dict[str, Any]:
    """A shot record; events as ("strike", "W1"), ("contact", "W1", "R2"), ("pocket", "R2",
    "FR"), ("cushion", "Y", "right"), ("off_table", "R1"), 0.4 s apart."""
    out = []
    for k, e in enumerate(events):
        t = t0 + 0.4 * k
        d: dict[str, Any] = {"t": round(t, 2), "frame": round(t * 30), "type": e[0]}
        if e[0] == "contact":
            d["balls"] = [e[1], e[2]]
        else:
            d["ball"] = e[1]
        if e[0] == "pocket":
            d["pocket"] = e[2]
        if e[0] == "cushion":
            d["cushion"] = e[2]
        out.append(d)
    record: dict[str, Any] = {"call": None, "events": out}
    if call:
        ball, pocket = call.split()
        record["call"] = {"ball": ball, "pocket": pocket}
    if finals is not None:
        record["final_positions"] = finals
    return record


# From the opening layout: P1 pots the back red (3), then misses; P2 (W2 in hand) is to play.
GOOD = [
    _shot(0.0, "R FR", ("strike", "W1"), ("contact", "W1", "R2"), ("pocket", "R2", "FR"),
          finals={"W1": [3000.0, 700.0]}),
    _shot(30.0, "Y MR", ("strike", "W1"), ("contact", "W1", "Y"), ("cushion", "Y", "right"),
          finals={"W1": [1200.0, 600.0], "Y": [1700.0, 300.0]}),
]


def _write(path: Path, game: Any) -> Path:
    path.write_text(json.dumps(game), encoding="utf-8")
    return path


def _assert_one_line_error(err: str, *must_name: str) -> str:
    lines = err.strip("\n").splitlines()
    assert len(lines) == 1, f"expected exactly one line on stderr, got:\n{err}"
    assert "Traceback" not in err
    for text in must_name:
        assert text in lines[0], f"{text!r} not named in: {lines[0]}"
    return lines[0]


def _shots_printed(command: str, out: str) -> int:
    """How many verdicts reached stdout."""
    if command == "score":
        return len(json.loads(out)["verdicts"]) if out.strip() else 0
    return len(re.findall(r"^\s*\d+:\d\d\.\d\d\s+shot\s+\d+", out, flags=re.M))


# --- bad shots: the ones before are still printed -----------------------------------------------
W2_FROM_HAND = {"W2": [500.0, 1200.0]}
BAD_SHOTS: dict[str, tuple[list[Any], str]] = {
    "unknown_ball_id": (
        [_shot(60.0, "R HL", ("strike", "W2"), ("contact", "W2", "R3"))],
        "shots[2].events[1].balls[1]",
    ),
    "events_out_of_time_order": (
        [{**_shot(60.0, "R HL", ("strike", "W2"), ("contact", "W2", "R1"),
                  ("cushion", "R1", "left")),
          "events": [{"t": 60.0, "type": "strike", "ball": "W2"},
                     {"t": 60.5, "type": "contact", "balls": ["W2", "R1"]},
                     {"t": 60.2, "type": "cushion", "ball": "R1", "cushion": "left"}]}],
        "shots[2].events[2].t",
    ),
    "second_strike": (
        [_shot(60.0, "R HL", ("strike", "W2"), ("contact", "W2", "R1"), ("strike", "W2"))],
        "shots[2].events[2]",
    ),
    "contact_after_pocket": (
        [_shot(60.0, "R HL", ("strike", "W2"), ("contact", "W2", "R1"), ("pocket", "R1", "HL"),
               ("contact", "W2", "R1"))],
        "shots[2].events[3]",
    ),
    "pocket_after_off_table": (
        [_shot(60.0, "R HL", ("strike", "W2"), ("contact", "W2", "R1"), ("off_table", "R1"),
               ("pocket", "R1", "HL"))],
        "shots[2].events[3]",
    ),
    "event_for_a_ball_in_hand": (
        # Shot 2 pockets W1 (in hand from then on); shot 3 has W1 dropping again.
        [_shot(60.0, "W HR", ("strike", "W2"), ("contact", "W2", "W1"), ("pocket", "W1", "HR"),
               finals={"W2": [900.0, 1200.0]}),
         _shot(90.0, "R HL", ("strike", "W2"), ("contact", "W2", "W1"), ("pocket", "W1", "HL"))],
        "shots[3].events[1]",
    ),
    "unknown_pocket_id": (
        [_shot(60.0, "R HL", ("strike", "W2"), ("contact", "W2", "R1"), ("pocket", "R1", "XL"))],
        "shots[2].events[2].pocket",
    ),
    "unknown_cushion_id": (
        [_shot(60.0, "R HL", ("strike", "W2"), ("cushion", "W2", "middle"))],
        "shots[2].events[1].cushion",
    ),
    "unknown_event_type": (
        [_shot(60.0, "R HL", ("strike", "W2"), ("bounce", "W2"))],
        "shots[2].events[1].type",
    ),
    "calling_own_cue_ball": (
        [_shot(60.0, "W2 FL", ("strike", "W2"), ("contact", "W2", "R1"), finals=W2_FROM_HAND)],
        "shots[2].call.ball",
    ),
    "final_position_off_the_table": (
        [_shot(60.0, "R HL", ("strike", "W2"), ("cushion", "W2", "foot"),
               finals={"W2": [4000.0, 500.0]})],
        "shots[2].final_positions.W2",
    ),
    "final_position_for_a_pocketed_ball": (
        [_shot(60.0, "R HL", ("strike", "W2"), ("contact", "W2", "R1"), ("pocket", "R1", "HL"),
               finals={"W2": [900.0, 1200.0], "R1": [1000.0, 1000.0]})],
        "shots[2].final_positions.R1",
    ),
    "shot_not_an_object": (
        ["strike W2"],
        "shots[2]",
    ),
    "events_not_a_list": (
        [{"call": None, "events": {"t": 0}}],
        "shots[2].events",
    ),
    "no_strike_first": (
        [{"call": None, "events": [{"t": 60.0, "type": "contact", "balls": ["W2", "R1"]}]}],
        "shots[2].events[0]",
    ),
}


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("case", sorted(BAD_SHOTS))
def test_a_bad_shot_is_one_line_and_the_shots_before_it_stand(
    case: str, command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    extra, where = BAD_SHOTS[case]
    path = _write(tmp_path / f"{case}.game.json", {"rules": {}, "shots": GOOD + extra})
    code, out, err = _run(capsys, command, str(path))
    assert code == 2, err
    _assert_one_line_error(err, str(path), where)
    good_before = len(GOOD) + len(extra) - 1
    assert _shots_printed(command, out) == good_before


def test_referee_run_twice_on_a_bad_file_is_still_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    extra, where = BAD_SHOTS["second_strike"]
    path = _write(tmp_path / "g.game.json", {"shots": GOOD + extra})
    assert _run(capsys, "referee", str(path))[0] == 2
    code, _, err = _run(capsys, "referee", str(path))
    assert code == 2
    _assert_one_line_error(err, str(path), where)


def test_score_still_prints_the_good_verdicts_as_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    extra, _ = BAD_SHOTS["second_strike"]
    path = _write(tmp_path / "g.game.json", {"shots": GOOD + extra})
    code, out, _ = _run(capsys, "score", str(path))
    assert code == 2
    verdicts = json.loads(out)["verdicts"]
    assert [v["points"] for v in verdicts] == [3, 0]
    assert verdicts[1]["next_shooter"] == 2


# --- a shot after the game was won ------------------------------------------------------------
WON = {
    "rules": {},
    "start": {"score": {"1": 57, "2": 10}, "shooter": 1, "opening": False,
              "positions": {"W1": [600.0, 500.0], "W2": [600.0, 1300.0], "R1": [887.5, 887.5],
                            "Y": [1775.0, 887.5], "R2": [2662.5, 887.5]}, "in_hand": []},
    "shots": [
        _shot(0.0, "R FR", ("strike", "W1"), ("contact", "W1", "R2"), ("pocket", "R2", "FR"),
              finals={"W1": [3000.0, 700.0]}),
        _shot(30.0, "R HL", ("strike", "W2"), ("contact", "W2", "R1"), ("pocket", "R1", "HL"),
              finals={"W2": [1000.0, 1000.0]}),
    ],
}


def test_score_refuses_a_shot_after_the_game_was_won(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path / "won.game.json", WON)
    code, out, err = _run(capsys, "score", str(path))
    assert code == 2
    _assert_one_line_error(err, str(path), "shots[1]", "won")
    verdicts = json.loads(out)["verdicts"]
    assert len(verdicts) == 1 and verdicts[0]["winner"] == 1 and verdicts[0]["score"]["1"] == 60


def test_referee_reports_and_skips_a_shot_after_the_game_was_won(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 50: a shot after the game is over is said and skipped; the run still ends with
    its report."""
    path = _write(tmp_path / "won.game.json", WON)
    report = tmp_path / "won.report.json"
    code, out, err = _run(capsys, "referee", str(path), "-o", str(report))
    line = next(x for x in err.splitlines() if "not judged" in x)
    assert str(path) in line and "shots[1]" in line and "already won" in line
    assert "Traceback" not in err
    assert "WINS" in out
    assert code == 0
    written = json.loads(report.read_text())
    assert written["winner"] == 1 and len(written["shots"]) == 1
    assert [s["shot"] for s in written["skipped_shots"]] == [1]


# --- bad files ----------------------------------------------------------------------------------
def _missing(tmp_path: Path) -> Path:
    return tmp_path / "nowhere.game.json"


def _directory(tmp_path: Path) -> Path:
    d = tmp_path / "adir.game.json"
    d.mkdir()
    return d


def _bytes(content: bytes) -> Any:
    def make(tmp_path: Path) -> Path:
        p = tmp_path / "bad.game.json"
        p.write_bytes(content)
        return p

    return make


def _json(game: Any) -> Any:
    return lambda tmp_path: _write(tmp_path / "bad.game.json", game)


BAD_FILES: dict[str, tuple[Any, tuple[str, ...]]] = {
    "missing_file": (_missing, ("no such file",)),
    "a_directory": (_directory, ("directory",)),
    "non_utf8_bytes": (_bytes(b'{"shots": [], "description": "caf\xe9 \xff"}'), ()),
    "malformed_json": (_bytes(b'{"shots": [ {"call": null, '), ("JSON",)),
    "json_not_an_object": (_json([1, 2, 3]), ("object",)),
    "json_a_string": (_json("shots"), ("object",)),
    "shots_not_a_list": (_json({"shots": {"0": {}}}), ("shots",)),
    "shots_missing": (_json({"rules": {}}), ("shots",)),
    "unknown_rules_option": (_json({"rules": {"colour": "red"}, "shots": GOOD}),
                             ("rules.colour",)),
    "bad_option_value": (_json({"rules": {"finish": "sometimes"}, "shots": GOOD}),
                         ("rules.finish",)),
    "bad_bool_option": (_json({"rules": {"extra_pot_ends_turn": "yes"}, "shots": GOOD}),
                        ("rules.extra_pot_ends_turn",)),
    "bad_table_preset": (_json({"rules": {"table": "pool-9ft"}, "shots": GOOD}),
                         ("rules.table",)),
    "bad_target": (_json({"rules": {"target": -5}, "shots": GOOD}), ("rules.target",)),
    "start_unknown_ball": (
        _json({"start": {"positions": {"R9": [100, 100]}}, "shots": GOOD}),
        ("start.positions.R9",)),
    "start_ball_off_the_table": (
        _json({"start": {"positions": {"W1": [600, 500], "W2": [600, 1300], "R1": [887.5, 887.5],
                                       "Y": [1775, 887.5], "R2": [9000, 887.5]},
                         "in_hand": []}, "shots": GOOD}),
        ("start.positions.R2",)),
    "start_unknown_field": (_json({"start": {"scores": {}}, "shots": GOOD}), ("start.scores",)),
}


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_a_bad_file_is_one_line_naming_it(
    case: str, command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make, names = BAD_FILES[case]
    path = make(tmp_path)
    code, out, err = _run(capsys, command, str(path))
    assert code == 2, err
    _assert_one_line_error(err, str(path), *names)
    assert _shots_printed(command, out) == 0


# --- bad rules files (--rules) --------------------------------------------------------------------
def _rules_file(tmp_path: Path, name: str, content: bytes) -> Path:
    p = tmp_path / name
    p.write_bytes(content)
    return p


BAD_RULES: dict[str, tuple[str, bytes, tuple[str, ...]]] = {
    "malformed_toml": ("club.toml", b'finish = "exact\ncalls = strict\n', ("TOML",)),
    "toml_bad_value": ("club.toml", b'[rules]\nfinish = "sometimes"\n', ("rules.finish",)),
    "toml_unknown_option": ("club.toml", b'banks = "seed"\nbankz = 1\n', ("rules.bankz",)),
    "malformed_json_rules": ("club.json", b'{"finish": ', ("JSON",)),
    "json_rules_not_an_object": ("club.json", b'["finish", "reach"]', ("rules",)),
}


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("case", sorted(BAD_RULES))
def test_a_bad_rules_file_is_one_line_naming_it(
    case: str, command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name, content, names = BAD_RULES[case]
    rules = _rules_file(tmp_path, name, content)
    game = _write(tmp_path / "ok.game.json", {"shots": GOOD})
    code, out, err = _run(capsys, command, "--rules", str(rules), str(game))
    assert code == 2, err
    _assert_one_line_error(err, str(rules), *names)
    assert _shots_printed(command, out) == 0


@pytest.mark.parametrize("command", COMMANDS)
def test_a_missing_rules_file(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = _write(tmp_path / "ok.game.json", {"shots": GOOD})
    rules = tmp_path / "none.toml"
    code, _, err = _run(capsys, command, "--rules", str(rules), str(game))
    assert code == 2
    _assert_one_line_error(err, str(rules))


@pytest.mark.parametrize("command", COMMANDS)
def test_a_rules_file_that_is_a_directory(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = _write(tmp_path / "ok.game.json", {"shots": GOOD})
    rules = tmp_path / "rules.toml"
    rules.mkdir()
    code, _, err = _run(capsys, command, "--rules", str(rules), str(game))
    assert code == 2
    _assert_one_line_error(err, str(rules))


@pytest.mark.parametrize("command", COMMANDS)
def test_a_non_utf8_rules_file(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rules = _rules_file(tmp_path, "club.toml", b'finish = "r\xe9ach"\n')
    game = _write(tmp_path / "ok.game.json", {"shots": GOOD})
    code, _, err = _run(capsys, command, "--rules", str(rules), str(game))
    assert code == 2
    _assert_one_line_error(err, str(rules))


START_CRASHES: dict[str, dict[str, Any]] = {
    "shots_played_not_a_number": {"shots_played": "x"},
    "respot_targets_not_a_list": {"respot_targets": 5},
}


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("case", sorted(START_CRASHES))
def test_a_bad_start_field_is_one_line(
    case: str, command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path / "bad.game.json", {"start": START_CRASHES[case], "shots": GOOD})
    code, _, err = _run(capsys, command, str(path))
    assert code == 2
    _assert_one_line_error(err, str(path), f"start.{next(iter(START_CRASHES[case]))}")


def test_start_opening_must_be_a_boolean(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    start = {**WON["start"], "score": {"1": 0, "2": 0}, "opening": "false"}
    shot = _shot(0.0, "Y MR", ("strike", "W1"), ("contact", "W1", "Y"), ("pocket", "Y", "MR"),
                 finals={"W1": [1400.0, 600.0]})
    path = _write(tmp_path / "g.game.json", {"start": start, "shots": [shot]})
    code, _, err = _run(capsys, "score", str(path))
    assert code == 2
    _assert_one_line_error(err, str(path), "start.opening")


# --- the main job with no arguments -------------------------------------------------------------
@pytest.mark.slow
def test_no_arguments_referee_the_demo_video_to_its_winner(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`kaisa` alone: the demo match's video, found, tracked and judged shot by shot, to the
    same verdicts as its labels, with both reports and the annotated video in ./kaisa-demo/.
    Each verdict is printed while the video is still being read, within 2 s of video after
    that shot's balls came to rest (the last: when the video ends)."""
    import referee.app
    import vision.tracking.tracker
    from referee.cli import DEMO_VIDEO
    from referee.evaluate import VERDICT_FIELDS

    if not DEMO_VIDEO.is_file():
        pytest.skip("sample clips not made")
    monkeypatch.chdir(tmp_path)
    frames_taken = [0]  # frames the tracker has taken from the decoder so far
    read_at_verdict: list[int] = []
    reader, line = vision.tracking.tracker.read_ahead_frames, referee.app.shot_line

    def counted(*args: Any, **kwargs: Any) -> Any:
        for item in reader(*args, **kwargs):
            frames_taken[0] += 1
            yield item

    def noted(*args: Any) -> str:
        read_at_verdict.append(frames_taken[0])
        return line(*args)

    monkeypatch.setattr(vision.tracking.tracker, "read_ahead_frames", counted)
    monkeypatch.setattr(referee.app, "shot_line", noted)
    code, out, err = _run(capsys, "referee")
    assert code == 0, err
    assert "Traceback" not in err
    expected = [v for _, _, v in load_game(demo_game_path()).judged()]
    assert _shots_printed("referee", out) == len(expected)
    total = frames_taken[0]
    # (the decoder reads at most its queue, 8 frames, ahead of what the tracker has taken)
    assert len(read_at_verdict) == len(expected) and read_at_verdict[0] + 8 < total / 4
    assert read_at_verdict == sorted(read_at_verdict) and read_at_verdict[-2] + 8 < total
    assert f"player {expected[-1].winner} WINS" in out
    report = json.loads((tmp_path / "kaisa-demo" / "demo_match.report.json").read_text())
    for shot, truth in zip(report["shots"], expected, strict=True):
        assert {k: shot["verdict"][k] for k in VERDICT_FIELDS} == {
            k: truth.to_dict()[k] for k in VERDICT_FIELDS}
    fps = 30.0
    for shot, taken in zip(report["shots"][:-1], read_at_verdict, strict=False):
        assert 0 < shot["found_frame"] - shot["rest_frame"] <= 2 * fps
        # (the tracker hands a frame on a few frames after it took it: its look-ahead)
        assert taken <= shot["found_frame"] + fps / 2
    assert (tmp_path / "kaisa-demo" / "demo_match.html").stat().st_size > 10_000
    assert (tmp_path / "kaisa-demo" / "demo_match.annotated.mp4").stat().st_size > 100_000


def test_kaisa_referee_alone_falls_back_to_the_recorded_demo_without_its_video(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import referee.cli

    monkeypatch.setattr(referee.cli, "DEMO_VIDEO", tmp_path / "absent.mp4")
    code, out, err = _run(capsys, "referee")
    assert code == 0, err
    assert "demo video is not installed" in err
    assert re.search(r"player [12] WINS", out), out
    assert _shots_printed("referee", out) == len(load_game(demo_game_path()).shots)
