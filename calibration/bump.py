"""A bumped camera, found within a fraction of a second and followed.

A knock on the camera's mount shifts and rolls the whole picture by a few pixels at once: 10-25
mm on the table at 1280x720, far beyond what a ball's position may be off. The table's rails and
what lies around them do not move, so the picture's motion is measured there: the band from
just outside the cushion noses to beyond the rails (no cloth: balls roll there, and lamps light it
unevenly), in grey at a quarter of the resolution, each pixel's contrast to its surroundings
(the local mean taken away, divided by the local spread: a lamp drifting, flickering or lighting
a hot spot changes brightness, not that), aligned with the same band of the reference frame by
OpenCV's ECC (a rigid motion: a shift and a roll). ECC costs ~3 ms a look, most of it
before its first step; an unmoved picture is told for a tenth of that by one linearised
(Gauss-Newton) step from no motion against the reference's precomputed gradients, and ECC runs
only where that step reads some motion (``screen_mm``). Without the local contrast, the lamps' drift
read as 10-20 mm of motion on an unmoved picture; with it, 1-4 mm. A motion
that moves the table's corners further than ``moved_mm``, seen in ``confirm_looks`` looks running
(a player leaning over a rail is not a bump), is followed: the motion is measured again at half
resolution and the calibration's homography is carried along with it (the lens model is the
camera's own and stays). The new picture becomes the reference.

A player leaning over a rail, or an arm resting on it, changes that part of the band only, and
drags the whole band's alignment with it (a player over the head rail in the reference frame
read as 4-7 mm of motion for seconds). A knock moves every part of the picture the same way. So
a motion over ``moved_mm`` is measured again in each quarter of the band alone (two rails and a
corner each): it is a bump only when at least ``least_quarters`` quarters each see the table move
over ``moved_mm`` and agree with the whole band's motion; it is then followed on those quarters
only.

A knock turns the camera about its own centre: on the undistorted picture that is a homography
(K R K^-1), not a shift and a roll; a turn of 0.2 degrees that moves the middle of the picture
2 px moves its sides 3.5 px. So the rigid motion measured over the band is taken as the camera's
turn whose motion of the raw picture is nearest to it there (three angles, the lens model's K),
and the calibration's homography is carried through that turn. (The rigid motion itself,
followed before, left the table 3-6 mm off after some bumps; ECC with a whole homography on the
undistorted band pinned its perspective poorly.)

Measured on the hard synthetic tier (``kaisa synth --hard``), where the true calibration after
each bump is known: 2-3 mm mean error on the table after following, against 12-20 mm before.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import cv2
import numpy as np
from numpy.typing import NDArray
from scipy.optimize import least_squares
from scipy.spatial.transform import Rotation

from calibration.errors import CalibrationError
from calibration.model import Calibration, apply_homography, table_grid

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class BumpParams:
    """When and how the picture's motion is measured. ``every_s``: seconds of video between two
    looks; ``moved_mm``: a motion that moves a table corner further than this is a bump (an
    unmoved picture under the hard tier's lamps reads 1-4 mm; a bump of 2-6 px, 7-25 mm);
    ``confirm_looks``: seen in this many looks running, unless it moved the corners
    ``sure_moved_ratio`` times ``moved_mm`` or more (then one look is enough); ``look_scale``,
    ``follow_scale``: the resolution of the looks and of the measurement the new calibration
    is made from;
    ``band_from_mm``, ``band_to_mm``: the band measured, from this far beyond the cushion noses
    to this far (a negative start reaches onto the cloth); ``contrast_mm``: the reach, on
    the table, of the surroundings a pixel's contrast is taken against;
    ``least_correlation``: a look whose band matches the reference less than this (the rails
    mostly covered) says nothing; ``least_quarters``: the quarters of the band (see the module)
    that must each see the motion for a bump; ``screen_mm``: a look whose band matches the
    reference unmoved and whose one linearised step from no motion (far cheaper than ECC)
    moves the corners less than this is no bump, and ECC is not run (0: always run). On the
    hard renders no look that ECC read as moved over ``moved_mm`` stepped under 1 mm so (the
    step reads a third to nine tenths of ECC's motion), and a third of the looks did; on a
    clean video nearly every look does."""

    every_s: float = 0.25
    moved_mm: float = 5.0
    confirm_looks: int = 2
    sure_moved_ratio: float = 3.0
    look_scale: float = 0.25
    follow_scale: float = 0.5
    band_from_mm: float = 40.0
    band_to_mm: float = 300.0
    contrast_mm: float = 55.0  # (16 px at 1280x720)
    least_correlation: float = 0.6
    least_quarters: int = 3
    screen_mm: float = 1.0

    @property
    def followed_within_s(self) -> float:
        """A bump is followed this long after it at most (the looks that confirm it)."""
        return self.every_s * self.confirm_looks

    def __post_init__(self) -> None:
        positive = ("every_s", "moved_mm", "look_scale", "follow_scale", "band_to_mm",
                    "contrast_mm", "sure_moved_ratio")
        for name in positive:
            value = getattr(self, name)
            if not (math.isfinite(value) and value > 0):
                raise CalibrationError(f"expected {name} > 0, got {value!r}", name)
        if not (math.isfinite(self.screen_mm) and 0 <= self.screen_mm < self.moved_mm):
            raise CalibrationError(f"expected 0 <= screen_mm < moved_mm, got {self.screen_mm!r}",
                                   "screen_mm")
        if not 1 <= self.least_quarters <= 4:
            raise CalibrationError(f"expected least_quarters in 1..4, got {self.least_quarters}",
                                   "least_quarters")
        if self.confirm_looks < 1:
            raise CalibrationError(f"expected confirm_looks >= 1, got {self.confirm_looks}",
                                   "confirm_looks")
        if not (0 < self.look_scale <= 1 and 0 < self.follow_scale <= 1):
            raise CalibrationError("expected look_scale and follow_scale in (0, 1]", "scale")
        if not self.band_from_mm < self.band_to_mm:
            raise CalibrationError("expected band_from_mm < band_to_mm", "band_from_mm")


@dataclass(frozen=True)
class Bump:
    """A bump found and followed: the look that confirmed it, how far the table's corners
    moved (mm, measured with the calibration before it), the calibration after it, and the
    picture's motion (3x3 full-resolution pixels, new = motion @ old)."""

    frame: int
    t_s: float
    moved_mm: float
    calibration: Calibration
    motion: FloatArray


def _contrast(frame: NDArray[np.uint8], size: tuple[int, int], reach_px: float
              ) -> NDArray[np.float32]:
    """The frame in grey at ``size`` (width, height), each pixel's contrast to its surroundings
    (a Gaussian of ``reach_px`` pixels at that size): minus their mean, over their spread (plus
    a few grey levels, so that flat parts stay flat rather than amplify noise). ``frame``: the
    picture at any resolution (the tracker hands over half of it)."""
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
    small = grey if (grey.shape[1], grey.shape[0]) == size else cv2.resize(
        grey, size, interpolation=cv2.INTER_AREA)
    g = np.asarray(small, dtype=np.float32)
    sigma = max(1.0, reach_px)
    mean = cv2.GaussianBlur(g, (0, 0), sigma)
    spread = np.sqrt(cv2.GaussianBlur((g - mean) ** 2, (0, 0), sigma))
    return np.asarray((g - mean) / (spread + 4.0), dtype=np.float32)


def _at_scale(calibration: Calibration, scale: float) -> tuple[int, int]:
    """The calibration's picture size (width, height) at ``scale``, as OpenCV rounds it."""
    w, h = calibration.image_size
    return round(w * scale), round(h * scale)


def _band(calibration: Calibration, params: BumpParams, scale: float) -> NDArray[np.uint8]:
    """The mask of the rails' band in the picture at ``scale``."""
    t = calibration.table
    w, h = _at_scale(calibration, scale)
    mask = np.zeros((h, w), np.uint8)

    def outline(margin: float) -> NDArray[np.int32]:
        corners = np.array([[-margin, -margin], [t.length_mm + margin, -margin],
                            [t.length_mm + margin, t.width_mm + margin],
                            [-margin, t.width_mm + margin]])
        return np.round(calibration.table_to_image(corners) * scale).astype(np.int32)

    cv2.fillPoly(mask, [outline(params.band_to_mm)], 255)
    cv2.fillPoly(mask, [outline(params.band_from_mm)], 0)
    return mask


def _quarters(calibration: Calibration, band: NDArray[np.uint8], scale: float
              ) -> list[NDArray[np.uint8]]:
    """The band cut in four at the table's middle (in the picture at ``scale``): each quarter
    holds a corner and half of the two rails beside it."""
    t = calibration.table
    cx, cy = calibration.table_to_image(np.array([[t.length_mm / 2, t.width_mm / 2]]))[0] * scale
    h, w = band.shape
    cols, rows = round(float(np.clip(cx, 1, w - 1))), round(float(np.clip(cy, 1, h - 1)))
    out = []
    for r0, r1 in ((0, rows), (rows, h)):
        for c0, c1 in ((0, cols), (cols, w)):
            part = np.zeros_like(band)
            part[r0:r1, c0:c1] = band[r0:r1, c0:c1]
            out.append(part)
    return out


def _motion(reference: NDArray[np.float32], frame: NDArray[np.float32], mask: NDArray[np.uint8],
            scale: float, start: FloatArray | None = None,
            model: int = cv2.MOTION_EUCLIDEAN) -> tuple[FloatArray, float] | None:
    """The rigid motion (3x3, full-resolution pixels: new = M @ old) that aligns the band of
    ``reference`` with ``frame``, both at ``scale``, and the correlation reached; None when ECC
    does not converge. ``model``: OpenCV's motion model (a rigid one, or a shift only)."""
    to_small = np.diag([scale, scale, 1.0])
    warp = np.eye(2, 3, dtype=np.float32)
    if start is not None:
        warp = (to_small @ start @ np.linalg.inv(to_small))[:2].astype(np.float32)
    try:
        correlation, found = cv2.findTransformECC(
            reference, frame, warp, model,
            (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 50, 1e-4), mask, 3)
    except cv2.error:
        return None
    # ECC's warp maps the reference's coordinates to the frame's
    small = np.vstack([np.asarray(found, dtype=np.float64), [0.0, 0.0, 1.0]])
    return np.linalg.inv(to_small) @ small @ to_small, float(correlation)


@dataclass(frozen=True, eq=False)
class _Linearised:
    """The reference band's contrast linearised for a small rigid motion (at the look's
    scale): the band's pixels, their values, the motion's Jacobian there (a shift in x, in y
    and a roll about the picture's middle, in radians) and the inverse of its normal matrix."""

    index: NDArray[np.intp]  # (the band's pixels in the flattened picture)
    values: NDArray[np.float32]
    jacobian: FloatArray  # (n, 3)
    inverse_normal: FloatArray  # (3, 3)
    centre: tuple[float, float]

    @classmethod
    def of(cls, reference: NDArray[np.float32], mask: NDArray[np.uint8]) -> _Linearised | None:
        gx = cv2.Sobel(reference, cv2.CV_32F, 1, 0, ksize=3, scale=1 / 8)
        gy = cv2.Sobel(reference, cv2.CV_32F, 0, 1, ksize=3, scale=1 / 8)
        h, w = reference.shape
        index = np.flatnonzero(mask)
        ys, xs = np.divmod(index, w)
        cx, cy = (w - 1) / 2, (h - 1) / 2
        gxs = gx.reshape(-1)[index].astype(np.float64)
        gys = gy.reshape(-1)[index].astype(np.float64)
        jacobian = np.c_[gxs, gys, (xs - cx) * gys - (ys - cy) * gxs]
        normal = jacobian.T @ jacobian
        if len(index) < 50 or np.linalg.cond(normal) > 1e8:
            return None
        return cls(index, reference.reshape(-1)[index], jacobian, np.linalg.inv(normal),
                   (cx, cy))

    def motion(self, now: NDArray[np.float32], scale: float) -> tuple[FloatArray, float]:
        """One Gauss-Newton step from no motion (3x3 full-resolution pixels, new = M @ old: a
        small motion, as an unmoved picture's noise or the start of a bump) and the band's
        correlation with the reference unmoved (zero-mean, as ECC's)."""
        values = now.reshape(-1)[self.index]
        # now(p) ~ reference(p - d): now - reference = -J d
        dx, dy, roll = -(self.inverse_normal @ (self.jacobian.T @ (values - self.values)))
        c, s = math.cos(roll), math.sin(roll)
        cx, cy = self.centre
        small = np.array([[c, -s, cx - c * cx + s * cy + dx],
                          [s, c, cy - s * cx - c * cy + dy], [0.0, 0.0, 1.0]])
        to_small = np.diag([scale, scale, 1.0])
        a = values - values.mean()
        b = self.values - self.values.mean()
        correlation = float(a @ b / max(1e-9, math.sqrt(float(a @ a) * float(b @ b))))
        return np.linalg.inv(to_small) @ small @ to_small, correlation


def corners_moved_mm(calibration: Calibration, motion: FloatArray) -> float:
    """How far ``motion`` (3x3, pixels) moves the table's corners, in mm on the table."""
    t = calibration.table
    corners = np.array([[0.0, 0.0], [t.length_mm, 0.0], [t.length_mm, t.width_mm],
                        [0.0, t.width_mm]])
    px = calibration.table_to_image(corners)
    moved = np.c_[px, np.ones(4)] @ motion.T
    back = calibration.image_to_table(moved[:, :2] / moved[:, 2:])
    return float(np.max(np.hypot(*(back - corners).T)))


def followed(calibration: Calibration, motion: FloatArray) -> Calibration:
    """The calibration of a picture moved by ``motion`` (3x3, pixels: new = motion @ old): table
    points seen at ``p`` before are seen at ``motion(p)`` now. The lens model stays (it is the
    camera's); the homography is fitted again to a grid of table points so carried."""
    table_pts = table_grid(calibration.table, 7, 4)
    before = calibration.table_to_image(table_pts)
    moved = np.c_[before, np.ones(len(before))] @ motion.T
    now = calibration.undistort(moved[:, :2] / moved[:, 2:])
    h, _ = cv2.findHomography(now, table_pts, 0)
    if h is None:
        raise CalibrationError("the moved picture gave no homography", "bump")
    return replace(calibration, homography_image_to_table=np.asarray(h, dtype=np.float64))


def _grid_px(calibration: Calibration) -> FloatArray:
    """Raw image points of a grid over the table and its rails (where the band is)."""
    return calibration.table_to_image(table_grid(calibration.table, 9, 5, margin_mm=200.0))


def _turn(calibration: Calibration, motion: FloatArray, points: FloatArray) -> FloatArray | None:
    """The camera's turn (3x3 homography of undistorted full-resolution pixels, new = H @ old:
    K R K^-1) whose motion of the raw picture is nearest, over ``points`` (raw pixels of the
    band), to the rigid ``motion`` measured there; None without a lens model (no K)."""
    if calibration.camera_matrix is None or calibration.distortion is None:
        return None
    k = np.asarray(calibration.camera_matrix, dtype=np.float64)
    k_inv = np.linalg.inv(k)
    target = apply_homography(motion, points)
    flat = calibration.undistort(points)

    def turn_of(angles: FloatArray) -> FloatArray:
        # rolled about the optical axis, then turned about the camera's y and x axes
        turn = k @ Rotation.from_euler("zyx", angles).as_matrix() @ k_inv
        return np.asarray(turn, dtype=np.float64)

    def residuals(angles: FloatArray) -> FloatArray:
        return (calibration.distort(apply_homography(turn_of(angles), flat)) - target).ravel()

    # a first guess from the motion at the picture's middle: roll, then the middle's shift
    roll = math.atan2(motion[1, 0], motion[0, 0])
    centre = np.array([[k[0, 2], k[1, 2]]])
    dx, dy = (apply_homography(motion, centre) - centre)[0]
    guess = np.array([roll, math.atan(dx / k[0, 0]), -math.atan(dy / k[1, 1])])
    fit = least_squares(residuals, guess, x_scale=1e-3)
    return turn_of(fit.x)


def turned(calibration: Calibration, turn: FloatArray) -> Calibration:
    """The calibration of a camera turned so that undistorted pixels seen at ``p`` before are
    seen at ``turn(p)`` now (3x3 homography: a camera's turn about its centre; the lens model
    stays, it is the camera's)."""
    h = np.asarray(calibration.homography_image_to_table, dtype=np.float64) @ np.linalg.inv(turn)
    return replace(calibration, homography_image_to_table=h / h[2, 2])


def _raw_motion(calibration: Calibration, turn: FloatArray) -> FloatArray:
    """The turn as a homography of raw pixels (new = M @ old), fitted over the table and
    rails: for what needs the picture's motion only roughly (the cloth model carried over)."""
    before = _grid_px(calibration)
    after = calibration.distort(apply_homography(turn, calibration.undistort(before)))
    h, _ = cv2.findHomography(before, after, 0)
    return np.eye(3) if h is None else np.asarray(h, dtype=np.float64)


class BumpWatch:
    """Looks at the picture every ``params.every_s`` seconds for a bump (see the module) and
    follows it. ``look(frame_index, t_s, frame)`` (a BGR or grey frame of the calibration's
    size, or of any smaller size of the same shape: the looks are made at ``look_scale``)
    returns the :class:`Bump` when one is confirmed, else None; the first look takes the
    reference (the calibration is taken to hold then)."""

    def __init__(self, calibration: Calibration, params: BumpParams | None = None) -> None:
        self.params = params or BumpParams()
        self.calibration = calibration
        self._last_t: float | None = None
        self._reference: NDArray[np.float32] | None = None
        self._fine_reference: NDArray[np.float32] | None = None
        self._mask = _band(calibration, self.params, self.params.look_scale)
        self._linear: _Linearised | None = None  # (the reference's, for the screen)
        self._contrast_px = 0.0  # (full-resolution pixels: set with the reference)
        self._seen = 0  # looks running that saw the picture moved

    def due(self, t_s: float) -> bool:
        return self._last_t is None or t_s - self._last_t >= self.params.every_s

    def _rereference(self, frame: NDArray[np.uint8]) -> None:
        p = self.params
        self._contrast_px = p.contrast_mm / self.calibration.mm_per_px()
        self._reference = self._contrast(frame, p.look_scale)
        self._fine_reference = self._contrast(frame, p.follow_scale)
        self._mask = _band(self.calibration, self.params, self.params.look_scale)
        self._linear = _Linearised.of(self._reference, self._mask) if p.screen_mm > 0 else None
        self._seen = 0

    def _quarters_moved(self, now: NDArray[np.float32], motion: FloatArray) -> list[int]:
        """The quarters of the band (see :func:`_quarters`) that, measured alone, see the
        picture move with ``motion``: their own shift (a translation: a quarter alone tells a
        roll poorly) is over half ``moved_mm``, and differs from what ``motion`` moves their
        part of the band by less than half of that."""
        assert self._reference is not None
        p = self.params
        mm = self.calibration.mm_per_px()
        seen = []
        for q, part in enumerate(_quarters(self.calibration, self._mask, p.look_scale)):
            ys, xs = np.nonzero(part)
            if len(xs) < 50:
                continue  # (hardly any band there: the table runs out of the picture)
            points = np.c_[xs, ys].astype(np.float64) / p.look_scale
            whole = np.mean(apply_homography(motion, points) - points, axis=0)
            start = np.eye(3)
            start[:2, 2] = whole
            own = _motion(self._reference, now, part, p.look_scale, start,
                          cv2.MOTION_TRANSLATION)
            if own is None or own[1] < p.least_correlation:
                continue
            shift = own[0][:2, 2]
            if (np.hypot(*shift) * mm > 0.5 * p.moved_mm
                    and np.hypot(*(shift - whole)) <= 0.5 * np.hypot(*whole)):
                seen.append(q)
        return seen

    def _contrast(self, frame: NDArray[np.uint8], scale: float) -> NDArray[np.float32]:
        return _contrast(frame, _at_scale(self.calibration, scale), self._contrast_px * scale)

    def adopt(self, calibration: Calibration, frame: NDArray[np.uint8]) -> None:
        """Take ``calibration`` (made anew from ``frame``) and ``frame`` as the reference."""
        self.calibration = calibration
        self._rereference(frame)

    def look(self, frame_index: int, t_s: float, frame: NDArray[np.uint8]) -> Bump | None:
        if not self.due(t_s):
            return None
        self._last_t = t_s
        if self._reference is None:
            self._rereference(frame)
            return None
        p = self.params
        now = self._contrast(frame, p.look_scale)
        if self._linear is not None:
            step, correlation = self._linear.motion(now, p.look_scale)
            if (correlation >= p.least_correlation
                    and corners_moved_mm(self.calibration, step) <= p.screen_mm):
                self._seen = 0  # (no bump: ECC, 3 ms a look, not needed)
                return None
        found = _motion(self._reference, now, self._mask, p.look_scale)
        if found is None or found[1] < p.least_correlation:
            return None  # (the rails covered: neither for nor against a bump)
        motion, _ = found
        moved = corners_moved_mm(self.calibration, motion)
        if moved <= p.moved_mm:
            self._seen = 0
            return None
        seen = self._quarters_moved(now, motion)
        if len(seen) < p.least_quarters:
            self._seen = 0  # (one part of the band changed: a player or an arm over a rail)
            return None
        self._seen += 1
        if self._seen < p.confirm_looks and moved <= p.sure_moved_ratio * p.moved_mm:
            return None  # (a bump several times the looks' noise needs no second look)
        assert self._fine_reference is not None
        band = _band(self.calibration, p, p.follow_scale)
        quarters = _quarters(self.calibration, band, p.follow_scale)
        calibration = self.calibration
        agreeing = np.maximum.reduce([quarters[q] for q in seen])
        fine = _motion(self._fine_reference, self._contrast(frame, p.follow_scale), agreeing,
                       p.follow_scale, motion)
        if fine is not None and fine[1] >= p.least_correlation:
            motion = fine[0]
        ys, xs = np.nonzero(agreeing)
        turn = _turn(calibration, motion,
                     np.c_[xs, ys][::max(1, len(xs) // 400)].astype(np.float64) / p.follow_scale)
        if turn is not None:
            self.calibration = turned(calibration, turn)
            motion = _raw_motion(calibration, turn)
        else:
            self.calibration = followed(calibration, motion)
        moved = corners_moved_mm(calibration, motion)
        self._rereference(frame)
        return Bump(frame_index, t_s, moved, self.calibration, motion)
