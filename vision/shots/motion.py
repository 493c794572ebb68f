"""One shot's balls as seen (:class:`ShotMotion`): each ball's samples in the shot, the
straight pieces of a ball that left its rest, where each ball rested before and lies after,
and where any ball was at any moment of the shot (:meth:`ShotMotion.position`)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from rules.table import Pocket, TableSpec
from vision.shots.params import ShotFactsParams
from vision.shots.pieces import cut_into_pieces, left_rest, start_time
from vision.shots.pockets import (
    dropped_from_the_lip,
    heading_into,
    into_the_hole_at,
    past_mouth,
    until_dropped,
)
from vision.shots.samples import Piece, Point, Sample, ShotWindow, at_rest_between
from vision.shots.segmentation import settled_before, until_placed


@dataclass
class ShotMotion:
    """The balls of one shot (``window``) as the tracks show them."""

    table: TableSpec
    window: ShotWindow
    fps: float
    params: ShotFactsParams
    rests: dict[str, Point]  # where the balls lay just before the strike
    pieces: dict[str, list[Piece]] = field(default_factory=dict)  # of the balls that left rest
    finals: dict[str, Point] = field(default_factory=dict)  # of the balls left on the table
    last_seen: dict[str, Sample] = field(default_factory=dict)
    # where balls that moved and were lost from sight on the cloth were last seen
    estimated: dict[str, Point] = field(default_factory=dict)
    seen_in_shot: dict[str, list[Sample]] = field(default_factory=dict)
    # of a ball that moved: its last sample before it left
    last_rest: dict[str, Sample] = field(default_factory=dict)
    # balls not seen again after their samples in the shot
    never_again: set[str] = field(default_factory=set)

    @property
    def diameter(self) -> float:
        return self.table.ball_diameter_mm

    def start_of(self, ball: str) -> float:
        """When ``ball``, which moved, left its rest."""
        return start_time(self.rests[ball], self.pieces[ball][0], self.fps,
                          self.last_rest.get(ball), self.diameter)

    def position(self, ball: str, t: float) -> Point | None:
        """Where ``ball`` was at ``t``: at rest, or on the piece covering t (extrapolated a
        little past its ends, which is where events happen)."""
        if ball not in self.pieces:
            return self.rests.get(ball) or self.finals.get(ball)
        ps = self.pieces[ball]
        start = self.start_of(ball) if ball in self.rests else ps[0].start.t
        if t <= start:
            return self.rests.get(ball)
        for k, p in enumerate(ps):
            nxt = ps[k + 1].start.t if k + 1 < len(ps) else math.inf
            if t < nxt:
                xy = p.at(t)
                return (float(xy[0]), float(xy[1]))
        return self.finals.get(ball)


def shot_motion(table: TableSpec, tracks: Mapping[str, Sequence[Sample]], window: ShotWindow,
                fps: float, params: ShotFactsParams) -> ShotMotion:
    """Each ball's samples in the shot, the pieces of those that left their rest, and the final
    places of those still on the table."""
    shot = ShotMotion(table, window, fps, params, rests=dict(window.rest_before))
    D = table.ball_diameter_mm
    rests = shot.rests
    clip_end = max((s[-1].frame for s in tracks.values() if s), default=0)
    for ball, samples in tracks.items():
        inside, into_the_hole, hung = _in_shot(table, samples, window, clip_end, params)
        if not inside:
            continue
        # (its picture drawn onto an arm or a hand over it: it stayed where it had come to rest)
        stayed = into_the_hole is None and hung is None and _seen_off_its_rest_alone(
            ball, inside, tracks, window, params)
        # (one sighting far off, after it went unseen into a pocket's mouth: a thing, not it)
        lone = not stayed and _lone_after_a_pocket(table, inside, samples, clip_end, fps, params)
        if stayed or lone:
            inside = inside[:-1]
        shot.last_seen[ball] = inside[-1]
        shot.seen_in_shot[ball] = inside
        # (the samples end because the ball vanished, not because the video did or the shot)
        after = None if lone else next((s for s in samples if s.frame > inside[-1].frame), None)
        if after is None and inside[-1].frame < clip_end:
            shot.never_again.add(ball)
        dropped = hung is not None or into_the_hole is not None
        vanished = dropped or (inside[-1].frame < clip_end if after is None
                               else past_mouth(table, after.xy, params.past_mouth_mm) is not None)
        moving = ([s for s in left_rest(inside, rests[ball], D, params, vanished, table)
                   if math.dist(s.xy, rests[ball]) > params.still_mm_per_frame]
                  if ball in rests else inside)
        if ball in rests and moving:
            shot.pieces[ball] = cut_into_pieces(moving, params)
            before = [s for s in samples if s.frame < moving[0].frame]
            if before:
                shot.last_rest[ball] = before[-1]
        # (a ball that rolled and dropped, from the lip or into the hole, or was last seen on a
        # pocket's mouth line creeping in after the other balls stopped, then gone for good or
        # next seen past that line: it is no ball at rest)
        crept_in = ball in shot.pieces and (dropped or (
            vanished and past_mouth(table, inside[-1].xy, -params.past_mouth_mm) is not None))
        # (at rest, then read off its place by less than half a ball in the video's last
        # frame, not dropping: that was jitter, and the video ended, the ball did not vanish;
        # a flicker of the light in the last frame can read a ball at rest by a cushion 13 mm
        # nearer it, and that step would make it leave the table. A ball seen rolling in the
        # last frames of the tracks may be on its way into a pocket: looked at by the events.)
        jitter_at_end = (inside[-1].frame == clip_end and not dropped and len(inside) >= 3
                         and math.dist(inside[-3].xy, inside[-2].xy) <= params.still_mm_per_frame
                         and math.dist(inside[-2].xy, inside[-1].xy) <= params.min_travel_mm)
        # (at rest on a pocket's lip through the shot, and dropped before the next: potted in
        # this shot, as one that rolled there and hung; the shot before it left it there)
        fell = ball not in shot.pieces and into_the_hole is None and dropped_from_the_lip(
            table, samples, inside[-1], window, clip_end, params) is not None
        if not fell and ((inside[-1].frame > window.last and not crept_in)
                         or ball not in shot.pieces or jitter_at_end or stayed):
            shot.finals[ball] = inside[-1].xy
    return shot


def _seen_off_its_rest_alone(ball: str, inside: Sequence[Sample],
                             tracks: Mapping[str, Sequence[Sample]], window: ShotWindow,
                             params: ShotFactsParams) -> bool:
    """The ball's last sighting in the shot (``inside``), after its strike, is seen in one step
    at least twice ``flicker_return_mm`` off a place where it lay at rest, while every other
    ball seen lay still over the ``still_frames`` before. Only a ball rolling into it moves a
    ball at rest within a shot (the next strike comes after the shot), and none rolled: what
    was seen there is a thing its picture was drawn onto (an arm over the ball took its id
    40 mm off, and the ball, unseen under it, was read as dropped in a corner pocket)."""
    k = len(inside) - 1
    if not (k >= 2 and inside[k].frame > window.first and settled_before(inside, k, params)
            and math.dist(inside[k - 1].xy, inside[k].xy) >= 2 * params.flicker_return_mm):
        return False
    quiet_from = inside[k].frame - params.still_frames
    return all(at_rest_between(a, b, params)
               for other, samples in tracks.items() if other != ball
               for a, b in itertools.pairwise(
                   [s for s in samples if quiet_from <= s.frame <= inside[k].frame]))


def _lone_after_a_pocket(table: TableSpec, inside: Sequence[Sample], samples: Sequence[Sample],
                        clip_end: int, fps: float, params: ShotFactsParams) -> bool:
    """The ball's last sighting in the shot (``inside``) is a lone one, frames after the one
    before and never followed by another before the video ends, further than
    ``pocket_reach_diameters`` from the pocket that the ball, at the sighting before, was
    rolling into (:func:`heading_into`, at the speed of its last two sightings then). A ball
    that rattles back out of a pocket rolls on in sight, or comes to rest there; one seen once
    and never again was another thing (a red rolling into a corner at 3 m/s, gone for seven
    frames, then seen once 330 mm along the side cushion, was read as off the table)."""
    k = len(inside) - 1
    if k < 2 or inside[k].frame - inside[k - 1].frame < 2 or inside[k].frame >= clip_end or any(
            s.frame > inside[k].frame for s in samples):
        return False
    a, b = inside[k - 2], inside[k - 1]
    if b.t <= a.t:
        return False
    velocity = np.subtract(b.xy, a.xy) / (b.t - a.t)
    reach = params.pocket_reach_diameters * table.ball_diameter_mm
    return any(heading_into(table, pocket, b.xy, velocity, fps, params)
               and math.dist(inside[k].xy, table.pocket_xy(pocket)) > reach
               for pocket in Pocket)


def _in_shot(table: TableSpec, samples: Sequence[Sample], window: ShotWindow, clip_end: int,
             params: ShotFactsParams) -> tuple[list[Sample], int | None, Sample | None]:
    """A ball's samples in the shot and the still frames after it (where a ball that stayed is
    seen again), up to where it dropped or was put elsewhere by hand; with the index of the
    sample after which it was in a pocket's hole, and its last sample on a pocket's lip if it
    hung there and dropped before the next shot (None: neither)."""
    # (the still frames after the shot end where the next shot begins: a ball that leaves its
    # rest then is that shot's, struck there; a red's picture jumping about its place before a
    # scratch made a shot of its own, with the cue ball's strike of the next frame in it)
    end = window.last + params.still_frames
    if window.next_first is not None:
        end = min(end, window.next_first - 1)
    inside = until_dropped(table, until_placed(
        [s for s in samples if window.first - 1 <= s.frame <= end], params), params)
    if not inside:
        return inside, None, None
    into_the_hole = into_the_hole_at(table, inside, params)
    if into_the_hole is not None:
        inside = inside[:into_the_hole + 1]
    # (one in the hole already dropped there: seen in it now and then, it is no hanging)
    hung = (dropped_from_the_lip(table, samples, inside[-1], window, clip_end, params)
            if inside[-1].frame > window.last and into_the_hole is None else None)
    if hung is not None:
        inside = inside + [s for s in samples if inside[-1].frame < s.frame <= hung.frame]
    return inside, into_the_hole, hung
