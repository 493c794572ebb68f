"""Has the camera (or the table) moved since calibration? Re-find the cushion noses near where the
calibration says they are and measure how far the table corners moved, in mm."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.bump import BumpParams, BumpWatch
from calibration.cloth import to_lab
from calibration.detect import (
    CAMERA_HEIGHT_MM,
    POCKET_MARGIN,
    as_bgr_image,
    corners_from_lines,
    default_nose_height_mm,
    detect_table,
    median_frame,
)
from calibration.edges import CHROMA_WEIGHT, STEP_PX, profile_shifts, subpixel_peak
from calibration.errors import CalibrationError
from calibration.lines import Line, irls_line, ransac_line, robust_line
from calibration.model import CORNER_POCKETS, Calibration, apply_homography, table_grid
from calibration.sights import SightParams, refined_by_sights
from rules.table import Cushion

FloatArray = NDArray[np.float64]

RECALIBRATE_MM = 3.0  # a caller should recalibrate when a corner moved more than this
SIGHTS_AGREE_MM = 15.0  # a fit to the sights after a bump is taken within this of the follow
SIGHT_PICTURES = 4  # ... in the median of this many whole pictures, the looks after the bump
SEARCH_MM = 60.0  # how far from the calibrated nose line to look for it (a bumped camera)
MIN_CORRELATION = 0.8  # profiles less alike than this (a hand over the cushion) are not used


@dataclass(frozen=True, eq=False)
class Drift:
    """Corner displacements (new - calibrated) in table mm, rows HR, HL, FR, FL."""

    corners_mm: FloatArray

    @property
    def max_mm(self) -> float:
        """The largest corner displacement (mm)."""
        return float(np.max(np.hypot(self.corners_mm[:, 0], self.corners_mm[:, 1])))

    def exceeds(self, threshold_mm: float = RECALIBRATE_MM) -> bool:
        """True when some corner moved more than ``threshold_mm`` (time to recalibrate)."""
        return self.max_mm > threshold_mm


def _cushion_samples(cal: Calibration, cushion: Cushion, spacing_mm: float
                     ) -> tuple[FloatArray, FloatArray]:
    """Points along the calibrated nose line (pixels), away from pockets, and inward normals."""
    t = cal.table
    L, W = t.length_mm, t.width_mm
    margin = POCKET_MARGIN * W
    if cushion in (Cushion.HEAD, Cushion.FOOT):
        s = np.arange(margin, W - margin, spacing_mm)
        x = 0.0 if cushion is Cushion.HEAD else L
        inward = (1.0, 0.0) if cushion is Cushion.HEAD else (-1.0, 0.0)
        mm = np.stack([np.full_like(s, x), s], axis=1)
    else:
        s = np.arange(margin, L - margin, spacing_mm)
        s = s[np.abs(s - L / 2) > margin]
        y = 0.0 if cushion is Cushion.RIGHT else W
        inward = (0.0, 1.0) if cushion is Cushion.RIGHT else (0.0, -1.0)
        mm = np.stack([s, np.full_like(s, y)], axis=1)
    px = cal.table_to_image(mm)
    ahead = cal.table_to_image(mm + np.array(inward) * 10.0)
    n = ahead - px
    n /= np.hypot(n[:, 0], n[:, 1])[:, None]
    return px, n


def _check_size(frame: NDArray[np.uint8], calibration: Calibration, what: str,
                scale: float = 1.0) -> NDArray[np.uint8]:
    """``frame`` as BGR, when it is the calibration's picture at ``scale`` (to a pixel when
    scaled: half of an odd width is either side of it)."""
    img = as_bgr_image(frame, what)
    w, h = calibration.image_size
    size = (img.shape[1], img.shape[0])
    wrong = (size != (w, h) if scale == 1.0
             else abs(size[0] - w * scale) > 1 or abs(size[1] - h * scale) > 1)
    if wrong:
        raise CalibrationError(f"expected a {round(w * scale)}x{round(h * scale)} frame, got "
                               f"{size[0]}x{size[1]}", what)
    return img


def measure_drift(calibration: Calibration, frame: NDArray[np.uint8], *,
                  reference: NDArray[np.uint8] | None = None, search_mm: float = SEARCH_MM,
                  seed: int = 0) -> Drift:
    """How far the table corners moved (table mm) in ``frame`` since the calibration.

    With ``reference`` (the frame the calibration was made from, or any frame taken while it
    held) each cushion's picture is compared with the reference's by cross-correlation across the
    cushion, near the calibrated nose line: precise to a tenth of a pixel, because whatever
    defines the nose in one frame defines it in the other. Without it the table is found again
    from scratch (:func:`~calibration.detect.detect_table`), which on real footage wanders by
    about a pixel from frame to frame. Either way robust line fits carry each cushion, so hands
    and the cue over a cushion do not matter.
    """
    img = _check_size(frame, calibration, "frame")
    ideal = np.array([calibration.table.pocket_xy(p) for p in CORNER_POCKETS])
    if reference is None:
        found = detect_table(img, calibration.table, seed=seed).calibration
        new_mm = calibration.image_to_table(found.corners_px())
        # the new detection may have put the head at the other end: pair corners by position
        order = [int(np.argmin(np.hypot(*(new_mm - c).T))) for c in ideal]
        return Drift(corners_mm=new_mm[order] - ideal)
    lab_ref = to_lab(_check_size(reference, calibration, "reference"))
    return _drift_from_lab(calibration, lab_ref, to_lab(img), search_mm, seed)


def _drift_from_lab(calibration: Calibration, lab_ref: NDArray[np.float32],
                    lab: NDArray[np.float32], search_mm: float, seed: int,
                    min_share: float = 0.25) -> Drift:
    """:func:`measure_drift` with a reference, on frames already in Lab. Each cushion needs
    ``min_share`` of its samples matched (CalibrationError otherwise)."""
    rng = np.random.default_rng(seed)
    ideal = np.array([calibration.table.pocket_xy(p) for p in CORNER_POCKETS])
    mm_px = calibration.mm_per_px()
    search_px = max(2.0, search_mm / mm_px)
    lines: dict[Cushion, Line] = {}
    for cushion in Cushion:
        origins, normals = _cushion_samples(calibration, cushion, spacing_mm=2.0 * mm_px)
        shift, score = profile_shifts(lab_ref, lab, origins, normals, search_px)
        pts = origins + normals * shift[:, None]
        pts = pts[score >= MIN_CORRELATION]
        if len(pts) < max(10, min_share * len(origins)):
            raise CalibrationError(
                f"the {cushion.value} cushion was not found near its calibrated place "
                f"({len(pts)} of {len(origins)} points; expected the table where it was)")
        line, _ = robust_line(calibration.undistort(pts), 1.5, rng, min_scale=0.3)
        if line is None:
            raise CalibrationError(f"the {cushion.value} cushion line could not be fitted")
        lines[cushion] = line
    new_mm = apply_homography(calibration.homography_image_to_table, corners_from_lines(lines))
    return Drift(corners_mm=new_mm - ideal)


# --- a fast probe for repeated checks against one reference -----------------------------------
class _Probe:
    """:func:`measure_drift` with a reference, made fast for repeated checks: the sample points
    and the reference's profiles are computed once, a frame is sampled only along them (Lab of
    the sampled pixels alone) and the cross-correlation uses running sums."""

    def __init__(self, calibration: Calibration, reference: NDArray[np.uint8],
                 search_mm: float, spacing_px: float = 3.0) -> None:
        self.calibration = calibration
        mm_px = calibration.mm_per_px()
        self.s = max(2, round(max(2.0, search_mm / mm_px) / STEP_PX))
        self.w = round(8.0 / STEP_PX)
        spans, origins, normals = [], [], []
        start = 0
        for cushion in Cushion:
            o, n = _cushion_samples(calibration, cushion, spacing_mm=spacing_px * mm_px)
            origins.append(o)
            normals.append(n)
            spans.append((cushion, start, start + len(o)))
            start += len(o)
        self.spans = spans
        self.origins = np.concatenate(origins)
        self.normals = np.concatenate(normals)
        # undistorted positions along each normal, linearised (a shift is a few pixels)
        self.und_origins = calibration.undistort(self.origins)
        self.und_normals = calibration.undistort(self.origins + self.normals) - self.und_origins
        t_ref = np.arange(-self.w, self.w + 1, dtype=np.float64) * STEP_PX
        self.t_new = np.arange(-(self.w + self.s), self.w + self.s + 1,
                               dtype=np.float64) * STEP_PX
        ref = self._profiles(reference, t_ref)
        ref -= ref.mean(axis=1, keepdims=True)
        self.ref = ref
        self.ref_norm = np.sqrt(np.sum(ref * ref, axis=(1, 2)))

    def _profiles(self, frame: NDArray[np.uint8], ts: FloatArray) -> FloatArray:
        """Weighted Lab (as :func:`calibration.edges.profile_shifts`) along every sample's
        normal: (N, T, 3)."""
        o, n = self.origins, self.normals
        mx = (o[:, 0, None] + n[:, 0, None] * ts[None, :]).astype(np.float32)
        my = (o[:, 1, None] + n[:, 1, None] * ts[None, :]).astype(np.float32)
        bgr = cv2.remap(frame, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        # only the sampled pixels are turned into Lab (a whole frame costs far more)
        lab = cv2.cvtColor(np.asarray(bgr, dtype=np.float32) * np.float32(1 / 255),
                           cv2.COLOR_BGR2Lab)
        weights = np.array([1.0, CHROMA_WEIGHT, CHROMA_WEIGHT])
        return np.asarray(np.asarray(lab, dtype=np.float64) * weights, dtype=np.float64)

    def measure(self, frame: NDArray[np.uint8], rng: np.random.Generator,
                min_share: float = 0.25) -> Drift:
        new = self._profiles(frame, self.t_new)  # (N, M + 2s, 3)
        m, k_count = 2 * self.w + 1, 2 * self.s + 1
        c1 = np.concatenate([np.zeros((len(new), 1, 3)), np.cumsum(new, axis=1)], axis=1)
        c2 = np.concatenate([np.zeros((len(new), 1)), np.cumsum(np.sum(new * new, axis=2),
                                                               axis=1)], axis=1)
        s1 = c1[:, m:m + k_count] - c1[:, :k_count]  # (N, K, 3) window sums
        s2 = c2[:, m:m + k_count] - c2[:, :k_count]  # (N, K)
        var = np.maximum(s2 - np.sum(s1 * s1, axis=2) / m, 0.0)
        windows = np.lib.stride_tricks.sliding_window_view(new, m, axis=1)  # (N, K, 3, m)
        num = np.einsum("ntc,nkct->nk", self.ref, windows)
        ncc = num / np.maximum(self.ref_norm[:, None] * np.sqrt(var), 1e-9)
        k = np.argmax(ncc, axis=1)
        score = ncc[np.arange(len(k)), k]
        score = np.where((k == 0) | (k == k_count - 1), 0.0, score)
        shift = (subpixel_peak(ncc, k) - self.s) * STEP_PX
        cal = self.calibration
        lines: dict[Cushion, Line] = {}
        for cushion, a, b in self.spans:
            good = score[a:b] >= MIN_CORRELATION
            if int(good.sum()) < max(10, min_share * (b - a)):
                raise CalibrationError(
                    f"the {cushion.value} cushion was not found near its calibrated place "
                    f"({int(good.sum())} of {b - a} points; expected the table where it was)")
            # The cushion moved by the median shift of the points seen: a line fitted through
            # the points themselves tilts with the noise of a partly covered cushion, and its
            # ends (the corners) swing by millimetres when nothing moved.
            moved = float(np.median(shift[a:b][good]))
            pts = self.und_origins[a:b] + self.und_normals[a:b] * moved
            line, _ = ransac_line(pts, 1.5, rng, iterations=60)
            if line is None:
                raise CalibrationError(f"the {cushion.value} cushion line could not be fitted")
            lines[cushion], _ = irls_line(pts, line, min_scale=0.3)
        ideal = np.array([cal.table.pocket_xy(p) for p in CORNER_POCKETS])
        new_mm = apply_homography(cal.homography_image_to_table, corners_from_lines(lines))
        return Drift(corners_mm=new_mm - ideal)


# --- the monitor used while refereeing ----------------------------------------------------------
DriftStatus = Literal["ok", "moved", "recalibrated", "refitted", "recalibration_failed",
                      "unmeasured"]


@dataclass(frozen=True, eq=False)
class DriftEvent:
    """One drift check of a :class:`DriftMonitor`.

    ``status``: "ok" (the table is where the calibration says, within the threshold); "moved"
    (it moved by ``drift_mm``, seen once: confirmed or refuted at the next check, or no
    recalibration callable was given); "recalibrated" (moved in two consecutive checks and
    recalibrated: ``calibration`` is the new one; also a bump followed); "refitted" (after a
    bump, the table fitted again to the rails' sights in the pictures since: ``calibration`` is
    the new one, the picture did not move); "recalibration_failed" (moved twice, the
    recalibration raised: ``calibration`` is still the last good one, ``message`` says why);
    "unmeasured" (too little of the cushions was seen, e.g. players over them; nothing changes).
    ``calibration`` is always the calibration in force after the check."""

    frame: int
    t_s: float
    status: DriftStatus
    drift_mm: float | None
    calibration: Calibration
    message: str = ""
    # a bump followed: how the picture moved (3x3 full-resolution pixels, new = motion @ old),
    # so that what was learned of the old picture can be carried over; None otherwise
    motion: FloatArray | None = None

    @property
    def changed(self) -> bool:
        """True when this check replaced the calibration."""
        return self.status in ("recalibrated", "refitted")


class DriftMonitor:
    """Watches for the camera (or table) moving while a match is refereed.

    ``check(frame_index, t_s, frame)`` measures at most once every ``every_s`` seconds of video
    (other calls return None at once) how far the four table corners moved since the reference
    frame (:func:`measure_drift` with a reference: each cushion's picture correlated with the
    reference's across the cushion at many places, samples whose picture does not match --
    hands, the cue, a player leaning over the cushion -- dropped, a robust line fitted through
    the rest). A movement over ``threshold_mm`` must be seen in two consecutive checks before
    ``recalibrate(frame)`` is called; its calibration then replaces the old one and the frame
    becomes the reference. The reference is ``reference`` or, by default, the first frame
    checked (the calibration is taken to hold then). A check costs ~20-40 ms at 1280x720.

        monitor = DriftMonitor(calibration, every_s=5.0, threshold_mm=3.0,
                               recalibrate=lambda frame: find_table(frame, calibration.table))
        for index, frame in read_frames("match.mp4"):
            event = monitor.check(index, index / fps, frame)
            if event is not None and event.changed:
                calibration = event.calibration
    """

    def __init__(self, calibration: Calibration, *, every_s: float | None = 5.0,
                 threshold_mm: float = RECALIBRATE_MM,
                 recalibrate: Callable[[NDArray[np.uint8]], Calibration] | None = None,
                 reference: NDArray[np.uint8] | None = None,
                 search_mm: float = SEARCH_MM, bump: BumpParams | None = None,
                 sights: SightParams | None = None, nose_height_mm: float | None = None,
                 camera_height_mm: float = CAMERA_HEIGHT_MM) -> None:
        if every_s is None and bump is None:
            raise CalibrationError("expected a drift check (every_s), a bump watch, or both",
                                   "every_s")
        if every_s is not None and not (math.isfinite(every_s) and every_s >= 0):
            raise CalibrationError(f"expected every_s >= 0 seconds, got {every_s!r}", "every_s")
        if not (math.isfinite(threshold_mm) and threshold_mm > 0):
            raise CalibrationError(f"expected threshold_mm > 0, got {threshold_mm!r}",
                                   "threshold_mm")
        self.calibration = calibration
        self.every_s = None if every_s is None else float(every_s)
        self.threshold_mm = float(threshold_mm)
        self.recalibrate = recalibrate
        self.search_mm = float(search_mm)
        self._probe = None if reference is None else \
            _Probe(calibration, _check_size(reference, calibration, "reference"), search_mm)
        # a bumped camera is looked for more often, and followed (see calibration.bump)
        self.bumps = None if bump is None else BumpWatch(calibration, bump)
        # ... and then, where the rails' sights show, the table fitted to them again in a median
        # of the next looks' whole pictures (see _refit)
        self.sights = sights
        self._heights = (default_nose_height_mm(calibration.table) if nose_height_mm is None
                         else float(nose_height_mm), float(camera_height_mm))
        self._since_bump: list[NDArray[np.uint8]] | None = None
        self._last_t: float | None = None
        self._pending = False
        self.events: list[DriftEvent] = []  # every check that was not "ok", in order

    def _probe_due(self, t_s: float) -> bool:
        if self.every_s is None:
            return False
        return self._last_t is None or t_s - self._last_t >= self.every_s

    def due(self, t_s: float) -> bool:
        """Whether :meth:`check` at ``t_s`` would measure (a caller can then skip making the
        frame)."""
        return self._probe_due(t_s) or (self.bumps is not None and self.bumps.due(t_s))

    def check(self, frame_index: int, t_s: float, frame: NDArray[np.uint8], scale: float = 1.0,
              whole: Callable[[], NDArray[np.uint8]] | None = None) -> DriftEvent | None:
        """Measure the drift if ``every_s`` has passed since the last check, and look for a
        bump if its watch is due (None when neither is due). ``frame``: the picture at
        ``scale`` of the calibration's size (the bump watch looks at a quarter of it, so half
        a frame serves as well as the whole; the drift check wants the whole). ``whole``: the
        whole picture (BGR), asked for only at the looks after a bump when the monitor's
        ``sights`` are to be read again (see :meth:`_refit`)."""
        if not self.due(t_s):
            return None
        if scale != 1.0 and self.every_s is not None:
            raise CalibrationError("expected the whole frame: the cushion-line drift check "
                                   f"measures at full resolution (got it at scale {scale})",
                                   "frame")
        img = _check_size(frame, self.calibration, "frame", scale)
        if self.bumps is not None and self.bumps.due(t_s):
            bump = self.bumps.look(frame_index, t_s, img)
            if bump is None and self._since_bump is not None and whole is not None:
                refit = self._refit(whole(), img)
                if refit is not None:
                    moved = refit
                    return self._event(frame_index, t_s, "refitted", moved,
                                       f"after the bump, the table fitted again to the rails' "
                                       f"sights (it moved up to {moved:.1f} mm)", np.eye(3))
            if bump is not None:
                self._since_bump = [] if self.sights is not None and whole is not None else None
                self.calibration = bump.calibration
                if self.every_s is not None:
                    self._probe = _Probe(bump.calibration, img, self.search_mm)
                self._pending = False
                return self._event(frame_index, t_s, "recalibrated", bump.moved_mm,
                                   f"the camera was bumped: the table moved {bump.moved_mm:.1f} "
                                   "mm in the picture; followed", bump.motion)
        if not self._probe_due(t_s):
            return None
        self._last_t = t_s
        if self._probe is None:
            self._probe = _Probe(self.calibration, img, self.search_mm)
            return self._event(frame_index, t_s, "ok", 0.0, "reference frame")
        try:
            drift = self._probe.measure(img, np.random.default_rng(0))
        except CalibrationError as err:
            return self._event(frame_index, t_s, "unmeasured", None, err.detail)
        moved = drift.max_mm
        if moved <= self.threshold_mm:
            self._pending = False
            return self._event(frame_index, t_s, "ok", moved)
        if not self._pending or self.recalibrate is None:
            self._pending = True
            return self._event(frame_index, t_s, "moved", moved,
                               f"the table moved {moved:.1f} mm in the picture")
        self._pending = False
        try:
            new = self.recalibrate(img)
        except CalibrationError as err:
            return self._event(frame_index, t_s, "recalibration_failed", moved,
                               f"the table moved {moved:.1f} mm but recalibration failed "
                               f"({err.detail}); keeping the last good calibration")
        self.calibration = new
        self._probe = _Probe(new, img, self.search_mm)
        if self.bumps is not None:
            self.bumps.adopt(new, img)
        return self._event(frame_index, t_s, "recalibrated", moved,
                           f"the table moved {moved:.1f} mm; recalibrated")

    def _refit(self, picture: NDArray[np.uint8], img: NDArray[np.uint8]) -> float | None:
        """One more whole picture after a bump; once ``SIGHT_PICTURES`` are in, the table fitted
        again to the rails' sights in their median (:mod:`calibration.sights`), taken when the
        sights fit within ``SightParams.doubtful_rms_mm`` and the fit lies within
        ``SIGHTS_AGREE_MM`` of the follow everywhere on the field, and the bump
        watch goes on from it (``img``: the picture it looks at). Returns how far the table
        moved (mm, the most over the field) when taken, else None. The camera's turn carries the
        calibration's own error over the bump and adds its own (on the hard renders, from the
        calibration the referee finds: 2.3 mm on average at the clip's end, 7 of 23 clips over
        3 mm); one compressed picture reads the sights worse than the calibration's median of
        nine, so a few are taken (a second at four looks a second)."""
        assert self._since_bump is not None and self.sights is not None
        self._since_bump.append(as_bgr_image(picture))
        if len(self._since_bump) < SIGHT_PICTURES:
            return None
        pictures, self._since_bump = self._since_bump, None
        refined = refined_by_sights(median_frame(pictures), self.calibration, *self._heights,
                                    self.sights)
        if refined is None or refined[1].rms_mm > self.sights.doubtful_rms_mm:
            return None  # (a loose fit is no better than the follow: 1-2 mm worse at times)
        grid = table_grid(self.calibration.table, 9, 4)
        apart = float(np.max(np.hypot(*(refined[0].image_to_table(
            self.calibration.table_to_image(grid)) - grid).T)))
        if apart > SIGHTS_AGREE_MM:
            return None
        self.calibration = refined[0]
        if self.bumps is not None:
            self.bumps.adopt(refined[0], img)
        return apart

    def _event(self, frame: int, t_s: float, status: DriftStatus, drift_mm: float | None,
               message: str = "", motion: FloatArray | None = None) -> DriftEvent:
        event = DriftEvent(frame=frame, t_s=t_s, status=status, drift_mm=drift_mm,
                           calibration=self.calibration, message=message, motion=motion)
        if status != "ok":
            self.events.append(event)
        return event
