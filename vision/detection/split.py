"""Ball centres inside a blob bigger than one ball: touching balls split at the peaks of its
distance transform, a tight cluster split into as many balls as its shape holds, a motion-blur
streak (a ridge of constant width one diameter) as one ball, and the balls in a blob with a hand
or the cue in it found among its strong parts (:class:`BallSplitter`)."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.detection.colour import KMEANS_SEED, kmeans
from vision.detection.params import DetectionParams
from vision.detection.shapes import (
    distances,
    ring_share,
    summits,
    touching,
    unexplained_balls,
    variances,
)
from vision.detection.types import F32, Blob


@dataclass(frozen=True)
class BallSplitter:
    """Splits blobs into balls with the detection's ``params``, against the ball ``threshold``
    of the foreground map; ``open_kernel``: the opening that removes thin things."""

    params: DetectionParams
    threshold: float
    open_kernel: NDArray[Any]

    def split(self, sub: F32, x: int, y: int, label: int, r: float, area: int) -> list[Blob]:
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

    def strong_parts(self, f: F32, part: NDArray[Any], x: int, y: int, label: int,
                      r: float, level: float | None = None) -> list[Blob] | None:
        """Ball centres in a blob too wide for balls in a row, when it is balls joined by a
        faint halo of junk (a compression block beside a moving ball is a little above the
        threshold, a ball's own pixels are well above it): its pixels above ``level`` times
        the threshold (``strong_thresholds`` when not given), each part of them split as a blob
        of its own. A part still too wide at ``strong_thresholds`` is searched again at
        ``stronger_thresholds``; None when a part is not one ball or two touching even there: a
        hand, an arm or the cue (see :meth:`split`), or a cluster."""
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
                inner = self.strong_parts(f, part * (labels == i), x, y, label, r,
                                           p.stronger_thresholds)
                if inner is None:
                    return None
                out.extend(inner)
                continue
            if area <= 1.5 * ball_area:
                out.append(Blob(x + float(cents[i, 0]), y + float(cents[i, 1]), label))
            else:
                out.extend(self.split(sub, x + lx, y + ly, label, r, area))
        return out

    def strong_cores(self, f: F32, part: NDArray[Any], x: int, y: int, label: int,
                      r: float) -> list[Blob]:
        """In a blob with a hand or the cue in it (see :meth:`strong_parts`), its parts above
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
                row = self.split(sub, x + lx, y + ly, label, r, area)
                if touching(sub, row, x + lx, y + ly, deep=r):
                    out.extend(row)
                    continue
            if area <= 3.0 * ball_area:
                out.append(Blob(x + float(cents[i, 0]), y + float(cents[i, 1]), label))
        return out

    def _a_lone_streak(self, sub: F32, x: int, y: int, label: int, r: float,
                       area: int) -> Blob | None:
        """A part too big for two balls (``sub``, its distance map, window at work pixel
        (x, y)) that is one ball's motion-blur streak: it splits as one streak (see
        :meth:`split`), a ball wide and no wider (from one radius to ``round_core_radii`` deep,
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
        row = self.split(sub, x, y, label, r, area)
        return row[0] if len(row) == 1 and row[0].streak else None

    def _parts_above(self, f: F32, part: NDArray[Any], level: float
                     ) -> tuple[int, NDArray[Any], NDArray[Any], NDArray[Any]]:
        """The connected parts of a blob (``part``, in the window ``f`` of the foreground map)
        above ``level`` times the threshold, opened: their count, labels, stats, centroids."""
        above = (f > level * self.threshold) & (part > 0)
        strong = cv2.morphologyEx(above.astype(np.uint8), cv2.MORPH_OPEN, self.open_kernel)
        n, labels, stats, cents = cv2.connectedComponentsWithStats(strong, connectivity=8,
                                                                   ltype=cv2.CV_16U)
        return n, labels, stats, cents

    def _pale_row(self, f: F32, sub: F32, x: int, y: int, lx: int, ly: int, label: int,
                  r: float, area: int) -> list[Blob] | None:
        """A part of a blob's strong pixels (``sub``, its distance map, at (lx, ly) in the
        window ``f`` at work pixel (x, y)) as balls touching, one of them pale, too big for two
        balls alone (two pale whites by a bright yellow; a white touching a red, their rims and
        shadows 2.7 balls' area in the club footage: at the stronger level the pale ones
        would be lost): when it splits into two balls or more, none a streak (an arm's or the
        cue's strip is one), each necked to its neighbour (see :func:`necked`). None otherwise
        (then the stronger level finds them all, or it is one big ball)."""
        row = self.split(sub, x + lx, y + ly, label, r, area)
        if not touching(sub, row, x + lx, y + ly):
            return None
        hh, ww = f.shape
        if all(f[min(round(b.y) - y, hh - 1), min(round(b.x) - x, ww - 1)]
               > self.params.stronger_thresholds * self.threshold for b in row):
            return None
        return row
