"""Property tests for the rules core: judge/advance/Match over generated, plausible shots.

The strategy :func:`shot_facts` builds a shot from a given :class:`GameState`: a strike (nearly
always of the shooter's own white, sometimes of another ball on the table), then contacts,
cushions, pockets and balls leaving the table, each made by a ball that is already moving, never
an event for a ball after it has left; times and frames increase; a call or none; and final
positions, inside the field and not overlapping, for every ball left on the table.
"""

from __future__ import annotations

import copy
import json
import math
import os
from collections.abc import Callable, Mapping
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules import (
    POINTS_TABLE,
    Ball,
    Banks,
    Call,
    Calls,
    Colour,
    Cushion,
    Event,
    EventType,
    Finish,
    Flag,
    Foul,
    GameState,
    Match,
    Penalty,
    Pocket,
    RuleOptions,
    ShotFacts,
    TableSpec,
    Verdict,
    YellowTwice,
    cue_ball_of,
    judge,
    opponent,
)
from rules.table import PRESETS, Point, Spot

# Fixed examples by default (the suite stays fast and repeatable); KAISA_DEEP_EXAMPLES=5000 runs a
# random, much longer search instead.
_DEEP = int(os.environ.get("KAISA_DEEP_EXAMPLES", "0"))
SETTINGS = settings(
    derandomize=not _DEEP,
    max_examples=_DEEP or 80,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
FEW = settings(SETTINGS, max_examples=max(30, _DEEP // 4))

ALL_POINT_VALUES = {v for row in POINTS_TABLE.values() for v in row.values()} | {0}
WHITES = (Ball.W1, Ball.W2)
# Weights of the event kinds after the strike.
EVENT_KINDS = ("contact",) * 5 + ("cushion",) * 3 + ("pocket",) * 3 + ("off_table",)
OBJECTS = (Ball.R1, Ball.Y, Ball.R2)


# --- geometry helpers ---------------------------------------------------------------------------
def _grid(table: TableSpec) -> list[Point]:
    """Cell centres 90 mm apart, every one at least a radius + 10 mm inside the field."""
    step, margin = 90.0, table.ball_radius_mm + 10.0
    xs = [margin + i * step for i in range(int((table.length_mm - 2 * margin) // step) + 1)]
    ys = [margin + j * step for j in range(int((table.width_mm - 2 * margin) // step) + 1)]
    return [(x, y) for x in xs for y in ys]


def _free(xy: Point, taken: list[Point], table: TableSpec) -> bool:
    return all(math.dist(xy, t) > table.ball_diameter_mm + 1.0 for t in taken)


@st.composite
def _place(draw: st.DrawFn, table: TableSpec, taken: list[Point]) -> Point:
    """A ball centre inside the field, more than a diameter from every centre in ``taken``."""
    cells = _grid(table)
    start = draw(st.integers(0, len(cells) - 1))
    jitter = draw(st.tuples(st.floats(-8, 8), st.floats(-8, 8)))
    for k in range(len(cells)):
        x, y = cells[(start + k) % len(cells)]
        xy = (round(x + jitter[0], 1), round(y + jitter[1], 1))
        if _free(xy, taken, table):
            return xy
    raise AssertionError("five balls always fit")  # pragma: no cover


# --- strategies -------------------------------------------------------------------------------
@st.composite
def rule_options(draw: st.DrawFn, default: bool = False) -> RuleOptions:
    if default:
        return RuleOptions()
    return RuleOptions(
        calls=draw(st.sampled_from(Calls)),
        banks=draw(st.sampled_from(Banks)),
        extra_pot_ends_turn=draw(st.booleans()),
        penalty=draw(st.sampled_from(Penalty)),
        yellow_twice=draw(st.sampled_from(YellowTwice)),
        finish=draw(st.sampled_from(Finish)),
        table=draw(st.sampled_from(sorted(PRESETS.values(), key=lambda t: t.name))),
    )


@st.composite
def game_states(draw: st.DrawFn, default_options: bool = False) -> GameState:
    """A state before some shot: the opening layout, or balls anywhere (spots sometimes)."""
    options = draw(rule_options(default_options))
    table = options.table
    shooter = draw(st.sampled_from([1, 2]))
    low = -12 if options.penalty is Penalty.DEDUCT else 0
    near_end = st.integers(options.target - 14, options.target - 1)
    anywhere = st.integers(low, options.target - 1)
    score = (draw(near_end if _chance(draw, 40) else anywhere),
             draw(near_end if _chance(draw, 40) else anywhere))
    if _chance(draw, 15):
        return GameState(options=options, shooter=shooter, score=score)  # the opening
    positions: dict[Ball, Point] = {}
    for ball, spot in zip(OBJECTS, (Spot.POINT1, Spot.POINT2, Spot.POINT3), strict=True):
        xy = table.spot_xy(spot)
        if draw(st.booleans()) and _free(xy, list(positions.values()), table):
            positions[ball] = xy
        else:
            positions[ball] = draw(_place(table, list(positions.values())))
    in_hand = set()
    for white in WHITES:
        near_spot = table.spot_xy(draw(st.sampled_from([Spot.POINT1, Spot.POINT3])))
        near = (near_spot[0] + 40.0, near_spot[1] + 40.0)  # within a diameter: spot occupied
        if _chance(draw, 20):
            in_hand.add(white)
        elif _chance(draw, 25) and _free(near, list(positions.values()), table):
            positions[white] = near
        else:
            positions[white] = draw(_place(table, list(positions.values())))
    return GameState(
        options=options,
        score=score,
        shooter=shooter,
        opening=False,
        positions=positions,
        in_hand=frozenset(in_hand),
        yellow_middle_last=draw(st.booleans()),
    )


@st.composite
def calls(draw: st.DrawFn, cue: Ball, pots: list[Event]) -> Call | None:
    """None, a call that matches a pocketed object ball, or any legal call."""
    kind = draw(st.integers(0, 3))
    if kind == 3:
        return None
    other_white = Ball.W2 if cue is Ball.W1 else Ball.W1
    object_pots = [e for e in pots if e.ball != cue]
    if kind in (0, 1) and object_pots:
        e = draw(st.sampled_from(object_pots))
        assert e.pocket is not None
        by_id = draw(st.booleans())
        target: Colour | Ball = e.ball if by_id else e.ball.colour
        return Call(target, e.pocket)
    choices: list[Colour | Ball] = [
        Colour.RED, Colour.YELLOW, Colour.WHITE, Ball.R1, Ball.R2, other_white]
    return Call(draw(st.sampled_from(choices)), draw(st.sampled_from(Pocket)))


def _chance(draw: st.DrawFn, percent: int) -> bool:
    """True ``percent`` % of the time; shrinks to False (the band avoids the ends, which
    Hypothesis favours)."""
    return 20 <= draw(st.integers(0, 99)) < 20 + percent


@st.composite
def shot_facts(draw: st.DrawFn, state: GameState, max_events: int = 8) -> ShotFacts:
    """A physically plausible shot played from ``state`` (see the module docstring).

    Often the shot starts with a planned pot (the cue ball onto a ball, directly or through one
    other ball, perhaps caroms and a cushion, then the ball drops, called or not); random events
    by moving balls follow.
    """
    table = state.table
    cue = cue_ball_of(state.shooter)
    on_table = dict(state.on_table)
    others = sorted(b for b in on_table if b != cue)
    if cue not in state.in_hand and cue not in on_table:  # pragma: no cover - states say where
        raise AssertionError("the cue ball is neither on the table nor in hand")
    wrong = bool(others) and _chance(draw, 8)
    struck = draw(st.sampled_from(others)) if wrong else cue
    alive = set(on_table) | ({cue} if cue in state.in_hand and not wrong else set())
    moving = {struck}
    t = round(draw(st.floats(0, 100)), 2)
    frame = draw(st.integers(0, 3000))
    events = [Event(EventType.STRIKE, t, (struck,), frame=frame)]

    def add(kind: EventType, balls: tuple[Ball, ...], **where: Any) -> None:
        nonlocal t, frame
        t = round(t + draw(st.floats(0.01, 1.5)), 2)
        frame += draw(st.integers(1, 40))
        events.append(Event(kind, t, balls, frame=frame, **where))
        if kind is EventType.CONTACT:
            moving.update(balls)
        elif kind in (EventType.POCKET, EventType.OFF_TABLE):
            alive.discard(balls[0])
            moving.discard(balls[0])

    planned: Call | None = None
    targets = sorted(alive - {struck})
    if targets and _chance(draw, 65):
        target = draw(st.sampled_from(targets))
        feeders = sorted(alive - {struck, target})
        if feeders and _chance(draw, 25):
            chain = draw(st.lists(st.sampled_from(feeders), min_size=1, max_size=2, unique=True))
            for a, b in zip([struck, *chain], [*chain, target], strict=True):
                add(EventType.CONTACT, (a, b))
        else:
            add(EventType.CONTACT, (struck, target))
        for _ in range(draw(st.integers(0, 3))):
            caroms = sorted(alive - {struck})
            add(EventType.CONTACT, (struck, draw(st.sampled_from(caroms))))
        if _chance(draw, 25):
            add(EventType.CUSHION, (target,), cushion=draw(st.sampled_from(Cushion)))
        pocket = draw(st.sampled_from(Pocket))
        add(EventType.POCKET, (target,), pocket=pocket)
        if target != cue:
            planned = Call(target if draw(st.booleans()) else target.colour, pocket)
    for _ in range(draw(st.integers(0, max_events))):
        movers = sorted(moving)
        if not movers:
            break
        kind = draw(st.sampled_from(EVENT_KINDS))
        if kind in ("pocket", "off_table") and len(movers) > 1 and not _chance(draw, 15):
            movers = [b for b in movers if b != struck]  # cue balls seldom drop
        a = draw(st.sampled_from(movers))
        if kind == "contact":
            partners = sorted(alive - {a})
            if partners:
                b = draw(st.sampled_from(partners))
                add(EventType.CONTACT, (a, b) if draw(st.booleans()) else (b, a))
        elif kind == "cushion":
            add(EventType.CUSHION, (a,), cushion=draw(st.sampled_from(Cushion)))
        elif kind == "pocket":
            add(EventType.POCKET, (a,), pocket=draw(st.sampled_from(Pocket)))
        else:
            add(EventType.OFF_TABLE, (a,))
    pot_events = [e for e in events if e.type is EventType.POCKET]
    use_planned = planned is not None and _chance(draw, 70)
    call = planned if use_planned else draw(calls(cue, pot_events))
    moved = {b for e in events for b in e.balls}
    finals: dict[Ball, Point] = {b: on_table[b] for b in alive if b not in moved}
    for ball in sorted(alive & moved):
        finals[ball] = draw(_place(table, list(finals.values())))
    return ShotFacts(events=tuple(events), call=call, final_positions=finals)


@st.composite
def state_and_shot(draw: st.DrawFn, default_options: bool = False) -> tuple[GameState, ShotFacts]:
    state = draw(game_states(default_options))
    return state, draw(shot_facts(state))


# --- helpers ------------------------------------------------------------------------------------
def _json_round_trip(value: Any) -> Any:
    return json.loads(json.dumps(value.to_dict()))


def _mirror_xy(xy: Point, table: TableSpec) -> Point:
    return (xy[0], table.width_mm - xy[1])


_POCKET_MIRROR = {
    Pocket.HR: Pocket.HL, Pocket.HL: Pocket.HR, Pocket.MR: Pocket.ML,
    Pocket.ML: Pocket.MR, Pocket.FR: Pocket.FL, Pocket.FL: Pocket.FR,
}
_CUSHION_MIRROR = {
    Cushion.RIGHT: Cushion.LEFT, Cushion.LEFT: Cushion.RIGHT,
    Cushion.HEAD: Cushion.HEAD, Cushion.FOOT: Cushion.FOOT,
}


def _mirror_positions(positions: Mapping[Ball, Point], table: TableSpec) -> dict[Ball, Point]:
    return {b: _mirror_xy(xy, table) for b, xy in positions.items()}


def _mirror_state(state: GameState) -> GameState:
    return GameState(
        options=state.options,
        score=state.score,
        shooter=state.shooter,
        opening=state.opening,
        positions=_mirror_positions(state.on_table, state.table),
        in_hand=state.in_hand,
        yellow_middle_last=state.yellow_middle_last,
    )


def _mirror_facts(facts: ShotFacts, table: TableSpec) -> ShotFacts:
    events = tuple(
        Event(
            e.type, e.t, e.balls, frame=e.frame,
            cushion=_CUSHION_MIRROR[e.cushion] if e.cushion else None,
            pocket=_POCKET_MIRROR[e.pocket] if e.pocket else None,
        )
        for e in facts.events
    )
    call = Call(facts.call.target, _POCKET_MIRROR[facts.call.pocket]) if facts.call else None
    finals = _mirror_positions(facts.final_positions or {}, table)
    return ShotFacts(events=events, call=call, final_positions=finals)


def _score_after(state: GameState, v: Verdict) -> tuple[int, int]:
    """The score RULES.md §5 gives: points to the striker, the penalty per the option."""
    score = list(state.score)
    score[v.shooter - 1] += v.points
    if v.penalty and state.options.penalty is Penalty.DEDUCT:
        score[v.shooter - 1] -= v.penalty
    elif v.penalty and Flag.PENALTY_BUST not in v.flags:
        score[opponent(v.shooter) - 1] += v.penalty
    return (score[0], score[1])


# --- invariants of one verdict ----------------------------------------------------------------
@SETTINGS
@given(state_and_shot(default_options=True))
def test_a_scratch_never_scores_and_costs_a_penalty(case: tuple[GameState, ShotFacts]) -> None:
    state, facts = case
    v = judge(state, facts)
    cue = cue_ball_of(state.shooter)
    left = any(e.type in (EventType.POCKET, EventType.OFF_TABLE) and e.ball == cue
               for e in facts.events)
    assert (Foul.SCRATCH in v.fouls) == left
    if left:
        assert v.points == 0
        assert v.scored_ball is None
        assert v.penalty > 0
        assert v.turn_passes
        assert v.score[state.shooter - 1] == state.score_of(state.shooter) - v.penalty


@SETTINGS
@given(state_and_shot())
def test_fouls_that_void_a_shot_score_nothing(case: tuple[GameState, ShotFacts]) -> None:
    state, facts = case
    v = judge(state, facts)
    if {Foul.SCRATCH, Foul.WRONG_CUE_BALL, Foul.OPENING_SHOT} & set(v.fouls):
        assert v.points == 0 and v.scored_ball is None and v.turn_passes
    if Foul.WRONG_CUE_BALL in v.fouls:
        assert v.penalty >= 2
    if not {Foul.SCRATCH, Foul.WRONG_CUE_BALL} & set(v.fouls):
        assert v.penalty == 0


@SETTINGS
@given(state_and_shot())
def test_respots_are_free_and_inside_the_field(case: tuple[GameState, ShotFacts]) -> None:
    state, facts = case
    v = judge(state, facts)
    table = state.table
    d = table.ball_diameter_mm
    spotted = [r.ball for r in v.respots]
    assert len(spotted) == len(set(spotted)), v.respots
    for r in v.respots:
        assert not r.ball.is_white
        assert table.contains(r.xy_mm), r
        assert v.positions_after[r.ball] == r.xy_mm
        for ball, xy in v.positions_after.items():
            if ball != r.ball:
                assert math.dist(xy, r.xy_mm) >= d, (r, ball, xy)
    if v.winner is not None:
        assert v.respots == ()


@SETTINGS
@given(state_and_shot())
def test_every_object_ball_that_left_is_respotted(case: tuple[GameState, ShotFacts]) -> None:
    state, facts = case
    v = judge(state, facts)
    left = {e.ball for e in facts.events if e.type in (EventType.POCKET, EventType.OFF_TABLE)}
    if v.winner is None:
        assert {b for b in left if not b.is_white} <= {r.ball for r in v.respots}
        assert set(OBJECTS) <= set(v.positions_after)


@SETTINGS
@given(state_and_shot())
def test_points_come_from_the_table(case: tuple[GameState, ShotFacts]) -> None:
    state, facts = case
    v = judge(state, facts)
    assert v.points in ALL_POINT_VALUES
    assert (v.points == 0) == (v.scored_ball is None)
    if v.scored_ball is not None:
        assert v.called is not None
        assert v.scored_ball.colour is v.called.colour
        assert v.pocket == v.called.pocket.value
        assert v.scored_ball != cue_ball_of(state.shooter)
    assert v.score == _score_after(state, v)


@SETTINGS
@given(state_and_shot())
def test_turn_winner_and_in_hand(case: tuple[GameState, ShotFacts]) -> None:
    state, facts = case
    v = judge(state, facts)
    if v.points == 0:
        assert v.turn_passes
    assert (v.next_shooter is None) == (v.winner is not None)
    if v.next_shooter is not None:
        assert v.next_shooter == (opponent(v.shooter) if v.turn_passes else v.shooter)
    assert set(v.in_hand) == {w for w in WHITES if w not in v.positions_after}
    assert len(v.in_hand) == len(set(v.in_hand))
    assert v.shooter == state.shooter and v.cue_ball == cue_ball_of(state.shooter)
    target = state.options.target
    if state.options.finish is Finish.EXACT:
        assert max(v.score) <= target  # nothing passes an exact finish
        assert v.winner is None or v.score[v.winner - 1] == target
    else:
        assert v.winner is None or v.score[v.winner - 1] >= target
    assert (v.winner is None) == (not any(
        (s == target if state.options.finish is Finish.EXACT else s >= target) for s in v.score))


@SETTINGS
@given(state_and_shot())
def test_judge_is_pure_and_deterministic(case: tuple[GameState, ShotFacts]) -> None:
    state, facts = case
    state_before, facts_before = copy.deepcopy(state), copy.deepcopy(facts)
    dict_before = state.to_dict()
    first = judge(state, facts)
    assert state == state_before and state.to_dict() == dict_before
    assert facts == facts_before
    assert judge(state, facts) == first
    assert judge(copy.deepcopy(state), copy.deepcopy(facts)) == first


@SETTINGS
@given(state_and_shot())
def test_shot_facts_and_verdicts_survive_json(case: tuple[GameState, ShotFacts]) -> None:
    state, facts = case
    assert ShotFacts.from_dict(_json_round_trip(facts)) == facts
    v = judge(state, facts)
    assert Verdict.from_dict(_json_round_trip(v)) == v
    # And the state after it, as a GAME file's start would carry it.
    after = Match(state).play(facts)[0].state
    assert GameState.from_dict(_json_round_trip(after), state.options) == after


@SETTINGS
@given(state_and_shot())
def test_mirror_image_shots_get_mirror_image_verdicts(case: tuple[GameState, ShotFacts]) -> None:
    state, facts = case
    table = state.table
    v = judge(state, facts)
    m = judge(_mirror_state(state), _mirror_facts(facts, table))
    assert (m.points, m.fouls, m.penalty, m.scored_ball) == (
        v.points, v.fouls, v.penalty, v.scored_ball)
    assert (m.turn_passes, m.next_shooter, m.score, m.winner, m.in_hand) == (
        v.turn_passes, v.next_shooter, v.score, v.winner, v.in_hand)
    assert (m.caroms, m.combination, m.bank) == (v.caroms, v.combination, v.bank)
    assert [(r.ball, r.spot, _mirror_xy(r.xy_mm, table)) for r in m.respots] == [
        (r.ball, r.spot, r.xy_mm) for r in v.respots]


# --- invariants of a match --------------------------------------------------------------------
def _play_out(data: st.DataObject, state: GameState, shots: int,
              check: Callable[[Match, ShotFacts, Verdict], None]) -> Match:
    match = Match(state)
    for _ in range(shots):
        if match.state.winner is not None:
            break
        facts = data.draw(shot_facts(match.state))
        before = match
        match, verdict = match.play(facts)
        check(before, facts, verdict)
    return match


@FEW
@given(game_states(), st.integers(1, 12), st.data())
def test_score_is_the_sum_of_points_and_penalties(
    start: GameState, shots: int, data: st.DataObject
) -> None:
    def check(before: Match, facts: ShotFacts, verdict: Verdict) -> None:
        assert verdict.score == _score_after(before.state, verdict)

    match = _play_out(data, start, shots, check)
    expected = list(start.score)
    for v in match.verdicts:
        expected[v.shooter - 1] += v.points
        if start.options.penalty is Penalty.DEDUCT:
            expected[v.shooter - 1] -= v.penalty
        elif Flag.PENALTY_BUST not in v.flags:
            expected[opponent(v.shooter) - 1] += v.penalty
    assert match.state.score == tuple(expected)
    if start.options.penalty is Penalty.TO_OPPONENT:  # nobody ever loses points
        assert all(a >= b for a, b in zip(match.state.score, start.score, strict=True))


@FEW
@given(game_states(), st.integers(1, 8), st.data())
def test_undo_after_play_gives_back_the_state(
    start: GameState, shots: int, data: st.DataObject
) -> None:
    def check(before: Match, facts: ShotFacts, verdict: Verdict) -> None:
        after = before.play(facts)[0]
        assert after.undo().state == before.state
        assert after.undo().verdicts == before.verdicts
        assert after.state.shots_played == before.state.shots_played + 1
        assert not after.state.opening

    _play_out(data, start, shots, check)


@FEW
@given(game_states(), st.integers(2, 12), st.data())
def test_states_along_a_match_stay_consistent(
    start: GameState, shots: int, data: st.DataObject
) -> None:
    def check(before: Match, facts: ShotFacts, verdict: Verdict) -> None:
        state = before.play(facts)[0].state
        assert set(state.in_hand) | set(state.on_table) >= set(WHITES) or state.winner
        if state.winner is None:
            assert set(OBJECTS) <= set(state.on_table)
            assert state.shooter == verdict.next_shooter
        assert state.in_hand == frozenset(verdict.in_hand)
        # Yellow twice needs the same inning: a passed turn always clears it.
        if verdict.turn_passes:
            assert not state.yellow_middle_last

    _play_out(data, start, shots, check)


# --- targeted properties --------------------------------------------------------------------------
@FEW
@given(state_and_shot())
def test_strict_calls_score_nothing_without_a_call(case: tuple[GameState, ShotFacts]) -> None:
    state, facts = case
    strict = GameState(
        options=RuleOptions(calls=Calls.STRICT), score=(0, 0), shooter=state.shooter,
        opening=state.opening, positions=state.on_table, in_hand=state.in_hand,
    )
    uncalled = ShotFacts(facts.events, None, facts.final_positions)
    v = judge(strict, uncalled)
    assert v.points == 0 and v.scored_ball is None and Flag.UNCALLED in v.flags


@FEW
@given(state_and_shot())
def test_penalty_option_moves_the_same_penalty(case: tuple[GameState, ShotFacts]) -> None:
    state, facts = case
    base: dict[str, Any] = dict(
        score=(10, 10), shooter=state.shooter, opening=state.opening,
        positions=state.on_table, in_hand=state.in_hand,
    )
    deduct = judge(GameState(options=RuleOptions(penalty=Penalty.DEDUCT), **base), facts)
    give = judge(GameState(options=RuleOptions(penalty=Penalty.TO_OPPONENT), **base), facts)
    assert deduct.penalty == give.penalty
    assert deduct.points == give.points
    me, other = state.shooter - 1, opponent(state.shooter) - 1
    assert deduct.score[me] - 10 == deduct.points - deduct.penalty
    assert give.score[other] - 10 == give.penalty


# --- an independent reading of RULES.md, checked against judge ------------------------------------
_VALUE = {Colour.WHITE: 2, Colour.RED: 3, Colour.YELLOW: 6}
# RULES.md §4 cross-check: (base, k) per class; with caroms: base + k + sum of carom values.
_CLASS = {"W": (2, -1), "R": (3, 0), "Y6": (6, 3), "Y12": (12, 3)}


def _oracle_pot_points(state: GameState, facts: ShotFacts, pot: Event) -> int:
    """RULES.md §3-§4 for one pocketed object ball taken as the called one: its points, 0 if
    it cannot score (chain, refused bank, no contact). Uses the formula, not POINTS_TABLE."""
    cue = cue_ball_of(state.shooter)
    events = list(facts.events)
    ball = pot.ball
    end = events.index(pot)
    mine = [e for e in events[:end] if e.type is EventType.CONTACT and ball in e.balls]
    if not mine:
        return 0
    first = mine[0]
    feeder = first.balls[1] if first.balls[0] == ball else first.balls[0]
    direct = feeder == cue
    if not direct:
        feeder_contacts = [e for e in events if e.type is EventType.CONTACT and feeder in e.balls]
        f0 = feeder_contacts[0]
        if f0 is first or cue not in f0.balls:
            return 0  # two or more balls between the cue ball and the called ball [S 11]
    last = events.index(mine[-1])
    bank = any(e.type is EventType.CUSHION and e.ball == ball for e in events[last:end])
    assert pot.pocket is not None
    if ball is Ball.Y:
        cls = "Y12" if pot.pocket.is_middle or bank else "Y6"
    else:
        cls = ball.colour.value
        if bank and not pot.pocket.is_middle and state.options.banks is Banks.SEED:
            return 0
    caroms: set[Ball] = set()
    if direct:
        after = events[events.index(first) + 1:]
        caroms = {b for e in after if e.type is EventType.CONTACT and cue in e.balls
                  for b in e.balls if b not in (cue, ball)}
    base, k = _CLASS[cls]
    return base + k + sum(_VALUE[b.colour] for b in caroms) if caroms else base


def _oracle_points(state: GameState, facts: ShotFacts) -> tuple[int, bool]:
    """(points, turn passes) by RULES.md §3-§5, read afresh."""
    opts = state.options
    cue = cue_ball_of(state.shooter)
    events = list(facts.events)
    leaving = [e for e in events if e.type in (EventType.POCKET, EventType.OFF_TABLE)]
    pockets = [e for e in leaving if e.type is EventType.POCKET]
    off = [e for e in leaving if e.type is EventType.OFF_TABLE and e.ball != cue]
    chosen: Event | None = None
    points = 0
    if facts.strike.ball != cue or any(e.ball == cue for e in leaving):
        points = 0  # wrong cue ball, scratch
    elif state.opening and (
        any(state.on_table.get(e.ball) == state.table.spot_xy(Spot.POINT1)
            and e.ball.colour is Colour.RED for e in pockets)
        or any(e.pocket is not None and e.pocket.is_middle for e in pockets)
        or Ball.Y in next((e.balls for e in events
                           if e.type is EventType.CONTACT and cue in e.balls), ())
    ):
        points = 0  # the opening shot's restrictions (§5)
    elif facts.call is None:
        if opts.calls is Calls.ASSUME:
            for e in pockets:
                if e.ball != cue and _oracle_pot_points(state, facts, e) > 0:
                    chosen, points = e, _oracle_pot_points(state, facts, e)
                    break
    else:
        call = facts.call
        if call.colour is Colour.WHITE:
            targets = {Ball.W2 if cue is Ball.W1 else Ball.W1}
        else:
            targets = {b for b in Ball if b.colour is call.colour}
        chosen = next((e for e in pockets if e.ball in targets and e.pocket is call.pocket), None)
        points = _oracle_pot_points(state, facts, chosen) if chosen else 0
    passes = False
    if points and chosen is not None and chosen.ball is Ball.Y and chosen.pocket is not None \
            and chosen.pocket.is_middle and state.yellow_middle_last:
        passes = True
        if opts.yellow_twice is YellowTwice.VOID:
            points = 0
    if points and opts.finish is Finish.EXACT and \
            state.score_of(state.shooter) + points > opts.target:
        points = 0
    if off:
        passes = True
    extra = [e for e in pockets if e.ball != cue and e is not chosen]
    if extra and opts.extra_pot_ends_turn:
        passes = True
    return points, passes or points == 0


@SETTINGS
@given(state_and_shot())
def test_points_and_turn_agree_with_an_independent_reading(
    case: tuple[GameState, ShotFacts],
) -> None:
    state, facts = case
    v = judge(state, facts)
    points, passes = _oracle_points(state, facts)
    assert (v.points, v.turn_passes) == (points, passes), (v.fouls, v.flags, v.called)


def _oracle_respots(state: GameState, facts: ShotFacts, v: Verdict) -> list[tuple[Ball, Spot]]:
    """RULES.md §6 for the balls that left, and the yellow's return; the spots only. Only
    called where the cue ball's place is given (not the wrong-cue-ball-from-hand case)."""
    table = state.table
    gone = {e.ball for e in facts.events if e.type in (EventType.POCKET, EventType.OFF_TABLE)}
    at: dict[Ball, Point] = dict(facts.final_positions or {})
    at.update({b: xy for b, xy in state.on_table.items() if b not in gone and b not in at})

    def free(xy: Point, ball: Ball) -> bool:
        return all(math.dist(xy, c) >= table.ball_diameter_mm for b, c in at.items() if b != ball)

    def cushion() -> Spot:
        assert v.next_shooter is not None
        cue_xy = at.get(cue_ball_of(v.next_shooter), (0.0, table.width_mm / 2))
        return Spot.CUSHION_HEAD if cue_xy[0] <= table.length_mm / 2 else Spot.CUSHION_FOOT

    plan: list[tuple[Ball, Spot]] = []
    for ball in (Ball.Y, Ball.R1, Ball.R2):
        spots = (Spot.POINT2, Spot.POINT1, Spot.POINT3) if ball is Ball.Y else (
            Spot.POINT1, Spot.POINT3)
        if ball in gone:
            spot = next((s for s in spots if free(table.spot_xy(s), ball)), None) or cushion()
        elif (ball is Ball.Y and v.turn_passes and Ball.Y in at
              and math.dist(at[Ball.Y], table.spot_xy(Spot.POINT2)) > 5.0
              and free(table.spot_xy(Spot.POINT2), Ball.Y)):
            spot = Spot.POINT2
        else:
            continue
        at[ball] = table.spot_xy(spot)
        plan.append((ball, spot))
    return plan


@SETTINGS
@given(state_and_shot())
def test_respots_agree_with_an_independent_reading(case: tuple[GameState, ShotFacts]) -> None:
    state, facts = case
    v = judge(state, facts)
    if v.winner is not None:
        assert v.respots == ()
        return
    want = _oracle_respots(state, facts, v)
    got = [(r.ball, r.spot) for r in v.respots]
    # Beyond the cushion spot nearest the next striker, README's [decision] chain takes over.
    if any(s in (Spot.CUSHION_HEAD, Spot.CUSHION_FOOT) for _, s in want):
        assert [b for b, _ in got] == [b for b, _ in want]
        return
    assert got == want
    for r in v.respots:
        assert r.xy_mm == state.table.spot_xy(r.spot)


# --- a bug the generator found ------------------------------------------------------------------
def test_wrong_cue_ball_with_own_white_in_hand_leaves_it_in_hand() -> None:
    state = GameState(
        options=RuleOptions(), shooter=1, opening=False,
        positions={Ball.W2: (600.0, 400.0), Ball.R1: (887.5, 887.5), Ball.Y: (1775.0, 887.5),
                   Ball.R2: (2662.5, 887.5)},
        in_hand=frozenset({Ball.W1}),
    )
    facts = ShotFacts.from_dict({"call": None, "events": [
        {"t": 0.0, "type": "strike", "ball": "R1"},
        {"t": 0.8, "type": "cushion", "ball": "R1", "cushion": "foot"}],
        "final_positions": {"R1": [1200.0, 600.0]}})
    v = judge(state, facts)
    assert Foul.WRONG_CUE_BALL in v.fouls
    assert Ball.W1 in v.in_hand
    assert Ball.W1 not in v.positions_after
