"""Balls found again: a ball that never left the place it seemed to leave (back to rest),
one whose id was left on a faint thing while its clean sighting lies near (clean over
faint), the cue ball whose streak leaves the place where its id was held (struck away), and
a ball lost from view found rolling in a row of free sightings (picked up moving)."""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from vision.detection import Detection
from vision.shots import REST_JITTER_DIAMETERS
from vision.tracking.departure import ball_like_streak
from vision.tracking.geometry import along_across, likeness_along, same_way
from vision.tracking.motion import stop_reach
from vision.tracking.observe import observe
from vision.tracking.state import BALLS, CLASS_OF, BallState, Setting
from vision.tracking.vetoes import against_sent


def rows_due(setting: Setting, frame: int, steps: list[tuple[int, list[Detection]]],
             frames_on: int) -> bool:
    """``steps`` (what no ball took in the frames before, oldest first) are enough frames for a
    rolling row (moving_chain_frames with ``frame``), in a row ``frames_on`` apart (every
    other one when a repeated picture was left out between them)."""
    return len(steps) >= setting.params.moving_chain_frames - 1 and all(
        f == frame - (len(steps) - k) * frames_on for k, (f, _) in enumerate(steps))


def back_to_rest(setting: Setting, frame: int, active: list[BallState], free: list[Detection]
                 ) -> list[Detection]:
    """A ball that left its place of rest a moment ago following faint things (the pieces
    of an arm or of the cue that came down over it and hid it), now not seen clean anywhere
    else, while a clean ball of its colour lies on that place that no ball took: that is
    the ball, which never left. Returns the detections still free."""
    for s in active:
        place = s.rest_place
        if (place is None or frame - s.left_rest > setting.params.return_s * setting.fps
                or s.status not in ("table", "hidden")):
            continue
        if (s.last_seen == frame and s.took is not None
                and s.took.score >= setting.params.clean_score_share):
            continue  # seen clean where it went
        back = [d for d in free if d.colour == CLASS_OF[s.ball] and not d.streak_mm
                and not d.piece and d.score >= setting.params.clean_score_share and math.hypot(
                    d.x_mm - place[0], d.y_mm - place[1])
                < REST_JITTER_DIAMETERS * setting.d]
        if not back:
            continue
        det = min(back, key=lambda d: math.hypot(d.x_mm - place[0], d.y_mm - place[1]))
        s.x, s.y, s.vx, s.vy = det.x_mm, det.y_mm, 0.0, 0.0
        s.status, s.visible, s.last_seen, s.took = "table", True, frame, det
        s.rest_place, s.left_rest, s.sent, s.held = None, -1_000_000, None, None
        free = [d for d in free if d is not det]
    return free


def clean_over_faint(setting: Setting, active: list[BallState], dets: list[Detection],
                     taken: dict[int, int], balls: list[BallState]) -> None:
    """Change ``taken`` (ball index -> detection index): a ball on the table whose last
    sighting was faint (less ball-like than init_score_share) and that takes a faint thing again
    takes instead a clean sighting of its colour (clean_score_share, whole: no streak, no piece)
    that no ball takes, within its stop reach, if no other ball of its colour (on the table
    or hidden) is as near to it: its picture was merged with something, or it went under a
    hand, and its id was left on what it merged with. A white rolling slowly past the ghost
    of its own shadow in the first frame (the cloth model learned it there; a faint white
    thing once the ball left) was read as one streak with it for four frames and then took
    the ghost, 0.3-0.5 ball-like, for eighty frames while the ball itself, 0.73-0.90 and
    80 mm away, had no id."""
    def gap(d: Detection, b: BallState) -> float:
        return math.hypot(d.x_mm - b.x, d.y_mm - b.y)

    used = set(taken.values())
    for i, j in list(taken.items()):
        s, det = active[i], dets[j]
        if (s.status != "table" or not s.faint_looks
                or det.score >= setting.params.init_score_share):
            continue
        colour = CLASS_OF[s.ball]
        clean = [k for k, d in enumerate(dets) if k not in used and d.colour == colour
                 and not d.streak_mm and not d.piece
                 and d.score >= setting.params.clean_score_share
                 and gap(d, s) <= stop_reach(setting, s)
                 and not any(o is not s and CLASS_OF[o.ball] == colour
                             and o.status in ("table", "hidden") and gap(d, o) <= gap(d, s)
                             for o in balls)]
        if clean:
            k = min(clean, key=lambda k: gap(dets[k], s))
            taken[i] = k
            used.discard(j)
            used.add(k)


def struck_away(setting: Setting, active: list[BallState], dets: list[Detection], used: set[int],
                frame: int, cue_balls: frozenset[str], balls: Iterable[BallState]) -> None:
    """A ball seen since its last clean look only faintly or not at all, and held about
    that place (the cue and the bridge hand over it: their pieces lie where it lay, and
    may hold its id, moving it a little) is the one whose streak now leaves the place: an
    unclaimed streak of its colour, ball-like as a streak (see :func:`ball_streak`),
    smeared along a line through the place (within a diameter), all of it further from
    the place than the ball may be found unseen on its way (:func:`stop_reach`: not a
    piece of a projected line by it, nor a smear of the cue across it), and within the
    hardest shot's reach since that look. The ball moves there; what it held is left
    (a struck white rolled the table's length as a faint streak, filmed at 15 fps, while
    its id stayed on the bridge hand). Only the cue ball: an object ball is struck by a
    ball, which is seen (a yellow under the player's arm took a yellow smear 12 diameters
    off). Not one on the cue's side of where the ball was sent unseen (see
    :func:`~vision.tracking.vetoes.against_sent`): a pale cue is a streak aimed through the
    ball's place (a white struck at 17 m/s, unseen for 13 frames, took the cue 320 mm behind
    its place). ``cue_balls``: the balls that may be the cue ball; ``balls``: every track."""
    for s in active:
        if (s.clean_place is None or s.hidden_rolling or s.ball not in cue_balls
                or s.status not in ("table", "hidden")
                or (s.status == "table" and not s.faint_looks)):
            continue
        px, py = s.clean_place
        reach = setting.params.hardest_shot_diameters_per_frame * setting.d * (frame - s.clean_seen)
        near = stop_reach(setting, s)
        if math.hypot(s.x - px, s.y - py) > near:
            continue  # its faint sightings led it away: not held about its place
        best, best_dist = None, math.inf
        for j, det in enumerate(dets):
            if (j in used or det.piece or det.colour != CLASS_OF[s.ball]
                    or not ball_like_streak(setting, det) or against_sent(setting, s, det, frame)):
                continue
            along, across = along_across(det, px, py)
            dist = math.hypot(det.x_mm - px, det.y_mm - py)
            if (abs(across) <= setting.d and abs(along) - 0.5 * det.streak_mm > near
                    and dist <= reach and dist < best_dist):
                best, best_dist = j, dist
        if best is None:
            continue
        if s.last_seen == frame:  # what it held this frame is free again
            used.difference_update(j for j, d in enumerate(dets) if d is s.took)
        # (seen from its place, when it was last seen clean: the jump's velocity is the way
        # from there)
        s.x, s.y, s.vx, s.vy = px, py, 0.0, 0.0
        s.status, s.last_seen = "table", s.clean_seen
        observe(setting, s, dets[best], frame, balls, jump=True)
        used.add(best)


def pick_up_moving(setting: Setting, frame: int, free: list[Detection],
                   steps: list[tuple[int, list[Detection]]], frames_on: int,
                   states: dict[str, BallState], off_limits: set[str], state_known: bool
                   ) -> list[Detection]:
    """A ball lost from view (hidden, or lost after that) is the one rolling where nothing
    is tracked: an unclaimed detection of its colour that ends a row of moving_chain_frames
    sightings in as many frames, each a step on from the last at a steady speed (no resting
    thing, no hand: a hand does not roll straight), ball-like on the whole. A ball struck
    too hard to be followed across its first frames (12 m/s, gone from its place into a
    blur and a collision) is found again this way.

    ``steps``: what no ball took in each of the frames before, a row of frames
    ``frames_on`` apart (see :func:`rows_due`); ``states``: the tracks (a ball never seen
    and found so is added); ``off_limits``: balls not to be found so (whites in hand; before
    the strike, the balls it may not be); ``state_known``: a game state says where every ball
    is (else a ball never seen may be found). Returns the detections left free."""
    on = frames_on
    left = list(free)
    for det in free:
        cls = det.colour
        ids = [b for b in BALLS if CLASS_OF[b] == cls and b in states
               and states[b].status in ("hidden", "lost") and b not in off_limits]
        if not ids and not state_known:
            # never seen yet (no game state says where it is): a ball the first frames
            # missed under the cue's tip or a hand, found once it rolls
            ids = [b for b in BALLS if CLASS_OF[b] == cls and b not in states]
            never = True
        else:
            never = False
        if not ids or det.piece:
            continue
        row = rolling_row(setting, det, [ds for _, ds in reversed(steps)], frames_on)
        if row is None or (never and not all(o.colour_sure for o in row)) or pieces_along(
                setting, row, free):
            # (a ball never seen is named only from sightings sure of their colour: a
            # white's warm blur reads as a red mixed with the cloth)
            continue
        ids = [b for b in ids if never
               or not following_through(setting, states[b], row, frame)]
        if not ids:
            continue
        start = row[-1]
        if never:
            s = states[ids[0]] = BallState(ids[0], det.x_mm, det.y_mm, last_seen=frame)
        else:
            s = min((states[b] for b in ids),
                    key=lambda q: math.hypot(q.x - start.x_mm, q.y - start.y_mm))
        s.x, s.y = det.x_mm, det.y_mm
        s.vx, s.vy = (det.x_mm - row[1].x_mm) / on, (det.y_mm - row[1].y_mm) / on
        s.status, s.visible, s.last_seen, s.sent = "table", True, frame, None
        s.faint_looks, s.clean_place = 0, (det.x_mm, det.y_mm)  # (found here: faint_s)
        s.clean_seen = frame
        left.remove(det)
    return left


def pieces_along(setting: Setting, row: list[Detection], now: list[Detection]) -> bool:
    """Two or more other things of the row's colour lie now on the way it came (within
    on_line_diameters of its line, from a diameter behind its newest sighting back to its oldest): a
    row along a reddish cue's pieces (the cue following through moves them along it, frame
    by frame, like a red's steady steps), not a ball rolling, which leaves its way empty."""
    newest, oldest = row[0], row[-1]
    way = (newest.x_mm - oldest.x_mm, newest.y_mm - oldest.y_mm)
    span = math.hypot(*way)
    if span <= 0.0:
        return False
    ux, uy = way[0] / span, way[1] / span
    lying = 0
    for o in now:
        if o is newest or o.colour != newest.colour:
            continue
        dx, dy = newest.x_mm - o.x_mm, newest.y_mm - o.y_mm
        behind, across = dx * ux + dy * uy, abs(dx * uy - dy * ux)
        if (across <= setting.params.on_line_diameters * setting.d
                and setting.d <= behind <= span + setting.d):
            lying += 1
    return lying >= 2


def rolling_row(setting: Setting, det: Detection, before: list[list[Detection]],
                frames_on: int) -> list[Detection] | None:
    """``det`` and one detection of its colour from each earlier frame (``before``, the
    last frame first, ``frames_on`` frames apart) in a row of steady steps of a rolling ball,
    or None."""
    row = [det]
    likeness: list[float] = []
    for dets in before:
        last = row[-1]
        best = None
        for o in dets:
            if o.colour != det.colour or o.piece:
                continue
            way = (last.x_mm - o.x_mm, last.y_mm - o.y_mm)
            step = math.hypot(*way)
            if not setting.params.slowest_roll_diameters_per_frame * setting.d <= step <= (
                    setting.params.hardest_shot_diameters_per_frame * setting.d * frames_on):
                continue
            # (the newest one judged by its step back to this one, as this one is)
            if likeness_along(o, way, step, setting.params) < setting.params.init_score_share or (
                    len(row) == 1
                    and likeness_along(last, way, step, setting.params)
                    < setting.params.init_score_share):
                continue
            if len(row) >= 2:  # the same step again, within half a ball (half a step slow)
                sx, sy = row[-2].x_mm - last.x_mm, row[-2].y_mm - last.y_mm
                if math.hypot(last.x_mm - o.x_mm - sx, last.y_mm - o.y_mm - sy) > min(
                        setting.params.row_step_off_diameters * setting.d,
                        max(setting.params.row_step_off_share * math.hypot(sx, sy),
                            setting.params.creep_step_mm)):
                    continue
            best = o
            if len(row) == 1:
                likeness.append(likeness_along(last, way, step, setting.params))
            likeness.append(likeness_along(o, way, step, setting.params))
            break
        if best is None:
            return None
        row.append(best)
    if float(np.median(likeness)) < setting.params.pick_up_score_share:
        return None
    return row


def following_through(setting: Setting, s: BallState, row: list[Detection], frame: int) -> bool:
    """``row`` (a rolling row, the newest first) comes from behind the place this ball was
    struck from, the way opposite to where it was sent (see :func:`sent_toward`), and
    heads for that place (within same_way_deg): the cue following through, not the ball
    (a ball that comes back off a cushion comes from the way it was sent)."""
    if s.sent is None or frame - s.sent[0] > setting.params.sent_frames:
        return False
    start, end = row[-1], row[0]
    behind = (start.x_mm - s.x) * s.sent[1] + (start.y_mm - s.y) * s.sent[2] < 0
    return behind and same_way((end.x_mm - start.x_mm, end.y_mm - start.y_mm),
                               (s.x - start.x_mm, s.y - start.y_mm), setting.params)
