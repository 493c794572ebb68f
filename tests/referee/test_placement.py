"""§6.5 from the referee's side: before a strike the balls the last verdict respotted must lie on
their points (5 mm) and a white from hand in the house; the referee says so, line and report."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from referee.cli import demo_game_path, main
from rules import TableSpec
from rules.table import Spot


@pytest.fixture(autouse=True)
def journal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KAISA_JOURNAL", str(tmp_path / "journal.sqlite"))


def demo_with_positions_before(shot: int, positions: dict[str, list[float]],
                               tmp_path: Path) -> Path:
    game = json.loads(demo_game_path().read_text())
    game["shots"][shot]["start_positions"] = positions
    path = tmp_path / "game.json"
    path.write_text(json.dumps(game))
    return path


def test_a_red_put_back_off_its_point_is_reported(tmp_path: Path, capsys):
    # the demo's shot 4 pots R1 into FR: R1 goes back on point 1 before shot 5
    x, y = TableSpec().spot_xy(Spot.POINT1)
    path = demo_with_positions_before(4, {"R1": [x + 12.0, y]}, tmp_path)
    report = tmp_path / "r.json"
    assert main(["referee", str(path), "-o", str(report)]) == 0
    out = capsys.readouterr().out
    assert "placement before shot 5: R1 is 12 mm from its spot" in out
    shots = json.loads(report.read_text())["shots"]
    (warning,) = shots[4]["placement_warnings"]
    assert warning["ball"] == "R1" and warning["problem"] == "off_target"
    assert warning["distance_mm"] == pytest.approx(12.0)
    assert all("placement_warnings" not in s for k, s in enumerate(shots) if k != 4)


def test_a_red_put_back_within_5_mm_is_fine(tmp_path: Path, capsys):
    x, y = TableSpec().spot_xy(Spot.POINT1)
    path = demo_with_positions_before(4, {"R1": [x + 3.0, y - 2.0]}, tmp_path)
    assert main(["referee", str(path)]) == 0
    assert "placement" not in capsys.readouterr().out


def test_a_red_not_put_back_is_reported_missing(tmp_path: Path, capsys):
    path = demo_with_positions_before(4, {"W1": [500.0, 500.0]}, tmp_path)
    assert main(["referee", str(path)]) == 0
    assert "placement before shot 5: R1 was not put back" in capsys.readouterr().out


def opening_with_a_phantom_w2() -> dict:
    """The opening (both whites in hand, W1 to play): W1 placed, struck, hits Y; the camera
    also saw "W2" (a shadow in the house), touching W1 and resting there at the end."""
    return {"events": [{"t": 1.0, "type": "strike", "ball": "W1"},
                       {"t": 1.2, "type": "contact", "balls": ["W1", "W2"]},
                       {"t": 1.6, "type": "contact", "balls": ["W1", "Y"]}],
            "final_positions": {"W1": [2600.0, 1300.0], "W2": [480.0, 360.0],
                                "R1": [887.5, 887.5], "Y": [1775.0, 600.0],
                                "R2": [2662.5, 887.5]}}


def test_a_cameras_ball_the_state_has_in_hand_is_left_out_and_the_shot_judged(tmp_path: Path):
    from referee.app import referee_game
    from referee.gamefile import Game, fit_to_state
    from referee.journal import Journal
    from rules import Ball, GameState, RuleOptions, ShotFacts

    start = GameState(options=RuleOptions())
    shot = opening_with_a_phantom_w2()
    fitted, notes = fit_to_state(start, ShotFacts.from_dict(shot))
    assert [e.get("balls") for e in fitted.to_dict()["events"]] == [None, ["W1", "Y"]]
    assert Ball.W2 not in (fitted.final_positions or {}) and len(notes) == 2
    strike_only = ShotFacts.from_dict({**shot, "events": shot["events"][:1]})
    assert fit_to_state(start, strike_only)[0].events == strike_only.events
    # a file's record is the user's: refused as impossible, a camera's is fitted and judged
    from_file = Game(tmp_path / "g.json", RuleOptions(), start, (shot,))
    with pytest.raises(Exception, match="W2 is in hand"):
        list(from_file.judged())
    video = tmp_path / "v.mp4"
    video.write_bytes(b"(the video the facts were found in)")
    camera = Game(video, RuleOptions(), start, (shot,), from_camera=True)
    ((_, _, verdict),) = list(camera.judged())
    assert verdict.fouls and "opening_shot" in [f.value for f in verdict.fouls]
    with Journal(tmp_path / "j.sqlite") as journal:
        out = io.StringIO()
        run = referee_game(camera, journal, out=out)
    assert len(run.judged_now) == 1 and run.camera_notes[0] == notes
    assert "camera, shot 1: 1 event of W2 left out (in hand)" in out.getvalue()
