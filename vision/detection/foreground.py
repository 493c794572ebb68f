"""The foreground map of each frame (how unlike the cloth model each work pixel is, see
:meth:`ClothModel.foreground`), kept between frames and made again only where the picture
changed: most of the table is still cloth, frame after frame."""

from __future__ import annotations

from typing import cast

import cv2
import numpy as np
from numpy.typing import NDArray

from video.frames import Frame
from vision.detection.chroma import chroma_distance
from vision.detection.cloth import ClothModel
from vision.detection.geometry import WorkGrid, tile_maxima
from vision.detection.params import DetectionParams
from vision.detection.types import F32, Planes


class ForegroundMap:
    """The foreground map of the last frame, the work image it was computed from and the cloth
    model it was computed with (``map`` None: none yet, or to be made afresh)."""

    def __init__(self, params: DetectionParams, grid: WorkGrid) -> None:
        self.params = params
        self.grid = grid
        ww, wh = grid.work_size
        tile = grid.tile
        # per-pixel changes, padded to whole tiles (three channel bytes per pixel)
        self._tile_pad = np.zeros((-(-wh // tile) * tile, -(-ww // tile) * tile * 3), np.uint8)
        self.map: F32 | None = None
        self._src: Frame | None = None
        self._model: F32 | None = None
        # the boxes of the map made again in this frame (None: all of it; see now)
        self.boxes: list[tuple[slice, slice]] | None = None
        # the least change of a pixel that counts (see _level_of_change)
        self.change_level: float | None = None
        # the per-pixel part of the whole map (see _whole): the model, cloth level and
        # neutral-cloth flag it was made with, the work image it was made of, and its maps
        self._per_pixel: tuple[F32, float, bool, NDArray[np.uint32], F32, F32, F32, F32] | None = (
            None)

    def forget(self) -> None:
        """Make the map and the level of change afresh with the next frame (the threshold
        changed)."""
        self.map, self.change_level = None, None

    def model_moved(self, before: F32, after: F32) -> None:
        """The cloth model ``before`` was updated to ``after``. The map stands for the new
        model until the picture changes: the model moved only at cloth pixels (below the
        threshold, away from everything found), toward this picture, by a quarter of a
        difference within the noise."""
        if self._model is before:
            self._model = after

    def now(self, small: Frame, cloth: ClothModel) -> tuple[F32, NDArray[np.bool_] | None]:
        """The foreground map of this frame and the tiles where the picture changed since the
        last one (None: the whole map was made afresh).

        The map is recomputed only in the tiles where some pixel moved by more than
        ``change_level`` from the value the map was last computed from (the foreground is
        per pixel, but for a dark ball's reference brightness, which looks a ball around: a
        group of changed tiles is recomputed as one box, so only a dark ball cut by the box's
        edge can differ from a whole-table computation): most of the table is still cloth,
        frame after frame. A kept pixel differs from this frame's by no more than the noise
        between two frames (see :meth:`_level_of_change`); the comparison is with the pixel the
        map was computed from, so slow changes add up and are seen.
        """
        model = cloth.image
        self.boxes = None
        if self.map is None or self._model is not model or self._src is None:
            self.map, self._src, self._model = self._whole(small, cloth), small.copy(), model
            return self.map, None
        hh, ww = self.map.shape
        t, pad = self.grid.tile, self._tile_pad
        # a tile changed where its largest change is above the level: the changes are written
        # straight into the padded map (a view of it with the frame's shape)
        diff = cast(Frame, cv2.absdiff(small, self._src,
                                       dst=pad[:hh, :ww * 3].reshape(hh, ww, 3)))
        if not np.may_share_memory(diff, pad):  # (OpenCV made a new array after all)
            pad[:hh, :ww * 3] = diff.reshape(hh, ww * 3)
        if self.change_level is None:
            self.change_level = self._level_of_change(diff, cloth)
        tiles = tile_maxima(pad, t, 3) > self.change_level
        if not tiles.any():
            return self.map, tiles
        planes = cloth.model_planes()
        # one call per group of changed tiles, over its bounding box (all of it counts as
        # changed: its map is this frame's)
        n, _, stats, _ = cv2.connectedComponentsWithStats(tiles.astype(np.uint8), connectivity=8)
        if (int((stats[1:n, 2] * stats[1:n, 3]).sum())
                > self.params.mostly_changed_share * tiles.size):
            # most of the table changed (players over it): one call for all of it is cheaper
            self.map, self._src = self._whole(small, cloth), small.copy()
            return self.map, None
        boxes = []
        for x, y, w, h, _ in stats[1:n]:
            tiles[y:y + h, x:x + w] = True
            boxes.append((slice(int(y) * t, min(hh, int(y + h) * t)),
                          slice(int(x) * t, min(ww, int(x + w) * t))))
        self.boxes = boxes
        if len(boxes) == 1:
            box = boxes[0]
            self.map[box] = cloth.foreground(
                small[box], cast(Planes, tuple(p[box] for p in planes)))
            self._src[box] = small[box]
            return self.map, tiles
        # several boxes: the per-pixel part for all of their pixels at once (one after another
        # in one column: the same steps on each pixel), the dark balls' part box by box
        stacked = cloth.model_cache_now()[2]
        at = np.concatenate([stacked[b].reshape(-1, 4) for b in boxes])
        d, si, ratio = chroma_distance(
            np.concatenate([small[b].reshape(-1, 3) for b in boxes])[:, None],
            cast(Planes, tuple(np.ascontiguousarray(at[:, k, None]) for k in range(4))))
        fg = cloth.weights(d, si, ratio)
        i = 0
        for box in boxes:
            shape = (box[0].stop - box[0].start, box[1].stop - box[1].start)
            j = i + shape[0] * shape[1]
            w_box = fg[i:j].reshape(shape)
            cloth.dark_balls(d[i:j].reshape(shape), ratio[i:j].reshape(shape),
                             si[i:j].reshape(shape), w_box)  # (si now holds lit)
            self.map[box] = w_box
            self._src[box] = small[box]
            i = j
        return self.map, tiles

    def _whole(self, small: Frame, cloth: ClothModel) -> F32:
        """``cloth.foreground(small)`` of the whole work image, its per-pixel part (see
        :meth:`ClothModel.weights`) made again only at the pixels that changed since the last
        time (the same steps on the same numbers: the same values to the bit), when they are few
        (on a clean video most of a frame is the same from frame to frame, to the grey level,
        though its tiles changed somewhere); the dark balls' part (:meth:`ClothModel.dark_balls`)
        on the whole.
        """
        model, planes, _ = cloth.model_cache_now()
        # each pixel's B, G, R (and 255) as one 32-bit number: a changed pixel in one compare
        packed = cv2.cvtColor(small, cv2.COLOR_BGR2BGRA).view(np.uint32).reshape(small.shape[:2])
        pp = self._per_pixel
        if (pp is not None and pp[0] is model and pp[1] == cloth.level
                and pp[2] == cloth.by_light):
            src, d, lit, ratio, w0 = pp[3:]
            differs = np.not_equal(packed, src)
            # (beyond mostly_changed_share: all at once)
            if np.count_nonzero(differs) <= self.params.mostly_changed_share * d.size:
                changed = np.flatnonzero(differs)
                if len(changed):
                    # those pixels one after another in one column (as now does
                    # for several boxes), then put back in place
                    px = np.take(packed, changed).view(np.uint8).reshape(-1, 1, 4)[..., :3]
                    dc, lc, rc = chroma_distance(px, cast(Planes, tuple(
                        np.take(p, changed)[:, None] for p in planes)))
                    wc = cloth.weights(dc, lc, rc)  # (lc now holds lit)
                    for whole, part in ((d, dc), (lit, lc), (ratio, rc), (w0, wc)):
                        whole.reshape(-1)[changed] = part.reshape(-1)
                self._per_pixel = (*pp[:3], packed, d, lit, ratio, w0)
                w = w0.copy()
                cloth.dark_balls(d, ratio, lit, w)
                return w
        d, si, ratio = chroma_distance(small, planes)
        w0 = cloth.weights(d, si, ratio)  # (si now holds lit)
        self._per_pixel = (model, cloth.level, cloth.by_light, packed, d, si, ratio, w0)
        w = w0.copy()
        cloth.dark_balls(d, ratio, si, w)
        return w

    def _level_of_change(self, diff: Frame, cloth: ClothModel) -> float:
        """The least change of a pixel (grey levels, any channel) that counts as a change: above
        this video's frame-to-frame noise (5 sigma of the differences of two frames, from a
        robust spread: a ball rolling by is a small share of the table), and at least what moves
        the foreground by an eighth of the ball threshold (a change in every channel of ``v``
        moves a chromaticity by at most ``6 v / S``, S the cloth's brightness sum)."""
        d = diff[self.grid.field].astype(np.float32)
        sigma = 1.4826 * float(np.median(d))  # |a - b| of two noisy frames: its median is MAD
        # (and on a neutral cloth the brightening's part of the foreground, 1.5 v / S, too)
        per_level = 7.5 if cloth.by_light else 6.0
        return max(5.0 * sigma, cloth.threshold * cloth.level / (8.0 * per_level))
