"""The whole shot evaluation of RULES.md §3-§6: ``judge(state, facts) -> Verdict`` (pure) and
``advance(state, verdict) -> GameState``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from rules.balls import Ball, Colour, cue_ball_of, opponent
from rules.errors import FactsError, StateError
from rules.events import (
    LEAVING,
    Call,
    Event,
    EventType,
    ShotFacts,
    balls_off_table,
    contacts_of,
    first_contact,
    leaving_event,
    pots,
)
from rules.options import Banks, Calls, Finish, Penalty, YellowTwice
from rules.points import PotClass, points_for
from rules.respot import plan_respots
from rules.state import Flag, Foul, GameState, Verdict
from rules.table import Pocket, Point, Spot

# [decision] §5: striking the wrong ball costs what a scratch that touched nothing costs.
WRONG_CUE_BALL_PENALTY = 2
# A final position may lie this far outside the field (measurement error) before it is refused.
POSITION_TOLERANCE_MM = 10.0

# Fouls after which nothing scores, whatever dropped.
_VOIDING = {Foul.SCRATCH, Foul.WRONG_CUE_BALL, Foul.OPENING_SHOT}


@dataclass(frozen=True)
class CalledPot:
    """How the called ball went in: the facts the points table needs, and what spoils it."""

    ball: Ball
    pocket: Pocket
    caroms: tuple[Ball, ...]
    combination: bool
    bank: bool
    points: int  # the table's points if nothing else spoils the shot; 0 when ``foul`` is set
    foul: Foul | None = None
    flag: Flag | None = None

    @property
    def would_score(self) -> bool:
        return self.foul is None and self.points > 0


def judge(state: GameState, facts: ShotFacts) -> Verdict:
    """The verdict on one shot played from ``state``. Changes nothing."""
    if state.winner is not None:
        raise StateError(f"the game is over: player {state.winner} has won", "shot")
    options, table = state.options, state.table
    shooter = state.shooter
    cue = cue_ball_of(shooter)
    events = facts.events
    _check_fits_state(state, facts, cue)

    fouls: list[Foul] = []
    flags: list[Flag] = []
    penalties: list[int] = []
    if facts.strike.ball != cue:
        fouls.append(Foul.WRONG_CUE_BALL)
        penalties.append(WRONG_CUE_BALL_PENALTY)
    if leaving_event(events, cue) is not None:
        fouls.append(Foul.SCRATCH)
        penalties.append(_scratch_penalty(events, cue))
    if state.opening and _opening_violated(state, events, cue):
        fouls.append(Foul.OPENING_SHOT)

    call = facts.call
    pot: CalledPot | None = None
    wrong_ball_bank = False
    if call is None:
        flags.append(Flag.UNCALLED)
        if options.calls is Calls.ASSUME and Foul.WRONG_CUE_BALL not in fouls:
            call, pot = _assumed_call(state, events, cue)
    elif Foul.WRONG_CUE_BALL not in fouls:
        pot, flag = _called_pot(state, events, cue, call)
        if flag is not None:
            flags.append(flag)
    else:
        # With the wrong ball struck nothing is analysed but the bank (§3, §7.4): it is reported
        # whenever the called ball went into the called pocket banked.
        wrong_ball_bank = _called_ball_banked(events, cue, call)
    if pot is not None:
        if pot.foul is not None:
            fouls.append(pot.foul)
        if pot.flag is not None:
            flags.append(pot.flag)

    points = pot.points if pot is not None and pot.would_score and not _VOIDING & set(fouls) else 0
    ends_inning = False
    if (
        points
        and pot is not None
        and pot.ball is Ball.Y
        and pot.pocket.is_middle
        and state.yellow_middle_last
    ):
        fouls.append(Foul.YELLOW_MIDDLE_TWICE)
        ends_inning = True
        if options.yellow_twice is YellowTwice.VOID:
            points = 0
    if (
        points
        and options.finish is Finish.EXACT
        and state.score_of(shooter) + points > options.target
    ):
        fouls.append(Foul.BUST)
        points = 0
    if any(e.ball != cue for e in balls_off_table(events)):
        fouls.append(Foul.OBJECT_OFF_TABLE)
        ends_inning = True
    extra = [e.ball for e in pots(events) if e.ball != cue and (pot is None or e.ball != pot.ball)]
    if extra:
        flags.append(Flag.EXTRA_POT)
        ends_inning = ends_inning or options.extra_pot_ends_turn

    score = list(state.score)
    score[shooter - 1] += points
    penalty = max(penalties, default=0)
    other = opponent(shooter)
    if penalty and options.penalty is Penalty.DEDUCT:
        score[shooter - 1] -= penalty
    elif penalty:
        if options.finish is Finish.EXACT and score[other - 1] + penalty > options.target:
            flags.append(Flag.PENALTY_BUST)  # [decision] an exact finish is not passed by a penalty
        else:
            score[other - 1] += penalty
    winner = next((p for p in (shooter, other) if options.reached(score[p - 1])), None)

    turn_passes = points == 0 or ends_inning
    next_shooter = None if winner else (other if turn_passes else shooter)

    after, estimated = _positions_after_shot(state, facts, cue)
    if estimated:
        flags.append(Flag.POSITIONS_ESTIMATED)
    respots = (
        []
        if next_shooter is None
        else plan_respots(
            table,
            after,
            to_spot=[e.ball for e in events if e.type in LEAVING and not e.ball.is_white],
            next_cue_xy=after.get(cue_ball_of(next_shooter)),
            return_yellow=turn_passes,
        )
    )
    for respot in respots:
        after[respot.ball] = respot.xy_mm
    return Verdict(
        shooter=shooter,
        cue_ball=cue,
        called=call,
        scored_ball=pot.ball if points and pot else None,
        caroms=pot.caroms if pot else (),
        combination=bool(pot and pot.combination),
        bank=bool(pot and pot.bank) or wrong_ball_bank,
        points=points,
        fouls=tuple(fouls),
        penalty=penalty,
        turn_passes=turn_passes,
        next_shooter=next_shooter,
        in_hand=tuple(b for b in (Ball.W1, Ball.W2) if b not in after),
        respots=tuple(respots),
        score=(score[0], score[1]),
        winner=winner,
        flags=tuple(flags),
        positions_after={b: after[b] for b in Ball if b in after},
        pocket=pot.pocket if points and pot else None,
    )


def advance(state: GameState, verdict: Verdict) -> GameState:
    """The state after ``verdict`` (which must have been judged from ``state``)."""
    if verdict.shooter != state.shooter:
        raise StateError(
            f"the verdict is for player {verdict.shooter}, but player {state.shooter} is to play",
            "verdict.shooter",
        )
    return GameState(
        options=state.options,
        score=verdict.score,
        shooter=verdict.next_shooter or verdict.shooter,
        opening=False,
        positions=dict(verdict.positions_after),
        in_hand=frozenset(verdict.in_hand),
        yellow_middle_last=verdict.yellow_middle,
        winner=verdict.winner,
        shots_played=state.shots_played + 1,
        respot_targets=verdict.respots,
    )


# --- the called ball --------------------------------------------------------------------------
def _targets(call: Call, cue: Ball) -> set[Ball]:
    if call.colour is Colour.WHITE:
        return {Ball.W2 if cue is Ball.W1 else Ball.W1}
    return {Ball.R1, Ball.R2} if call.colour is Colour.RED else {Ball.Y}


def _called_pot(
    state: GameState, events: Sequence[Event], cue: Ball, call: Call
) -> tuple[CalledPot | None, Flag | None]:
    """How the called ball entered the called pocket, or (None, why not).

    §7.1: when two balls matching the call (the two reds) entered the called pocket, the first
    that went in legally is the called ball; if neither did, the first (so the verdict says why
    it did not score)."""
    candidates = [e for e in pots(events) if e.ball in _targets(call, cue)]
    into_called = [e for e in candidates if e.pocket is call.pocket]
    if not into_called:
        return None, Flag.WRONG_POCKET if candidates else None
    ways = [_how_it_went_in(state, events, cue, e) for e in into_called]
    return next((w for w in ways if w.would_score), ways[0]), None


def _how_it_went_in(
    state: GameState, events: Sequence[Event], cue: Ball, pot_event: Event
) -> CalledPot:
    """How the ball of ``pot_event`` went in, judged as the called ball (§3, §4)."""
    ball, pocket = pot_event.ball, pot_event.pocket
    assert pocket is not None  # a pocket event always names its pocket
    ball_contacts = contacts_of(events, ball)
    bank = _banked(events, ball, pot_event)
    if not ball_contacts:
        return CalledPot(ball, pocket, (), False, bank, 0, flag=Flag.NOT_HIT)

    first = ball_contacts[0]
    feeder = first.other(ball)
    combination = False
    if feeder != cue:
        feeder_first = first_contact(events, feeder)
        if feeder_first is None or feeder_first is first or feeder_first.other(feeder) != cue:
            # Two or more balls between the cue ball and the called ball [S 11].
            return CalledPot(ball, pocket, (), False, bank, 0, foul=Foul.CHAIN_TOO_LONG)
        combination = True

    if ball.colour is Colour.YELLOW:
        pot_class = PotClass.YELLOW_TWELVE if pocket.is_middle or bank else PotClass.YELLOW_CORNER
    else:
        pot_class = PotClass.WHITE if ball.colour is Colour.WHITE else PotClass.RED
        if bank and not pocket.is_middle and state.options.banks is Banks.SEED:
            return CalledPot(
                ball, pocket, (), combination, bank, 0, foul=Foul.BANK_NOT_ALLOWED
            )
    # Caroms: balls other than the called one that the cue ball touches after its first contact
    # with it; none in a combination [S 12].
    caroms: list[Ball] = []
    if not combination:
        start = events.index(first)
        for e in contacts_of(events[start + 1 :], cue):
            hit = e.other(cue)
            if hit != ball and hit not in caroms:
                caroms.append(hit)
    points = points_for(pot_class, (b.colour for b in caroms))
    return CalledPot(ball, pocket, tuple(caroms), combination, bank, points)


def _banked(events: Sequence[Event], ball: Ball, pot_event: Event) -> bool:
    """§3: the ball touched a cushion between its last ball contact and dropping."""
    end = events.index(pot_event)
    start = 0
    for i, e in enumerate(events[:end]):
        if e.type is EventType.CONTACT and e.involves(ball):
            start = i
    return any(e.type is EventType.CUSHION and e.ball == ball for e in events[start:end])


def _called_ball_banked(events: Sequence[Event], cue: Ball, call: Call) -> bool:
    """Whether the called ball (the first matching the call) entered the called pocket banked."""
    into_called = [
        e for e in pots(events) if e.ball in _targets(call, cue) and e.pocket is call.pocket
    ]
    return bool(into_called) and _banked(events, into_called[0].ball, into_called[0])


def _assumed_call(
    state: GameState, events: Sequence[Event], cue: Ball
) -> tuple[Call | None, CalledPot | None]:
    """`calls: assume`: the first pocketed ball that would score counts as called; if none would,
    the first pocketed object ball (so the verdict says why it did not score)."""
    tried: list[tuple[Call, CalledPot]] = []
    for e in pots(events):
        if e.ball == cue or e.pocket is None:
            continue
        call = Call(e.ball.colour, e.pocket)
        pot, _ = _called_pot(state, events, cue, call)
        if pot is not None:
            if pot.would_score:
                return call, pot
            tried.append((call, pot))
    return tried[0] if tried else (None, None)


# --- fouls ------------------------------------------------------------------------------------
def _scratch_penalty(events: Sequence[Event], cue: Ball) -> int:
    """§5: the value of the first ball the cue ball touched, or 2 if it touched none."""
    first = first_contact(events, cue)
    return first.other(cue).colour.value_points if first else Colour.WHITE.value_points


def _opening_violated(state: GameState, events: Sequence[Event], cue: Ball) -> bool:
    """§5 opening shot: the red from point 1 pocketed, anything in a middle pocket, or the cue
    ball touching the yellow first."""
    point1 = state.table.spot_xy(Spot.POINT1)
    red_on_point1 = {
        b
        for b in (Ball.R1, Ball.R2)
        if b in state.on_table and math.dist(state.on_table[b], point1) < state.table.ball_radius_mm
    }
    for e in pots(events):
        if e.ball in red_on_point1 or (e.pocket is not None and e.pocket.is_middle):
            return True
    first = first_contact(events, cue)
    return first is not None and first.other(cue) is Ball.Y


# --- positions --------------------------------------------------------------------------------
def _check_fits_state(state: GameState, facts: ShotFacts, cue: Ball) -> None:
    """Refuse facts that cannot have happened from this state."""
    playable = set(state.on_table) | ({cue} if cue in state.in_hand else set())
    for i, event in enumerate(facts.events):
        for ball in event.balls:
            if ball not in playable:
                raise FactsError(
                    f"{ball.value} is in hand (off the table), so it cannot have a "
                    f"{event.type.value} event",
                    f"events[{i}]",
                )
    if facts.call is not None and facts.call.target == cue:
        raise FactsError(
            f"the call names the striker's own cue ball {cue.value}; call R, Y or W "
            "(the opponent's white)",
            "call.ball",
        )
    for ball, xy in (facts.final_positions or {}).items():
        where = f"final_positions.{ball.value}"
        if ball not in playable:
            raise FactsError(
                f"{ball.value} is in hand (off the table) but has a final position", where
            )
        if not state.table.can_rest_at(xy, tolerance_mm=POSITION_TOLERANCE_MM):
            raise FactsError(
                f"({xy[0]:g}, {xy[1]:g}) mm is off the {state.table.length_mm:g} x "
                f"{state.table.width_mm:g} mm playing field",
                where,
            )
    _check_no_overlap(state, facts)


def overlaps_at_rest(state: GameState, facts: ShotFacts) -> list[tuple[Ball, Ball, float]]:
    """§7.8: pairs of balls that would overlap at rest (centres closer than
    ``TableSpec.overlap_mm``), with the distance (mm): among the final positions given, and
    between each of them and the balls that took part in no event (they lie where they lay)."""
    given = facts.final_positions or {}
    if not given:
        return []
    moved = {b for e in facts.events for b in e.balls}
    resting = {b: xy for b, xy in state.on_table.items() if b not in moved and b not in given}
    return [(a, b, apart) for a, b, apart in state.table.overlapping({**given, **resting})
            if a in given or b in given]


def _check_no_overlap(state: GameState, facts: ShotFacts) -> None:
    """Refuse a record whose balls overlap at rest (§7.8)."""
    given = facts.final_positions or {}
    table = state.table
    for a, b, apart in overlaps_at_rest(state, facts):
        still = next((x for x in (a, b) if x not in given), None)
        how = "" if still is None else f" ({still.value} took no part, so it lay still)"
        raise FactsError(
            f"{a.value} and {b.value} overlap at rest{how}: {apart:.1f} mm apart, expected "
            f"at least {table.overlap_mm:g} mm (a ball is {table.ball_diameter_mm:g} mm)",
            f"final_positions.{(b if b in given else a).value}",
        )


def _positions_after_shot(
    state: GameState, facts: ShotFacts, cue: Ball
) -> tuple[dict[Ball, Point], bool]:
    """Balls on the table when everything has stopped, before respotting.

    Where the facts give no final position: a ball that took part in no event stays where it was;
    one that moved is where the facts estimate it (``estimated_positions``: where it was last
    seen) unless another ball lies there, else keeps its old place, and either way the verdict
    is flagged ``positions_estimated``; a cue ball played from hand is assumed at the middle of
    the house.
    """
    table = state.table
    given = facts.final_positions or {}
    guessed = facts.estimated_positions or {}
    gone = {e.ball for e in facts.events if e.type in LEAVING}
    moved = {b for e in facts.events for b in e.balls}
    before = dict(state.on_table)
    # A white in hand is on the table only if the striker placed it: he played it, or it was seen.
    if cue in state.in_hand and (facts.strike.ball == cue or cue in given or cue in moved):
        before[cue] = (table.house_line_x / 2, table.width_mm / 2)
    after: dict[Ball, Point] = {}
    estimated = False
    for ball, xy in before.items():
        if ball in gone:
            continue
        if ball in given:
            after[ball] = given[ball]
        else:
            after[ball] = xy
            estimated = estimated or ball in moved
    for ball, xy in guessed.items():
        # (an estimate that would overlap another ball's place is no better than none)
        if ball in after and ball in moved and ball not in given and not table.is_occupied(
                xy, [p for b, p in after.items() if b != ball]):
            after[ball] = xy
    return after, estimated
