"""A track's life at the end of each frame: a ball not seen coasts a moment while rolling,
is pocketed when it vanishes by a pocket, hidden (under a hand or the cue, or lost from view
while rolling) where it was last seen, and lost after hide_s; one that followed only faint
things away from where it last looked like a ball is lost at once."""

from __future__ import annotations

import math

from vision.detection import Detection
from vision.tracking.departure import cue_behind
from vision.tracking.motion import is_resting, near_pocket
from vision.tracking.state import BallState, Setting


def walked_off_faint(setting: Setting, s: BallState) -> bool:
    """Seen for faint_s only in sightings less ball-like than init_score_share, and now more
    than a diameter from where it last looked like a ball (or was named): see faint_s."""
    place = s.clean_place or s.start_place
    return s.faint_looks >= setting.faint_frames and (
        place is None or math.hypot(s.x - place[0], s.y - place[1]) > setting.d)


def after_the_frame(setting: Setting, s: BallState, frame: int,
                    unclaimed: list[Detection]) -> None:
    """Bring ``s``'s status up to date once ``frame`` is associated (``unclaimed``: what no
    ball took in the frame before, for the cue behind a ball at rest)."""
    if s.last_seen == frame and walked_off_faint(setting, s):
        s.status, s.visible, s.faint_looks = "lost", False, 0
        return
    if s.last_seen == frame or s.status == "pocketed":
        return
    s.visible = False
    missing = frame - s.last_seen
    cue = cue_behind(setting, s, unclaimed)
    if cue is not None and s.sent is None:  # struck too hard to be seen: away from it
        s.sent = (frame, s.x - cue[0], s.y - cue[1])
    if s.status == "table":
        if near_pocket(setting, s.x + s.vx, s.y + s.vy):
            s.status = "pocketed"
            return
        if missing <= setting.params.coast_frames and not is_resting(setting, s):
            return  # unseen a moment while rolling (a merge, a blur): looked for ahead
        s.hidden_rolling = not is_resting(setting, s)
        if s.hidden_rolling and s.sent is None:
            # lost from view while rolling: looked for the way it went, as a ball sent
            # while unseen is (a white at 1 m/s, unseen for five frames, was then seen
            # rolling on its line for eleven more with no id)
            s.sent = (frame, s.vx, s.vy)
        s.status = "hidden"
        s.vx = s.vy = 0.0
    if missing > setting.hide_frames:
        s.status = "lost"
