"""The game state told before a later shot, read against the tracker's answers since the
rest it describes: whether a ball was struck since (the shot under way), where each ball lay
at the rest (or was put on the table since), which track is which ball by those places, a
ball the state has on the table waiting hidden on its place, and whether the whites came
near each other since."""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Mapping

import numpy as np
from scipy.optimize import linear_sum_assignment

from vision.detection import VisionError
from vision.tracking.state import BALLS, CLASS_OF, FAR, WHITES, Balls, BallState, Setting, ShotStart
from vision.tracking.whites import came_near


def check(start: ShotStart) -> None:
    """Raise VisionError for a shot start that names no white as the cue ball, a ball that is
    none of the five (or a white in hand that is no white), or a white both in hand and on the
    table."""
    if start.cue_ball not in WHITES:
        raise VisionError(f"expected a shot start's cue ball W1 or W2, got "
                          f"{start.cue_ball!r}")
    unknown = (set(start.positions) - set(BALLS)) | (set(start.in_hand) - set(WHITES))
    if unknown:
        raise VisionError(f"expected a shot start of {', '.join(BALLS)} (whites in hand), "
                          f"got {', '.join(sorted(unknown))}")
    if set(start.positions) & set(start.in_hand):
        raise VisionError(f"expected a white in hand or on the table, got "
                          f"{', '.join(sorted(set(start.positions) & set(start.in_hand)))}"
                          f" as both")


def renamed(balls: Balls, mapping: Mapping[str, str]) -> Balls:
    """A frame's balls with other ids (``mapping``: old to new), in the ids' order."""
    return dict(sorted((mapping.get(b, b), v) for b, v in balls.items()))


def since(history: Iterable[tuple[int, Balls]], after_frame: int) -> list[tuple[int, Balls]]:
    """The tracker's answers kept (``history``) of the frames after ``after_frame``, oldest
    first."""
    return [(f, balls) for f, balls in history if f > after_frame]


def places_since(history: Iterable[tuple[int, Balls]], after_frame: int, now: Balls,
                 put_on: bool = True) -> dict[str, tuple[float, float]]:
    """Where each ball on the table lay just after ``after_frame`` (a rest), and (with
    ``put_on``) where each ball put on the table since was first (placed from hand,
    respotted). With no answer since, where the balls are ``now``."""
    kept = since(history, after_frame) or [(after_frame, now)]
    places: dict[str, tuple[float, float]] = {}
    for _, balls in kept if put_on else kept[:1]:
        for ball, (x, y, _) in balls.items():
            places.setdefault(ball, (x, y))
    return places


def struck_in(setting: Setting, frames: list[tuple[int, Balls]]) -> bool:
    """Some ball was seen struck in ``frames`` (answers, oldest first): between two
    sightings at most three frames apart it went faster than struck_diameters_per_frame a
    frame, or a run of such sightings took it more than a diameter (a slow roll, as
    :meth:`GameShot.cue_ball_unstruck` counts it). A ball seen again elsewhere after a while
    unseen (put back by hand) was not struck."""
    runs: dict[str, tuple[int, float, float, float, float]] = {}  # (frame, x, y, from x, y)
    for f, balls in frames:
        for ball, (x, y, seen) in balls.items():
            if not seen:
                continue
            run = runs.get(ball)
            if run is None or f - run[0] > setting.params.struck_gap_frames:
                runs[ball] = (f, x, y, x, y)
                continue
            if (math.dist((x, y), run[1:3])
                    > setting.params.struck_diameters_per_frame * setting.d * (f - run[0])
                    or math.dist((x, y), run[3:]) > setting.d):
                return True
            runs[ball] = (f, x, y, run[3], run[4])
    return False


def whites_met(setting: Setting, frames: list[tuple[int, Balls]]) -> bool:
    """In ``frames`` the whites came near each other (see :func:`came_near`)."""
    before: dict[str, tuple[float, float]] = {}
    for _, balls in frames:
        now = {w: balls[w][:2] for w in WHITES if w in balls}
        if len(now) == 2 and came_near(setting, before, now):
            return True
        before = now
    return False


def names_by_state(setting: Setting, positions: Mapping[str, tuple[float, float]],
                   places: Mapping[str, tuple[float, float]], tracks: Collection[str]
                   ) -> tuple[dict[str, str], set[str]]:
    """Identities from the game state's positions, as the start positions name the balls
    in the first frames (see :func:`vision.tracking.first_frames.named_by_start`): each ball
    the state has on the table takes, of the ``tracks`` of its class, the nearest to its place
    (within start_gate_diameters) by where the track lay at the rest the state describes
    (``places``, see :func:`places_since`: a ball put on the table since, where it was put).
    A track taken for another ball's place takes that ball's id (the two reds, alike, told
    apart the other way round; a respotted red picked up for the other one), and the track
    that had that id the one left. Returns the new ids of the tracks renamed (old to new),
    and the balls so named."""
    mapping: dict[str, str] = {}
    named: set[str] = set()
    for cls in ("white", "red", "yellow"):
        ids = [b for b in BALLS if CLASS_OF[b] == cls]
        expected = [b for b in ids if b in positions]
        near = [b for b in ids if b in tracks and b in places]
        to: dict[str, str] = {}
        if expected and near:
            cost = np.array([[math.dist(positions[b], places[t]) for t in near]
                             for b in expected])
            cost[cost > setting.params.start_gate_diameters * setting.d] = FAR
            for i, j in zip(*linear_sum_assignment(cost), strict=True):
                if cost[i, j] < FAR:
                    to[near[j]] = expected[i]
        named.update(to.values())
        # the other tracks keep their ids where free, else take those left
        left = [b for b in ids if b not in to.values()]
        others = [t for t in ids if t in tracks and t not in to]
        for t in others:
            if t in left:
                to[t] = t
                left.remove(t)
        for t in others:
            if t not in to:
                to[t] = left.pop(0)
        mapping.update((t, b) for t, b in to.items() if t != b)
    return mapping, named


def expect(states: dict[str, BallState], ball: str, xy: tuple[float, float], left_since: bool,
           after_frame: int, frame: int) -> None:
    """``ball``, which the game state has at ``xy`` (named, see :func:`names_by_state`),
    off the table in the tracker's eyes (pocketed, lost, never seen: not in ``states``) or
    unseen since the rest, waits there hidden, as a ball the start positions name and the
    first frames do not show: put back on its spot, or lying where it stopped unseen, it is
    taken when seen there. Not one that was on the table at the rest (or put on it since)
    and left it since (``left_since``: pocketed in the shot under way), nor one seen since.
    ``frame``: the frame now."""
    s = states.get(ball)
    if s is None or s.status in ("pocketed", "lost"):
        if left_since:
            return
        states[ball] = BallState(ball, xy[0], xy[1], visible=False, status="hidden",
                                 last_seen=frame, start_place=xy)
    elif s.status == "hidden" and s.last_seen <= after_frame:
        s.x, s.y, s.vx, s.vy = xy[0], xy[1], 0.0, 0.0
        s.hidden_rolling, s.sent, s.start_place = False, None, xy
