"""The events of one shot (:func:`shot_events`): each ball's samples in the shot, cut into
pieces; then the strike and the balls hit from rest, the kinks of moving balls (contacts and
cushions), grazes, slow bounces and nudges, and the balls that vanished (pots, off the table),
each kind asked of its module."""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence

import numpy as np

from rules.balls import Ball
from rules.events import EventType
from rules.table import Pocket, TableSpec
from vision.shots.contacts import (
    also_touched,
    contact_partner,
    grazes,
    handed_on,
    hitter_place,
    nudges,
    passing_hitter,
    pushed_away,
    pushed_by,
    touched_then,
    unseen_at,
)
from vision.shots.cushions import (
    bounced_off_cushion,
    bounced_off_point,
    nearest_cushion,
    nearest_jaw,
    once_per_cushion_visit,
    slow_bounces,
    unseen_bounces,
)
from vision.shots.motion import ShotMotion, shot_motion
from vision.shots.params import DEFAULT_SHOT_FACTS, ShotFactsParams
from vision.shots.pieces import kinked, meeting_time
from vision.shots.pockets import (
    could_leave,
    heading_into,
    jaw_of_its_pot,
    nearest_pocket,
    rolling_time,
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
from vision.shots.segmentation import rolling_from


def shot_events(table: TableSpec, tracks: Mapping[str, Sequence[Sample]], window: ShotWindow,
                fps: float, params: ShotFactsParams = DEFAULT_SHOT_FACTS
                ) -> tuple[list[FoundEvent], dict[str, Point], dict[str, Point]]:
    """The events of one shot, the final positions of the balls still on the table, and where
    those that moved and were lost from sight were last seen (not a measurement of where they
    stopped: ``estimated_positions``)."""
    shot = shot_motion(table, tracks, window, fps, params)
    D = shot.diameter
    # 1. Balls that start moving: the first one is the strike, the others were hit.
    starts = _starts(shot)
    events = _hits_from_rest(shot, tracks, starts)
    # 2. Kinks in moving balls: cushions, or contacts between moving balls.
    _add_kinks(shot, _changes(shot, starts), events)
    # 2b. Grazes: two rolling balls that touch gently, each pushed off its line by too little to
    # cut its track into pieces.
    events += grazes(shot.pieces, shot.position, events, D, fps, params)
    # 2c'. A third ball touched at another contact (a ball hitting two at once).
    events += also_touched(shot.pieces, shot.position, events, D, fps, params)
    # 2c. Slow bounces: a ball that came to a cushion and went back off it too slowly for its
    # track to be cut there.
    events += slow_bounces(table, {b: shot.seen_in_shot[b] for b in shot.pieces}, events, fps,
                           params)
    # 2c''. Unseen bounces: a ball seen going into a cushion and, after a gap, coming away from
    # it, its ways in and out meeting on the cushion.
    events += unseen_bounces(table, {b: [s for p in ps for s in p.samples]
                                     for b, ps in shot.pieces.items()}, shot.rests, events, params)
    # 2d. Nudges: a ball at rest crept into, which moved too little to be seen leaving.
    events += nudges(shot.pieces, shot.rests, shot.finals, events, D, params)
    # 3. Balls that vanish: into a pocket, or off the table.
    events = _with_vanished(shot, events)
    events = [e for e in events if not jaw_of_its_pot(table, e, events, params, fps)]
    events.sort(key=lambda e: (e.t, e.type != "strike"))
    return _after_the_strike(once_per_cushion_visit(events)), shot.finals, shot.estimated


def _starts(shot: ShotMotion) -> list[tuple[float, str]]:
    """When each ball that moved from rest left it, in time order, the struck ball first (of
    balls leaving together, the one no other pushed off, the faster of several)."""
    rests, pieces = shot.rests, shot.pieces
    starts = sorted((shot.start_of(b), b) for b in pieces if b in rests)
    rolling = [(t, b) for t, b in starts if _leaves_rolling(shot, b)]
    if rolling and rolling[0] != starts[0] and not _came_near(shot, starts[0], rolling[0]):
        # the first to leave was seen leaving in no roll (an id taken by a hand, a ball moved
        # by it), and never came near the ball that rolled off later: that one was struck
        starts = [rolling[0]] + [x for x in starts if x != rolling[0]]
    struck_unseen = _struck_unseen_behind(shot, starts)
    if struck_unseen is not None:
        starts = [struck_unseen] + [x for x in starts if x[1] != struck_unseen[1]]
    if len(starts) > 1 and _together(shot, starts, *starts[1]):
        # Balls leaving together (touching or nearly): one that leaves straight away from another
        # along their line of centres was hit by it; of the others the faster is the struck one.
        first = [b for t, b in starts if _together(shot, starts, t, b)]
        hit = {b for b in first for o in first if o != b and pushed_by(
            rests[b], rests[o], pieces[b][0])}
        striker = max([b for b in first if b not in hit] or first, key=lambda b: float(
            np.hypot(*pieces[b][0].velocity(pieces[b][0].start.t))))
        starts = [(starts[0][0], striker)] + [x for x in starts if x[1] != striker]
    return starts


def _struck_unseen_behind(shot: ShotMotion, starts: Sequence[tuple[float, str]]
                          ) -> tuple[float, str] | None:
    """The white struck unseen, when a red or the yellow left its rest first: only a white is
    struck by the cue, so a ball hit the first one; the one white that left its rest later in
    the shot and lay behind it, on the line it left along (see :func:`pushed_by`), hit it. It
    started as long before as it takes, at the speed the other left with, to come to it. (A
    white struck at 4.5 m/s went unseen into the yellow 300 mm away, and its id took the cue
    going back: the yellow was read as struck, a foul.) None when the first to leave is a
    white, or no one white lay behind it."""
    if not starts or Ball(starts[0][1]).is_white:
        return None
    t0, first = starts[0]
    piece = shot.pieces[first][0]
    behind = [b for _, b in starts[1:] if Ball(b).is_white and pushed_by(
        shot.rests[first], shot.rests[b], piece)]
    speed = float(np.hypot(*piece.velocity(piece.start.t)))
    if len(behind) != 1 or speed <= 0:
        return None
    travel = max(math.dist(shot.rests[first], shot.rests[behind[0]]) - shot.diameter, 0.0)
    return t0 - travel / speed, behind[0]


def _leaves_rolling(shot: ShotMotion, ball: str) -> bool:
    """``ball`` left its rest rolling (see :func:`rolling_from`), or was not seen long enough
    after it to say (a fast ball gone into a blur): as a struck ball leaves. A thing seen
    moving about for frames, in no straight roll, was not struck."""
    seen = shot.seen_in_shot[ball]
    first = shot.pieces[ball][0].samples[0]
    k = next((i for i, q in enumerate(seen) if q.frame >= first.frame), None)
    if k is None:
        return True
    enough = shot.params.rolling_samples + 1
    soon = [q for q in seen[k:] if q.frame - first.frame < 2 * enough]
    return len(soon) < enough or rolling_from(seen, k, shot.params)


def _came_near(shot: ShotMotion, start: tuple[float, str], later: tuple[float, str]) -> bool:
    """The ball of ``start`` was seen within ``near_diameters`` of where the ball of ``later``
    lay, from its start to the other's (it may have hit it: a stun shot stops dead)."""
    (t0, ball), (t1, other) = start, later
    rest = shot.rests[other]
    reach = shot.params.near_diameters * shot.diameter
    return any(math.dist(q.xy, rest) <= reach for q in shot.seen_in_shot[ball]
               if t0 - 1 / shot.fps <= q.t <= t1 + 1 / shot.fps)


def _together(shot: ShotMotion, starts: Sequence[tuple[float, str]], t: float, ball: str
              ) -> bool:
    """``ball``, leaving at ``t``, left with the first ball to leave: resting near it
    (within ``near_diameters``), within a frame; resting touching it, within ``touching_s`` (the
    one struck pushes the other off at once; their starts, extrapolated from the first few
    blurred steps, may miss it by more). (Further apart, the order of their starts says
    which was struck, though one hit it within a frame.)"""
    params, D = shot.params, shot.diameter
    t0, first = starts[0]
    apart = math.dist(shot.rests[ball], shot.rests[first])
    return (t - t0 < 1 / shot.fps and apart <= params.near_diameters * D) or (
        t - t0 <= params.touching_s and apart <= params.touching_diameters * D)


def _hits_from_rest(shot: ShotMotion, tracks: Mapping[str, Sequence[Sample]],
                      starts: Sequence[tuple[float, str]]) -> list[FoundEvent]:
    """The strike (the first start) and the contacts that set the other balls moving from rest,
    each with the ball that hit it: one a diameter from its place as it left, or one whose path
    passed where its hitter must have been."""
    rests, pieces, params, fps, D = shot.rests, shot.pieces, shot.params, shot.fps, shot.diameter
    events: list[FoundEvent] = []
    started = {b: t for t, b in starts}
    # each ball's path in the shot, from its last sample at rest (which may lie before the
    # shot's first frame: a ball struck too fast to be seen until it was far away)
    paths = {b: ([shot.last_rest[b]] if b in shot.last_rest
                 and shot.last_rest[b].frame < seen[0].frame else []) + seen
             for b, seen in shot.seen_in_shot.items()}
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
        hitter, gap = contact_partner(ball, rests[ball], t, shot.position, D, params, movers,
                                      leaving=np.subtract(first_piece.end.xy, rests[ball]),
                                      after_s=2 / fps)
        if hitter is None:  # a fast hitter's pieces are too short to say where it was at t
            hitter, gap = passing_hitter(ball, rests[ball],
                                         first_piece.velocity(first_piece.start.t), t,
                                         paths, D, fps, params)
        unseen = [b for b in movers if unseen_at(tracks[b], t)]
        if len(movers) > 1:  # (those seen then were seen elsewhere: see contact_partner)
            unseen = [b for b in unseen
                      if _could_be_there(shot, tracks[b], rests[ball], first_piece, t)]
        if hitter is None and len(unseen) == 1:
            # the only ball rolling not seen then (too fast, merged) that could have been
            # there hit this one
            hitter, gap = unseen[0], params.contact_tolerance_mm
        if hitter is None and len(movers) == 1:
            # the only ball rolling passed near where its hitter must have been: a fast ball
            # that turns in mid-exposure leaves a bent blur, whose centre is off its way
            hitter, gap = passing_hitter(ball, rests[ball],
                                         first_piece.velocity(first_piece.start.t), t,
                                         {movers[0]: paths[movers[0]]}, D, fps, params,
                                         tolerance=params.lone_hitter_mm)
        if hitter is not None and _crept_toward(shot, ball, hitter, t):
            hitter = None
        if hitter is not None:
            events.append(FoundEvent(t, EventType.CONTACT, (hitter, ball), rests[ball],
                                     confidence=gap_confidence(gap, params.contact_tolerance_mm)))
    return events


def _crept_toward(shot: ShotMotion, ball: str, hitter: str, t: float) -> bool:
    """The ball's picture only crept toward its hitter at ``t`` and stayed about its place (its
    place at the end within ``flicker_return_mm`` of where it lay): a ball at rest is sent away
    from the ball that hits it, and one touched so gently that it stays is pushed away (see
    :func:`nudges`). A white passing 2 mm wide of a ball on a low-quality, flickering picture
    left that ball's picture 3 mm nearer the white's way, and it was taken as hit."""
    final, rest = shot.finals.get(ball), shot.rests[ball]
    by = shot.position(hitter, t)
    if final is None or by is None or math.dist(final, rest) > shot.params.flicker_return_mm:
        return False
    return float(np.dot(np.subtract(final, rest), np.subtract(rest, by))) < 0.0


def _could_be_there(shot: ShotMotion, track: Sequence[Sample], rest: Point, first_piece: Piece,
                    t: float) -> bool:
    """A ball unseen at ``t`` could have been where the hitter of the ball at ``rest`` was (one
    diameter behind it against the way it left along ``first_piece``): from its sample before
    ``t`` it got there, and from there to its sample after, no faster than the hardest shot
    goes. (A white under an arm, seen on its place before and after, was taken for the hitter
    of the yellow 1.1 m away, whose picture shifted 5 mm as the shot's last balls settled.)"""
    before = [s for s in track if s.t < t]
    if not before:
        return True  # not seen before it: from anywhere
    leaving = first_piece.velocity(first_piece.start.t)
    if float(np.hypot(*leaving)) <= 0:
        return False
    contact = hitter_place(rest, leaving, shot.diameter)
    fastest = shot.params.hardest_mm_per_frame

    def reached(sample: Sample) -> bool:
        frames = max(abs(t - sample.t) * shot.fps, 1.0)
        return float(np.hypot(*(contact - np.asarray(sample.xy)))) <= fastest * frames

    after = next((s for s in track if s.t >= t), None)
    return reached(before[-1]) and (after is None or reached(after))


Changes = dict[str, list[tuple[float, float, Vector | None]]]


def _changes(shot: ShotMotion, starts: Sequence[tuple[float, str]]) -> Changes:
    """When each ball's motion changed (it started, or its velocity changed more than detection
    noise between two pieces: from when to when, and by how much): a contact changes both
    balls' motion."""
    changes: Changes = {b: [(t, t, None) for t, sb in starts if sb == b] for b in shot.pieces}
    for b, ps in shot.pieces.items():
        for earlier, later in itertools.pairwise(ps):
            t, _ = meeting_time(earlier, later)
            v_in, v_out = earlier.velocity(t), later.velocity(t)
            if kinked(v_in, v_out, shot.params):
                changes[b].append((earlier.end.t, later.start.t, v_out - v_in))
    return changes


def _changed_near(shot: ShotMotion, changes: Changes, ball: str, t: float, by: Point) -> bool:
    """``ball``'s motion changed within two frames of ``t``: it started, or it turned, but
    not toward ``by`` (where the other ball was): a push never pulls (two balls crossing
    5 mm apart: where their pictures meet each track bends, one toward the other). Any way
    away from it counts: a cushion at the same moment turns a ball far off the line of
    centres (a ball hit just as it comes off a cushion)."""
    for t0, t1, change in changes.get(ball, []):
        if min(abs(t0 - t), abs(t1 - t)) > 2.0 / shot.fps:
            continue
        here = shot.position(ball, t)
        if change is None or here is None or pushed_away(change, here, by, max_angle_deg=90.0):
            return True
    return _gone_from_rest_at(shot, ball, t)


def _gone_from_rest_at(shot: ShotMotion, ball: str, t: float) -> bool:
    """``ball`` lay at rest, was never seen moving, and was last seen, about its place, within
    two frames of ``t``, never again: it left its place then, unseen (a red hit on a red
    cloth, a blur too faint to show), as a ball seen to start would have."""
    seen = shot.seen_in_shot.get(ball, [])
    return (ball not in shot.pieces and bool(seen) and abs(seen[-1].t - t) <= 2.0 / shot.fps
            and _only_about_its_place(shot, ball))


def _only_about_its_place(shot: ShotMotion, ball: str) -> bool:
    """``ball`` lay at rest before the shot, was seen in it only about its place (within
    ``rest_jitter_diameters``), and was never seen again after."""
    if ball not in shot.rests or ball not in shot.never_again:
        return False
    near = shot.params.rest_jitter_diameters * shot.diameter
    return all(math.dist(s.xy, shot.rests[ball]) <= near
               for s in shot.seen_in_shot.get(ball, []))


def _add_kinks(shot: ShotMotion, changes: Changes, events: list[FoundEvent]) -> None:
    """Add to ``events`` the contacts and cushions where moving balls' pieces meet (a second
    contact of the same two balls within ``double_kiss_s`` is the same one)."""
    params = shot.params
    for ball, ps in shot.pieces.items():
        at_ends = [_kink_event(shot, changes, ball, a, b) for a, b in itertools.pairwise(ps)]
        k = 0
        while k < len(at_ends):
            event = at_ends[k]
            if (event is None and k + 1 < len(at_ends) and at_ends[k + 1] is None
                    and len(ps[k + 1].samples) <= params.turn_samples + 1):
                # a bounce's blurred pictures, a short piece on neither line: off the cushion
                # where the lines around it meet (and one picture more, when a noisy one cut the
                # line before a frame early: a ball rolling into a cushion at 6 mm a frame, its
                # line cut a frame before it, leaves a piece of three there)
                bridged = _kink_event(shot, changes, ball, ps[k], ps[k + 2])
                if bridged is not None and bridged.type == "cushion":
                    event = bridged
                    k += 1
            k += 1
            if event is not None and not (event.type == "contact" and touched_then(
                    events, event.balls[0], event.balls[-1], event.t, params)):
                events.append(event)


def _kink_event(shot: ShotMotion, changes: Changes, ball: str, before: Piece, after: Piece
                ) -> FoundEvent | None:
    """The event where ``before`` turned into ``after``, if any."""
    table, params, position = shot.table, shot.params, shot.position
    t, xy = meeting_time(before, after)
    v_in, v_out = before.velocity(t), after.velocity(t)
    if not kinked(v_in, v_out, params):
        return None  # the track wobbles (detection noise); the motion did not change
    cushion, cushion_gap = nearest_cushion(table, xy)
    rebound = (params.least_rebound_share, params.slow_kink_mm_s)
    if not bounced_off_cushion(cushion, v_in, v_out, rebound):
        cushion_gap = math.inf  # not off that cushion: into it, or along it
    jaw, jaw_xy, jaw_gap = nearest_jaw(table, xy)
    if jaw_gap < cushion_gap and (bounced_off_cushion(jaw, v_in, v_out, rebound)
                                  or bounced_off_point(jaw_xy, xy, v_in, v_out, rebound)):
        cushion, cushion_gap = jaw, jaw_gap  # off a jaw: its cushion's end
    partner, gap = contact_partner(ball, xy, t, position, shot.diameter, params)
    if partner is not None and not _changed_near(shot, changes, partner, t, xy):
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
        float(np.hypot(*v_in)), float(np.hypot(*v_out))) / shot.fps
    if cushion_gap <= tolerance:
        return FoundEvent(t, EventType.CUSHION, (ball,), xy, cushion=cushion,
                          confidence=gap_confidence(cushion_gap, tolerance))
    return None


def _with_vanished(shot: ShotMotion, events: list[FoundEvent]) -> list[FoundEvent]:
    """``events`` with those of the balls that vanished: pots (by a pocket, or rolling into one
    when last seen), balls off the table (rolling at a cushion they could reach, or over one
    they came to: its turn there is then no cushion event)."""
    table, params, fps, pieces = shot.table, shot.params, shot.fps, shot.pieces
    D, R = shot.diameter, table.ball_radius_mm
    for ball, seen in shot.last_seen.items():
        if ball in shot.finals:
            pot = _potted_unseen(shot, ball, events)
            if pot is not None:
                events.append(pot)
                del shot.finals[ball]
            continue
        ps = pieces.get(ball)
        velocity = ps[-1].velocity(seen.t) if ps and len(ps[-1].samples) >= 2 else None
        step = _last_step(shot.seen_in_shot[ball])
        if velocity is None and step is not None and step[1] <= 2:
            velocity = step[0]  # a last piece of one sample (a turn just before it vanished)
        hit = _hit_and_gone(shot, ball, events)
        if hit is not None:
            # seen after its hit only about its place: it left at the contact, unseen, from
            # its place (what was seen there later was another ball's picture)
            seen = Sample(round(hit.t * fps), hit.t, shot.rests[ball])
        pocket, distance = nearest_pocket(table, seen.xy)
        mouth = table.pocket_mouth_mm(pocket)
        if hit is not None or (ps and len(ps) == 1 and len(ps[0].samples) <= 2):
            # hit and gone almost at once: it left as fast as its hitter's velocity changed
            velocity = _faster(velocity if hit is None else None, handed_on(
                ball, events, pieces, seen.xy, shot.rests, params.flicker_return_mm, D))
        near = distance <= params.pocket_reach_diameters * D + mouth / 2
        # (lost for good, after it was seen rolling steadily: not a sighting or two, whose
        # speed may be a misreading's)
        rolls_on = ball in shot.never_again and bool(
            ps and len(ps[-1].samples) >= params.rolling_samples)
        if ball in shot.never_again and not rolls_on and hit is None:
            # (its last piece too short to say: its free roll since its last event is)
            roll = _free_roll(shot.seen_in_shot[ball], ball, events, params)
            if roll is not None:
                velocity, rolls_on = roll, True
        if near or heading_into(table, pocket, seen.xy, velocity, fps, params,
                                rolls_on=rolls_on, way_deg=_step_way_deg(ps, velocity, fps,
                                                                         params)):
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
        elif ball in pieces:
            # the tracker lost the ball on the cloth: no event; it is where it was last seen
            # (an estimate, which the next shot's sightings may correct), clamped onto the cloth
            shot.estimated[ball] = (min(max(seen.xy[0], R), table.length_mm - R),
                                    min(max(seen.xy[1], R), table.width_mm - R))
    return events


def _step_way_deg(pieces: Sequence[Piece] | None, velocity: Vector | None, fps: float,
                  params: ShotFactsParams) -> float:
    """How far off (degrees) the way of a vanished ball may be, when its velocity is known from
    one step, not a line fitted to a piece of three sightings or more: a blurred picture's centre
    is off its place by ``line_tolerance_mm`` and ``blur_share`` of the step, and so the step's
    direction by that over its length (a red hit toward a corner, seen once 104 mm from its
    place, its picture 21 mm short of its way, was read as leaving the table: its line missed
    the pocket's half-mouth by half a millimetre). 0 for a fitted line."""
    if velocity is None or (pieces and len(pieces[-1].samples) > 2):
        return 0.0
    step = float(np.hypot(*velocity)) / fps
    if step <= 0:
        return 0.0
    return math.degrees(math.atan2(params.line_tolerance_mm + params.blur_share * step, step))


def _free_roll(seen: Sequence[Sample], ball: str, events: Sequence[FoundEvent],
               params: ShotFactsParams) -> Vector | None:
    """The velocity (mm/s) of a ball's last free roll: a straight line fitted to its last
    sightings (``local_samples`` to twice that) after its last event, when at least
    ``rolling_samples`` and all within twice ``line_tolerance_mm`` of the line; None otherwise.
    Between events a ball rolls straight, however its noisy sightings were cut into pieces
    (a red on a red cloth, seen in half its frames 8-11 mm off its way, rolling into a corner
    in pieces of two and three sightings)."""
    last = max((e.t for e in events if ball in e.balls), default=None)
    if last is None:
        return None
    roll = [s for s in seen if s.t > last][-2 * params.local_samples:]
    if len(roll) < max(params.rolling_samples, params.local_samples):
        return None
    t = np.array([s.t for s in roll])
    xy = np.array([s.xy for s in roll])
    fit = np.polynomial.polynomial.polyfit(t - t[-1], xy, 1)  # (2, 2): offsets, velocities
    off = np.hypot(*(xy - (fit[0] + np.outer(t - t[-1], fit[1]))).T)
    if float(off.max()) > 2 * params.line_tolerance_mm:
        return None
    return np.asarray(fit[1], np.float64)


def _potted_unseen(shot: ShotMotion, ball: str, events: Sequence[FoundEvent]
                   ) -> FoundEvent | None:
    """The pot of a ball at rest that a contact hit (see :func:`_gone_from_rest_at`: last seen
    on its place at the hit, never seen moving, never again), when the velocity its hitter
    lost (see :func:`handed_on`) heads into a pocket within ``unseen_way_deg`` and as far as it
    could roll (a red hit on a red cloth, too faint in motion to be seen, into a corner 470-680
    mm away); None otherwise: it stays where it lay (the tracker lost it on the cloth)."""
    hit = _hit_and_gone(shot, ball, events)
    if hit is None or not _gone_from_rest_at(shot, ball, hit.t):
        return None
    table, params, fps = shot.table, shot.params, shot.fps
    rest = shot.rests[ball]
    velocity = handed_on(ball, events, shot.pieces, rest, shot.rests, params.flicker_return_mm,
                         shot.diameter)
    if velocity is None:
        return None
    speed = float(np.hypot(*velocity))
    way = math.atan2(velocity[1], velocity[0])

    def off_the_way(pocket: Pocket) -> float:
        """The angle (radians) between the ball's way and the line to ``pocket``'s point."""
        px, py = table.pocket_xy(pocket)
        return abs(math.remainder(math.atan2(py - rest[1], px - rest[0]) - way, math.tau))

    into = [pocket for pocket in Pocket
            if heading_into(table, pocket, rest, velocity, fps, params, rolls_on=True,
                            way_deg=params.unseen_way_deg)]
    if not into:
        return None
    pocket = min(into, key=off_the_way)
    travel = max(math.dist(rest, table.pocket_xy(pocket)) - table.pocket_mouth_mm(pocket) / 2
                 - table.ball_radius_mm, 0.0)
    return FoundEvent(hit.t + rolling_time(travel, speed, params), EventType.POCKET, (ball,),
                      rest, pocket=pocket, confidence=0.6)


def _hit_and_gone(shot: ShotMotion, ball: str, events: Sequence[FoundEvent]
                  ) -> FoundEvent | None:
    """The contact that hit ``ball`` from rest, when it was seen in the shot only about its
    place (within rest_jitter_diameters: after the hit, in part, a picture of another ball come
    to it) and then gone for good; else None."""
    if not _only_about_its_place(shot, ball):
        return None
    hit = [e for e in events if e.type == "contact" and e.balls[-1] == ball]
    return hit[-1] if hit else None


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
