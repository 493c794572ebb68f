"""Tracking the five balls with fixed identities W1 W2 R1 R2 Y.

Every frame the predicted positions of the balls on the table (constant velocity, alpha-beta
filter, mm per frame) are matched to the detections by ``linear_sum_assignment`` on the distance,
with a prohibitive cost between different colour classes and a gate that grows with the speed.
Identities:

* W1 / W2 by their dots (W2 shows two dots side by side, W1 one) while the dots are seen, by
  continuity otherwise; the evidence is counted per track and a swap is undone when the dots say so;
* the reds are alike: R1 is the red nearer the head (smaller x) in the first frames, and they
  are kept apart by continuity;
* a ball not seen is kept at its last position for up to ``hide_s`` (hidden under a hand or the
  cue); one that vanishes within a ball diameter of a pocket's mouth is pocketed (its track
  ends); a ball of a class with a free identity that appears and stays is picked up again
  (respotted, or back from under the hand).

The game state before a shot (the shooter's white, the whites in hand, where every ball lies)
is told for the video's first shot when the tracker is made, and for each later one by
:meth:`Tracker.begin_shot` once the shot before has been judged (a :class:`ShotStart`, late: the
next shot may have begun); the same rules use it for every shot.

:class:`Tracker` holds the tracks and the game state and runs each frame; every rule it asks
lives in a module of its own:

* ``state``: the types (BallState, FrameTracks, ShotStart, Setting) and the five names;
* ``motion``: where a ball is expected, its gate, collisions, the hitter arriving, pockets;
* ``pieces``: a frame's detections joined (a ball's pieces) or split (two touching balls);
* ``association``: what a detection costs a ball, and the second chance beyond its gate,
  asking ``vetoes`` (why a detection is not this ball) and ``departure`` (signs a ball left
  its place this way);
* ``observe``: a ball moved to the detection it took, or held in place (jitter);
* ``lifecycle``: a ball not seen coasts, is hidden, pocketed or lost;
* ``reacquire``: balls found again (back to rest, clean over faint, struck away, rolling);
* ``pick_up``: balls put on the table (respotted, placed from hand) take a free identity;
* ``whites``: W1 and W2 by their dots; ``first_frames``: the identities in the first frames;
* ``game_shot``: the game state's shot (who may strike, struck yet, over);
* ``shot_start``: the game state told before a later shot, read against the answers since;
* ``leftovers``: what no ball took (beside a ball, fixtures of the picture);
* ``repeats``: repeated frames of a padded recording left out and filled in;
* ``geometry``: plane geometry of sightings; ``params``: the thresholds;
* ``replay``: a video's tracker input logged, to be fed to the tracker again (tools).

:func:`track_video` runs a video through it (kept here: callers replace this module's
``read_ahead_frames`` to watch the frames read); ``tracks_csv`` writes the answers.
"""

from __future__ import annotations

import math
import queue
import threading
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import numpy as np
from scipy.optimize import linear_sum_assignment

from calibration import Calibration, DriftEvent, DriftMonitor
from rules.table import Pocket, TableSpec
from video import (
    AnyFrame,
    Frame,
    FrameSource,
    as_bgr,
    half_picture,
    read_ahead,
    read_ahead_frames,
    video_fps,
)
from video.frames import warm_up as warm_up_conversions
from video.reader import Watch, opencv_beside_the_reader
from vision.detection import (
    DEFAULT_DETECTION,
    BallDetector,
    Detection,
    DetectionParams,
    VisionError,
    ballfit,
)
from vision.detection.detector import ClothWork
from vision.tracking.association import (
    FrameView,
    looked_for,
    own_colour_claims,
    second_chance,
    sighting_cost,
)
from vision.tracking.departure import swept_by
from vision.tracking.first_frames import (
    by_class,
    named_by_dots_and_place,
    named_by_start,
    objects_seen,
)
from vision.tracking.game_shot import GameShot
from vision.tracking.leftovers import Leftovers
from vision.tracking.lifecycle import after_the_frame
from vision.tracking.motion import arriving_hitter, collisions, is_resting, sent_at, struck
from vision.tracking.observe import observe
from vision.tracking.params import DEFAULT_TRACKING, TrackingParams
from vision.tracking.pick_up import pick_up
from vision.tracking.pieces import between_two, merge_pieces, split_touching
from vision.tracking.reacquire import (
    back_to_rest,
    clean_over_faint,
    pick_up_moving,
    rows_due,
    struck_away,
)
from vision.tracking.repeats import RepeatsFilled
from vision.tracking.shot_start import (
    check,
    expect,
    names_by_state,
    places_since,
    renamed,
    since,
    struck_in,
    whites_met,
)
from vision.tracking.state import (
    BALLS,
    CLASS_OF,
    FAR,
    WHITES,
    Balls,
    BallState,
    FrameTracks,
    Prediction,
    Setting,
    ShotStart,
)
from vision.tracking.vetoes import toward
from vision.tracking.whites import OTHER_WHITE, UnseenWays, came_near, dots_say


class Tracker:
    """Assigns detections to the five identities, frame by frame.

    ``fps``: frames per second (for ``hide_s``); ``table``: for the pockets and the ball size;
    ``cue_ball``: the white the shooter will strike (from the game state), which names the whites
    when their dots do not: frames are then held back (at most ``max_delay_s``) until the dots
    or the strike decide. ``cue_ball`` and ``start_positions`` are the game state before the
    video's first shot; :meth:`begin_shot` tells the state before each later one.
    """

    def __init__(self, table: TableSpec, fps: float = 30.0, *, hide_s: float = 2.0,
                 init_frames: int = 10, cue_ball: str | None = None,
                 max_delay_s: float = 10.0,
                 start_positions: Mapping[str, tuple[float, float]] | None = None,
                 params: TrackingParams = DEFAULT_TRACKING) -> None:
        self.params = params
        if cue_ball not in (None, "W1", "W2"):
            raise VisionError(f"expected cue_ball W1, W2 or None, got {cue_ball!r}")
        unknown = set(start_positions or ()) - set(BALLS)
        if unknown:
            raise VisionError(f"expected start positions of {', '.join(BALLS)}, got "
                              f"{', '.join(sorted(unknown))}")
        self.start_positions = dict(start_positions) if start_positions is not None else None
        self.shot = GameShot(cue_ball, self.start_positions)  # the game state's shot
        self.unresolved = False
        # the whites were named by the game state and have not come near each other since: who
        # is who is known by continuity, and the dots (which misread now and then, frame after
        # frame for a ball at rest) are not asked
        self.whites_known = False
        self._whites_before: dict[str, tuple[float, float]] = {}
        self._buffer: list[FrameTracks] = []
        self.max_delay = max(1, round(max_delay_s * fps))
        if fps <= 0:
            raise VisionError(f"expected fps > 0, got {fps}")
        # the balls of each frame stepped (for a shot start told late, see begin_shot)
        self._history: deque[tuple[int, Balls]] = deque(
            maxlen=max(1, round(self.params.history_s * fps)))
        self.table = table
        self.fps = fps
        self.hide_frames = max(1, round(hide_s * fps))
        self.jaws_frames = max(1, round(self.params.jaws_s * fps))
        self.faint_frames = max(1, round(self.params.faint_s * fps))
        self.init_frames = init_frames
        self.d = table.ball_diameter_mm
        self.setting = Setting(table, fps, params, self.d, self.hide_frames, self.faint_frames,
                               np.array([table.pocket_xy(p) for p in Pocket]))
        # each white's last sightings, for one back in sight by a way unseen (see _watch_whites)
        self._unseen_ways = UnseenWays(self.setting)
        # (frame, the white at rest, its place): a white back by a way unseen may have hit it
        self._meeting: tuple[int, str, tuple[float, float]] | None = None
        self.states: dict[str, BallState] = {}
        self._pending: deque[tuple[int, list[Detection]]] = deque()
        self._candidates: dict[str, list[tuple[int, float, float]]] = {}
        self.leftovers = Leftovers(self.setting)  # what no ball took
        # what no ball took in each of the last frames, for a moving ball found again
        self._free_history: deque[tuple[int, list[Detection]]] = deque(
            maxlen=self.params.moving_chain_frames - 1)
        # frames since the last one stepped: 1, or 2 after a repeated picture left out (see
        # RepeatsFilled): the balls went twice as far meanwhile
        self._frames_on = 1
        self._last_stepped: int | None = None
        self.started = False

    @property
    def cue_ball(self) -> str | None:
        """The shooter's white the game state names now (see :class:`GameShot`)."""
        return self.shot.cue_ball

    # --- initial identities -------------------------------------------------------------------
    def _initialise(self, frames: list[tuple[int, list[Detection]]]) -> None:
        """Objects seen in most of the first frames, named by class, dots and position (see
        :mod:`vision.tracking.first_frames`)."""
        objects = objects_seen(self.setting, [self._merge_pieces(raw)[0] for _, raw in frames])
        classes = by_class(self.setting, objects, len(frames))
        f0 = frames[0][0]
        if self.start_positions is not None:
            named, placed = named_by_start(self.setting, classes, self.start_positions,
                                           self.shot.in_hand_this_shot, f0, len(frames))
            self.states.update(named)
            self.shot.whites_in_hand.difference_update(placed)  # (placed already)
            self.whites_known = "W1" in self.states and "W2" in self.states
        else:
            named, self.unresolved = named_by_dots_and_place(self.setting, classes, f0)
            self.states.update(named)
        self.started = True

    def _merge_pieces(self, dets: list[Detection], frame: int | None = None
                      ) -> tuple[list[Detection], set[int]]:
        """The pieces of one ball joined (see :func:`merge_pieces`), by the tracks as they
        are, and in the first frames by the game state's start positions."""
        first = self.start_positions if not self.started else None
        return merge_pieces(self.setting, dets, list(self.states.values()), frame, first)

    # --- per frame ----------------------------------------------------------------------------
    def update(self, frame: int, detections: list[Detection]) -> list[FrameTracks]:
        """Feed one frame's detections; returns the frames now decided (the first
        ``init_frames`` are held back until the initial identities are known)."""
        if not self.started:
            self._pending.append((frame, detections))
            if len(self._pending) < self.init_frames:
                return []
            self._initialise(list(self._pending))
            out = [self._step(f, d) for f, d in self._pending]
            self._pending.clear()
            return self._release(out)
        return self._release([self._step(frame, detections)])

    def _release(self, results: list[FrameTracks]) -> list[FrameTracks]:
        """Hold results back while the whites are undecided (and a cue ball is known), or
        while a white back by a way unseen may have hit the other (see :meth:`_settle_meeting`:
        a few frames)."""
        self._buffer.extend(results)
        if (((self.unresolved and self.shot.cue_ball is not None) or self._meeting is not None)
                and len(self._buffer) < self.max_delay):
            return []
        out, self._buffer = self._buffer, []
        return out

    def flush(self) -> list[FrameTracks]:
        """Decide the frames still held back (a clip shorter than ``init_frames``, or whites
        still undecided at the end)."""
        if not self.started and self._pending:
            self._initialise(list(self._pending))
            self._buffer.extend(self._step(f, d) for f, d in self._pending)
            self._pending.clear()
        out, self._buffer = self._buffer, []
        return out

    # --- the game state before each shot -------------------------------------------------------
    def begin_shot(self, start: ShotStart) -> None:
        """The game state before the next shot, told once the shot before has been judged: from
        the frame after ``start.after_frame`` (that shot's rest) the shooter's white is
        ``start.cue_ball``, the whites ``start.in_hand`` are off the table (the shooter's own is
        placed in the house, the other not before his shot is over) and the other balls lie
        where ``start.positions`` say (respotted balls on their spots). The video's first shot
        is told by ``cue_ball`` and ``start_positions``; this tells each later one, for the
        same rules. It comes late (the tracker has read on, and the next shot may have begun),
        so it is read against the tracker's answers since that rest:

        * the balls are named by where they lay at the rest (see
          :func:`~vision.tracking.shot_start.names_by_state`); a ball the state has on the
          table that the tracker has off it, or unseen, waits hidden on its place (a
          respotted ball not yet seen put back is taken there);
        * a white in hand is in no track (what was taken for it is left) and is picked up only
          in the house; the shooter's own, seen put down in the house since, is placed;
        * a ball seen struck since the rest (see
          :func:`~vision.tracking.shot_start.struck_in`) means the shot is under way: the
          rules of the moments before the strike (the other balls held to their places,
          only the cue ball found rolling, the other white in hand waiting for the
          strike) are not applied to it after the fact, and the shot is over once every ball
          rests again. Otherwise the shot begins from here as the first one does, but for
          which white may be struck: either (see :meth:`GameShot.may_strike`).

        A shot start older than one told already is ignored."""
        check(start)
        if self.shot.told_after is not None and start.after_frame < self.shot.told_after:
            return
        self.shot.told_after = start.after_frame
        positions = {b: (float(xy[0]), float(xy[1])) for b, xy in start.positions.items()}
        # (a white the state has nowhere is off the table)
        in_hand = set(start.in_hand) | {w for w in WHITES if w not in positions}
        self.shot.cue_ball = start.cue_ball
        self.shot.state_known = True
        if not self.started:  # the first frames are still to come: they are named from this
            self.start_positions = positions
            self.shot.whites_in_hand = in_hand
            self.shot.in_hand_this_shot = {w for w in in_hand if w != start.cue_ball}
            return
        self.shot.later_shot = True
        # the history reaches back to the rest (else what happened since is not known: the
        # shot may have begun)
        known = bool(self._history) and self._history[0][0] <= start.after_frame + 1
        begun = not known or struck_in(self.setting, since(self._history, start.after_frame))
        mapping, named = names_by_state(
            self.setting, positions,
            places_since(self._history, start.after_frame, self._on_table()), self.states)
        if mapping:
            self._rename(mapping)
        places = places_since(self._history, start.after_frame, self._on_table())
        at_rest = places_since(self._history, start.after_frame, self._on_table(), put_on=False)
        for ball, s in self.states.items():
            if s.status in ("table", "hidden"):
                s.start_place = places.get(ball, (s.x, s.y))
        now = self._last_stepped if self._last_stepped is not None else start.after_frame
        for ball, xy in positions.items():
            expect(self.states, ball, xy, begun and ball in places, start.after_frame, now)
        self.shot.whites_in_hand = set()
        for w in in_hand:
            track = self.states.get(w)
            placed = (w == start.cue_ball and track is not None
                      and track.status in ("table", "hidden") and w not in at_rest
                      and w in places and self.table.in_house(places[w]))
            if not placed:
                self.states.pop(w, None)
                self.shot.whites_in_hand.add(w)
        self.shot.in_hand_this_shot = {w for w in self.shot.whites_in_hand
                                       if w != start.cue_ball}
        self.shot.cue_ball_struck = begun
        self.shot.over = False
        if self.unresolved or (set(mapping) & set(WHITES)):
            # named by the state (not yet by the dots, or otherwise): known, unless they came
            # near each other since (a strike under way is no sign of which is which)
            self.unresolved = False
            self.whites_known = all(w in named for w in WHITES) and not whites_met(
                self.setting, since(self._history, start.after_frame))

    def _rename(self, mapping: Mapping[str, str]) -> None:
        """Give tracks other ids (``mapping``: old to new, within a class), in the answers kept
        too (the frames held back, the history)."""
        states: dict[str, BallState] = {}
        for ball, s in self.states.items():
            s.ball = mapping.get(ball, ball)
            states[s.ball] = s
        self.states = states
        self._history = deque(((f, renamed(balls, mapping)) for f, balls in self._history),
                              maxlen=self._history.maxlen)
        self._buffer = [FrameTracks(r.frame, r.t, renamed(r.balls, mapping), r.detections)
                        for r in self._buffer]
        self._whites_before = {mapping.get(b, b): xy for b, xy in self._whites_before.items()}
        self._unseen_ways.rename(mapping)
        if self._meeting is not None:
            since, resting, place = self._meeting
            self._meeting = (since, mapping.get(resting, resting), place)

    def _step(self, frame: int, dets: list[Detection]) -> FrameTracks:
        """One frame: the detections made fit (:mod:`~vision.tracking.pieces`), assigned to the
        balls (:mod:`~vision.tracking.association`, then its second chance), each ball taken
        moved (:mod:`~vision.tracking.observe`), the cue ball's streak leaving its held place
        found, every track's status brought up to date (:mod:`~vision.tracking.lifecycle`),
        balls found again and put on the table (:mod:`~vision.tracking.reacquire`,
        :mod:`~vision.tracking.pick_up`), what no ball took kept, the whites' names checked,
        and the shot watched. Returns the frame's answer."""
        self._frames_on = 1 if self._last_stepped is None else max(1, frame - self._last_stepped)
        self._last_stepped = frame
        # a ball that vanished by a pocket may still be rattling in the jaws, unseen a moment
        active = [s for s in self.states.values() if s.status in ("table", "hidden") or (
            s.status == "pocketed" and frame - s.last_seen <= self.jaws_frames)]
        used: set[int] = set()
        tracks = list(self.states.values())
        dets = between_two(self.setting, tracks, frame, split_touching(self.setting, tracks, dets))
        dets, merged = self._merge_pieces(dets, frame)
        if active and dets:
            hitters = {s.ball: arriving_hitter(self.setting, s, active, frame) for s in active}
            after = collisions(self.setting, active, frame)
            # before the cue ball is struck no other ball moves: it is seen about its place
            # (while the whites' names are undecided, either white may be the cue ball)
            before_strike = self.shot.cue_ball is not None and not self.shot.cue_ball_struck
            unhit = ({b for b in BALLS if not self.shot.may_strike(b)
                      and not (self.unresolved and CLASS_OF[b] == "white")}
                     if before_strike else set())
            senders = {s.ball: m for s in active
                       if (m := sent_at(self.setting, s, active, frame)) is not None}
            view = FrameView(self.setting, frame, self._frames_on, self.leftovers, before_strike,
                             frozenset(b for b in BALLS if self.shot.may_strike(b)), senders)
            cost = np.full((len(active), len(dets)), FAR)
            prior: dict[tuple[int, int], Prediction] = {}
            for i, s in enumerate(active):
                hitter = hitters[s.ball]
                place = looked_for(view, s, hitter, s.ball in unhit)
                for j, det in enumerate(dets):
                    cost[i, j], p = sighting_cost(view, s, det, dets, place, hitter,
                                                  after.get(s.ball, ()))
                    if p is not None:
                        prior[i, j] = p
            unfound = [s for i, s in enumerate(active) if not np.any(cost[i] < FAR)]
            for i, j in own_colour_claims(view, active, dets, cost, unfound):
                cost[i, j] = FAR
            rows, cols = linear_sum_assignment(cost)
            taken = {int(i): int(j) for i, j in zip(rows, cols, strict=True)
                     if cost[i, j] < FAR}
            clean_over_faint(self.setting, active, dets, taken, list(self.states.values()))
            for i, j in taken.items():
                s = active[i]
                pulled = toward(s, hitters[s.ball], dets[j])
                observe(self.setting, s, dets[j], frame, self.states.values(),
                        doubtful=j in merged or pulled, prior=prior.get((i, j)))
                used.add(j)
            for s in active:  # hit at rest but unseen (merged with its hitter, blurred)
                if s.last_seen != frame and s.ball in after and (
                        s.status == "hidden" or is_resting(self.setting, s)) and s.sent is None:
                    fast = max(after[s.ball], key=lambda p: math.hypot(p.vx, p.vy))
                    s.sent = (frame, fast.vx, fast.vy)
            # second chance: a ball struck from rest (or leaving the hand) jumps further than
            # its gate; an unclaimed detection of its colour within the fastest shot's reach
            # (before the cue ball is struck, seen at rest in its place now, no other ball has
            # been hit: none jumps, hidden or not; a yellow hidden under the player took his
            # head 92 mm away, and followed it)
            unstruck = self.shot.cue_ball_unstruck(self.setting, self.states, frame)
            left = [s for s in active if s.last_seen != frame
                    and not (unstruck and not self.shot.may_strike(s.ball))]
            free = [j for j in range(len(dets)) if j not in used]
            free_dets = [dets[j] for j in free]
            if left and free:
                cost2 = np.full((len(left), len(free)), FAR)
                for i, s in enumerate(left):
                    for k, j in enumerate(free):
                        dist = second_chance(view, s, dets[j], free_dets, hitters[s.ball],
                                             s.ball in after)
                        if dist is not None:
                            cost2[i, k] = dist
                for i, k in own_colour_claims(view, left, free_dets, cost2, left):
                    cost2[i, k] = FAR
                rows, cols = linear_sum_assignment(cost2)
                for i, k in zip(rows, cols, strict=True):
                    if cost2[i, k] < FAR:
                        observe(self.setting, left[i], dets[free[k]], frame,
                                self.states.values(), jump=True)
                        used.add(free[k])
            cue_balls = frozenset(b for b in BALLS
                                  if self.shot.may_be_the_cue_ball(b, self.unresolved))
            struck_away(self.setting, active, dets, used, frame, cue_balls, self.states.values())
        free_now = [d for j, d in enumerate(dets) if j not in used]
        unfound = [s for s in active if s.last_seen != frame]
        for s in unfound:  # hit at rest by a ball whose streak runs against it
            if s.sent is None and s.status in ("table", "hidden") and not s.hidden_rolling and (
                    is_resting(self.setting, s)):
                way = swept_by(self.setting, s, free_now, frame, unfound)
                if way is not None:
                    s.sent = (frame, *way)
        for s in active:
            after_the_frame(self.setting, s, frame, self.leftovers.unclaimed)
        free_now = back_to_rest(self.setting, frame, active, free_now)
        free_now = self._pick_up_moving(frame, free_now)
        self._pick_up(frame, free_now)
        self.leftovers.note(frame, dets, used, active)
        self._watch_whites(frame)
        self._check_whites()
        if self.unresolved:
            self._strike_resolves(frame)
        if not self.shot.over:
            self.shot.watch(self.setting, self.states, frame)
        balls = dict(sorted(self._on_table().items()))
        self._history.append((frame, dict(balls)))
        return FrameTracks(frame, frame / self.fps, balls, tuple(dets))

    def _on_table(self) -> Balls:
        """Every ball on the table now (hidden ones where they were last seen, not visible)."""
        return {b: (s.x, s.y, s.visible) for b, s in self.states.items()
                if s.status in ("table", "hidden")}

    def _pick_up_moving(self, frame: int, free: list[Detection]) -> list[Detection]:
        """A ball lost from view found rolling where nothing is tracked (see
        :func:`pick_up_moving`). Returns the detections left free."""
        steps = list(self._free_history)
        self._free_history.append((frame, free))
        if not rows_due(self.setting, frame, steps, self._frames_on):
            return free
        # (then no other ball rolls: nothing hit it)
        unstruck = self.shot.cue_ball_unstruck(self.setting, self.states, frame)
        off_limits = self.shot.whites_in_hand | {b for b in BALLS
                                                  if unstruck and not self.shot.may_strike(b)}
        return pick_up_moving(self.setting, frame, free, steps, self._frames_on, self.states,
                              off_limits, self.shot.state_known)

    def _pick_up(self, frame: int, free: list[Detection]) -> None:
        """A ball put on the table takes a free identity (see :func:`pick_up`)."""
        # while a shot of the game state runs (the cue ball struck, not every ball at rest
        # again) no ball is put on the table: respotting waits for the shot's end (RULES.md 6).
        # Only a ball seen this shot and lost from view comes back (a red thing by the
        # player's hand, 0.61, took a red's id for 56 frames of the shot)
        rolling = self.shot.state_known and self.shot.cue_ball_struck and not self.shot.over
        if pick_up(self.setting, frame, free, self.states, self._candidates,
                   closed=self.shot.in_hand_this_shot, whites_in_hand=self.shot.whites_in_hand,
                   rolling=rolling):
            self.whites_known = False  # both whites were off the table: the dots name it

    def _watch_whites(self, frame: int) -> None:
        """While the whites are known by continuity, see whether they came near each other this
        frame (along the way each went since the last): then the tracker may have mixed them
        up, and only the dots seen from now on can tell."""
        on: dict[str, BallState] = {b: self.states[b] for b in WHITES if b in self.states
              and self.states[b].status in ("table", "hidden")}
        now: dict[str, tuple[float, float]] = {b: (s.x, s.y) for b, s in on.items()}
        before, self._whites_before = self._whites_before, now
        self._settle_meeting(frame, on)
        if not self.whites_known or len(now) < 2:
            return
        if came_near(self.setting, before, now):
            self.whites_known = False
            for s in on.values():
                s.pair = s.single = 0

    def _settle_meeting(self, frame: int, on: Mapping[str, BallState]) -> None:
        """A white back in sight by a way unseen that may have passed the other white at rest
        (see :meth:`UnseenWays.back_by_a_way_unseen`) may have hit it: the tracker, which saw
        neither the way nor the hit, gave the names by where each was. Once both whites are
        seen going away from that place, the one whose way goes back through it was struck
        from it (:meth:`UnseenWays.struck_from`): it takes the resting white's name."""
        back = self._unseen_ways.back_by_a_way_unseen(frame, {
            b: (s.x, s.y, s.visible and s.last_seen == frame) for b, s in on.items()})
        if back is not None and len(on) == 2:
            rest = on[OTHER_WHITE[back]]
            if is_resting(self.setting, rest):
                self._meeting = (frame, rest.ball, (rest.x, rest.y))
        if self._meeting is None:
            return
        since, resting, place = self._meeting
        if frame > since + self.params.unseen_meeting_frames:
            self._meeting = None
            return
        struck = self._unseen_ways.struck_from(place, since)
        if struck is None:
            return
        self._meeting = None
        if struck != resting:
            self._swap_whites()
            self._relabel_buffer()

    def _check_whites(self) -> None:
        """Swap W1 and W2 when their dots clearly say so (unless known by continuity)."""
        w1, w2 = self.states.get("W1"), self.states.get("W2")
        if w1 is None or w2 is None or self.whites_known:
            return
        said = dots_say(self.params, w1, w2)
        if said == "swap":
            self._swap_whites()
            self._relabel_buffer()
            self.unresolved = False
        elif said == "decided":
            self.unresolved = False

    def _swap_whites(self) -> None:
        w1, w2 = self.states["W1"], self.states["W2"]
        w1.ball, w2.ball = "W2", "W1"
        self.states["W1"], self.states["W2"] = w2, w1
        swap = {"W1": "W2", "W2": "W1"}  # (the history is of the tracks: it follows them)
        self._history = deque(((f, renamed(balls, swap)) for f, balls in self._history),
                              maxlen=self._history.maxlen)
        self._unseen_ways.rename(swap)

    def _strike_resolves(self, frame: int) -> None:
        """Undecided whites: the first to be struck (moving while the other rests) is the
        shooter's cue ball."""
        w1, w2 = self.states.get("W1"), self.states.get("W2")
        if self.shot.cue_ball is None or w1 is None or w2 is None:
            return
        m1 = struck(self.setting, self.states.get("W1"), frame)
        m2 = struck(self.setting, self.states.get("W2"), frame)
        if m1 == m2:
            return
        first = "W1" if m1 else "W2"
        if first != self.shot.cue_ball:
            self._swap_whites()
        self.unresolved = False
        if first != self.shot.cue_ball:
            self._relabel_buffer()

    def _relabel_buffer(self) -> None:
        swap = {"W1": "W2", "W2": "W1"}
        self._buffer = [FrameTracks(r.frame, r.t, renamed(r.balls, swap), r.detections)
                        for r in self._buffer]


def _warm_up() -> None:
    """The compiled code loaded (numba's cache) while the video opens and the cloth is learned:
    a first call would otherwise wait for it among the first frames."""
    ballfit.warm_up()
    warm_up_conversions()


_Ready = tuple[Frame, ClothWork | None]  # a frame prepared by BallDetector.prepare


def _watched(drift: DriftMonitor, found: dict[int, DriftEvent], fps: float | None) -> Watch:
    """The look at each frame that ``drift`` asks for, its events put in ``found`` by frame:
    its bump watch measures at a quarter's resolution, so it is handed half the picture (a
    quarter of the whole BGR frame's cost); the cushion-line check, when asked for, needs the
    whole. ``fps``: the frames' times are index / fps (a file read by index), else their own
    time stamps. It runs in the reader thread, in frame order: the main thread is the busier
    one (detection and tracking), and each look depends on the ones before."""
    whole = drift.every_s is not None

    def watch(index: int, time_s: float, frame: AnyFrame) -> None:
        t = index / fps if fps is not None else time_s
        if drift.due(t):
            w, h = drift.calibration.image_size
            if (frame.shape[1], frame.shape[0]) != (w, h):  # (said of the frame, not its half)
                raise VisionError(f"expected a {w}x{h} frame (the calibration's image size), "
                                  f"got {frame.shape[1]}x{frame.shape[0]}")
            # (the whole picture made only at the looks after a bump, when the rails' sights
            # are read again)
            event = (drift.check(index, t, as_bgr(frame)) if whole else
                     drift.check(index, t, half_picture(frame), scale=0.5,
                                 whole=lambda: as_bgr(frame)))
            if event is not None:
                found[index] = event

    return watch


def track_video(video_path: str | Path | FrameSource, calibration: Calibration,
                table: TableSpec | None = None, *, colour_frames: int = 10,
                cue_ball: str | None = None,
                start_positions: Mapping[str, tuple[float, float]] | None = None,
                drift: DriftMonitor | None = None,
                adjust: Callable[[Frame], Frame] | None = None,
                first_frame: int = 0,
                shot_starts: queue.SimpleQueue[ShotStart] | None = None,
                seen: Callable[[int, AnyFrame], None] | None = None,
                tracking: TrackingParams = DEFAULT_TRACKING,
                detection: DetectionParams = DEFAULT_DETECTION,
                detected: Callable[[int, list[Detection], float], None] | None = None
                ) -> Iterator[FrameTracks]:
    """Ball positions in every frame of a video, as :class:`FrameTracks` in frame order.

    The cloth is learned from the first frame, the colour classes from the detections of the
    first ``colour_frames`` frames (held back, a third of a second), then frames stream through.
    ``cue_ball`` ("W1"/"W2", the shooter's white from the game state) names the whites when
    their dots cannot (see :class:`Tracker`); ``start_positions`` (table mm of the balls the
    game state has on the table) name every ball from where it was left. ``drift`` checks
    every few seconds that the table is still where the calibration says; when the camera was
    moved and the monitor recalibrated, detection goes on with the new calibration (the balls'
    table positions, and so their tracks, are unaffected) and the event is in ``drift.events``.
    The camera is watched in the reader thread, frame by frame in order, so the events are
    the same whichever thread is ahead; ``drift.events`` may hold those of the few frames read
    ahead of the one handed out.
    ``adjust``: applied to every decoded frame first (a benchmark's stand-in for the slightly
    different pictures of another decoder, see benchmarks/bench_realdata.py ``--shift``).
    ``first_frame``: start there (a resumed match; ``start_positions`` then say where the balls
    lay at that frame), frames still numbered from the video's first. ``shot_starts``: the game
    state before each later shot, put there once the shot before has been judged; what is
    there is handed to :meth:`Tracker.begin_shot` before each frame is. ``seen``: called with
    each frame as it is read (before its detections), for a caller that keeps a few of them.
    ``tracking``: the tracker's thresholds (see :class:`TrackingParams`). ``detected``: called
    with what the tracker is handed for each frame (its index, detections and picture change),
    in frame order: the tracker's whole input, to be fed to it again (see
    :mod:`vision.tracking.replay`).

    ``video_path`` may be a :class:`~video.sources.FrameSource` (a camera, a stream, a file
    played at its pace: the live mode): its frames are read from where it starts (``first_frame``
    is then the source's own ``start``), at its frame rate, and the camera is checked at each
    frame's own time stamp (a live source's gaps included). A file path is read as ever.
    """
    source = video_path if isinstance(video_path, FrameSource) else None
    if source is None:
        p = Path(video_path)  # type: ignore[arg-type]
        if not p.is_file():
            raise VisionError(f"expected a video file, found nothing at {str(p)!r}")
    threading.Thread(target=_warm_up, daemon=True).start()
    table = table or calibration.table
    detector = BallDetector(calibration, detection)
    # (opening the video costs about as much as decoding ten frames)
    fps = source.fps if source is not None else video_fps(p)
    tracker = RepeatsFilled(Tracker(table, fps, cue_ball=cue_ball,
                                     start_positions=start_positions, params=tracking))

    def update(index: int, dets: list[Detection], change: float) -> Iterator[FrameTracks]:
        while shot_starts is not None:
            try:
                start = shot_starts.get_nowait()
            except queue.Empty:
                break
            tracker.tracker.begin_shot(start)
        if detected is not None:
            detected(index, dets, change)
        return tracker.update(index, dets, change)

    held: list[tuple[int, AnyFrame, list[Detection], float]] = []
    known = list(start_positions.values()) if start_positions else []
    recalibrated = False  # the reader thread prepares frames for the first calibration's detector
    # the camera watch's notable findings, by frame (made in the reader thread: see _watched)
    found: dict[int, DriftEvent] = {}
    watch = None if drift is None else _watched(drift, found, None if source else fps)
    frames: Iterator[tuple[int, AnyFrame, _Ready | None]] = (
        read_ahead_frames(p, detector.prepare, adjust=adjust, planar=True, start=first_frame,
                          watch=watch)
        if source is None else
        ((timed.index, timed.image, ready)
         for timed, ready in read_ahead(source, detector.prepare, adjust=adjust, watch=watch)))
    # (OpenCV's calls here and in the caller's code between frames: single-threaded on few
    # cores, see opencv_beside_the_reader)
    with opencv_beside_the_reader():
        for index, frame, ready in frames:
            if seen is not None:
                seen(index, frame)
            event = found.pop(index, None)
            if event is not None and event.status == "refitted":
                # (the same picture, the table fitted again to it: only the places in mm change)
                detector.refitted(event.calibration)
            elif event is not None and event.changed:
                if event.motion is not None:  # a bumped camera: what the detector knew, moved
                    detector = detector.moved(event.calibration, event.motion)
                else:
                    colours, detector = detector.colours, BallDetector(event.calibration, detection)
                    detector.colours = colours
                recalibrated = True
            small, ahead = (None, None) if recalibrated or ready is None else ready
            # where the game state has the balls (when the cloth and colours are learned at the
            # start: the first frames read)
            expected = [] if recalibrated else known
            if detector.cloth is None:
                detector.learn_cloth(frame, small=small, ahead=ahead, balls_at=expected)
            dets = detector.detect(frame, small=small, ahead=ahead)
            change = detector.picture_change
            if detector.colours is None:
                held.append((index, frame, dets, change))
                if len(held) < colour_frames:
                    continue
                detector.fit_colours([d for _, _, ds, _ in held for d in ds], expected)
                for i, _, ds, c in held:
                    yield from update(i, detector.classify(ds), c)
                held.clear()
                continue
            yield from update(index, dets, change)
        if held:
            all_dets = [d for _, _, ds, _ in held for d in ds]
            if all_dets:
                detector.fit_colours(all_dets, [] if recalibrated else known)
            for i, _, ds, c in held:
                yield from update(i, detector.classify(ds), c)
        yield from tracker.flush()
