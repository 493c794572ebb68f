"""The events of one shot (:func:`shot_events`): each ball's samples in the shot, cut into
pieces; then the strike and the balls hit from rest, the kinks of moving balls (contacts and
cushions), grazes, slow bounces and nudges, and the balls that vanished (pots, off the table),
each kind asked of its module."""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence

import numpy as np

from rules.events import EventType
from rules.table import TableSpec
from vision.shots.contacts import (
    contact_partner,
    grazes,
    handed_on,
    nudges,
    passing_hitter,
    pushed_away,
    pushed_by,
    unseen_at,
)
from vision.shots.cushions import (
    bounced_off_cushion,
    bounced_off_point,
    nearest_cushion,
    nearest_jaw,
    once_per_cushion_visit,
    slow_bounces,
)
from vision.shots.params import DEFAULT_SHOT_FACTS, ShotFactsParams
from vision.shots.pieces import cut_into_pieces, kinked, left_rest, meeting_time, start_time
from vision.shots.pockets import (
    could_leave,
    dropped_from_the_lip,
    heading_into,
    into_the_hole_at,
    jaw_of_its_pot,
    nearest_pocket,
    past_mouth,
    rolling_time,
    until_dropped,
)
from vision.shots.samples import (
    FoundEvent,
    Piece,
    Point,
    Sample,
    ShotWindow,
    Vector,
    gap_confidence,
)
from vision.shots.segmentation import until_placed


def shot_events(table: TableSpec, tracks: Mapping[str, Sequence[Sample]], window: ShotWindow,
                fps: float, params: ShotFactsParams = DEFAULT_SHOT_FACTS
                ) -> tuple[list[FoundEvent], dict[str, Point]]:
    """The events of one shot and the final positions of the balls still on the table."""
    D, R = table.ball_diameter_mm, table.ball_radius_mm
    pieces: dict[str, list[Piece]] = {}
    rests: dict[str, Point] = dict(window.rest_before)
    finals: dict[str, Point] = {}
    last_seen: dict[str, Sample] = {}
    seen_in_shot: dict[str, list[Sample]] = {}
    last_rest: dict[str, Sample] = {}  # of a ball that moved: its last sample before it left
    never_again: set[str] = set()  # balls not seen again after their samples in the shot
    clip_end = max((s[-1].frame for s in tracks.values() if s), default=0)
    for ball, samples in tracks.items():
        # The shot, and the still frames after it (where a ball that stayed is seen again).
        inside = until_dropped(table, until_placed(
            [s for s in samples
             if window.first - 1 <= s.frame <= window.last + params.still_frames], params), params)
        if not inside:
            continue
        into_the_hole = into_the_hole_at(table, inside, params)
        if into_the_hole is not None:
            inside = inside[:into_the_hole + 1]
        # (one in the hole already dropped there: seen in it now and then, it is no hanging)
        hung = (dropped_from_the_lip(table, samples, inside[-1], window, clip_end, params)
                if inside[-1].frame > window.last and into_the_hole is None else None)
        if hung is not None:
            inside = inside + [s for s in samples if inside[-1].frame < s.frame <= hung.frame]
        last_seen[ball] = inside[-1]
        seen_in_shot[ball] = inside
        # (the samples end because the ball vanished, not because the video did or the shot)
        after = next((s for s in samples if s.frame > inside[-1].frame), None)
        if after is None and inside[-1].frame < clip_end:
            never_again.add(ball)
        dropped = hung is not None or into_the_hole is not None
        vanished = dropped or (inside[-1].frame < clip_end if after is None
                               else past_mouth(table, after.xy, params.past_mouth_mm) is not None)
        moving = ([s for s in left_rest(inside, rests[ball], D, params, vanished, table)
                   if math.dist(s.xy, rests[ball]) > params.still_mm_per_frame]
                  if ball in rests else inside)
        if ball in rests and moving:
            pieces[ball] = cut_into_pieces(moving, params)
            before = [s for s in samples if s.frame < moving[0].frame]
            if before:
                last_rest[ball] = before[-1]
        # (a ball that rolled and dropped, from the lip or into the hole, or was last seen on a
        # pocket's mouth line creeping in after the other balls stopped, then gone for good or
        # next seen past that line: it is no ball at rest)
        crept_in = ball in pieces and (dropped or (
            vanished and past_mouth(table, inside[-1].xy, -params.past_mouth_mm) is not None))
        # (at rest, then read off its place by less than half a ball in the video's last
        # frame, not dropping: that was jitter, and the video ended, the ball did not vanish;
        # a flicker of the light in the last frame can read a ball at rest by a cushion 13 mm
        # nearer it, and that step would make it leave the table. A ball seen rolling in the
        # last frames of the tracks may be on its way into a pocket: looked at below.)
        jitter_at_end = (inside[-1].frame == clip_end and not dropped and len(inside) >= 3
                         and math.dist(inside[-3].xy, inside[-2].xy) <= params.still_mm_per_frame
                         and math.dist(inside[-2].xy, inside[-1].xy) <= params.min_travel_mm)
        # (at rest on a pocket's lip through the shot, and dropped before the next: potted in
        # this shot, as one that rolled there and hung; the shot before it left it there)
        fell = ball not in pieces and into_the_hole is None and dropped_from_the_lip(
            table, samples, inside[-1], window, clip_end, params) is not None
        if not fell and ((inside[-1].frame > window.last and not crept_in)
                         or ball not in pieces or jitter_at_end):
            finals[ball] = inside[-1].xy

    def start_of(ball: str) -> float:
        return start_time(rests[ball], pieces[ball][0], fps, last_rest.get(ball), D)

    def position(ball: str, t: float) -> Point | None:
        """Where ``ball`` was at ``t``: at rest, or on the piece covering t (extrapolated a
        little past its ends, which is where events happen)."""
        if ball not in pieces:
            return rests.get(ball) or finals.get(ball)
        ps = pieces[ball]
        start = start_of(ball) if ball in rests else ps[0].start.t
        if t <= start:
            return rests.get(ball)
        for k, p in enumerate(ps):
            nxt = ps[k + 1].start.t if k + 1 < len(ps) else math.inf
            if t < nxt:
                xy = p.at(t)
                return (float(xy[0]), float(xy[1]))
        return finals.get(ball)

    events: list[FoundEvent] = []
    # 1. Balls that start moving: the first one is the strike, the others were hit.
    starts = sorted((start_of(b), b) for b in pieces if b in rests)

    def together(t: float, ball: str) -> bool:
        """``ball``, leaving at ``t``, left with the first ball to leave: resting near it
        (within ``near_diameters``), within a frame; resting touching it, within ``touching_s`` (the
        one struck pushes the other off at once; their starts, extrapolated from the first few
        blurred steps, may miss it by more). (Further apart, the order of their starts says
        which was struck, though one hit it within a frame.)"""
        t0, first = starts[0]
        apart = math.dist(rests[ball], rests[first])
        return (t - t0 < 1 / fps and apart <= params.near_diameters * D) or (
            t - t0 <= params.touching_s and apart <= params.touching_diameters * D)

    if len(starts) > 1 and together(*starts[1]):
        # Balls leaving together (touching or nearly): one that leaves straight away from another
        # along their line of centres was hit by it; of the others the faster is the struck one.
        first = [b for t, b in starts if together(t, b)]
        hit = {b for b in first for o in first if o != b and pushed_by(
            rests[b], rests[o], pieces[b][0])}
        striker = max([b for b in first if b not in hit] or first, key=lambda b: float(
            np.hypot(*pieces[b][0].velocity(pieces[b][0].start.t))))
        starts = [(starts[0][0], striker)] + [x for x in starts if x[1] != striker]
    # When each ball's motion changed (it started, or its velocity changed more than detection
    # noise between two pieces: from when to when, and by how much): a contact changes both
    # balls' motion.
    changes: dict[str, list[tuple[float, float, Vector | None]]] = {
        b: [(t, t, None) for t, sb in starts if sb == b] for b in pieces}
    ps: list[Piece] | None  # a ball's pieces (None below: a ball that never moved)
    for b, ps in pieces.items():
        for earlier, later in itertools.pairwise(ps):
            t, _ = meeting_time(earlier, later)
            v_in, v_out = earlier.velocity(t), later.velocity(t)
            if kinked(v_in, v_out, params):
                changes[b].append((earlier.end.t, later.start.t, v_out - v_in))

    def changed_near(ball: str, t: float, by: Point) -> bool:
        """``ball``'s motion changed within two frames of ``t``: it started, or it turned, but
        not toward ``by`` (where the other ball was): a push never pulls (two balls crossing
        5 mm apart: where their pictures meet each track bends, one toward the other). Any way
        away from it counts: a cushion at the same moment turns a ball far off the line of
        centres (a ball hit just as it comes off a cushion)."""
        for t0, t1, change in changes.get(ball, []):
            if min(abs(t0 - t), abs(t1 - t)) > 2.0 / fps:
                continue
            here = position(ball, t)
            if change is None or here is None or pushed_away(change, here, by,
                                                              max_angle_deg=90.0):
                return True
        return False

    started = {b: t for t, b in starts}
    # each ball's path in the shot, from its last sample at rest (which may lie before the
    # shot's first frame: a ball struck too fast to be seen until it was far away)
    paths = {b: ([last_rest[b]] if b in last_rest and last_rest[b].frame < seen[0].frame
                 else []) + seen for b, seen in seen_in_shot.items()}

    for k, (t, ball) in enumerate(starts):
        if k == 0:
            events.append(FoundEvent(t, EventType.STRIKE, (ball,), rests[ball]))
            continue
        # only a ball already moving can have hit it (or the striker, for a ball that left
        # with it: the striker is given the first start, which may be this ball's own)
        movers = [b for b in pieces if b != ball and (started.get(b, -math.inf) < t or (
            b == starts[0][1] and started[b] == t))]
        first_piece = pieces[ball][0]
        # (the way it left: along its first straight piece, from its place to the piece's end;
        # the piece's first samples may be its picture creeping as the hitter came)
        hitter, gap = contact_partner(ball, rests[ball], t, position, D, params, movers,
                               leaving=np.subtract(first_piece.end.xy, rests[ball]),
                               after_s=2 / fps)
        if hitter is None:  # a fast hitter's pieces are too short to say where it was at t
            hitter, gap = passing_hitter(ball, rests[ball],
                                          first_piece.velocity(first_piece.start.t), t,
                                          paths, D, fps, params)
        if hitter is None and len(movers) == 1 and unseen_at(tracks[movers[0]], t):
            # the only ball rolling was not seen then (too fast, merged): it hit this one
            hitter, gap = movers[0], params.contact_tolerance_mm
        if hitter is None and len(movers) == 1:
            # the only ball rolling passed near where its hitter must have been: a fast ball
            # that turns in mid-exposure leaves a bent blur, whose centre is off its way
            hitter, gap = passing_hitter(ball, rests[ball],
                                          first_piece.velocity(first_piece.start.t), t,
                                          {movers[0]: paths[movers[0]]}, D, fps, params,
                                          tolerance=params.lone_hitter_mm)
        if hitter is not None:
            events.append(FoundEvent(t, EventType.CONTACT, (hitter, ball), rests[ball],
                                     confidence=gap_confidence(gap, params.contact_tolerance_mm)))
    # 2. Kinks in moving balls: cushions, or contacts between moving balls.
    def kink_event(ball: str, before: Piece, after: Piece) -> FoundEvent | None:
        """The event where ``before`` turned into ``after``, if any."""
        t, xy = meeting_time(before, after)
        v_in, v_out = before.velocity(t), after.velocity(t)
        if not kinked(v_in, v_out, params):
            return None  # the track wobbles (detection noise); the motion did not change
        cushion, cushion_gap = nearest_cushion(table, xy)
        if not bounced_off_cushion(cushion, v_in, v_out):
            cushion_gap = math.inf  # not off that cushion: into it, or along it
        jaw, jaw_xy, jaw_gap = nearest_jaw(table, xy)
        if jaw_gap < cushion_gap and (bounced_off_cushion(jaw, v_in, v_out) or bounced_off_point(
                jaw_xy, xy, v_in, v_out)):
            cushion, cushion_gap = jaw, jaw_gap  # off a jaw: its cushion's end
        partner, gap = contact_partner(ball, xy, t, position, D, params)
        if partner is not None and not changed_near(partner, t, xy):
            partner = None  # a ball passing by, not hit: its motion went on unchanged
        if partner is not None and not pushed_away(v_out - v_in, xy, position(partner, t),
                                                    params.push_angle_deg):
            partner = None  # its turn is the track's noise, not a push from the other ball
        if partner is not None and gap <= cushion_gap:
            return FoundEvent(t, EventType.CONTACT, (ball, partner), xy,
                              confidence=gap_confidence(gap, params.contact_tolerance_mm))
        # (the lines meet where the blurred pictures' centres put them: worse the longer the
        # streaks, as a sample's tolerance is: for a ball off the jaw of a middle pocket at
        # 3.2 m/s they met 30 mm short of it)
        tolerance = params.cushion_tolerance_mm + params.blur_share * max(
            float(np.hypot(*v_in)), float(np.hypot(*v_out))) / fps
        if cushion_gap <= tolerance:
            return FoundEvent(t, EventType.CUSHION, (ball,), xy, cushion=cushion,
                              confidence=gap_confidence(cushion_gap, tolerance))
        return None

    for ball, ps in pieces.items():
        at_ends = [kink_event(ball, a, b) for a, b in itertools.pairwise(ps)]
        k = 0
        while k < len(at_ends):
            event = at_ends[k]
            if (event is None and k + 1 < len(at_ends) and at_ends[k + 1] is None
                    and len(ps[k + 1].samples) <= params.turn_samples + 1):
                # a bounce's blurred pictures, a short piece on neither line: off the cushion
                # where the lines around it meet (and one picture more, when a noisy one cut the
                # line before a frame early: a ball rolling into a cushion at 6 mm a frame, its
                # line cut a frame before it, leaves a piece of three there)
                bridged = kink_event(ball, ps[k], ps[k + 2])
                if bridged is not None and bridged.type == "cushion":
                    event = bridged
                    k += 1
            k += 1
            if event is not None and not (event.type == "contact" and any(
                    e.type == "contact" and set(e.balls) == set(event.balls)
                    and abs(e.t - event.t) < params.double_kiss_s for e in events)):
                events.append(event)
    # 2b. Grazes: two rolling balls that touch gently, each pushed off its line by too little to
    # cut its track into pieces.
    events += grazes(pieces, position, events, D, fps, params)
    # 2c. Slow bounces: a ball that came to a cushion and went back off it too slowly for its
    # track to be cut there.
    events += slow_bounces(table, {b: seen_in_shot[b] for b in pieces}, events, fps, params)
    # 2d. Nudges: a ball at rest crept into, which moved too little to be seen leaving.
    events += nudges(pieces, rests, finals, events, D, params)
    # 3. Balls that vanish: into a pocket, or off the table.
    for ball, seen in last_seen.items():
        if ball in finals:
            continue
        ps = pieces.get(ball)
        velocity = ps[-1].velocity(seen.t) if ps and len(ps[-1].samples) >= 2 else None
        step = _last_step(seen_in_shot[ball])
        if velocity is None and step is not None and step[1] <= 2:
            velocity = step[0]  # a last piece of one sample (a turn just before it vanished)
        pocket, distance = nearest_pocket(table, seen.xy)
        mouth = table.pocket_mouth_mm(pocket)
        if ps and len(ps) == 1 and len(ps[0].samples) <= 2:
            # hit and gone almost at once: it left as fast as its hitter's velocity changed
            velocity = _faster(velocity, handed_on(ball, events, pieces, seen.xy, rests))
        near = distance <= params.pocket_reach_diameters * D + mouth / 2
        # (lost for good, after it was seen rolling steadily: not a sighting or two, whose
        # speed may be a misreading's)
        rolls_on = ball in never_again and bool(
            ps and len(ps[-1].samples) >= params.rolling_samples)
        if near or heading_into(table, pocket, seen.xy, velocity, fps, params,
                                 rolls_on=rolls_on):
            # Vanished by a pocket: into it (after the jaws, if it rattled), timed by its speed
            # (by a pocket, within a frame: it may have been lost in the jaws; on its way there,
            # when it gets there)
            speed = float(np.hypot(*velocity)) if velocity is not None else 0.0
            travel = max(distance - mouth / 2 - R, 0.0)
            t = seen.t + ((min(travel / speed, 1 / fps) if near
                           else rolling_time(travel, speed, params))
                          if speed > 0 else 1 / (2 * fps))
            # (a ball lost on its way for longer than a blur lasts: likely, not seen)
            confidence = 1.0 if speed > 0 and (near or t - seen.t <= 3 / fps) else 0.7
            events.append(FoundEvent(t, EventType.POCKET, (ball,), seen.xy, pocket=pocket,
                                     confidence=confidence))
            continue
        if velocity is None and step is not None:
            velocity = step[0]
        if could_leave(table, seen.xy, velocity, fps, params):
            events.append(FoundEvent(seen.t + 1 / (2 * fps), EventType.OFF_TABLE, (ball,), seen.xy,
                                     confidence=0.5))
        elif ps and len(ps) >= 2 and len(ps[-1].samples) <= 2 and could_leave(
                table, ps[-2].end.xy, ps[-2].velocity(ps[-2].end.t), fps, params):
            # rolling into a cushion, then a sample or two on it and gone for good: over it
            # (the ball rising onto the rail, not bouncing: its last pictures go nowhere); the
            # turn there was no cushion contact
            t_over = ps[-1].start.t
            events = [e for e in events if not (e.type == "cushion" and e.balls == (ball,)
                                                and abs(e.t - t_over) <= 1 / fps)]
            events.append(FoundEvent(t_over, EventType.OFF_TABLE, (ball,), ps[-2].end.xy,
                                     confidence=0.4))
        # else the tracker lost the ball on the cloth: no event (it is where it was last seen
        # or where the next shot finds it)
    events = [e for e in events if not jaw_of_its_pot(table, e, events, params)]
    events.sort(key=lambda e: (e.t, e.type != "strike"))
    return _after_the_strike(once_per_cushion_visit(events)), finals


def _last_step(track: Sequence[Sample]) -> tuple[Vector, int] | None:
    """The velocity (mm/s) between a track's last two samples and how many frames apart they
    are; None with fewer than two."""
    if len(track) < 2 or track[-1].t <= track[-2].t:
        return None
    a, b = track[-2], track[-1]
    return (np.array(b.xy) - np.array(a.xy)) / (b.t - a.t), b.frame - a.frame


def _faster(a: Vector | None, b: Vector | None) -> Vector | None:
    """Of two velocity estimates (None: unknown), the faster."""
    if a is None or b is None:
        return b if a is None else a
    return b if float(np.hypot(*b)) > float(np.hypot(*a)) else a


def _after_the_strike(events: list[FoundEvent]) -> list[FoundEvent]:
    """Nothing happens before the strike; events of a ball after it left the table are dropped."""
    strike = next((k for k, e in enumerate(events) if e.type == "strike"), None)
    if strike is None:
        return []
    out = [events[strike]]
    gone: set[str] = set()
    for e in events[strike + 1:]:
        if e.t < events[strike].t or any(b in gone for b in e.balls):
            continue
        out.append(e)
        if e.type in ("pocket", "off_table"):
            gone.add(e.balls[0])
    return out
