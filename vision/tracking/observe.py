"""A sighting taken: a ball moved to the detection it took (its place, its velocity by the
alpha-beta correction, or out of a collision), or held in its place when the sighting is a
rest's jitter or a part of it; and its dots counted when it rests clean."""

from __future__ import annotations

import math
from collections.abc import Iterable

from vision.detection import Detection
from vision.shots import REST_JITTER_DIAMETERS
from vision.tracking.departure import sent_toward
from vision.tracking.geometry import along_across, same_way
from vision.tracking.motion import is_resting, predicted, still
from vision.tracking.state import BallState, Prediction, Setting
from vision.tracking.whites import is_pair, is_single


def observe(setting: Setting, s: BallState, det: Detection, frame: int,
            balls: Iterable[BallState], jump: bool = False, doubtful: bool = False,
            prior: Prediction | None = None) -> None:
    """Move ``s`` to ``det``. ``balls``: every track (for another ball beside it).
    ``prior``: the collision that the detection follows, whose outgoing velocity replaces the
    ball's own before the correction."""
    gap = max(1, frame - s.last_seen)
    resting = is_resting(setting, s)
    off = math.hypot(det.x_mm - s.x, det.y_mm - s.y)
    if det.score < setting.params.init_score_share:
        s.faint_looks += 1
    else:
        s.faint_looks, s.clean_place, s.clean_seen = 0, (det.x_mm, det.y_mm), frame
    if prior is None and not jump and ((resting and (
            ((doubtful or det.score < setting.params.clean_score_share)
             and off < REST_JITTER_DIAMETERS * setting.d)
            or (det.piece and off < setting.params.piece_off_diameters * setting.d
                and alone(setting, s, balls))))
            or inside_the_streak(setting, s, det)) and not creeping(setting, s, det, frame):
        # A ball at rest seen only in part (under the cue, the cue's shadow across it) is
        # where it was: following the part would make it jitter, and a jitter looks like a
        # strike. A ball that really starts to move soon shows clean or goes further. A
        # piece of a blob split in two (a ball by a cushion's shadow, now joined to it,
        # now not) may lie further off its centre, clean as it looks; unless another ball
        # is near, whose picture joined to this one's is the other piece (a touching ball
        # that rolls off, a hitter: held to its place there, a ball lost its contact).
        s.visible = True
        s.last_seen = frame
        s.held = (frame, det.x_mm, det.y_mm)
        s.took = det
        return
    s.held = None
    # (a ball hidden where it lay, under a hand or the cue, was at rest there too)
    if (resting or s.status == "hidden") and off >= REST_JITTER_DIAMETERS * setting.d:
        s.left_rest = frame
        s.rest_place = (s.x, s.y)
    if prior is not None:  # the velocity out of the collision, corrected toward the sighting
        s.vx = prior.vx + setting.params.velocity_gain_share * (det.x_mm - prior.x) / gap
        s.vy = prior.vy + setting.params.velocity_gain_share * (det.y_mm - prior.y) / gap
    elif jump or (s.status == "hidden" and off >= REST_JITTER_DIAMETERS * setting.d
                  and sent_toward(setting, s, det, frame)):
        # (a hidden ball sent from its place while unseen, seen off it the way it was
        # sent: it rolls that way, as fast as it went; not at rest where it is seen)
        s.vx, s.vy = (det.x_mm - s.x) / gap, (det.y_mm - s.y) / gap
    elif s.status == "table":
        px, py, vx, vy = predicted(setting, s, gap)
        s.vx = vx + setting.params.velocity_gain_share * (det.x_mm - px) / gap
        s.vy = vy + setting.params.velocity_gain_share * (det.y_mm - py) / gap
    else:
        s.vx = s.vy = 0.0
    s.x, s.y = det.x_mm, det.y_mm
    if not still(setting, s):
        s.rolled = frame
    s.visible = True
    s.status = "table"
    s.last_seen = frame
    s.sent = None
    s.took = det
    # dots are trusted only on a clean ball at rest (a rolling or blurred ball, or one
    # touched by the cue's shadow, shows false dark blobs)
    # One look is one piece of evidence: a ball at rest in an unchanged picture is the same
    # detection frame after frame, and a misread repeated for a hundred frames is still one.
    if (det.streak_mm == 0.0 and det.score > setting.params.clean_score_share
            and is_resting(setting, s) and det is not s.looked):
        s.pair += is_pair(setting, det)
        s.single += is_single(setting, det)
        s.looked = det


def inside_the_streak(setting: Setting, s: BallState, det: Detection) -> bool:
    """The place of a ball at rest or nearly (slower than a struck ball) lies well inside
    the streak ``det`` (on its line within half a ball, a diameter or more from both its
    ends): the ball and a line on the cloth through it, read as one streak
    (a resting white and a line projected through it, a 410 mm "streak" whose middle lay
    16-40 px off the ball: the white, nudged by a sighting 9 px off, then took it). A ball
    struck from its place smears from there: its
    place is at the streak's end."""
    ux, uy = det.streak_dir
    if (not det.streak_mm or not (ux or uy) or s.status != "table"
            or math.hypot(s.vx, s.vy) >= setting.params.struck_diameters_per_frame * setting.d):
        return False
    along, across = along_across(det, s.x, s.y)
    return (abs(across) <= setting.params.on_line_diameters * setting.d
            and abs(along) <= 0.5 * det.streak_mm - setting.d)


def creeping(setting: Setting, s: BallState, det: Detection, frame: int) -> bool:
    """A resting ball's doubtful sighting that is no jitter: a clean one, the last frame's
    was kept as jitter (see :func:`observe`), and this one is further off its place, the same
    way (within same_way_deg), by a steady step: the ball rolls off slowly (kissed, or
    pushed by a ball beside it), and held in place it would be lost a few frames on."""
    if s.held is None or s.held[0] != frame - 1 or det.score < setting.params.clean_score_share:
        return False  # (a part of a ball, under the cue, drifts as the cue comes)
    before = (s.held[1] - s.x, s.held[2] - s.y)
    now = (det.x_mm - s.x, det.y_mm - s.y)
    return (math.hypot(*now) - math.hypot(*before) >= setting.params.creep_step_mm
            and same_way(now, before, setting.params))


def alone(setting: Setting, s: BallState, balls: Iterable[BallState]) -> bool:
    """No other ball of ``balls`` on the table (seen or hidden) within alone_diameters of
    ``s``."""
    return all(o is s or o.status not in ("table", "hidden")
               or math.hypot(o.x - s.x, o.y - s.y) >= setting.params.alone_diameters * setting.d
               for o in balls)
