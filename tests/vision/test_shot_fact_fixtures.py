"""Shot facts from ball tracks against regression fixtures: one case a file in
``fixtures/shot_facts/``, each a situation that justified a rule, with the tracks as rows
and what the shot facts must say about them.

A fixture (JSON)::

    {"what": "what the situation is and what the rule says about it",
     "origin": "where the case came from (a rendered clip, footage, or made by hand)",
     "fps": 30, "table": "russian-12ft",          (a preset name or TableSpec fields)
     "rows": [[frame, ball, x_mm, y_mm, visible], ...],
     "expect": [<expectation>, ...],
     "variants": [{"name": "...", "what": "...",   (optional: the same tracks changed a little)
                   "without": [[frame, ball], ...], "with": [<row>, ...],
                   "expect": [<expectation>, ...]}]}

A variant's rows are the case's, less those at ``without``'s (frame, ball), with ``with``'s
rows put in (one replacing the case's row at its frame and ball). Test ids: the file's stem,
and ``<stem>-<variant name>`` for a variant.

Expectations, over the events of all shots in order (each knowing its shot's index):

- ``{"shots": n}``: n shots found.
- ``{"events": [pattern, ...], "select": {...}}``: the selected events are, in order, one a
  pattern (``"any_order": true``: each selected event matches some pattern and each pattern
  some selected event).
- ``{"includes": [pattern, ...], "select": {...}}``: each pattern matches a selected event.
- ``{"excludes": [pattern, ...], "select": {...}}``: no selected event matches any pattern.
- ``{"final": {ball: [x, y] | true | null}, "shot": -1, "tol": 0.0}``: in that shot's final
  positions the ball lies within ``tol`` mm of [x, y] (true: is there; null: is not).
- ``{"estimated": {...}, ...}``: the same of its ``estimated_positions`` (balls that moved
  and were lost from sight: where they were last seen).
- ``{"strike_frames": [frame, ...]}``: the shots' strike frames.

``select`` (all optional, in this order): ``first`` (the first n events of all shots),
``first_in_shot`` (the first n of each shot), ``types`` (of these types), ``ball`` (events of
this ball, alone or in a contact), ``frames`` ([lo, hi] inclusive, either null for open).

A pattern names only what it checks: ``type`` (required), ``ball`` (a one-ball event's ball),
``balls`` (a contact's balls, in order), ``pair`` (a contact's balls, in any order), ``pocket``,
``cushion``, ``shot`` (its shot's index), ``frame`` (n, or [lo, hi] with null for open) and
``t_frames`` ([value, tol]: the event's time in frames, t * fps, within tol of value).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from rules import EventType, TableSpec
from tests.vision.fixture_cases import (
    case_form_errors,
    fixture_cases,
    malformed,
    variants_form_errors,
)
from vision.shots import shots_from_tracks, tracks_from_rows

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "shot_facts"

CASE_KEYS = {"what", "origin", "fps", "table", "rows", "expect"}
EXPECT_KINDS = {"shots", "events", "includes", "excludes", "final", "estimated",
                "strike_frames"}
EXPECT_OPTIONAL = {"events": {"select", "any_order"}, "includes": {"select"},
                   "excludes": {"select"}, "final": {"shot", "tol"},
                   "estimated": {"shot", "tol"}}
SELECT_KEYS = {"first", "first_in_shot", "types", "ball", "frames"}
PATTERN_KEYS = {"type", "ball", "balls", "pair", "pocket", "cushion", "shot", "frame",
                "t_frames"}
EVENT_TYPES = {t.value for t in EventType}


Row = tuple[int, str, float, float, bool]


def base_rows(case: dict[str, Any]) -> list[Row]:
    return [(int(f), str(b), float(x), float(y), bool(v)) for f, b, x, y, v in case["rows"]]


def variant_rows(rows: list[Row], variant: dict[str, Any]) -> list[Row]:
    by_key = {(f, b): (f, b, x, y, v) for f, b, x, y, v in rows}
    for f, b in variant.get("without", []):
        del by_key[(f, b)]
    for f, b, x, y, v in variant.get("with", []):
        by_key[(int(f), str(b))] = (int(f), str(b), float(x), float(y), bool(v))
    return sorted(by_key.values())


def cases() -> list[Any]:
    """(case, rows, expectations, what) for each case and variant, with its id."""
    return fixture_cases(FIXTURES, base_rows, variant_rows)


# --- matching -------------------------------------------------------------------------------------
def flat_events(shots: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**e, "shot": k} for k, s in enumerate(shots) for e in s["events"]]


def in_range(value: float, bounds: int | list[int | None]) -> bool:
    if isinstance(bounds, int):
        return value == bounds
    lo, hi = bounds
    return (lo is None or value >= lo) and (hi is None or value <= hi)


def balls_of(event: dict[str, Any]) -> list[str]:
    return [event["ball"]] if "ball" in event else list(event.get("balls", []))


def select(events: list[dict[str, Any]], how: dict[str, Any]) -> list[dict[str, Any]]:
    if "first" in how:
        events = events[:how["first"]]
    if "first_in_shot" in how:
        shots = sorted({e["shot"] for e in events})
        events = [e for k in shots for e in [e for e in events if e["shot"] == k]
                  [:how["first_in_shot"]]]
    if "types" in how:
        events = [e for e in events if e["type"] in how["types"]]
    if "ball" in how:
        events = [e for e in events if how["ball"] in balls_of(e)]
    if "frames" in how:
        events = [e for e in events if in_range(e["frame"], how["frames"])]
    return events


def matches(event: dict[str, Any], pattern: dict[str, Any], fps: float) -> bool:
    checks = {
        "type": lambda p: event["type"] == p,
        "ball": lambda p: event.get("ball") == p,
        "balls": lambda p: event.get("balls") == p,
        "pair": lambda p: sorted(event.get("balls", [])) == sorted(p),
        "pocket": lambda p: event.get("pocket") == p,
        "cushion": lambda p: event.get("cushion") == p,
        "shot": lambda p: event["shot"] == p,
        "frame": lambda p: in_range(event["frame"], p),
        "t_frames": lambda p: abs(event["t"] * fps - p[0]) <= p[1],
    }
    return all(checks[key](value) for key, value in pattern.items())


def brief(event: dict[str, Any]) -> str:
    where = event.get("pocket") or event.get("cushion") or ""
    return (f"shot {event['shot']}: {event['type']} {' '.join(balls_of(event))} {where} "
            f"frame {event['frame']} (t {event['t']})").replace("  ", " ")


def check(expectation: dict[str, Any], shots: list[dict[str, Any]], fps: float) -> str | None:
    """None if ``expectation`` holds for ``shots``, else what is wrong."""
    events = flat_events(shots)
    chosen = select(events, expectation.get("select", {}))
    listing = "\n    ".join(brief(e) for e in chosen) or "(none)"
    if "shots" in expectation:
        if len(shots) != expectation["shots"]:
            return f"expected {expectation['shots']} shots, found {len(shots)}"
    elif "events" in expectation:
        patterns = expectation["events"]
        if expectation.get("any_order"):
            ok = (all(any(matches(e, p, fps) for p in patterns) for e in chosen)
                  and all(any(matches(e, p, fps) for e in chosen) for p in patterns))
        else:
            ok = len(chosen) == len(patterns) and all(
                matches(e, p, fps) for e, p in zip(chosen, patterns, strict=True))
        if not ok:
            return f"expected events {patterns}, found:\n    {listing}"
    elif "includes" in expectation:
        missing = [p for p in expectation["includes"]
                   if not any(matches(e, p, fps) for e in chosen)]
        if missing:
            return f"expected events matching {missing}, found:\n    {listing}"
    elif "excludes" in expectation:
        found = [brief(e) for e in chosen if any(matches(e, p, fps)
                                                  for p in expectation["excludes"])]
        if found:
            return f"expected no event matching {expectation['excludes']}, found {found}"
    elif "final" in expectation or "estimated" in expectation:
        kind = "final" if "final" in expectation else "estimated"
        k = expectation.get("shot", -1)
        if not -len(shots) <= k < len(shots):
            return f"expected a shot {k} for {kind} positions, found {len(shots)} shots"
        finals = shots[k].get(f"{kind}_positions") or {}
        for ball, want in expectation[kind].items():
            got = finals.get(ball)
            if want is None and got is not None:
                return f"expected {ball} not among shot {k}'s {kind} positions, found at {got}"
            if want is True and got is None:
                return f"expected {ball} among shot {k}'s {kind} positions: {finals}"
            if isinstance(want, list) and (
                    got is None or math.dist(got, want) > expectation.get("tol", 0.0)):
                return (f"expected {ball} ({kind}) at the end of shot {k} within "
                        f"{expectation.get('tol', 0.0)} mm of {want}, found {got}")
    elif "strike_frames" in expectation:
        frames = [s["strike_frame"] for s in shots]
        if frames != expectation["strike_frames"]:
            return f"expected strike frames {expectation['strike_frames']}, found {frames}"
    return None


@pytest.mark.parametrize(("case", "rows", "expect", "what"), cases())
def test_shot_facts_of_the_fixture_tracks_are_as_expected(case, rows, expect, what):
    fps = float(case["fps"])
    table = TableSpec.from_value(case["table"])
    shots = shots_from_tracks(table, tracks_from_rows(rows, fps), fps)
    wrong = [f"{json.dumps(x)}: {why}" for x in expect if (why := check(x, shots, fps))]
    assert not wrong, f"{what}\n" + "\n".join(wrong)


# --- the fixtures' form ---------------------------------------------------------------------------
def form_errors(case: Any) -> list[str]:
    """What is malformed in a fixture (empty: nothing)."""
    if not isinstance(case, dict):
        return ["not an object"]
    errors = case_form_errors(case, CASE_KEYS)
    if not (isinstance(case.get("fps"), (int, float)) and case.get("fps", 0) > 0):
        errors.append("fps: expected a positive number")
    errors += rows_errors(case.get("rows"), "rows", unique=True)
    errors += expect_errors(case.get("expect"), "expect")
    keys = {(r[0], r[1]) for r in case.get("rows", []) if isinstance(r, list) and len(r) == 5}

    def variant_errors(v: dict[str, Any], where: str) -> list[str]:
        errors = rows_errors(v.get("with", []), f"{where}.with", unique=True)
        without = v.get("without", [])
        if not isinstance(without, list) or not all(
                isinstance(x, list) and len(x) == 2 and tuple(x) in keys for x in without):
            errors.append(f"{where}.without: expected [frame, ball] pairs of the case's rows")
        return errors + expect_errors(v.get("expect"), f"{where}.expect")

    return errors + variants_form_errors(case, variant_errors)


def rows_errors(rows: Any, where: str, unique: bool) -> list[str]:
    if not isinstance(rows, list):
        return [f"{where}: expected a list of rows"]
    for k, r in enumerate(rows):
        if not (isinstance(r, list) and len(r) == 5 and isinstance(r[0], int)
                and isinstance(r[1], str) and all(isinstance(v, (int, float))
                                                  and not isinstance(v, bool) for v in r[2:4])
                and isinstance(r[4], bool)):
            return [f"{where}[{k}]: expected [frame, ball, x_mm, y_mm, visible], got {r!r}"]
    keys = [(r[0], r[1]) for r in rows]
    if unique and len(keys) != len(set(keys)):
        return [f"{where}: two rows of one ball in one frame"]
    return []


def expect_errors(expect: Any, where: str) -> list[str]:
    if not (isinstance(expect, list) and expect):
        return [f"{where}: expected a non-empty list"]
    errors = []
    for k, x in enumerate(expect):
        here = f"{where}[{k}]"
        kinds = set(x) & EXPECT_KINDS if isinstance(x, dict) else set()
        if len(kinds) != 1:
            errors.append(f"{here}: expected one of {sorted(EXPECT_KINDS)}, got {x!r}")
            continue
        (kind,) = kinds
        if unknown := set(x) - {kind} - EXPECT_OPTIONAL.get(kind, set()):
            errors.append(f"{here}: unknown keys {sorted(unknown)}")
        if unknown := set(x.get("select", {})) - SELECT_KEYS:
            errors.append(f"{here}.select: unknown keys {sorted(unknown)}")
        if unknown := set(x.get("select", {}).get("types", [])) - EVENT_TYPES:
            errors.append(f"{here}.select.types: unknown {sorted(unknown)}")
        if kind in ("events", "includes", "excludes"):
            patterns = x[kind]
            if not isinstance(patterns, list) or (kind != "events" and not patterns):
                errors.append(f"{here}: expected a list of patterns")
                continue
            for p in patterns:
                if not (isinstance(p, dict) and p.get("type") in EVENT_TYPES
                        and set(p) <= PATTERN_KEYS):
                    errors.append(f"{here}: bad pattern {p!r} (keys {sorted(PATTERN_KEYS)})")
        if kind in ("final", "estimated") and not isinstance(x[kind], dict):
            errors.append(f"{here}: expected {{ball: [x, y] | true | null}}")
    return errors


def test_every_shot_facts_fixture_is_well_formed():
    assert not (faults := malformed(FIXTURES, form_errors)), faults


def test_a_malformed_fixture_is_told_apart():
    good = {"what": "w", "origin": "o", "fps": 30, "table": "russian-12ft",
            "rows": [[0, "W1", 1.0, 2.0, True]], "expect": [{"shots": 0}]}
    assert form_errors(good) == []
    assert form_errors({**good, "expect": [{"shot": 0}]})  # (an unknown kind)
    assert form_errors({**good, "expect": [{"events": [{"type": "kiss"}]}]})
    assert form_errors({**good, "expect": [{"includes": [{"type": "strike", "who": "W1"}]}]})
    assert form_errors({**good, "rows": [[0, "W1", 1.0, True]]})
    assert form_errors({**good, "rows": [[0, "W1", 1.0, 2.0, True]] * 2})
    assert form_errors({**good, "variants": [{"name": "v", "what": "w", "without": [[5, "W1"]],
                                              "expect": [{"shots": 0}]}]})
    assert form_errors({k: v for k, v in good.items() if k != "origin"})
