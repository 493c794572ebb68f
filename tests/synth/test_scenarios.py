"""Each scenario's labels show what its name says; labels validate; clips are remade exactly."""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from referee.labels import load_labels
from synth.clip import labels, play
from synth.make import read_manifest
from synth.scenarios import SCENARIO_BUILDERS, scenario

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_videos"
Doc = dict[str, Any]


def events(doc: Doc, kind: str, shot: int = 0) -> list[dict[str, Any]]:
    return [e for e in doc["shots"][shot]["events"] if e["type"] == kind]


def verdict(doc: Doc, shot: int = 0) -> dict[str, Any]:
    return doc["shots"][shot]["verdict"]


def pot_into(pocket: str) -> Callable[[Doc], bool]:
    return lambda d: any(e["pocket"] == pocket for e in events(d, "pocket")) and verdict(d)[
        "points"] > 0 and verdict(d)["pocket"] == pocket


EXPECT: dict[str, Callable[[Doc], bool]] = {
    **{f"pot_{p}": pot_into(p) for p in ("HR", "HL", "MR", "ML", "FR", "FL")},
    "carom_1": lambda d: len(verdict(d)["caroms"]) == 1 and verdict(d)["points"] == 9,
    "carom_2": lambda d: len(verdict(d)["caroms"]) == 2 and verdict(d)["points"] == 11,
    "carom_3": lambda d: len(verdict(d)["caroms"]) == 3 and verdict(d)["points"] == 14,
    "combination": lambda d: verdict(d)["combination"] and verdict(d)["points"] == 3,
    "chain_two": lambda d: "chain_too_long" in verdict(d)["fouls"],
    "bank_red_middle": lambda d: verdict(d)["bank"] and verdict(d)["pocket"] == "MR"
    and verdict(d)["points"] == 3,
    "bank_red_corner": lambda d: verdict(d)["bank"] and "bank_not_allowed" in verdict(d)["fouls"],
    "bank_yellow_corner": lambda d: verdict(d)["bank"] and verdict(d)["scored_ball"] == "Y"
    and verdict(d)["pocket"] in ("HR", "HL", "FR", "FL") and verdict(d)["points"] == 12,
    "yellow_middle_twice": lambda d: verdict(d, 0)["points"] == 12
    and "yellow_middle_twice" in verdict(d, 1)["fouls"] and verdict(d, 1)["turn_passes"],
    "scratch_pocket": lambda d: any(e["ball"] == "W1" for e in events(d, "pocket"))
    and "scratch" in verdict(d)["fouls"],
    "cue_off_table": lambda d: any(e["ball"] == "W1" for e in events(d, "off_table"))
    and "scratch" in verdict(d)["fouls"],
    "object_off_table": lambda d: any(e["ball"] == "Y" for e in events(d, "off_table"))
    and "object_off_table" in verdict(d)["fouls"] and verdict(d)["points"] > 0,
    "safety": lambda d: not events(d, "contact") and not events(d, "pocket")
    and d["shots"][0]["call"] is None and verdict(d)["turn_passes"],
    "opening_legal": lambda d: d["start"]["opening"] and verdict(d)["points"] == 3
    and not verdict(d)["fouls"],
    "opening_yellow_first": lambda d: d["start"]["opening"]
    and "opening_shot" in verdict(d)["fouls"] and events(d, "contact")[0]["balls"] in (
        ["W1", "Y"], ["Y", "W1"]),
    "touching_whites": lambda d: math.isclose(math.dist(
        d["shots"][0]["start_positions"]["W1"], d["shots"][0]["start_positions"]["W2"]), 68.0,
        abs_tol=0.01),
    "fast_shot": lambda d: d["shots"][0]["strike"]["speed_mm_s"] >= 6000
    and verdict(d)["points"] > 0,
    "hidden_under_arm": lambda d: verdict(d)["points"] > 0,
    "demo_match": lambda d: len(d["shots"]) >= 10 and d["shots"][-1]["verdict"]["winner"]
    in (1, 2),
}


def test_every_scenario_has_an_expectation():
    assert set(EXPECT) == set(SCENARIO_BUILDERS)


def committed() -> list[tuple[str, str, int]]:
    return read_manifest(SAMPLES) if (SAMPLES / "manifest.json").exists() else []


@pytest.mark.parametrize(("name", "scenario_name", "seed"), committed())
def test_committed_clip_labels_validate_and_show_their_scenario(name: str, scenario_name: str,
                                                                seed: int):
    labelled = load_labels(SAMPLES / f"{name}.labels.json")  # re-judges every shot
    doc = dict(labelled.doc)
    assert EXPECT[scenario_name](doc), f"{name} does not show {scenario(scenario_name).shows}"
    assert doc["image_size"] == [1280, 720] and doc["fps"] == 30
    seconds = doc["frame_count"] / doc["fps"]
    assert scenario_name == "demo_match" or 3 <= seconds <= 12
    assert (SAMPLES / doc["video"]).stat().st_size > 10_000
    with labelled.tracks_path.open() as f:
        rows = list(csv.DictReader(f))
    assert {int(r["frame"]) for r in rows} == set(range(doc["frame_count"]))


def test_hidden_under_arm_hides_the_yellow_at_the_strike():
    path = SAMPLES / "hidden_under_arm.tracks.csv"
    if not path.exists():
        pytest.skip("sample clips not made")
    doc = json.loads((SAMPLES / "hidden_under_arm.labels.json").read_text())
    strike = doc["shots"][0]["strike_frame"]
    with path.open() as f:
        hidden = [int(r["frame"]) for r in csv.DictReader(f) if r["ball"] == "Y"
                  and r["visible"] == "0"]
    assert any(abs(f - strike) <= 15 for f in hidden)


@pytest.mark.parametrize("name", [n for n in SCENARIO_BUILDERS if n != "demo_match"])
def test_fresh_seeds_show_the_scenario_too(name: str):
    clip = play(scenario(name), 4242)
    doc = labels(clip, f"{name}.mp4", (1280, 720), None)
    assert EXPECT[name](doc)


def test_playing_is_deterministic():
    a = labels(play(scenario("carom_2"), 7), "x.mp4", (1280, 720), None)
    b = labels(play(scenario("carom_2"), 7), "x.mp4", (1280, 720), None)
    assert a == b


def test_a_committed_clip_is_remade_identically(tmp_path: Path):
    from synth.make import make_clip

    entries = {name: (sc, seed) for name, sc, seed in committed()}
    if "scratch_pocket" not in entries:
        pytest.skip("sample clips not made")
    sc, seed = entries["scratch_pocket"]
    first = make_clip("scratch_pocket", sc, seed, tmp_path / "a")
    second = make_clip("scratch_pocket", sc, seed, tmp_path / "b")
    for kind in ("labels", "tracks", "video"):
        assert first[kind].read_bytes() == second[kind].read_bytes(), kind
    for kind in ("labels", "tracks"):
        assert first[kind].read_bytes() == (SAMPLES / first[kind].name).read_bytes(), kind
