"""Tracking the five balls with fixed identities W1 W2 R1 R2 Y.

Every frame the predicted positions of the balls on the table (constant velocity, alpha-beta
filter, mm per frame) are matched to the detections by ``linear_sum_assignment`` on the distance,
with a prohibitive cost between different colour classes and a gate that grows with the speed.
Identities:

* W1 / W2 by their dots (W2 shows two dots side by side, W1 one) while the dots are seen, by
  continuity otherwise; the evidence is counted per track and a swap is undone when the dots say so;
* the reds are alike: R1 is the red nearer the head (smaller x) in the first frames, and they
  are kept apart by continuity;
* a ball not seen is kept at its last position for up to ``hide_s`` (hidden under a hand or the
  cue); one that vanishes within a ball diameter of a pocket's mouth is pocketed (its track
  ends); a ball of a class with a free identity that appears and stays is picked up again
  (respotted, or back from under the hand).
"""

from __future__ import annotations

import contextlib
import csv
import math
import threading
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from queue import Empty, Queue

import cv2
import numpy as np
from scipy.optimize import linear_sum_assignment

from calibration import Calibration
from rules.table import Pocket, TableSpec
from vision.detect import BallDetector, Detection, Frame, VisionError

BALLS = ("W1", "W2", "R1", "R2", "Y")
CLASS_OF = {"W1": "white", "W2": "white", "R1": "red", "R2": "red", "Y": "yellow"}
_FAR = 1e6


@dataclass
class BallState:
    """One ball's track: table mm, velocity in mm per frame, and what the tracker knows."""

    ball: str
    x: float
    y: float
    vx: float = 0.0
    vy: float = 0.0
    visible: bool = True
    last_seen: int = 0
    status: str = "table"  # "table" | "hidden" | "pocketed" | "lost"
    pair: int = 0  # frames in which this (white) ball showed W2's pair of dots
    single: int = 0  # frames in which it showed one small dot


@dataclass(frozen=True)
class FrameTracks:
    """The tracker's answer for one frame: every ball on the table (hidden ones at their last
    position with ``visible`` False), plus the raw detections."""

    frame: int
    t: float
    balls: dict[str, tuple[float, float, bool]]
    detections: tuple[Detection, ...] = field(default=(), repr=False)


class Tracker:
    """Assigns detections to the five identities, frame by frame.

    ``fps``: frames per second (for ``hide_s``); ``table``: for the pockets and the ball size;
    ``cue_ball``: the white the shooter will strike (from the game state), which names the whites
    when their dots do not: frames are then held back (at most ``max_delay_s``) until the dots
    or the strike decide.
    """

    def __init__(self, table: TableSpec, fps: float = 30.0, *, hide_s: float = 2.0,
                 init_frames: int = 10, cue_ball: str | None = None,
                 max_delay_s: float = 10.0) -> None:
        if cue_ball not in (None, "W1", "W2"):
            raise VisionError(f"expected cue_ball W1, W2 or None, got {cue_ball!r}")
        self.cue_ball = cue_ball
        self.unresolved = False
        self._buffer: list[FrameTracks] = []
        self.max_delay = max(1, round(max_delay_s * fps))
        if fps <= 0:
            raise VisionError(f"expected fps > 0, got {fps}")
        self.table = table
        self.fps = fps
        self.hide_frames = max(1, round(hide_s * fps))
        self.init_frames = init_frames
        self.d = table.ball_diameter_mm
        self.states: dict[str, BallState] = {}
        self._pockets = np.array([table.pocket_xy(p) for p in Pocket])
        self._pending: deque[tuple[int, list[Detection]]] = deque()
        self._candidates: dict[str, list[tuple[int, float, float]]] = {}
        self.started = False

    # --- initial identities -------------------------------------------------------------------
    def _initialise(self, frames: list[tuple[int, list[Detection]]]) -> None:
        """Objects seen in most of the first frames, named by class, dots and position."""
        objects: list[dict[str, object]] = []
        for _, dets in frames:
            taken: set[int] = set()
            for det in dets:
                if det.colour not in ("white", "red", "yellow"):
                    continue
                for o in objects:
                    ox, oy = o["xy"]  # type: ignore[misc]
                    if id(o) in taken:
                        continue
                    if math.hypot(det.x_mm - ox, det.y_mm - oy) < 0.5 * self.d:
                        taken.add(id(o))
                        o["n"] = int(o["n"]) + 1  # type: ignore[call-overload]
                        o["xy"] = (det.x_mm, det.y_mm)
                        o["two"] = int(o["two"]) + self._is_pair(det)  # type: ignore[call-overload]
                        o["one"] = int(o["one"]) + self._is_single(det)  # type: ignore[call-overload]
                        o["colours"].append(det.colour)  # type: ignore[attr-defined]
                        o["score"] = float(o["score"]) + det.score  # type: ignore[arg-type]
                        break
                else:
                    objects.append({"xy": (det.x_mm, det.y_mm), "n": 1,
                                    "two": int(self._is_pair(det)),
                                    "one": int(self._is_single(det)), "colours": [det.colour],
                                    "score": det.score})
        need = max(1, len(frames) // 2)
        by_class: dict[str, list[dict[str, object]]] = {"white": [], "red": [], "yellow": []}
        for o in objects:
            if int(o["n"]) < need:  # type: ignore[call-overload]
                continue
            cols: list[str] = o["colours"]  # type: ignore[assignment]
            cls = max(set(cols), key=cols.count)
            by_class[cls].append(o)
        for cls in by_class:
            by_class[cls].sort(key=lambda o: -float(o["score"]) / int(o["n"]))  # type: ignore
        f0 = frames[0][0]

        def add(ball: str, o: dict[str, object]) -> None:
            x, y = o["xy"]  # type: ignore[misc]
            self.states[ball] = BallState(ball, float(x), float(y), last_seen=f0,
                                          pair=int(o["two"]),  # type: ignore[call-overload]
                                          single=int(o["one"]))  # type: ignore[call-overload]

        whites = by_class["white"][:2]
        if len(whites) == 2:
            a, b = whites
            pairs = [int(o["two"]) for o in whites]  # type: ignore[call-overload]
            if pairs[0] > pairs[1]:
                a, b = b, a
            add("W1", a)
            add("W2", b)
            # neither shows W2's pair clearly: wait for the dots, or for the strike
            self.unresolved = abs(pairs[0] - pairs[1]) < 3
        elif len(whites) == 1:
            o = whites[0]
            add("W2" if int(o["two"]) > int(o["one"]) else "W1", o)  # type: ignore[call-overload]
        reds = sorted(by_class["red"][:2], key=lambda o: o["xy"][0])  # type: ignore[index]
        for ball, o in zip(("R1", "R2"), reds, strict=False):
            add(ball, o)
        if by_class["yellow"]:
            add("Y", by_class["yellow"][0])
        self.started = True

    # --- per frame ----------------------------------------------------------------------------
    def update(self, frame: int, detections: list[Detection]) -> list[FrameTracks]:
        """Feed one frame's detections; returns the frames now decided (the first
        ``init_frames`` are held back until the initial identities are known)."""
        if not self.started:
            self._pending.append((frame, detections))
            if len(self._pending) < self.init_frames:
                return []
            self._initialise(list(self._pending))
            out = [self._step(f, d) for f, d in self._pending]
            self._pending.clear()
            return self._release(out)
        return self._release([self._step(frame, detections)])

    def _release(self, results: list[FrameTracks]) -> list[FrameTracks]:
        """Hold results back while the whites are undecided (and a cue ball is known)."""
        self._buffer.extend(results)
        if self.unresolved and self.cue_ball is not None and len(self._buffer) < self.max_delay:
            return []
        out, self._buffer = self._buffer, []
        return out

    def flush(self) -> list[FrameTracks]:
        """Decide the frames still held back (a clip shorter than ``init_frames``, or whites
        still undecided at the end)."""
        if not self.started and self._pending:
            self._initialise(list(self._pending))
            self._buffer.extend(self._step(f, d) for f, d in self._pending)
            self._pending.clear()
        out, self._buffer = self._buffer, []
        return out

    def _step(self, frame: int, dets: list[Detection]) -> FrameTracks:
        active = [s for s in self.states.values() if s.status in ("table", "hidden")]
        used: set[int] = set()
        if active and dets:
            cost = np.full((len(active), len(dets)), _FAR)
            for i, s in enumerate(active):
                gap = max(1, frame - s.last_seen)
                if s.status == "table":
                    px, py = s.x + s.vx * gap, s.y + s.vy * gap
                    speed = math.hypot(s.vx, s.vy)
                    gate = 1.5 * self.d + 2.0 * speed * gap
                else:  # hidden: it is where it was last seen (a hand's pieces are near)
                    px, py = s.x, s.y
                    gate = 0.75 * self.d
                for j, det in enumerate(dets):
                    dist = math.hypot(det.x_mm - px, det.y_mm - py)
                    if dist > gate:
                        continue
                    c = dist
                    if det.colour != CLASS_OF[s.ball]:
                        if det.colour != "other" and not (det.streak_mm or det.piece
                                                          or not det.colour_sure):
                            continue
                        c += self.d  # a doubtful colour (a streak, a ball under the cue)
                    cost[i, j] = c
            rows, cols = linear_sum_assignment(cost)
            for i, j in zip(rows, cols, strict=True):
                if cost[i, j] >= _FAR:
                    continue
                self._observe(active[i], dets[j], frame)
                used.add(j)
            # second chance: a ball struck from rest (or leaving the hand) jumps further than
            # its gate; an unclaimed detection of its colour within the fastest shot's reach
            left = [s for s in active if s.last_seen != frame]
            free = [j for j in range(len(dets)) if j not in used]
            if left and free:
                reach = 5.0 * self.d  # 170 mm per frame at 30 fps: a hard shot
                cost2 = np.full((len(left), len(free)), _FAR)
                for i, s in enumerate(left):
                    for k, j in enumerate(free):
                        det = dets[j]
                        if det.colour != CLASS_OF[s.ball] and not (
                                det.streak_mm or det.piece or not det.colour_sure):
                            continue
                        dist = math.hypot(det.x_mm - s.x, det.y_mm - s.y)
                        # beyond two diameters only a blurred (fast) ball can be the struck one
                        near = 2.0 if s.status == "table" else 1.5  # diameters
                        if dist <= near * self.d or (dist <= reach
                                                     and det.streak_mm > 0.5 * self.d):
                            cost2[i, k] = dist
                rows, cols = linear_sum_assignment(cost2)
                for i, k in zip(rows, cols, strict=True):
                    if cost2[i, k] < _FAR:
                        self._observe(left[i], dets[free[k]], frame, jump=True)
                        used.add(free[k])
        for s in active:
            if s.last_seen == frame:
                continue
            s.visible = False
            missing = frame - s.last_seen
            if s.status == "table":
                if self._near_pocket(s.x + s.vx, s.y + s.vy):
                    s.status = "pocketed"
                    continue
                s.status = "hidden"
                s.vx = s.vy = 0.0
            if missing > self.hide_frames:
                s.status = "lost"
        self._pick_up(frame, [d for j, d in enumerate(dets) if j not in used])
        self._check_whites()
        if self.unresolved:
            self._strike_resolves(frame)
        balls = {b: (s.x, s.y, s.visible) for b, s in self.states.items()
                 if s.status in ("table", "hidden")}
        return FrameTracks(frame, frame / self.fps, dict(sorted(balls.items())), tuple(dets))

    def _observe(self, s: BallState, det: Detection, frame: int, jump: bool = False) -> None:
        gap = max(1, frame - s.last_seen)
        if jump:
            s.vx, s.vy = (det.x_mm - s.x) / gap, (det.y_mm - s.y) / gap
        elif s.status == "table":
            px, py = s.x + s.vx * gap, s.y + s.vy * gap
            rx, ry = det.x_mm - px, det.y_mm - py
            beta = 0.5
            s.vx += beta * rx / gap
            s.vy += beta * ry / gap
        else:
            s.vx = s.vy = 0.0
        s.x, s.y = det.x_mm, det.y_mm
        s.visible = True
        s.status = "table"
        s.last_seen = frame
        # dots are trusted only on a clean ball at rest (a rolling or blurred ball, or one
        # touched by the cue's shadow, shows false dark blobs)
        if det.streak_mm == 0.0 and det.score > 0.7 and math.hypot(s.vx, s.vy) < 0.05 * self.d:
            s.pair += self._is_pair(det)
            s.single += self._is_single(det)

    def _is_pair(self, det: Detection) -> bool:
        """W2's two dots (seen apart, or merged into one long blob)."""
        return det.dots >= 2 or det.dot_spread_mm > 0.2 * self.table.ball_radius_mm

    def _is_single(self, det: Detection) -> bool:
        return det.dots == 1 and det.dot_spread_mm < 0.15 * self.table.ball_radius_mm

    def _near_pocket(self, x: float, y: float) -> bool:
        d = np.hypot(self._pockets[:, 0] - x, self._pockets[:, 1] - y)
        return bool(d.min() < 1.5 * self.d)

    def _pick_up(self, frame: int, free: list[Detection]) -> None:
        """A ball of a class with a free identity that stays put for 3 frames takes it."""
        for det in free:
            if det.colour not in ("white", "red", "yellow") or det.score < 0.5:
                continue
            ids = [b for b in BALLS if CLASS_OF[b] == det.colour
                   and (b not in self.states or self.states[b].status in ("pocketed", "lost"))]
            if not ids:
                continue
            if any(math.hypot(det.x_mm - s.x, det.y_mm - s.y) < self.d
                   for s in self.states.values() if s.status in ("table", "hidden")):
                continue
            key = det.colour
            seen = [c for c in self._candidates.get(key, [])
                    if frame - c[0] <= 3
                    and math.hypot(c[1] - det.x_mm, c[2] - det.y_mm) < 0.5 * self.d]
            seen.append((frame, det.x_mm, det.y_mm))
            self._candidates[key] = seen
            if len(seen) < 3:
                continue
            ball = ids[0]
            if det.colour == "white" and len(ids) == 2:
                ball = "W2" if self._is_pair(det) else "W1"
            self.states[ball] = BallState(ball, det.x_mm, det.y_mm, last_seen=frame)
            self._candidates[key] = []

    def _check_whites(self) -> None:
        """Swap W1 and W2 when their dots clearly say so."""
        w1, w2 = self.states.get("W1"), self.states.get("W2")
        if w1 is None or w2 is None:
            return
        if w1.pair >= w2.pair + 10 and w1.pair > 3 * w2.pair and w2.single > w1.single:
            self._swap_whites()
            self._relabel_buffer()
            self.unresolved = False
        elif w2.pair >= w1.pair + 5:
            self.unresolved = False

    def _swap_whites(self) -> None:
        w1, w2 = self.states["W1"], self.states["W2"]
        w1.ball, w2.ball = "W2", "W1"
        self.states["W1"], self.states["W2"] = w2, w1

    def _strike_resolves(self, frame: int) -> None:
        """Undecided whites: the first to be struck (moving while the other rests) is the
        shooter's cue ball."""
        w1, w2 = self.states.get("W1"), self.states.get("W2")
        if self.cue_ball is None or w1 is None or w2 is None:
            return
        fast = 0.3 * self.d  # mm per frame: clearly struck
        m1 = w1.last_seen == frame and math.hypot(w1.vx, w1.vy) > fast
        m2 = w2.last_seen == frame and math.hypot(w2.vx, w2.vy) > fast
        if m1 == m2:
            return
        struck = "W1" if m1 else "W2"
        if struck != self.cue_ball:
            self._swap_whites()
        self.unresolved = False
        if struck != self.cue_ball:
            self._relabel_buffer()

    def _relabel_buffer(self) -> None:
        swap = {"W1": "W2", "W2": "W1"}
        self._buffer = [FrameTracks(r.frame, r.t, dict(sorted(
            (swap.get(b, b), v) for b, v in r.balls.items())), r.detections)
            for r in self._buffer]


# --- video --------------------------------------------------------------------------------------
def _frames(path: str | Path, queue_size: int = 8) -> Iterator[tuple[int, Frame]]:
    """Decoded frames, read ahead by a thread (decoding overlaps with detection)."""
    cap = cv2.VideoCapture(str(path))
    if not cap.isOpened():
        raise VisionError(f"expected a video OpenCV can decode, could not open {str(path)!r}")
    q: Queue[Frame | None] = Queue(maxsize=queue_size)
    stop = threading.Event()

    def read() -> None:
        try:
            while not stop.is_set():
                ok, frame = cap.read()
                if not ok:
                    break
                q.put(frame)
        finally:
            q.put(None)

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    try:
        index = 0
        while True:
            frame = q.get()
            if frame is None:
                break
            yield index, frame
            index += 1
    finally:
        stop.set()
        while thread.is_alive():
            with contextlib.suppress(Empty):
                q.get_nowait()
            thread.join(timeout=0.01)
        cap.release()


def video_fps(path: str | Path) -> float:
    cap = cv2.VideoCapture(str(path))
    try:
        fps = float(cap.get(cv2.CAP_PROP_FPS))
    finally:
        cap.release()
    return fps if fps > 0 else 30.0


def track_video(video_path: str | Path, calibration: Calibration,
                table: TableSpec | None = None, *, colour_frames: int = 10,
                cue_ball: str | None = None) -> Iterator[FrameTracks]:
    """Ball positions in every frame of a video, as :class:`FrameTracks` in frame order.

    The cloth is learned from the first frame, the colour classes from the detections of the
    first ``colour_frames`` frames (held back, a third of a second), then frames stream through.
    ``cue_ball`` ("W1"/"W2", the shooter's white from the game state) names the whites when
    their dots cannot (see :class:`Tracker`).
    """
    p = Path(video_path)
    if not p.is_file():
        raise VisionError(f"expected a video file, found nothing at {str(p)!r}")
    table = table or calibration.table
    detector = BallDetector(calibration)
    tracker = Tracker(table, video_fps(p), cue_ball=cue_ball)
    held: list[tuple[int, Frame, list[Detection]]] = []
    for index, frame in _frames(p):
        if detector.cloth is None:
            detector.learn_cloth(frame)
        dets = detector.detect(frame)
        if detector.colours is None:
            held.append((index, frame, dets))
            if len(held) < colour_frames:
                continue
            detector.fit_colours([d for _, _, ds in held for d in ds])
            for i, _, ds in held:
                yield from tracker.update(i, detector.classify(ds))
            held.clear()
            continue
        yield from tracker.update(index, dets)
    if held:
        all_dets = [d for _, _, ds in held for d in ds]
        if all_dets:
            detector.fit_colours(all_dets)
        for i, _, ds in held:
            yield from tracker.update(i, detector.classify(ds))
    yield from tracker.flush()


def write_tracks_csv(path: str | Path, results: Iterable[FrameTracks]) -> int:
    """Write ``frame,ball,x_mm,y_mm,visible`` rows (the labels' format); returns the frames."""
    n = 0
    p = Path(path)
    tmp = p.with_name(p.name + ".part")
    with tmp.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["frame", "ball", "x_mm", "y_mm", "visible"])
        for r in results:
            for ball in BALLS:
                if ball in r.balls:
                    x, y, vis = r.balls[ball]
                    w.writerow([r.frame, ball, f"{x:.2f}", f"{y:.2f}", int(vis)])
            n += 1
    tmp.replace(p)
    return n
