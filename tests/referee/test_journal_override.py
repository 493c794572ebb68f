"""Issue 50, item 2: an undone shot is judged again on --resume, and the operator may first
override its call or a fact (`kaisa journal override`). The override is a journal entry (schema
version 2), listed in place by `journal show` with its reason; the verdict follows the
overridden facts; an impossible override is one line, exit 2, nothing written."""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from referee.cli import demo_game_path
from referee.gamefile import load_game
from referee.journal import SCHEMA_VERSION, Journal
from rules import GameState, Match, RuleOptions, ShotFacts
from tests.referee.conftest import run_cli as _run

DEMO_GAME = json.loads(demo_game_path().read_text())
DEMO = [v.to_dict() for _, _, v in load_game(demo_game_path()).judged()]
SHOTS = len(DEMO)
SHOT_LINE = re.compile(r"^\s*\d+:\d\d\.\d\d\s+shot\s+(\d+)", re.M)
SAMPLES = Path(__file__).resolve().parents[2] / "sample_videos"


def _verdicts(path: Path, match_id: int = 1) -> list[dict[str, Any]]:
    with Journal(path, readonly=True) as j:
        return [v.to_dict() for v in j.load(match_id).match.verdicts]


def _entries(path: Path) -> int:
    with sqlite3.connect(path) as db:
        return int(db.execute("SELECT COUNT(*) FROM entries").fetchone()[0])


def _expected(shots: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The verdicts of the demo judged straight through with these shot facts (the test's own
    edit of the record, independent of the override code)."""
    options = RuleOptions.from_mapping(DEMO_GAME["rules"])
    match = Match(GameState.from_dict(DEMO_GAME["start"], options))
    for k, shot in enumerate(shots):
        match, _ = match.play(ShotFacts.from_dict(shot, f"shots[{k}]"))
    return [v.to_dict() for v in match.verdicts]


def _demo_shots() -> list[dict[str, Any]]:
    return copy.deepcopy(DEMO_GAME["shots"])


def _played_and_undone(capsys: pytest.CaptureFixture[str], game: Path, undos: int = 1) -> None:
    assert _run(capsys, "referee", str(game))[0] == 0
    for _ in range(undos):
        assert _run(capsys, "journal", "undo", "--reason", "disputed")[0] == 0


# --- the verdict follows the override ----------------------------------------------------------
def test_a_pot_dropped_r1_stayed_on_the_lip(journal_path: Path, game: Path, tmp_path: Path,
                                            capsys):
    _played_and_undone(capsys, game)  # the winning shot 12 (R1 in HL) undone: running again
    code, out, err = _run(capsys, "journal", "override", "--drop-event", "pocket:R1",
                          "--reason", "R1 stayed on the lip")
    assert code == 0, err
    assert re.search(r"override\s+shot 12: drop pocket:R1  \(R1 stayed on the lip\)", out)
    assert "the next --resume of this match judges shot 12 again" in out
    report = tmp_path / "r.json"
    code, out, err = _run(capsys, "referee", str(game), "--resume", "-o", str(report))
    assert code == 0, err
    assert [int(n) for n in SHOT_LINE.findall(out)] == [SHOTS]
    assert "shot 12 judged again with the override of entry" in err
    assert "(R1 stayed on the lip): drop pocket:R1" in err

    shots = _demo_shots()
    last = shots[-1]
    last["events"] = [e for e in last["events"] if e["type"] != "pocket"]
    r = 34.0  # R1 on the lip of HL: one ball radius in from each of its cushions
    last.setdefault("final_positions", {})["R1"] = [r, 1775.0 - r]
    expected = _expected(shots)
    assert expected[-1]["points"] == 0 and expected[-1]["winner"] is None  # (not the straight run)
    assert _verdicts(journal_path) == expected
    shot = json.loads(report.read_text())["shots"][-1]
    assert shot["final_positions"]["R1"] == [r, 1775.0 - r]
    ((named,),) = [shot["overrides"]]
    assert named["reason"] == "R1 stayed on the lip" and named["change"] == "drop pocket:R1"

    # journal show: the undone verdict, the undo, the override (with its reason), the shot
    # judged again, each in place under its own number
    code, out, _ = _run(capsys, "journal", "show")
    lines = out.splitlines()[1:-1]
    assert [int(n) for n in SHOT_LINE.findall(out)] == [*range(1, SHOTS + 1), SHOTS]
    assert lines[-4].endswith("[undone]") and "WINS" in lines[-4]
    assert re.match(r"\s+undo\s+shot 12 withdrawn  \(disputed\)", lines[-3])
    assert re.match(r"\s+override\s+shot 12: drop pocket:R1  \(R1 stayed on the lip\)",
                    lines[-2])
    assert re.search(r"shot 12 .*\[with the override of entry 13\]$", lines[-1])


def test_a_different_call(journal_path: Path, game: Path, capsys):
    _played_and_undone(capsys, game)
    code, _, err = _run(capsys, "journal", "override", "--call", "R:FR", "--reason",
                        "he called the foot-right pocket")
    assert code == 0, err
    assert _run(capsys, "referee", str(game), "--resume")[0] == 0
    shots = _demo_shots()
    shots[-1]["call"] = {"ball": "R", "pocket": "FR"}
    expected = _expected(shots)
    assert expected[-1] != DEMO[-1]
    assert _verdicts(journal_path) == expected


def test_undo_then_resume_without_an_override_gives_the_straight_run(journal_path: Path,
                                                                     game: Path, capsys):
    _played_and_undone(capsys, game, undos=3)
    assert _run(capsys, "referee", str(game), "--resume")[0] == 0
    assert _verdicts(journal_path) == DEMO


def test_an_earlier_shot_overridden_and_a_later_one_too(journal_path: Path, game: Path, capsys):
    """Shots 11 and 12 undone: shot 11 (Y in MR) loses its pot; shot 12 gets another pocket
    (--shot 12: not the next one, checked as facts only). Both judged again in turn."""
    _played_and_undone(capsys, game, undos=2)
    assert _run(capsys, "journal", "override", "--drop-event", "pocket:Y", "--final",
                "Y:1775,40", "--reason", "Y hung in the jaws")[0] == 0
    code, _, err = _run(capsys, "journal", "override", "--shot", "12", "--drop-event",
                        "pocket:R1", "--add-event", "pocket:R1:HR", "--reason",
                        "it went in the other corner")
    assert code == 0, err
    code, out, err = _run(capsys, "referee", str(game), "--resume")
    assert code == 0, err
    assert [int(n) for n in SHOT_LINE.findall(out)] == [SHOTS - 1, SHOTS]
    shots = _demo_shots()
    shots[-2]["events"] = [e for e in shots[-2]["events"] if e["type"] != "pocket"]
    shots[-2].setdefault("final_positions", {})["Y"] = [1775.0, 40.0]
    for event in shots[-1]["events"]:
        if event["type"] == "pocket":
            event["pocket"] = "HR"
    assert _verdicts(journal_path) == _expected(shots)


def test_the_facts_replaced_from_a_file(journal_path: Path, game: Path, tmp_path: Path,
                                        capsys):
    _played_and_undone(capsys, game)
    facts = copy.deepcopy(DEMO_GAME["shots"][-1])
    facts["call"] = None
    path = tmp_path / "facts.json"
    path.write_text(json.dumps(facts))
    assert _run(capsys, "journal", "override", "--facts", str(path))[0] == 0
    assert _run(capsys, "referee", str(game), "--resume")[0] == 0
    shots = _demo_shots()
    shots[-1]["call"] = None
    assert _verdicts(journal_path) == _expected(shots)


def test_undo_withdraws_an_override(journal_path: Path, game: Path, capsys):
    _played_and_undone(capsys, game)
    assert _run(capsys, "journal", "override", "--call", "R:FR")[0] == 0
    code, out, _ = _run(capsys, "journal", "undo", "--reason", "wrong call typed")
    assert code == 0
    assert re.search(r"override\s+shot 12: call R:FR  \(no reason given\)  \[undone\]", out)
    assert re.search(r"undo\s+the override of shot 12 \(entry 13\) withdrawn  "
                     r"\(wrong call typed\)", out)
    assert _run(capsys, "referee", str(game), "--resume")[0] == 0
    assert _verdicts(journal_path) == DEMO


def test_an_override_stands_when_its_judged_again_shot_is_undone(journal_path: Path,
                                                                 game: Path, capsys):
    _played_and_undone(capsys, game)
    assert _run(capsys, "journal", "override", "--call", "R:FR")[0] == 0
    assert _run(capsys, "referee", str(game), "--resume")[0] == 0
    overridden = _verdicts(journal_path)
    assert _run(capsys, "journal", "undo")[0] == 0  # the verdict judged with the override
    assert _run(capsys, "referee", str(game), "--resume")[0] == 0
    assert _verdicts(journal_path) == overridden


# --- refused: one line, exit 2, nothing written -------------------------------------------------
@pytest.mark.parametrize(("argv", "said"), [
    (["--drop-event", "pocket:R3"], "unknown ball id 'R3'"),
    (["--call", "R3:FL"], "expected a ball to call"),
    (["--call", "R:XX"], "expected one of HR, HL, MR, ML, FR, FL, got 'XX'"),
    (["--add-event", "pocket:R1:ZZ"], "unknown pocket 'ZZ'"),
    (["--add-event", "pocket:R1"], "names its pocket too"),
    (["--add-event", "strike:W2"], "the strike is the shot itself"),
    (["--drop-event", "pocket:Y"], "no pocket:Y event in the shot"),
    (["--add-event", "contact:W2:Y@1.0"], "before the strike"),
    (["--add-event", "cushion:R1:foot@80"], "R1 has a cushion event after it was pocketed"),
    (["--final", "R1:100,100"], "R1 has a final position but left the table"),
    (["--call", "W2:FL"], "the call names the striker's own cue ball"),
    (["--shot", "3", "--call", "R:FL"], "shot 3 of match 1 is not an undone shot"),
    (["--shot", "0", "--call", "R:FL"], "--shot: expected a shot number >= 1"),
    ([], "an override changes something"),
    (["--facts", "missing.json"], "no such file"),
])
def test_impossible_overrides_are_refused(journal_path: Path, game: Path, capsys,
                                          argv: list[str], said: str):
    _played_and_undone(capsys, game)
    before = _entries(journal_path)
    code, out, err = _run(capsys, "journal", "override", *argv, "--reason", "x")
    assert code == 2
    assert err.count("\n") == 1 and "Traceback" not in err
    assert said in err
    assert out == ""
    assert _entries(journal_path) == before
    assert _run(capsys, "referee", str(game), "--resume")[0] == 0  # judged as before
    assert _verdicts(journal_path) == DEMO


def test_an_override_with_no_undone_shot_is_refused(journal_path: Path, game: Path, capsys):
    assert _run(capsys, "referee", str(game))[0] == 0
    code, _, err = _run(capsys, "journal", "override", "--call", "R:FL")
    assert code == 2 and err.count("\n") == 1
    assert "match 1 has no undone shot to override" in err and "journal undo 1" in err
    # an undone shot judged again is no longer one
    assert _run(capsys, "journal", "undo")[0] == 0
    assert _run(capsys, "referee", str(game), "--resume")[0] == 0
    code, _, err = _run(capsys, "journal", "override", "--call", "R:FL")
    assert code == 2 and "no undone shot" in err
    code, _, err = _run(capsys, "journal", "override", "7", "--call", "R:FL")
    assert code == 2 and err.count("\n") == 1 and "no match 7" in err


def test_override_options_belong_to_override(journal_path: Path, game: Path, capsys):
    _played_and_undone(capsys, game)
    code, _, err = _run(capsys, "journal", "show", "--call", "R:FL")
    assert code == 2 and err.count("\n") == 1 and "--call is for `kaisa journal override`" in err


def test_an_override_of_a_held_match_is_refused(journal_path: Path, game: Path, capsys):
    import socket

    _played_and_undone(capsys, game)
    with sqlite3.connect(journal_path) as db:
        db.execute("UPDATE matches SET lease_pid = ?, lease_host = ?, lease_at = 'now'",
                   (os.getppid(), socket.gethostname()))
    code, _, err = _run(capsys, "journal", "override", "--call", "R:FL")
    assert code == 2 and err.count("\n") == 1 and f"pid {os.getppid()}" in err


# --- the file format ---------------------------------------------------------------------------
def test_a_version_1_journal_is_read_as_it_is_and_migrated_to_2(journal_path: Path, game: Path,
                                                                 capsys):
    _played_and_undone(capsys, game)
    with sqlite3.connect(journal_path) as db:  # as version 1 wrote it
        db.execute("ALTER TABLE entries DROP COLUMN override_json")
        db.execute("PRAGMA user_version = 1")
    code, out, _ = _run(capsys, "journal", "show")  # read-only: read as it is
    assert code == 0 and "undo        shot 12 withdrawn" in out
    with sqlite3.connect(journal_path) as db:
        assert db.execute("PRAGMA user_version").fetchone() == (1,)
    assert _run(capsys, "journal", "override", "--call", "R:FR")[0] == 0  # migrated, written
    with sqlite3.connect(journal_path) as db:
        assert db.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,) == (2,)
        columns = [row[1] for row in db.execute("PRAGMA table_info(entries)")]
        assert "override_json" in columns
    assert _run(capsys, "referee", str(game), "--resume")[0] == 0
    shots = _demo_shots()
    shots[-1]["call"] = {"ball": "R", "pocket": "FR"}
    assert _verdicts(journal_path) == _expected(shots)


def test_a_damaged_override_row_is_named(journal_path: Path, game: Path, capsys):
    _played_and_undone(capsys, game)
    assert _run(capsys, "journal", "override", "--call", "R:FR")[0] == 0
    with sqlite3.connect(journal_path) as db:
        db.execute("UPDATE entries SET override_json = '{\"drop_events\": [\"pocket:R9\"]}' "
                   "WHERE kind = 'override'")
    code, _, err = _run(capsys, "referee", str(game), "--resume")
    assert code == 2 and err.count("\n") == 1
    assert "match 1 is damaged at shot 12 (entry 13)" in err and "R9" in err


# --- a video: the shot is found again, then overridden ------------------------------------------
@pytest.mark.skipif(not (SAMPLES / "pot_FL.mp4").exists(), reason="sample clips not made")
def test_a_video_shot_found_again_is_judged_with_the_override(journal_path: Path,
                                                              tmp_path: Path, capsys):
    video = tmp_path / "pot_FL.mp4"
    shutil.copy(SAMPLES / "pot_FL.mp4", video)
    labels = json.loads((SAMPLES / "pot_FL.labels.json").read_text())
    (tmp_path / "pot_FL.labels.json").write_text(json.dumps(labels))
    calib = tmp_path / "calib.json"
    calib.write_text(json.dumps(labels["calibration"]))
    argv = ["referee", str(video), "--calibration", str(calib)]
    assert _run(capsys, *argv)[0] == 0
    (first,) = _verdicts(journal_path)
    assert first["scored_ball"] is not None and first["points"] > 0
    assert _run(capsys, "journal", "undo", "--reason", "disputed")[0] == 0
    pot = next(e for e in json.loads(json.dumps(labels["shots"][0]))["events"]
               if e["type"] == "pocket")
    code, _, err = _run(capsys, "journal", "override", "--drop-event", f"pocket:{pot['ball']}",
                        "--reason", "it stayed on the lip")
    assert code == 0, err
    code, out, err = _run(capsys, *argv, "--resume")
    assert code == 0, err
    assert [int(n) for n in SHOT_LINE.findall(out)] == [1]
    (again,) = _verdicts(journal_path)
    assert again["scored_ball"] is None and again["points"] == 0
    with Journal(journal_path, readonly=True) as j:
        (entry,) = j.load(1).match.entries
    facts = entry.facts  # type: ignore[union-attr]
    assert pot["ball"] in {b.value for b in facts.final_positions or {}}
    assert "rest_frame" in facts.extra and facts.extra["overrides"][0]["entry"] == 2


def test_a_shot_the_rules_refuse_after_an_override_names_it(journal_path: Path, game: Path,
                                                            tmp_path: Path, capsys):
    """Shot 11 overridden into a scratch (W2 pocketed: in hand, player 1 to play); shot 12, a
    strike of W2 that is now in hand, cannot be judged: the run stops there with its report,
    and the line names the override judged with it and how to withdraw it."""
    _played_and_undone(capsys, game, undos=2)
    assert _run(capsys, "journal", "override", "--add-event", "pocket:W2:HR")[0] == 0
    assert _run(capsys, "journal", "override", "--shot", "12", "--call", "R:FR",
                "--reason", "typed")[0] == 0
    report = tmp_path / "r.json"
    code, out, err = _run(capsys, "referee", str(game), "--resume", "-o", str(report))
    assert code == 2
    (line,) = [x for x in err.splitlines() if x.startswith("kaisa: /")]
    assert "shots[11]" in line and "W2 is in hand" in line
    assert "judged with the override of entry 15 (typed)" in line
    assert "`kaisa journal show 1` lists the entries" in line
    assert [int(n) for n in SHOT_LINE.findall(out)] == [SHOTS - 1]
    assert json.loads(report.read_text())["stopped"]
    # withdrawn from the last: shot 11 as judged now, then the override of shot 12
    assert _run(capsys, "journal", "undo", "1")[0] == 0
    code, out, _ = _run(capsys, "journal", "undo", "1")
    assert code == 0 and re.search(r"undo\s+the override of shot 12 \(entry 15\) withdrawn", out)
    assert _rows_status(journal_path) == "running"


def _rows_status(path: Path) -> str:
    with sqlite3.connect(path) as db:
        return str(db.execute("SELECT status FROM matches").fetchone()[0])
