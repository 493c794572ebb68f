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
from rules.table import Pocket
from video.frames import AnyFrame, Frame, PlanarFrame, bgr_patch
from vision.detection.ballfit import count_dots, fit_ball
from vision.detection.chroma import brightening, chroma_distance, chroma_planes, median
from vision.detection.colour import (
    KMEANS_SEED,
    ColourModel,
    chromaticity,
    cloth_coloured,
    core_against_cloth,
    kmeans,
    middle_colour,
)
from vision.detection.geometry import PixelToTable, odd, tile_maxima
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
from vision.detection.types import F32, F64, ONE, Blob, Detection, Planes, VisionError

__all__ = ["BallDetector", "ClothWork", "ColourModel", "Detection", "VisionError", "detect_frame"]

@dataclass(frozen=True)
class Made:
    """A detection and what it was made from: its blob and the work image of that frame."""

    detection: Detection
    blob: Blob
    small: Frame


@dataclass(frozen=True)
class ClothWork:
    """A frame's share of the cloth model's making, done ahead of time, perhaps by a reader
    thread (see :meth:`BallDetector.prepare`): the frame's wide median (``_cloth_from``) and,
    once the cloth was learned, the pixels that are cloth against it (``_cloth_like``), made
    with the ``learned`` ball threshold and cloth brightness (used only while they are the
    detector's)."""

    smooth: F32
    cloth_like: NDArray[np.bool_] | None = None
    learned: tuple[float, float] | None = None
    coarse: bool = False  # the smooth is the update's coarse one (see BallDetector._cloth_from)




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
        self.table = calibration.table
        self.colours: ColourModel | None = None
        self.cloth_update_every = cloth_update_every
        self.cloth_update_rate = cloth_update_rate
        self._frames_seen = 0
        self._noise_of_next: Frame | None = None  # (see learn_cloth)
        # the ball threshold and the cloth's brightness once learned (see ClothWork)
        self._learned: tuple[float, float] | None = None
        w, h = calibration.image_size
        t = self.table
        self.r_mm = t.ball_radius_mm
        margin = t.ball_diameter_mm
        # the playing field and a margin, as a bounding rectangle in the image
        n = 40
        xs = np.linspace(-margin, t.length_mm + margin, n)
        ys = np.linspace(-margin, t.width_mm + margin, n)
        edge = np.concatenate([
            np.stack([xs, np.full(n, -margin)], 1),
            np.stack([xs, np.full(n, t.width_mm + margin)], 1),
            np.stack([np.full(n, -margin), ys], 1),
            np.stack([np.full(n, t.length_mm + margin), ys], 1)])
        px = calibration.table_to_image(edge)
        x0 = int(max(0, math.floor(px[:, 0].min())))
        y0 = int(max(0, math.floor(px[:, 1].min())))
        x1 = int(min(w, math.ceil(px[:, 0].max()) + 1))
        y1 = int(min(h, math.ceil(px[:, 1].max()) + 1))
        if x1 - x0 < 16 or y1 - y0 < 16:
            raise VisionError(f"expected the table inside the {w}x{h} image, the calibration puts "
                              f"it at x {x0}..{x1}, y {y0}..{y1}")
        self.roi = (x0, y0, x1, y1)
        self.diameter_px = 2 * self.r_mm / calibration.mm_per_px()
        # an integer shrink factor (fast and exact pixel averaging)
        k = max(1, round(self.diameter_px / work_diameter_px))
        x1 = min(w, x0 + (x1 - x0) // k * k + (k if (x1 - x0) % k else 0))
        y1 = min(h, y0 + (y1 - y0) // k * k + (k if (y1 - y0) % k else 0))
        x1, y1 = x0 + (x1 - x0) // k * k, y0 + (y1 - y0) // k * k
        self.roi = (x0, y0, x1, y1)
        self.scale = 1.0 / k
        self.work_size = ((x1 - x0) // k, (y1 - y0) // k)
        ww, wh = self.work_size
        self._sx = (x1 - x0) / ww  # full pixels per work pixel
        self._sy = (y1 - y0) / wh
        self._to_table = PixelToTable(calibration, self.roi)
        # the work pixel (row, column) of every full-resolution row and column
        self._work_row = np.clip(np.round((np.arange(h) - y0 + 0.5) / self._sy - 0.5).astype(
            np.intp), 0, wh - 1)
        self._work_col = np.clip(np.round((np.arange(w) - x0 + 0.5) / self._sx - 0.5).astype(
            np.intp), 0, ww - 1)
        # table coordinates and ball radius of every work pixel
        mm = self._to_table.grid(x0 + (np.arange(ww) + 0.5) * self._sx - 0.5,
                                 y0 + (np.arange(wh) + 0.5) * self._sy - 0.5)
        tx, ty = np.ascontiguousarray(mm[..., 0]), np.ascontiguousarray(mm[..., 1])
        m = 0.25 * self.r_mm
        self.field = ((tx > -m) & (tx < t.length_mm + m) & (ty > -m) & (ty < t.width_mm + m))
        self._field_u8 = self.field.astype(np.uint8)
        self._last_small: Frame | None = None
        self.picture_change = math.inf
        # where a ball centre can be: on the cloth (>= 0.75 radius inside the noses, allowing for
        # error) or in a pocket's mouth (within 1.5 diameters of the pocket's point)
        inside = 0.75 * self.r_mm
        self._on_cloth = ((tx > inside) & (tx < t.length_mm - inside) & (ty > inside)
                          & (ty < t.width_mm - inside))
        mouth = np.zeros_like(self._on_cloth)
        reach2 = (1.5 * t.ball_diameter_mm) ** 2
        for pocket in Pocket:
            px_, py_ = t.pocket_xy(pocket)
            mouth |= (tx - px_) ** 2 + (ty - py_) ** 2 < reach2
        self._centre_ok = self._on_cloth | mouth
        self.radius_work = self._radius_map(ww, wh).astype(np.float32)
        d_work = 2 * float(np.median(self.radius_work))
        self._d_work = d_work
        self._open_kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE,
                                                      (odd(0.4 * d_work),) * 2)
        self._close_kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
        self._median_k = odd(2.5 * d_work, 5)
        # the same reach on a coarse grid: for the model's updates (see _cloth_from)
        self._coarse_step = max(1, round(self.params.coarse_step_diameters * d_work))
        self._coarse_median_k = odd(2.5 * d_work / self._coarse_step, 3)
        # how far from a pixel of the raw mask the closing and then the opening can reach
        self._morph_reach = (self._close_kernel.shape[0] // 2 * 2
                             + self._open_kernel.shape[0] // 2 * 2 + 1)
        self.cloth: F32 | None = None
        self.threshold = 0.0
        self._mm_per_px = calibration.mm_per_px()
        # the answers the last frame kept or made (see _refine)
        self._cache: list[Made] = []
        # the cloth model's chromaticity planes and inverse brightness, and the same stacked in
        # one (H, W, 4) array (one gather per ball), kept until the model changes
        self._model_cache: tuple[F32, tuple[F32, F32, F32, F32], F32] | None = None
        self._white_memo: tuple[F32, float] | None = None  # (see _white_contrast)
        # the cloth's usual brightness (the sum of B, G, R), set with the cloth model
        self._cloth_level = 0.0
        # the cloth is neutral: brightening counts as foreground (see neutral_cloth_chroma) ...
        self._by_light = False
        # ... beyond this relative margin (see brighter_share, headroom_share), set with the
        # model
        self._brighter = self.params.brighter_share
        self._labels = np.zeros((wh, ww), np.uint16)
        # the mask's parts (label -> work-pixel box x0, y0, x1, y1) and the candidates of the
        # last frame, kept where the picture did not change (see _blobs_where_changed)
        self._parts: dict[int, tuple[int, int, int, int]] | None = None
        self._blob_list: list[Blob] = []
        self._next_label = 1
        self._raw = np.zeros((wh, ww), np.uint8)
        # the foreground map kept between frames (see _foreground_now): tiles of about 3 ball
        # diameters, the frame it was computed from, and the cloth model it was computed with
        tile = self._tile = max(8, round(3 * d_work))
        # per-pixel changes, padded to whole tiles (three channel bytes per pixel)
        self._tile_pad = np.zeros((-(-wh // tile) * tile, -(-ww // tile) * tile * 3), np.uint8)
        # the levels of the map the candidates were last found in (see _levels_of), and where
        # they changed since, padded to whole tiles
        self._levels: Frame | None = None
        self._levels_pad = np.zeros((-(-wh // tile) * tile, -(-ww // tile) * tile), np.uint8)
        self._f: F32 | None = None
        self._f_src: Frame | None = None
        self._f_model: F32 | None = None
        # the boxes of the map made again in this frame (None: all of it; see _foreground_now)
        self._boxes: list[tuple[slice, slice]] | None = None
        # the per-pixel part of the whole map (see _whole_foreground): the model, cloth level and
        # neutral-cloth flag it was made with, the work image it was made of, and its maps
        self._per_pixel: tuple[F32, float, bool, NDArray[np.uint32], F32, F32, F32, F32] | None = (
            None)
        self._last: list[Detection] | None = None
        self._change_level: float | None = None
        # colour classes of the last classified detections (a ball at rest is the same
        # Detection object frame after frame: classified once)
        self._colour_memo: dict[int, tuple[Detection, Detection]] = {}
        self._colour_memo_model: ColourModel | None = None

    # --- geometry ------------------------------------------------------------------------------
    def _radius_map(self, ww: int, wh: int) -> F32:
        """A ball's radius in work pixels at every work pixel (coarse grid, interpolated)."""
        gx, gy = 24, 14
        x0, y0, x1, y1 = self.roi
        u, v = np.meshgrid(np.linspace(x0, x1 - 1, gx), np.linspace(y0, y1 - 1, gy))
        p = np.stack([u.ravel(), v.ravel()], 1)
        r = self.radius_px_at(p) * self.scale
        grid = r.reshape(gy, gx).astype(np.float32)
        return np.asarray(cv2.resize(grid, (ww, wh), interpolation=cv2.INTER_LINEAR), np.float32)

    def radius_px_at(self, points_px: NDArray[Any]) -> NDArray[np.float64]:
        """A 68 mm ball's radius in full-resolution pixels at image points (N, 2)."""
        cal = self.calibration
        mm = cal.image_to_table(points_px)
        r = self.r_mm
        out = np.zeros(len(mm))
        for d in ((r, 0.0), (0.0, r), (-r, 0.0), (0.0, -r)):
            q = cal.table_to_image(mm + np.array(d))
            out += np.hypot(*(q - np.asarray(points_px, dtype=np.float64)).T)
        return out / 4

    def shrink(self, frame: AnyFrame) -> Frame:
        """The table's region of ``frame`` at the working resolution (what :meth:`detect`
        searches; a reader thread may make it ahead of time)."""
        x0, y0, x1, y1 = self.roi
        w, h = self.calibration.image_size
        if len(frame.shape) != 3 or frame.shape[2] != 3 or (frame.shape[1], frame.shape[0]) != (
                w, h):
            raise VisionError(f"expected a {w}x{h} BGR frame (the calibration's image size), got "
                              f"shape {list(frame.shape)}")
        # a factor of 2 with linear interpolation averages exactly 2x2 pixels (and is fast)
        halving = round(1 / self.scale) == 2
        if isinstance(frame, PlanarFrame):
            if halving:  # converted and halved in one pass, the same pixels as below
                return frame.halved(x0, y0, self.work_size)
            region = frame.bgr(y0, y1, x0, x1)
        else:
            region = frame[y0:y1, x0:x1]
        mode = cv2.INTER_LINEAR if halving else cv2.INTER_AREA
        return np.asarray(cv2.resize(region, self.work_size, interpolation=mode), np.uint8)

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
        coarse = n > 1  # (an update's: whichever thread makes it, and when)
        smooth = self._cloth_from(small, coarse=coarse)
        learned = self._learned  # None until the cloth is learned (or while it is learned anew)
        if learned is None:
            return small, ClothWork(smooth, coarse=coarse)
        like = self._cloth_like(small, smooth)
        # (the threshold and brightness it was made with were still the learned ones throughout)
        return small, (ClothWork(smooth, like, learned, coarse) if self._learned is learned
                       else ClothWork(smooth, coarse=coarse))

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
        (:meth:`_fill_from_cloth`). Around a point of ``balls_at`` where anything at all differs
        from that median (a white ball on a grey cloth differs in light only, and its weighted
        blob may be too weak: learned as cloth, it would be unseen for the whole video), too.
        """
        self._learned = None  # (a reader thread's cloth work made meanwhile is not used)
        if small is None:
            small, ahead = self.shrink(frame), None
        smooth = (self._cloth_from(small) if ahead is None or ahead.coarse
                  else ahead.smooth)
        self.cloth = smooth
        # the cloth's usual brightness (the sum of B, G, R): below a tenth of it, no colour
        # (B + G + R of whole numbers: the same in any order, and faster on the planes)
        b, g, r = cv2.split(smooth)
        level = b + g
        level += r
        self._cloth_level = float(np.median(level[self.field]))
        self._by_light = self._white_contrast() < self.params.neutral_cloth_chroma
        # the margin where the cloth is at its brightest (a tenth of the field is brighter);
        # pure white is 3 x 256 (the model counts from 1)
        bright = float(np.quantile(level[self.field], 0.9))
        p = self.params
        self._brighter = min(p.brighter_share, p.headroom_share * (3 * 256.0 / bright - 1.0))
        f = self._foreground(small)
        self.threshold = self._noise_threshold(f)
        model = small.astype(np.float32) + np.float32(1.0)
        paint = np.zeros(small.shape[:2], np.uint8)
        for blob in self._blobs(f):
            if not self._on_cloth[int(blob.y), int(blob.x)]:
                continue  # no ball rests there: a piece of the shadow under the cushion noses
            self._paint_around(paint, blob.x, blob.y)
        if len(balls_at):
            self._paint_expected_balls(paint, small, balls_at)
        fill = self._fill_from_cloth(model, (paint == 0) & self._on_cloth & (f <= self.threshold),
                                     smooth)
        self.cloth = np.asarray(cv2.copyTo(fill, paint, model), np.float32)  # fill where painted
        self.threshold = self._noise_threshold(self._foreground(small))
        self._learned = (self.threshold, self._cloth_level)
        self._noise_of_next = small  # the next frame's noise floors the threshold (see detect)

    def _paint_expected_balls(self, paint: Frame, small: Frame,
                              balls_at: Sequence[tuple[float, float]]) -> None:
        """Mark in ``paint`` (work pixels) the surroundings of each expected ball (table mm)
        where the unweighted foreground against the current (smooth) model has a pixel above
        the threshold within a radius and a half of the point (its brightening counted)."""
        x0, y0, _, _ = self.roi
        px = self.calibration.table_to_image(np.asarray(balls_at, np.float64).reshape(-1, 2))
        fu = self._foreground(small, weighted=False)
        hh, ww = fu.shape
        for u, v in px:
            wx, wy = (u + 0.5 - x0) / self._sx - 0.5, (v + 0.5 - y0) / self._sy - 0.5
            if not (0 <= wx < ww and 0 <= wy < hh):
                continue
            r = float(self.radius_work[int(wy), int(wx)])
            reach = 1.5 * r
            bx0, by0 = max(0, int(wx - reach)), max(0, int(wy - reach))
            bx1, by1 = min(ww, int(wx + reach) + 2), min(hh, int(wy + reach) + 2)
            yy, xx = np.mgrid[by0:by1, bx0:bx1]
            near = (xx - wx) ** 2 + (yy - wy) ** 2 <= reach * reach
            if np.any(fu[by0:by1, bx0:bx1][near] > self.threshold):
                self._paint_around(paint, wx, wy)

    def _paint_around(self, paint: Frame, x: float, y: float) -> None:
        """Mark in ``paint`` a ball at work pixel (x, y) and the cloth it lights or shades
        around it (2.2 radii), to be filled with the cloth around that."""
        r = float(self.radius_work[int(y), int(x)])
        cv2.circle(paint, (round(x), round(y)), max(2, round(2.2 * r)), 1, -1)

    def _fill_from_cloth(self, model: F32, known: NDArray[np.bool_], fallback: F32) -> F32:
        """The cloth's colour at every pixel as a Gaussian-weighted mean (one ball diameter) of
        the ``known`` pixels around it only: balls, the cushions beyond the noses and the wood
        never leak into it (a median over a window mixes them in near a cushion or another
        ball). Where hardly any known pixel is near, ``fallback``."""
        w = known.astype(np.float32)
        sigma = self._d_work
        den = cv2.GaussianBlur(w, (0, 0), sigma)
        num = cv2.GaussianBlur(model * w[..., None], (0, 0), sigma)
        ok = den > np.float32(0.02)  # at least 2 % of the Gaussian's weight is known cloth
        mean = np.divide(num, np.maximum(den, np.float32(1e-6))[..., None], out=num)
        return np.asarray(cv2.copyTo(fallback.astype(np.float32, copy=False),
                                     np.logical_not(ok).view(np.uint8), mean), np.float32)

    def _noise_threshold(self, f: F32) -> float:
        """8 sigma of the cloth's noise, and never below a quarter of a white ball's contrast on
        this cloth (the chromaticity distance from grey to the cloth)."""
        vals = f[self.field]
        med = float(np.median(vals))
        mad = float(np.median(np.abs(vals - med))) * 1.4826
        return max(med + 8 * mad, 0.25 * self._white_contrast())

    def _floor_threshold_at_noise(self, small: Frame) -> None:
        """On a neutral cloth, raise the threshold to twice the noise of the first frame
        after the one the cloth was learned from: its foreground over the field at the 99th
        percentile (the balls are a few tenths of a percent of it). The model is the learning
        frame itself, so that frame's noise is no measure of the next one's: on a pale grey
        cloth a quarter of a white ball's chromaticity contrast is a fifth of the compression's
        blocks, which then join a moving ball's blob into one too wide to be a ball (so a
        rolling yellow was lost). Not on a coloured cloth: there the balls show by
        colour, and on the club footage the floor lost 49 of 57 hand-checked balls."""
        if not self._by_light:
            return  # (on a coloured cloth the balls show by colour, well above the noise there)
        fg = self._foreground(small)[self.field]
        floor = 2.0 * float(np.quantile(fg, 0.99)) if fg.size else 0.0
        # never above a quarter of the palest white's contrast (a player over the table in
        # that frame is more than the noise)
        p = self.params
        floor = min(floor, 0.25 * float(brightening(np.array([p.palest_white_ratio], np.float32),
                                                     p.brighter_share)[0]))
        if floor <= self.threshold:
            return
        self.threshold = floor
        self._learned = (self.threshold, self._cloth_level)
        # everything made with the old threshold is made again
        self._f, self._levels, self._change_level = None, None, None

    def _white_contrast(self) -> float:
        """A white ball's contrast on this cloth: the chromaticity distance from grey to the
        cloth model (the median over the field)."""
        model = self._model_cache_now()[0]
        if self._white_memo is not None and self._white_memo[0] is model:
            return self._white_memo[1]  # (learn_cloth asks twice of the same model)
        mb, mg, mr, _ = self._model_planes()
        third = np.float32(1 / 3)
        grey = np.abs(third - mb) + np.abs(third - mg) + np.abs(third - mr)
        self._white_memo = (model, float(np.median(grey[self.field])))
        return self._white_memo[1]

    def _cloth_like(self, small: Frame, smooth: F32) -> NDArray[np.bool_]:
        """Pixels that are not part of a foreground blob against a smooth cloth model."""
        blob = (self._foreground(small, chroma_planes(smooth)) > self.threshold).astype(np.uint8)
        grown = cv2.dilate(blob, cv2.getStructuringElement(
            cv2.MORPH_ELLIPSE, (odd(0.6 * self._d_work),) * 2))
        return np.asarray(grown == 0)

    def _cloth_from(self, small: Frame, coarse: bool = False) -> F32:
        """The cloth as a median 2.5 ball diameters wide (plus one: the model counts from 1).
        ``coarse``: the median on a grid ``coarse_step_diameters`` ball diameters apart, the
        same reach, spread back to every pixel: for the model's updates, which need it only to
        tell what stands out from the cloth around it (:meth:`_cloth_like`), at about a tenth of the
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

    def _model_planes(self) -> tuple[F32, F32, F32, F32]:
        """The cloth model's chromaticity planes and inverse brightness, kept until the model
        changes."""
        return self._model_cache_now()[1]

    def _model_cache_now(self) -> tuple[F32, tuple[F32, F32, F32, F32], F32]:
        m = self.cloth
        assert m is not None
        if self._model_cache is None or self._model_cache[0] is not m:
            planes = chroma_planes(m)
            self._model_cache = (m, planes, np.asarray(cv2.merge(planes), np.float32))
        return self._model_cache

    def _foreground(self, small: Frame, planes: tuple[F32, F32, F32, F32] | None = None,
                    weighted: bool = True) -> F32:
        """How unlike the cloth each pixel is: chromaticity distance (L1), weighted down for
        pixels much darker than the cloth (shadows, holes). Unweighted (for the edge of a ball
        whose shaded side is dark), plus half the relative brightening instead. ``planes``: the
        cloth's (see :func:`chroma_planes`), the model's by default."""
        d, si, ratio = chroma_distance(small, self._model_planes() if planes is None else planes)
        if not weighted:
            t = np.subtract(ratio, ONE)
            np.maximum(t, 0, out=t)
            t *= np.float32(0.5)
            d += t
            return d
        w = self._weights(d, si, ratio)
        self._dark_balls(d, ratio, si, w)  # (si now holds lit)
        return w

    def _weights(self, d: F32, si: F32, ratio: F32) -> F32:
        """The weighted foreground of pixels from their chroma distance, brightness sum and its
        ratio to the cloth's (see :func:`chroma_distance`) against the cloth's brightness, per
        pixel (:meth:`_dark_balls` then mends it by the dark balls); ``si`` becomes the pixels'
        lit weight."""
        # Nearly black pixels (a fifth of the cloth's usual brightness and below: the holes,
        # even where the model is the hole itself) have no reliable chromaticity.
        lit = np.multiply(si, np.float32(10.0 / self._cloth_level), out=si)
        lit -= ONE
        np.clip(lit, 0, 1, out=lit)
        # every pixel against the cloth's brightness (a dark ball's own reference only changes
        # the pixels it reaches: made again by _dark_balls in the box around them)
        w = np.multiply(ratio, np.float32(2.0))
        w -= ONE
        np.clip(w, 0, 1, out=w)
        w *= d
        w *= lit
        if self._by_light:
            w += brightening(ratio, self._brighter)
        return w

    def _dark_balls(self, d: F32, ratio: F32, lit: F32, w: F32) -> None:
        """Mend ``w`` (from :meth:`_weights`) by the dark balls in the map: ``d``, ``ratio`` and
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
            m = 2 * self._open_kernel.shape[0]
            x0, y0 = max(0, bx - m), max(0, by - m)
            strong = strong[y0:by + bh + m, x0:bx + bw + m]
            # (closed first: a highlight is no hole)
            strong = cast(Frame, cv2.morphologyEx(cv2.morphologyEx(
                strong, cv2.MORPH_CLOSE, self._open_kernel), cv2.MORPH_OPEN, self._open_kernel))
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
        big = 2.0 * self._d_work
        full = math.pi * (0.5 * self._d_work) ** 2
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
        k = odd(0.5 * self._d_work)
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
            if self._by_light:
                w[box] += brightening(r_box, self._brighter)

    def _update_cloth(self, small: Frame, ball_mask: NDArray[np.uint8],
                      ahead: ClothWork | None = None) -> None:
        """Blend a fresh cloth estimate into the model where no ball (or hand) is. ``ahead``:
        the frame's cloth work when already made (see :meth:`prepare`)."""
        assert self.cloth is not None
        if ahead is None:
            like = self._cloth_like(small, self._cloth_from(small, coarse=True))
        elif ahead.cloth_like is None or ahead.learned != (self.threshold, self._cloth_level):
            like = self._cloth_like(small, ahead.smooth)
        else:
            like = ahead.cloth_like
        keep = like & (cv2.dilate(ball_mask, self._open_kernel) == 0)
        a = np.float32(self.cloth_update_rate)
        # cloth * (1 - a) + (small + 1) * a, step by step in place (the same float32 values),
        # then the old model copied back where not to keep
        blended = np.multiply(self.cloth, 1 - a)
        fresh = np.add(small, ONE, dtype=np.float32)  # integers: exact
        fresh *= a
        blended += fresh
        before = self.cloth
        self.cloth = np.asarray(cv2.copyTo(self.cloth, np.logical_not(keep).view(np.uint8),
                                           blended), np.float32)
        if self._f_model is before:
            # The map stands for the new model until the picture changes (see _foreground_now):
            # the model moved only at cloth pixels (below the threshold, away from everything
            # found), toward this picture, by a quarter of a difference within the noise
            self._f_model = self.cloth

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
        learned_from = self._noise_of_next
        if learned_from is not None and small is not learned_from and not np.array_equal(
                small, learned_from):
            self._noise_of_next = None
            self._floor_threshold_at_noise(small)
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
            if tiles is not None and before is not None and self._boxes is not None:
                # the map was made again in those boxes only: so were its levels
                levels = before.copy()
                for box in self._boxes:
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
        last one (None: the whole map was made afresh).

        The map is recomputed only in the tiles where some pixel moved by more than
        ``_change_level`` from the value the map was last computed from (the foreground is
        per pixel, but for a dark ball's reference brightness, which looks a ball around: a
        group of changed tiles is recomputed as one box, so only a dark ball cut by the box's
        edge can differ from a whole-table computation): most of the table is still cloth,
        frame after frame. A kept pixel differs from this frame's by no more than the noise
        between two frames (see :meth:`_level_of_change`); the comparison is with the pixel the
        map was computed from, so slow changes add up and are seen.
        """
        model = self.cloth
        self._boxes = None
        if self._f is None or self._f_model is not model or self._f_src is None:
            self._f, self._f_src, self._f_model = self._whole_foreground(small), small.copy(), model
            return self._f, None
        hh, ww = self._f.shape
        t, pad = self._tile, self._tile_pad
        # a tile changed where its largest change is above the level: the changes are written
        # straight into the padded map (a view of it with the frame's shape)
        diff = cast(Frame, cv2.absdiff(small, self._f_src,
                                       dst=pad[:hh, :ww * 3].reshape(hh, ww, 3)))
        if not np.may_share_memory(diff, pad):  # (OpenCV made a new array after all)
            pad[:hh, :ww * 3] = diff.reshape(hh, ww * 3)
        if self._change_level is None:
            self._change_level = self._level_of_change(diff)
        tiles = tile_maxima(pad, t, 3) > self._change_level
        if not tiles.any():
            return self._f, tiles
        planes = self._model_planes()
        # one call per group of changed tiles, over its bounding box (all of it counts as
        # changed: its map is this frame's)
        n, _, stats, _ = cv2.connectedComponentsWithStats(tiles.astype(np.uint8), connectivity=8)
        if (int((stats[1:n, 2] * stats[1:n, 3]).sum())
                > self.params.mostly_changed_share * tiles.size):
            # most of the table changed (players over it): one call for all of it is cheaper
            self._f, self._f_src = self._whole_foreground(small), small.copy()
            return self._f, None
        boxes = []
        for x, y, w, h, _ in stats[1:n]:
            tiles[y:y + h, x:x + w] = True
            boxes.append((slice(int(y) * t, min(hh, int(y + h) * t)),
                          slice(int(x) * t, min(ww, int(x + w) * t))))
        self._boxes = boxes
        if len(boxes) == 1:
            box = boxes[0]
            self._f[box] = self._foreground(
                small[box], cast(Planes, tuple(p[box] for p in planes)))
            self._f_src[box] = small[box]
            return self._f, tiles
        # several boxes: the per-pixel part for all of their pixels at once (one after another
        # in one column: the same steps on each pixel), the dark balls' part box by box
        stacked = self._model_cache_now()[2]
        at = np.concatenate([stacked[b].reshape(-1, 4) for b in boxes])
        d, si, ratio = chroma_distance(
            np.concatenate([small[b].reshape(-1, 3) for b in boxes])[:, None],
            cast(Planes, tuple(np.ascontiguousarray(at[:, k, None]) for k in range(4))))
        fg = self._weights(d, si, ratio)
        i = 0
        for box in boxes:
            shape = (box[0].stop - box[0].start, box[1].stop - box[1].start)
            j = i + shape[0] * shape[1]
            w_box = fg[i:j].reshape(shape)
            self._dark_balls(d[i:j].reshape(shape), ratio[i:j].reshape(shape),
                             si[i:j].reshape(shape), w_box)  # (si now holds lit)
            self._f[box] = w_box
            self._f_src[box] = small[box]
            i = j
        return self._f, tiles

    def _whole_foreground(self, small: Frame) -> F32:
        """``_foreground(small)`` of the whole work image, its per-pixel part (see
        :meth:`_weights`) made again only at the pixels that changed since the last time (the
        same steps on the same numbers: the same values to the bit), when they are few (on a
        clean video most of a frame is the same from frame to frame, to the grey level, though
        its tiles changed somewhere); the dark balls' part (:meth:`_dark_balls`) on the whole.
        """
        model, planes, _ = self._model_cache_now()
        # each pixel's B, G, R (and 255) as one 32-bit number: a changed pixel in one compare
        packed = cv2.cvtColor(small, cv2.COLOR_BGR2BGRA).view(np.uint32).reshape(small.shape[:2])
        pp = self._per_pixel
        if (pp is not None and pp[0] is model and pp[1] == self._cloth_level
                and pp[2] == self._by_light):
            src, d, lit, ratio, w0 = pp[3:]
            differs = np.not_equal(packed, src)
            # (beyond mostly_changed_share: all at once)
            if np.count_nonzero(differs) <= self.params.mostly_changed_share * d.size:
                changed = np.flatnonzero(differs)
                if len(changed):
                    # those pixels one after another in one column (as _foreground_now does
                    # for several boxes), then put back in place
                    px = np.take(packed, changed).view(np.uint8).reshape(-1, 1, 4)[..., :3]
                    dc, lc, rc = chroma_distance(px, cast(Planes, tuple(
                        np.take(p, changed)[:, None] for p in planes)))
                    wc = self._weights(dc, lc, rc)  # (lc now holds lit)
                    for whole, part in ((d, dc), (lit, lc), (ratio, rc), (w0, wc)):
                        whole.reshape(-1)[changed] = part.reshape(-1)
                self._per_pixel = (*pp[:3], packed, d, lit, ratio, w0)
                w = w0.copy()
                self._dark_balls(d, ratio, lit, w)
                return w
        d, si, ratio = chroma_distance(small, planes)
        w0 = self._weights(d, si, ratio)  # (si now holds lit)
        self._per_pixel = (model, self._cloth_level, self._by_light, packed, d, si, ratio, w0)
        w = w0.copy()
        self._dark_balls(d, ratio, si, w)
        return w

    def _levels_of(self, f: F32, box: tuple[slice, slice] | None = None) -> Frame:
        """What of the foreground map the candidates depend on, per work pixel: 0 at or below
        the threshold or outside the field, 1 above it, 2 above ``strong_thresholds`` times it, 3
        above ``stronger_thresholds`` times it. ``box``: where ``f`` is in the map (all of it by
        default)."""
        p = self.params
        q = np.greater(f, self.threshold).view(np.uint8) + np.greater(
            f, p.strong_thresholds * self.threshold).view(np.uint8)
        q += np.greater(f, p.stronger_thresholds * self.threshold).view(np.uint8)
        q *= self._field_u8 if box is None else self._field_u8[box]
        return q

    def _tiles_changed(self, levels: Frame, before: Frame) -> NDArray[np.bool_]:
        """The tiles (see :meth:`_foreground_now`) where any pixel's level changed."""
        hh, ww = levels.shape
        t, pad = self._tile, self._levels_pad
        diff = cv2.absdiff(levels, before, dst=pad[:hh, :ww])  # straight into the padded map
        if not np.may_share_memory(diff, pad):  # (OpenCV made a new array after all)
            pad[:hh, :ww] = diff
        return np.asarray(tile_maxima(pad, t, 1) > 0)

    def _level_of_change(self, diff: Frame) -> float:
        """The least change of a pixel (grey levels, any channel) that counts as a change: above
        this video's frame-to-frame noise (5 sigma of the differences of two frames, from a
        robust spread: a ball rolling by is a small share of the table), and at least what moves
        the foreground by an eighth of the ball threshold (a change in every channel of ``v``
        moves a chromaticity by at most ``6 v / S``, S the cloth's brightness sum)."""
        d = diff[self.field].astype(np.float32)
        sigma = 1.4826 * float(np.median(d))  # |a - b| of two noisy frames: its median is MAD
        # (and on a neutral cloth the brightening's part of the foreground, 1.5 v / S, too)
        per_level = 7.5 if self._by_light else 6.0
        return max(5.0 * sigma, self.threshold * self._cloth_level / (8.0 * per_level))

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
        t = self._tile
        hh, ww = f.shape
        n, _, stats, _ = cv2.connectedComponentsWithStats(tiles.astype(np.uint8), connectivity=8)
        m = self._morph_reach
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
        m = self._morph_reach
        cx0, cy0, cx1, cy1 = max(0, rx0 - m), max(0, ry0 - m), min(ww, rx1 + m), min(hh, ry1 + m)
        inner = (slice(ry0 - cy0, ry1 - cy0), slice(rx0 - cx0, rx1 - cx0))
        raw = (np.greater(f[cy0:cy1, cx0:cx1], self.threshold).view(np.uint8)
               & self._field_u8[cy0:cy1, cx0:cx1])
        if not raw.any():
            # nothing above the threshold (often: a ball left the tiles searched): no part, and
            # the morphology and the labelling of nothing would give nothing
            self._raw[ry0:ry1, rx0:rx1] = 0
            self._labels[ry0:ry1, rx0:rx1] = 0
            return []
        closed = cast(Frame, cv2.morphologyEx(raw, cv2.MORPH_CLOSE, self._close_kernel))
        self._fill_ball_holes(closed, raw, cx0, cy0)
        mask = np.ascontiguousarray(cv2.morphologyEx(closed, cv2.MORPH_OPEN,
                                                     self._open_kernel)[inner])
        self._raw[ry0:ry1, rx0:rx1] = closed[inner]
        if not mask.any():  # (as above: only thin things, opened away)
            self._labels[ry0:ry1, rx0:rx1] = 0
            return []
        opened = cv2.morphologyEx(raw, cv2.MORPH_OPEN, self._open_kernel)[inner]
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
            r = float(self.radius_work[min(int(cy), hh - 1), min(int(cx), ww - 1)])
            ball_area = math.pi * r * r
            if area < (p.least_lit_top_share if self._by_light else p.least_blob_share) * ball_area:
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
                if self._centre_ok[min(int(b.y), hh - 1), min(int(b.x), ww - 1)]]

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
            r = float(self.radius_work[min(y0 + by + bh // 2, self.radius_work.shape[0] - 1),
                                       min(x0 + bx + bw // 2, self.radius_work.shape[1] - 1)])
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
        strong = cv2.morphologyEx(((f > level * self.threshold) & (part > 0)).astype(np.uint8),
                                  cv2.MORPH_OPEN, self._open_kernel)
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
               > self.params.stronger_thresholds * self.threshold for b in row):
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
            r = float(self.radius_work[min(int(ey), hh - 1), min(int(ex), ww - 1)])
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
        if b.streak or self._change_level is None:
            return None
        for made in cached:
            det, before = made.detection, made.small
            x, y = made.blob.x, made.blob.y
            if abs(x - b.x) > 0.5 or abs(y - b.y) > 0.5 or det.streak_mm > 0:
                continue
            hh, ww = small.shape[:2]
            r = 1.6 * float(self.radius_work[min(int(b.y), hh - 1), min(int(b.x), ww - 1)])
            x0, y0 = max(0, int(b.x - r)), max(0, int(b.y - r))
            x1, y1 = min(ww, int(b.x + r) + 2), min(hh, int(b.y + r) + 2)
            diff = cv2.absdiff(small[y0:y1, x0:x1], before[y0:y1, x0:x1])
            return made if float(diff.max()) <= self._change_level else None
        return None

    def _refine_new(self, frame: AnyFrame, blobs: list[Blob],
                    neighbours: list[Blob]) -> list[tuple[Blob, Detection]]:
        """Full-resolution answers for ``blobs`` (``neighbours``: all of this frame's candidates):
        each centre, score and colour from a patch of the frame around it
        (:func:`vision.detection.ballfit.fit_ball`), the dots of a ball that may be white, the
        table mm."""
        labels = self._labels
        x0, y0, _, _ = self.roi
        sx, sy = self._sx, self._sy
        hw, hh = self.work_size
        centres = np.array([[x0 + (b.x + 0.5) * sx - 0.5, y0 + (b.y + 0.5) * sy - 0.5]
                            for b in blobs])
        others = np.array([[x0 + (b.x + 0.5) * sx - 0.5, y0 + (b.y + 0.5) * sy - 0.5]
                           for b in neighbours])
        radii = [float(self.radius_work[min(int(b.y), hh - 1), min(int(b.x), hw - 1)]) / self.scale
                 for b in blobs]
        planes = self._model_cache_now()[2]
        assert self.cloth is not None
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
            gy, gx = self._work_row[iy0:iy1], self._work_col[ix0:ix1]
            win = (slice(int(gy[0]), int(gy[-1]) + 1), slice(int(gx[0]), int(gx[-1]) + 1))
            wy, wx = gy - gy[0], gx - gx[0]
            cx, cy, score, blue, green, red, cored, inner, dd, si = fit_ball(
                patch, planes[win], labels[win], wy, wx, b.label, others, float(c[0]),
                float(c[1]), r, ix0, iy0, float(self.threshold), bool(self._by_light),
                float(self._brighter), bool(b.streak))
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
                cb = middle_colour(self.cloth[win].take(wy, 0).take(wx, 1)[inner]) - 1
            else:
                cb = self.cloth[gy[min(max(int(c[1]) - iy0, 0), len(gy) - 1)],
                                gx[min(max(int(c[0]) - ix0, 0), len(gx) - 1)]] - 1
            found.append((b, c, r, score, (float(bgr[0]), float(bgr[1]), float(bgr[2])), dots,
                          dark_px, (float(cb[0]), float(cb[1]), float(cb[2]))))
        if not found:
            return []
        mm = self._to_table(np.array([q[1] for q in found]))
        mpp = self._mm_per_px
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
        step = np.array([b.axis[0] * self._sx, b.axis[1] * self._sy])
        ends = self._to_table(np.array([c - step, c + step]))
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
        if not self._by_light or d.cloth_bgr is None or d.streak_mm > 0:
            return False
        chroma, light = core_against_cloth(d.bgr, d.cloth_bgr)
        return light < 1 + 0.5 * self._brighter and chroma < 0.5 * self.params.coloured_chroma

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
                and core_against_cloth(d.bgr, cloth)[1] >= 1.0 + 0.5 * self._brighter)

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
        darker = max(1.0, self._cloth_level / (sum(cloth_bgr) + 3.0))
        return float(contrast / (self.threshold * darker))



def detect_frame(frame: Frame, calibration: Calibration) -> list[Detection]:
    """Every ball in one still image: cloth and colour classes learned from the image itself."""
    detector = BallDetector(calibration)
    detector.learn_cloth(frame)
    found = detector.detect(frame, update=False)
    if found:
        detector.fit_colours(found)
        found = detector.classify(found)
    return found
