"""Ball detection in one frame: every ball, any colour, sub-pixel centre in pixels and table mm.

The cloth is modelled from the video itself: a median filter much wider than a ball (2.5 ball
diameters) of a frame at the working resolution gives the empty cloth's colour at every pixel
(balls, being small, are voted out; straight edges such as the cushion noses are kept). A pixel
belongs to a ball when its *chromaticity* (colour / brightness) differs from the cloth's, or when it
is brighter than the cloth: shadows and the dark pocket holes keep the cloth's chromaticity or are
too dark to count, so neither is a ball. Every size is derived from the calibration (a ball's radius
in pixels where it lies), so thresholds are in ball diameters (they are the fields of
:class:`vision.detection.params.DetectionParams`, given to :class:`BallDetector`):

* thin things (drawn or projected lines, the cue's shaft) are removed by an opening with a disc of
  0.4 ball diameters;
* blobs smaller than a third of a ball are noise; blobs wider than a ball (hands, arms) are not
  balls, though round parts of them the size of a ball may be (the tracker gates those);
* touching balls are split at the peaks of the distance transform (one per ball radius); a tight
  cluster whose peaks merged is split into as many balls as its shape holds beyond the peaks (its
  area alone would count each ball's halo as more balls, put in the gaps between the real ones);
* a motion-blur streak (a ridge of constant width one diameter) is one ball at the streak's centre.

The centre is then refined at full resolution: the centroid of the ball's pixels above half its
own contrast, inside 1.3 radii and inside its Voronoi cell among neighbouring balls, then a circle
of the known radius fitted to that region's outline (ignoring outline points far inside it: the
ball's shaded side; or far outside it: a cue or a neighbour), in one compiled pass per ball
(:mod:`vision.detection.ballfit`). A ball that did not change since the previous frame (same
blob at the working resolution) keeps its previous answer.

Colour classes are fitted per video (:class:`ColourModel`): the detections' chromaticities are
clustered and the clusters named by relative saturation (white is the least saturated) and hue. A
colour far from every class (a blurred ball, partly see-through) is read as the nearest mixture of a
class with the cloth under it, and marked as not sure.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, cast

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration import Calibration
from video.frames import AnyFrame, Frame, bgr_patch
from vision.detection.ballfit import count_dots, fit_ball
from vision.detection.cloth import ClothModel, ClothWork
from vision.detection.colour import (
    KMEANS_SEED,
    ColourModel,
    chromaticity,
    cloth_coloured,
    core_against_cloth,
    kmeans,
    middle_colour,
)
from vision.detection.foreground import ForegroundMap
from vision.detection.geometry import WorkGrid, tile_maxima
from vision.detection.params import DEFAULT_DETECTION, DetectionParams
from vision.detection.shapes import (
    as_deep_as_its_balls,
    deep_and_alone,
    distances,
    one_ball,
    ring_share,
    summits,
    touching,
    unexplained_balls,
    variances,
)
from vision.detection.types import F32, Blob, Detection, VisionError

__all__ = ["BallDetector", "ClothWork", "ColourModel", "Detection", "VisionError", "detect_frame"]

@dataclass(frozen=True)
class Made:
    """A detection and what it was made from: its blob and the work image of that frame."""

    detection: Detection
    blob: Blob
    small: Frame


class BallDetector:
    """Finds balls in frames of one camera placement (one calibration).

    ``params``: every threshold of the detection (:class:`DetectionParams`; the tuned ones by
    default), kept as ``self.params``. ``work_diameter_px``: the ball diameter, in pixels, at
    which the search runs (frames are shrunk to it; the centre is refined at full resolution).
    Call :meth:`learn_cloth` with a frame of the video before :meth:`detect`; :meth:`detect`
    keeps the cloth model up to date slowly.
    """

    def __init__(self, calibration: Calibration, params: DetectionParams = DEFAULT_DETECTION, *,
                 work_diameter_px: float = 10.0, cloth_update_every: int = 30,
                 cloth_update_rate: float = 0.25) -> None:
        if not isinstance(params, DetectionParams):
            raise TypeError(f"expected DetectionParams, got {type(params).__name__}")
        if not (4.0 <= work_diameter_px <= 64.0):
            raise VisionError(f"expected work_diameter_px in [4, 64], got {work_diameter_px}")
        self.params = params
        self.calibration = calibration
        self.colours: ColourModel | None = None
        self.cloth_update_every = cloth_update_every
        self.cloth_update_rate = cloth_update_rate
        self._frames_seen = 0
        grid = self.grid = WorkGrid(calibration, work_diameter_px)
        # (the grid's, under the names they always had)
        self.table, self.r_mm, self.roi = grid.table, grid.r_mm, grid.roi
        self.diameter_px, self.scale, self.work_size = grid.diameter_px, grid.scale, grid.work_size
        self.field, self.radius_work = grid.field, grid.radius_work
        self.cloth_model = ClothModel(params, grid)
        self.foreground_map = ForegroundMap(params, grid)
        ww, wh = grid.work_size
        self._last_small: Frame | None = None
        self.picture_change = math.inf
        # the answers the last frame kept or made (see _refine)
        self._cache: list[Made] = []
        self._labels = np.zeros((wh, ww), np.uint16)
        # the mask's parts (label -> work-pixel box x0, y0, x1, y1) and the candidates of the
        # last frame, kept where the picture did not change (see _blobs_where_changed)
        self._parts: dict[int, tuple[int, int, int, int]] | None = None
        self._blob_list: list[Blob] = []
        self._next_label = 1
        self._raw = np.zeros((wh, ww), np.uint8)
        tile = grid.tile
        # the levels of the map the candidates were last found in (see _levels_of), and where
        # they changed since, padded to whole tiles
        self._levels: Frame | None = None
        self._levels_pad = np.zeros((-(-wh // tile) * tile, -(-ww // tile) * tile), np.uint8)
        self._last: list[Detection] | None = None
        # colour classes of the last classified detections (a ball at rest is the same
        # Detection object frame after frame: classified once)
        self._colour_memo: dict[int, tuple[Detection, Detection]] = {}
        self._colour_memo_model: ColourModel | None = None

    @property
    def cloth(self) -> F32 | None:
        """The cloth model's picture of the empty cloth (None until learned)."""
        return self.cloth_model.image

    @property
    def threshold(self) -> float:
        """The ball threshold (see :class:`ClothModel`)."""
        return self.cloth_model.threshold

    @threshold.setter
    def threshold(self, value: float) -> None:
        self.cloth_model.threshold = value

    def radius_px_at(self, points_px: NDArray[Any]) -> NDArray[np.float64]:
        """A 68 mm ball's radius in full-resolution pixels at image points (N, 2)."""
        return self.grid.radius_px_at(points_px)

    def shrink(self, frame: AnyFrame) -> Frame:
        """The table's region of ``frame`` at the working resolution (what :meth:`detect`
        searches; a reader thread may make it ahead of time)."""
        return self.grid.shrink(frame)

    def prepare(self, frame: AnyFrame, index: int) -> tuple[Frame, ClothWork | None]:
        """What :meth:`detect` needs of ``frame`` (the video's ``index``-th, from 0) that a
        reader thread can make ahead of time: the work image (:meth:`shrink`) and, for the
        frames that will make the cloth model (the first, learned from, and every
        ``cloth_update_every``-th, which update it), the costly steps of that (the same
        whichever thread makes them, see :class:`ClothWork`); None for the other frames.
        Frames may be prepared in any order, by any thread."""
        small = self.shrink(frame)
        n, every = index + 1, self.cloth_update_every
        if not (n == 1 or (every and n % every == 0)):
            return small, None
        # (an update's coarse median: whichever thread makes it, and when)
        return small, self.cloth_model.work_ahead(small, coarse=n > 1)

    # --- cloth model ---------------------------------------------------------------------------
    def learn_cloth(self, frame: AnyFrame, *, small: Frame | None = None,
                    ahead: ClothWork | None = None,
                    balls_at: Sequence[tuple[float, float]] = ()) -> None:
        """Model the empty cloth from one frame of the video and set the ball threshold from the
        cloth's own noise. ``small`` and ``ahead``: ``shrink(frame)`` and its cloth work when
        already made (see :meth:`prepare`). ``balls_at``: table mm where the game state has a
        ball in this frame.

        The model is the frame itself (so thin static things stay in it: the shadow under the
        cushion noses, spots, drawn lines), except around the ball-like blobs found against a
        median 2.5 ball diameters wide, which are painted over with the cloth around them
        (see :class:`ClothModel`). Around a point of ``balls_at`` where anything at all differs
        from that median (a white ball on a grey cloth differs in light only, and its weighted
        blob may be too weak: learned as cloth, it would be unseen for the whole video), too.
        """
        self.cloth_model.learned = None  # (a reader thread's cloth work made meanwhile is not used)
        if small is None:
            small, ahead = self.shrink(frame), None
        self.cloth_model.learn(small, ahead, balls_at, self._blobs)

    def _update_cloth(self, small: Frame, ball_mask: NDArray[np.uint8],
                      ahead: ClothWork | None = None) -> None:
        """Blend a fresh cloth estimate into the model where no ball (or hand) is (see
        :meth:`ClothModel.update`); the foreground map stands for the new model."""
        before = self.cloth_model.image
        assert before is not None
        self.cloth_model.update(small, ball_mask, ahead, self.cloth_update_rate)
        assert self.cloth_model.image is not None
        self.foreground_map.model_moved(before, self.cloth_model.image)

    # --- detection -----------------------------------------------------------------------------
    def detect(self, frame: AnyFrame, *, update: bool = True, small: Frame | None = None,
               ahead: ClothWork | None = None) -> list[Detection]:
        """Every ball in ``frame``. The first call learns the cloth from this frame. ``small``:
        ``shrink(frame)`` when already made; ``ahead``: its cloth work, when made (see
        :meth:`prepare`; used when this frame learns or updates the cloth)."""
        if small is None:
            small, ahead = self.shrink(frame), None
        if self.cloth is None:
            self.learn_cloth(frame, small=small, ahead=ahead)
        self._frames_seen += 1
        self._note_change(small)
        if self.cloth_model.floor_at_noise_of(small):
            # everything made with the old threshold is made again
            self.foreground_map.forget()
            self._levels = None
        f, tiles = self._foreground_now(small)
        if tiles is not None and not tiles.any() and self._last is not None:
            blobs = None  # nothing changed: the last frame's balls
        elif self.colours is None:
            # The colour classes are learned from these detections by k-means, which depends on
            # their order: found in the same order as ever (by the tiles whose picture changed)
            blobs = (self._blobs(f) if tiles is None or self._last is None or self._parts is None
                     else self._blobs_where_changed(f, tiles))
            self._levels = self._levels_of(f)
        else:
            # The candidates depend on the map only through its levels (above the threshold,
            # above strong_thresholds times it, inside the field): searched again only where those
            # changed. The picture changes almost everywhere from frame to frame (compression
            # noise), the levels seldom: mostly where a ball moves.
            before = self._levels
            if tiles is not None and before is not None and self.foreground_map.boxes is not None:
                # the map was made again in those boxes only: so were its levels
                levels = before.copy()
                for box in self.foreground_map.boxes:
                    levels[box] = self._levels_of(f[box], box)
            else:
                levels = self._levels_of(f)
            if before is None or self._last is None or self._parts is None:
                blobs = self._blobs(f)
            else:
                changed = self._tiles_changed(levels, before)
                blobs = (self._blobs_where_changed(f, changed) if changed.any()
                         else self._blob_list)  # same levels: the same candidates
            self._levels = levels
        if blobs is not None:
            self._last = self._refine(frame, small, blobs) if blobs else []
        if update and self.cloth_update_every and self._frames_seen % self.cloth_update_every == 0:
            self._update_cloth(small, self._raw, ahead)
        assert self._last is not None  # (made above, or the last frame's)
        return self._last

    def _note_change(self, small: Frame) -> None:
        """``picture_change``: the largest change of a pixel of the work image (grey levels,
        any channel) since the last frame's picture, inf for the first; a picture shown again
        by a recorder that pads a slower camera's frames differs from it only by the codec's
        noise (see vision.tracking.tracker._RepeatsFilled)."""
        last, self._last_small = self._last_small, small
        self.picture_change = (math.inf if last is None
                               else float(cv2.norm(small, last, cv2.NORM_INF)))

    def _foreground_now(self, small: Frame) -> tuple[F32, NDArray[np.bool_] | None]:
        """The foreground map of this frame and the tiles where the picture changed since the
        last one (None: the whole map was made afresh; see :meth:`ForegroundMap.now`)."""
        return self.foreground_map.now(small, self.cloth_model)

    def _levels_of(self, f: F32, box: tuple[slice, slice] | None = None) -> Frame:
        """What of the foreground map the candidates depend on, per work pixel: 0 at or below
        the threshold or outside the field, 1 above it, 2 above ``strong_thresholds`` times it, 3
        above ``stronger_thresholds`` times it. ``box``: where ``f`` is in the map (all of it by
        default)."""
        p = self.params
        q = np.greater(f, self.cloth_model.threshold).view(np.uint8) + np.greater(
            f, p.strong_thresholds * self.cloth_model.threshold).view(np.uint8)
        q += np.greater(f, p.stronger_thresholds * self.cloth_model.threshold).view(np.uint8)
        q *= self.grid.field_u8 if box is None else self.grid.field_u8[box]
        return q

    def _tiles_changed(self, levels: Frame, before: Frame) -> NDArray[np.bool_]:
        """The tiles (see :meth:`_foreground_now`) where any pixel's level changed."""
        hh, ww = levels.shape
        t, pad = self.grid.tile, self._levels_pad
        diff = cv2.absdiff(levels, before, dst=pad[:hh, :ww])  # straight into the padded map
        if not np.may_share_memory(diff, pad):  # (OpenCV made a new array after all)
            pad[:hh, :ww] = diff
        return np.asarray(tile_maxima(pad, t, 1) > 0)

    def _blobs(self, f: F32) -> list[Blob]:
        """Ball candidates at the working resolution from the whole foreground map."""
        hh, ww = f.shape
        self._levels = None  # see detect: set again there when the map is a frame's
        self._raw = np.zeros((hh, ww), np.uint8)
        self._labels = np.zeros((hh, ww), np.uint16)
        self._parts = {}
        self._next_label = 1
        self._blob_list = self._blobs_in(f, (0, 0, ww, hh))
        return self._blob_list

    def _blobs_where_changed(self, f: F32, tiles: NDArray[np.bool_]) -> list[Blob]:
        """Ball candidates, found again only around the tiles that changed: the rest of the
        mask, its parts and their candidates are the last frame's.

        Each group of changed tiles is searched in a rectangle that also holds every part of
        the last frame's mask it touches, whole, with the reach of the morphology around it, so
        that nothing is cut at the rectangle's edge: a part that reaches into the unchanged
        table was there before and is taken in.
        """
        t = self.grid.tile
        hh, ww = f.shape
        n, _, stats, _ = cv2.connectedComponentsWithStats(tiles.astype(np.uint8), connectivity=8)
        m = self.grid.morph_reach
        rects = [(max(0, int(x) * t - m), max(0, int(y) * t - m),
                  min(ww, int(x + w) * t + m), min(hh, int(y + h) * t + m))
                 for x, y, w, h, _ in stats[1:n]]
        parts = self._parts
        assert parts is not None
        # each part with the reach of the morphology around it, inside the image
        reach = [(max(0, a0 - m), max(0, b0 - m), min(ww, a1 + m), min(hh, b1 + m))
                 for (a0, b0, a1, b1) in parts.values()]
        grown = True
        while grown:  # take in the parts each rectangle touches, and merge overlapping ones
            grown = False
            for i, (x0, y0, x1, y1) in enumerate(rects):
                for (a0, b0, a1, b1) in reach:
                    if a0 < x1 and a1 > x0 and b0 < y1 and b1 > y0 and not (
                            a0 >= x0 and a1 <= x1 and b0 >= y0 and b1 <= y1):
                        x0, y0, x1, y1 = min(x0, a0), min(y0, b0), max(x1, a1), max(y1, b1)
                        grown = True
                rects[i] = (x0, y0, x1, y1)
            for i, j in itertools.combinations(range(len(rects)), 2):
                a, b = rects[i], rects[j]
                if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]:
                    rects[i] = (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]),
                                max(a[3], b[3]))
                    del rects[j]
                    grown = True
                    break
        if self._next_label > 60000 or sum((r[2] - r[0]) * (r[3] - r[1]) for r in rects) > (
                self.params.mostly_changed_share * hh * ww):
            return self._blobs(f)  # most of the table (or labels running out): all afresh
        gone: set[int] = set()
        for x0, y0, x1, y1 in rects:
            gone |= {k for k, (a0, b0, a1, b1) in parts.items()
                     if a0 >= x0 and a1 <= x1 and b0 >= y0 and b1 <= y1}
        for k in gone:
            del parts[k]
        kept = [b for b in self._blob_list if b.label not in gone]
        for rect in rects:
            kept += self._blobs_in(f, rect)
        self._blob_list = kept
        return kept

    def _blobs_in(self, f: F32, rect: tuple[int, int, int, int]) -> list[Blob]:
        """Ball candidates inside ``rect`` (x0, y0, x1, y1 in work pixels) of the foreground
        map; the rectangle's mask, labels and parts replace what was there."""
        rx0, ry0, rx1, ry1 = rect
        # the morphology runs on the rectangle and the band it reaches into around it (exact
        # inside the rectangle), the rest on the rectangle alone
        hh, ww = f.shape
        m = self.grid.morph_reach
        cx0, cy0, cx1, cy1 = max(0, rx0 - m), max(0, ry0 - m), min(ww, rx1 + m), min(hh, ry1 + m)
        inner = (slice(ry0 - cy0, ry1 - cy0), slice(rx0 - cx0, rx1 - cx0))
        raw = (np.greater(f[cy0:cy1, cx0:cx1], self.cloth_model.threshold).view(np.uint8)
               & self.grid.field_u8[cy0:cy1, cx0:cx1])
        if not raw.any():
            # nothing above the threshold (often: a ball left the tiles searched): no part, and
            # the morphology and the labelling of nothing would give nothing
            self._raw[ry0:ry1, rx0:rx1] = 0
            self._labels[ry0:ry1, rx0:rx1] = 0
            return []
        closed = cast(Frame, cv2.morphologyEx(raw, cv2.MORPH_CLOSE, self.grid.close_kernel))
        self._fill_ball_holes(closed, raw, cx0, cy0)
        mask = np.ascontiguousarray(cv2.morphologyEx(closed, cv2.MORPH_OPEN,
                                                     self.grid.open_kernel)[inner])
        self._raw[ry0:ry1, rx0:rx1] = closed[inner]
        if not mask.any():  # (as above: only thin things, opened away)
            self._labels[ry0:ry1, rx0:rx1] = 0
            return []
        opened = cv2.morphologyEx(raw, cv2.MORPH_OPEN, self.grid.open_kernel)[inner]
        # 16-bit labels: several times faster than 32-bit here
        n, labels, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=8,
                                                                   ltype=cv2.CV_16U)
        first = self._next_label
        self._next_label += max(0, n - 1)
        self._labels[ry0:ry1, rx0:rx1] = np.where(labels > 0, labels + np.uint16(first - 1),
                                                  np.uint16(0))
        if n <= 1:
            return []
        parts = self._parts
        assert parts is not None
        # distances on the unclosed mask (``opened``), so that the gaps between touching balls
        # stay open (a dot's hole inside a white ball makes no peak of its own at 1.5 radii)
        blobs: list[Blob] = []
        p = self.params
        for i in range(1, n):
            lx, ly, w, h, area = (int(v) for v in stats[i])
            label = first + i - 1
            x, y = lx + rx0, ly + ry0
            parts[label] = (x, y, x + w, y + h)
            cx, cy = float(cents[i, 0]) + rx0, float(cents[i, 1]) + ry0
            r = float(self.grid.radius_work[min(int(cy), hh - 1), min(int(cx), ww - 1)])
            ball_area = math.pi * r * r
            least = p.least_lit_top_share if self.cloth_model.by_light else p.least_blob_share
            if area < least * ball_area:
                continue
            key = (x, y, w, h, area, round(cx * 1000), round(cy * 1000))
            # no point of a blob this narrow is more than ball_depth_radii from its edge: one ball
            if area <= 1.5 * ball_area and min(w, h) <= 2 * p.ball_depth_radii * r - 1:
                blobs.append(one_ball(labels[ly:ly + h, lx:lx + w] == i, cx, cy, label, key, r,
                                       p))
                continue
            part = opened[ly:ly + h, lx:lx + w] & (labels[ly:ly + h, lx:lx + w] == i)
            sub = distances(part)
            depth = float(sub.max())
            deep = depth > p.ball_depth_radii * r
            if area <= 1.5 * ball_area and not deep:
                blobs.append(one_ball(labels[ly:ly + h, lx:lx + w] == i, cx, cy, label, key, r,
                                       p))
                continue
            found = None
            if deep:
                found = self._strong_parts(f[y:y + h, x:x + w], part, x, y, label, r)
                if found is not None:
                    # a ball only a little above the threshold, joined to the cue and the
                    # hand, is not among the strong parts: the blob's round pieces with little
                    # of it around them (see _split) are balls too (a white with the cue's
                    # tip on it in the club footage went unseen through a practice stroke)
                    found += [b for b in self._split(sub, x, y, label, r, area)
                              if sub[min(round(b.y) - y, h - 1), min(round(b.x) - x, w - 1)]
                              >= p.round_core_radii * r
                              and all(math.hypot(b.x - o.x, b.y - o.y) >= 1.5 * r
                                      for o in found)]
                    found += as_deep_as_its_balls(sub, x, y, label, r, found, p)
                    found += deep_and_alone(sub, x, y, label, r, found, p)
                    if not found and depth <= p.wide_streak_radii * r:
                        # nothing strong in it (no hand, no cue) and no round core: a faint
                        # ball deeper than its picture alone with its halo, joined to faint
                        # lines, no deeper than a streak joined to its shadow, at its summit
                        # (a white rolling over lines projected on the cloth, 1.41 radii deep,
                        # was lost for three frames)
                        sy, sx = np.unravel_index(int(np.argmax(sub)), sub.shape)
                        found = [Blob(x + float(sx), y + float(sy), label)]
            if found is None:
                found = self._split(sub, x, y, label, r, area)
                if deep:
                    found += [b for b in self._strong_cores(f[y:y + h, x:x + w], part, x, y,
                                                            label, r)
                              if all(math.hypot(b.x - o.x, b.y - o.y) >= 1.5 * r
                                     for o in found)]
            blobs += found  # (no key: a piece is known by the picture around it, see _refine)
        return [b for b in blobs
                if self.grid.centre_ok[min(int(b.y), hh - 1), min(int(b.x), ww - 1)]]

    def _fill_ball_holes(self, closed: Frame, raw: Frame, x0: int, y0: int) -> None:
        """Fill, in ``closed`` and ``raw`` (masks of a window at work pixel (x0, y0)), each hole
        inside a ring no bigger than a ball (``holed_ring_ball_areas`` of its area): a ball whose
        middle is like the cloth. A red on a red cloth shows only by its rim: its dots and
        highlight, white mixed with a saturated red, have the paler red cloth's chromaticity, and
        the
        opening would wipe the thin ring that is left (so both reds went unseen for a whole shot).
        The gap between three balls touching lies in a blob of three."""
        contours, hierarchy = cv2.findContours(closed, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
        if hierarchy is None:
            return
        tree = hierarchy[0]
        for i in np.flatnonzero(tree[:, 3] >= 0):  # the holes (few: most blobs have none)
            outer = contours[tree[i, 3]]
            bx, by, bw, bh = cv2.boundingRect(outer)
            radius_work = self.grid.radius_work
            r = float(radius_work[min(y0 + by + bh // 2, radius_work.shape[0] - 1),
                                  min(x0 + bx + bw // 2, radius_work.shape[1] - 1)])
            if cv2.contourArea(outer) > self.params.holed_ring_ball_areas * math.pi * r * r:
                continue
            cv2.drawContours(closed, contours, int(i), 1, cv2.FILLED)
            cv2.drawContours(raw, contours, int(i), 1, cv2.FILLED)

    def _strong_parts(self, f: F32, part: NDArray[Any], x: int, y: int, label: int,
                      r: float, level: float | None = None) -> list[Blob] | None:
        """Ball centres in a blob too wide for balls in a row, when it is balls joined by a
        faint halo of junk (a compression block beside a moving ball is a little above the
        threshold, a ball's own pixels are well above it): its pixels above ``level`` times
        the threshold (``strong_thresholds`` when not given), each part of them split as a blob
        of its own. A part still too wide at ``strong_thresholds`` is searched again at
        ``stronger_thresholds``; None when a part is not one ball or two touching even there: a
        hand, an arm or the cue (see :meth:`_split`), or a cluster."""
        p = self.params
        if level is None:
            level = p.strong_thresholds
        n, labels, stats, cents = self._parts_above(f, part, level)
        ball_area = math.pi * r * r
        out: list[Blob] = []
        for i in range(1, n):
            lx, ly, w, h, area = (int(v) for v in stats[i])
            if area < p.least_blob_share * ball_area:
                continue
            sub = distances(labels[ly:ly + h, lx:lx + w] == i)
            deep = float(sub.max()) > p.ball_depth_radii * r
            if level < p.stronger_thresholds and not deep and area > 2.5 * ball_area:
                row = self._pale_row(f, sub, x, y, lx, ly, label, r, area)
                if row is not None:
                    out.extend(row)
                    continue
            if level >= p.stronger_thresholds and not deep and area > 2.5 * ball_area:
                streak = self._a_lone_streak(sub, x + lx, y + ly, label, r, area)
                if streak is not None:
                    out.append(streak)
                    continue
            if deep or area > 2.5 * ball_area:
                # not one ball or two touching: a hand, the cue, a cluster; or a ball in the
                # stronger junk a moving ball leaves in a compressed video (blocks at a few
                # times the threshold), which it outshines many times over. That part alone
                # is searched again at the stronger level: the others are balls at this one
                # (a white ball with the cue's tip on it, joined to the hand by the cue, is
                # at stronger_thresholds too faint to be seen, in the club footage)
                if level >= p.stronger_thresholds:
                    return None
                inner = self._strong_parts(f, part * (labels == i), x, y, label, r,
                                           p.stronger_thresholds)
                if inner is None:
                    return None
                out.extend(inner)
                continue
            if area <= 1.5 * ball_area:
                out.append(Blob(x + float(cents[i, 0]), y + float(cents[i, 1]), label))
            else:
                out.extend(self._split(sub, x + lx, y + ly, label, r, area))
        return out

    def _a_lone_streak(self, sub: F32, x: int, y: int, label: int, r: float,
                       area: int) -> Blob | None:
        """A part too big for two balls (``sub``, its distance map, window at work pixel
        (x, y)) that is one ball's motion-blur streak: it splits as one streak (see
        :meth:`_split`), a ball wide and no wider (from one radius to ``round_core_radii`` deep,
        its pixels spread across its axis no more than ``streak_spread_radii``, as a strip a
        ball wide; the hands' strips of this shape reach 1.27-1.39 radii and 0.69-0.79). A
        fast ball's long streak stays a part of its own at the stronger level though the
        faint projected lines by a pocket join it to the red (a struck white in the club
        footage, 3.1 balls' area at 1.06 radii deep, spread 0.54 radii across, was lost with
        the blob)."""
        depth = float(sub.max())
        if not r <= depth <= self.params.round_core_radii * r:
            return None
        m = cv2.moments((sub > 0).view(np.uint8), binaryImage=True)
        n = max(m["m00"], 1.0)
        across, _ = variances(m["mu20"] / n, m["mu11"] / n, m["mu02"] / n)
        if across > (self.params.streak_spread_radii * r) ** 2:
            return None
        row = self._split(sub, x, y, label, r, area)
        return row[0] if len(row) == 1 and row[0].streak else None

    def _parts_above(self, f: F32, part: NDArray[Any], level: float
                     ) -> tuple[int, NDArray[Any], NDArray[Any], NDArray[Any]]:
        """The connected parts of a blob (``part``, in the window ``f`` of the foreground map)
        above ``level`` times the threshold, opened: their count, labels, stats, centroids."""
        above = (f > level * self.cloth_model.threshold) & (part > 0)
        strong = cv2.morphologyEx(above.astype(np.uint8), cv2.MORPH_OPEN, self.grid.open_kernel)
        n, labels, stats, cents = cv2.connectedComponentsWithStats(strong, connectivity=8,
                                                                   ltype=cv2.CV_16U)
        return n, labels, stats, cents

    def _strong_cores(self, f: F32, part: NDArray[Any], x: int, y: int, label: int,
                      r: float) -> list[Blob]:
        """In a blob with a hand or the cue in it (see :meth:`_strong_parts`), its parts above
        ``strong_thresholds`` times the threshold that are one ball by their shape: no bigger
        than three balls (a drawn-out ball with its halo in the club footage: 2.51, with the game
        state), as deep as a ball's core with its rim (``round_core_radii`` to
        ``ball_depth_radii``; the cue's and the fingers' round pieces are shallower). Each is a
        ball at its middle (a white nudged by the cue's tip, joined to the cue and the bridge
        hand, its own part bright and whole, was dropped with the hand's). A part of that depth
        up to ``touching_cores_ball_areas`` balls big that splits into balls touching (each
        summit a radius deep, necked to its neighbour, none a streak) is those balls (the struck
        white on a red at their contact, 3.2 balls with their rims, the cue in the same blob, was
        read as one ball, the red)."""
        p = self.params
        n, labels, stats, cents = self._parts_above(f, part, p.strong_thresholds)
        ball_area = math.pi * r * r
        out = []
        for i in range(1, n):
            lx, ly, w, h, area = (int(v) for v in stats[i])
            if not (p.least_blob_share * ball_area <= area
                    <= p.touching_cores_ball_areas * ball_area):
                continue
            sub = distances(labels[ly:ly + h, lx:lx + w] == i)
            if not p.round_core_radii * r <= float(sub.max()) <= p.ball_depth_radii * r:
                continue
            if area > 1.5 * ball_area:
                row = self._split(sub, x + lx, y + ly, label, r, area)
                if touching(sub, row, x + lx, y + ly, deep=r):
                    out.extend(row)
                    continue
            if area <= 3.0 * ball_area:
                out.append(Blob(x + float(cents[i, 0]), y + float(cents[i, 1]), label))
        return out

    def _pale_row(self, f: F32, sub: F32, x: int, y: int, lx: int, ly: int, label: int,
                  r: float, area: int) -> list[Blob] | None:
        """A part of a blob's strong pixels (``sub``, its distance map, at (lx, ly) in the
        window ``f`` at work pixel (x, y)) as balls touching, one of them pale, too big for two
        balls alone (two pale whites by a bright yellow; a white touching a red, their rims and
        shadows 2.7 balls' area in the club footage: at the stronger level the pale ones
        would be lost): when it splits into two balls or more, none a streak (an arm's or the
        cue's strip is one), each necked to its neighbour (see :func:`necked`). None otherwise
        (then the stronger level finds them all, or it is one big ball)."""
        row = self._split(sub, x + lx, y + ly, label, r, area)
        if not touching(sub, row, x + lx, y + ly):
            return None
        hh, ww = f.shape
        if all(f[min(round(b.y) - y, hh - 1), min(round(b.x) - x, ww - 1)]
               > self.params.stronger_thresholds * self.cloth_model.threshold for b in row):
            return None
        return row

    def _split(self, sub: F32, x: int, y: int, label: int, r: float, area: int) -> list[Blob]:
        """Ball centres inside a blob bigger than one ball: distance-transform peaks about one
        radius high, at least 1.5 radii apart; a chain of peaks joined by a ridge as high as a
        radius is a motion-blur streak (one ball)."""
        p = self.params
        peaks = summits(sub, (sub >= 0.55 * r) & (sub <= p.ball_depth_radii * r), 1.5 * r)
        if not peaks:
            return []
        depth = float(sub.max())
        wide = depth > p.ball_depth_radii * r
        pieces = False
        if len(peaks) >= 2 and depth <= p.wide_streak_radii * r:
            # streak test: the ridge between consecutive peaks (along the main axis) stays high
            pts = np.array(peaks)
            c = pts.mean(0)
            axis = np.linalg.svd(pts - c)[2][0]
            pts = pts[np.argsort((pts - c) @ axis)]
            normal = np.array([-axis[1], axis[0]])
            straight = bool(np.abs((pts - c) @ normal).max() < 0.5 * r)  # a streak is
            ridge = min((float(sub[round(0.5 * (a[1] + b[1])), round(0.5 * (a[0] + b[0]))])
                         for a, b in itertools.pairwise(pts)), default=0.0)
            # ... and nearly as high as the peaks: a streak is as wide all along, two balls
            # touching on a diagonal can keep 0.7 radii at the pixel between them
            top = min(float(sub[round(p[1]), round(p[0])]) for p in pts)
            # a ridge as high as 0.7 radii between the peaks: one streak; a neck lower than
            # 0.45 radii: touching balls; between: perhaps the pieces of a faint streak
            pieces = straight and ridge >= 0.45 * r
            if straight and ridge >= 0.7 * r and ridge >= 0.8 * top:
                mask = sub > 0
                yy, xx = np.nonzero(mask)
                length = float(np.linalg.norm(pts[-1] - pts[0])) + 2 * r
                return [Blob(x + float(xx.mean()), y + float(yy.mean()), label, streak=True,
                              length=length, axis=(float(axis[0]), float(axis[1])),
                              ends=((x + float(pts[0][0]), y + float(pts[0][1])),
                                    (x + float(pts[-1][0]), y + float(pts[-1][1]))))]
        n_area = int(area / (math.pi * r * r))
        # a tight cluster: its distance transform has one summit; split the pixels into as many
        # balls as its shape holds beyond the peaks (its area counts halos too), by k-means (the
        # full-resolution step refines them)
        extra = (unexplained_balls(sub, peaks, r, n_area - len(peaks))
                 if not wide and len(peaks) < n_area <= 6 else 0)
        if extra:
            n_area = len(peaks) + extra
            yy, xx = np.nonzero(sub > 0)
            pts = np.stack([xx, yy], 1).astype(np.float32)
            criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.01)
            cv2.setRNGSeed(KMEANS_SEED)
            _, centres = kmeans(pts, n_area, criteria, 3)
            peaks = [(float(cx), float(cy)) for cx, cy in centres]
        if wide:
            # a hand or an arm: keep only round parts with little of the blob around them
            mask = sub > 0
            peaks = [(px, py) for px, py in peaks
                     if ring_share(mask, px, py, 1.3 * r, 1.8 * r) < p.alone_share]
        return [Blob(x + px, y + py, label, piece=pieces and len(peaks) >= 2)
                for px, py in peaks]

    def _refine(self, frame: AnyFrame, small: Frame, blobs: list[Blob]) -> list[Detection]:
        """Full-resolution centres. A ball at rest keeps the previous frame's answer while its
        blob is the same as when the answer was made (place within 0.1 work px, size within
        3 %), or within half a work pixel of it with the picture around it (1.6 radii) changed
        by no more than the noise (a ball rolling by changes the blob's outline, not the resting
        ball). Compared with the frame of the answer, not the last: a ball creeping into a
        pocket's jaws changes its picture by less than the noise from frame to frame
        (W1 kept 13 mm short of the lip it crept to, over 10 frames).

        A piece of a blob split into balls is not known by its blob alone: the pieces' places
        are maxima of a distance map, whole work pixels, and two touching balls rolling slowly
        past each other leave the blob's size and centre as they were (W1 and Y held for a frame
        as they touched, and the contact was lost). It keeps its answer only with the picture
        around it unchanged."""
        blobs = self._streaks_of_one_colour(small, blobs)
        cache = self._cache
        self._cache = []
        out: list[Detection] = []
        todo: list[Blob] = []
        for b in blobs:
            hit = None
            for made in cache if b.key else ():  # same place (0.1 work px) and size (3 %)
                key = made.blob.key
                if (key and abs(key[5] - b.key[5]) <= 100
                        and abs(key[6] - b.key[6]) <= 100
                        and abs(key[4] - b.key[4]) <= 0.03 * b.key[4] + 1):
                    hit = made
                    break
            if hit is None:
                hit = self._unchanged(small, b, cache)
            if hit is not None:
                self._cache.append(hit)
                out.append(hit.detection)
            else:
                todo.append(b)
        if todo:
            for b, det in self._refine_new(frame, todo, blobs):
                self._cache.append(Made(det, b, small))
                out.append(det)
        return self.classify(out)

    def _streaks_of_one_colour(self, small: Frame, blobs: list[Blob]) -> list[Blob]:
        """``blobs`` with each streak whose two ends are each sure of a different ball colour
        split into two balls at its ends: a streak is one ball, of one colour all along. A white
        drawn out a little as it strikes a red, their shadows joining them, is as wide all
        along as a streak (three such strikes in the club footage: both balls unseen at the
        contact, one streak of no ball's colour between them). The ends of a real streak are
        see-through, mixtures with the cloth, sure of no class."""
        if self.colours is None or not any(b.ends for b in blobs):
            return blobs
        out: list[Blob] = []
        for b in blobs:
            if b.ends is not None and self._ends_of_two_colours(small, b.ends):
                out += [Blob(x, y, b.label) for x, y in b.ends]
            else:
                out.append(b)
        return out

    def _ends_of_two_colours(self, small: Frame,
                             ends: tuple[tuple[float, float], tuple[float, float]]) -> bool:
        """A streak's two ends are each sure of a different colour name, each read half a
        radius out from the end's peak along the streak: the middle of a ball there (a ball's
        shadows pull its peak inward), the see-through tip of a streak."""
        assert self.colours is not None
        hh, ww = small.shape[:2]
        (ax, ay), (bx, by) = ends
        gap = max(math.hypot(bx - ax, by - ay), 1e-9)
        names: set[str | None] = set()
        for (ex, ey), way in (((ax, ay), -1.0), ((bx, by), 1.0)):
            r = float(self.grid.radius_work[min(int(ey), hh - 1), min(int(ex), ww - 1)])
            k = max(1, round(0.5 * r))
            ix = round(ex + way * 0.5 * r * (bx - ax) / gap)
            iy = round(ey + way * 0.5 * r * (by - ay) / gap)
            core = small[max(0, iy - k):iy + k + 1, max(0, ix - k):ix + k + 1]
            if core.size:
                names.add(self.colours.sure_name(middle_colour(core.reshape(-1, 3))))
        return len(names) == 2 and None not in names

    def _unchanged(self, small: Frame, b: Blob, cached: Iterable[Made]) -> Made | None:
        """The answer made for a ball at ``b``'s place whose surroundings in the work image did
        not change since, or None."""
        if b.streak or self.foreground_map.change_level is None:
            return None
        for made in cached:
            det, before = made.detection, made.small
            x, y = made.blob.x, made.blob.y
            if abs(x - b.x) > 0.5 or abs(y - b.y) > 0.5 or det.streak_mm > 0:
                continue
            hh, ww = small.shape[:2]
            r = 1.6 * float(self.grid.radius_work[min(int(b.y), hh - 1), min(int(b.x), ww - 1)])
            x0, y0 = max(0, int(b.x - r)), max(0, int(b.y - r))
            x1, y1 = min(ww, int(b.x + r) + 2), min(hh, int(b.y + r) + 2)
            diff = cv2.absdiff(small[y0:y1, x0:x1], before[y0:y1, x0:x1])
            return made if float(diff.max()) <= self.foreground_map.change_level else None
        return None

    def _refine_new(self, frame: AnyFrame, blobs: list[Blob],
                    neighbours: list[Blob]) -> list[tuple[Blob, Detection]]:
        """Full-resolution answers for ``blobs`` (``neighbours``: all of this frame's candidates):
        each centre, score and colour from a patch of the frame around it
        (:func:`vision.detection.ballfit.fit_ball`), the dots of a ball that may be white, the
        table mm."""
        labels = self._labels
        x0, y0, _, _ = self.grid.roi
        sx, sy = self.grid.sx, self.grid.sy
        hw, hh = self.grid.work_size
        centres = np.array([[x0 + (b.x + 0.5) * sx - 0.5, y0 + (b.y + 0.5) * sy - 0.5]
                            for b in blobs])
        others = np.array([[x0 + (b.x + 0.5) * sx - 0.5, y0 + (b.y + 0.5) * sy - 0.5]
                           for b in neighbours])
        radius_work, scale = self.grid.radius_work, self.grid.scale
        radii = [float(radius_work[min(int(b.y), hh - 1), min(int(b.x), hw - 1)]) / scale
                 for b in blobs]
        cloth = self.cloth_model
        planes = cloth.model_cache_now()[2]
        image = cloth.image
        assert image is not None
        found: list[tuple[Blob, NDArray[np.float64], float, float, tuple[float, float, float],
                          int, float, tuple[float, float, float]]] = []
        fh, fw = frame.shape[:2]
        for k, b in enumerate(blobs):
            r = radii[k]
            c = centres[k].copy()
            half = 1.6 * r + (0.5 * b.length * sx if b.streak else 0.0)
            ix0, iy0 = max(0, int(c[0] - half)), max(0, int(c[1] - half))
            ix1, iy1 = min(fw, int(c[0] + half) + 2), min(fh, int(c[1] + half) + 2)
            if ix1 - ix0 < 3 or iy1 - iy0 < 3:
                continue
            patch = bgr_patch(frame, iy0, iy1, ix0, ix1)
            # the work pixels under the patch: its rows and columns in the small window that
            # holds them (the cloth model and the candidates' labels are read there)
            gy, gx = self.grid.work_row[iy0:iy1], self.grid.work_col[ix0:ix1]
            win = (slice(int(gy[0]), int(gy[-1]) + 1), slice(int(gx[0]), int(gx[-1]) + 1))
            wy, wx = gy - gy[0], gx - gx[0]
            cx, cy, score, blue, green, red, cored, inner, dd, si = fit_ball(
                patch, planes[win], labels[win], wy, wx, b.label, others, float(c[0]),
                float(c[1]), r, ix0, iy0, float(cloth.threshold), bool(cloth.by_light),
                float(cloth.brighter), bool(b.streak))
            c = np.array([cx, cy])
            bgr = np.array([blue, green, red])
            maybe_white = (self.colours is None
                           or self.colours.names[self.colours.nearest(bgr, sure=False)[0]]
                           == "white")
            dots, dark_px = ((0, 0.0) if b.streak or not maybe_white
                             else count_dots(dd, si, inner, r))
            if b.streak and cored:
                # a streak's colour is a mixture with the cloth under it: the cloth under the
                # same pixels as the colour (a projected line through a streak's middle is the
                # cloth at its middle pixel, not under most of it). (Not for
                # a short drawn-out blob: by a pocket the hole's rim would darken its cloth.)
                cb = middle_colour(image[win].take(wy, 0).take(wx, 1)[inner]) - 1
            else:
                cb = image[gy[min(max(int(c[1]) - iy0, 0), len(gy) - 1)],
                           gx[min(max(int(c[0]) - ix0, 0), len(gx) - 1)]] - 1
            found.append((b, c, r, score, (float(bgr[0]), float(bgr[1]), float(bgr[2])), dots,
                          dark_px, (float(cb[0]), float(cb[1]), float(cb[2]))))
        if not found:
            return []
        mm = self.grid.to_table(np.array([q[1] for q in found]))
        mpp = self.grid.mm_per_px
        out = []
        for (b, c, r, score, core, dots, dark, under), m in zip(found, mm, strict=True):
            blur = b.streak or (b.drawn_out and self._a_blur(core, under))
            out.append((b, Detection(float(c[0]), float(c[1]), float(m[0]), float(m[1]), r,
                                     "other", score, core, dots,
                                     b.length * sx * mpp if blur else 0.0, dark * mpp, under,
                                     b.piece, streak_dir=(self._direction_on_table(c, b) if blur
                                                          else (0.0, 0.0)))))
        return out

    def _direction_on_table(self, c: NDArray[np.float64], b: Blob) -> tuple[float, float]:
        """The table direction (a unit vector) of streak ``b`` centred at full pixel ``c``: of the
        image step along its axis (the view is nearly square-on, one ball's step is enough)."""
        step = np.array([b.axis[0] * self.grid.sx, b.axis[1] * self.grid.sy])
        ends = self.grid.to_table(np.array([c - step, c + step]))
        v = ends[1] - ends[0]
        n = float(np.hypot(v[0], v[1]))
        return (float(v[0]) / n, float(v[1]) / n) if n > 0 else (0.0, 0.0)

    def fit_colours(self, detections: Sequence[Detection]) -> ColourModel:
        """Fit this video's colour classes to detections (of a few frames) and use them."""
        # (not the cloth's own blocks on a neutral cloth: they would make a class of their own)
        kept = [d for d in detections if not self._cloth_in_light(d)] or list(detections)
        good = [d.bgr for d in kept if d.score > 0.5 and d.streak_mm == 0.0]
        if not good:
            good = [d.bgr for d in kept]
        self.colours = ColourModel.fit(np.array(good), self.params)
        if self._last is not None:
            # a next picture that does not change hands back the last answers (see detect):
            # named by the colours now, as new ones are
            self._last = self.classify(self._last)
        return self.colours

    def classify(self, detections: Sequence[Detection]) -> list[Detection]:
        """The detections with their colour from the current colour model; those with the cloth's
        own colour there (see :func:`cloth_coloured`) are left out."""
        if self.colours is None:
            return list(detections)
        from dataclasses import replace
        model = self.colours
        memo = self._colour_memo if self._colour_memo_model is model else {}
        kept: dict[int, tuple[Detection, Detection]] = {}  # only this call's: memory stays flat
        out = []
        for d in detections:
            hit = memo.get(id(d))
            if hit is None or hit[0] is not d:
                if cloth_coloured(d, self.params) or self._faint(d) or self._cloth_in_light(d):
                    continue  # no ball
                i, sure = model.nearest(d.bgr)
                # a sure colour is the nearest class's (as classify without the cloth)
                name = model.names[i] if sure else model.classify(d.bgr, d.cloth_bgr)
                hit = (d, replace(d, colour=name, colour_sure=sure))
            kept[id(d)] = hit
            out.append(hit[1])
        self._colour_memo, self._colour_memo_model = kept, model
        return out

    def _cloth_in_light(self, d: Detection) -> bool:
        """On a neutral cloth, a sharp detection whose core has about the cloth's chromaticity
        (within half of ``coloured_chroma``: a red or yellow ball is further off) and is not
        brighter than the cloth by half the margin (``brighter_share``, less on a bright cloth; a
        white ball is: on the grey synthetic cloths 4 of 5491 white sightings were not, all
        moving) is the
        cloth. The compression leaves many faint blocks there, a little off the model, and they
        took a white ball's class."""
        if not self.cloth_model.by_light or d.cloth_bgr is None or d.streak_mm > 0:
            return False
        chroma, light = core_against_cloth(d.bgr, d.cloth_bgr)
        return (light < 1 + 0.5 * self.cloth_model.brighter
                and chroma < 0.5 * self.params.coloured_chroma)

    def _faint(self, d: Detection) -> bool:
        """The detection's core is barely unlike the cloth there: its unweighted foreground
        (chromaticity distance plus half the brightening, as in :meth:`_foreground`) is below
        ``strong_thresholds`` times the ball threshold, more where the cloth is darker than usual
        (a ball's core is well above it, as in :meth:`_strong_parts`; a dark corner's or a
        compression block's junk is not). A blurred streak is a mixture with the cloth and is
        kept, and so is a ball of a colour near the cloth's (see :meth:`_a_ball_near_the_cloth`)."""
        if d.cloth_bgr is None or d.streak_mm > 0:
            return False
        contrast = self._core_contrast(d.bgr, d.cloth_bgr)
        return contrast < self.params.strong_thresholds and not (
            contrast >= 1.0 and self._a_ball_near_the_cloth(d))

    def _a_ball_near_the_cloth(self, d: Detection) -> bool:
        """A faint core that is a coloured ball's own: a red on a red cloth differs from the
        cloth by less than ``strong_thresholds``, yet its core has its class's chromaticity (sure
        of it, and nearer it than the cloth's) and brightness (within ``class_brightness_ratio``),
        and it is brighter than the cloth (by half the margin: the light falls on a ball's top).
        Junk is a little off the cloth in colour, not in light; a white class on a pale cloth is
        left to :meth:`_cloth_in_light`."""
        model, cloth = self.colours, d.cloth_bgr
        if model is None or cloth is None or model.brightness is None:
            return False
        i, sure = model.nearest(d.bgr)
        if not sure or model.names[i] == "white":
            return False
        core = chromaticity(np.asarray(d.bgr, np.float64))[0]
        under = chromaticity(np.asarray(cloth, np.float64))[0]
        if np.linalg.norm(core - model.centres[i]) >= 0.5 * np.linalg.norm(core - under):
            return False
        own = (sum(d.bgr) + 3.0) / (model.brightness[i] + 3.0)
        most = self.params.class_brightness_ratio
        return (1.0 / most < own < most
                and core_against_cloth(d.bgr, cloth)[1] >= 1.0 + 0.5 * self.cloth_model.brighter)

    def _a_blur(self, bgr: Sequence[float], cloth_bgr: Sequence[float]) -> bool:
        """A drawn-out blob (see :func:`one_ball`) with this core colour is a blurred ball: its
        core faint, but as unlike the cloth as the threshold at least, as a mixture of a ball
        and the cloth is (a block of junk by a pocket's hole is less), and a mixture of a ball
        colour and the cloth's (a compression ghost left where a ball rolled is not)."""
        return 1.0 <= self._core_contrast(bgr, cloth_bgr) < self.params.strong_thresholds and (
            self.colours is None or self.colours.mixture(bgr, cloth_bgr) is not None)

    def _core_contrast(self, bgr: Sequence[float], cloth_bgr: Sequence[float]) -> float:
        """How unlike the cloth there a core colour ``bgr`` is, in ball thresholds (see
        :meth:`_faint`)."""
        chroma, light = core_against_cloth(bgr, cloth_bgr)
        contrast = chroma + 0.5 * max(light - 1, 0.0)
        # the noise of a chromaticity grows as the light falls (a grey level is a bigger share
        # of a dark pixel): in a dark corner the margin grows with it
        darker = max(1.0, self.cloth_model.level / (sum(cloth_bgr) + 3.0))
        return float(contrast / (self.cloth_model.threshold * darker))



def detect_frame(frame: Frame, calibration: Calibration) -> list[Detection]:
    """Every ball in one still image: cloth and colour classes learned from the image itself."""
    detector = BallDetector(calibration)
    detector.learn_cloth(frame)
    found = detector.detect(frame, update=False)
    if found:
        detector.fit_colours(found)
        found = detector.classify(found)
    return found
