"""Which white is which: W2 shows two dots side by side, W1 one; the dots' evidence is
counted per track, and a swap is undone when they clearly say so. While the whites are
known by continuity they must not come near each other, or only the dots can tell again.
A white back in sight by a way unseen may have hit the other at rest: then their ways out
tell which left that place (:class:`UnseenWays`)."""

from __future__ import annotations

import math
from collections.abc import Mapping

from vision.detection import Detection
from vision.tracking.geometry import nearest_on_the_way
from vision.tracking.params import TrackingParams
from vision.tracking.state import WHITES, BallState, Setting


def is_pair(setting: Setting, det: Detection) -> bool:
    """W2's two dots (seen apart, or merged into one long blob)."""
    return det.dots >= 2 or (det.dot_spread_mm
                             > setting.params.pair_spread_radii * setting.table.ball_radius_mm)


def is_single(setting: Setting, det: Detection) -> bool:
    """W1's one small dot."""
    return det.dots == 1 and (det.dot_spread_mm
                              < setting.params.single_spread_radii * setting.table.ball_radius_mm)


def came_near(setting: Setting, before: Mapping[str, tuple[float, float]],
              now: Mapping[str, tuple[float, float]]) -> bool:
    """The whites, both at ``now`` (each from where ``before`` has it, if it has it), came
    within whites_apart_diameters of each other on the way: the tracker may have mixed them
    up."""
    return nearest_on_the_way(before.get("W1", now["W1"]), now["W1"], before.get("W2", now["W2"]),
                              now["W2"]) < setting.params.whites_apart_diameters * setting.d


def dots_say(params: TrackingParams, w1: BallState, w2: BallState) -> str | None:
    """What the dots counted say: "swap" (the track named W1 clearly shows W2's pair, and
    the other W1's single dot more often), "decided" (W2 clearly shows its pair), or None."""
    if (w1.pair >= w2.pair + params.swap_lead_looks and w1.pair > params.swap_pair_ratio * w2.pair
            and w2.single > w1.single):
        return "swap"
    if w2.pair >= w1.pair + params.decided_lead_looks:
        return "decided"
    return None


OTHER_WHITE = {"W1": "W2", "W2": "W1"}


class UnseenWays:
    """Where each white was last seen, to tell when one comes back into sight by a way the
    tracker did not see (:meth:`back_by_a_way_unseen`), and which of the two whites then left
    the other's place of rest (:meth:`struck_from`)."""

    def __init__(self, setting: Setting) -> None:
        self.setting = setting
        # each white's last two sightings (frame, x, y), the last one last
        self._seen: dict[str, list[tuple[int, float, float]]] = {}

    def rename(self, mapping: Mapping[str, str]) -> None:
        self._seen = {mapping.get(b, b): s for b, s in self._seen.items()}

    def back_by_a_way_unseen(self, frame: int, balls: Mapping[str, tuple[float, float, bool]]
                             ) -> str | None:
        """Note this frame's whites (``balls``: x, y, seen this frame); the white, if any, seen
        again after frames out of sight off the way it went when lost (rolled on at its last
        speed) by whites_apart_diameters or more, where the other white lay within the reach
        of the way it may have gone instead (from where it was lost to the other white and on
        to where it is now, no longer than the hardest shot goes in that time)."""
        p = self.setting.params
        apart = p.whites_apart_diameters * self.setting.d
        back = None
        for ball in WHITES:
            other = OTHER_WHITE[ball]
            if ball not in balls or not balls[ball][2]:
                continue
            x, y = balls[ball][:2]
            seen = self._seen.setdefault(ball, [])
            if seen and seen[-1][0] < frame - 1 and other in balls:
                f1, x1, y1 = seen[-1]
                vx = vy = 0.0
                if len(seen) == 2:
                    f0, x0, y0 = seen[0]
                    vx, vy = (x1 - x0) / (f1 - f0), (y1 - y0) / (f1 - f0)
                gap = frame - f1
                off = math.dist((x, y), (x1 + vx * gap, y1 + vy * gap))
                ox, oy = balls[other][:2]
                reach = p.hardest_shot_diameters_per_frame * self.setting.d * gap + apart
                if off >= apart and (math.dist((x1, y1), (ox, oy)) + math.dist((ox, oy), (x, y))
                                     <= reach):
                    back = ball
            seen.append((frame, x, y))
            del seen[:-2]
        return back

    def struck_from(self, rest: tuple[float, float], since: int) -> str | None:
        """Which white left ``rest`` (where one of them lay) since frame ``since``, by their last
        two sightings each, both since then, further than struck_way_diameters from it and
        going away from it: a ball struck from rest goes
        out along a line through its place, its hitter from where they touched, a ball away
        from it, across the line of their centres (less so with follow or draw, not at all
        straight on). The white whose way goes back within struck_way_diameters of ``rest``,
        when the other's passes hitter_way_diameters or more from it; None while either is
        not seen twice away from it, or when their ways do not tell."""
        p = self.setting.params
        d = self.setting.d
        gone: dict[str, float] = {}  # how far each one's way passes from the place
        for ball in WHITES:
            seen = self._seen.get(ball, [])
            if len(seen) < 2 or seen[0][0] < since or min(
                    math.dist(rest, (x, y)) for _, x, y in seen) < p.struck_way_diameters * d:
                return None
            (_, x0, y0), (_, x1, y1) = seen
            way = math.hypot(x1 - x0, y1 - y0)
            if way == 0.0 or math.dist(rest, (x1, y1)) <= math.dist(rest, (x0, y0)):
                return None  # (not going away from it)
            gone[ball] = abs((x1 - x0) * (rest[1] - y0) - (y1 - y0) * (rest[0] - x0)) / way
        near, far = sorted(WHITES, key=lambda b: gone[b])
        if gone[near] <= p.struck_way_diameters * d and gone[far] >= p.hitter_way_diameters * d:
            return near
        return None

