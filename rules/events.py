"""The event vocabulary and ShotFacts (DESIGN.md "Shot facts"), parsed and validated.

A shot is a time-ordered list of typed events. Rules are small queries over that list
(:func:`first_contact`, :func:`pots`, ...); they never look at pixels or physics.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum, StrEnum
from typing import Any, TypeVar

from rules.balls import Ball, Colour
from rules.errors import FactsError
from rules.table import Cushion, Pocket, Point


class EventType(StrEnum):
    STRIKE = "strike"
    CONTACT = "contact"
    CUSHION = "cushion"
    POCKET = "pocket"
    OFF_TABLE = "off_table"


# Events after which a ball is no longer on the table.
LEAVING = (EventType.POCKET, EventType.OFF_TABLE)


@dataclass(frozen=True)
class Event:
    """One thing that happened in a shot. ``balls`` has two ids for a contact, one otherwise."""

    type: EventType
    t: float
    balls: tuple[Ball, ...]
    frame: int | None = None
    cushion: Cushion | None = None
    pocket: Pocket | None = None
    confidence: float | None = None

    def __post_init__(self) -> None:
        want = 2 if self.type is EventType.CONTACT else 1
        if len(self.balls) != want:
            raise FactsError(
                f"a {self.type.value} event names {want} ball(s), got {len(self.balls)}"
            )
        if want == 2 and self.balls[0] == self.balls[1]:
            raise FactsError(
                f"a contact needs two different balls, got {self.balls[0].value} twice", "balls"
            )
        if not (isinstance(self.t, (int, float)) and math.isfinite(self.t) and self.t >= 0):
            raise FactsError(f"expected a time in seconds >= 0, got {self.t!r}", "t")
        if self.frame is not None and (
            isinstance(self.frame, bool) or not isinstance(self.frame, int) or self.frame < 0
        ):
            raise FactsError(f"expected a frame index >= 0, got {self.frame!r}", "frame")
        if (self.type is EventType.CUSHION) != (self.cushion is not None):
            raise FactsError(
                "a cushion event (and only a cushion event) names a cushion", "cushion"
            )
        if (self.type is EventType.POCKET) != (self.pocket is not None):
            raise FactsError("a pocket event (and only a pocket event) names a pocket", "pocket")
        if self.confidence is not None and not 0.0 <= self.confidence <= 1.0:
            raise FactsError(
                f"expected a confidence in [0, 1], got {self.confidence!r}", "confidence"
            )

    @property
    def ball(self) -> Ball:
        """The ball of a one-ball event (strike, cushion, pocket, off_table)."""
        return self.balls[0]

    def involves(self, ball: Ball) -> bool:
        return ball in self.balls

    def other(self, ball: Ball) -> Ball:
        """The other ball of a contact that involves ``ball``."""
        a, b = self.balls
        return b if a == ball else a

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"t": self.t}
        if self.frame is not None:
            out["frame"] = self.frame
        out["type"] = self.type.value
        if self.type is EventType.CONTACT:
            out["balls"] = [b.value for b in self.balls]
        else:
            out["ball"] = self.ball.value
        if self.cushion is not None:
            out["cushion"] = self.cushion.value
        if self.pocket is not None:
            out["pocket"] = self.pocket.value
        if self.confidence is not None:
            out["confidence"] = self.confidence
        return out

    @classmethod
    def from_dict(cls, data: object, where: str = "event") -> Event:
        if not isinstance(data, Mapping):
            raise FactsError(f"expected an object, got {type(data).__name__}", where)
        kind = _enum(EventType, data.get("type"), f"{where}.type")
        if kind is EventType.CONTACT:
            raw = data.get("balls")
            if not isinstance(raw, list) or len(raw) != 2:
                raise FactsError(f"expected a list of two ball ids, got {raw!r}", f"{where}.balls")
            balls = tuple(Ball.parse(b, f"{where}.balls[{i}]") for i, b in enumerate(raw))
        else:
            balls = (Ball.parse(data.get("ball"), f"{where}.ball"),)
        t = data.get("t")
        if isinstance(t, bool) or not isinstance(t, (int, float)):
            raise FactsError(f"expected a time in seconds, got {t!r}", f"{where}.t")
        cushion = _enum(Cushion, data["cushion"], f"{where}.cushion") if "cushion" in data else None
        pocket = _enum(Pocket, data["pocket"], f"{where}.pocket") if "pocket" in data else None
        confidence = _number_or_none(data.get("confidence"), f"{where}.confidence")
        try:
            return cls(
                type=kind,
                t=float(t),
                balls=balls,
                frame=data.get("frame"),
                cushion=cushion,
                pocket=pocket,
                confidence=confidence,
            )
        except FactsError as err:
            raise err.at(where) from None


@dataclass(frozen=True)
class Call:
    """The striker's call: a ball (a colour, or an id, which for reds still means "a red") and a
    pocket. ``W`` (or the opponent's id) calls the opponent's white."""

    target: Colour | Ball
    pocket: Pocket

    @property
    def colour(self) -> Colour:
        return self.target if isinstance(self.target, Colour) else self.target.colour

    def to_dict(self) -> dict[str, str]:
        return {"ball": self.target.value, "pocket": self.pocket.value}

    @classmethod
    def from_dict(cls, data: object, where: str = "call") -> Call:
        if not isinstance(data, Mapping):
            raise FactsError(
                f'expected {{"ball": ..., "pocket": ...}} or null, got {data!r}', where
            )
        raw = data.get("ball")
        target: Colour | Ball
        try:
            target = Colour(str(raw))
        except ValueError:
            try:
                target = Ball(str(raw))
            except ValueError:
                raise FactsError(
                    f"expected a ball to call (R, Y, W or a ball id), got {raw!r}", f"{where}.ball"
                ) from None
        return cls(target, _enum(Pocket, data.get("pocket"), f"{where}.pocket"))


@dataclass(frozen=True)
class ShotFacts:
    """What happened in one shot, as vision (or a person) saw it; validated on construction."""

    events: tuple[Event, ...]
    call: Call | None = None
    final_positions: Mapping[Ball, Point] | None = None
    # Anything else the record carried (strike_frame, rest_frame, labels...), kept for round trips.
    extra: Mapping[str, Any] = field(default_factory=dict)
    # Where balls that moved and were then lost from sight (not off the table, not potted)
    # were last seen: the best guess of their final places, not a measurement (the judge
    # uses them where final_positions has none, and flags the verdict positions_estimated).
    estimated_positions: Mapping[Ball, Point] | None = None

    def __post_init__(self) -> None:
        _validate_events(self.events)
        gone = {e.ball: e for e in self.events if e.type in LEAVING}
        for name, positions in (("final_positions", self.final_positions),
                                ("estimated_positions", self.estimated_positions)):
            for ball, xy in (positions or {}).items():
                where = f"{name}.{ball.value}"
                if ball in gone:
                    kind = "a final" if name == "final_positions" else "an estimated"
                    raise FactsError(
                        f"{ball.value} has {kind} position but left the table "
                        f"({gone[ball].type.value} at t={gone[ball].t:g})",
                        where,
                    )
                if len(xy) != 2 or not all(math.isfinite(v) for v in xy):
                    raise FactsError(f"expected [x_mm, y_mm], got {list(xy)!r}", where)

    @property
    def strike(self) -> Event:
        return self.events[0]

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = dict(self.extra)
        out["call"] = self.call.to_dict() if self.call else None
        out["events"] = [e.to_dict() for e in self.events]
        if self.final_positions is not None:
            out["final_positions"] = {
                b.value: [xy[0], xy[1]] for b, xy in self.final_positions.items()
            }
        if self.estimated_positions:
            out["estimated_positions"] = {
                b.value: [xy[0], xy[1]] for b, xy in self.estimated_positions.items()
            }
        return out

    @classmethod
    def from_dict(cls, data: object, where: str = "shot") -> ShotFacts:
        if not isinstance(data, Mapping):
            raise FactsError(f"expected a shot object, got {type(data).__name__}", where)
        raw_events = data.get("events")
        if not isinstance(raw_events, list):
            raise FactsError(f"expected a list of events, got {raw_events!r}", f"{where}.events")
        events = tuple(Event.from_dict(e, f"{where}.events[{i}]") for i, e in enumerate(raw_events))
        call = (
            Call.from_dict(data["call"], f"{where}.call") if data.get("call") is not None else None
        )
        positions = _positions(data.get("final_positions"), f"{where}.final_positions")
        estimated = _positions(data.get("estimated_positions"), f"{where}.estimated_positions")
        extra = {k: v for k, v in data.items()
                 if k not in ("call", "events", "final_positions", "estimated_positions")}
        try:
            return cls(events=events, call=call, final_positions=positions, extra=extra,
                       estimated_positions=estimated)
        except FactsError as err:
            raise err.at(where) from None


def _positions(raw: object, where: str) -> dict[Ball, Point] | None:
    """A record's ``{ball id: [x_mm, y_mm]}`` (None when absent)."""
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise FactsError("expected an object of ball id -> [x_mm, y_mm]", where)
    return {Ball.parse(key, where): _point(xy, f"{where}.{key}") for key, xy in raw.items()}


# --- validation -------------------------------------------------------------------------------
def _validate_events(events: Sequence[Event]) -> None:
    if not events or events[0].type is not EventType.STRIKE:
        raise FactsError("expected the first event to be the strike", "events[0]")
    gone: dict[Ball, Event] = {}
    previous = events[0]
    for i, event in enumerate(events):
        where = f"events[{i}]"
        if event.t < previous.t:
            raise FactsError(
                f"events out of time order: t={event.t:g} comes after t={previous.t:g}",
                f"{where}.t",
            )
        if event.frame is not None and previous.frame is not None and event.frame < previous.frame:
            raise FactsError(
                f"events out of frame order: frame {event.frame} after frame {previous.frame}",
                f"{where}.frame",
            )
        if i > 0 and event.type is EventType.STRIKE:
            raise FactsError(
                f"a second strike (of {event.ball.value}) in one shot; each shot has exactly one",
                where,
            )
        for ball in event.balls:
            if ball in gone:
                left = gone[ball]
                verb = "was pocketed" if left.type is EventType.POCKET else "left the table"
                raise FactsError(
                    f"{ball.value} has a {event.type.value} event after it {verb} (t={left.t:g})",
                    where,
                )
        if event.type in LEAVING:
            gone[event.ball] = event
        previous = event


E = TypeVar("E", bound=Enum)


def _enum(kind: type[E], value: object, where: str) -> E:
    try:
        return kind(value)
    except ValueError:
        allowed = ", ".join(str(m.value) for m in kind)
        raise FactsError(f"expected one of {allowed}, got {value!r}", where) from None


def _number_or_none(value: object, where: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise FactsError(f"expected a number, got {value!r}", where)
    return float(value)


def _point(value: object, where: str) -> Point:
    if (
        not isinstance(value, (list, tuple))
        or len(value) != 2
        or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)
    ):
        raise FactsError(f"expected [x_mm, y_mm], got {value!r}", where)
    return (float(value[0]), float(value[1]))


# --- queries over a shot's events (the vocabulary rules are written in) -------------------------
def contacts_of(events: Iterable[Event], ball: Ball) -> list[Event]:
    """Every ball-ball contact of ``ball``, in time order."""
    return [e for e in events if e.type is EventType.CONTACT and e.involves(ball)]


def first_contact(events: Iterable[Event], ball: Ball) -> Event | None:
    return next(iter(contacts_of(events, ball)), None)


def leaving_event(events: Iterable[Event], ball: Ball) -> Event | None:
    """The pocket or off_table event of ``ball``, if it left the table."""
    return next((e for e in events if e.type in LEAVING and e.ball == ball), None)


def pots(events: Iterable[Event]) -> list[Event]:
    return [e for e in events if e.type is EventType.POCKET]


def balls_off_table(events: Iterable[Event]) -> list[Event]:
    return [e for e in events if e.type is EventType.OFF_TABLE]
