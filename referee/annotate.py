"""The annotated video (`kaisa referee VIDEO --annotated F.mp4`): the input with what the referee
saw and decided drawn on each frame, drawn from the frames the referee reads (:class:`DrawnAsRead`)
or, for a saved report, from a second decoding (:func:`annotate_video`).

Drawn: each tracked ball's id at its position (table mm projected to pixels with the calibration)
and a trail of its last second that fades with age; the events as they happen (a ring where two
balls met, a square where a ball touched a cushion, "POT <ball> <pocket>" for a second); a
scoreboard (the players' scores, the shooter, the shot number); and, from each verdict until the
next strike, the respot targets and the house when a white is in hand, with the verdict in words.

The overlay is planned from data alone (:class:`OverlayPlan`: the tracker's rows and the match
report's shots and verdicts, so a saved report can be drawn again) and drawn apart from it
(:func:`draw_overlay`). Frames stream from the decoder to the encoder (held a few seconds at most
while their shot is judged): memory does not grow with the video's length. A video that ends
before the rows do gives a shorter annotated video, not an error.
"""

from __future__ import annotations

import math
import time
from array import array
from collections import deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from calibration import Calibration
from referee.describe import describe
from referee.errors import InputError
from rules import Ball, KaisaError, Verdict
from video import BackgroundWriter, VideoError, VideoWriter, as_bgr, probe, read_ahead_frames

Row = tuple[int, str, float, float, bool]
Image = npt.NDArray[np.uint8]
FloatArray = npt.NDArray[np.float64]

BALLS: tuple[str, ...] = tuple(b.value for b in Ball)
# BGR. The two whites differ (W2 a cold white) so a swap of identities shows.
BALL_BGR: dict[str, tuple[int, int, int]] = {
    "W1": (245, 245, 245), "W2": (255, 215, 150), "R1": (60, 60, 235), "R2": (150, 120, 255),
    "Y": (0, 220, 255)}
TRAIL_S = 1.0  # seconds of trail behind each ball
EVENT_S = 1.0  # how long an event's mark stays
TRAIL_BREAK_MM = 400.0  # a longer step between two frames is a ball put back, not rolled
FONT = cv2.FONT_HERSHEY_SIMPLEX
SCOREBOARD_BOX = (8, 8, 560, 58)  # x0, y0, x1, y1 in pixels: fixed, so it reads steadily


# --- the plan: what to draw on each frame, from data alone -------------------------------------
@dataclass(frozen=True)
class Mark:
    """One event to show: where (pixels) and what, from ``frame`` on for a second."""

    kind: str  # strike | contact | cushion | pocket | off_table
    frame: int
    xy_px: tuple[float, float] | None
    text: str


@dataclass(frozen=True)
class ShotSpan:
    """One refereed shot on the video's time line; the verdict is shown from ``verdict_frame``."""

    number: int  # from 1
    strike_frame: int
    verdict_frame: int
    verdict: Verdict


@dataclass(frozen=True)
class Scoreboard:
    score: tuple[int, int]
    shooter: int
    cue_ball: str
    shot_number: int
    in_play: bool
    winner: int | None


class OverlayPlan:
    """Everything the overlay needs, indexed by frame: the balls' positions in pixels, the
    events, the shots and their verdicts. Built from the rows and the match report, at once
    (a saved report drawn again) or as they come (:meth:`add_rows`, :meth:`add_shot`,
    :meth:`add_calibration`: the video drawn while it is refereed)."""

    def __init__(self, report: Mapping[str, Any], calibration: Calibration, rows: Iterable[Row],
                 fps: float, recalibrated: Sequence[tuple[int, Calibration]] = ()) -> None:
        self.calibration = calibration
        # the calibration in force from each frame on: the first, then each one the drift
        # monitor made after the camera moved (the balls' table positions did not move)
        self.calibrations: list[tuple[int, Calibration]] = [(0, calibration)]
        self.table = calibration.table
        self.fps = fps
        self.trail_frames = max(2, round(TRAIL_S * fps))
        self.event_frames = max(1, round(EVENT_S * fps))
        self.ball_radius_px = self.table.ball_radius_mm / calibration.mm_per_px()
        self.frame_count = 0
        self.mm = np.full((0, len(BALLS), 2), np.nan)
        self.px = np.full((0, len(BALLS), 2), np.nan)
        self.visible = np.zeros((0, len(BALLS)), dtype=bool)
        self._pockets_px = [self._pockets_of(calibration)]
        self._house_px = [self._house_outline(calibration)]
        self.shots: list[ShotSpan] = []
        self.marks: list[Mark] = []
        start = report.get("start") or {}
        score = start.get("score") or {"1": 0, "2": 0}
        self.start_score = (int(score.get("1", 0)), int(score.get("2", 0)))
        self.start_shooter = int(start.get("shooter", 1))
        for frame, moved in sorted(recalibrated, key=lambda fc: fc[0]):
            self.add_calibration(frame, moved)
        self.add_rows(rows)
        for shot in report.get("shots") or []:
            self.add_shot(shot)

    # positions ----------------------------------------------------------------------------
    def add_rows(self, rows: Iterable[Row]) -> None:
        """Tracker rows (frame, ball, x_mm, y_mm, visible), of later frames or not."""
        # (read once, into compact arrays: the rows of a long match may be many)
        index = {b: i for i, b in enumerate(BALLS)}
        frames, balls, visible = array("l"), array("B"), array("B")
        xy = array("d")
        for frame, ball, x, y, seen in rows:
            if ball in index:
                frames.append(frame)
                balls.append(index[ball])
                visible.append(bool(seen))
                xy.extend((x, y))
        if not frames:
            return
        f = np.frombuffer(frames, dtype=np.int_)
        self._grow(int(f.max()) + 1)
        b = np.frombuffer(balls, dtype=np.uint8).astype(np.intp)
        self.mm[f, b] = np.frombuffer(xy, dtype=np.float64).reshape(-1, 2)
        self.visible[f, b] = np.frombuffer(visible, dtype=np.uint8).astype(bool)
        self._project(int(f.min()), int(f.max()) + 1)

    def add_calibration(self, frame: int, calibration: Calibration) -> None:
        """The camera moved: ``calibration`` is in force from ``frame`` on."""
        self.calibrations = sorted([*self.calibrations, (frame, calibration)],
                                   key=lambda fc: fc[0])
        self._pockets_px = [self._pockets_of(c) for _, c in self.calibrations]
        self._house_px = [self._house_outline(c) for _, c in self.calibrations]
        self._project(frame, self.frame_count)

    def _grow(self, n: int) -> None:
        """Room for frames up to ``n`` (the arrays double: rows come a frame at a time)."""
        if n > len(self.mm):
            size = max(n, 2 * len(self.mm), 256)
            for name, fill in (("mm", np.nan), ("px", np.nan), ("visible", False)):
                old = getattr(self, name)
                grown = np.full((size, *old.shape[1:]), fill, dtype=old.dtype)
                grown[:len(old)] = old
                setattr(self, name, grown)
        self.frame_count = max(self.frame_count, n)

    def _project(self, first: int, end: int) -> None:
        """Pixels of the positions of frames ``first`` to ``end``, each with the calibration in
        force then (one projection per calibration)."""
        starts = [f for f, _ in self.calibrations[1:]] + [self.frame_count]
        for (since, cal), until in zip(self.calibrations, starts, strict=True):
            lo, hi = max(first, since), min(end, until)
            if lo >= hi:
                continue
            known = np.isfinite(self.mm[lo:hi, :, 0])
            if known.any():
                part = self.px[lo:hi]
                part[known] = cal.table_to_image(self.mm[lo:hi][known])

    def _pockets_of(self, calibration: Calibration) -> dict[str, tuple[float, float]]:
        return {p.value: xy for p, xy in calibration.pockets_px().items()}

    def _segment(self, frame: int) -> int:
        """Index of the calibration in force at ``frame``."""
        return max(k for k, (first, _) in enumerate(self.calibrations) if first <= frame or k == 0)

    def calibration_at(self, frame: int) -> Calibration:
        return self.calibrations[self._segment(frame)][1]

    def pockets_px(self, frame: int) -> dict[str, tuple[float, float]]:
        return self._pockets_px[self._segment(frame)]

    def house_px(self, frame: int) -> npt.NDArray[np.int32]:
        return self._house_px[self._segment(frame)]

    def ball_px(self, frame: int, ball: str, search: int = 0) -> tuple[float, float] | None:
        """Where ``ball`` is drawn at ``frame`` (or the nearest earlier frame within ``search``
        frames: a pocketed ball is gone from the rows on the frame it drops)."""
        if ball not in BALLS:
            return None
        b = BALLS.index(ball)
        for f in range(min(frame, self.frame_count - 1), max(frame - search, 0) - 1, -1):
            x, y = self.px[f, b]
            if math.isfinite(x):
                return float(x), float(y)
        return None

    def balls_at(self, frame: int) -> list[tuple[str, float, float, bool]]:
        """(ball, x_px, y_px, visible) of every ball the tracker has at ``frame``."""
        if not 0 <= frame < self.frame_count:
            return []
        out = []
        for b, ball in enumerate(BALLS):
            x, y = self.px[frame, b]
            if math.isfinite(x):
                out.append((ball, float(x), float(y), bool(self.visible[frame, b])))
        return out

    def trails_at(self, frame: int) -> dict[str, list[tuple[FloatArray, npt.NDArray[np.int64]]]]:
        """Per ball, the pieces of its trail up to ``frame``: (points px (k, 2), age in frames
        of each point). Broken where the ball was not seen or jumped (was put back)."""
        first = max(0, frame - self.trail_frames + 1)
        if frame >= self.frame_count or first > frame:
            return {}
        out: dict[str, list[tuple[FloatArray, npt.NDArray[np.int64]]]] = {}
        ages = frame - np.arange(first, frame + 1)
        for b, ball in enumerate(BALLS):
            ok = self.visible[first:frame + 1, b] & np.isfinite(self.px[first:frame + 1, b, 0])
            pts, mm, age = (self.px[first:frame + 1, b][ok], self.mm[first:frame + 1, b][ok],
                            ages[ok])
            if len(pts) < 2:
                continue
            gaps = (np.hypot(*(np.diff(mm, axis=0).T)) > TRAIL_BREAK_MM) | (np.diff(age) < -5)
            pieces = []
            for piece in np.split(np.arange(len(pts)), np.flatnonzero(gaps) + 1):
                if len(piece) >= 2:
                    pieces.append((pts[piece], age[piece]))
            if pieces:
                out[ball] = pieces
        return out

    # shots and events -------------------------------------------------------------------------
    def add_shot(self, shot: Mapping[str, Any]) -> None:
        """One shot of the match report (its events and verdict), in the order played."""
        if "verdict" not in shot or not shot.get("events"):
            return  # a score correction: no frame to show it at
        number = len(self.shots) + 1
        frames = [self._frame_of(e) for e in shot["events"]]
        strike = int(shot.get("strike_frame", frames[0]))
        rest = shot.get("rest_frame")
        verdict_frame = int(rest) if rest is not None else max(frames) + round(self.fps)
        try:
            verdict = Verdict.from_dict(shot["verdict"], f"shots[{number - 1}].verdict")
        except (KaisaError, KeyError, TypeError, ValueError) as err:
            raise InputError(f"cannot draw a verdict ({err})", "report") from None
        self.shots = sorted([*self.shots, ShotSpan(number, strike, max(verdict_frame, strike),
                                                   verdict)], key=lambda s: s.strike_frame)
        self.marks = sorted([*self.marks, *self._marks(shot)], key=lambda m: m.frame)

    def _frame_of(self, event: Mapping[str, Any]) -> int:
        if event.get("frame") is not None:
            return int(event["frame"])
        return round(float(event.get("t", 0.0)) * self.fps)

    def _marks(self, shot: Mapping[str, Any]) -> Iterator[Mark]:
        for event in shot.get("events") or []:
            frame = self._frame_of(event)
            kind = str(event.get("type"))
            if kind == "contact":
                a, b = (self.ball_px(frame, ball, search=3) for ball in event["balls"])
                where = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2) if a and b else (a or b)
                yield Mark(kind, frame, where, "-".join(event["balls"]))
            elif kind == "cushion":
                yield Mark(kind, frame, self.ball_px(frame, event["ball"], search=3),
                           str(event.get("cushion", "")))
            elif kind == "pocket":
                pocket = str(event.get("pocket", ""))
                yield Mark(kind, frame, self.pockets_px(frame).get(pocket),
                           f"POT {event['ball']} {pocket}")
            elif kind == "off_table":
                yield Mark(kind, frame, self.ball_px(frame, event["ball"], search=self.fps_i),
                           f"OFF {event['ball']}")
            elif kind == "strike":
                yield Mark(kind, frame, self.ball_px(frame, event["ball"], search=3),
                           f"strike {event['ball']}")

    @property
    def fps_i(self) -> int:
        return max(1, round(self.fps))

    def marks_at(self, frame: int) -> list[tuple[Mark, int]]:
        """The events shown at ``frame``, with their age in frames."""
        return [(m, frame - m.frame) for m in self.marks
                if 0 <= frame - m.frame < self.event_frames]

    def scoreboard(self, frame: int) -> Scoreboard:
        score, shooter, number = self.start_score, self.start_shooter, 1
        winner: int | None = None
        in_play = False
        for span in self.shots:
            if frame < span.strike_frame:
                break
            if frame < span.verdict_frame:  # struck, not yet decided
                shooter, number, in_play = span.verdict.shooter, span.number, True
                break
            score, winner = span.verdict.score, span.verdict.winner
            shooter = span.verdict.next_shooter or span.verdict.shooter
            number = span.number + 1
        return Scoreboard(score, shooter, f"W{shooter}", number, in_play, winner)

    def decided(self, frame: int) -> ShotSpan | None:
        """The last verdict, from the moment it is made until the next strike."""
        last = None
        for i, span in enumerate(self.shots):
            following = self.shots[i + 1].strike_frame if i + 1 < len(self.shots) else None
            if span.verdict_frame <= frame and (following is None or frame < following):
                last = span
        return last

    def respots_px(self, span: ShotSpan, frame: int) -> list[tuple[str, str, tuple[float, float]]]:
        """(ball, spot, pixels at ``frame``) of each respot the verdict asks for."""
        if not span.verdict.respots:
            return []
        px = self.calibration_at(frame).table_to_image([r.xy_mm for r in span.verdict.respots])
        return [(r.ball.value, r.spot.value, (float(x), float(y)))
                for r, (x, y) in zip(span.verdict.respots, px, strict=True)]

    def _house_outline(self, calibration: Calibration) -> npt.NDArray[np.int32]:
        """The house (x < L/4) as a polygon in pixels, sampled along its sides (lens bend)."""
        hx, w = self.table.house_line_x, self.table.width_mm
        s = np.linspace(0.0, 1.0, 12)
        pts = np.concatenate([
            np.stack([np.zeros_like(s), s * w], axis=1), np.stack([s * hx, np.full_like(s, w)], 1),
            np.stack([np.full_like(s, hx), (1 - s) * w], 1), np.stack([(1 - s) * hx, 0 * s], 1)])
        return np.round(calibration.table_to_image(pts)).astype(np.int32)


# --- drawing ----------------------------------------------------------------------------------
def _pt(xy: Sequence[float]) -> tuple[int, int]:
    return round(xy[0]), round(xy[1])


def _text(image: Image, text: str, org: tuple[int, int], scale: float,
          colour: tuple[int, int, int], thickness: int = 1) -> None:
    """Text with a dark outline, legible on cloth, rail and balls alike. (The outline is the
    text shifted, not a thicker text: OpenCV 5's fonts grow wider with the thickness.)"""
    x, y = org
    for dx, dy in ((-1, -1), (1, -1), (-1, 1), (1, 1), (2, 2)):
        cv2.putText(image, text, (x + dx, y + dy), FONT, scale, (0, 0, 0), thickness,
                    cv2.LINE_AA)
    cv2.putText(image, text, org, FONT, scale, colour, thickness, cv2.LINE_AA)


def _blend(image: Image, points: FloatArray, alpha: float, pad: int,
           draw: Any) -> None:
    """Run ``draw(roi, offset)`` on a copy of the region around ``points`` and blend it back with
    opacity ``alpha`` (the region only: cheap for small marks)."""
    h, w = image.shape[:2]
    x0, y0 = np.floor(points.min(axis=0)).astype(int) - pad
    x1, y1 = np.ceil(points.max(axis=0)).astype(int) + pad
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 <= x0 or y1 <= y0:
        return
    roi = image[y0:y1, x0:x1]
    layer = roi.copy()
    draw(layer, np.array([x0, y0], dtype=np.float64))
    cv2.addWeighted(layer, alpha, roi, 1.0 - alpha, 0.0, dst=roi)


def _draw_trail(image: Image, points: FloatArray, ages: npt.NDArray[np.int64],
                colour: tuple[int, int, int], span: int) -> None:
    """A polyline whose older parts are fainter (four steps of opacity). ``points`` run from the
    oldest to the newest, so each step of age is one stretch of the line."""
    steps = 4
    bucket = np.minimum(ages[1:] * steps // max(span, 1), steps - 1)  # per segment
    for q in range(steps - 1, -1, -1):  # oldest first, newest on top
        seg = np.flatnonzero(bucket == q)
        if len(seg) == 0:
            continue
        stretch = points[seg[0]:seg[-1] + 2]

        def draw(layer: Image, offset: FloatArray, stretch: FloatArray = stretch,
                 width: int = 3 if q == 0 else 2) -> None:
            line = np.round(stretch - offset).astype(np.int32)
            cv2.polylines(layer, [line], False, colour, width, cv2.LINE_AA)

        _blend(image, stretch, (steps - q) / steps, 4, draw)


def _dashed_circle(image: Image, centre: tuple[int, int], radius: int,
                   colour: tuple[int, int, int], thickness: int = 2) -> None:
    for start in range(0, 360, 40):
        cv2.ellipse(image, centre, (radius, radius), 0, start, start + 22, colour, thickness,
                    cv2.LINE_AA)


def draw_scoreboard(image: Image, board: Scoreboard) -> None:
    """Top left: the score, who is to play (or playing), the shot number."""
    x0, y0, x1, y1 = SCOREBOARD_BOX
    cv2.rectangle(image, (x0, y0), (x1, y1), (25, 25, 25), -1)
    cv2.rectangle(image, (x0, y0), (x1, y1), (200, 200, 200), 1)
    s1, s2 = board.score
    for k, (player, score) in enumerate(((1, s1), (2, s2))):
        x = x0 + 12 + k * 150
        colour = (0, 215, 255) if player == board.shooter and board.winner is None else (
            230, 230, 230)
        _text(image, f"P{player} {score:2d}", (x, y0 + 35), 0.9, colour, 2)
        if player == board.shooter and board.winner is None:  # the shooter's marker
            tri = np.array([[x - 10, y0 + 16], [x - 10, y0 + 32], [x - 2, y0 + 24]], np.int32)
            cv2.fillPoly(image, [tri], colour, cv2.LINE_AA)
    if board.winner is not None:
        status = f"player {board.winner} WINS"
    elif board.in_play:
        status = f"shot {board.shot_number}: P{board.shooter} ({board.cue_ball}) playing"
    else:
        status = f"shot {board.shot_number}: P{board.shooter} ({board.cue_ball}) to play"
    _text(image, status, (x0 + 305, y0 + 32), 0.55, (230, 230, 230), 1)


def draw_overlay(image: Image, plan: OverlayPlan, frame: int) -> None:
    """Everything for one frame, in place: trails, balls, events, verdict marks, scoreboard."""
    r = max(4, round(plan.ball_radius_px))
    decided = plan.decided(frame)
    if decided is not None:  # what the verdict asks the players to do, until the next strike
        if decided.verdict.in_hand:
            house_px = plan.house_px(frame)
            house = house_px.astype(np.float64)

            def fill(layer: Image, offset: FloatArray) -> None:
                cv2.fillPoly(layer, [np.round(house - offset).astype(np.int32)], (255, 255, 255))

            _blend(image, house, 0.18, 2, fill)
            cv2.polylines(image, [house_px], True, (255, 255, 255), 2, cv2.LINE_AA)
            top = house_px[np.argmin(house_px[:, 1])]
            names = "+".join(b.value for b in decided.verdict.in_hand)
            _text(image, f"{names} in hand: house", (int(top[0]) + 6, int(top[1]) + 22), 0.6,
                  (255, 255, 255), 1)
        for ball, spot, xy in plan.respots_px(decided, frame):
            _dashed_circle(image, _pt(xy), r + 8, BALL_BGR.get(ball, (255, 255, 255)), 2)
            cv2.drawMarker(image, _pt(xy), (255, 255, 255), cv2.MARKER_CROSS, r, 1)
            _text(image, f"{ball} -> {spot}", (round(xy[0]) + r + 6, round(xy[1]) + r + 14), 0.5,
                  BALL_BGR.get(ball, (255, 255, 255)), 1)
    for ball, pieces in plan.trails_at(frame).items():
        for points, ages in pieces:
            _draw_trail(image, points, ages, BALL_BGR[ball], plan.trail_frames)
    for ball, x, y, visible in plan.balls_at(frame):
        colour = BALL_BGR[ball] if visible else (150, 150, 150)
        cv2.circle(image, _pt((x, y)), r + 3, colour, 2 if visible else 1, cv2.LINE_AA)
        _text(image, ball if visible else ball + "?", (round(x) + r, round(y) - r - 2), 0.55,
              colour, 1)
    for mark, age in plan.marks_at(frame):
        if mark.xy_px is None and mark.kind != "pocket":
            continue
        grow = age * 12 // max(plan.event_frames, 1)
        if mark.kind == "contact" and mark.xy_px is not None:
            c = _pt(mark.xy_px)
            cv2.circle(image, c, r + 6 + grow, (0, 140, 255), 3, cv2.LINE_AA)
            cv2.drawMarker(image, c, (0, 140, 255), cv2.MARKER_STAR, r + 4, 2)
            _text(image, mark.text, (c[0] - 20, c[1] + r + 26 + grow), 0.5, (0, 140, 255), 1)
        elif mark.kind == "cushion" and mark.xy_px is not None:
            c = _pt(mark.xy_px)
            cv2.drawMarker(image, c, (255, 255, 0), cv2.MARKER_SQUARE, 2 * r + 12 + grow, 2)
            _text(image, mark.text, (c[0] + r + 8, c[1] - r - 8), 0.5, (255, 255, 0), 1)
        elif mark.kind == "strike" and mark.xy_px is not None:
            cv2.circle(image, _pt(mark.xy_px), r + 10 + grow, (255, 255, 255), 1, cv2.LINE_AA)
        elif mark.kind in ("pocket", "off_table"):
            h, w = image.shape[:2]
            anchor = mark.xy_px or (w / 2, h / 2)
            if mark.xy_px is not None:
                cv2.circle(image, _pt(anchor), 2 * r + 4 + grow // 2, (0, 255, 255), 3,
                           cv2.LINE_AA)
            # The words go a third of the way from the pocket to the picture's centre: near
            # the pocket, clear of the balls around its mouth, inside the picture.
            (tw, th), _ = cv2.getTextSize(mark.text, FONT, 1.1, 3)
            cx = anchor[0] + (w / 2 - anchor[0]) / 3
            cy = anchor[1] + (h / 2 - anchor[1]) / 3
            tx = int(min(max(cx - tw / 2, 10), w - tw - 10))
            ty = int(min(max(cy + th / 2, SCOREBOARD_BOX[3] + th + 10), h - 50))
            _text(image, mark.text, (tx, ty), 1.1, (0, 255, 255), 3)
    if decided is not None:
        words = f"shot {decided.number}: {describe(decided.verdict)}"
        h, w = image.shape[:2]
        scale = min(0.6, 0.6 * (w - 30) / max(cv2.getTextSize(words, FONT, 0.6, 1)[0][0], 1))
        (tw, th), _ = cv2.getTextSize(words, FONT, scale, 1)
        cv2.rectangle(image, (8, h - th - 22), (tw + 22, h - 8), (25, 25, 25), -1)
        _text(image, words, (15, h - 15), scale, (255, 255, 255), 1)
    draw_scoreboard(image, plan.scoreboard(frame))


# --- drawn while the match is refereed ---------------------------------------------------------
HOLD_S = 8.0  # seconds of frames held at most, waiting for their shot's verdict


class DrawnAsRead:
    """The annotated video drawn from the frames the referee reads, in the same decoding pass.

    A frame is held until every shot it may belong to has been judged (``release``: the shot
    stream says which frames are settled), so its events and the verdict are drawn at their
    time; then it is drawn and written. At most ``hold_s`` of frames are held: a longer shot's
    first frames are drawn before its verdict is known, with what is known then (the balls,
    their trails, the scoreboard; ``drawn_early`` counts them). Memory stays bounded whatever
    the match's length; the frames are written as the video is read."""

    def __init__(self, path: Path, plan: OverlayPlan, hold_s: float = HOLD_S,
                 expected_frames: int = 0) -> None:
        folder = path.parent if str(path.parent) else Path(".")
        if not folder.is_dir():
            raise InputError(f"no such folder: {folder}", str(path))
        self.path = path
        self.plan = plan
        self._hold = max(1, round(hold_s * plan.fps))
        self._held: deque[tuple[int, Any]] = deque()
        self._sink: BackgroundWriter | None = None
        self._size: tuple[int, int] | None = None
        self.drawn_early = 0
        self._expected = expected_frames  # (the container's count, for a video ending early)
        self._seconds = 0.0

    def seen(self, index: int, frame: Any) -> None:
        """A frame as the tracking reads it (BGR or planar)."""
        self._held.append((index, frame))
        while len(self._held) > self._hold:
            self._draw(*self._held.popleft(), early=True)

    def release(self, settled_before: int) -> None:
        """Frames before ``settled_before`` belong to no shot still to be judged: draw them."""
        while self._held and self._held[0][0] < settled_before:
            self._draw(*self._held.popleft(), early=False)

    def finish(self) -> Annotated:
        """The video has been refereed to its end: draw what is held, close the file."""
        while self._held:
            self._draw(*self._held.popleft(), early=False)
        clock = time.perf_counter()
        if self._sink is None:
            raise InputError("no frame was read to draw", str(self.path))
        try:
            self._sink.close(keep=True)
        except VideoError as err:
            raise InputError(str(err), str(self.path)) from None
        self._seconds += time.perf_counter() - clock
        return Annotated(self.path, self._sink.encoder, self._sink.frames, self._expected,
                         self._seconds, self.drawn_early)

    def abandon(self) -> None:
        """The run failed: no half video is left behind."""
        self._held.clear()
        if self._sink is not None:
            self._sink.close(keep=False)

    def _draw(self, index: int, frame: Any, early: bool) -> None:
        clock = time.perf_counter()
        # (a BGR frame is the reader's own, perhaps kept for a still too: drawn on a copy)
        image = (frame.copy() if isinstance(frame, np.ndarray) else
                 np.ascontiguousarray(as_bgr(frame), dtype=np.uint8))
        size = (image.shape[1], image.shape[0])
        if self._sink is None:
            try:
                # (encoded on a thread of its own while the tracking goes on)
                self._sink = BackgroundWriter(VideoWriter(self.path, size, self.plan.fps))
            except VideoError as err:
                raise InputError(str(err), str(self.path)) from None
            self._size = size
        elif size != self._size:  # a stream that changes size midway
            image = np.asarray(cv2.resize(image, self._size), dtype=np.uint8)
        draw_overlay(image, self.plan, index)
        try:
            self._sink.write(image)
        except VideoError as err:
            raise InputError(str(err), str(self.path)) from None
        self.drawn_early += early
        self._seconds += time.perf_counter() - clock


# --- video in, video out ----------------------------------------------------------------------
@dataclass(frozen=True)
class Annotated:
    """What :func:`annotate_video` wrote."""

    path: Path
    encoder: str
    frames: int  # frames written (= frames decoded)
    expected_frames: int  # frames the container announced (0 when it does not say)
    seconds: float
    drawn_early: int = 0  # frames drawn before their shot was judged (a shot held too long)

    @property
    def ended_early(self) -> bool:
        return 0 < self.frames < self.expected_frames

    def log_line(self) -> str:
        line = (f"annotated video: {self.path} ({self.encoder}, {self.frames} frames, "
                f"{self.seconds:.1f} s)")
        if self.ended_early:
            line += f"; the video ended early (the container announced {self.expected_frames})"
        if self.drawn_early:
            line += (f"; {self.drawn_early} frames of long shots drawn before their verdict "
                     "was known")
        return line


def annotate_video(video: Path, out: Path, report: Mapping[str, Any], calibration: Calibration,
                   rows: Iterable[Row], fps: float | None = None,
                   recalibrated: Sequence[tuple[int, Calibration]] = ()) -> Annotated:
    """Write ``out``: ``video`` with the overlay of ``report``'s shots and verdicts and the
    tracker's ``rows`` (frame, ball, x_mm, y_mm, visible) drawn on every frame; from each
    ``recalibrated`` (frame, calibration) on, drawn with that calibration (the camera moved)."""
    clock = time.perf_counter()
    try:
        info = probe(video)
    except VideoError:
        info = None
    if info is None or min(info.size) <= 0:
        raise InputError("expected a video OpenCV can decode (for the annotated video)",
                         str(video))
    plan = OverlayPlan(report, calibration, rows, fps or info.fps, recalibrated)
    drawing = DrawnAsRead(out, plan, expected_frames=info.frame_count or 0)
    try:
        for frame, image, _ in read_ahead_frames(video, queue_size=4):
            drawing.seen(frame, image)
            drawing.release(frame + 1)  # (every shot is judged already)
        result = drawing.finish()
    except BaseException:
        drawing.abandon()
        raise
    return replace(result, seconds=time.perf_counter() - clock)
