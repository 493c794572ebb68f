"""Association: what it costs to give a detection to a ball, or that it may not be given at
all. A ball is looked for where the motion model (or, before the strike, its place at the
start) puts it, within a gate, or where a collision sends it; the vetoes (see
:mod:`vision.tracking.vetoes`) rule detections out; what is left costs its distance, dearer
the less ball-like and for another colour. A ball not found so may be given, as a second
chance, a detection beyond its gate that a sign of its leaving says is it (see
:mod:`vision.tracking.departure`). The tracker solves both as assignments."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from vision.detection import Detection
from vision.shots import REST_JITTER_DIAMETERS
from vision.tracking.departure import (
    ahead,
    away_from_the_cue,
    ball_streak,
    in_a_row_from,
    led_by_its_front,
    left_along_its_streak,
    sent_toward,
)
from vision.tracking.leftovers import Leftovers
from vision.tracking.motion import is_resting, predicted, reach_of, still, stop_reach
from vision.tracking.state import CLASS_OF, FAR, BallState, Prediction, Setting
from vision.tracking.vetoes import (
    against_hit,
    behind_it,
    beside_the_cue_ball_unseen,
    faint_other,
    far_from_last,
    may_be_of_another_colour,
    ruled_out,
    sharp_leap,
    was_something_else,
)


@dataclass(frozen=True)
class FrameView:
    """What the association of one frame knows besides the ball and the detection."""

    setting: Setting
    frame: int
    frames_on: int  # frames since the last one stepped (2 after a repeated picture left out)
    leftovers: Leftovers  # what no ball took in the last frame
    # the game state's cue ball is known and not yet struck: no other ball moves
    before_strike: bool
    may_strike: frozenset[str]  # the balls the cue may strike (see GameShot.may_strike)
    # of a ball still in its place, the ball sent at it unseen (see motion.sent_at)
    senders: Mapping[str, BallState] = field(default_factory=dict)


def looked_for(view: FrameView, s: BallState, hitter: BallState | None, unhit: bool
               ) -> tuple[float, float, float]:
    """Where ball ``s`` is looked for this frame, and within what gate (mm): ahead at its
    velocity on the table (``hitter``: the ball arriving at it, which may send it off as
    fast), where it vanished in a pocket's jaws, where it was last seen when hidden; and
    for a ball ``unhit`` before the strike, about its place at the start."""
    setting = view.setting
    gap = max(1, view.frame - s.last_seen)
    if s.status == "table":
        px, py, _, _ = predicted(setting, s, gap)
        speed = math.hypot(s.vx, s.vy)
        if hitter is not None:  # a ball that is hit may leave as fast as the hitter
            speed = max(speed, setting.params.hit_speed_share * math.hypot(hitter.vx, hitter.vy))
        gate = reach_of(setting, speed, gap)
    elif s.status == "pocketed":  # in the jaws, near where it vanished
        px, py = s.x, s.y
        gate = setting.params.pocketed_gate_diameters * setting.d
    else:  # hidden: it is where it was last seen (a hand's pieces are near)
        px, py = s.x, s.y
        gate = setting.params.hidden_gate_diameters * setting.d
    if unhit and s.status != "pocketed":
        # Nothing has been hit: a ball is seen within the unhit gate of where it lay
        # at the start while it is no further from there, moving or not, hidden or
        # not (a red under the player's arm walked off onto a reddish piece of the
        # forearm 67 mm away, and was given the strike; a yellow under the arm took
        # a piece of it 25 mm off, then, no longer still, walked on along it). One
        # that did get further (hit while
        # the cue ball's slow start was not seen as a strike) is followed as any
        # other, within that gate of its place once it rests.
        home = s.start_place or (s.x, s.y)
        if math.dist((s.x, s.y), home) <= setting.params.unhit_gate_diameters * setting.d:
            px, py = home
            gate = setting.params.unhit_gate_diameters * setting.d
        elif s.status == "table" and still(setting, s):
            gate = setting.params.unhit_gate_diameters * setting.d
    return px, py, gate


def sighting_cost(view: FrameView, s: BallState, det: Detection, dets: list[Detection],
                  place: tuple[float, float, float], hitter: BallState | None,
                  after: Sequence[Prediction]) -> tuple[float, Prediction | None]:
    """What it costs to give ``det`` (one of ``dets``) to ``s``, looked for at ``place`` (see
    :func:`looked_for`), or where a collision of ``after`` sends it: FAR when it may not be
    given. Also the collision it follows, if it is nearer there."""
    setting = view.setting
    if view.before_strike and beside_the_cue_ball_unseen(
            setting, s, det, s.ball in view.may_strike):
        return FAR, None
    px, py, gate = place
    dist = math.hypot(det.x_mm - px, det.y_mm - py)
    prior = None
    for p in after:  # or where a collision sends it
        d_after = math.hypot(det.x_mm - p.x, det.y_mm - p.y)
        if d_after <= p.gate and (d_after < dist or dist > gate):
            dist, prior = d_after, p
    sender = view.senders.get(s.ball)
    if (dist > gate and prior is None) or against_hit(setting, s, hitter, det, sender) or (
            (s.visible or far_from_last(setting, s, det))
            and was_something_else(setting, s, det, view.leftovers, view.frames_on)
            ) or ruled_out(setting, s, det, dets, view.frame, view.leftovers, dist) or (
            hitter is None and prior is None and behind_it(setting, s, det, view.frame)):
        # (of a ball unseen, its own detection may have been left, but not far
        # from where it was seen last: a white rolling 470 mm a frame, unseen a
        # frame, took the bridge hand 18 diameters away)
        return FAR, prior
    # the less ball-like (a piece, a pocket's glint, the cue's tip), the dearer:
    # a ball's diameter for a sighting not at all like one (half of that let
    # a struck white take the cue's tip, 0.33 and 13 px from where it lay, over
    # itself rolling off, 0.52 and 17 px)
    c = dist + setting.params.score_cost_diameters * setting.d * (1.0 - min(det.score, 1.0))
    if det.colour != CLASS_OF[s.ball]:
        # (nor does a ball at rest, or hidden under the cue, leave its place
        # for a piece of the cue: see faint_other)
        if not may_be_of_another_colour(setting, s, det, any_other=True) or (
                hitter is None
                and (is_resting(setting, s) or s.status == "hidden")
                and faint_other(setting, s, det)
                and dist >= REST_JITTER_DIAMETERS * setting.d):
            return FAR, prior
        # (a streak, a ball under the cue)
        c += setting.params.doubtful_colour_diameters * setting.d
    return c, prior


def second_chance(view: FrameView, s: BallState, det: Detection, free: list[Detection],
                  hitter: BallState | None, collided: bool) -> float | None:
    """For a ball not found within its gate: how far ``det`` (one of the ``free``
    detections) lies from where it was last seen if it may be the ball gone further, else
    None. ``hitter``: the ball arriving at it; ``collided``: a collision of this frame sends
    it. A ball struck from rest (or leaving the hand) jumps further than its gate: within
    its stop reach, any sighting not ruled out; beyond, within the fastest shot's reach, one
    a sign of its leaving that way says is it."""
    setting = view.setting
    reach = setting.params.hard_shot_diameters_per_frame * setting.d * view.frames_on
    if det.colour != CLASS_OF[s.ball] and not may_be_of_another_colour(
            setting, s, det, any_other=False):
        return None
    if against_hit(setting, s, hitter, det, view.senders.get(s.ball)) or (
            view.before_strike and beside_the_cue_ball_unseen(
                setting, s, det, s.ball in view.may_strike)):
        return None
    dist = math.hypot(det.x_mm - s.x, det.y_mm - s.y)
    # beyond two diameters only a blurred (fast) ball can be the struck one,
    # or one that has just started to move that way (its speed not yet known);
    # not a thing that lay there already (near an unseen ball, that thing
    # may have been the ball itself)
    near = stop_reach(setting, s)
    if (was_something_else(setting, s, det, view.leftovers, view.frames_on)
            and (s.visible or dist > near)) or (
            ruled_out(setting, s, det, free, view.frame, view.leftovers)) or (
            hitter is None and not collided and behind_it(setting, s, det, view.frame)):
        return None
    unclaimed = view.leftovers.unclaimed
    # (where the cue lies is seen in all that no ball took, its pieces too: its tip is often
    # one, and a pale cue's pieces in a row point at the ball)
    left_over = view.leftovers.left_over
    # a faint thing of another colour (a piece of the cue over a ball
    # hidden under it) is the ball only if it lies the way it was sent
    if (dist <= near and not faint_other(setting, s, det)
            and not sharp_leap(setting, s, det, view.frame, dist, view.frames_on)) or (
            dist <= reach and (
            ball_streak(setting, s, det, view.frame)
            or ahead(setting, s, det)
            or away_from_the_cue(setting, s, det, left_over)
            or led_by_its_front(setting, s, det, unclaimed)
            or left_along_its_streak(setting, s, det)
            or in_a_row_from(setting, s, det, free, left_over)
            )) or sent_toward(setting, s, det, view.frame):
        # (dearer for another colour, as within the gate: an unseen white sent from rest took
        # the nearer of two blurred pieces of the red it hit, over its own pale picture)
        return dist + (setting.params.doubtful_colour_diameters * setting.d
                       if det.colour != CLASS_OF[s.ball] else 0.0)
    return None


def own_colour_claims(view: FrameView, balls: Sequence[BallState], dets: Sequence[Detection],
                      cost: NDArray[np.float64], unfound: Sequence[BallState]
                      ) -> list[tuple[int, int]]:
    """The pairs (ball, detection) of ``cost`` (an assignment's costs, a row a ball of
    ``balls``) that may not be given because the detection, of another colour than the ball,
    is claimed by a ball of its own colour: one of ``unfound`` that has just left its rest that
    way, or was sent that way, no further than the hardest shot goes. A doubtful colour lets
    a ball take a streak of another colour; not when a ball of that colour is missing and
    could be it (a struck white, gone beyond its gate, left its streak by a red at rest)."""
    setting = view.setting

    def claims(t: BallState, det: Detection) -> bool:
        reach = setting.params.hardest_shot_diameters_per_frame * setting.d * max(
            1, view.frame - t.last_seen)
        return CLASS_OF[t.ball] == det.colour and (
            (ahead(setting, t, det) and math.hypot(det.x_mm - t.x, det.y_mm - t.y) <= reach)
            or sent_toward(setting, t, det, view.frame))

    return [(i, int(j)) for i, s in enumerate(balls) if unfound
            for j in np.flatnonzero(cost[i] < FAR)
            if dets[int(j)].colour != CLASS_OF[s.ball]
            and any(claims(t, dets[int(j)]) for t in unfound)]
