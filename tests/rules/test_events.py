"""DESIGN.md shot facts: parsing, and every impossible record refused with a clear message."""

from __future__ import annotations

import json

import pytest

from rules import Ball, EventType, FactsError, ShotFacts


def record(*events: dict, **extra: object) -> dict:
    return {"call": None, "events": list(events), **extra}


def ev(t: float, kind: str, **kw: object) -> dict:
    return {"t": t, "frame": int(t * 30), "type": kind, **kw}


GOOD = record(
    ev(12.40, "strike", ball="W1"), ev(12.71, "contact", balls=["W1", "R1"]),
    ev(12.90, "cushion", ball="R1", cushion="foot"), ev(13.35, "pocket", ball="R1", pocket="FL"),
    ev(13.60, "off_table", ball="Y"), final_positions={"W1": [100.0, 200.0]},
    call={"ball": "R", "pocket": "FL"})


def test_the_design_example_parses_and_round_trips():
    facts = ShotFacts.from_dict(GOOD)
    assert [e.type for e in facts.events] == list(EventType)
    assert facts.strike.ball is Ball.W1
    again = ShotFacts.from_dict(json.loads(json.dumps(facts.to_dict())))
    assert again == facts


def test_extra_fields_survive_a_round_trip():
    facts = ShotFacts.from_dict({**GOOD, "strike_frame": 372, "rest_frame": 420})
    assert facts.to_dict()["rest_frame"] == 420


@pytest.mark.parametrize(("events", "where", "message"), [
    ([ev(0, "strike", ball="W3")], "shot.events[0].ball", "unknown ball id 'W3'"),
    ([ev(0, "strike", ball="W1"), ev(1, "contact", balls=["W1", "R9"])],
     "shot.events[1].balls[1]", "unknown ball id 'R9'"),
    ([ev(0, "strike", ball="W1"), ev(1, "contact", balls=["W1", "W1"])],
     "shot.events[1].balls", "two different balls"),
    ([ev(0, "strike", ball="W1"), ev(1, "contact", balls=["W1"])],
     "shot.events[1].balls", "list of two ball ids"),
    ([ev(1, "strike", ball="W1"), ev(0.5, "contact", balls=["W1", "R1"])],
     "shot.events[1].t", "out of time order"),
    ([ev(0, "strike", ball="W1"), ev(1, "strike", ball="W1")], "shot.events[1]",
     "a second strike"),
    ([ev(0, "contact", balls=["W1", "R1"])], "shot.events[0]", "first event to be the strike"),
    ([], "shot.events[0]", "first event to be the strike"),
    ([ev(0, "strike", ball="W1"), ev(1, "contact", balls=["W1", "R1"]),
      ev(2, "pocket", ball="R1", pocket="FL"), ev(3, "contact", balls=["W1", "R1"])],
     "shot.events[3]", "R1 has a contact event after it was pocketed"),
    ([ev(0, "strike", ball="W1"), ev(1, "off_table", ball="Y"),
      ev(2, "pocket", ball="Y", pocket="FL")],
     "shot.events[2]", "Y has a pocket event after it left the table"),
    ([ev(0, "strike", ball="W1"), ev(1, "pocket", ball="R1", pocket="XX")],
     "shot.events[1].pocket", "expected one of HR, HL, MR, ML, FR, FL, got 'XX'"),
    ([ev(0, "strike", ball="W1"), ev(1, "cushion", ball="R1", cushion="top")],
     "shot.events[1].cushion", "got 'top'"),
    ([ev(0, "strike", ball="W1"), ev(1, "cushion", ball="R1")],
     "shot.events[1].cushion", "names a cushion"),
    ([ev(0, "strike", ball="W1"), ev(1, "bounce", ball="R1")], "shot.events[1].type",
     "got 'bounce'"),
    ([{"t": -1, "type": "strike", "ball": "W1"}], "shot.events[0].t", ">= 0"),
    ([{"t": "soon", "type": "strike", "ball": "W1"}], "shot.events[0].t", "a time in seconds"),
    ([{"t": 0, "frame": 9, "type": "strike", "ball": "W1"},
      {"t": 1, "frame": 3, "type": "cushion", "ball": "W1", "cushion": "foot"}],
     "shot.events[1].frame", "out of frame order"),
])
def test_impossible_records_are_refused(events: list, where: str, message: str):
    with pytest.raises(FactsError) as err:
        ShotFacts.from_dict(record(*events))
    assert err.value.where == where
    assert message in str(err.value)


def test_a_final_position_for_a_pocketed_ball_is_refused():
    bad = record(ev(0, "strike", ball="W1"), ev(1, "contact", balls=["W1", "R1"]),
                 ev(2, "pocket", ball="R1", pocket="FL"), final_positions={"R1": [1.0, 2.0]})
    with pytest.raises(FactsError, match="R1 has a final position but left the table"):
        ShotFacts.from_dict(bad)


@pytest.mark.parametrize("call", [{"ball": "G", "pocket": "FL"}, {"ball": "R", "pocket": "ZZ"},
                                  "R FL"])
def test_bad_calls(call: object):
    with pytest.raises(FactsError, match=r"shot\.call"):
        ShotFacts.from_dict(record(ev(0, "strike", ball="W1"), call=call))


def test_simultaneous_events_are_allowed():
    facts = ShotFacts.from_dict(record(ev(0, "strike", ball="W1"),
                                       ev(1, "contact", balls=["W1", "R1"]),
                                       ev(1, "contact", balls=["W1", "R2"])))
    assert len(facts.events) == 3
