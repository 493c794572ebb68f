"""What no ball took: the things left over in the last frame (the cue, a hand, a ball's other
piece), what lay beside each ball seen, and the faint things that stay put frame after frame
(fixtures of the picture: a mark on the cloth, a projected spot), counted by cell."""

from __future__ import annotations

import math
from collections.abc import Iterable

from vision.detection import Detection
from vision.tracking.state import BallState, Setting


class Leftovers:
    """The detections no ball took, kept from one frame to the next."""

    def __init__(self, setting: Setting) -> None:
        self.setting = setting
        self.left_over: list[Detection] = []  # what no ball took in the last frame
        self.unclaimed: list[Detection] = []  # ... but the pieces (a ball's other half?)
        # faint things no ball took, by cell: [frames seen, the last of them] (see fixture_looks;
        # as many cells at most as the table has)
        self.fixtures: dict[tuple[int, int], list[int]] = {}

    def note(self, frame: int, dets: list[Detection], used: set[int],
             active: Iterable[BallState]) -> None:
        """Keep what no ball took of this frame's ``dets`` (``used``: the indices taken): all
        of it, all but the pieces (which may be a ball's other half), what lay near each ball
        of ``active`` seen this frame (its ``beside``), and the faint things by cell."""
        setting = self.setting
        self.left_over = [d for j, d in enumerate(dets) if j not in used]
        self.unclaimed = [d for d in self.left_over if not d.piece]
        for s in active:
            if s.last_seen == frame:
                s.beside = tuple(u for u in self.left_over if math.hypot(
                    u.x_mm - s.x, u.y_mm - s.y) < setting.params.alone_diameters * setting.d)
        for u in self.left_over:
            if u.score < setting.params.init_score_share:
                cell = self.cell(u)
                seen = self.fixtures.get(cell)
                if seen is None or frame - seen[1] > setting.hide_frames:
                    self.fixtures[cell] = [1, frame]
                elif seen[1] != frame:
                    seen[0], seen[1] = seen[0] + 1, frame

    def cell(self, det: Detection) -> tuple[int, int]:
        """The fixture cell ``det`` lies in (fixture_cell_diameters wide)."""
        size = self.setting.params.fixture_cell_diameters * self.setting.d
        return round(det.x_mm / size), round(det.y_mm / size)

    def at_a_fixture(self, det: Detection, frame: int) -> bool:
        """Faint things were left unclaimed in this cell and those around it in fixture_looks
        frames, each within hide_s of the one before and the last within hide_s of ``frame``
        (see fixture_looks)."""
        cx, cy = self.cell(det)
        looks = 0
        for key in ((cx + i, cy + j) for i in (-1, 0, 1) for j in (-1, 0, 1)):
            seen = self.fixtures.get(key)
            if seen is not None and frame - seen[1] <= self.setting.hide_frames:
                looks += seen[0]
        return looks >= self.setting.params.fixture_looks
