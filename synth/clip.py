"""A scenario played out: shots simulated one after another, judged by the rules core, with the
labels of DESIGN.md (`kaisa-clip-labels/1`) and a timeline the renderer can draw."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from rules import Ball, GameState, RuleOptions, ShotFacts, Verdict, advance, judge
from rules.table import TableSpec
from synth.physics import Shot, simulate
from synth.scenarios import Context, Planned, Scenario

FPS = 30
LEAD_IN_S = 1.0  # still table, then the cue comes in before the first strike
BETWEEN_S = 1.2  # after the balls stop: respots are made, then the next strike
TAIL_S = 0.6  # after the last ball stops
MIN_DURATION_S = 3.2  # short shots get a longer still tail
TRIES = 40


class ScenarioError(RuntimeError):
    """A scenario could not be played (no strike shows what it promises)."""


@dataclass(frozen=True)
class PlayedShot:
    planned: Planned
    shot: Shot  # times are clip times
    facts: ShotFacts
    verdict: Verdict
    before: dict[str, tuple[float, float]]  # positions at the strike
    after: dict[str, tuple[float, float]]  # positions once respots and in-hand placements are made


@dataclass(frozen=True)
class PlayedClip:
    scenario: Scenario
    seed: int
    table: TableSpec
    start: GameState
    shots: tuple[PlayedShot, ...]
    duration_s: float

    @property
    def frame_count(self) -> int:
        return math.floor(self.duration_s * FPS) + 1


def frame_of(t: float) -> int:
    """The frame whose exposure (centred on frame / FPS) contains ``t``."""
    return math.floor(t * FPS + 0.5)


LAYOUTS = 8  # start layouts tried before a scenario is declared impossible


def play(scenario: Scenario, seed: int, table: TableSpec | None = None) -> PlayedClip:
    """Simulate and judge every shot of ``scenario``; deterministic for a seed. A start layout
    on which some shot cannot be played is replaced by a new one (from the same generator)."""
    table = table or TableSpec()
    rng = np.random.default_rng(seed)
    for _ in range(LAYOUTS - 1):
        try:
            return _play_layout(scenario, seed, table, rng)
        except ScenarioError:
            continue
    return _play_layout(scenario, seed, table, rng)


def _play_layout(scenario: Scenario, seed: int, table: TableSpec,
                 rng: np.random.Generator) -> PlayedClip:
    options = RuleOptions.from_mapping({**scenario.rules, "table": table.to_dict()})
    start = GameState.from_dict(scenario.start(table, rng), options)
    state = start
    positions = {b.value: xy for b, xy in state.on_table.items()}
    t = LEAD_IN_S
    played: list[PlayedShot] = []
    for k, planner in enumerate(scenario.shots):
        positions = _place_in_hand(table, state, positions, rng)
        if state.winner is not None:
            break
        for _ in range(TRIES):
            ctx = Context(table, dict(positions), state.shooter, rng, state.score)
            planned = planner(ctx)
            if planned is None:
                continue
            shot = simulate(ctx.positions, planned.strike, table=table,
                            off_table=planned.off_table, t0=t)
            facts = _facts(shot, planned)
            verdict = judge(_with_positions(state, ctx.positions), facts)
            if planned.expect(verdict, shot):
                break
        else:
            raise ScenarioError(f"{scenario.name} (seed {seed}), shot {k + 1}: no strike in "
                                f"{TRIES} tries shows what the scenario promises")
        if k == 0:
            # the planner may have moved balls to set the shot up: the clip starts from there
            start = replace(start, positions={Ball(b): xy for b, xy in ctx.positions.items()
                                              if Ball(b) not in start.in_hand})
        state = advance(_with_positions(state, ctx.positions), verdict)
        after = {b.value: xy for b, xy in verdict.positions_after.items()}
        played.append(PlayedShot(planned, shot, facts, verdict, dict(ctx.positions), after))
        positions = after
        t = shot.rest_time + BETWEEN_S
    if scenario.win_after is not None and (state.winner is None
                                           or len(played) < scenario.win_after):
        raise ScenarioError(f"{scenario.name} (seed {seed}): no winner after "
                            f"{scenario.win_after} shots or more")
    end = played[-1].shot.rest_time if played else LEAD_IN_S
    duration = max(end + TAIL_S, MIN_DURATION_S)
    return PlayedClip(scenario, seed, table, start, tuple(played), duration)


def _with_positions(state: GameState, positions: dict[str, tuple[float, float]]) -> GameState:
    """The state with the balls where the planner put them (scenario layouts move balls)."""
    on = {Ball(b): xy for b, xy in positions.items()}
    return replace(state, positions=on, in_hand=frozenset(w for w in state.in_hand
                                                          if w not in on))


def _place_in_hand(table: TableSpec, state: GameState, positions: dict[str, tuple[float, float]],
                   rng: np.random.Generator) -> dict[str, tuple[float, float]]:
    """The striker places his white from hand somewhere free in the house."""
    cue = "W1" if state.shooter == 1 else "W2"
    if Ball(cue) not in state.in_hand or cue in positions:
        return positions
    ctx = Context(table, dict(positions), state.shooter, rng)
    for _ in range(500):
        xy = (ctx.uniform(3 * 34.0, table.house_line_x - 34.0),
              ctx.uniform(3 * 34.0, table.width_mm - 3 * 34.0))
        if ctx.free(xy):
            return {**positions, cue: xy}
    raise ScenarioError("no free place in the house for the white in hand")


def _facts(shot: Shot, planned: Planned) -> ShotFacts:
    events = []
    for fact in shot.facts():
        events.append({**fact, "frame": frame_of(float(fact["t"]))})  # type: ignore[arg-type]
    return ShotFacts.from_dict({
        "call": dict(planned.call) if planned.call else None, "events": events,
        "final_positions": {b: list(xy) for b, xy in shot.final_positions.items()},
    })


def labels(clip: PlayedClip, video_name: str, image_size: tuple[int, int],
           calibration: dict[str, Any] | None) -> dict[str, Any]:
    """The DESIGN.md `kaisa-clip-labels/1` document of a played clip."""
    shots = []
    for p in clip.shots:
        strike = p.planned.strike
        shots.append({**p.facts.to_dict(), "strike_frame": frame_of(p.shot.t0),
                      "rest_frame": frame_of(p.shot.rest_time),
                      "strike": {"ball": strike.ball, "speed_mm_s": round(strike.speed, 1),
                                 "direction_rad": round(strike.direction, 6),
                                 "follow": round(strike.follow, 4), "side": round(strike.side, 4)},
                      "start_positions": {b: [round(x, 3), round(y, 3)]
                                          for b, (x, y) in p.before.items()},
                      "verdict": p.verdict.to_dict()})
    return {
        "format": "kaisa-clip-labels/1", "video": video_name, "fps": FPS,
        "frame_count": clip.frame_count, "image_size": list(image_size),
        "table": clip.table.to_dict(), "calibration": calibration,
        "start": {k: v for k, v in clip.start.to_dict().items()
                  if k in ("score", "shooter", "opening", "positions", "in_hand")},
        "rules": clip.start.options.to_dict(),
        "scenario": {"name": clip.scenario.name, "shows": clip.scenario.shows,
                     "seed": clip.seed},
        "shots": shots,
    }
