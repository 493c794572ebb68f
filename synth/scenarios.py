"""Named scenarios: a start position and scripted shots, each with what it must show.

A shot planner looks at the table as it is (after the previous shots and respots) and proposes
a strike; the clip builder simulates it, judges it with the rules core, and keeps it only if the
verdict and events show what the scenario promises (``expect``). Planners draw every random
choice from the scenario's seeded generator, so a seed gives the same clip every time.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from rules import Ball, EventType, Foul, GameState, RuleOptions, Verdict, cue_ball_of
from rules.table import Pocket, Spot, TableSpec
from synth.aim import (
    aim_pot,
    angle_of,
    cue_speed_for,
    cut_angle,
    ghost_ball,
    pocket_entry,
    unit,
)
from synth.physics import BALL_IDS, Shot, Strike, simulate

Point = tuple[float, float]
R = 34.0


@dataclass(frozen=True)
class Planned:
    """A proposed strike and what the shot must then show."""

    strike: Strike
    call: Mapping[str, str] | None = None
    off_table: Mapping[str, float | str] | None = None
    expect: Callable[[Verdict, Shot], bool] = lambda v, s: True


@dataclass
class Context:
    """What a planner sees: the table now, who shoots, and the seeded generator."""

    table: TableSpec
    positions: dict[str, Point]
    shooter: int
    rng: np.random.Generator
    score: tuple[int, int] = (0, 0)

    @property
    def cue(self) -> str:
        return cue_ball_of(self.shooter).value

    def free(self, xy: Point, ignore: tuple[str, ...] = (), clearance: float = 2.2 * R) -> bool:
        """On the cloth, away from the cushions and pockets, and clear of the other balls."""
        L, W = self.table.length_mm, self.table.width_mm
        margin = 2 * R
        if not (margin <= xy[0] <= L - margin and margin <= xy[1] <= W - margin):
            return False
        return all(math.dist(xy, p) >= clearance for b, p in self.positions.items()
                   if b not in ignore)

    def uniform(self, lo: float, hi: float) -> float:
        return float(self.rng.uniform(lo, hi))


Planner = Callable[[Context], Planned | None]


@dataclass(frozen=True)
class Scenario:
    name: str
    shows: str
    start: Callable[[TableSpec, np.random.Generator], dict[str, Any]]
    shots: tuple[Planner, ...]
    rules: Mapping[str, Any] = field(default_factory=dict)
    # A match: play the planners until someone wins, which must happen after this many shots.
    win_after: int | None = None


# --- building blocks ----------------------------------------------------------------------------
def layout_start(positions: Mapping[str, Point], *, shooter: int = 1, opening: bool = False,
                 score: tuple[int, int] = (0, 0)) -> dict[str, Any]:
    return {"score": {"1": score[0], "2": score[1]}, "shooter": shooter, "opening": opening,
            "positions": {b: list(xy) for b, xy in positions.items()},
            "in_hand": [w for w in ("W1", "W2") if w not in positions]}


def spot(table: TableSpec, which: Spot) -> Point:
    return table.spot_xy(which)


def pot_layout(table: TableSpec, rng: np.random.Generator, pocket: Pocket, obj: str,
               cue: str, others: Mapping[str, Point], obj_dist: tuple[float, float] = (300, 700),
               cut_deg: tuple[float, float] = (5, 35),
               cue_dist: tuple[float, float] = (300, 800)) -> dict[str, Point] | None:
    """The object ball on the pocket's axis and the cue ball behind it at a cut angle; None when
    that lands on another ball or off the cloth."""
    o = pocket_entry(table, pocket, float(rng.uniform(*obj_dist)))
    px, py = table.pocket_xy(pocket)
    axis = unit((o[0] - px, o[1] - py))
    cut = math.radians(float(rng.uniform(*cut_deg))) * (1 if rng.random() < 0.5 else -1)
    back = (axis[0] * math.cos(cut) - axis[1] * math.sin(cut),
            axis[0] * math.sin(cut) + axis[1] * math.cos(cut))
    g = (o[0] + 2 * R * axis[0], o[1] + 2 * R * axis[1])
    d = float(rng.uniform(*cue_dist))
    c = (g[0] + back[0] * d, g[1] + back[1] * d)
    positions = {**others, obj: o, cue: c}
    ctx = Context(table, dict(others), 1, rng)
    if not (ctx.free(o) and ctx.free(c)) or math.dist(o, c) < 3 * R:
        return None
    return positions


def plan_pot(ctx: Context, obj: str, pocket: Pocket, *, object_speed: tuple[float, float] =
             (900, 1600), follow: tuple[float, float] = (-0.3, 0.6), side: float = 0.0,
             banked: bool = False, bank_guess: float | None = None, call: bool = True,
             expect: Callable[[Verdict, Shot], bool] | None = None,
             off_table: Mapping[str, float | str] | None = None) -> Planned | None:
    speed_o = ctx.uniform(*object_speed)
    aim = aim_pot(ctx.table, ctx.positions, ctx.cue, obj, pocket, speed_o, banked, bank_guess)
    if aim is None:
        return None
    direction, launch = aim
    ghost = ghost_ball(ctx.positions[obj], launch, R)
    speed = cue_speed_for(speed_o, cut_angle(ctx.positions[ctx.cue], ghost, launch),
                          math.dist(ctx.positions[ctx.cue], ghost))
    colour = obj[0] if obj[0] != "W" else "W"

    def scores_obj(v: Verdict, s: Shot, b: str = obj) -> bool:
        return v.scored_ball is not None and v.scored_ball.value == b

    return Planned(Strike(ctx.cue, speed, direction, ctx.uniform(*follow), side),
                   {"ball": colour, "pocket": pocket.value} if call else None, off_table,
                   expect or scores_obj)


def cue_path_after_last_contact(table: TableSpec, positions: Mapping[str, Point],
                                 strike: Strike) -> NDArray[np.float64]:
    """The cue ball's centre path (n, 2) from just after its last ball contact until it stops."""
    shot = simulate(positions, strike, table=table)
    hits = [e.t for e in shot.events if e.type is EventType.CONTACT and e.balls
            and strike.ball in e.balls]
    if not hits:
        return np.empty((0, 2))
    times = np.linspace(hits[-1] + 0.05, shot.rest_time, 300)
    pos, _, _ = shot.sample(times)
    path = pos[:, BALL_IDS.index(strike.ball), :]
    return path[~np.isnan(path[:, 0])]


def place_caroms(ctx: Context, planned: Planned, balls: list[str]) -> Planned | None:
    """Put ``balls`` one after another on the cue ball's path after its last contact, so that it
    caroms off each (not always full-ball: up to 0.6 radius off the path)."""
    for ball in balls:
        ctx.positions.pop(ball, None)
        path = cue_path_after_last_contact(ctx.table, ctx.positions, planned.strike)
        if len(path) < 2:
            return None
        length = np.r_[0, np.cumsum(np.hypot(*np.diff(path, axis=0).T))]
        for _ in range(12):
            k = int(np.searchsorted(length, ctx.uniform(0.1, 0.6) * length[-1]))
            x, y = path[min(k, len(path) - 1)]
            heading = path[min(k + 1, len(path) - 1)] - path[max(k - 1, 0)]
            normal = np.array([-heading[1], heading[0]]) / (np.hypot(*heading) or 1.0)
            offset = ctx.uniform(-0.6, 0.6) * R
            placed = (float(x + normal[0] * offset), float(y + normal[1] * offset))
            if ctx.free(placed):
                ctx.positions[ball] = placed
                break
        else:
            return None
    return planned


def spread(table: TableSpec, rng: np.random.Generator, balls: list[str],
           taken: Mapping[str, Point]) -> dict[str, Point] | None:
    """Put ``balls`` at random free places on the table."""
    ctx = Context(table, dict(taken), 1, rng)
    for ball in balls:
        for _ in range(200):
            xy = (ctx.uniform(3 * R, table.length_mm - 3 * R),
                  ctx.uniform(3 * R, table.width_mm - 3 * R))
            if ctx.free(xy, clearance=3 * R):
                ctx.positions[ball] = xy
                break
        else:
            return None
    return ctx.positions


def complete_layout(table: TableSpec, rng: np.random.Generator,
                    place: Callable[[], dict[str, Point] | None], rest: list[str],
                    what: str, tries: int = 200) -> dict[str, Any]:
    """The start state of the first layout from ``place`` around which the balls ``rest`` (in
    this order: it decides how the seeded generator is used) can be spread."""
    for _ in range(tries):
        layout = place()
        full = None if layout is None else spread(table, rng, rest, layout)
        if full is not None:
            return layout_start(full)
    raise RuntimeError(f"no start layout for {what}")


def caroms_of(verdict: Verdict) -> set[str]:
    return {b.value for b in verdict.caroms}


# --- the scenarios ------------------------------------------------------------------------------
def _direct_pot(pocket: Pocket, obj: str) -> Scenario:
    def start(table: TableSpec, rng: np.random.Generator) -> dict[str, Any]:
        points = {"R1": spot(table, Spot.POINT1), "Y": spot(table, Spot.POINT2),
                  "R2": spot(table, Spot.POINT3)}
        points.pop(obj, None)
        return complete_layout(
            table, rng, lambda: pot_layout(table, rng, pocket, obj, "W1", points),
            [b for b in BALL_IDS if b not in (obj, "W1", *points)], f"a pot in {pocket.value}")

    colour = {"R": "red", "Y": "yellow", "W": "white"}[obj[0]]
    return Scenario(f"pot_{pocket.value}", f"a direct pot of the {colour} into {pocket.value}",
                    start, (lambda ctx: plan_pot(ctx, obj, pocket),))


def _carom(n: int) -> Scenario:
    carom_sets = {1: ["Y"], 2: ["Y", "W2"], 3: ["Y", "W2", "R2"]}

    def start(table: TableSpec, rng: np.random.Generator) -> dict[str, Any]:
        return complete_layout(table, rng, lambda: pot_layout(
            table, rng, Pocket.FL, "R1", "W1", {}, obj_dist=(250, 500), cut_deg=(20, 45),
            cue_dist=(250, 600)), ["Y", "W2", "R2"], "caroms")

    def plan(ctx: Context) -> Planned | None:
        # More caroms need a livelier cue ball: more speed and follow.
        base = plan_pot(ctx, "R1", Pocket.FL, follow=(0.2 + 0.2 * n, 0.6 + 0.2 * n),
                        object_speed=(500 + 250 * n, 800 + 300 * n))
        if base is None:
            return None
        wanted = carom_sets[n]
        planned = place_caroms(ctx, base, wanted)
        if planned is None:
            return None
        return Planned(planned.strike, planned.call, None,
                       lambda v, s: v.scored_ball is Ball.R1 and caroms_of(v) == set(wanted))

    return Scenario(f"carom_{n}", f"a red potted with caroms on {n} ball(s) "
                    f"({'+'.join(carom_sets[n])})", start, (plan,))


def _yellow_middle_twice() -> Scenario:
    def start(table: TableSpec, rng: np.random.Generator) -> dict[str, Any]:
        points = {"R1": spot(table, Spot.POINT1), "R2": spot(table, Spot.POINT3)}
        return complete_layout(table, rng, lambda: pot_layout(
            table, rng, Pocket.MR, "Y", "W1", points, obj_dist=(250, 500), cut_deg=(5, 25),
            cue_dist=(300, 500)), ["W2"], "a yellow in a middle pocket")

    def second(ctx: Context) -> Planned | None:
        return plan_pot(ctx, "Y", Pocket.ML, object_speed=(600, 900), follow=(-0.5, 0.0),
                        expect=lambda v, s: Foul.YELLOW_MIDDLE_TWICE in v.fouls)

    def first(ctx: Context) -> Planned | None:
        return plan_pot(ctx, "Y", Pocket.MR, object_speed=(600, 900), follow=(-0.5, 0.0))

    return Scenario("yellow_middle_twice", "the yellow in a middle pocket on two consecutive "
                    "shots: the second scores nothing and ends the inning", start,
                    (first, second))


def _scratch() -> Scenario:
    def start(table: TableSpec, rng: np.random.Generator) -> dict[str, Any]:
        # The cue ball is potted "in-off" a red sitting near the pocket's axis.
        return complete_layout(table, rng, lambda: pot_layout(
            table, rng, Pocket.FR, "W1", "R1", {}, obj_dist=(300, 600)), ["Y", "R2", "W2"],
            "a scratch")

    def plan(ctx: Context) -> Planned | None:
        # W1 is sent into FR: it is "the object" of a straight stroke from R1's place, so aim
        # the cue ball itself at the pocket with a direct strike.
        target = pocket_entry(ctx.table, Pocket.FR, -20)
        w1 = ctx.positions["W1"]
        d = angle_of((target[0] - w1[0], target[1] - w1[1]))
        for delta in np.linspace(-0.01, 0.01, 21):
            strike = Strike("W1", ctx.uniform(1200, 1800), d + float(delta))
            s = simulate(ctx.positions, strike, table=ctx.table)
            if s.pocketed.get("W1") is Pocket.FR:
                return Planned(strike, {"ball": "R", "pocket": "FL"}, None,
                               lambda v, s: Foul.SCRATCH in v.fouls)
        return None

    return Scenario("scratch_pocket", "the cue ball goes into a pocket (scratch, penalty 2)",
                    start, (plan,))


def chain_layout(table: TableSpec, rng: np.random.Generator, pocket: Pocket, chain: list[str],
                 cue: str, others: Mapping[str, Point]) -> tuple[dict[str, Point], float] | None:
    """Balls in a row from the pocket back to the cue ball: ``chain[0]`` on the pocket's axis,
    each next ball behind the ghost-ball place of the one before, at a small cut. Returns the
    positions and the cue ball's direction (exact: contacts are frictionless, sliding is
    straight)."""
    ctx = Context(table, dict(others), 1, rng)
    first = pocket_entry(table, pocket, ctx.uniform(250, 450))
    px, py = table.pocket_xy(pocket)
    heading = angle_of((px - first[0], py - first[1]))  # where chain[0] must go
    placed: dict[str, Point] = {}
    current = first
    for ball in [*chain[1:], cue]:
        if not ctx.free(current) or any(math.dist(current, q) < 2.5 * R
                                        for q in placed.values()):
            return None
        placed[chain[len(placed)]] = current
        ghost = ghost_ball(current, heading, R)
        heading = heading + math.radians(ctx.uniform(-12, 12))
        dist = ctx.uniform(220, 400)
        current = (ghost[0] - dist * math.cos(heading), ghost[1] - dist * math.sin(heading))
        del ball
    if not ctx.free(current) or any(math.dist(current, q) < 2.5 * R for q in placed.values()):
        return None
    placed[cue] = current
    return {**others, **placed}, heading


def _combination(intermediates: int) -> Scenario:
    chain = ["R1", "R2", "Y"][: intermediates + 1]

    def start(table: TableSpec, rng: np.random.Generator) -> dict[str, Any]:
        def place() -> dict[str, Point] | None:
            built = chain_layout(table, rng, Pocket.FR, chain, "W1", {})
            return None if built is None else built[0]

        return complete_layout(table, rng, place,
                               [b for b in BALL_IDS if b not in (*chain, "W1")], "a chain")

    def plan(ctx: Context) -> Planned | None:
        # Aim back from the pocket: each ball must reach the ghost place of the one before.
        target = ctx.table.pocket_xy(Pocket.FR)
        for ball in chain:
            xy = ctx.positions[ball]
            heading = angle_of((target[0] - xy[0], target[1] - xy[1]))
            target = ghost_ball(xy, heading, R)
        cue = ctx.positions["W1"]
        direction = angle_of((target[0] - cue[0], target[1] - cue[1]))
        speed = ctx.uniform(2600, 3400) + 600 * intermediates
        if intermediates == 1:
            want = lambda v, s: v.scored_ball is Ball.R1 and v.combination  # noqa: E731
        else:
            want = lambda v, s: Foul.CHAIN_TOO_LONG in v.fouls  # noqa: E731
        return Planned(Strike("W1", speed, direction, ctx.uniform(-0.2, 0.2)),
                       {"ball": "R", "pocket": "FR"}, None, want)

    name = "combination" if intermediates == 1 else "chain_two"
    shows = ("a combination: W1 -> R2 -> R1 into FR (scores the red, no caroms)"
             if intermediates == 1 else
             "a chain of two intermediate balls: W1 -> Y -> R2 -> R1 into FR (does not score)")
    return Scenario(name, shows, start, (plan,))


def _bank(obj: str, pocket: Pocket, cushion_y: float | None, cushion_x: float | None,
          name: str, shows: str, points: int,
          region: tuple[tuple[float, float], tuple[float, float]]) -> Scenario:
    """A bank off one cushion; ``region``: where the object ball starts (fractions of L and W),
    chosen so that the banked path can reach the pocket within its acceptance angle."""

    def start(table: TableSpec, rng: np.random.Generator) -> dict[str, Any]:
        ctx = Context(table, {}, 1, rng)
        (x0, x1), (y0, y1) = region
        def place() -> dict[str, Point] | None:
            o = (ctx.uniform(x0, x1) * table.length_mm, ctx.uniform(y0, y1) * table.width_mm)
            away = ctx.uniform(-0.6, 0.6) + math.pi / 2
            c = (o[0] + 500 * math.cos(away), o[1] - 500 * math.sin(away))
            return {obj: o, "W1": c} if ctx.free(o) and ctx.free(c) else None

        return complete_layout(table, rng, place, [b for b in BALL_IDS if b not in (obj, "W1")],
                               name)

    def plan(ctx: Context) -> Planned | None:
        t = ctx.table
        entry = pocket_entry(t, pocket, -10)
        o = ctx.positions[obj]
        mirrored = (entry[0] if cushion_x is None else 2 * cushion_x - entry[0],
                    entry[1] if cushion_y is None else 2 * cushion_y - entry[1])
        guess = angle_of((mirrored[0] - o[0], mirrored[1] - o[1]))
        planned = plan_pot(ctx, obj, pocket, banked=True, bank_guess=guess,
                           # A rolling ball keeps only ~30 % of its speed off a cushion.
                           object_speed=(2800, 3800), follow=(0.0, 0.4),
                           expect=lambda v, s: v.bank and v.points == points)
        return planned

    return Scenario(name, shows, start, (plan,))


def _off_table(which: str) -> Scenario:
    def start(table: TableSpec, rng: np.random.Generator) -> dict[str, Any]:
        return complete_layout(table, rng, lambda: pot_layout(
            table, rng, Pocket.FL, "R1", "W1", {}, obj_dist=(250, 500), cut_deg=(20, 40),
            cue_dist=(250, 600)), ["W2", "R2", "Y"], "a ball off the table")

    def plan(ctx: Context) -> Planned | None:
        base = plan_pot(ctx, "R1", Pocket.FL, follow=(0.4, 0.9), object_speed=(900, 1300))
        if base is None:
            return None
        if which == "W1":
            return Planned(base.strike, base.call, {"W1": "cushion"},
                           lambda v, s: Foul.SCRATCH in v.fouls and Ball.W1 in v.in_hand)
        planned = place_caroms(ctx, base, ["Y"])
        if planned is None:
            return None
        return Planned(planned.strike, planned.call, {"Y": "cushion"},
                       lambda v, s: Foul.OBJECT_OFF_TABLE in v.fouls and v.points == 9)

    if which == "W1":
        return Scenario("cue_off_table", "the cue ball jumps off the table after potting the "
                        "red (a scratch: nothing scores, penalty 3, W1 in hand)", start, (plan,))
    return Scenario("object_off_table", "a red potted with a carom on the yellow, which then "
                    "jumps off the table (points stand, the turn passes, Y respotted)",
                    start, (plan,))


def _safety() -> Scenario:
    def start(table: TableSpec, rng: np.random.Generator) -> dict[str, Any]:
        full = spread(table, rng, list(BALL_IDS), {})
        assert full is not None
        return layout_start(full)

    def plan(ctx: Context) -> Planned | None:
        strike = Strike(ctx.cue, ctx.uniform(900, 1500), ctx.uniform(-math.pi, math.pi),
                        ctx.uniform(-0.3, 0.5))
        return Planned(strike, None, None, lambda v, s: not any(
            e.type in (EventType.CONTACT, EventType.POCKET) for e in s.events))

    return Scenario("safety", "a positional shot that touches no ball (no call, no score, no "
                    "penalty, the turn passes)", start, (plan,))


def _opening(legal: bool) -> Scenario:
    def start(table: TableSpec, rng: np.random.Generator) -> dict[str, Any]:
        return layout_start({"R1": spot(table, Spot.POINT1), "Y": spot(table, Spot.POINT2),
                             "R2": spot(table, Spot.POINT3)}, opening=True)

    def plan(ctx: Context) -> Planned | None:
        if legal:
            pocket = Pocket.FR if ctx.positions["W1"][1] > ctx.table.width_mm / 2 else Pocket.FL
            return plan_pot(ctx, "R2", pocket, object_speed=(900, 1300),
                            expect=lambda v, s: v.points == 3 and not v.fouls)
        y = ctx.positions["Y"]
        c = ctx.positions["W1"]
        direction = angle_of((y[0] - c[0], y[1] - c[1])) + ctx.uniform(-0.01, 0.01)
        return Planned(Strike("W1", ctx.uniform(1500, 2200), direction, ctx.uniform(0, 0.5)),
                       {"ball": "R", "pocket": "FR"}, None,
                       lambda v, s: Foul.OPENING_SHOT in v.fouls)

    if legal:
        return Scenario("opening_legal", "the opening shot from hand: the red from point 3 "
                        "into a foot corner (allowed, 3 points)", start, (plan,))
    return Scenario("opening_yellow_first", "the opening shot from hand touching the yellow "
                    "first (forbidden: nothing scores, no penalty, the turn passes)",
                    start, (plan,))


def _touching() -> Scenario:
    def start(table: TableSpec, rng: np.random.Generator) -> dict[str, Any]:
        ctx = Context(table, {}, 1, rng)
        def place() -> dict[str, Point] | None:
            a = (ctx.uniform(0.35, 0.65) * table.length_mm, ctx.uniform(0.3, 0.7) * table.width_mm)
            k = ctx.uniform(0, 2 * math.pi)
            b = (a[0] + 2 * R * math.cos(k), a[1] + 2 * R * math.sin(k))
            # The two whites touching: the classic identity-swap trap.
            free = ctx.free(a, clearance=0) and ctx.free(b, clearance=0)
            return {"W2": a, "W1": b} if free else None

        return complete_layout(table, rng, place, ["R1", "R2", "Y"], "touching whites")

    def plan(ctx: Context) -> Planned | None:
        w1, w2 = ctx.positions["W1"], ctx.positions["W2"]
        away = angle_of((w2[0] - w1[0], w2[1] - w1[1])) + ctx.uniform(0.6, 1.2) * (
            1 if ctx.rng.random() < 0.5 else -1)
        return Planned(Strike("W1", ctx.uniform(900, 1400), away, ctx.uniform(0, 0.5)), None,
                       None, lambda v, s: True)

    return Scenario("touching_whites", "the two whites touching at the start; W1 is played "
                    "away from W2 (identities must not swap)", start, (plan,))


def _fast() -> Scenario:
    def start(table: TableSpec, rng: np.random.Generator) -> dict[str, Any]:
        return complete_layout(table, rng, lambda: pot_layout(
            table, rng, Pocket.FR, "R1", "W1", {}, obj_dist=(700, 1100), cut_deg=(0, 3),
            cue_dist=(500, 900)), ["W2", "R2", "Y"], "a fast shot")

    def plan(ctx: Context) -> Planned | None:
        planned = plan_pot(ctx, "R1", Pocket.FR, object_speed=(5400, 6200), follow=(0.0, 0.0))
        if planned is None or planned.strike.speed < 6000:
            return None
        return planned

    return Scenario("fast_shot", "a fast stun shot (>= 6 m/s, heavy motion blur): the red "
                    "into FR, the cue ball stops dead", start, (plan,))


def _hidden_under_arm() -> Scenario:
    def start(table: TableSpec, rng: np.random.Generator) -> dict[str, Any]:
        def place() -> dict[str, Point] | None:
            layout = pot_layout(table, rng, Pocket.FL, "R1", "W1", {}, obj_dist=(400, 800),
                                cut_deg=(5, 20), cue_dist=(400, 700))
            if layout is None:
                return None
            o, c = layout["R1"], layout["W1"]
            back = unit((c[0] - o[0], c[1] - o[1]))
            d = float(rng.uniform(180, 260))  # under the bridge hand / forearm
            hidden = (c[0] + back[0] * d, c[1] + back[1] * d)
            if not Context(table, layout, 1, rng).free(hidden):
                return None
            return {**layout, "Y": hidden}

        return complete_layout(table, rng, place, ["W2", "R2"], "a ball under the arm")

    return Scenario("hidden_under_arm", "the yellow lies under the player's arm at the strike "
                    "(hidden for a moment); the red is potted into FL", start,
                    (lambda ctx: plan_pot(ctx, "R1", Pocket.FL),))


def feasible_pots(ctx: Context, balls: list[str]) -> list[tuple[str, Pocket]]:
    """(ball, pocket) pairs worth aiming at: the ball can enter the pocket within its acceptance
    angle and the cue ball needs a cut of less than 55 degrees."""
    out = []
    for ball in balls:
        if ball not in ctx.positions or ball == ctx.cue:
            continue
        o = ctx.positions[ball]
        c = ctx.positions[ctx.cue]
        for pocket in Pocket:
            px, py = ctx.table.pocket_xy(pocket)
            travel = angle_of((px - o[0], py - o[1]))
            entry = pocket_entry(ctx.table, pocket, 100.0)
            axis = angle_of((px - entry[0], py - entry[1]))
            off_axis = abs((travel - axis + math.pi) % (2 * math.pi) - math.pi)
            if off_axis > math.radians(15 if pocket.is_corner else 30):
                continue
            ghost = ghost_ball(o, travel, R)
            if cut_angle(c, ghost, travel) < math.radians(55) and math.dist(o, (px, py)) > 150:
                out.append((ball, pocket))
    return out


def plan_any_pot(ctx: Context, accept: Callable[[Verdict], bool]) -> Planned | None:
    """A pot of whatever ball the table offers, kept only if ``accept``s the verdict."""
    opponent_white = "W2" if ctx.cue == "W1" else "W1"
    options = feasible_pots(ctx, ["R1", "R2", "Y", opponent_white])
    if not options:
        return None
    ball, pocket = options[int(ctx.rng.integers(len(options)))]
    return plan_pot(ctx, ball, pocket, object_speed=(700, 1300), follow=(-0.4, 0.6),
                    expect=lambda v, s: v.points > 0 and accept(v))


def plan_safety(ctx: Context) -> Planned | None:
    strike = Strike(ctx.cue, ctx.uniform(700, 1300), ctx.uniform(-math.pi, math.pi),
                    ctx.uniform(-0.3, 0.5))
    return Planned(strike, None, None, lambda v, s: v.turn_passes and not v.fouls)


def _demo_match() -> Scenario:
    """A match's end from 40:45: each player pots what the table offers (never passing 60) or
    plays safe, until one reaches exactly 60 after ten shots or more."""
    target = 60

    def policy(ctx: Context) -> Planned | None:
        left = target - ctx.score[ctx.shooter - 1]
        if ctx.rng.random() < 0.3:
            return plan_safety(ctx)
        return plan_any_pot(ctx, lambda v: (lambda rest: rest == 0 or rest >= 2)(
            target - v.score[ctx.shooter - 1]) and v.points <= left) or plan_safety(ctx)

    def start(table: TableSpec, rng: np.random.Generator) -> dict[str, Any]:
        full = spread(table, rng, list(BALL_IDS), {})
        assert full is not None
        return layout_start(full, score=(40, 45))

    return Scenario("demo_match", "the end of a match from 40:45: pots, safeties and "
                    "respots until a player reaches exactly 60 (ten shots or more)", start,
                    (policy,) * 24, win_after=10)


SCENARIO_BUILDERS: dict[str, Callable[[], Scenario]] = {}


def _register() -> None:
    for pocket, obj in ((Pocket.HR, "R1"), (Pocket.HL, "R2"), (Pocket.MR, "R1"),
                        (Pocket.ML, "Y"), (Pocket.FR, "R2"), (Pocket.FL, "Y")):
        SCENARIO_BUILDERS[f"pot_{pocket.value}"] = functools.partial(_direct_pot, pocket, obj)
    for n in (1, 2, 3):
        SCENARIO_BUILDERS[f"carom_{n}"] = functools.partial(_carom, n)
    SCENARIO_BUILDERS["combination"] = lambda: _combination(1)
    SCENARIO_BUILDERS["chain_two"] = lambda: _combination(2)
    SCENARIO_BUILDERS["bank_red_middle"] = lambda: _bank(
        "R1", Pocket.MR, TableSpec().width_mm - R, None, "bank_red_middle",
        "a red banked off the left cushion into MR (scores 3)", 3, ((0.35, 0.65), (0.2, 0.5)))
    SCENARIO_BUILDERS["bank_red_corner"] = lambda: _bank(
        "R1", Pocket.FR, TableSpec().width_mm - R, None, "bank_red_corner",
        "a red banked off the left cushion into FR (seed rules: does not score)", 0,
        ((0.15, 0.45), (0.25, 0.6)))
    SCENARIO_BUILDERS["bank_yellow_corner"] = lambda: _bank(
        "Y", Pocket.HR, TableSpec().width_mm - R, None, "bank_yellow_corner",
        "the yellow banked off the left cushion into HR (12 points)", 12,
        ((0.55, 0.85), (0.25, 0.6)))
    SCENARIO_BUILDERS["yellow_middle_twice"] = _yellow_middle_twice
    SCENARIO_BUILDERS["scratch_pocket"] = _scratch
    SCENARIO_BUILDERS["cue_off_table"] = lambda: _off_table("W1")
    SCENARIO_BUILDERS["object_off_table"] = lambda: _off_table("Y")
    SCENARIO_BUILDERS["safety"] = _safety
    SCENARIO_BUILDERS["opening_legal"] = lambda: _opening(True)
    SCENARIO_BUILDERS["opening_yellow_first"] = lambda: _opening(False)
    SCENARIO_BUILDERS["touching_whites"] = _touching
    SCENARIO_BUILDERS["fast_shot"] = _fast
    SCENARIO_BUILDERS["hidden_under_arm"] = _hidden_under_arm
    SCENARIO_BUILDERS["demo_match"] = _demo_match


_register()


def scenario(name: str) -> Scenario:
    try:
        return SCENARIO_BUILDERS[name]()
    except KeyError:
        raise KeyError(f"unknown scenario {name!r} (expected one of "
                       f"{', '.join(SCENARIO_BUILDERS)})") from None


def default_state(start: Mapping[str, Any], rules: Mapping[str, Any]) -> GameState:
    return GameState.from_dict(start, RuleOptions.from_mapping(dict(rules)))
