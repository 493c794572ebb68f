"""Balls put on the table: a ball of a class with a free identity (respotted, placed from
hand, back from under a hand) seen clean in one place for a while takes it; a white in hand
only in the house, and not while a shot of the game state runs."""

from __future__ import annotations

import math
from collections.abc import Mapping

from vision.detection import Detection
from vision.tracking.state import BALLS, CLASS_OF, BallState, Setting
from vision.tracking.whites import is_pair


def pick_up(setting: Setting, frame: int, free: list[Detection], states: dict[str, BallState],
            candidates: dict[str, list[tuple[int, float, float]]], *, closed: set[str],
            whites_in_hand: set[str], rolling: bool) -> bool:
    """A clean ball of a class with a free identity, seen in place in pick_up_frames of the
    last pick_up_window_ratio times as many frames, takes it. With every identity of its class
    taken, one of them hidden, it is that hidden ball, which went there unseen (a pot missed
    under the arm, then respotted): taken after hidden_pick_up_ratio times as long, since a hand
    may hide a ball and look like another.

    ``states``: the tracks (the ball taken is added); ``candidates``: the sightings of each
    class waiting to be taken; ``closed``: the ids not to be given (the other white in hand
    while the shooter's shot runs); ``whites_in_hand``: the whites the game state has in
    hand (one placed from hand leaves it); ``rolling``: a shot of the game state runs, and
    only a ball lost from view comes back. Returns whether a white was named by its dots
    (both whites were off the table)."""
    by_dots = False
    for det in free:
        if (det.colour not in ("white", "red", "yellow")
                or det.score < setting.params.pick_up_score_share or det.piece or det.streak_mm):
            continue
        ids = [b for b in BALLS if CLASS_OF[b] == det.colour
               and (b not in states or states[b].status in ("pocketed", "lost"))
               and b not in closed
               and not (rolling and (b not in states or states[b].status != "lost"))
               and (setting.table.in_house((det.x_mm, det.y_mm))
                    or not in_hand(b, states, whites_in_hand))]
        frames_needed = setting.params.pick_up_frames
        if not ids:
            ids = [b for b in BALLS if CLASS_OF[b] == det.colour
                   and b in states and states[b].status == "hidden"]
            frames_needed = setting.params.hidden_pick_up_ratio * setting.params.pick_up_frames
        if not ids:
            continue
        if any(math.hypot(det.x_mm - s.x, det.y_mm - s.y) < setting.d
               for s in states.values() if s.status in ("table", "hidden")):
            continue
        # seen in place in most frames of a while (a ball by the cue's tip flickers in and
        # out); the sightings of other places of its class are kept apart
        recent = [c for c in candidates.get(det.colour, [])
                  if frame - c[0] < setting.params.pick_up_window_ratio * frames_needed]
        recent.append((frame, det.x_mm, det.y_mm))
        # only since the ball left the table or view, and a pocketed one could be back (a
        # thing seen there before, a hand resting on the cloth, is not the ball put back)
        since = min(back_from(setting, b, states) for b in ids)
        here = [c for c in recent if c[0] > since
                and math.hypot(c[1] - det.x_mm, c[2] - det.y_mm)
                < setting.params.same_place_diameters * setting.d]
        if len({c[0] for c in here}) < frames_needed:
            candidates[det.colour] = recent
            continue
        candidates[det.colour] = [c for c in recent if c not in here]
        ball = ids[0]
        if det.colour == "white" and len(ids) == 2:
            ball = "W2" if is_pair(setting, det) else "W1"
            by_dots = True  # both whites were off the table: the dots name it
        states[ball] = BallState(ball, det.x_mm, det.y_mm, last_seen=frame,
                                 clean_place=(det.x_mm, det.y_mm), clean_seen=frame)
        whites_in_hand.discard(ball)  # (placed from hand)
    return by_dots


def in_hand(ball: str, states: Mapping[str, BallState], whites_in_hand: set[str]) -> bool:
    """``ball`` is a white in its owner's hand: pocketed, or off the table in the game
    state. He places it in the house (RULES.md 6.4), so it is picked up only there
    (a white thing by the player, past mid-table, stayed put for 5 frames after the shot
    and took W2, which the state had in hand). ``whites_in_hand``: those the game state has
    in hand."""
    if CLASS_OF[ball] != "white":
        return False
    s = states.get(ball)
    return ball in whites_in_hand or (s is not None and s.status == "pocketed")


def back_from(setting: Setting, ball: str, states: Mapping[str, BallState]) -> int:
    """The last frame before which ``ball`` cannot be seen put back on the table: when it
    was last seen, and for a pocketed ball back_from_pocket_s more (taken out of the
    pocket and put down by hand); -1 for a ball never seen (in hand)."""
    s = states.get(ball)
    if s is None:
        return -1
    return s.last_seen + (round(setting.params.back_from_pocket_s * setting.fps)
                          if s.status == "pocketed" else 0)
