"""A frame's detections made fit to associate: the pieces of one ball (a streak cut in two,
a ball cut by the cue's shadow) joined into one, two touching balls read as one streak split
into two, and a blob between two balls rolling close together left out. Given the tracks,
these do not change them."""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from dataclasses import replace

import numpy as np

from vision.detection import Detection
from vision.shots import REST_JITTER_DIAMETERS, TOUCHING_DIAMETERS
from vision.tracking.geometry import a_ball_and_a_glint, each_at_one_of, same_way
from vision.tracking.motion import is_resting, predicted, still
from vision.tracking.state import CLASS_OF, BallState, Setting


def split_touching(setting: Setting, balls: list[BallState], dets: list[Detection]
                   ) -> list[Detection]:
    """A streak lying where two balls of its colour rest touching (its middle within a
    quarter ball of theirs, along their line within same_way_deg, no longer than three
    balls) is those two seen as one blob (with their shadows, two touching balls can be
    as wide all along as a streak): a detection of each, in its place (pixels: the
    blob's). A ball leaving the other moves the blob's middle off theirs. ``balls``: the
    tracks."""
    if not any(d.streak_mm for d in dets):
        return dets
    resting = [s for s in balls if is_resting(setting, s) or (
        s.status == "hidden" and still(setting, s))]
    out: list[Detection] = []
    for d in dets:
        pair = None
        if d.streak_mm and d.streak_mm <= setting.params.touching_blob_diameters * setting.d:
            pair = next(((a, b) for a, b in itertools.combinations(resting, 2)
                         if CLASS_OF[a.ball] == CLASS_OF[b.ball] == d.colour
                         and math.hypot(a.x - b.x, a.y - b.y) <= TOUCHING_DIAMETERS * setting.d
                         and math.hypot(d.x_mm - (a.x + b.x) / 2,
                                        d.y_mm - (a.y + b.y) / 2)
                         <= setting.params.touching_middle_diameters * setting.d
                         and (same_way((b.x - a.x, b.y - a.y), d.streak_dir, setting.params)
                              or same_way((a.x - b.x, a.y - b.y), d.streak_dir,
                                          setting.params))),
                        None)
        if pair is None:
            out.append(d)
            continue
        out += [replace(d, x_mm=s.x, y_mm=s.y, streak_mm=0.0, streak_dir=(0.0, 0.0))
                for s in pair]
    return out


def between_two(setting: Setting, balls: list[BallState], frame: int, dets: list[Detection]
                ) -> list[Detection]:
    """Without the detections that lie between two balls rolling close together (their
    places, as predicted, within near_pair_diameters, one of them moving): a picture at
    their middle (within between_diameters), off each ball's place by more than that, is
    both balls seen as one blob (with their shadows, or read as a streak), and tells
    neither's place (a cue ball touching the yellow, read at their middle, made a false
    second contact; two whites 82 mm apart were read as one). Neither is seen."""
    places = [(s, *predicted(setting, s, max(1, frame - s.last_seen))[:2])
              for s in balls if s.status == "table"]
    near = setting.params.near_pair_diameters * setting.d
    pairs = [(a, b) for a, b in itertools.combinations(places, 2)
             if math.hypot(a[1] - b[1], a[2] - b[2]) <= near
             and not (is_resting(setting, a[0]) and is_resting(setting, b[0]))]
    if not pairs:
        return dets
    between = setting.params.between_diameters * setting.d
    return [d for d in dets if not any(
        math.hypot(d.x_mm - (a[1] + b[1]) / 2, d.y_mm - (a[2] + b[2]) / 2) <= between
        and min(math.hypot(d.x_mm - a[1], d.y_mm - a[2]),
                math.hypot(d.x_mm - b[1], d.y_mm - b[2])) > between
        for a, b in pairs)]


def merge_pieces(setting: Setting, dets: list[Detection], balls: list[BallState],
                 frame: int | None = None,
                 first_places: Mapping[str, tuple[float, float]] | None = None
                 ) -> tuple[list[Detection], set[int]]:
    """Two detections closer than two balls can be are pieces of one ball (a blurred streak
    cut in two, a ball cut by the cue or its shadow): one detection at their middle, marked
    (by its index in the list returned) as doubtful. The pieces of a faint streak in a row
    are joined first (see :func:`join_streak_pieces`; ``frame``, when given, is the frame
    the balls' places are predicted for). ``balls``: the tracks; ``first_places``: in the
    first frames, the game state's start positions (see :func:`two_resting`)."""
    joined, merged = join_streak_pieces(setting, dets, balls, frame)
    out: list[Detection | None] = list(joined)  # (None: a piece merged into another)
    for i in range(len(out)):
        for j in range(i + 1, len(out)):
            a, b = out[i], out[j]
            if a is None or b is None:
                continue
            if math.hypot(a.x_mm - b.x_mm, a.y_mm - b.y_mm) >= (
                    setting.params.pieces_diameters * setting.d) or two_resting(
                        setting, a, b, balls, first_places):
                continue
            # of two colours (a blurred ball's highlight read as white) the more ball-like
            # piece names it, as a doubtful colour
            best, faint = (a, b) if a.score >= b.score else (b, a)
            if a_ball_and_a_glint(best, faint, setting.params):
                out[i], out[j] = best, None
                continue
            out[i] = replace(best, x_mm=(a.x_mm + b.x_mm) / 2, y_mm=(a.y_mm + b.y_mm) / 2,
                             x_px=(a.x_px + b.x_px) / 2, y_px=(a.y_px + b.y_px) / 2,
                             score=max(a.score, b.score),
                             streak_mm=max(a.streak_mm, b.streak_mm),
                             colour_sure=a.colour == b.colour and (a.colour_sure
                                                                   or b.colour_sure))
            out[j] = None
            merged.add(i)
    kept = [k for k, d in enumerate(out) if d is not None]
    return [d for d in out if d is not None], {n for n, k in enumerate(kept) if k in merged}


def two_resting(setting: Setting, a: Detection, b: Detection, balls: list[BallState],
                first_places: Mapping[str, tuple[float, float]] | None) -> bool:
    """``a`` and ``b`` are two balls of their colour resting touching, each seen at its
    place (within the jitter of a rest), not two pieces of one: a blob of two touching balls
    splits with each centre pulled toward the other (the shaded side of each is cut off
    as cloth, the neck between them too: a white touching the other read 9 mm toward it).
    In the first frames, the places are the game state's start positions
    (``first_places``)."""
    if a.colour != b.colour:
        return False
    near = REST_JITTER_DIAMETERS * setting.d
    if first_places is not None:  # (the first frames)
        places = [xy for ball, xy in first_places.items() if CLASS_OF[ball] == a.colour]
    else:
        places = [(s.x, s.y) for s in balls if CLASS_OF[s.ball] == a.colour and (
            is_resting(setting, s) or (s.status == "hidden" and still(setting, s)))]
    # (no piece of one ball lies so near another ball's place: it would be off its own)
    return each_at_one_of(a, b, places, near)


def two_rolling(setting: Setting, a: Detection, b: Detection, balls: list[BallState],
                frame: int | None) -> bool:
    """``a`` and ``b`` are two balls of their colour, one of them rolling, each seen where
    it is expected (within between_diameters of its predicted place), not two pieces of a
    streak: two whites meeting split into two faint pieces, each pulled toward the other
    (a white rolling into the other at rest, read as one streak at their middle, so that
    neither was seen at the contact)."""
    if a.colour != b.colour or frame is None:
        return False
    alike = [s for s in balls if CLASS_OF[s.ball] == a.colour and s.status == "table"]
    if len(alike) < 2 or all(is_resting(setting, s) for s in alike):
        return False
    places = [predicted(setting, s, max(1, frame - s.last_seen))[:2] for s in alike]
    return each_at_one_of(a, b, places, setting.params.between_diameters * setting.d)


def join_streak_pieces(setting: Setting, dets: list[Detection], balls: list[BallState],
                       frame: int | None = None) -> tuple[list[Detection], set[int]]:
    """Pieces of a faint streak (a very fast ball, partly see-through: its colour a
    mixture with the cloth's) in a row, each within streak_step_diameters of the next: one
    streak detection at their middle, as long as they reach, marked doubtful. Two balls
    touching are sure of their colour, and stay two; so do two pieces that are two balls
    where they are expected in ``frame`` (see :func:`two_rolling`)."""
    faint = [k for k, d in enumerate(dets) if d.piece and not d.colour_sure]
    groups: list[list[int]] = []
    for k in faint:
        near = [g for g in groups if dets[g[0]].colour == dets[k].colour and any(
            math.hypot(dets[k].x_mm - dets[j].x_mm, dets[k].y_mm - dets[j].y_mm)
            <= setting.params.streak_step_diameters * setting.d for j in g)]
        joined = [k] + [j for g in near for j in g]
        groups = [g for g in groups if g not in near] + [joined]
    out = list(dets)
    merged: set[int] = set()
    gone: set[int] = set()
    for g in groups:
        if len(g) < 2 or (len(g) == 2 and two_rolling(
                setting, dets[g[0]], dets[g[1]], balls, frame)):
            continue
        pts = np.array([[dets[j].x_mm, dets[j].y_mm] for j in g])
        c = pts.mean(0)
        axis = np.linalg.svd(pts - c)[2][0]
        along = (pts - c) @ axis
        if (float(np.abs((pts - c) @ np.array([-axis[1], axis[0]])).max())
                > setting.params.on_line_diameters * setting.d):
            continue  # not in a row: not one streak
        px = np.array([[dets[j].x_px, dets[j].y_px] for j in g]).mean(0)
        best = max(g, key=lambda j: dets[j].score)
        out[g[0]] = replace(dets[best], x_mm=float(c[0]), y_mm=float(c[1]),
                            x_px=float(px[0]), y_px=float(px[1]), piece=False,
                            streak_mm=float(along.max() - along.min()) + setting.d,
                            streak_dir=(float(axis[0]), float(axis[1])))
        merged.add(g[0])
        gone.update(g[1:])
    kept = [k for k in range(len(out)) if k not in gone]
    return [out[k] for k in kept], {n for n, k in enumerate(kept) if k in merged}
