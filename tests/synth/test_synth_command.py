"""`kaisa synth` making a random set: a scenario the set's seed cannot play is skipped, the other
clips are still made, and the command says which one failed (exit code 1)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import synth.make
from referee.cli import main
from synth.clip import ScenarioError


def test_a_random_set_goes_on_past_a_scenario_its_seed_cannot_play(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    clips = [("pot_HL_s5", "pot_HL", 5000), ("bank_red_corner_s5", "bank_red_corner", 5001),
             ("carom_2_s5", "carom_2", 5002)]
    tried: list[str] = []

    def fake_make_clip(name: str, scenario_name: str, seed: int, out_dir: Path,
                       progress: object = None) -> dict[str, Path]:
        tried.append(name)
        if scenario_name == "bank_red_corner":
            raise ScenarioError(f"{scenario_name} (seed {seed}), shot 1: no strike in 40 tries")
        return {"video": out_dir / f"{name}.mp4"}

    monkeypatch.setattr(synth.make, "random_set", lambda seed: clips)
    monkeypatch.setattr(synth.make, "make_clip", fake_make_clip)
    monkeypatch.setattr(synth.make, "write_readme", lambda out: None)
    code = main(["synth", "--seed", "5", "-o", str(tmp_path), "--manifest"])
    err = capsys.readouterr().err
    assert code == 1
    assert tried == ["pot_HL_s5", "bank_red_corner_s5", "carom_2_s5"]
    assert "made 2 of 3 clips" in err and "bank_red_corner_s5" in err.splitlines()[-1]
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert [c["name"] for c in manifest["clips"]] == ["pot_HL_s5", "carom_2_s5"]


def test_a_clip_asked_for_by_name_that_cannot_be_played_stops_the_command(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def unplayable(*args: object) -> dict[str, Path]:
        raise ScenarioError("carom_2 (seed 9), shot 1: no strike in 40 tries")

    monkeypatch.setattr(synth.make, "make_clip", unplayable)
    assert main(["synth", "--scenario", "carom_2", "--seed", "9", "-o", str(tmp_path)]) == 1


def test_hard_makes_the_same_scenarios_under_drawn_conditions(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[tuple[str, str, int, bool]] = []

    def fake_make_clip(name: str, scenario_name: str, seed: int, out_dir: Path,
                       progress: object = None, hard: bool = False) -> dict[str, Path]:
        made.append((name, scenario_name, seed, hard))
        return {"video": out_dir / f"{name}.mp4"}

    monkeypatch.setattr(synth.make, "make_clip", fake_make_clip)
    assert main(["synth", "--hard", "--seed", "5", "-o", str(tmp_path)]) == 0
    normal = synth.make.random_set(5)
    assert [(n, s) for n, s, _, _ in made] == [(n.replace("_s5", "_h5"), s)
                                                for n, s, _ in normal]
    assert [seed for _, _, seed, _ in made] == [seed for _, _, seed in normal]
    assert all(hard for *_, hard in made)
    made.clear()
    assert main(["synth", "--scenario", "carom_2", "--seed", "9", "-o", str(tmp_path)]) == 0
    assert made == [("carom_2_s9", "carom_2", 9, False)]


def test_a_hard_sets_manifest_remakes_it_hard_and_a_normal_one_is_not_made_hard(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[tuple[str, bool]] = []

    def fake_make_clip(name: str, scenario_name: str, seed: int, out_dir: Path,
                       progress: object = None, hard: bool = False) -> dict[str, Path]:
        made.append((name, hard))
        return {"video": out_dir / f"{name}.mp4"}

    monkeypatch.setattr(synth.make, "make_clip", fake_make_clip)
    monkeypatch.setattr(synth.make, "write_readme", lambda out, hard=False: None)
    synth.make.write_manifest(tmp_path, [("pot_HL_h5", "pot_HL", 5000)], hard=True)
    assert json.loads((tmp_path / "manifest.json").read_text())["hard"] is True
    assert main(["synth", "--committed", "-o", str(tmp_path)]) == 0
    assert made == [("pot_HL_h5", True)]
    synth.make.write_manifest(tmp_path, [("pot_HL_s5", "pot_HL", 5000)])
    assert "hard" not in json.loads((tmp_path / "manifest.json").read_text())
    assert main(["synth", "--hard", "--committed", "-o", str(tmp_path)]) == 2


def test_a_hard_sets_readme_says_so(tmp_path: Path) -> None:
    synth.make.write_manifest(tmp_path, [], hard=True)
    text = synth.make.write_readme(tmp_path, hard=True).read_text()
    lines = text.splitlines()
    assert lines[0] == "# Hard clips" and "conditions" in text
    header = lines.index("| clip | seconds | shots | shows | verdicts (points, fouls) |")
    assert lines[header - 1] == ""
    assert "committed" not in text
