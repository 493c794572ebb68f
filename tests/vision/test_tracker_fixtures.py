"""The tracker on hand-made detections against regression fixtures: one case a file in
``fixtures/tracking/``, each a situation that justified a rule, with the detections fed
frame by frame and what the tracks must say about them.

A fixture (JSON)::

    {"what": "what the situation is and what the rule says about it",
     "origin": "where the case came from (a rendered clip, footage, or made by hand)",
     "table": "russian-12ft",                     (a preset name or TableSpec fields)
     "tracker": {"start_positions": {ball: [x, y]}, "cue_ball": "W1"},   (both optional)
     "frames": [[frame, [detection, ...]], [[first, last], [detection, ...]], ...],
     "flush": true,                               (flush the tracker after the last frame)
     "expect": [<expectation>, ...],
     "variants": [{"name": "...", "what": "...",  (optional: the same frames changed a little)
                   "without": [frame, ...], "with": [[frame, [detection, ...]], ...],
                   "expect": [<expectation>, ...]}]}

A tracker ``Tracker(table, **tracker)`` is fed each frame's detections in frame order
(``[[first, last], dets]``: the same detections in each of those frames), then flushed if
``flush``; its answers (``FrameTracks``, each frame once) are what the expectations look at.
A detection is ``[x_mm, y_mm, colour]``, ``[x_mm, y_mm, colour, score]`` or ``[x_mm, y_mm,
colour, score, {field: value}]`` with any other :class:`Detection` field (``streak_mm``,
``streak_dir``, ``piece``, ``colour_sure``, ``dots``...); the score is 0.85 unless given, the
pixels a third of the mm and the radius 11 px (the tracker works in mm). A variant's frames are
the case's, less those at ``without``, with ``with``'s put in (one replacing the case's frame).
Test ids: the file's stem, and ``<stem>-<variant name>`` for a variant.

An expectation: ``{"ball": "W1", "frames": <which>, <checks>}``, the checks holding for the
ball in every frame chosen (``"any": true``: in at least one). ``frames``: ``n`` (the answer for
frame n), ``[lo, hi]`` (the answers of those frames, inclusive, either null for open; at least
one), ``"all"`` or ``"last"`` (the last answer). The checks:

- ``"present": true | false``: the ball is on the table (among the frame's balls) or not;
- ``"visible": true | false``: it is seen there (false: on the table, not seen);
- ``"at": [x, y, tol]``: its place lies within ``tol`` mm of (x, y);
- ``"off": [x, y, dist]``: ... further than ``dist`` mm from (x, y);
- ``"not_seen_at": [x, y, tol]``: it is not seen within ``tol`` mm of (x, y) (absent is fine);
- ``"x"``, ``"y"``: ``[lo, hi]``: that coordinate lies in the range (inclusive, null open);
- ``"x_not"``: ``[lo, hi]``: x lies outside the range.

``"only": "present"`` (or ``"seen"``) applies the checks only in the frames in which the ball is
on the table (and seen); otherwise a ball not on the table fails every check but
``present: false`` and ``not_seen_at``.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from rules import TableSpec
from tests.vision.fixture_cases import (
    case_form_errors,
    fixture_cases,
    malformed,
    variants_form_errors,
)
from vision.detection import Detection
from vision.tracking.state import BALLS, FrameTracks
from vision.tracking.tracker import Tracker

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "tracking"

CASE_KEYS = {"what", "origin", "table", "tracker", "frames", "flush", "expect"}
TRACKER_KEYS = {"start_positions", "cue_ball"}
CHECKS = {"present", "visible", "at", "off", "not_seen_at", "x", "y", "x_not"}
EXPECT_KEYS = {"ball", "frames", "any", "only"} | CHECKS
DETECTION_FIELDS = {"dots", "streak_mm", "dot_spread_mm", "piece", "colour_sure", "streak_dir",
                    "bgr", "cloth_bgr"}
TUPLES = {"streak_dir", "bgr", "cloth_bgr"}
COLOURS = {"white", "red", "yellow", "other"}

Frames = dict[int, list[Detection]]


def detection(d: list[Any]) -> Detection:
    x, y, colour = d[:3]
    score = d[3] if len(d) > 3 else 0.85
    extra = {k: tuple(v) if k in TUPLES and v is not None else v
             for k, v in (d[4] if len(d) > 4 else {}).items()}
    return Detection(x_px=x / 3, y_px=y / 3, x_mm=x, y_mm=y, radius_px=11.0, colour=colour,
                     score=score, **extra)


def frames_of(rows: list[Any]) -> Frames:
    out: Frames = {}
    for which, dets in rows:
        first, last = which if isinstance(which, list) else (which, which)
        for f in range(first, last + 1):
            out[f] = [detection(d) for d in dets]
    return out


def variant_frames(frames: Frames, variant: dict[str, Any]) -> Frames:
    out = {f: d for f, d in frames.items() if f not in set(variant.get("without", []))}
    out.update(frames_of(variant.get("with", [])))
    return out


def cases() -> list[Any]:
    """(case, frames, expectations, what) for each case and variant, with its id."""
    return fixture_cases(FIXTURES, lambda case: frames_of(case["frames"]), variant_frames)


def run(case: dict[str, Any], frames: Frames) -> list[FrameTracks]:
    """The tracker's answers to ``frames``, as the case sets it up."""
    args = dict(case.get("tracker", {}))
    if "start_positions" in args:
        args["start_positions"] = {b: tuple(xy) for b, xy in args["start_positions"].items()}
    tracker = Tracker(TableSpec.from_value(case["table"]), **args)
    out = [r for f in sorted(frames) for r in tracker.update(f, frames[f])]
    return out + tracker.flush() if case["flush"] else out


# --- matching -------------------------------------------------------------------------------------
def chosen(out: list[FrameTracks], which: int | str | list[int | None]
           ) -> tuple[list[FrameTracks], str | None]:
    """The answers ``which`` names, or what is wrong."""
    if which == "all":
        return out, None if out else "no answers at all"
    if which == "last":
        return out[-1:], None if out else "no answers at all"
    if isinstance(which, int):
        got = [r for r in out if r.frame == which]
        return got, None if got else f"no answer for frame {which}"
    lo, hi = which  # type: ignore[misc]
    got = [r for r in out if (lo is None or r.frame >= lo) and (hi is None or r.frame <= hi)]
    return got, None if got else f"no answers for frames {which}"


def in_range(v: float, bounds: list[float | None]) -> bool:
    lo, hi = bounds
    return (lo is None or v >= lo) and (hi is None or v <= hi)


def check_frame(x: dict[str, Any], r: FrameTracks) -> str | None:
    """None if ``x``'s checks hold for its ball in the answer ``r``, else what is wrong."""
    ball = x["ball"]
    state = r.balls.get(ball)
    if "present" in x and (state is not None) != x["present"]:
        return f"{'not ' if x['present'] else ''}expected on the table"
    if state is None:
        needs = set(x) & (CHECKS - {"present", "not_seen_at"})
        return f"not on the table (expected {sorted(needs)})" if needs else None
    px, py, seen = state
    if "visible" in x and seen != x["visible"]:
        return f"expected {'seen' if x['visible'] else 'unseen'}, is {'' if seen else 'un'}seen"
    if "at" in x and math.dist((px, py), x["at"][:2]) > x["at"][2]:
        return f"expected within {x['at'][2]} mm of {x['at'][:2]}"
    if "off" in x and math.dist((px, py), x["off"][:2]) <= x["off"][2]:
        return f"expected further than {x['off'][2]} mm from {x['off'][:2]}"
    if "not_seen_at" in x and seen and math.dist((px, py), x["not_seen_at"][:2]) <= \
            x["not_seen_at"][2]:
        return f"expected not seen within {x['not_seen_at'][2]} mm of {x['not_seen_at'][:2]}"
    for key, v in (("x", px), ("y", py)):
        if key in x and not in_range(v, x[key]):
            return f"expected {key} in {x[key]}"
    if "x_not" in x and in_range(px, x["x_not"]):
        return f"expected x outside {x['x_not']}"
    return None


def check(x: dict[str, Any], out: list[FrameTracks]) -> str | None:
    """None if the expectation ``x`` holds for the answers ``out``, else what is wrong."""
    answers, wrong = chosen(out, x["frames"])
    if wrong:
        return wrong
    only = x.get("only")
    if only:
        answers = [r for r in answers if x["ball"] in r.balls
                   and (only == "present" or r.balls[x["ball"]][2])]
    results = [(r, check_frame(x, r)) for r in answers]
    bad = [(r, why) for r, why in results if why]
    if x.get("any"):
        if len(bad) < len(results):
            return None
        if not results:
            return f"no answer with {x['ball']} {only}"
    if not bad:
        return None
    r, why = bad[0]
    return (f"{x['ball']} in frame {r.frame} at {r.balls.get(x['ball'])}: {why}"
            + (f" (and {len(bad) - 1} more frames)" if len(bad) > 1 else ""))


@pytest.mark.parametrize(("case", "frames", "expect", "what"), cases())
def test_the_tracks_of_the_fixture_detections_are_as_expected(case, frames, expect, what):
    out = run(case, frames)
    wrong = [f"{json.dumps(x)}: {why}" for x in expect if (why := check(x, out))]
    assert not wrong, f"{what}\n" + "\n".join(wrong)


# --- the fixtures' form ---------------------------------------------------------------------------
def form_errors(case: Any) -> list[str]:
    """What is malformed in a fixture (empty: nothing)."""
    if not isinstance(case, dict):
        return ["not an object"]
    errors = case_form_errors(case, CASE_KEYS)
    errors += tracker_errors(case.get("tracker"))
    if not isinstance(case.get("flush"), bool):
        errors.append("flush: expected true or false")
    errors += frames_errors(case.get("frames"), "frames")
    errors += expect_errors(case.get("expect"), "expect")
    known = set(frames_of(case["frames"])) if not frames_errors(case.get("frames"), "") else set()

    def variant_errors(v: dict[str, Any], where: str) -> list[str]:
        errors = frames_errors(v.get("with", []), f"{where}.with", empty=True)
        without = v.get("without", [])
        if not (isinstance(without, list) and all(f in known for f in without)):
            errors.append(f"{where}.without: expected frames of the case")
        return errors + expect_errors(v.get("expect"), f"{where}.expect")

    return errors + variants_form_errors(case, variant_errors)


def tracker_errors(args: Any) -> list[str]:
    if not isinstance(args, dict):
        return ["tracker: expected an object"]
    errors = []
    if unknown := set(args) - TRACKER_KEYS:
        errors.append(f"tracker: unknown keys {sorted(unknown)}")
    if args.get("cue_ball", "W1") not in ("W1", "W2"):
        errors.append("tracker.cue_ball: expected W1 or W2")
    places = args.get("start_positions", {})
    if not (isinstance(places, dict) and set(places) <= set(BALLS) and all(
            isinstance(xy, list) and len(xy) == 2 and all(is_number(v) for v in xy)
            for xy in places.values())):
        errors.append(f"tracker.start_positions: expected {{ball: [x, y]}} of {BALLS}")
    return errors


def is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def detection_error(d: Any) -> str | None:
    if not (isinstance(d, list) and 3 <= len(d) <= 5 and all(is_number(v) for v in d[:2])
            and d[2] in COLOURS and (len(d) < 4 or is_number(d[3]))
            and (len(d) < 5 or (isinstance(d[4], dict) and set(d[4]) <= DETECTION_FIELDS))):
        return f"expected [x_mm, y_mm, colour, score?, {{field: value}}?], got {d!r}"
    return None


def frames_errors(rows: Any, where: str, empty: bool = False) -> list[str]:
    if not (isinstance(rows, list) and (rows or empty)):
        return [f"{where}: expected a list of [frame, [detection, ...]]"]
    seen: list[int] = []
    for k, row in enumerate(rows):
        if not (isinstance(row, list) and len(row) == 2 and isinstance(row[1], list)):
            return [f"{where}[{k}]: expected [frame, [detection, ...]], got {row!r}"]
        which, dets = row
        if isinstance(which, list) and len(which) == 2 and all(isinstance(f, int) for f in which):
            seen += range(which[0], which[1] + 1)
        elif isinstance(which, int) and not isinstance(which, bool):
            seen.append(which)
        else:
            return [f"{where}[{k}]: expected a frame or [first, last], got {which!r}"]
        for d in dets:
            if why := detection_error(d):
                return [f"{where}[{k}]: {why}"]
    if len(seen) != len(set(seen)):
        return [f"{where}: a frame given twice"]
    return []


def expect_errors(expect: Any, where: str) -> list[str]:
    if not (isinstance(expect, list) and expect):
        return [f"{where}: expected a non-empty list"]
    errors = []
    for k, x in enumerate(expect):
        here = f"{where}[{k}]"
        if not isinstance(x, dict):
            errors.append(f"{here}: not an object")
            continue
        if unknown := set(x) - EXPECT_KEYS:
            errors.append(f"{here}: unknown keys {sorted(unknown)}")
        if x.get("ball") not in BALLS:
            errors.append(f"{here}.ball: expected one of {BALLS}")
        which = x.get("frames")
        if not (which in ("all", "last") or (isinstance(which, int) and not isinstance(
                which, bool)) or (isinstance(which, list) and len(which) == 2 and all(
                f is None or isinstance(f, int) for f in which))):
            errors.append(f"{here}.frames: expected n, [lo, hi], 'all' or 'last'")
        if not set(x) & CHECKS:
            errors.append(f"{here}: no check (one of {sorted(CHECKS)})")
        for key in ("present", "visible", "any"):
            if key in x and not isinstance(x[key], bool):
                errors.append(f"{here}.{key}: expected true or false")
        for key in ("at", "off", "not_seen_at"):
            if key in x and not (isinstance(x[key], list) and len(x[key]) == 3
                                 and all(is_number(v) for v in x[key])):
                errors.append(f"{here}.{key}: expected [x, y, mm]")
        for key in ("x", "y", "x_not"):
            if key in x and not (isinstance(x[key], list) and len(x[key]) == 2 and all(
                    v is None or is_number(v) for v in x[key])):
                errors.append(f"{here}.{key}: expected [lo, hi]")
        if x.get("only", "present") not in ("present", "seen"):
            errors.append(f"{here}.only: expected 'present' or 'seen'")
    return errors


def test_every_tracking_fixture_is_well_formed():
    assert not (faults := malformed(FIXTURES, form_errors)), faults


def test_a_malformed_fixture_is_told_apart():
    good = {"what": "w", "origin": "o", "table": "russian-12ft",
            "tracker": {"start_positions": {"W1": [800.0, 900.0]}, "cue_ball": "W1"},
            "frames": [[[0, 11], [[800.0, 900.0, "white"]]]], "flush": True,
            "expect": [{"ball": "W1", "frames": "last", "at": [800.0, 900.0, 1.0]}]}
    assert form_errors(good) == []
    assert form_errors({k: v for k, v in good.items() if k != "origin"})
    assert form_errors({**good, "tracker": {"start_positions": {"W3": [1.0, 2.0]}}})
    assert form_errors({**good, "frames": [[0, [[800.0, 900.0, "blue"]]]]})
    assert form_errors({**good, "frames": [[0, [[800.0, "white"]]]]})
    assert form_errors({**good, "frames": [[0, [[8.0, 9.0, "white", 0.5, {"speed": 3}]]]]})
    assert form_errors({**good, "frames": [[[0, 3], []], [2, []]]})  # (frame 2 twice)
    assert form_errors({**good, "expect": [{"ball": "W1", "frames": "last"}]})  # (no check)
    assert form_errors({**good, "expect": [{"ball": "W1", "frames": "first", "visible": True}]})
    assert form_errors({**good, "expect": [{"ball": "W1", "frames": 3, "at": [1.0, 2.0]}]})
    assert form_errors({**good, "expect": [{"ball": "W1", "frames": 3, "near": [1, 2, 3]}]})
    assert form_errors({**good, "variants": [{"name": "v", "what": "w", "without": [40],
                                              "expect": good["expect"]}]})


def test_an_expectation_that_does_not_hold_is_told():
    r = FrameTracks(frame=5, t=0.0, balls={"W1": (800.0, 900.0, True)})
    assert check({"ball": "W1", "frames": 5, "at": [800.0, 901.0, 2.0], "visible": True}, [r]) \
        is None
    assert check({"ball": "W1", "frames": 5, "at": [800.0, 910.0, 2.0]}, [r])
    assert check({"ball": "W1", "frames": 6, "visible": True}, [r])  # (no answer for frame 6)
    assert check({"ball": "W2", "frames": "all", "visible": False}, [r])  # (not on the table)
    assert check({"ball": "W2", "frames": "all", "visible": False, "only": "present"}, [r]) \
        is None
    assert check({"ball": "W1", "frames": "last", "x_not": [700.0, 900.0]}, [r])
    assert check({"ball": "W1", "frames": "last", "not_seen_at": [800.0, 900.0, 1.0]}, [r])
