"""Each candidate's answer at full resolution: the centre refined in a patch of the frame (one
compiled pass per ball, :mod:`vision.detection.ballfit`), its core colour, the cloth under it,
its dots, its table mm, and a motion-blur streak's length and direction; a ball that did not
change since an earlier frame keeps that frame's answer.

The centre: the centroid of the ball's pixels above half its own contrast, inside 1.3 radii and
inside its Voronoi cell among neighbouring balls, then a circle of the known radius fitted to that
region's outline (ignoring outline points far inside it: the ball's shaded side; or far outside
it: a cue or a neighbour).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

import cv2
import numpy as np
from numpy.typing import NDArray

from video.frames import AnyFrame, Frame, bgr_patch
from vision.detection.ballfit import count_dots, fit_ball
from vision.detection.classify import Classifier
from vision.detection.cloth import ClothModel
from vision.detection.colour import ColourModel, middle_colour
from vision.detection.geometry import WorkGrid
from vision.detection.params import DEFAULT_DETECTION, DetectionParams
from vision.detection.shapes import neck_share
from vision.detection.types import Blob, Detection


@dataclass(frozen=True)
class Made:
    """A detection and what it was made from: its blob and the work image of that frame."""

    detection: Detection
    blob: Blob
    small: Frame


class Refiner:
    """Full-resolution answers for the candidates of each frame, against the ``cloth`` model
    (its colour under a ball, its ball threshold) on the work ``grid``; ``classifier`` tells a
    drawn-out blob that is a blurred ball. Keeps the answers the last frame kept or made."""

    def __init__(self, grid: WorkGrid, cloth: ClothModel, classifier: Classifier,
                 params: DetectionParams = DEFAULT_DETECTION) -> None:
        self.grid = grid
        self.params = params
        self.cloth = cloth
        self.classifier = classifier
        self._cache: list[Made] = []

    def refine(self, frame: AnyFrame, small: Frame, blobs: list[Blob],
               colours: ColourModel | None, labels: NDArray[np.uint16],
               change_level: float | None) -> list[Detection]:
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
        around it unchanged.

        ``colours``: the video's colour classes (None: not fitted yet); ``labels``: the
        candidates' labels in the work image (see :class:`BlobFinder`); ``change_level``: the
        least change of a pixel that counts (see :class:`ForegroundMap`; None: not known yet).
        The answers are not classified yet."""
        blobs = self.streaks_of_one_colour(frame, small, blobs, colours)
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
                hit = self._unchanged(small, b, cache, change_level)
            if hit is not None:
                self._cache.append(hit)
                out.append(hit.detection)
            else:
                todo.append(b)
        if todo:
            for b, det in self._refine_new(frame, todo, blobs, colours, labels):
                self._cache.append(Made(det, b, small))
                out.append(det)
        return out

    def replace_answers(self, placed: Callable[[Sequence[Detection]], list[Detection]]) -> None:
        """The answers kept, each replaced by what ``placed`` makes of them (in order, one for
        one: the same balls placed anew, see :meth:`BallDetector.refitted`)."""
        new = placed([made.detection for made in self._cache])
        self._cache = [replace(made, detection=d) for made, d in zip(self._cache, new, strict=True)]

    def streaks_of_one_colour(self, frame: AnyFrame, small: Frame, blobs: list[Blob],
                              colours: ColourModel | None) -> list[Blob]:
        """``blobs`` with each streak that is two balls split into them at its ends: a streak is
        one ball, of one colour all along, as wide all along.

        Two balls: the streak's ends are each sure of a different colour (a white drawn out a
        little as it strikes a red, their shadows joining them, is as wide all along as a
        streak: three such strikes in the club footage, both balls unseen at the contact, one
        streak of no ball's colour between them); or the ends are sure of the same colour, lie
        no further apart than two balls touching, and the picture falls between them off the
        axis as between two balls (see :func:`vision.detection.shapes.neck_share`: two whites
        resting against each other, their shadows joining them, were one streak for 40 frames
        and a second touch of the two was lost). The ends of a real streak are see-through,
        mixtures with the cloth, sure of no class."""
        if colours is None or not any(b.ends for b in blobs):
            return blobs
        out: list[Blob] = []
        for b in blobs:
            if b.ends is not None and self._two_balls(frame, small, b.ends, colours):
                out += [Blob(x, y, b.label) for x, y in b.ends]
            else:
                out.append(b)
        return out

    def _two_balls(self, frame: AnyFrame, small: Frame,
                   ends: tuple[tuple[float, float], tuple[float, float]],
                   colours: ColourModel) -> bool:
        """A streak's two ends are two balls (see :meth:`streaks_of_one_colour`). Each end's
        colour is read half a radius out from the end's peak along the streak: the middle of a
        ball there (a ball's shadows pull its peak inward), the see-through tip of a streak."""
        hh, ww = small.shape[:2]
        (ax, ay), (bx, by) = ends
        gap = max(math.hypot(bx - ax, by - ay), 1e-9)
        names: list[str | None] = []
        radii: list[float] = []
        for (ex, ey), way in (((ax, ay), -1.0), ((bx, by), 1.0)):
            r = float(self.grid.radius_work[min(int(ey), hh - 1), min(int(ex), ww - 1)])
            radii.append(r)
            k = max(1, round(0.5 * r))
            ix = round(ex + way * 0.5 * r * (bx - ax) / gap)
            iy = round(ey + way * 0.5 * r * (by - ay) / gap)
            core = small[max(0, iy - k):iy + k + 1, max(0, ix - k):ix + k + 1]
            names.append(colours.sure_name(middle_colour(core.reshape(-1, 3))) if core.size
                         else None)
        if None in names:
            return False
        if names[0] != names[1]:
            return True
        p = self.params
        return (gap <= p.necked_length_radii * radii[0]
                and self._neck_share(frame, ends, radii[0]) <= p.necked_dip_share)

    def _neck_share(self, frame: AnyFrame,
                    ends: tuple[tuple[float, float], tuple[float, float]], r: float) -> float:
        """:func:`neck_share` of the streak with ``ends`` (work pixels) in the full-resolution
        ``frame``, of balls ``r`` work pixels in radius: of each pixel's contrast with the cloth
        model under it (the sum of |B|, |G|, |R| differences), not its brightness (a red blurred
        across lines projected on the cloth, brighter than the red, dipped between them)."""
        image = self.cloth.image
        assert image is not None
        (ax, ay), (bx, by) = [self.grid.full_px(x, y) for x, y in ends]
        radius = r / self.grid.scale
        reach = 2.0 * radius + 2.0
        fh, fw = frame.shape[:2]
        px0, py0 = max(0, int(min(ax, bx) - reach)), max(0, int(min(ay, by) - reach))
        px1, py1 = min(fw, int(max(ax, bx) + reach) + 1), min(fh, int(max(ay, by) + reach) + 1)
        if px1 - px0 < 2 or py1 - py0 < 2:
            return 1.0
        # the cloth model (work pixels, plus one) under each pixel of the patch
        under = image[self.grid.work_row[py0:py1, None], self.grid.work_col[None, px0:px1]]
        contrast = np.abs(bgr_patch(frame, py0, py1, px0, px1).astype(np.float32) + 1.0 - under)
        return neck_share(contrast.sum(axis=2), (ax - px0, ay - py0), (bx - px0, by - py0),
                          radius, self.params.necked_offset_radii)

    def _unchanged(self, small: Frame, b: Blob, cached: Iterable[Made],
                   change_level: float | None) -> Made | None:
        """The answer made for a ball at ``b``'s place whose surroundings in the work image did
        not change since, or None."""
        if b.streak or change_level is None:
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
            return made if float(diff.max()) <= change_level else None
        return None

    def _refine_new(self, frame: AnyFrame, blobs: list[Blob], neighbours: list[Blob],
                    colours: ColourModel | None,
                    labels: NDArray[np.uint16]) -> list[tuple[Blob, Detection]]:
        """Full-resolution answers for ``blobs`` (``neighbours``: all of this frame's candidates):
        each centre, score and colour from a patch of the frame around it
        (:func:`vision.detection.ballfit.fit_ball`), the dots of a ball that may be white, the
        table mm."""
        sx = self.grid.sx
        hw, hh = self.grid.work_size
        centres = np.array([self.grid.full_px(b.x, b.y) for b in blobs])
        others = np.array([self.grid.full_px(b.x, b.y) for b in neighbours])
        radius_work, scale = self.grid.radius_work, self.grid.scale
        radii = [float(radius_work[min(int(b.y), hh - 1), min(int(b.x), hw - 1)]) / scale
                 for b in blobs]
        cloth = self.cloth
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
            maybe_white = (colours is None
                           or colours.names[colours.nearest(bgr, sure=False)[0]]
                           == "white")
            p = self.params
            dots, dark_px = ((0, 0.0) if b.streak or not maybe_white
                             else count_dots(dd, si, inner, r, p.dot_darker_share,
                                             p.dot_fit_radii, p.dot_within_radii,
                                             p.dot_most_area_share, p.dot_elongation_ratio))
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
            blur = b.streak or (b.drawn_out and self.classifier.a_blur(core, under, colours))
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
