"""Making labelled clips: one scenario, a random set from a seed, or the committed sample set.

The committed set is listed in ``sample_videos/manifest.json`` (clip name, scenario, seed), so
``kaisa synth --committed`` remakes it identically.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from synth.clip import ScenarioError, play
from synth.scenarios import SCENARIO_BUILDERS, scenario
from synth.video import write_clip

MANIFEST = "manifest.json"


def make_clip(name: str, scenario_name: str, seed: int, out_dir: Path,
              progress: Callable[[int, int], None] | None = None,
              hard: bool = False) -> dict[str, Path]:
    """Play, render and write one clip; ScenarioError when the scenario cannot be played.
    ``hard``: under a club room's conditions drawn from ``seed`` (:mod:`synth.conditions`)."""
    clip = play(scenario(scenario_name), seed)
    return write_clip(clip, out_dir, name, progress, hard=hard)


def random_set(seed: int, hard: bool = False) -> list[tuple[str, str, int]]:
    """Every scenario once (the demo match excepted), seeds drawn from ``seed``; a hard set
    plays the same shots as the normal set of its seed, named ``NAME_hSEED``."""
    names = [n for n in SCENARIO_BUILDERS if n != "demo_match"]
    tag = "h" if hard else "s"
    return [(f"{n}_{tag}{seed}", n, seed * 1000 + i) for i, n in enumerate(names)]


def read_manifest(folder: Path) -> list[tuple[str, str, int]]:
    data = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    return [(c["name"], c["scenario"], int(c["seed"])) for c in data["clips"]]


def manifest_is_hard(folder: Path) -> bool:
    """Whether the manifest in ``folder`` lists a hard set (its clips made with ``--hard``)."""
    data = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    return bool(data.get("hard", False))


def write_manifest(folder: Path, clips: list[tuple[str, str, int]], hard: bool = False) -> None:
    shows = {n: scenario(n).shows for _, n, _ in clips}
    doc: dict[str, object] = {"format": "kaisa-sample-manifest/1"}
    if hard:
        doc["hard"] = True
    doc["clips"] = [{"name": name, "scenario": sc, "seed": seed, "shows": shows[sc]}
                    for name, sc, seed in clips]
    (folder / MANIFEST).write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")


__all__ = ["ScenarioError", "make_clip", "manifest_is_hard", "random_set", "read_manifest",
           "write_manifest"]


def write_readme(folder: Path, hard: bool = False) -> Path:
    """sample_videos/README.md: every clip, its length and what it shows, from the labels."""
    lines = ["# Sample clips", "",
             "Synthetic overhead-camera clips (1280x720, 30 fps, H.264) with exact labels,",
             "made by `kaisa synth --committed -o sample_videos` from `manifest.json` (scenario",
             "and seed of each clip; the same command remakes them identically). Each clip has",
             "`name.labels.json` (`kaisa-clip-labels/1`: true calibration, start state, every",
             "shot's events with time and frame, final positions, the rules core's verdict) and",
             "`name.tracks.csv` (every ball's true position and visibility in every frame).", "",
             "| clip | seconds | shots | shows | verdicts (points, fouls) |",
             "|---|---|---|---|---|"]
    if hard:
        lines[0:8] = ["# Hard clips", "",
                      "Synthetic overhead-camera clips in a club room's conditions (`kaisa synth",
                      "--hard`): each clip's labels say what it shows under `conditions` (light",
                      "drift and flicker, hot spots, shadows, defocus, noise, white balance, size",
                      "and encoding, cloth, a camera bump with its frame and true calibration, a",
                      "resting arm); `name.tracks.csv` has every ball's true position and",
                      "visibility in every frame."]
    for name, scenario_name, _ in read_manifest(folder):
        doc = json.loads((folder / f"{name}.labels.json").read_text(encoding="utf-8"))
        verdicts = ", ".join(
            f"{s['verdict']['points']}" + (f" {'+'.join(s['verdict']['fouls'])}"
                                            if s["verdict"]["fouls"] else "")
            for s in doc["shots"])
        if len(doc["shots"]) > 4:
            last = doc["shots"][-1]["verdict"]
            verdicts = (f"{len(doc['shots'])} shots, final score {last['score']['1']}:"
                        f"{last['score']['2']}, winner player {last['winner']}")
        lines.append(f"| `{name}.mp4` | {doc['frame_count'] / doc['fps']:.1f} | "
                     f"{len(doc['shots'])} | {scenario(scenario_name).shows} | {verdicts} |")
    path = folder / "README.md"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
