"""Which white is which: W2 shows two dots side by side, W1 one; the dots' evidence is
counted per track, and a swap is undone when they clearly say so. While the whites are
known by continuity they must not come near each other, or only the dots can tell again."""

from __future__ import annotations

from collections.abc import Mapping

from vision.detection import Detection
from vision.tracking.geometry import nearest_on_the_way
from vision.tracking.params import TrackingParams
from vision.tracking.state import BallState, Setting


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
