"""§6.5 from the referee's side: before a strike the balls the last verdict respotted must lie on
their points (5 mm) and a white from hand in the house; the referee says so, line and report."""

from __future__ import annotations

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
