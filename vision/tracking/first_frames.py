"""The initial identities: the objects seen in most of the first frames (each frame's
detections matched to the objects by place), by class, named by the game state's start
positions when it gives them, else by the whites' dots and the reds' places (R1 the red
nearer the head)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping

import numpy as np
from scipy.optimize import linear_sum_assignment

from vision.detection import Detection
from vision.tracking.state import BALLS, CLASS_OF, FAR, BallState, Seen, Setting
from vision.tracking.whites import is_pair, is_single


def objects_seen(setting: Setting, frames: list[list[Detection]]) -> list[Seen]:
    """The objects of a ball's colour in ``frames`` (each frame's detections, their pieces
    joined as each frame is seen in the tracker), with their looks' evidence."""
    objects: list[Seen] = []
    for dets in frames:
        taken: set[int] = set()
        for det in dets:
            if det.colour not in ("white", "red", "yellow"):
                continue
            for o in objects:
                if id(o) not in taken and math.hypot(
                        det.x_mm - o.xy[0], det.y_mm - o.xy[1]
                ) < setting.params.same_place_diameters * setting.d:
                    taken.add(id(o))
                    if det.score >= max(o.scores):
                        # (where it looked most like a ball: two balls touching, read as
                        # one blob between them in a frame, score low)
                        o.xy = (det.x_mm, det.y_mm)
                    if det is not o.look:  # one look, one piece of evidence (see observe)
                        o.two += is_pair(setting, det)
                        o.one += is_single(setting, det)
                        o.look = det
                    o.colours.append(det.colour)
                    o.scores.append(det.score)
                    break
            else:
                objects.append(Seen((det.x_mm, det.y_mm), det, int(is_pair(setting, det)),
                                    int(is_single(setting, det)), [det.colour], [det.score]))
    return objects


def by_class(setting: Setting, objects: list[Seen], frames: int) -> dict[str, list[Seen]]:
    """The objects seen in at least half of the ``frames`` first frames and ball-like, by
    their most frequent colour, the most ball-like first."""
    need = max(1, int(frames * setting.params.init_seen_share))
    classes: dict[str, list[Seen]] = {"white": [], "red": [], "yellow": []}
    for o in objects:
        # a hand resting on the cloth is skin-white but no disc (balls score 0.7-0.9)
        if len(o.scores) >= need and o.ball_likeness >= setting.params.init_score_share:
            # (of colours seen as often, the first seen: a set's order would change from run
            # to run with the interpreter's hash seed)
            classes[Counter(o.colours).most_common(1)[0][0]].append(o)
    for cls in classes:
        classes[cls].sort(key=lambda o: -o.ball_likeness)
    return classes


def track_of(ball: str, o: Seen, first_frame: int) -> BallState:
    """``ball``'s track from the object ``o`` of the first frames."""
    return BallState(ball, o.xy[0], o.xy[1], last_seen=first_frame, pair=o.two, single=o.one,
                     start_place=o.xy)


def named_by_dots_and_place(setting: Setting, classes: dict[str, list[Seen]], first_frame: int
                            ) -> tuple[dict[str, BallState], bool]:
    """Identities with no game state: the whites by their dots (W2 shows the pair more
    often), the reds by place (R1 nearer the head), the yellow the most ball-like. Also
    whether the whites are undecided (neither shows W2's pair clearly)."""
    named: dict[str, BallState] = {}
    unresolved = False
    whites = classes["white"][:2]
    if len(whites) == 2:
        a, b = whites
        pairs = [o.two for o in whites]
        if pairs[0] > pairs[1]:
            a, b = b, a
        named["W1"] = track_of("W1", a, first_frame)
        named["W2"] = track_of("W2", b, first_frame)
        # neither shows W2's pair clearly: wait for the dots, or for the strike
        unresolved = abs(pairs[0] - pairs[1]) < setting.params.init_dots_lead_looks
    elif len(whites) == 1:
        o = whites[0]
        ball = "W2" if o.two > o.one else "W1"
        named[ball] = track_of(ball, o, first_frame)
    reds = sorted(classes["red"][:2], key=lambda o: o.xy[0])
    for ball, o in zip(("R1", "R2"), reds, strict=False):
        named[ball] = track_of(ball, o, first_frame)
    if classes["yellow"]:
        named["Y"] = track_of("Y", classes["yellow"][0], first_frame)
    return named, unresolved


def named_by_start(setting: Setting, classes: dict[str, list[Seen]],
                   start_positions: Mapping[str, tuple[float, float]],
                   in_hand_this_shot: set[str], first_frame: int, frames: int
                   ) -> tuple[dict[str, BallState], list[str]]:
    """Identities from the game state's positions: each ball expected on the table takes the
    nearest object of its class (the two reds and the two whites told apart by where they
    were left, not by the dots). A ball the state has in hand or pocketed is taken only from
    an object of a free identity seen at rest throughout the ``frames`` first frames (a
    white already placed in the house); one placed later is picked up when it stays put.
    Returns the tracks, and the balls so taken from hand (``in_hand_this_shot``: whites
    that may not be)."""
    named: dict[str, BallState] = {}
    placed: list[str] = []
    for cls, objs in classes.items():
        ids = [b for b in BALLS if CLASS_OF[b] == cls]
        expected = [b for b in ids if b in start_positions]
        taken: set[int] = set()
        if expected and objs:
            cost = np.array([[math.dist(start_positions[b], o.xy) for o in objs]
                             for b in expected])
            cost[cost > setting.params.start_gate_diameters * setting.d] = FAR
            for i, j in zip(*linear_sum_assignment(cost), strict=True):
                if cost[i, j] < FAR:
                    named[expected[i]] = track_of(expected[i], objs[j], first_frame)
                    taken.add(j)
        for ball in expected:
            if ball not in named:  # under the player's arm: where it was left
                x, y = start_positions[ball]
                named[ball] = BallState(ball, x, y, visible=False, status="hidden",
                                        last_seen=first_frame, start_place=(x, y))
        free = [b for b in ids if b not in start_positions and b not in in_hand_this_shot]
        # (a white already placed in the house rests there: seen in every one of the first
        # frames, or all but one; a hand's or an arm's pieces come and go as it moves, and
        # may look more like a ball: a white at 0.59 in all ten frames, pieces of the arm
        # beside it at 0.62-0.65 in five to seven, and the white's id went to the arm)
        clean = [o for j, o in enumerate(objs) if j not in taken
                 and len(o.scores) >= frames - setting.params.placed_unseen_frames
                 and o.ball_likeness >= setting.params.init_score_share]
        for ball, o in zip(free, clean, strict=False):
            named[ball] = track_of(ball, o, first_frame)
            placed.append(ball)
    return named, placed
