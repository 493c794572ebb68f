"""Ball candidates at the working resolution from the foreground map: the mask above the ball
threshold, cleaned by morphology, cut into parts, each part judged by its shape (one ball, a ball
drawn out, balls touching, a hand with balls by it; see :mod:`vision.detection.shapes` and
:class:`BallSplitter`), and searched again from frame to frame only where the map changed.

Every size is in ball diameters (the fields of :class:`DetectionParams`):

* thin things (drawn or projected lines, the cue's shaft) are removed by an opening with a disc of
  0.4 ball diameters;
* blobs smaller than a third of a ball are noise; blobs wider than a ball (hands, arms) are not
  balls, though round parts of them the size of a ball may be (the tracker gates those);
* touching balls are split at the peaks of the distance transform (one per ball radius); a tight
  cluster whose peaks merged is split into as many balls as its shape holds beyond the peaks (its
  area alone would count each ball's halo as more balls, put in the gaps between the real ones);
* a motion-blur streak (a ridge of constant width one diameter) is one ball at the streak's centre.
"""

from __future__ import annotations

import itertools
import math
from typing import cast

import cv2
import numpy as np
from numpy.typing import NDArray

from video.frames import Frame
from vision.detection.geometry import WorkGrid, tile_maxima
from vision.detection.params import DetectionParams
from vision.detection.shapes import as_deep_as_its_balls, deep_and_alone, distances, one_ball
from vision.detection.split import BallSplitter
from vision.detection.types import F32, Blob


class BlobFinder:
    """The candidates of the last search and what they were found in, kept between frames:
    ``raw``, the closed mask (before the opening); ``labels``, its parts' labels; ``parts``,
    each part's work-pixel box (label -> x0, y0, x1, y1; None before the first search);
    ``blob_list``, the candidates; ``levels``, the levels of the map they were found in (see
    :meth:`levels_of`; None: unknown)."""

    def __init__(self, params: DetectionParams, grid: WorkGrid) -> None:
        self.params = params
        self.grid = grid
        ww, wh = grid.work_size
        tile = grid.tile
        self.raw = np.zeros((wh, ww), np.uint8)
        self.labels = np.zeros((wh, ww), np.uint16)
        self.parts: dict[int, tuple[int, int, int, int]] | None = None
        self.blob_list: list[Blob] = []
        self._next_label = 1
        self.levels: Frame | None = None
        # where the levels changed, padded to whole tiles
        self._levels_pad = np.zeros((-(-wh // tile) * tile, -(-ww // tile) * tile), np.uint8)

    def splitter(self, threshold: float) -> BallSplitter:
        """The blob splitter against the ball ``threshold``."""
        return BallSplitter(self.params, threshold, self.grid.open_kernel)

    def levels_of(self, f: F32, threshold: float,
                  box: tuple[slice, slice] | None = None) -> Frame:
        """What of the foreground map the candidates depend on, per work pixel: 0 at or below
        the threshold or outside the field, 1 above it, 2 above ``strong_thresholds`` times it, 3
        above ``stronger_thresholds`` times it. ``box``: where ``f`` is in the map (all of it by
        default)."""
        p = self.params
        q = np.greater(f, threshold).view(np.uint8) + np.greater(
            f, p.strong_thresholds * threshold).view(np.uint8)
        q += np.greater(f, p.stronger_thresholds * threshold).view(np.uint8)
        q *= self.grid.field_u8 if box is None else self.grid.field_u8[box]
        return q

    def tiles_changed(self, levels: Frame, before: Frame) -> NDArray[np.bool_]:
        """The tiles (of the work grid, see :meth:`ForegroundMap.now`) where any pixel's level
        changed."""
        hh, ww = levels.shape
        t, pad = self.grid.tile, self._levels_pad
        diff = cv2.absdiff(levels, before, dst=pad[:hh, :ww])  # straight into the padded map
        if not np.may_share_memory(diff, pad):  # (OpenCV made a new array after all)
            pad[:hh, :ww] = diff
        return np.asarray(tile_maxima(pad, t, 1) > 0)

    def find_all(self, f: F32, threshold: float, by_light: bool) -> list[Blob]:
        """Ball candidates at the working resolution from the whole foreground map."""
        hh, ww = f.shape
        self.levels = None  # (set again by the detector when the map is a frame's)
        self.raw = np.zeros((hh, ww), np.uint8)
        self.labels = np.zeros((hh, ww), np.uint16)
        self.parts = {}
        self._next_label = 1
        self.blob_list = self.search(f, (0, 0, ww, hh), threshold, by_light)
        return self.blob_list

    def where_changed(self, f: F32, tiles: NDArray[np.bool_], threshold: float,
                      by_light: bool) -> list[Blob] | None:
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
        parts = self.parts
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
            return None  # most of the table (or labels running out): all afresh
        gone: set[int] = set()
        for x0, y0, x1, y1 in rects:
            gone |= {k for k, (a0, b0, a1, b1) in parts.items()
                     if a0 >= x0 and a1 <= x1 and b0 >= y0 and b1 <= y1}
        for k in gone:
            del parts[k]
        kept = [b for b in self.blob_list if b.label not in gone]
        for rect in rects:
            kept += self.search(f, rect, threshold, by_light)
        self.blob_list = kept
        return kept

    def search(self, f: F32, rect: tuple[int, int, int, int], threshold: float,
               by_light: bool) -> list[Blob]:
        """Ball candidates inside ``rect`` (x0, y0, x1, y1 in work pixels) of the foreground
        map; the rectangle's mask, labels and parts replace what was there."""
        rx0, ry0, rx1, ry1 = rect
        # the morphology runs on the rectangle and the band it reaches into around it (exact
        # inside the rectangle), the rest on the rectangle alone
        hh, ww = f.shape
        m = self.grid.morph_reach
        cx0, cy0, cx1, cy1 = max(0, rx0 - m), max(0, ry0 - m), min(ww, rx1 + m), min(hh, ry1 + m)
        inner = (slice(ry0 - cy0, ry1 - cy0), slice(rx0 - cx0, rx1 - cx0))
        raw = (np.greater(f[cy0:cy1, cx0:cx1], threshold).view(np.uint8)
               & self.grid.field_u8[cy0:cy1, cx0:cx1])
        if not raw.any():
            # nothing above the threshold (often: a ball left the tiles searched): no part, and
            # the morphology and the labelling of nothing would give nothing
            self.raw[ry0:ry1, rx0:rx1] = 0
            self.labels[ry0:ry1, rx0:rx1] = 0
            return []
        closed = cast(Frame, cv2.morphologyEx(raw, cv2.MORPH_CLOSE, self.grid.close_kernel))
        self._fill_ball_holes(closed, raw, cx0, cy0)
        mask = np.ascontiguousarray(cv2.morphologyEx(closed, cv2.MORPH_OPEN,
                                                     self.grid.open_kernel)[inner])
        self.raw[ry0:ry1, rx0:rx1] = closed[inner]
        if not mask.any():  # (as above: only thin things, opened away)
            self.labels[ry0:ry1, rx0:rx1] = 0
            return []
        opened = cv2.morphologyEx(raw, cv2.MORPH_OPEN, self.grid.open_kernel)[inner]
        # 16-bit labels: several times faster than 32-bit here
        n, labels, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=8,
                                                                   ltype=cv2.CV_16U)
        first = self._next_label
        self._next_label += max(0, n - 1)
        self.labels[ry0:ry1, rx0:rx1] = np.where(labels > 0, labels + np.uint16(first - 1),
                                                 np.uint16(0))
        if n <= 1:
            return []
        parts = self.parts
        assert parts is not None
        # distances on the unclosed mask (``opened``), so that the gaps between touching balls
        # stay open (a dot's hole inside a white ball makes no peak of its own at 1.5 radii)
        blobs: list[Blob] = []
        p = self.params
        splitter = self.splitter(threshold)
        for i in range(1, n):
            lx, ly, w, h, area = (int(v) for v in stats[i])
            label = first + i - 1
            x, y = lx + rx0, ly + ry0
            parts[label] = (x, y, x + w, y + h)
            cx, cy = float(cents[i, 0]) + rx0, float(cents[i, 1]) + ry0
            r = float(self.grid.radius_work[min(int(cy), hh - 1), min(int(cx), ww - 1)])
            ball_area = math.pi * r * r
            least = p.least_lit_top_share if by_light else p.least_blob_share
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
                found = splitter.strong_parts(f[y:y + h, x:x + w], part, x, y, label, r)
                if found is not None:
                    # a ball only a little above the threshold, joined to the cue and the
                    # hand, is not among the strong parts: the blob's round pieces with little
                    # of it around them (see BallSplitter.split) are balls too (a white with
                    # the cue's tip on it in the club footage went unseen through a practice
                    # stroke)
                    found += [b for b in splitter.split(sub, x, y, label, r, area)
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
                found = splitter.split(sub, x, y, label, r, area)
                if deep:
                    found += [b for b in splitter.strong_cores(f[y:y + h, x:x + w], part, x, y,
                                                            label, r)
                              if all(math.hypot(b.x - o.x, b.y - o.y) >= 1.5 * r
                                     for o in found)]
            # (no key: a piece is known by the picture around it, see Refiner.refine)
            blobs += found
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
