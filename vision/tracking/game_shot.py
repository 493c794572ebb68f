"""The game state's shot as the tracker follows it: the shooter's white (which ball the cue
may strike), the whites in hand (and the other white, which may not be placed before this
shot is over), whether the cue ball was struck, and whether the shot is over (every ball at
rest again). Told for the video's first shot when the tracker is made, and for each later one
by :meth:`Tracker.begin_shot`."""

from __future__ import annotations

import math
from collections.abc import Mapping

from vision.tracking.motion import is_resting, still, struck
from vision.tracking.state import BALLS, CLASS_OF, WHITES, BallState, Setting


class GameShot:
    """The game state's shot: ``cue_ball`` the shooter's white (None: no game state names
    it), ``start_positions`` the balls it has on the table (None: not known)."""

    def __init__(self, cue_ball: str | None,
                 start_positions: Mapping[str, tuple[float, float]] | None) -> None:
        self.cue_ball = cue_ball
        # the game state is known: where every ball lies, which whites are in hand (from the
        # start positions, or told by begin_shot)
        self.state_known = start_positions is not None
        # the whites the game state has in hand and that have not been seen put on the table
        # since (a ball in hand is in no track: its id is free)
        self.whites_in_hand: set[str] = (
            {w for w in WHITES if w not in start_positions}
            if start_positions is not None else set())
        # a white the game state has in hand is placed in the house by its owner, on his own
        # shot (RULES.md 6.4): the other white in hand is not on the table before the shooter's
        # shot is over, his cue ball struck and every ball at rest again (a shadow or a hand in
        # the house is not it)
        self.in_hand_this_shot = ({w for w in self.whites_in_hand if w != cue_ball}
                                  if cue_ball else set())
        self.cue_ball_struck = False
        self.over = False  # ... and every ball at rest after it (see watch)
        self.told_after: int | None = None  # the rest frame of the last shot start told
        self.later_shot = False  # ... once the video's first frames were read (see may_strike)

    def may_strike(self, ball: str) -> bool:
        """``ball`` is one the cue may strike in the game state's shot: the shooter's white the
        state names; in a later shot than the video's first (told by :meth:`Tracker.begin_shot`),
        either white. That state is the referee's own reading of the video so far: after a
        verdict gone wrong (two shots read as one) it names the wrong shooter, and a white
        struck by the wrong player is a foul to be seen, not a ball to hold to its place (held
        there, a white struck as the state named the other was lost for three seconds, and a
        contact of its shot with it)."""
        return ball == self.cue_ball or (self.later_shot and CLASS_OF[ball] == "white")

    def may_be_the_cue_ball(self, ball: str, unresolved: bool) -> bool:
        """The shooter's cue ball, the only one the cue strikes (see :meth:`may_strike`), any
        white while the whites' names are undecided (``unresolved``), any ball with no game
        state."""
        return (self.cue_ball is None or self.may_strike(ball)
                or (unresolved and CLASS_OF[ball] == "white"))

    def watch(self, setting: Setting, states: Mapping[str, BallState], frame: int) -> None:
        """After the shooter's cue ball was struck, every ball at rest: his shot is over, the
        other white may be placed from hand, and balls respotted (see
        :func:`~vision.tracking.pick_up.pick_up`). A ball lost from view while rolling is not
        known to rest until it is seen again or given up as lost (a white lost on a pale cloth
        just before it hit the yellow was counted as at rest, so the shot was over before the
        yellow moved, and the white seen again was named as the other white)."""
        if self.in_hand_this_shot and not self.cue_ball_struck:
            # (only while a white waits in hand: otherwise the strike is seen by
            # cue_ball_unstruck)
            self.cue_ball_struck = any(struck(setting, states.get(b), frame) for b in BALLS
                                       if self.may_strike(b))
        elif self.cue_ball_struck and all(
                still(setting, s) and not (s.status == "hidden" and s.hidden_rolling)
                for s in states.values() if s.status in ("table", "hidden")):
            self.in_hand_this_shot = set()
            self.over = True

    def cue_ball_unstruck(self, setting: Setting, states: Mapping[str, BallState],
                          frame: int) -> bool:
        """The shooter's cue ball (known; after a shot start told, either white: see
        :meth:`may_strike`) was never seen struck, and is seen at rest now (a strike seen this
        frame is recorded: from then on, False). Seen a diameter away from
        where it lay, it was struck however slowly it rolls (filmed by a camera padded to 30
        frames a second, a white rolling off at 18 mm a frame, under struck_diameters_per_frame,
        was never counted as struck, and every ball of the later shots was held to its first
        place)."""
        if self.cue_ball is None or self.cue_ball_struck:
            return False
        cue = [s for b, s in states.items() if self.may_strike(b)]  # (see may_strike)
        self.cue_ball_struck = any(struck(setting, states.get(s.ball), frame) or (
            s.last_seen == frame and s.start_place is not None
            and math.dist((s.x, s.y), s.start_place) > setting.d) for s in cue)
        return (not self.cue_ball_struck and bool(cue)
                and all(s.last_seen == frame and is_resting(setting, s) for s in cue))
