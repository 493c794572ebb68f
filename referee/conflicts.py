"""A camera's shot facts that contradict the game state, repaired so that refereeing goes on.

The game state is the referee's memory of the match; a camera's facts are one reading of one
shot. When the two disagree (a white the state has in hand is seen struck, a ball is seen resting
off the playing field, the call names the striker's own white) a GAME file's record is refused as
impossible (bad input, exit 2), but a camera's shot is judged as well as its facts allow: a
tracker's slip, or an earlier shot judged wrong, must not end a match that is being played.
Each repair that changes what is judged writes one line into the facts' ``extra["conflicts"]``
(kept by the journal, shown in the reports and on the operator page) and the verdict is flagged
``camera_conflict``: the operator confirms it, or corrects it with ``kaisa journal undo`` and
``kaisa journal override``. Repairs that only drop a measured position (a ball in hand seen at
rest, overlapping positions) are "left out" notes, as before, and flag nothing but
``positions_estimated``.

The repairs, in the order they are made (:func:`fit_camera_facts`):

1. a record read as data (not found in a video) that breaks the facts' own rules: events put in
   time order, a second strike, events before the strike and events of a ball after it left
   the table left out, unreadable parts left out (:func:`read_camera_record`);
2. the strike of the opponent's white while the state has it in hand: the white struck was the
   striker's own, whatever the tracker named it (the two whites' names are swapped for the
   shot). The opponent's white struck while on the table is a real foul (RULES.md §5, wrong cue
   ball) and is left alone, as is the strike of a red or the yellow;
3. a call naming the striker's own white: read as a call of the opponent's white (``W``);
4. events of a white the state has in hand (other than the striker's, which he places): left
   out (its positions too, as "left out" notes);
5. a final position off the playing field: left out (had the ball left the table, the shot
   should say so: the operator checks);
6. final positions that overlap (RULES.md §7.8, two tracks on one ball): left out.

What no repair makes judgeable is recorded flagged ``not_judged`` (:func:`not_judged`): nothing
scored, no foul, no penalty, the balls where the state had them, and the turn passes (RULES.md
§5: the striker plays again only after a shot that legally scored, and none is known to have).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from rules import (
    Ball,
    Call,
    Colour,
    Event,
    EventType,
    FactsError,
    Flag,
    GameState,
    KaisaError,
    ShotFacts,
    StateError,
    Verdict,
    cue_ball_of,
    judge,
    opponent,
    overlaps_at_rest,
)
from rules.events import LEAVING
from rules.judge import POSITION_TOLERANCE_MM

# The key of a shot's facts' ``extra`` that lists its conflicts (one-line strings).
CONFLICTS = "conflicts"
# Where an operator's override moves them: the shot was judged again by the operator's word.
CONFLICTS_OVERRIDDEN = "conflicts_overridden"

OPERATOR_HINT = "the operator judges it (`kaisa journal undo`, then `kaisa journal override`)"


@dataclass(frozen=True)
class CameraShot:
    """A camera's shot as the referee judged it: its facts as judged (``extra["conflicts"]``
    says what was repaired), what was left out of them, and the verdict (flagged
    ``camera_conflict``, and ``not_judged`` when no repair made the facts judgeable)."""

    facts: ShotFacts
    left_out: list[str]
    verdict: Verdict


def conflicts_of(facts: ShotFacts) -> list[str]:
    """The conflict notes a shot's facts carry (empty when none)."""
    notes = facts.extra.get(CONFLICTS)
    return [str(n) for n in notes] if isinstance(notes, list) else []


def judge_camera_shot(state: GameState, record: Mapping[str, Any] | ShotFacts,
                      where: str) -> CameraShot:
    """A camera's shot judged from ``state`` as well as its facts allow: repaired to fit the
    state (:func:`fit_camera_facts`), judged, and flagged when repaired; ``not_judged`` when
    even then the rules cannot judge it. Raises only when the game is already won (no shot is
    judged after the win: the caller skips it)."""
    if state.winner is not None:
        raise StateError(f"the game is over: player {state.winner} has won", where)
    try:
        facts, left_out = fit_camera_facts(state, record, where)
    except KaisaError as err:
        facts = _placeholder(state, record, _earliest_t(record))
        return _not_judged_shot(state, facts, _located(err, where), [])
    try:
        verdict = judge(state, facts)
    except KaisaError as err:
        return _not_judged_shot(state, facts, _located(err, where), left_out)
    if conflicts_of(facts):
        verdict = replace(verdict, flags=(*verdict.flags, Flag.CAMERA_CONFLICT))
    return CameraShot(facts, left_out, verdict)


def fit_camera_shot(state: GameState, record: Mapping[str, Any] | ShotFacts, where: str
                    ) -> tuple[ShotFacts, list[str]]:
    """:func:`fit_camera_facts`, or for a record that cannot be read, facts to record it by
    (the striker's strike alone, the reason in its conflicts): what an operator's override of
    the shot is applied to. Never raises."""
    try:
        return fit_camera_facts(state, record, where)
    except KaisaError as err:
        facts = _placeholder(state, record, _earliest_t(record))
        return _with_conflicts(facts, [f"not judged: {_located(err, where)}"]), []


def _not_judged_shot(state: GameState, facts: ShotFacts, why: str,
                     left_out: list[str]) -> CameraShot:
    facts, verdict = not_judged(state, facts, why)
    return CameraShot(facts, left_out, verdict)


def not_judged(state: GameState, facts: ShotFacts, why: str) -> tuple[ShotFacts, Verdict]:
    """A shot the rules cannot judge, recorded so that the match goes on: its facts with the
    reason added to their conflicts, and a verdict that scores nothing, calls no foul, leaves
    the balls where the state had them and passes the turn (see the module's docstring),
    flagged ``camera_conflict`` and ``not_judged``."""
    facts = _with_conflicts(facts, [f"not judged: {why}; nothing scored, the turn passes: "
                                    f"{OPERATOR_HINT}"])
    shooter = state.shooter
    verdict = Verdict(
        shooter=shooter,
        cue_ball=cue_ball_of(shooter),
        called=facts.call,
        scored_ball=None,
        caroms=(),
        combination=False,
        bank=False,
        points=0,
        fouls=(),
        penalty=0,
        turn_passes=True,
        next_shooter=opponent(shooter),
        in_hand=tuple(b for b in (Ball.W1, Ball.W2) if b in state.in_hand),
        respots=(),
        score=state.score,
        winner=None,
        flags=(Flag.CAMERA_CONFLICT, Flag.NOT_JUDGED),
        positions_after={b: state.on_table[b] for b in Ball if b in state.on_table},
    )
    return facts, verdict


def settled_by_operator(facts: ShotFacts) -> ShotFacts:
    """A shot judged again with the operator's overrides: its conflicts are answered, so they
    move to ``extra["conflicts_overridden"]`` (the operator page lists only open ones)."""
    notes = conflicts_of(facts)
    if not notes:
        return facts
    extra = {k: v for k, v in facts.extra.items() if k != CONFLICTS}
    return replace(facts, extra={**extra, CONFLICTS_OVERRIDDEN: notes})


# --- the repairs --------------------------------------------------------------------------------
def fit_camera_facts(state: GameState, record: Mapping[str, Any] | ShotFacts, where: str = "shot"
                     ) -> tuple[ShotFacts, list[str]]:
    """A camera's shot made to fit the state it is judged from (repairs 1-6 of the module's
    docstring): the facts, their ``extra["conflicts"]`` listing what was repaired (replacing
    any the record carried), and the "left out" notes. Raises FactsError (naming ``where``)
    only for a record with no strike to judge."""
    facts, conflicts = read_camera_record(record, where, cue_ball_of(state.shooter))
    left_out: list[str] = []
    for repair in (_struck_white_in_hand, _call_of_own_white):
        facts, notes = repair(state, facts)
        conflicts += notes
    facts, notes, more = _without_balls_in_hand(state, facts)
    left_out += notes
    conflicts += more
    facts, notes = _without_positions_off_the_field(state, facts)
    conflicts += notes
    facts, notes = without_overlaps(state, facts)
    left_out += notes
    extra = {k: v for k, v in facts.extra.items() if k != CONFLICTS}
    if conflicts:
        extra[CONFLICTS] = [_one_line(n) for n in conflicts]
    return replace(facts, extra=extra), left_out + gap_notes(facts)


def gap_notes(facts: ShotFacts) -> list[str]:
    """A note for each gap in the camera's frames during the shot (``extra["camera_gap"]``,
    from a live source: a stall, a dropped connection) and for each knock of the camera
    followed during it (``extra["camera_moved"]``); its verdict waits for the operator."""
    gaps = facts.extra.get("camera_gap")
    moves = facts.extra.get("camera_moved")
    return [f"camera_gap: no frame for {gap['gap_s']:.1f} s after {gap['t_s']:.1f} s; the "
            "verdict waits for the operator's confirmation"
            for gap in (gaps if isinstance(gaps, list) else []) if isinstance(gap, Mapping)] + [
        f"camera_moved: the camera was knocked and followed at {move['t_s']:.1f} s (the table "
        f"moved {move['moved_mm']:.0f} mm in the picture); the balls' places just before were "
        "off by about that much: the verdict waits for the operator's confirmation"
        for move in (moves if isinstance(moves, list) else []) if isinstance(move, Mapping)]


def fit_to_state(state: GameState, facts: ShotFacts) -> tuple[ShotFacts, list[str]]:
    """A camera's facts fitted to the state (see :func:`fit_camera_facts`) and what was left
    out of them."""
    return fit_camera_facts(state, facts)


def read_camera_record(record: Mapping[str, Any] | ShotFacts, where: str = "shot",
                       cue: Ball | None = None) -> tuple[ShotFacts, list[str]]:
    """A camera's record as facts, and what was repaired to read it (repair 1). Facts found in
    a video are valid by construction and come back as they are. A record with no strike whose
    first event is one of the striker's white (``cue``) was struck then (the tracker saw the
    ball move, not the cue meet it)."""
    if isinstance(record, ShotFacts):
        return record, []
    try:
        return ShotFacts.from_dict(record, where), []
    except FactsError:
        pass
    if not isinstance(record, Mapping):
        raise FactsError(f"expected a shot object, got {type(record).__name__}", where)
    notes: list[str] = []
    raw = record.get("events")
    events: list[Event] = []
    for i, item in enumerate(raw if isinstance(raw, list) else []):
        try:
            events.append(Event.from_dict(item, f"events[{i}]"))
        except FactsError as err:
            notes.append(f"record: {err} (left out)")
    events, more = _events_in_order(events, where, cue)
    notes += more
    call = None
    if record.get("call") is not None:
        try:
            call = Call.from_dict(record["call"], "call")
        except FactsError as err:
            notes.append(f"record: {err} (no call taken)")
    finals, more = _readable_positions(record.get("final_positions"), events)
    notes += more
    guessed, more = _readable_positions(record.get("estimated_positions"), events,
                                        "estimated_positions")
    notes += more
    extra = {k: v for k, v in record.items()
             if k not in ("call", "events", "final_positions", "estimated_positions")}
    try:
        return ShotFacts(tuple(events), call, finals, extra, guessed), notes
    except FactsError as err:
        raise err.at(where) from None


def _events_in_order(events: list[Event], where: str, cue: Ball | None
                     ) -> tuple[list[Event], list[str]]:
    """The events in time order from the (first) strike on, with no event of a ball after it
    left the table, and no frame out of order; what was changed."""
    notes: list[str] = []
    ordered = sorted(events, key=lambda e: e.t)  # (stable: equal times keep their order)
    if ordered != events:
        notes.append("record: events put in time order")
    strike = next((i for i, e in enumerate(ordered) if e.type is EventType.STRIKE), None)
    if strike is None and ordered and cue is not None and cue in ordered[0].balls:
        first = ordered[0]
        ordered.insert(0, Event(EventType.STRIKE, first.t, (cue,), frame=first.frame))
        notes.append(f"record: no strike seen: {cue} taken as struck at t={first.t:g} s, its "
                     "first event")
        strike = 0
    if strike is None:
        raise FactsError("no strike event (and the striker's white is not the first ball "
                         "seen moving): the shot cannot be judged", f"{where}.events")
    if strike:
        notes.append(f"record: {_count(strike, 'event')} before the strike left out")
    kept: list[Event] = []
    gone: set[Ball] = set()
    for event in ordered[strike:]:
        if kept and event.type is EventType.STRIKE:
            notes.append(f"record: a second strike (of {event.ball}) left out")
            continue
        if gone & set(event.balls):
            notes.append(f"record: a {event.type} event of "
                         f"{'-'.join(b.value for b in event.balls)} after it left the table "
                         "left out")
            continue
        last_frame = next((e.frame for e in reversed(kept) if e.frame is not None), None)
        if event.frame is not None and last_frame is not None and event.frame < last_frame:
            notes.append(f"record: frame {event.frame} of a {event.type} event, before frame "
                         f"{last_frame}, left out")
            event = replace(event, frame=None)
        if event.type in LEAVING:
            gone.add(event.ball)
        kept.append(event)
    return kept, notes


def _readable_positions(raw: object, events: list[Event], name: str = "final_positions"
                        ) -> tuple[dict[Ball, tuple[float, float]] | None, list[str]]:
    """The positions (the record's ``name``) that can be read and belong to a ball still on
    the table."""
    if raw is None:
        return None, []
    if not isinstance(raw, Mapping):
        return None, [f"record: {name} unreadable (left out)"]
    label = name.removesuffix("s").replace("_", " ")  # "final position", "estimated position"
    gone = {e.ball for e in events if e.type in LEAVING}
    out: dict[Ball, tuple[float, float]] = {}
    notes = []
    for key, xy in raw.items():
        try:
            ball = Ball(str(key))
            point = (float(xy[0]), float(xy[1]))
            if len(xy) != 2 or not all(v == v and abs(v) != float("inf") for v in point):
                raise ValueError
        except (ValueError, TypeError, IndexError, KeyError):
            notes.append(f"record: {label} {key!r}: {xy!r} unreadable (left out)")
            continue
        if ball in gone:
            notes.append(f"record: {label} of {ball} left out (it left the table)")
            continue
        out[ball] = point
    return out, notes


def _struck_white_in_hand(state: GameState, facts: ShotFacts) -> tuple[ShotFacts, list[str]]:
    """Repair 2: the opponent's white seen struck while the state has it in hand."""
    cue = cue_ball_of(state.shooter)
    struck = facts.strike.ball
    if struck is cue or struck not in state.in_hand:
        return facts, []
    return renamed(facts, {struck: cue, cue: struck}), [
        f"{struck} seen struck, but the state has {struck} in hand (off the table): the white "
        f"struck taken as {cue}, player {state.shooter}'s cue ball (the whites' names swapped "
        "for this shot)"]


def _call_of_own_white(state: GameState, facts: ShotFacts) -> tuple[ShotFacts, list[str]]:
    """Repair 3: a call naming the striker's own white."""
    cue = cue_ball_of(state.shooter)
    call = facts.call
    if call is None or call.target != cue:
        return facts, []
    return replace(facts, call=Call(Colour.WHITE, call.pocket)), [
        f"the call names {cue}, player {state.shooter}'s own cue ball: taken as the opponent's "
        f"white (W) in {call.pocket}"]


def _without_balls_in_hand(state: GameState, facts: ShotFacts
                           ) -> tuple[ShotFacts, list[str], list[str]]:
    """Repair 4: a ball the state has in hand, other than the shooter's cue ball (which he
    places), is off the table, so what the tracker took for it (a hand, a shadow in the house)
    was not it: its events and positions are left out. The left-out notes, and a conflict for
    the events (had the ball been on the table, the shot was judged without it)."""
    cue = cue_ball_of(state.shooter)
    away = {b for b in state.in_hand if b is not cue}
    if not away:
        return facts, [], []
    names = ", ".join(sorted(b.value for b in away))
    notes, conflicts = [], []
    events = facts.events[:1] + tuple(e for e in facts.events[1:] if not away & set(e.balls))
    if len(events) < len(facts.events):
        gone = len(facts.events) - len(events)
        notes.append(f"{_count(gone, 'event')} of {names} left out (in hand)")
        one = len(away) == 1
        conflicts.append(f"{names} seen in play ({_count(gone, 'event')}), but the state has "
                         f"{'it' if one else 'them'} in hand (off the table): "
                         f"{'its' if one else 'their'} events left out")
    finals = facts.final_positions
    if finals is not None and away & set(finals):
        notes.append("final_positions of "
                     f"{', '.join(sorted(b.value for b in away & set(finals)))} left out "
                     "(in hand)")
        finals = {b: xy for b, xy in finals.items() if b not in away}
    extra = dict(facts.extra)
    placed = extra.get("start_positions")
    if isinstance(placed, Mapping) and {b.value for b in away} & set(placed):
        notes.append("start_positions of "
                     f"{', '.join(sorted({b.value for b in away} & set(placed)))} left out "
                     "(in hand)")
        extra["start_positions"] = {b: xy for b, xy in placed.items()
                                    if b not in {a.value for a in away}}
    return (replace(facts, events=events, final_positions=finals, extra=extra), notes,
            conflicts)


def _without_positions_off_the_field(state: GameState, facts: ShotFacts
                                     ) -> tuple[ShotFacts, list[str]]:
    """Repair 5: a ball seen at rest off the playing field (RULES.md §7.8 refuses it)."""
    finals = facts.final_positions or {}
    table = state.table
    off = {b: xy for b, xy in finals.items()
           if not table.can_rest_at(xy, tolerance_mm=POSITION_TOLERANCE_MM)}
    if not off:
        return facts, []
    kept = {b: xy for b, xy in finals.items() if b not in off}
    return replace(facts, final_positions=kept), [
        f"{b} seen at rest at ({xy[0]:.0f}, {xy[1]:.0f}) mm, off the {table.length_mm:g} x "
        f"{table.width_mm:g} mm playing field: its final position left out (had it left the "
        "table, the shot should say so)" for b, xy in sorted(off.items())]


def without_overlaps(state: GameState, facts: ShotFacts) -> tuple[ShotFacts, list[str]]:
    """Repair 6: final positions that overlap (RULES.md §7.8) are left out: those balls keep
    their last place, and the verdict says the positions were estimated. Repeated while a ball
    left out, back at its last place, overlaps another."""
    notes: list[str] = []
    while True:
        clashes = overlaps_at_rest(state, facts)
        if not clashes or facts.final_positions is None:
            return facts, notes
        drop = {b for a, b2, _ in clashes for b in (a, b2)} & set(facts.final_positions)
        pairs = "; ".join(f"{a.value}-{b.value} {apart:.0f} mm apart" for a, b, apart in clashes)
        finals = {b: xy for b, xy in facts.final_positions.items() if b not in drop}
        facts = replace(facts, final_positions=finals)
        notes.append(f"final_positions of {', '.join(sorted(b.value for b in drop))} left out "
                     f"(overlapping: {pairs})")


def renamed(facts: ShotFacts, names: Mapping[Ball, Ball]) -> ShotFacts:
    """The same shot with balls named again (``names``: old -> new, a permutation) in its events,
    final positions, and the ``start_positions`` and ``paths`` of its extra."""
    def new(ball: Ball) -> Ball:
        return names.get(ball, ball)

    events = tuple(replace(e, balls=tuple(new(b) for b in e.balls)) for e in facts.events)
    finals = (None if facts.final_positions is None
              else {new(b): xy for b, xy in facts.final_positions.items()})
    by_id = {old.value: nu.value for old, nu in names.items()}
    extra = dict(facts.extra)
    for key in ("start_positions", "paths"):
        value = extra.get(key)
        if isinstance(value, Mapping):
            extra[key] = {by_id.get(str(k), k): v for k, v in value.items()}
    return replace(facts, events=events, final_positions=finals, extra=extra)


# --- helpers ------------------------------------------------------------------------------------
def _with_conflicts(facts: ShotFacts, notes: list[str]) -> ShotFacts:
    return replace(facts, extra={**facts.extra, CONFLICTS: [
        *conflicts_of(facts), *map(_one_line, notes)]})


def _one_line(note: str) -> str:
    """A note as one line (an operator's page lists them a line each)."""
    return " ".join(note.split())


def _located(err: KaisaError, where: str) -> str:
    return str(err if err.where.startswith(where) else err.at(where))


def _count(n: int, word: str) -> str:
    return f"{n} {word if n == 1 else word + 's'}"


def _earliest_t(record: Mapping[str, Any] | ShotFacts) -> float:
    """The earliest readable event time of a record (0 when there is none)."""
    if isinstance(record, ShotFacts):
        return record.strike.t
    raw = record.get("events") if isinstance(record, Mapping) else None
    times = [e.get("t") for e in raw if isinstance(e, Mapping)] if isinstance(raw, list) else []
    ok = [float(t) for t in times if isinstance(t, int | float) and not isinstance(t, bool)
          and 0 <= t < float("inf")]
    return min(ok, default=0.0)


def _placeholder(state: GameState, record: Mapping[str, Any] | ShotFacts, t: float
                 ) -> ShotFacts:
    """Facts to record a shot by when its own cannot be read: the striker's strike at the
    record's first time, and the record's other fields."""
    if isinstance(record, ShotFacts):
        return record
    extra = ({k: v for k, v in record.items() if k not in ("call", "events", "final_positions")}
             if isinstance(record, Mapping) else {})
    strike = Event(EventType.STRIKE, t, (cue_ball_of(state.shooter),))
    return ShotFacts((strike,), None, None, {**extra, CONFLICTS: [
        f"the record could not be read: recorded as a strike of {strike.ball} at t={t:g} s "
        "only"]})
