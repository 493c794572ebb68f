"""The motion model: where a ball is expected (constant velocity, mirrored off a cushion's
nose away from the pockets), how far from there it may be seen, whether it rests, what a
collision of this frame does to two balls, which rolling ball is arriving at one at rest, and
how near a pocket a place is."""

from __future__ import annotations

import math

import numpy as np

from rules.table import Pocket
from vision.tracking.state import BallState, Prediction, Setting


def still(setting: Setting, s: BallState) -> bool:
    """Slower than rest_speed_diameters_per_frame (at rest, or hidden where it lay)."""
    return math.hypot(s.vx, s.vy) < setting.params.rest_speed_diameters_per_frame * setting.d


def is_resting(setting: Setting, s: BallState) -> bool:
    """On the table, seen, and still."""
    return s.status == "table" and still(setting, s)


def predicted(setting: Setting, s: BallState, gap: int) -> tuple[float, float, float, float]:
    """Where ``s`` will be ``gap`` frames on at its velocity, and its velocity then: a ball
    that reaches a cushion's nose comes back off it (mirrored), unless it reaches the nose
    by a pocket (within one and a half balls of a jaw: it may go in). Straight on, a ball
    that bounced was predicted beyond the cushion, and half of that surprise went into its
    velocity (a red off a cushion at 6.5 m/s kept 0.6 m/s along the cushion, and a white
    took its next sighting)."""
    x, y, vx, vy = s.x + s.vx * gap, s.y + s.vy * gap, s.vx, s.vy
    t = setting.table
    r = t.ball_radius_mm
    for axis, high in ((0, t.length_mm - r), (1, t.width_mm - r)):
        p, v = (x, vx) if axis == 0 else (y, vy)
        bound = r if p < r else high if p > high else None
        if bound is None or v == 0.0:
            continue
        back = (p - bound) / v  # how long ago it reached the nose (frames)
        at = (x - vx * back, y - vy * back)
        nose = (bound, at[1]) if axis == 0 else (at[0], bound)
        if any(math.dist(nose, t.pocket_xy(q)) < t.jaw_offset_mm(q) + r + setting.d
               for q in Pocket):
            continue
        if axis == 0:
            x, vx = 2 * bound - x, -vx
        else:
            y, vy = 2 * bound - y, -vy
    return x, y, vx, vy


def reach_of(setting: Setting, speed: float, gap: int) -> float:
    """How far (mm) from where it is predicted a ball at ``speed`` (mm a frame) may be seen
    ``gap`` frames on: a ball and a half, and twice its travel (its speed is not yet known
    well: a ball just hit leaves faster than its first sightings say)."""
    return (setting.params.reach_diameters * setting.d
            + setting.params.reach_speed_ratio * speed * gap)


def stop_reach(setting: Setting, s: BallState) -> float:
    """How far from where it was last seen a ball may be found at rest after a moment
    unseen (merged with another, blurred, under a hand) without being seen on its way."""
    return (setting.params.stop_reach_diameters if s.status == "table"
            else setting.params.hidden_stop_reach_diameters) * setting.d


def collisions(setting: Setting, active: list[BallState], frame: int
               ) -> dict[str, list[Prediction]]:
    """Where the collisions of this frame send the balls, as other predictions than going
    straight on. Two balls whose straight paths meet (from a frame before the last sighting
    up to this frame) swap their velocities' parts along the line of centres at the touch,
    as equal balls do: a ball hit full stops and the one it hits leaves along its line.
    Without this, a streak leaving a stopped ball reads as the hitter rolling on."""
    out: dict[str, list[Prediction]] = {}
    balls = [s for s in active if s.status in ("table", "hidden")]
    for k, a in enumerate(balls):
        for b in balls[k + 1:]:
            va = (a.vx, a.vy) if a.status == "table" else (0.0, 0.0)
            vb = (b.vx, b.vy) if b.status == "table" else (0.0, 0.0)
            wx, wy = va[0] - vb[0], va[1] - vb[1]  # a's velocity relative to b's
            w2 = wx * wx + wy * wy
            if w2 < (setting.params.collision_speed_diameters_per_frame * setting.d) ** 2:
                continue  # a slow ball's prediction is near enough; a ball at rest jitters
            # from a frame before the last sighting of a moving ball (one at rest or hidden
            # is where it is at any time; a moving one's path is not run back to before it
            # was last seen: it may have been struck there, long after the other was seen)
            t0 = min(s.last_seen for s, v in ((a, va), (b, vb)) if v != (0.0, 0.0)) - float(
                setting.params.collision_back_frames)
            # b minus a at t0 (each from its own last sighting)
            ax, ay = a.x + va[0] * (t0 - a.last_seen), a.y + va[1] * (t0 - a.last_seen)
            bx, by = b.x + vb[0] * (t0 - b.last_seen), b.y + vb[1] * (t0 - b.last_seen)
            rx, ry = bx - ax, by - ay
            closing = rx * wx + ry * wy
            if closing <= 0:
                continue  # moving apart
            # first time the centres are one diameter apart: |r - w t| = d
            c = rx * rx + ry * ry - setting.d * setting.d
            disc = closing * closing - w2 * c
            if c <= 0 or disc < 0:
                continue  # touching already (at rest, or met before), or passing by
            t = (closing - math.sqrt(disc)) / w2
            if t0 + t > frame:
                continue  # not yet
            nx, ny = rx - wx * t, ry - wy * t
            norm = math.hypot(nx, ny)
            if norm < 1e-6:
                continue
            nx, ny = nx / norm, ny / norm
            j = wx * nx + wy * ny  # the part of the closing speed along the line of centres
            if j <= 0:
                continue
            left = frame - (t0 + t)  # frames from the touch to this frame
            gate = setting.params.reach_diameters * setting.d + math.sqrt(w2) * left
            for s, (vx, vy), (x, y), sign in ((a, va, (ax, ay), -1.0),
                                              (b, vb, (bx, by), 1.0)):
                ux, uy = vx + sign * j * nx, vy + sign * j * ny
                px, py = x + vx * t + ux * left, y + vy * t + uy * left
                out.setdefault(s.ball, []).append(Prediction(px, py, ux, uy, gate))
    return out


def arriving_hitter(setting: Setting, s: BallState, active: list[BallState], frame: int
                    ) -> BallState | None:
    """For a ball at rest: the moving ball arriving at it now (within reach of a contact
    in this frame, with the same allowance for a speed not yet known as its gate: a ball
    just hit is faster than its first two sightings say: a red sent by a white at 115 mm a
    frame, read as 77, merged with the other red at rest, which took the blob, and then
    the first red's place), if any."""
    if not is_resting(setting, s) or frame - s.rolled <= setting.params.kiss_stop_frames:
        return None
    best, best_d = None, math.inf
    for m in active:
        speed = math.hypot(m.vx, m.vy)
        if (m is s or m.status != "table"
                or speed < setting.params.slowest_roll_diameters_per_frame * setting.d):
            continue
        if (s.x - m.x) * m.vx + (s.y - m.y) * m.vy <= 0:
            continue  # leaving it, not arriving (a red just hit by the white, taken for
            # the white's hitter, kept it from its own sightings)
        gap = max(1, frame - m.last_seen)
        d = math.hypot(m.x - s.x, m.y - s.y)
        if d < reach_of(setting, speed, gap) and d < best_d:
            best, best_d = m, d
    return best


def sent_at(setting: Setting, s: BallState, active: list[BallState], frame: int
            ) -> BallState | None:
    """For a ball still in its place: a ball sent off unseen (see ``BallState.sent``) within
    the last sent_frames whose way runs at it (its line within a diameter of its centre), and
    which could have got there by now at the speed it was sent: its hitter, arriving unseen
    (a red sent unseen on a red cloth hit the other red, which was potted; the resting one's
    id then took the first red's picture arriving, off its place toward where it had lain)."""
    if s.status not in ("table", "hidden") or not still(setting, s):
        return None
    for m in active:
        if m is s or m.sent is None or m.status != "hidden" or m.last_seen > m.sent[0]:
            continue
        sent_frame, vx, vy = m.sent
        speed = math.hypot(vx, vy)
        if speed == 0 or frame - sent_frame > setting.params.sent_frames:
            continue
        dx, dy = s.x - m.x, s.y - m.y
        along = (dx * vx + dy * vy) / speed
        across = abs(dx * vy - dy * vx) / speed
        if along > 0 and across <= setting.d and (
                along - setting.d <= speed * (frame - m.last_seen)):
            return m
    return None


def pocket_gap(setting: Setting, x: float, y: float) -> float:
    """How far (mm) the point is from the nearest pocket's point."""
    return float(np.hypot(setting.pockets[:, 0] - x, setting.pockets[:, 1] - y).min())


def near_pocket(setting: Setting, x: float, y: float) -> bool:
    return pocket_gap(setting, x, y) < setting.params.pocket_near_diameters * setting.d


def in_a_mouth(setting: Setting, s: BallState) -> bool:
    """The ball was last seen in a pocket's mouth, dropping: its centre more than half a
    radius past a cushion's nose line, or within a radius of a pocket's point (where the
    nose lines meet, at a corner: the jaws keep a ball on the cloth twice as far). What it
    takes next is of its own colour, or a blurred streak (a ball rattled back out by the
    jaws); a thing of another colour nearby (a projected mark, a glint on the rim) is not
    it."""
    r = setting.table.ball_radius_mm
    past_the_nose = not setting.table.contains(
        (s.x, s.y), tolerance_mm=setting.params.mouth_depth_radii * r)
    return past_the_nose or pocket_gap(setting, s.x, s.y) < r


def struck(setting: Setting, s: BallState | None, frame: int) -> bool:
    """``s`` (if any) is seen this frame moving clearly faster than any creep or jitter."""
    return (s is not None and s.last_seen == frame
            and math.hypot(s.vx, s.vy) > setting.params.struck_diameters_per_frame * setting.d)
