"""Golden GAME files: `kaisa score NAME.game.json` must give the verdicts of NAME.expected.json.

The expected verdicts were worked out by hand from RULES.md (each shot's ``why`` says which rule
gives it), not copied from the program. Comparison, field by field:
- ``fouls``, ``flags``, ``in_hand`` and ``caroms`` are sets (RULES.md orders none of them);
- ``respots`` in order (RULES.md §6.3: yellow first, then R1, then R2), positions to 1e-6 mm;
- everything else exactly.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from referee.cli import main

HERE = Path(__file__).parent
GAMES = sorted(HERE.glob("*.game.json"))
# DESIGN.md's verdict fields (plus `pocket`): every expected verdict states all of them.
VERDICT_FIELDS = {
    "shooter", "cue_ball", "called", "scored_ball", "caroms", "combination", "bank", "points",
    "fouls", "penalty", "turn_passes", "next_shooter", "in_hand", "respots", "score", "winner",
    "flags", "pocket",
}
AS_SETS = {"fouls", "flags", "in_hand", "caroms"}


def _expected_path(game: Path) -> Path:
    return game.with_name(game.name.replace(".game.json", ".expected.json"))


def _same(field: str, want: Any, got: Any) -> bool:
    if field in AS_SETS:
        return isinstance(got, list) and sorted(want) == sorted(got) and len(set(got)) == len(got)
    if field == "respots":
        return (
            isinstance(got, list)
            and len(want) == len(got)
            and all(
                w["ball"] == g["ball"]
                and w["point"] == g["point"]
                and all(math.isclose(a, b, abs_tol=1e-6)
                        for a, b in zip(w["xy_mm"], g["xy_mm"], strict=True))
                for w, g in zip(want, got, strict=True)
            )
        )
    return bool(want == got and type(want) is type(got))


def _diff(game: Path, expected: list[dict[str, Any]], got: list[dict[str, Any]]) -> list[str]:
    shots = json.loads(game.read_text(encoding="utf-8"))["shots"]
    problems = []
    if len(expected) != len(got):
        problems.append(f"{len(got)} verdicts, expected {len(expected)}")
    for i, (want, have) in enumerate(zip(expected, got, strict=False)):
        for field in sorted(want):
            if not _same(field, want[field], have.get(field)):
                problems.append(
                    f"shot {i} {field}: expected {json.dumps(want[field])}, "
                    f"got {json.dumps(have.get(field))}\n    why: {shots[i].get('why', '?')}"
                )
    return problems


def _score_verdicts(game: Path, capsys: pytest.CaptureFixture[str]) -> list[dict[str, Any]]:
    code = main(["score", str(game)])
    out, err = capsys.readouterr()
    assert code == 0 and not err, f"kaisa score {game.name}: exit {code}: {err}"
    verdicts: list[dict[str, Any]] = json.loads(out)["verdicts"]
    return verdicts


@pytest.mark.parametrize("game", GAMES, ids=[g.name.removesuffix(".game.json") for g in GAMES])
def test_golden_game(game: Path, capsys: pytest.CaptureFixture[str]) -> None:
    expected = json.loads(_expected_path(game).read_text(encoding="utf-8"))
    assert expected["game"] == game.name
    got = _score_verdicts(game, capsys)
    problems = _diff(game, expected["verdicts"], got)
    assert not problems, f"{game.name}: verdicts differ from the golden file:\n  " + "\n  ".join(
        problems)


def test_golden_files_are_complete() -> None:
    """At least 12 games, each with its expected file, every shot explained, every verdict
    stating every field; and every rules option variant appears in some file."""
    assert len(GAMES) >= 12
    expected_files = sorted(HERE.glob("*.expected.json"))
    assert [_expected_path(g) for g in GAMES] == expected_files
    variants: set[tuple[str, Any]] = set()
    for game in GAMES:
        data = json.loads(game.read_text(encoding="utf-8"))
        expected = json.loads(_expected_path(game).read_text(encoding="utf-8"))["verdicts"]
        assert len(data["shots"]) == len(expected) >= 2, game.name
        for i, (shot, verdict) in enumerate(zip(data["shots"], expected, strict=True)):
            assert shot.get("why"), f"{game.name} shot {i} has no why"
            assert set(verdict) == VERDICT_FIELDS, f"{game.name} shot {i}"
        variants |= {(k, json.dumps(v)) for k, v in data.get("rules", {}).items()}
    wanted = {("finish", '"reach"'), ("penalty", '"to_opponent"'), ("banks", '"finnish"'),
              ("calls", '"strict"'), ("yellow_twice", '"counts"'),
              ("extra_pot_ends_turn", "true"), ("table", '"kaisa-10ft"')}
    assert wanted <= variants, wanted - variants


def test_console_script_scores_a_golden_game() -> None:
    """Once through the installed `kaisa` console script, as a user would run it."""
    script = Path(sys.executable).with_name("kaisa")
    assert script.exists(), f"the console script is not installed next to {sys.executable}"
    game = HERE / "table_kaisa10ft_whole_game.game.json"
    run = subprocess.run([str(script), "score", str(game)], capture_output=True, text=True,
                         timeout=60, check=False)
    assert run.returncode == 0, run.stderr
    assert run.stderr == ""
    got = json.loads(run.stdout)
    assert got["rules"]["table"]["name"] == "kaisa-10ft"
    expected = json.loads(_expected_path(game).read_text(encoding="utf-8"))["verdicts"]
    problems = _diff(game, expected, got["verdicts"])
    assert not problems, "\n".join(problems)
