"""Association vetoes: why a detection is not this ball, whatever it would cost. Each is a
rule learned from a picture where a ball's id went to something else (the cue, a hand, a
mark on the cloth, the hitter, a thing that lay there already); the association asks them
before a ball may take a detection (see :mod:`vision.tracking.association`)."""

from __future__ import annotations

import math

from vision.detection import Detection
from vision.shots import REST_JITTER_DIAMETERS, nearest_cushion
from vision.tracking.departure import sent_toward
from vision.tracking.geometry import either_way, rows_from, same_way
from vision.tracking.leftovers import Leftovers
from vision.tracking.motion import in_a_mouth, is_resting, predicted, still, stop_reach
from vision.tracking.state import CLASS_OF, BallState, Setting


def far_from_last(setting: Setting, s: BallState, det: Detection) -> bool:
    """The detection lies beyond :func:`stop_reach` of where the ball was last seen."""
    return math.hypot(det.x_mm - s.x, det.y_mm - s.y) > stop_reach(setting, s)


def was_something_else(setting: Setting, s: BallState, det: Detection, leftovers: Leftovers,
                       frames_on: int) -> bool:
    """The detection, well away from where the ball was last seen, is where something that
    was no ball lay in the last frame (the cue's tip, a hand): that thing, not the ball.
    A piece left there counts too: a ball's own piece moves on with it, a thing that stays
    put is no ball that has left its place (the bridge hand, a red piece 240 mm behind a
    struck white, was taken for it).

    Not a whole ball of its colour while the ball's own last sighting was faint: its place
    is in doubt, and the thing left may have been the ball's own piece (a projected ring
    split a white's picture, its id took a piece of the ring, and then the ring for
    fourteen frames while the whole white, where its own piece had been left, was
    barred)."""
    if math.hypot(det.x_mm - s.x, det.y_mm - s.y) <= setting.d:
        return False
    if (s.faint_looks and det.score >= setting.params.clean_score_share
            and det.colour == CLASS_OF[s.ball]):
        return False
    return any(math.hypot(det.x_mm - u.x_mm, det.y_mm - u.y_mm)
               < setting.params.same_place_diameters * setting.d
               and not its_front(setting, s, u, det, frames_on) for u in leftovers.left_over)


def its_front(setting: Setting, s: BallState, u: Detection, det: Detection,
              frames_on: int) -> bool:
    """``u``, left unclaimed when the ball was last seen, lay just ahead of it on its way
    (within a frame's roll, the way it rolled within same_way_deg) and was of its colour,
    ball-like: the front of its own streak; ``det`` lies where it lay (within a quarter
    ball): the ball, stopped there on a ball it hit (a struck white's id took its streak's
    tail by the red it hit, and the white, come to rest where the streak's front had been,
    was barred for three frames as a thing left there). (Not one rolling
    on, whose tail now lies by where its front was: its front lies further on.)"""
    if (still(setting, s) or u.colour != CLASS_OF[s.ball]
            or u.score < setting.params.init_score_share
            or math.hypot(det.x_mm - u.x_mm, det.y_mm - u.y_mm)
            > setting.params.front_place_diameters * setting.d):
        return False
    dx, dy = u.x_mm - s.x, u.y_mm - s.y
    return (math.hypot(dx, dy) <= math.hypot(s.vx, s.vy) * frames_on + setting.d
            and same_way((dx, dy), (s.vx, s.vy), setting.params))


def ruled_out(setting: Setting, s: BallState, det: Detection, dets: list[Detection], frame: int,
              leftovers: Leftovers, off: float | None = None) -> bool:
    """Not this ball, whatever the cost: a faint thing known not to be a ball, off where the
    ball is expected (``off`` mm from there, see :func:`a_known_thing`); for a ball struck
    while unseen, a thing on the cue's side of its place, or a faint one while a ball-like
    one of its colour lies the way it went (``dets``: the detections it may take); for a ball
    still in its place, a piece of another ball's blur passing by (see :func:`passing_by`)."""
    return (a_known_thing(setting, s, det, frame, leftovers, off)
            or against_sent(setting, s, det, frame) or sent_past(setting, s, det, dets, frame)
            or passing_by(setting, s, det, dets, frame))


def passing_by(setting: Setting, s: BallState, det: Detection, dets: list[Detection],
               frame: int) -> bool:
    """For a ball seen still in its place in the frame before: ``det``, off its place and not a
    whole ball (less ball-like than clean_score_share), is a piece of a blurred ball passing by,
    not this ball leaving. It lies in a row with another detection of its colour (a streak's
    pieces, no further apart than passing_row_diameters) whose line
    passes beside the place by more than on_line_diameters; a ball leaving its place leaves its
    pieces on a line through it (a cue ball struck at 17.5 m/s, unseen four frames, hit the
    other white, resting by a cushion, and ran on past it: the nearer of its pieces, 100 mm off
    the resting white's place, took that white's id, and the white's own pieces, on a line
    through its place, 130 mm off, went to the cue ball). A struck ball seen whole beside the
    cue's tip is no piece; one unseen for frames may have hit another ball since, and turned."""
    if det.score >= setting.params.clean_score_share or frame - s.last_seen != 1:
        return False
    if not still(setting, s) or s.status not in ("table", "hidden"):
        return False
    if math.hypot(s.x - det.x_mm, s.y - det.y_mm) < REST_JITTER_DIAMETERS * setting.d:
        return False
    d = setting.d
    return any(across > setting.params.on_line_diameters * d for _, across in rows_from(
        det, dets, s.x, s.y, d, setting.params.passing_row_diameters * d))


def behind_it(setting: Setting, s: BallState, det: Detection, frame: int) -> bool:
    """A faint sighting (less ball-like than init_score_share, no streak) behind a rolling
    ball's last place, against the way it rolled: not the ball, which slows but does not come
    back unless something hits it (the caller asks that) or a cushion sends it back (so not
    within the reach of a cushion's nose at twice its speed). Behind by over its jitter
    (REST_JITTER_DIAMETERS) for a ball rolling at least slowest_roll_diameters_per_frame a
    frame;
    for a slower one (creeping under a hand, its sightings wandering) only over half a ball
    behind and a diameter away. A white rolling on unseen over a projected ring took a
    faint piece of a projected line 1.8 diameters beside its way and half a ball behind its
    last place, and followed the lines for twenty frames; a struck white rolling at 0.2
    diameters a frame took the cue following through 0.4-0.65 diameters behind it, and then
    the cue's pieces for fifteen to thirty frames."""
    if (s.status != "table" or det.score >= setting.params.init_score_share or det.streak_mm
            or is_resting(setting, s)):
        return False
    speed = math.hypot(s.vx, s.vy)
    if speed <= 0.0:
        return False
    to_nose = nearest_cushion(setting.table, (s.x, s.y))[1]
    reach = setting.params.cushion_reach_ratio * speed * max(1, frame - s.last_seen)
    if to_nose <= reach + setting.d:
        return False
    dx, dy = det.x_mm - s.x, det.y_mm - s.y
    behind = -(dx * s.vx + dy * s.vy) / speed
    if speed >= setting.params.slowest_roll_diameters_per_frame * setting.d:
        return behind > REST_JITTER_DIAMETERS * setting.d
    return (behind > setting.params.slow_behind_diameters * setting.d
            and math.hypot(dx, dy) > setting.d)


def a_known_thing(setting: Setting, s: BallState, det: Detection, frame: int,
                  leftovers: Leftovers, off: float | None = None) -> bool:
    """A faint sighting off where the ball is expected (``off`` mm from there; by default
    from its place, or where its motion takes it) that is a thing known not to be a ball:
    one seen beside it (:func:`was_beside_it`) or a fixture (see fixture_looks). Expected
    at rest: within piece_off_diameters (its own pieces); rolling, within a diameter (a
    ball rolling over a mark on the cloth is seen as faint as the mark)."""
    if det.score >= setting.params.init_score_share:
        return False
    lying = is_resting(setting, s) or (s.status == "hidden" and not s.hidden_rolling)
    if off is None:
        px, py = (predicted(setting, s, max(1, frame - s.last_seen))[:2]
                  if s.status == "table" else (s.x, s.y))
        off = math.hypot(det.x_mm - px, det.y_mm - py)
    if off <= (setting.params.piece_off_diameters if lying
                else setting.params.rolling_off_diameters) * setting.d:
        return False
    return (lying and was_beside_it(setting, s, det)) or leftovers.at_a_fixture(det, frame)


def was_beside_it(setting: Setting, s: BallState, det: Detection) -> bool:
    """The detection lies where something lay beside the ball when it was last seen: for
    a faint sighting of a ball that lay still, off its place (see :func:`a_known_thing`),
    that thing, the cue's tip at address, not the ball (a cue ball struck and blurred out
    of sight gave its id to the tip a diameter behind it, which then went away with the
    cue). Unlike :func:`was_something_else` this holds however
    near: the thing was seen beside the ball, not in its place."""
    return any(math.hypot(det.x_mm - u.x_mm, det.y_mm - u.y_mm)
               < setting.params.same_place_diameters * setting.d
               for u in s.beside)


def against_sent(setting: Setting, s: BallState, det: Detection, frame: int) -> bool:
    """The detection lies off the ball's place (beyond its own pieces) on the side opposite
    to where it was sent from its rest while unseen (see :func:`sent_toward`): the cue
    that struck it, not the ball (a struck cue ball, blurred out of sight, gave its id to
    the cue's tip over its place, then walked off on faint things). Only for a ball last
    seen looking like one: of one last seen as a faint thing (a phantom on a player's
    shoulder), where it was sent is no knowledge. Nor for one lost from view while rolling
    (sent the way it went): off a cushion it comes back past where it was last seen."""
    if (s.sent is None or s.faint_looks or s.hidden_rolling
            or frame - s.sent[0] > setting.params.sent_frames):
        return False
    dx, dy = det.x_mm - s.x, det.y_mm - s.y
    return (math.hypot(dx, dy) > setting.params.piece_off_diameters * setting.d
            and dx * s.sent[1] + dy * s.sent[2] < 0)


def sent_past(setting: Setting, s: BallState, det: Detection, dets: list[Detection],
              frame: int) -> bool:
    """A faint detection, while one that looks like a ball (at least init_score_share) of this
    ball's colour lies the way it was sent (see :func:`sent_toward`): the ball is that one,
    struck past the faint thing, a piece of the cue following through (a struck cue ball
    blurred out of sight, see :func:`against_sent`)."""
    return (det.score < setting.params.init_score_share and s.sent is not None and any(
        o.colour == CLASS_OF[s.ball] and o.score >= setting.params.init_score_share
        and sent_toward(setting, s, o, frame) for o in dets))


def faint_other(setting: Setting, s: BallState, det: Detection) -> bool:
    """A sharp, not ball-like detection of another colour than this ball's: a piece of the
    cue or a hand (a ball struck from its place is a streak, or a piece of one)."""
    return det.colour != CLASS_OF[s.ball] and not (
        det.streak_mm or det.piece or det.score >= setting.params.init_score_share)


def sharp_leap(setting: Setting, s: BallState, det: Detection, frame: int, dist: float,
               frames_on: int) -> bool:
    """A ball seen whole at rest in the last picture is not a sharp, faint detection over a
    diameter away now: to get there it rolled faster than a ball shows sharp (it would be
    a streak), and a ball only seen in part is where it lay. It is the cue or the bridge
    hand over its place (a struck white took the hand 1.9 diameters off, and was held
    there while the ball itself crossed the table)."""
    took = s.took
    return (is_resting(setting, s) and s.visible and s.last_seen == frame - frames_on
            and took is not None and took.score >= setting.params.clean_score_share
            and not (det.streak_mm or det.piece) and det.score < setting.params.init_score_share
            and dist > setting.d)


def may_be_of_another_colour(setting: Setting, s: BallState, det: Detection, *,
                             any_other: bool) -> bool:
    """A detection not of this ball's colour may still be it when its colour is doubtful: a
    streak drawn along its way to it (see :func:`drawn_from`), a piece, a colour not sure
    (and, with ``any_other``, one of no ball's colour). A ball dropping in a pocket's mouth
    takes only a streak (see :func:`in_a_mouth`)."""
    if det.streak_mm and not drawn_from(setting, s, det):
        return False
    if in_a_mouth(setting, s) and not det.streak_mm:
        return False
    return bool(det.streak_mm or det.piece or not det.colour_sure
                or (any_other and det.colour == "other"))


def drawn_from(setting: Setting, s: BallState, det: Detection) -> bool:
    """The streak ``det`` is drawn along the way from where ``s`` was last seen to it (either
    sense, within same_way_deg): the blur of that very motion. A ball rolling leaves its blur
    along its way, and one struck from its place along the line through it; a thing that lies
    where the ball was, or beside its way, smeared across it, is not its motion (a red
    potted in a corner, its id then on the hole's rim, read as a 110 mm streak across its way,
    in one place frame after frame)."""
    way = (det.x_mm - s.x, det.y_mm - s.y)
    return bool(way[0] or way[1]) and either_way(det.streak_dir, way, setting.params)


def beside_the_cue_ball_unseen(setting: Setting, s: BallState, det: Detection,
                               may_strike: bool) -> bool:
    """``s`` is the cue ball (``may_strike``: one the cue may strike), not yet seen in the video
    (named from the game state and the first frames' picture of its place), and ``det`` a faint
    thing (no streak, less ball-like than clean_score_share) beyond jitter from that place:
    before the strike, the cue's tip or ferrule beside it, not the ball (a white unseen for its
    first 4 frames, its outline joined to the cue's tip: the ferrule, 0.44 ball-like and 0.9
    diameters off, took its id, which went off with the cue, and the ball seen again in its place
    was then picked up for the white in hand). A cue ball seen before keeps the usual rules: a
    struck white leaving its place is often faint."""
    return (may_strike and s.took is None and s.start_place is not None
            and det.score < setting.params.clean_score_share and not det.streak_mm
            and math.dist((det.x_mm, det.y_mm), s.start_place)
            > REST_JITTER_DIAMETERS * setting.d)


def toward(s: BallState, hitter: BallState | None, det: Detection) -> bool:
    """A resting ball seen a little off its place toward a ball rolling up to it: its
    picture merges with the other's (a hit ball leaves away from the hitter), so the
    detection is doubtful."""
    if hitter is None:
        return False
    dx, dy = det.x_mm - s.x, det.y_mm - s.y
    return dx * (hitter.x - s.x) + dy * (hitter.y - s.y) > 0


def against_hit(setting: Setting, s: BallState, hitter: BallState | None, det: Detection,
                sender: BallState | None = None) -> bool:
    """A ball at rest that is hit leaves along the line of centres, away from the hitter:
    a detection well off its place towards the hitter (or towards where the ``sender``, a
    ball sent at it unseen, was last seen) is the hitter itself (which stopped or slowed at
    the contact), not this ball."""
    far = math.hypot(det.x_mm - s.x, det.y_mm - s.y) >= REST_JITTER_DIAMETERS * setting.d
    return far and (toward(s, hitter, det) or toward(s, sender, det))
