"""An operator's override of a shot to be judged again (`kaisa journal override`).

An undone verdict is withdrawn, but its shot happened: the next ``--resume`` judges it again,
from the state before it. Before that the operator may say what the referee got wrong: the
call, or a fact ("R1 stayed on the lip"). The override is a journal entry of its own; on resume
it is applied to the shot's facts (as read again from the GAME file, or found again in the
video) and the shot is judged from them. Its parts, applied in this order:

- ``facts``: the shot's facts replaced as a whole (DESIGN.md's shot facts; what the record
  carried besides, such as a video's frames and stills, is kept);
- ``call``: the call set (``BALL:POCKET``, e.g. ``R:FL``), or taken away (``none``);
- ``drop``: events taken out, each ``TYPE:BALL[:WHAT]``: ``pocket:R1``, ``pocket:R1:FL``,
  ``off_table:Y``, ``cushion:W1`` (every cushion of W1), ``cushion:W1:foot``,
  ``contact:W1:R1`` (either order). The strike cannot be dropped. A ball whose pocket event
  is dropped stayed on the table at that pocket's lip (unless ``final`` places it); one whose
  off_table event is dropped is taken where it was before the shot (the verdict is flagged
  ``positions_estimated``), unless ``final`` places it;
- ``add``: events put in, each ``TYPE:BALL[:WHAT][@T]``: ``pocket:R1:FL``, ``off_table:Y``,
  ``cushion:R1:foot``, ``contact:W1:R2@12.5``; at ``T`` seconds (the video's time), else
  after the shot's last event. A ball that leaves the table loses its final position;
- ``final``: balls' final positions set, each ``BALL:X,Y`` (mm, the table frame).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from rules import Ball, Call, ShotFacts, TableSpec
from rules.errors import FactsError
from rules.events import LEAVING, Event, EventType
from rules.table import Cushion, Pocket, Point

# What the WHAT part of an event spec names, by event type (None: nothing).
_WHAT = {EventType.POCKET: "pocket", EventType.CUSHION: "cushion", EventType.CONTACT: "ball",
         EventType.OFF_TABLE: None}


@dataclass(frozen=True)
class EventSpec:
    """An event as the operator names it: ``TYPE:BALL[:WHAT][@T]``."""

    text: str
    type: EventType
    ball: Ball
    what: Ball | Cushion | Pocket | None = None
    t: float | None = None

    @classmethod
    def parse(cls, text: object, where: str, *, timed: bool = False) -> EventSpec:
        if not isinstance(text, str):
            raise FactsError(f"expected TYPE:BALL[:WHAT], got {text!r}", where)
        body, at, t_text = text.partition("@")
        if at and not timed:
            raise FactsError(f"a dropped event takes no time (@T), got {text!r}", where)
        parts = body.split(":")
        kinds = ", ".join(k.value for k in _WHAT)
        try:
            kind = EventType(parts[0])
        except ValueError:
            raise FactsError(f"expected an event type ({kinds}) before the first ':', got "
                             f"{parts[0]!r} in {text!r}", where) from None
        if kind not in _WHAT:
            raise FactsError(f"expected one of {kinds} (the strike is the shot itself), got "
                             f"{text!r}", where)
        if len(parts) < 2 or len(parts) > 3:
            raise FactsError(f"expected TYPE:BALL[:WHAT] (e.g. pocket:R1:FL, contact:W1:R1, "
                             f"cushion:W1:foot), got {text!r}", where)
        ball = Ball.parse(parts[1], where)
        what: Ball | Cushion | Pocket | None = None
        named = _WHAT[kind]
        if len(parts) == 3:
            if named is None:
                raise FactsError(f"an {kind.value} event names a ball only, got {text!r}", where)
            what = _parse_what(named, parts[2], where)
        elif timed and named is not None:
            raise FactsError(f"a {kind.value} event to add names its {named} too (e.g. "
                             f"{_EXAMPLE[kind]}), got {text!r}", where)
        if what == ball:
            raise FactsError(f"a contact needs two different balls, got {text!r}", where)
        t = None
        if at:
            try:
                t = float(t_text)
            except ValueError:
                raise FactsError(f"expected a time in seconds after '@', got {t_text!r}",
                                 where) from None
            if not 0 <= t < float("inf"):
                raise FactsError(f"expected a time in seconds >= 0, got {t_text!r}", where)
        return cls(text, kind, ball, what, t)

    def matches(self, event: Event) -> bool:
        if event.type is not self.type:
            return False
        if self.type is EventType.CONTACT:
            return self.ball in event.balls and (self.what is None or self.what in event.balls)
        if event.ball is not self.ball:
            return False
        return self.what is None or self.what in (event.pocket, event.cushion)

    def event(self, t: float) -> Event:
        if self.type is EventType.CONTACT:
            assert isinstance(self.what, Ball)
            return Event(self.type, t, (self.ball, self.what))
        return Event(self.type, t, (self.ball,),
                     cushion=self.what if isinstance(self.what, Cushion) else None,
                     pocket=self.what if isinstance(self.what, Pocket) else None)


_EXAMPLE = {EventType.POCKET: "pocket:R1:FL", EventType.CUSHION: "cushion:R1:foot",
            EventType.CONTACT: "contact:W1:R1"}


def _parse_what(named: str, text: str, where: str) -> Ball | Cushion | Pocket:
    if named == "ball":
        return Ball.parse(text, where)
    kind: type[Cushion] | type[Pocket] = Cushion if named == "cushion" else Pocket
    try:
        return kind(text)
    except ValueError:
        allowed = " ".join(m.value for m in kind)
        raise FactsError(f"unknown {named} {text!r} (expected one of {allowed})",
                         where) from None


def parse_call(text: object, where: str = "--call") -> Call | None:
    """``BALL:POCKET`` (``R:FL``, ``Y:ML``, ``W:HR``, ``R1:FR``), or ``none`` (uncalled)."""
    if text == "none":
        return None
    if not isinstance(text, str) or text.count(":") != 1:
        raise FactsError(f"expected BALL:POCKET (e.g. R:FL) or none, got {text!r}", where)
    ball, pocket = text.split(":")
    return Call.from_dict({"ball": ball, "pocket": pocket}, where)


def parse_final(text: object, where: str = "--final") -> tuple[Ball, Point]:
    """``BALL:X,Y`` (mm)."""
    if not isinstance(text, str) or ":" not in text:
        raise FactsError(f"expected BALL:X,Y (mm, e.g. R1:3480,1700), got {text!r}", where)
    ball_text, xy_text = text.split(":", 1)
    ball = Ball.parse(ball_text, where)
    try:
        x, y = (float(v) for v in xy_text.split(","))
    except ValueError:
        raise FactsError(f"expected BALL:X,Y (mm, e.g. R1:3480,1700), got {text!r}",
                         where) from None
    if not all(abs(v) < float("inf") for v in (x, y)):
        raise FactsError(f"expected finite millimetres, got {text!r}", where)
    return ball, (x, y)


@dataclass(frozen=True)
class Override:
    """What the operator changed in a shot before it is judged again (see the module's doc)."""

    facts: ShotFacts | None = None
    set_call: bool = False  # the call is set (to ``call``; None: uncalled)
    call: Call | None = None
    drop: tuple[EventSpec, ...] = ()
    add: tuple[EventSpec, ...] = ()
    final: Mapping[Ball, Point] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not (self.facts or self.set_call or self.drop or self.add or self.final):
            raise FactsError("an override changes something: give --call, --drop-event, "
                             "--add-event, --final or --facts", "override")

    def describe(self) -> str:
        parts = []
        if self.facts is not None:
            parts.append(f"facts replaced ({len(self.facts.events)} events)")
        if self.set_call:
            parts.append(f"call {_call_text(self.call)}")
        parts += [f"drop {d.text}" for d in self.drop]
        parts += [f"add {a.text}" for a in self.add]
        parts += [f"final {b.value} at ({xy[0]:g}, {xy[1]:g})" for b, xy in self.final.items()]
        return "; ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.facts is not None:
            out["facts"] = self.facts.to_dict()
        if self.set_call:
            out["call"] = self.call.to_dict() if self.call else None
        if self.drop:
            out["drop_events"] = [d.text for d in self.drop]
        if self.add:
            out["add_events"] = [a.text for a in self.add]
        if self.final:
            out["final_positions"] = {b.value: [xy[0], xy[1]] for b, xy in self.final.items()}
        return out

    @classmethod
    def from_dict(cls, data: object, where: str = "override") -> Override:
        if not isinstance(data, Mapping):
            raise FactsError(f"expected an override object, got {type(data).__name__}", where)
        facts = (ShotFacts.from_dict(data["facts"], f"{where}.facts")
                 if data.get("facts") is not None else None)
        call = (Call.from_dict(data["call"], f"{where}.call")
                if data.get("call") is not None else None)
        drop = tuple(EventSpec.parse(d, f"{where}.drop_events")
                     for d in _list(data.get("drop_events"), f"{where}.drop_events"))
        add = tuple(EventSpec.parse(a, f"{where}.add_events", timed=True)
                    for a in _list(data.get("add_events"), f"{where}.add_events"))
        finals = data.get("final_positions") or {}
        if not isinstance(finals, Mapping):
            raise FactsError("expected an object of ball id -> [x_mm, y_mm]",
                             f"{where}.final_positions")
        final = {}
        for key, xy in finals.items():
            if not (isinstance(xy, list) and len(xy) == 2):
                raise FactsError(f"expected [x_mm, y_mm], got {xy!r}",
                                 f"{where}.final_positions.{key}")
            final[Ball.parse(key, f"{where}.final_positions")] = (float(xy[0]), float(xy[1]))
        return cls(facts, "call" in data, call, drop, add, final)


def _list(value: object, where: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise FactsError(f"expected a list, got {value!r}", where)
    return value


def _call_text(call: Call | None) -> str:
    return "none" if call is None else f"{call.target.value}:{call.pocket.value}"


def lip_of(table: TableSpec, pocket: Pocket) -> Point:
    """Where a ball that stayed on a pocket's lip lies: the pocket's point, pulled onto the
    cloth (one ball radius from each nose that ends there)."""
    x, y = table.pocket_xy(pocket)
    r = table.ball_radius_mm
    return (min(max(x, r), table.length_mm - r), min(max(y, r), table.width_mm - r))


@dataclass(frozen=True)
class Applied:
    """A shot's facts with overrides applied, and what of them could not be (a part that
    names an event the shot does not have)."""

    facts: ShotFacts
    not_applied: tuple[str, ...] = ()


def apply_override(facts: ShotFacts, override: Override, table: TableSpec,
                   where: str = "override") -> Applied:
    """``facts`` as ``override`` has them. Raises FactsError when the result is not a possible
    shot (a ball with an event after it was pocketed, a final position of a pocketed ball)."""
    if override.facts is not None:
        facts = replace(override.facts, extra={**facts.extra, **override.facts.extra})
    call = override.call if override.set_call else facts.call
    events = list(facts.events)
    finals: dict[Ball, Point] | None = (dict(facts.final_positions)
                                        if facts.final_positions is not None else None)
    not_applied = []
    for spec in override.drop:
        dropped = [e for e in events[1:] if spec.matches(e)]
        if not dropped:
            not_applied.append(f"no {spec.text} event in the shot: nothing dropped")
            continue
        events = events[:1] + [e for e in events[1:] if not spec.matches(e)]
        for event in dropped:
            if (event.type is EventType.POCKET and event.pocket is not None
                    and event.ball not in override.final):
                finals = {**(finals or {}), event.ball: lip_of(table, event.pocket)}
    for spec in override.add:
        t = spec.t if spec.t is not None else events[-1].t
        if t < events[0].t:
            raise FactsError(f"{spec.text}: at {t:g} s, before the strike ({events[0].t:g} s)",
                             f"{where}.add_events")
        at = next((k for k, e in enumerate(events) if e.t > t), len(events))
        event = spec.event(t)
        events.insert(at, event)
        if event.type in LEAVING and finals is not None:
            finals.pop(event.ball, None)
    if override.final:
        finals = {**(finals or {}), **override.final}
    try:
        gone = {e.ball for e in events if e.type in LEAVING}
        guessed = {b: xy for b, xy in (facts.estimated_positions or {}).items()
                   if b not in gone and b not in (finals or {})}
        changed = ShotFacts(tuple(events), call, finals, facts.extra, guessed or None)
    except FactsError as err:
        raise err.at(where) from None
    return Applied(changed, tuple(not_applied))


def apply_overrides(facts: ShotFacts, overrides: Sequence[Override], table: TableSpec,
                    where: str = "override") -> Applied:
    """Several overrides of one shot, in the order they were journalled."""
    not_applied: list[str] = []
    for override in overrides:
        applied = apply_override(facts, override, table, where)
        facts = applied.facts
        not_applied += applied.not_applied
    return Applied(facts, tuple(not_applied))
