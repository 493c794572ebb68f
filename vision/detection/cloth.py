"""The cloth model: the empty cloth's colour at every work pixel, learned from a frame of the
video and kept up to date slowly, the ball threshold from the cloth's own noise, and how unlike
the cloth each pixel of a frame is (the foreground, :meth:`ClothModel.foreground`).

The cloth is modelled from the video itself: a median filter much wider than a ball (2.5 ball
diameters) of a frame at the working resolution gives the empty cloth's colour at every pixel
(balls, being small, are voted out; straight edges such as the cushion noses are kept). A pixel
belongs to a ball when its *chromaticity* (colour / brightness) differs from the cloth's, or when it
is brighter than the cloth: shadows and the dark pocket holes keep the cloth's chromaticity or are
too dark to count, so neither is a ball.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import cast

import cv2
import numpy as np
from numpy.typing import NDArray

from video.frames import Frame
from vision.detection.chroma import brightening, chroma_distance, chroma_planes, median
from vision.detection.geometry import WorkGrid, odd
from vision.detection.params import DetectionParams
from vision.detection.types import F32, F64, ONE, Blob


@dataclass(frozen=True)
class ClothWork:
    """A frame's share of the cloth model's making, done ahead of time, perhaps by a reader
    thread (see :meth:`BallDetector.prepare`): the frame's wide median (``cloth_from``) and,
    once the cloth was learned, the pixels that are cloth against it (``cloth_like``), made
    with the ``learned`` ball threshold and cloth brightness (used only while they are the
    model's)."""

    smooth: F32
    cloth_like: NDArray[np.bool_] | None = None
    learned: tuple[float, float] | None = None
    coarse: bool = False  # the smooth is the update's coarse one (see ClothModel.cloth_from)


class ClothModel:
    """The empty cloth of one video at the working resolution (``grid``) and the ball threshold.

    ``image``: the cloth's colour per work pixel, B, G, R plus one (None until learned);
    ``threshold``: the foreground above which a pixel may be a ball; ``level``: the cloth's
    usual brightness (the sum of B, G, R); ``by_light``: brightening counts as foreground,
    beyond the relative margin ``brighter`` (see ``brighter_share``, ``headroom_share``): the
    cloth is neutral (see ``neutral_cloth_chroma``), or a ball the game state expects shows
    less than a white would (see :meth:`_faint_balls_floor`, which sets ``faint_floor`` too).
    All are set when learned.
    """

    def __init__(self, params: DetectionParams, grid: WorkGrid) -> None:
        self.params = params
        self.grid = grid
        self.image: F32 | None = None
        self.threshold = 0.0
        self.level = 0.0
        self.by_light = False
        # a neutral cloth (read by light for its whites; see learn): a coloured cloth may be read
        # by light too, for its faint balls (see _faint_balls_floor)
        self.neutral = False
        self.brighter = params.brighter_share
        # the threshold's floor for the faintest ball expected where it was learned (see
        # _faint_balls_floor): none, inf, when every ball shows as a white would
        self.faint_floor = math.inf
        # the ball threshold and the cloth's brightness once learned (see ClothWork)
        self.learned: tuple[float, float] | None = None
        # the frame learned from: the next frame's noise floors the threshold
        self.learned_from: Frame | None = None
        # the model's chromaticity planes and inverse brightness, and the same stacked in
        # one (H, W, 4) array (one gather per ball), kept until the model changes
        self._model_cache: tuple[F32, tuple[F32, F32, F32, F32], F32] | None = None
        self._white_memo: tuple[F32, float] | None = None  # (see _white_contrast)
        d_work = grid.d_work
        self._median_k = odd(2.5 * d_work, 5)
        # the same reach on a coarse grid: for the model's updates (see cloth_from)
        self._coarse_step = max(1, round(params.coarse_step_diameters * d_work))
        self._coarse_median_k = odd(2.5 * d_work / self._coarse_step, 3)

    # --- learning and updating ---------------------------------------------------------------
    def learn(self, small: Frame, ahead: ClothWork | None, balls_at: Sequence[tuple[float, float]],
              find_blobs: Callable[[F32], list[Blob]]) -> None:
        """Model the empty cloth from the work image ``small`` of one frame and set the ball
        threshold from the cloth's own noise (see :meth:`BallDetector.learn_cloth`).
        ``find_blobs``: the ball candidates of a foreground map (the model is the frame itself
        except around them)."""
        self.learned = None  # (a reader thread's cloth work made meanwhile is not used)
        smooth = (self.cloth_from(small) if ahead is None or ahead.coarse
                  else ahead.smooth)
        self.image = smooth
        # the cloth's usual brightness (the sum of B, G, R): below a tenth of it, no colour
        # (B + G + R of whole numbers: the same in any order, and faster on the planes)
        b, g, r = cv2.split(smooth)
        level = b + g
        level += r
        self.level = float(np.median(level[self.grid.field]))
        self.neutral = self.by_light = self._white_contrast() < self.params.neutral_cloth_chroma
        # the margin where the cloth is at its brightest (a tenth of the field is brighter);
        # pure white is 3 x 256 (the model counts from 1)
        bright = float(np.quantile(level[self.grid.field], 0.9))
        p = self.params
        self.brighter = min(p.brighter_share, p.headroom_share * (3 * 256.0 / bright - 1.0))
        self.faint_floor = math.inf
        if not self.by_light and len(balls_at):
            self._faint_balls_floor(small, balls_at)
        f = self.foreground(small)
        self.threshold = self._noise_threshold(f)
        model = small.astype(np.float32) + np.float32(1.0)
        paint = np.zeros(small.shape[:2], np.uint8)
        for blob in find_blobs(f):
            if not self.grid.on_cloth[int(blob.y), int(blob.x)]:
                continue  # no ball rests there: a piece of the shadow under the cushion noses
            self._paint_around(paint, blob.x, blob.y)
        for x, y in self._bright_balls(small, smooth, paint):
            self._paint_around(paint, x, y)
        if len(balls_at):
            self._paint_expected_balls(paint, small, balls_at)
        fill = self._fill_from_cloth(
            model, (paint == 0) & self.grid.on_cloth & (f <= self.threshold), smooth)
        self.image = np.asarray(cv2.copyTo(fill, paint, model), np.float32)  # fill where painted
        self.threshold = self._noise_threshold(self.foreground(small))
        self.learned = (self.threshold, self.level)
        self.learned_from = small  # the next frame's noise floors the threshold

    def carry_from(self, old: ClothModel, motion: NDArray[np.float64]) -> None:
        """Take ``old``'s model (of another work grid: the picture before it moved by
        ``motion``, 3x3 full-resolution pixels, new = motion @ old) onto this grid: each work
        pixel's cloth is the old model's where that point of the table was seen before. The
        threshold and the cloth's brightness stay: the camera moved, the light did not (a model
        learned anew from one frame would take in whatever lies over the cloth then: a player
        leaning over a ball)."""
        assert old.image is not None
        cols, rows = np.meshgrid(*self.grid.work_centres_px())
        back = np.linalg.inv(motion)
        den = back[2, 0] * cols + back[2, 1] * rows + back[2, 2]
        px = (back[0, 0] * cols + back[0, 1] * rows + back[0, 2]) / den
        py = (back[1, 0] * cols + back[1, 1] * rows + back[1, 2]) / den
        ox0, oy0, _, _ = old.grid.roi
        map_x = ((px - ox0 + 0.5) / old.grid.sx - 0.5).astype(np.float32)
        map_y = ((py - oy0 + 0.5) / old.grid.sy - 0.5).astype(np.float32)
        self.image = np.asarray(cv2.remap(old.image, map_x, map_y, cv2.INTER_LINEAR,
                                          borderMode=cv2.BORDER_REPLICATE), np.float32)
        self.threshold, self.level, self.by_light = old.threshold, old.level, old.by_light
        self.neutral = old.neutral
        self.brighter, self.faint_floor = old.brighter, old.faint_floor
        self.learned = (self.threshold, self.level)
        self.learned_from = None

    def _paint_expected_balls(self, paint: Frame, small: Frame,
                              balls_at: Sequence[tuple[float, float]]) -> None:
        """Mark in ``paint`` (work pixels) the surroundings of each expected ball (table mm)
        where the unweighted foreground against the current (smooth) model has a pixel above
        the threshold within a radius and a half of the point (its brightening counted)."""
        x0, y0, _, _ = self.grid.roi
        px = self.grid.calibration.table_to_image(np.asarray(balls_at, np.float64).reshape(-1, 2))
        fu = self.foreground(small, weighted=False)
        hh, ww = fu.shape
        for u, v in px:
            wx, wy = (u + 0.5 - x0) / self.grid.sx - 0.5, (v + 0.5 - y0) / self.grid.sy - 0.5
            if not (0 <= wx < ww and 0 <= wy < hh):
                continue
            r = float(self.grid.radius_work[int(wy), int(wx)])
            reach = 1.5 * r
            bx0, by0 = max(0, int(wx - reach)), max(0, int(wy - reach))
            bx1, by1 = min(ww, int(wx + reach) + 2), min(hh, int(wy + reach) + 2)
            yy, xx = np.mgrid[by0:by1, bx0:bx1]
            near = (xx - wx) ** 2 + (yy - wy) ** 2 <= reach * reach
            if np.any(fu[by0:by1, bx0:bx1][near] > self.threshold):
                self._paint_around(paint, wx, wy)

    def _bright_balls(self, small: Frame, smooth: F32, paint: Frame) -> list[tuple[float, float]]:
        """Work pixels (x, y) of the balls, not yet in ``paint``, that show in ``small`` as a
        spot of one ball's size palest_white_ratio times as bright as the cloth around it
        (``smooth``) or more: a white, or the yellow, that the foreground alone missed. On a
        cloth where a white differs from the cloth mostly in light (a grey-blue one, just above
        neutral_cloth_chroma), a white already placed in the house when the video starts made
        only a weak blob under a threshold the unpainted balls themselves had raised, was
        learned as cloth, and was never seen. A lamp's hot spot is far wider than the median,
        which follows it; a drawn spot is far smaller than a ball."""
        p = self.params
        lit = small.sum(axis=2, dtype=np.int32) + 3  # (the model counts from 1, per channel)
        spots = ((lit >= np.float32(p.palest_white_ratio) * smooth.sum(axis=2))
                 & self.grid.on_cloth).view(np.uint8)
        n, _, stats, cents = cv2.connectedComponentsWithStats(spots, connectivity=8)
        found: list[tuple[float, float]] = []
        for i in range(1, n):
            w, h, area = (int(v) for v in stats[i, 2:5])
            x, y = float(cents[i, 0]), float(cents[i, 1])
            r = float(self.grid.radius_work[int(y), int(x)])
            if (paint[int(y), int(x)] or area < p.least_blob_share * math.pi * r * r
                    or max(w, h) > 2.0 * r + 1):
                continue  # (painted already; too small for a ball, or more than one)
            found.append((x, y))
        return found

    def _paint_around(self, paint: Frame, x: float, y: float) -> None:
        """Mark in ``paint`` a ball at work pixel (x, y) and the cloth it lights or shades
        around it (2.2 radii), to be filled with the cloth around that."""
        r = float(self.grid.radius_work[int(y), int(x)])
        cv2.circle(paint, (round(x), round(y)), max(2, round(2.2 * r)), 1, -1)

    def _fill_from_cloth(self, model: F32, known: NDArray[np.bool_], fallback: F32) -> F32:
        """The cloth's colour at every pixel as a Gaussian-weighted mean (one ball diameter) of
        the ``known`` pixels around it only: balls, the cushions beyond the noses and the wood
        never leak into it (a median over a window mixes them in near a cushion or another
        ball). Where hardly any known pixel is near, ``fallback``."""
        w = known.astype(np.float32)
        sigma = self.grid.d_work
        den = cv2.GaussianBlur(w, (0, 0), sigma)
        num = cv2.GaussianBlur(model * w[..., None], (0, 0), sigma)
        ok = den > np.float32(0.02)  # at least 2 % of the Gaussian's weight is known cloth
        mean = np.divide(num, np.maximum(den, np.float32(1e-6))[..., None], out=num)
        return np.asarray(cv2.copyTo(fallback.astype(np.float32, copy=False),
                                     np.logical_not(ok).view(np.uint8), mean), np.float32)

    def _noise_threshold(self, f: F32) -> float:
        """8 sigma of the cloth's noise, and never below a quarter of a white ball's contrast on
        this cloth (the chromaticity distance from grey to the cloth), or the floor of the
        faintest ball expected, when lower (see :meth:`_faint_balls_floor`)."""
        vals = f[self.grid.field]
        med = float(np.median(vals))
        mad = float(np.median(np.abs(vals - med))) * 1.4826
        return max(med + 8 * mad, min(0.25 * self._white_contrast(), self.faint_floor))

    def _faint_balls_floor(self, small: Frame, balls_at: Sequence[tuple[float, float]]) -> None:
        """On a coloured cloth, look at the balls the game state expects (``balls_at``, table
        mm) against the current (smooth) model. A ball whose typical pixel (the median over its
        disc) is below a quarter of a white's contrast would not show as a ball: the floor was
        set for the whites, and a ball of about the cloth's own colour (a red on a red cloth)
        differs from it far less. Then the brightening counts as foreground, as on a neutral
        cloth (that ball's lit top is what tells it from the cloth), and the threshold's floor
        (``faint_floor``) falls to ``faint_floor_share`` of the whites' (the compression's junk
        is not far below), if so counted the ball's typical pixel is above that: a ball the
        state expects but that is not there (taken off the table, not yet put back on its spot)
        is not faint, and leaves all as it was. Left as it was too when every expected ball
        shows as a white would (on a green or blue cloth every ball does).

        A ball whose disc shows but whose core (``faint_core_radii``) does not, shows only by
        its rim: the brightening counts (its lit top fills the ring), but the floor stays the
        whites'."""
        white_floor = 0.25 * self._white_contrast()
        medians = self._ball_medians(small, balls_at)
        faint = [xy for xy, m, core in medians if min(m, core) < white_floor]
        if not faint:
            return
        self.by_light = True
        floor = self.params.faint_floor_share * white_floor
        if all(m < floor for _, m, _ in self._ball_medians(small, faint)):
            self.by_light = False  # (no ball there to be seen)
            return
        if any(m < white_floor for _, m, _ in medians):  # (not a ring alone: a faint disc)
            self.faint_floor = floor

    def _ball_medians(self, small: Frame, balls_at: Sequence[tuple[float, float]]
                      ) -> list[tuple[tuple[float, float], float, float]]:
        """Each point of ``balls_at`` (table mm) on the cloth with the median foreground over a
        ball's disc there and over its core (``faint_core_radii``; inf when it covers no work
        pixel's centre)."""
        f = self.foreground(small)
        hh, ww = f.shape
        x0, y0, _, _ = self.grid.roi
        px = self.grid.calibration.table_to_image(np.asarray(balls_at, np.float64).reshape(-1, 2))
        out = []
        for xy, (u, v) in zip(balls_at, px, strict=True):
            wx, wy = (u + 0.5 - x0) / self.grid.sx - 0.5, (v + 0.5 - y0) / self.grid.sy - 0.5
            if not (0 <= wx < ww and 0 <= wy < hh and self.grid.on_cloth[int(wy), int(wx)]):
                continue
            r = float(self.grid.radius_work[int(wy), int(wx)])
            bx0, by0 = max(0, int(wx - r)), max(0, int(wy - r))
            bx1, by1 = min(ww, int(wx + r) + 2), min(hh, int(wy + r) + 2)
            yy, xx = np.mgrid[by0:by1, bx0:bx1]
            square = (xx - wx) ** 2 + (yy - wy) ** 2
            core_r = self.params.faint_core_radii * r
            disc, core = square <= r * r, square <= core_r * core_r
            if disc.any():
                fb = f[by0:by1, bx0:bx1]
                out.append((xy, float(np.median(fb[disc])),
                            float(np.median(fb[core])) if core.any() else math.inf))
        return out

    def work_ahead(self, small: Frame, coarse: bool) -> ClothWork:
        """The costly steps of learning (``coarse`` False) or updating the model from the work
        image ``small`` that a reader thread can make ahead of time (the same whichever thread
        makes them, see :class:`ClothWork`)."""
        smooth = self.cloth_from(small, coarse=coarse)
        learned = self.learned  # None until the cloth is learned (or while it is learned anew)
        if learned is None:
            return ClothWork(smooth, coarse=coarse)
        like = self.cloth_like(small, smooth)
        # (the threshold and brightness it was made with were still the learned ones throughout)
        return (ClothWork(smooth, like, learned, coarse) if self.learned is learned
                else ClothWork(smooth, coarse=coarse))

    def floor_at_noise_of(self, small: Frame) -> bool:
        """With the first work image after the one learned from that differs from it, floor
        the threshold at its noise (see :meth:`_floor_threshold_at_noise`); True when the
        threshold was raised."""
        learned_from = self.learned_from
        if learned_from is None or small is learned_from or np.array_equal(small, learned_from):
            return False
        self.learned_from = None
        return self._floor_threshold_at_noise(small)

    def _floor_threshold_at_noise(self, small: Frame) -> bool:
        """On a neutral cloth, raise the threshold to twice the noise of the first frame
        after the one the cloth was learned from: its foreground over the field at the 99th
        percentile (the balls are a few tenths of a percent of it). The model is the learning
        frame itself, so that frame's noise is no measure of the next one's: on a pale grey
        cloth a quarter of a white ball's chromaticity contrast is a fifth of the compression's
        blocks, which then join a moving ball's blob into one too wide to be a ball (so a
        rolling yellow was lost). Not on a coloured cloth: there the balls show by
        colour, and on the club footage the floor lost 49 of 57 hand-checked balls. True when
        the threshold was raised: everything made with the old one is to be made again."""
        if not self.by_light:
            return False  # (on a coloured cloth the balls show by colour, well above the noise)
        fg = self.foreground(small)[self.grid.field]
        floor = 2.0 * float(np.quantile(fg, 0.99)) if fg.size else 0.0
        # never above a quarter of the palest white's contrast (a player over the table in
        # that frame is more than the noise)
        p = self.params
        floor = min(floor, 0.25 * float(brightening(np.array([p.palest_white_ratio], np.float32),
                                                    p.brighter_share)[0]))
        if floor <= self.threshold:
            return False
        self.threshold = floor
        self.learned = (self.threshold, self.level)
        return True

    def _white_contrast(self) -> float:
        """A white ball's contrast on this cloth: the chromaticity distance from grey to the
        cloth model (the median over the field)."""
        model = self.model_cache_now()[0]
        if self._white_memo is not None and self._white_memo[0] is model:
            return self._white_memo[1]  # (learn_cloth asks twice of the same model)
        mb, mg, mr, _ = self.model_planes()
        third = np.float32(1 / 3)
        grey = np.abs(third - mb) + np.abs(third - mg) + np.abs(third - mr)
        self._white_memo = (model, float(np.median(grey[self.grid.field])))
        return self._white_memo[1]

    def update(self, small: Frame, ball_mask: NDArray[np.uint8], ahead: ClothWork | None,
               rate: float) -> None:
        """Blend a fresh cloth estimate into the model where no ball (or hand) is (``ball_mask``:
        the raw mask of the frame's candidates), by ``rate``. ``ahead``: the frame's cloth work
        when already made (see :meth:`BallDetector.prepare`)."""
        assert self.image is not None
        if ahead is None:
            like = self.cloth_like(small, self.cloth_from(small, coarse=True))
        elif ahead.cloth_like is None or ahead.learned != (self.threshold, self.level):
            like = self.cloth_like(small, ahead.smooth)
        else:
            like = ahead.cloth_like
        keep = like & (cv2.dilate(ball_mask, self.grid.open_kernel) == 0)
        a = np.float32(rate)
        # cloth * (1 - a) + (small + 1) * a, step by step in place (the same float32 values),
        # then the old model copied back where not to keep
        blended = np.multiply(self.image, 1 - a)
        fresh = np.add(small, ONE, dtype=np.float32)  # integers: exact
        fresh *= a
        blended += fresh
        self.image = np.asarray(cv2.copyTo(self.image, np.logical_not(keep).view(np.uint8),
                                           blended), np.float32)

    # --- the foreground -------------------------------------------------------------------
    def cloth_like(self, small: Frame, smooth: F32) -> NDArray[np.bool_]:
        """Pixels that are not part of a foreground blob against a smooth cloth model."""
        blob = (self.foreground(small, chroma_planes(smooth)) > self.threshold).astype(np.uint8)
        grown = cv2.dilate(blob, cv2.getStructuringElement(
            cv2.MORPH_ELLIPSE, (odd(0.6 * self.grid.d_work),) * 2))
        return np.asarray(grown == 0)

    def cloth_from(self, small: Frame, coarse: bool = False) -> F32:
        """The cloth as a median 2.5 ball diameters wide (plus one: the model counts from 1).
        ``coarse``: the median on a grid ``coarse_step_diameters`` ball diameters apart, the
        same reach, spread back to every pixel: for the model's updates, which need it only to
        tell what stands out from the cloth around it (:meth:`cloth_like`), at about a tenth of the
        cost (the full median was half of an update's cost, 7-12 ms a time, a quarter of a ms
        a frame). Learning, once, uses the full one: there it is the model where balls were."""
        if not coarse:
            med = cv2.medianBlur(small, self._median_k)
        else:
            hh, ww = small.shape[:2]
            step = self._coarse_step
            med = cv2.resize(cv2.medianBlur(np.ascontiguousarray(small[::step, ::step]),
                                            self._coarse_median_k),
                             (ww, hh), interpolation=cv2.INTER_LINEAR)
        return np.add(med, ONE, dtype=np.float32)  # integers: exact

    def model_planes(self) -> tuple[F32, F32, F32, F32]:
        """The cloth model's chromaticity planes and inverse brightness, kept until the model
        changes."""
        return self.model_cache_now()[1]

    def model_cache_now(self) -> tuple[F32, tuple[F32, F32, F32, F32], F32]:
        m = self.image
        assert m is not None
        if self._model_cache is None or self._model_cache[0] is not m:
            planes = chroma_planes(m)
            self._model_cache = (m, planes, np.asarray(cv2.merge(planes), np.float32))
        return self._model_cache

    def foreground(self, small: Frame, planes: tuple[F32, F32, F32, F32] | None = None,
                    weighted: bool = True) -> F32:
        """How unlike the cloth each pixel is: chromaticity distance (L1), weighted down for
        pixels much darker than the cloth (shadows, holes). Unweighted (for the edge of a ball
        whose shaded side is dark), plus half the relative brightening instead. ``planes``: the
        cloth's (see :func:`chroma_planes`), the model's by default."""
        d, si, ratio = chroma_distance(small, self.model_planes() if planes is None else planes)
        if not weighted:
            t = np.subtract(ratio, ONE)
            np.maximum(t, 0, out=t)
            t *= np.float32(0.5)
            d += t
            return d
        w = self.weights(d, si, ratio)
        self.dark_balls(d, ratio, si, w)  # (si now holds lit)
        return w

    def weights(self, d: F32, si: F32, ratio: F32) -> F32:
        """The weighted foreground of pixels from their chroma distance, brightness sum and its
        ratio to the cloth's (see :func:`chroma_distance`) against the cloth's brightness, per
        pixel (:meth:`dark_balls` then mends it by the dark balls); ``si`` becomes the pixels'
        lit weight."""
        # Nearly black pixels (a fifth of the cloth's usual brightness and below: the holes,
        # even where the model is the hole itself) have no reliable chromaticity.
        lit = np.multiply(si, np.float32(10.0 / self.level), out=si)
        lit -= ONE
        np.clip(lit, 0, 1, out=lit)
        # every pixel against the cloth's brightness (a dark ball's own reference only changes
        # the pixels it reaches: made again by _dark_balls in the box around them)
        w = np.multiply(ratio, np.float32(2.0))
        w -= ONE
        np.clip(w, 0, 1, out=w)
        w *= d
        w *= lit
        if self.by_light:
            w += brightening(ratio, self.brighter)
        return w

    def dark_balls(self, d: F32, ratio: F32, lit: F32, w: F32) -> None:
        """Mend ``w`` (from :meth:`weights`) by the dark balls in the map: ``d``, ``ratio`` and
        ``lit`` the map's (whole or a box)."""
        # Zero weight at half the reference brightness and below: shadows, holes, dark wood.
        # The reference is the cloth's, except by a dark ball: a strongly coloured thing (an
        # opened blob of pixels far from the cloth's chromaticity, no bigger than a ball: no
        # sleeve, forearm or cue butt) that does not show whole against the cloth (fewer of its
        # pixels above the threshold than whole_share of a disc), such as a red ball on a pale
        # cloth, or a red on green whose shaded rim weighs as a shadow. On it and a quarter of a
        # ball around, the reference is its own brightness (its pixels' median, so that a highlight
        # does not count): such a ball is not darker than itself. A ball that shows whole keeps
        # the cloth's reference.
        strong = np.greater(d, self.params.coloured_chroma).view(np.uint8)
        # components only in the box around the strong pixels (a few balls: most of the map is
        # empty, and the labelling's cost is per pixel); none without any strong pixel
        bx, by, bw, bh = cv2.boundingRect(strong)  # a uint8 image: its nonzero pixels' box
        if bw:
            # the morphology only in that box and twice the kernel's size around it: the
            # closing and the opening leave nothing further out, and inside the box they see
            # all they would see on the whole map (the same pixels)
            m = 2 * self.grid.open_kernel.shape[0]
            x0, y0 = max(0, bx - m), max(0, by - m)
            strong = strong[y0:by + bh + m, x0:bx + bw + m]
            # (closed first: a highlight is no hole)
            kernel = self.grid.open_kernel
            strong = cast(Frame, cv2.morphologyEx(cv2.morphologyEx(
                strong, cv2.MORPH_CLOSE, kernel), cv2.MORPH_OPEN, kernel))
            bx, by, bw, bh = cv2.boundingRect(strong)  # (in the box: moved to the map below)
        n: int = 1
        lab: NDArray[np.uint16] | None = None
        stats: NDArray[np.int32] | None = None
        if bw:
            n, lab, stats, _ = cast(  # (16-bit labels, the stubs say any number type)
                "tuple[int, NDArray[np.uint16], NDArray[np.int32], F64]",
                cv2.connectedComponentsWithStats(strong[by:by + bh, bx:bx + bw],
                                                 connectivity=8, ltype=cv2.CV_16U))
            bx, by = bx + x0, by + y0
        big = 2.0 * self.grid.d_work
        full = math.pi * (0.5 * self.grid.d_work) ** 2
        whole = self.params.whole_share * full
        dark: list[tuple[int, int, int, int, NDArray[np.bool_], float]] = []
        for i in range(1, n):  # few: the strongly coloured blobs
            assert lab is not None and stats is not None  # (made above: n > 1)
            x, y, pw, ph = (int(v) for v in stats[i, :4])
            lab_part = lab[y:y + ph, x:x + pw]
            x, y = x + bx, y + by
            if pw > big or ph > big:
                continue
            part = lab_part == i
            if np.count_nonzero(w[y:y + ph, x:x + pw][part] > self.threshold) >= whole:
                continue  # it shows anyway
            mine = ratio[y:y + ph, x:x + pw][part]
            dark.append((x, y, pw, ph, part, median(mine)))
        if not dark:
            return
        # The dark balls' own brightness (the reference), spread by k, in the box around them
        # and the reach of that: the same as on the whole map (the reference is the cloth's, 1,
        # elsewhere, and there the weight below is the one above to the bit).
        k = odd(0.5 * self.grid.d_work)
        hh, ww = ratio.shape
        ox0 = max(0, min(q[0] for q in dark) - k // 2)
        oy0 = max(0, min(q[1] for q in dark) - k // 2)
        ox1 = min(ww, max(q[0] + q[2] for q in dark) + k // 2)
        oy1 = min(hh, max(q[1] + q[3] for q in dark) + k // 2)
        own = np.zeros((oy1 - oy0, ox1 - ox0), np.float32)
        for x, y, bw, bh, part, level in dark:
            own[y - oy0:y - oy0 + bh, x - ox0:x - ox0 + bw][part] = level
        own_all = cv2.dilate(own, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
        # Made again only where the reference is a dark ball's own (its box and the reach of
        # the spreading): elsewhere in the box around them it is the cloth's, and the weight
        # below is then the one above to the bit (a box made twice, where two overlap, gets
        # the same values twice).
        for x, y, bw, bh, _, _ in dark:
            sx0, sy0 = max(ox0, x - k // 2), max(oy0, y - k // 2)
            sx1, sy1 = min(ox1, x + bw + k // 2), min(oy1, y + bh + k // 2)
            box = (slice(sy0, sy1), slice(sx0, sx1))
            own = own_all[sy0 - oy0:sy1 - oy0, sx0 - ox0:sx1 - ox0]
            r_box, d_box = ratio[box], d[box]
            ref = np.where(own > 0, np.minimum(np.float32(1.0), own), np.float32(1.0))
            weight = np.clip(np.float32(2.0) * r_box / np.maximum(ref, np.float32(0.2)) - 1,
                             0, 1)
            # ... for pixels strongly coloured themselves (none at coloured_chroma, full at 1.5
            # times it): a shadow beside a red ball keeps the cloth's reference.
            weight *= np.clip(d_box * np.float32(2.0 / self.params.coloured_chroma) - 2, 0, 1)
            weight = np.maximum(np.clip(np.float32(2.0) * r_box - 1, 0, 1), weight)
            w[box] = d_box * weight * lit[box]
            if self.by_light:
                w[box] += brightening(r_box, self.brighter)
