"""Signs that a ball left its place this way: what a ball found beyond its gate may be (a
ball struck from rest, or rolling unseen, jumps further than its gate). Its own streak,
the way it rolled, away from the cue behind it, led by the front of its own smear, a row of
pieces pointing back at it, the way a collision or the cue sent it while unseen. The second
chance of the association (see :mod:`vision.tracking.association`) gives a ball only a
detection one of these says is it."""

from __future__ import annotations

import math

from vision.detection import Detection
from vision.tracking.geometry import along_across, rows_from, same_way
from vision.tracking.motion import is_resting
from vision.tracking.state import CLASS_OF, BallState, Setting


def ball_streak(setting: Setting, s: BallState, det: Detection, frame: int) -> bool:
    """This ball's motion-blur streak: longer than half a ball and somewhat ball-like (a
    fast ball's streak scores 0.5-0.8; a piece of an arm or a sleeve smeared as it moves, a
    tenth or two), and, for a ball that lay still (at rest, or hidden there), smeared along
    a line through its place, within a diameter (a ball struck from its place goes along
    it; an arm smeared across the ball's place goes anywhere). For a rolling ball, a line
    through its way since it was last seen (hit somewhere on it, it went straight on from
    there: a white, merged a moment with the red it had hit, gave its id to a smear of the
    cue 600 mm off whose line missed its way)."""
    if not ball_like_streak(setting, det):
        return False
    ux, uy = det.streak_dir
    if not (ux or uy):
        return True
    off = along_across(det, s.x, s.y)[1]
    if s.status == "hidden" or is_resting(setting, s):
        return abs(off) <= setting.d
    # rolling: the streak's line is off the way's start by ``off`` and its end by
    # ``off_there`` (signed): near either, or between them
    gap = max(1, frame - s.last_seen)
    off_there = off - (s.vx * gap) * uy + (s.vy * gap) * ux
    return min(abs(off), abs(off_there)) <= setting.d or (off > 0) != (off_there > 0)


def ball_like_streak(setting: Setting, det: Detection) -> bool:
    """A streak longer than half a ball and as ball-like as a fast ball's may be (see
    :func:`ball_streak`)."""
    return (det.streak_mm > setting.params.streak_least_diameters * setting.d
            and det.score >= setting.params.streak_score_share)


def left_along_its_streak(setting: Setting, s: BallState, det: Detection) -> bool:
    """The ball was held in its place in its last frame on a ball-like streak of its own colour
    (read as a part of it seen, see :func:`vision.tracking.observe.observe`): that was its smear
    as it was struck, and a sighting further on along the streak's line (within a diameter of it,
    on the streak's side of the place) is the ball gone on (with the detector's halo-aware split,
    a red struck by the yellow, smeared from its place with the smear's middle 12 mm off it, was
    held there, and lost for three frames as it ran into a corner pocket)."""
    took = s.took
    if (s.held is None or took is None or s.held[0] != s.last_seen
            or took.colour != CLASS_OF[s.ball] or not ball_like_streak(setting, took)):
        return False
    ux, uy = took.streak_dir
    if not (ux or uy):
        return False
    to_det = (det.x_mm - s.x, det.y_mm - s.y)
    to_smear = (took.x_mm - s.x, took.y_mm - s.y)
    across = along_across(took, det.x_mm, det.y_mm)[1]
    return (abs(across) <= setting.d and to_det[0] * to_smear[0] + to_det[1] * to_smear[1] > 0
            and math.hypot(*to_det) > math.hypot(*to_smear))


def ahead(setting: Setting, s: BallState, det: Detection) -> bool:
    """The detection lies on the way of a ball that has just left its rest (its speed not yet
    known): the direction to it is the ball's velocity's (see same_way_deg)."""
    if (s.status != "table" or is_resting(setting, s)
            or s.last_seen - s.left_rest > setting.params.just_left_frames):
        return False
    return same_way((det.x_mm - s.x, det.y_mm - s.y), (s.vx, s.vy), setting.params)


def cue_behind(setting: Setting, s: BallState, things: list[Detection]
               ) -> tuple[float, float] | None:
    """For a ball at rest: something no ball took (the cue, its tip) within cue_diameters of
    it in the last frame (of ``things``), if any; of several, the one with the most things the
    same way, near or further along (the cue is long)."""
    if not is_resting(setting, s):
        return None
    around = [nearest_end(setting, s, u) for u in things if not front_piece(setting, s, u)]
    near = [v for v in around if 0 < math.hypot(*v) < setting.params.cue_diameters * setting.d]
    if not near:
        return None
    # the cue is long: of things on several sides (a piece of the ball's own streak, a
    # hand), the one with the most others the same way (within same_way_deg), near or
    # further along the cue (its butt, the player's arm)
    reach = setting.params.cue_diameters * setting.d

    def votes(a: tuple[float, float]) -> tuple[int, float]:
        # (one thing: what lies that way beyond a cue's reach past it is not its cue; of as
        # many votes, the nearer, the tip)
        far = math.hypot(*a) + reach
        return (sum(same_way(a, b, setting.params) and math.hypot(*b) <= far for b in around),
                -math.hypot(*a))

    best = max(near, key=votes)
    return s.x + best[0], s.y + best[1]


def nearest_end(setting: Setting, s: BallState, u: Detection) -> tuple[float, float]:
    """Where ``u`` lies from the ball: its middle; for a long thing aimed at the ball (its
    axis within same_way_deg of the line to the ball: the cue, or the bridge hand and forearm
    along it), its end nearer the ball, but no nearer than half a ball on its own side (a
    thing that reaches over the ball still lies on the side its middle does)."""
    dx, dy = u.x_mm - s.x, u.y_mm - s.y
    ux, uy = u.streak_dir
    if u.streak_mm and (same_way((dx, dy), (ux, uy), setting.params)
                        or same_way((dx, dy), (-ux, -uy), setting.params)):
        along = dx * ux + dy * uy
        shift = max(0.0, min(0.5 * u.streak_mm, abs(along) - 0.5 * setting.d))
        step = -shift if along > 0 else shift
        return dx + step * ux, dy + step * uy
    return dx, dy


def front_piece(setting: Setting, s: BallState, u: Detection) -> bool:
    """``u``, left unclaimed in the last frame, is the front of this resting ball's own
    streak as it is struck (the ball smeared over the frame in two pieces): of its colour,
    ball-like, and touching it (the cue's tip is thin, the cue a long pale thing, neither
    a disc)."""
    return (is_resting(setting, s) and u.colour == CLASS_OF[s.ball]
            and u.score >= setting.params.pick_up_score_share
            and math.hypot(u.x_mm - s.x, u.y_mm - s.y)
            < setting.params.front_piece_diameters * setting.d)


def led_by_its_front(setting: Setting, s: BallState, det: Detection,
                     unclaimed: list[Detection]) -> bool:
    """The detection lies the way this resting ball's own streak pointed in the last frame
    (see :func:`front_piece`): the ball, struck that way."""
    return any(front_piece(setting, s, u) and same_way(
        (det.x_mm - s.x, det.y_mm - s.y), (u.x_mm - s.x, u.y_mm - s.y), setting.params)
        for u in unclaimed)


def away_from_the_cue(setting: Setting, s: BallState, det: Detection,
                      unclaimed: list[Detection]) -> bool:
    """A ball at rest with the cue's tip behind it (see :func:`cue_behind`), and the
    detection the other way from the ball (within same_way_deg): the ball, struck away. Not
    a faint sharp thing (no streak, no piece of one): a ball struck hard enough to be found
    that far is smeared or whole, and a faint spot the way the cue points is a mark on that
    line (the rings of an aiming line projected on the cloth, beyond the ball)."""
    if det.score < setting.params.init_score_share and not (det.streak_mm or det.piece):
        return False
    cue = cue_behind(setting, s, unclaimed)
    return cue is not None and same_way(
        (det.x_mm - s.x, det.y_mm - s.y), (s.x - cue[0], s.y - cue[1]), setting.params)


def in_a_row_from(setting: Setting, s: BallState, det: Detection, free: list[Detection],
                  unclaimed: list[Detection]) -> bool:
    """``det`` and another free detection of its colour a step apart (the pieces of a
    streak, see streak_step_diameters) lie in a row that points back at where the ball was
    last seen, ``det`` the nearer: the ball, struck too fast to be seen whole (at rest, or
    just set moving by the cue's touch). Not toward the cue behind a resting ball (a pale
    cue's pieces lie in a row pointing at it)."""
    if det.colour not in (CLASS_OF[s.ball], "other"):
        # another ball's colour (mixed with the cloth or not): this ball's streak is its
        # own colour mixed with the cloth (the pale cue's pieces read as white)
        return False
    cue = cue_behind(setting, s, unclaimed)
    bx, by = s.x - det.x_mm, s.y - det.y_mm  # the ball's place, seen from det
    if cue is not None and bx * (cue[0] - s.x) + by * (cue[1] - s.y) < 0:
        return False  # det lies on the cue's side
    return any(along < 0 and across < setting.params.on_line_diameters * setting.d
               for along, across in rows_from(
                   det, free, s.x, s.y, 0.0, setting.params.streak_step_diameters * setting.d))


def sent_toward(setting: Setting, s: BallState, det: Detection, frame: int) -> bool:
    """The detection lies the way this ball was sent from its rest while unseen (by a
    collision, or by the cue too fast to be seen) within the last sent_frames, no further
    than the hardest shot goes in that time."""
    if s.sent is None or frame - s.sent[0] > setting.params.sent_frames:
        return False
    dx, dy = det.x_mm - s.x, det.y_mm - s.y
    return math.hypot(dx, dy) <= setting.params.hardest_shot_diameters_per_frame * setting.d * (
        frame - s.last_seen) and same_way((dx, dy), s.sent[1:], setting.params)


def swept_by(setting: Setting, s: BallState, free: list[Detection], frame: int,
             unfound: list[BallState]) -> tuple[float, float] | None:
    """For a ball at rest not seen this frame: the way it was sent by a ball whose streak (of
    ``free``, what no ball took) runs against it, its line within swept_diameters of its
    centre along the streak; else None. The hitter is a ball of the streak's colour not seen
    this frame (of ``unfound``) within the hardest shot's reach of it: it came from there, so
    the streak runs that way, and the ball struck leaves along the line of centres at the
    contact (a red under a white struck at 14 m/s was sent off unseen, its cut toward the
    cushion found only by looking that way)."""
    d = setting.d
    for det in free:
        if det.colour == CLASS_OF[s.ball] or not ball_like_streak(setting, det):
            continue
        ux, uy = det.streak_dir
        along, across = along_across(det, s.x, s.y)
        c = -across  # (the ball's side of the streak's line, signed)
        if abs(along) > 0.5 * det.streak_mm or abs(c) > setting.params.swept_diameters * d:
            continue
        hitters = [t for t in unfound if t is not s and CLASS_OF[t.ball] == det.colour
                   and math.hypot(det.x_mm - t.x, det.y_mm - t.y)
                   <= setting.params.hardest_shot_diameters_per_frame * d * (frame - t.last_seen)]
        if not hitters:
            continue
        t = min(hitters, key=lambda q: math.hypot(det.x_mm - q.x, det.y_mm - q.y))
        if (det.x_mm - t.x) * ux + (det.y_mm - t.y) * uy < 0:  # it runs from the hitter on
            ux, uy, c = -ux, -uy, -c
        c = max(-d, min(d, c))
        head_on = math.sqrt(d * d - c * c)
        return head_on * ux + c * uy, head_on * uy - c * ux
    return None
