"""The overhead-camera renderer for labelled synthetic clips.

A :class:`Renderer` is made once per clip from the table (:class:`rules.table.TableSpec`), the
camera (:class:`synth.camera.CameraPose`) and a :class:`Look` (cloth, light, wood, player, camera
quality, all drawn from one seed). It traces, once, every image pixel's ray to the planes of the
table (the cloth at ``z = -ball_radius``, the cushion and rail tops at ``RailSpec.top_z_mm``) and
shades the static background there: lit cloth with texture and the shadow under the cushion noses,
cushions, wooden rails with sights, six pocket holes at the RULES.md positions with the RULES.md
mouths, the optional house line and points. A frame then only touches the pixels near the balls
and the player: each ball is ray-traced as a sphere (so its outline, shading and dots follow the
true perspective and lens) and casts a soft shadow from every lamp onto the cloth. Motion blur
averages the sub-frame renders inside each ball's own bounding box (balls that do not move are
drawn once), each sub-frame smeared along its slice of the motion so that a fast ball leaves a
continuous streak. The cue and the player (bridge hand, arms, head, shoulders) are 3-D capsules
and spheres above the balls, hiding what they cover and casting soft shadows; they are cached
per state, so a still cue costs only its compositing.

Units: table frame of RULES.md §1 in millimetres with z up and z = 0 the plane of ball centres
(see :mod:`synth.camera`); colours are BGR; albedos in [0, 1]; pixel values in [0, 255].

Ball markings: ``W1`` has one dark dot, ``W2`` two dots 40 degrees apart. Each marking is repeated
at the antipode (as on real spot balls), so one marking always faces the camera within 90 degrees
and turns with the ball as it rolls (:func:`roll`).
"""

from __future__ import annotations

import colorsys
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, cast

import cv2
import numpy as np
from numpy.typing import NDArray

from rules.balls import Ball
from rules.table import Pocket, Spot, TableSpec
from synth.camera import CameraPose

F32 = NDArray[np.float32]
U8 = NDArray[np.uint8]
BGR = tuple[float, float, float]
Rect = tuple[int, int, int, int]  # x0, y0, x1, y1 (exclusive)

_DOT_DIAMETER_MM = 12.0
_W2_DOT_SEPARATION_DEG = 40.0


# ================================================================================================
# Public values
# ================================================================================================
@dataclass(frozen=True)
class RailSpec:
    """What lies around the playing field (not in TableSpec: it does not affect play).

    ``cushion_mm`` is the cloth-covered cushion top from the nose to the wood, ``wood_mm`` the
    wooden rail beyond it; both tops are ``top_z_mm`` above the plane of ball centres (a nose
    ~0.65 ball diameters above the cloth).
    """

    cushion_mm: float = 50.0
    wood_mm: float = 135.0
    top_z_mm: float = 10.0
    sight_diameter_mm: float = 14.0

    @property
    def outer_mm(self) -> float:
        """How far the rails reach beyond the cushion noses."""
        return self.cushion_mm + self.wood_mm


@dataclass(frozen=True, eq=False)
class BallPose:
    """A ball's centre on the table (mm) and its orientation (3x3, body -> table frame)."""

    x_mm: float
    y_mm: float
    rot: NDArray[np.float64] = field(default_factory=lambda: np.eye(3))


@dataclass(frozen=True)
class CueState:
    """The cue and the player holding it.

    ``tip_xy_mm`` is the cue tip on the table; ``direction_rad`` the stroke direction (butt to
    tip) as an angle from +x toward +y. The bridge hand rests at ``bridge_xy_mm`` (default 230 mm
    behind the tip, so a stroke that moves only the tip keeps the hand still). ``side`` +1 puts
    the bridge arm to the left of the stroke direction, -1 to the right. With ``player`` False only
    the stick is drawn.
    """

    tip_xy_mm: tuple[float, float]
    direction_rad: float
    visible: bool = True
    bridge_xy_mm: tuple[float, float] | None = None
    side: int = 1
    player: bool = True


@dataclass(frozen=True)
class Look:
    """Everything about a clip's appearance that is not geometry, drawn from a seed.

    Albedos are BGR in [0, 1]; ``exposure`` is the pixel value of a white diffuser under the mean
    cloth illumination (auto-exposure sets it from the cloth, so white balls may clip as on real
    webcams). ``lamps`` are (x, y, z) mm in the table frame with their relative powers.
    """

    cloth_kind: str
    cloth_albedo: BGR
    cushion_shade: float
    rail_albedo: BGR
    rail_grain: float
    rail_gloss: float
    floor_albedo: BGR
    sight_albedo: BGR
    rim_albedo: BGR
    lamps: tuple[tuple[float, float, float], ...]
    lamp_powers: tuple[float, ...]
    lamp_size_mm: float
    ambient: float
    gradient: tuple[float, float]
    vignetting: float
    exposure: float
    white_balance: BGR
    blur_px: float
    noise_sigma: float
    sharpen: float
    flicker: float
    jpeg_quality: int | None
    cloth_texture: float
    nose_shadow: float
    house_line: bool
    spots: bool
    line_albedo: BGR
    line_strength: float
    ball_albedo: tuple[tuple[str, BGR], ...]
    dot_albedo: BGR
    gloss: float
    skin_albedo: BGR
    sleeve_albedo: BGR
    bare_forearm: float
    hair_albedo: BGR
    cue_shaft_albedo: BGR
    cue_butt_albedo: BGR

    @classmethod
    def from_seed(cls, seed: int, table: TableSpec | None = None,
                  cloth: str | None = None) -> Look:
        """The look of seed ``seed``; ``cloth`` forces "green", "blue" or "other"."""
        return cls.random(np.random.default_rng(seed), table, cloth)

    @classmethod
    def random(cls, rng: np.random.Generator, table: TableSpec | None = None,
               cloth: str | None = None) -> Look:
        """A random look; ``cloth`` None draws green 70 %, blue 15 %, another colour 15 %."""
        table = table or TableSpec()
        u = rng.uniform
        kind = cloth or str(rng.choice(["green", "blue", "other"], p=[0.7, 0.15, 0.15]))
        if kind not in ("green", "blue", "other"):
            raise ValueError(f"expected cloth 'green', 'blue' or 'other', got {kind!r}")
        if kind == "green":
            hsv = (u(100, 175), u(0.25, 0.68), u(0.3, 0.52))
        elif kind == "blue":
            hsv = (u(195, 228), u(0.45, 0.85), u(0.3, 0.52))
        else:
            hsv = [(u(-12, 8) % 360, u(0.5, 0.8), u(0.25, 0.42)),   # red / burgundy
                   (u(0, 360), u(0.03, 0.12), u(0.3, 0.5)),       # grey
                   (u(265, 300), u(0.35, 0.65), u(0.25, 0.42)),   # purple
                   (u(28, 42), u(0.35, 0.6), u(0.4, 0.6))][int(rng.integers(4))]  # camel
        cloth_albedo = hsv_bgr(*hsv)
        luminance = 0.114 * cloth_albedo[0] + 0.587 * cloth_albedo[1] + 0.299 * cloth_albedo[2]
        L, W = table.length_mm, table.width_mm
        # lamps along the table: one row over the centre line, or two rows (a wide lamp box)
        if rng.uniform() < 0.6:
            n_along = int(rng.choice([1, 2, 3, 4], p=[0.1, 0.25, 0.4, 0.25]))
            rows = [W / 2]
        else:
            n_along = int(rng.choice([1, 2]))
            rows = [W / 2 - u(0.15, 0.3) * W, W / 2 + u(0.15, 0.3) * W]
        lamp_h = u(850, 1400)
        xs = (np.arange(n_along) + 0.5) / n_along * L * u(0.75, 1.0)
        xs = xs + (L - xs[-1] - xs[0]) / 2
        lamps = tuple((float(x + rng.normal(0, 40)), float(y + rng.normal(0, 50)),
                       float(lamp_h + rng.normal(0, 30))) for x in xs for y in rows)
        n_lamps = len(lamps)
        powers = rng.uniform(0.8, 1.2, n_lamps)
        wood_kind = int(rng.choice(3, p=[0.5, 0.35, 0.15]))
        wood_hsv = [(u(0, 25), u(0.55, 0.85), u(0.15, 0.35)),     # mahogany / red-brown
                    (u(20, 38), u(0.5, 0.8), u(0.25, 0.5)),       # oak / walnut
                    (u(0, 360), u(0.0, 0.1), u(0.05, 0.15))][wood_kind]  # black
        skin = [(0.55, 0.66, 0.86), (0.42, 0.55, 0.75), (0.3, 0.42, 0.6), (0.17, 0.24, 0.36)]
        skin_bgr = np.array(skin[int(rng.integers(len(skin)))]) * u(0.9, 1.1)
        sleeve = hsv_bgr(u(0, 360), u(0.0, 0.7), float(rng.choice([u(0.04, 0.15), u(0.2, 0.8)])))
        ivory = (u(0.72, 0.82), u(0.84, 0.9), u(0.88, 0.93))
        red = (u(0.03, 0.08), u(0.03, 0.08), u(0.55, 0.7))
        yellow = (u(0.02, 0.08), u(0.58, 0.7), u(0.75, 0.85))
        return cls(
            cloth_kind=kind,
            cloth_albedo=cloth_albedo,
            cushion_shade=u(0.95, 1.12),
            rail_albedo=hsv_bgr(*wood_hsv),
            rail_grain=u(0.04, 0.12),
            rail_gloss=u(0.0, 0.25),
            floor_albedo=hsv_bgr(u(0, 360), u(0, 0.3), u(0.05, 0.2)),
            sight_albedo=(u(0.75, 0.9), u(0.8, 0.9), u(0.82, 0.92)),
            rim_albedo=hsv_bgr(u(0, 360), u(0, 0.2), u(0.04, 0.18)),
            lamps=lamps,
            lamp_powers=tuple(float(p) for p in powers / powers.sum()),
            lamp_size_mm=u(150, 450),
            ambient=u(0.15, 0.45),
            gradient=(u(-0.12, 0.12), u(-0.12, 0.12)),
            vignetting=u(0.05, 0.35),
            exposure=min(u(90, 150) / luminance, u(330, 450)),  # auto-exposure, capped
            white_balance=(u(0.9, 1.1), 1.0, u(0.9, 1.12)),
            blur_px=u(0.5, 1.1),
            noise_sigma=u(1.0, 4.0),
            sharpen=float(rng.choice([0.0, u(0.2, 0.8)])),
            flicker=u(0.0, 0.015),
            jpeg_quality=None if rng.uniform() < 0.2 else int(rng.integers(55, 95)),
            cloth_texture=u(0.01, 0.035),
            nose_shadow=u(0.2, 0.5),
            house_line=bool(rng.uniform() < 0.6),
            spots=bool(rng.uniform() < 0.7),
            line_albedo=(0.9, 0.9, 0.9) if rng.uniform() < 0.5 else (0.05, 0.05, 0.05),
            line_strength=u(0.25, 0.7),
            ball_albedo=(("W", ivory), ("R", red), ("Y", yellow)),
            dot_albedo=(0.06, 0.06, 0.08) if rng.uniform() < 0.7 else (0.05, 0.05, 0.45),
            gloss=u(0.6, 1.4),
            skin_albedo=_bgr(np.clip(skin_bgr, 0, 1)),
            sleeve_albedo=sleeve,
            bare_forearm=float(rng.choice([0.0, u(0.2, 0.7)])),
            hair_albedo=hsv_bgr(u(15, 40), u(0.3, 0.7), u(0.03, 0.35)),
            cue_shaft_albedo=(u(0.45, 0.6), u(0.68, 0.8), u(0.8, 0.92)),
            cue_butt_albedo=hsv_bgr(u(0, 30), u(0.3, 0.8), u(0.04, 0.2)),
        )


@dataclass(frozen=True)
class HotSpots:
    """Bright pools of light under low lamps (the hard tier's hot spots).

    Each spot is a Gaussian of ``sigma_mm`` around a point on the cloth, multiplying the light
    there (balls, cloth and rails alike); its strength is set so that the cloth's mean pixel
    luminance inside ``sigma_mm / 2`` of the spots (``region``) is ``ratio`` times its mean over
    the whole cloth. ``amplitude`` (the spots' peak extra gain, never negative: where the lamps
    alone already make the cloth under them brighter than ``ratio``, no spot is added) and
    ``exposure_scale`` (the auto-exposure's answer, which keeps the spots under the camera's
    shoulder) are solved by the first :class:`Renderer` that uses them, which also measures
    ``measured_ratio`` in its empty table (the ratio the picture shows); pass the solved value
    (``Renderer.hot_spots``) to another renderer of the same clip (a bumped camera) so both light
    the room the same way.
    """

    centres_mm: tuple[tuple[float, float], ...]
    sigma_mm: float
    ratio: float
    amplitude: float | None = None
    exposure_scale: float | None = None
    measured_ratio: float | None = None

    def field(self, x: F32, y: F32) -> F32:
        """The spots' shape (0..1, 1 at a centre) at the table points (x, y)."""
        out = np.zeros_like(x)
        k = np.float32(-0.5 / self.sigma_mm ** 2)
        for cx, cy in self.centres_mm:
            d2 = (x - np.float32(cx)) ** 2 + (y - np.float32(cy)) ** 2
            out = np.maximum(out, np.exp(d2 * k))
        return out.astype(np.float32)

    def region(self, x: F32, y: F32) -> NDArray[np.bool_]:
        """The table points within ``sigma_mm / 2`` of a spot's centre (where ``ratio`` holds)."""
        return self.field(x, y) >= np.float32(math.exp(-0.125))


def roll(rot: NDArray[np.float64], dx_mm: float, dy_mm: float,
         radius: float) -> NDArray[np.float64]:
    """The orientation after the ball rolls without slipping by (dx, dy) mm on the cloth.

    Rolling by ``d`` turns the ball by ``|d| / radius`` radians about the horizontal axis
    ``z x d`` (right-handed), applied in the table frame: ``R' = Rot(axis, angle) @ R``.
    """
    d = math.hypot(dx_mm, dy_mm)
    if d == 0.0:
        return np.asarray(rot, dtype=np.float64).copy()
    rvec = np.array([-dy_mm, dx_mm, 0.0]) / radius  # axis * angle
    turn, _ = cv2.Rodrigues(rvec)
    # (the stubs say any number type: float64 in, float64 out)
    return cast(NDArray[np.float64], turn) @ np.asarray(rot, dtype=np.float64)


def finish(frame: NDArray[np.uint8], rng: np.random.Generator, look: Look) -> NDArray[np.uint8]:
    """The camera's own processing: lamp flicker (a global gain), the webcam's sharpening,
    sensor noise (seeded Gaussian, ``look.noise_sigma``) and a JPEG pass at
    ``look.jpeg_quality``; a new array, deterministic for the rng's state.

    Prefer :meth:`Renderer.finish`, which draws the noise from a per-clip bank (faster)."""
    out = _sharpen_and_gain(frame, rng, look)
    noise = rng.standard_normal(frame.shape, dtype=np.float32) * np.float32(look.noise_sigma)
    out = np.clip(out.astype(np.float32) + noise + 0.5, 0, 255).astype(np.uint8)
    return _jpeg(out, look.jpeg_quality)


def _sharpen_and_gain(frame: NDArray[np.uint8], rng: np.random.Generator,
                      look: Look) -> NDArray[np.uint8]:
    gain = 1.0 + look.flicker * float(rng.standard_normal())
    out = frame
    if look.sharpen > 0:  # unsharp masking, as most webcams do (halos around the balls)
        soft = cv2.GaussianBlur(frame, (0, 0), 1.5)
        out = cast(U8, cv2.addWeighted(frame, 1 + look.sharpen, soft, -look.sharpen, 0))
    if gain != 1.0:
        out = cast(U8, cv2.convertScaleAbs(out, alpha=gain))  # (always 8-bit)
    return out


# ================================================================================================
# The renderer
# ================================================================================================
@dataclass
class _Ball:
    ball_id: str
    centre: NDArray[np.float64]  # (3,) table frame
    rot: NDArray[np.float64]
    rect: Rect                   # ball disc (and its smear)
    shadow_rect: Rect            # disc and its shadows
    smear: tuple[float, float]   # image motion (px) during this sub-frame
    scale: float                 # mm per pixel at the ball
    lamp_dirs: NDArray[np.float64]  # (k, 3) unit vectors to the lamps
    lamp_k: NDArray[np.float64]     # (k,) their direct strengths


@dataclass
class _Layer:
    """A rendered overlay: premultiplied colour, coverage, ray depth, cloth shadow in ``rect``."""

    rect: Rect
    colour: F32
    alpha: F32
    depth: F32
    shadow: F32


@dataclass
class _Prim:
    """A capsule (radius r0 at a, r1 at b) or a sphere (a == b) with an albedo."""

    a: NDArray[np.float64]
    b: NDArray[np.float64]
    r0: float
    r1: float
    albedo: BGR
    gloss: float = 0.0
    bands: tuple[tuple[float, BGR], ...] = ()  # (fraction along a->b where a colour starts, albedo)


class Renderer:
    """Renders frames of one clip: the static background is built once at construction.

    ``seed`` fixes the static textures (cloth, wood) and the sensor-noise bank; with the same
    table, camera, look and seed, and the same rng passed to :meth:`finish`, the frames are
    identical bit for bit.
    """

    def __init__(self, table: TableSpec, camera: CameraPose, look: Look,
                 rails: RailSpec | None = None, seed: int = 0,
                 hot_spots: HotSpots | None = None) -> None:
        self.table, self.camera, self.look = table, camera, look
        self.hot_spots = hot_spots
        self.rails = rails or RailSpec()
        self.width, self.height = camera.image_size
        self._cam_c = camera.centre
        self._f = math.sqrt(camera.fx * camera.fy)
        self._ball_alb = dict(look.ball_albedo)
        self._dots = _dot_directions()
        self._cue_cache: dict[object, _Layer] = {}
        self._part_cache: dict[object, _Layer] = {}
        self._lamps = np.array(look.lamps, dtype=np.float64).reshape(-1, 3)
        self._rot = tuple(tuple(float(v) for v in row) for row in camera.R)
        self._trans = tuple(float(v) for v in camera.t)
        self._powers = np.array(look.lamp_powers, dtype=np.float64)
        self._build_background(np.random.default_rng(seed))
        self._noise_seed = seed + 1
        self._noise: tuple[NDArray[np.uint8], NDArray[np.uint8]] | None = None

    # --------------------------------------------------------------------------------------------
    # background
    # --------------------------------------------------------------------------------------------
    def _illum(self, x: F32, y: F32, z: float) -> F32:
        """Irradiance of a horizontal surface at height z (1 = mean over the cloth)."""
        direct = np.zeros_like(x)
        for (lx, ly, lz), p in zip(self._lamps, self._powers, strict=True):
            h = np.float32(lz - z)
            d2 = (x - np.float32(lx)) ** 2 + (y - np.float32(ly)) ** 2 + h * h
            direct += np.float32(p) * (h * h * h) / (d2 * np.sqrt(d2))
        gx, gy = self.look.gradient
        grad = 1 + np.float32(gx) * (x / np.float32(self.table.length_mm) - 0.5) \
            + np.float32(gy) * (y / np.float32(self.table.width_mm) - 0.5)
        amb = np.float32(self.look.ambient)
        norm = np.float32(self._direct_norm)
        return ((amb + (1 - amb) * direct / norm) * grad).astype(np.float32)

    def _lamp_terms(self, p: NDArray[np.float64],
                    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Unit directions (k, 3) from ``p`` to each lamp and their direct strengths (k,) on a
        surface facing them (the cloth's irradiance scale)."""
        v = self._lamps - p
        d = np.linalg.norm(v, axis=1)
        h = self._lamps[:, 2] - p[2]
        k = (1 - self.look.ambient) * self._powers * (h / d) ** 2 / self._direct_norm
        return v / d[:, None], k

    def _build_background(self, rng: np.random.Generator) -> None:
        cam, table, rails, look = self.camera, self.table, self.rails, self.look
        w, h = self.width, self.height
        L, W, r = table.length_mm, table.width_mm, table.ball_radius_mm
        # normalising the lamps: mean direct irradiance over the field = 1
        gx, gy = np.meshgrid(np.linspace(0, L, 41), np.linspace(0, W, 21))
        direct = sum(p * (lz + r) ** 3 / ((gx - lx) ** 2 + (gy - ly) ** 2 + (lz + r) ** 2) ** 1.5
                     for (lx, ly, lz), p in zip(self._lamps, self._powers, strict=True))
        self._direct_norm = float(np.mean(direct))

        # rays of every pixel
        # (the lens is inverted exactly on a 4-pixel grid and interpolated bilinearly: the
        # distortion is smooth, the error is ~1e-3 px)
        uu, vv = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
        step = 4
        gu, gv = np.meshgrid(np.arange(0, w + step, step, dtype=np.float64),
                             np.arange(0, h + step, step, dtype=np.float64))
        grid = cam.normalised(np.stack([gu.ravel(), gv.ravel()], axis=1))
        grid = grid.reshape(gu.shape[0], gu.shape[1], 2).astype(np.float32)
        n = cv2.remap(grid, uu / np.float32(step), vv / np.float32(step), cv2.INTER_LINEAR)
        nx, ny = n[..., 0], n[..., 1]
        rot = cam.R.astype(np.float32)
        comps = [nx * rot[0, j] + ny * rot[1, j] + rot[2, j] for j in range(3)]
        inv = 1 / np.sqrt(comps[0] * comps[0] + comps[1] * comps[1] + comps[2] * comps[2])
        self._ray_planes: list[F32] = [np.ascontiguousarray(comp * inv) for comp in comps]
        self._rays = cast(F32, cv2.merge(self._ray_planes))  # (float32 planes)
        d = self._rays.reshape(-1, 3)
        c = self._cam_c

        def plane(z: float) -> tuple[F32, F32]:
            s = np.float32(z - c[2]) / d[:, 2]
            return ((np.float32(c[0]) + s * d[:, 0]).reshape(h, w),
                    (np.float32(c[1]) + s * d[:, 1]).reshape(h, w))

        xc, yc = plane(-r)
        xt, yt = plane(rails.top_z_mm)
        self._cloth_x, self._cloth_y = xc, yc
        px = _px_size(xc, yc)
        self._px_mm = px
        inv_px = (1.0 / px).astype(np.float32)

        def soft(sd: F32, sl: tuple[slice, slice] | None = None) -> F32:
            """Signed distance (mm, > 0 inside) -> antialiased coverage."""
            scale = inv_px if sl is None else inv_px[sl]
            cover: F32 = np.clip(sd * scale + np.float32(0.5), 0, 1).astype(np.float32)
            return cover

        # --- cloth (z = -r) ---------------------------------------------------------------------
        e_cloth = self._illum(xc, yc, -r)
        fine = _noise_at(rng, xc, yc, 3.0, 0.6, L, W)
        coarse = _noise_at(rng, xc, yc, 40.0, 3.0, L, W)
        tex = np.float32(look.cloth_texture) * (fine + 0.5 * coarse)
        nose_d = np.minimum(np.minimum(xc, L - xc), np.minimum(yc, W - yc))
        nose_sh = np.float32(look.nose_shadow) * np.exp(-np.maximum(nose_d, 0) / np.float32(14.0))
        shade = e_cloth * (1 + tex) * (1 - nose_sh)
        cloth = _tint(look.cloth_albedo, shade)
        if look.house_line:
            x0 = table.house_line_x
            line = soft(np.float32(1.2) - np.abs(xc - np.float32(x0))) \
                * np.float32(look.line_strength)
            line *= soft(np.minimum(yc, W - yc))
            cloth = _over(cloth, _tint(look.line_albedo, e_cloth), line)
        if look.spots:
            for spot in (Spot.POINT1, Spot.POINT2, Spot.POINT3):
                sx, sy = table.spot_xy(spot)
                sl = self._window(sx, sy, 12.0, -r)
                if sl is None:
                    continue
                dist = np.hypot(xc[sl] - np.float32(sx), yc[sl] - np.float32(sy))
                cloth[sl] = _over(cloth[sl], _tint(look.line_albedo, e_cloth[sl]),
                                  soft(5.0 - dist, sl) * np.float32(look.line_strength))
        # pocket holes (vertical walls: the same circles at both heights)
        holes = [self._hole(p) for p in Pocket]
        hole_sd = np.full_like(xc, -1e9)
        hole_depth = np.zeros_like(xc)
        for (hx, hy, hr) in holes:
            sl = self._window(hx, hy, hr + 200.0, -r)
            if sl is None:
                continue
            dist = np.hypot(xc[sl] - np.float32(hx), yc[sl] - np.float32(hy))
            hole_sd[sl] = np.maximum(hole_sd[sl], np.float32(hr) - dist)
            hole_depth[sl] = np.maximum(hole_depth[sl], np.clip(1 - dist / np.float32(hr), 0, 1))
        a_hole = soft(hole_sd)
        hole_col = _tint((0.03, 0.03, 0.035), e_cloth * (0.6 + 0.6 * (1 - hole_depth)))
        # the throat floor near a hole lies in the cushions' shadow
        near_hole = np.exp(-np.maximum(-hole_sd, 0) / np.float32(25.0)) * (1 - a_hole)
        cloth = cloth * (1 - 0.35 * near_hole)[..., None]
        view = _over(cloth, hole_col, a_hole)

        # --- rails and cushions (z = top) -----------------------------------------------------
        cw, ow = rails.cushion_mm, rails.outer_mm
        e_top = self._illum(xt, yt, rails.top_z_mm)
        sd_field = _rect_sd(xt, yt, 0, L, 0, W)
        sd_cush = _rect_sd(xt, yt, -cw, L + cw, -cw, W + cw)
        sd_outer = _rect_sd(xt, yt, -ow, L + ow, -ow, W + ow)
        inside_nose = -sd_field  # distance outside the field = from the nose into the cushion
        cushion_shade = np.float32(look.cushion_shade) * e_top * (1 + tex) * (
            1 + 0.25 * np.exp(-np.maximum(inside_nose, 0) / np.float32(5.0))
            - 0.3 * np.exp(-np.maximum(-sd_cush, 0) / np.float32(3.0)))
        cushion = _tint(look.cloth_albedo, cushion_shade)
        # wood: grain along each rail, a rounded top that catches the light, a dark outer edge
        long_rail = np.minimum(yt, W - yt) < np.minimum(xt, L - xt)
        along = np.where(long_rail, xt, yt)
        across = np.where(long_rail, yt, xt)
        grain = _grain(rng, along, across)
        depth = np.clip((-sd_cush) / np.float32(rails.wood_mm), 0, 1)  # 0 at cushion, 1 at edge
        profile = 1.0 + np.float32(look.rail_gloss) * np.exp(-((depth - 0.45) / 0.2) ** 2) \
            - 0.45 * np.clip((depth - 0.85) / 0.15, 0, 1)
        wood = _tint(look.rail_albedo, e_top * (1 + np.float32(look.rail_grain) * grain) * profile)
        sights = np.full_like(xt, -1e9)
        for sx, sy in self._sights():
            sl = self._window(sx, sy, rails.sight_diameter_mm, rails.top_z_mm)
            if sl is None:
                continue
            sights[sl] = np.maximum(sights[sl], np.float32(rails.sight_diameter_mm / 2)
                                    - np.hypot(xt[sl] - np.float32(sx), yt[sl] - np.float32(sy)))
        wood = _over(wood, _tint(look.sight_albedo, e_top * np.float32(1.1)), soft(sights))
        top = _over(wood, cushion, soft(sd_cush))
        # pocket cuts, with a dark liner rim around each hole on the rail
        sd_cut = np.full_like(xt, -1e9)
        sd_rim = np.full_like(xt, -1e9)
        for pocket, (hx, hy, hr) in zip(Pocket, holes, strict=True):
            sl = self._window(hx, hy, hr + 120.0, rails.top_z_mm)
            if sl is None:
                continue
            dist = np.hypot(xt[sl] - np.float32(hx), yt[sl] - np.float32(hy))
            sd_cut[sl] = np.maximum(sd_cut[sl], np.maximum(
                np.float32(hr) - dist, self._throat_sd(pocket, xt[sl], yt[sl])))
            sd_rim[sl] = np.maximum(sd_rim[sl], np.float32(hr + 14.0) - dist)
        rim = _tint(look.rim_albedo,
                    e_top * (1 + 0.5 * np.exp(-np.maximum(sd_rim, 0) / np.float32(4.0))))
        top = _over(top, rim, soft(sd_rim))
        floor = _tint(look.floor_albedo, (0.35 + 0.04 * coarse) * np.ones_like(xt))
        img = _over(floor, top, soft(sd_outer))
        a_open = soft(np.maximum(sd_field, sd_cut))
        img = _over(img, view, a_open)

        # --- camera ------------------------------------------------------------------------------
        rr = ((uu - cam.cx) ** 2 + (vv - cam.cy) ** 2) / (cam.cx ** 2 + cam.cy ** 2)
        vig = (1 - look.vignetting * rr * (1 + 0.3 * rr)).astype(np.float32)
        self._gain: F32 = vig[..., None] * np.array(look.white_balance, np.float32) \
            * np.float32(look.exposure)
        if self.hot_spots is not None:
            self._gain = self._gain * self._hot_gain(img, xc, yc, a_open * (1 - a_hole))
        img = _tone(img * self._gain)
        if look.blur_px > 0:
            img = cast(F32, cv2.GaussianBlur(img, (0, 0), look.blur_px))
        self._bg = img
        self._bg_u8: U8 = np.clip(img + 0.5, 0, 255).astype(np.uint8)
        self._cloth_w = (a_open * (1 - a_hole)).astype(np.float32)
        if self.hot_spots is not None and self.hot_spots.measured_ratio is None:
            lum = self._bg_u8.astype(np.float32) @ np.array([0.114, 0.587, 0.299], np.float32)
            on_cloth = self._cloth_w > 0.99
            inside = on_cloth & self.hot_spots.region(xc, yc)
            self.hot_spots = replace(self.hot_spots, measured_ratio=round(
                float(lum[inside].mean() / lum[on_cloth].mean()), 4))

    def _hot_gain(self, img: F32, xc: F32, yc: F32, cloth_w: F32) -> F32:
        """The hot spots' gain (h, w, 1), their amplitude and exposure solved when not given
        (``self.hot_spots`` then holds the solved values)."""
        spots = self.hot_spots
        assert spots is not None  # (called only with hot spots)
        shape = spots.field(xc, yc)
        amplitude, scale = spots.amplitude, spots.exposure_scale
        if amplitude is None or scale is None:
            # the cloth's pixel luminance without the spots is linear in the gain: the mean
            # over the spots and over the cloth are linear in the amplitude, so the ratio is
            # met in closed form
            lum_w = np.array([0.114, 0.587, 0.299], np.float32)
            lum = (img * self._gain) @ lum_w
            cloth = cloth_w > 0.99
            inside = cloth & spots.region(xc, yc)
            if not inside.any():
                raise ValueError("expected the hot spots over the cloth in view")
            nc, ncs = float(lum[cloth].mean()), float((lum * shape)[cloth].mean())
            ns, nss = float(lum[inside].mean()), float((lum * shape)[inside].mean())
            amplitude = max((spots.ratio * nc - ns) / max(nss - spots.ratio * ncs, 1e-9), 0.0)
            # auto-exposure: the brightest cloth in the spots stays on the linear part
            lit = (img * self._gain * (1 + np.float32(amplitude) * shape)[..., None])[inside]
            scale = min(1.0, 190.0 / max(float(np.percentile(lit, 99.5)), 1e-6))
            spots = HotSpots(spots.centres_mm, spots.sigma_mm, spots.ratio, float(amplitude),
                             float(scale))
            self.hot_spots = spots
        gain: F32 = ((1 + np.float32(amplitude) * shape) * np.float32(scale))[..., None]
        return gain

    def _window(self, x_mm: float, y_mm: float, half_mm: float,
                z_mm: float) -> tuple[slice, slice] | None:
        """Image rows and columns that see the square of half-size ``half_mm`` around a table
        point at height ``z_mm`` (for drawing small features without touching every pixel);
        None when it is out of the image."""
        pts = [[x_mm + dx * half_mm, y_mm + dy * half_mm, z_mm] for dx in (-1, 0, 1)
               for dy in (-1, 0, 1)]
        x0, y0, x1, y1 = self._rect(self.camera.project(pts), 3.0)
        if x1 <= x0 or y1 <= y0:
            return None
        return slice(y0, y1), slice(x0, x1)

    def _hole(self, pocket: Pocket) -> tuple[float, float, float]:
        """A pocket's drop hole: centre (x, y) and radius, mm (same at cloth and rail height)."""
        x, y = self.table.pocket_xy(pocket)
        m = self.table.pocket_mouth_mm(pocket)
        sx = 1.0 if x > 0 else -1.0
        sy = 1.0 if y > 0 else -1.0
        if pocket.is_middle:
            hr = 0.66 * m
            return x, y + sy * (hr + 4.0), hr
        hr = 0.74 * m
        off = hr - m / 2 - 3.0  # innermost point just behind the mouth line
        return x + sx * off / math.sqrt(2), y + sy * off / math.sqrt(2), hr

    def _throat_sd(self, pocket: Pocket, x: F32, y: F32) -> F32:
        """Signed distance (> 0 inside) of the gap between a pocket's jaws at rail height."""
        px, py = self.table.pocket_xy(pocket)
        m = self.table.pocket_mouth_mm(pocket)
        flare = np.float32(math.tan(math.radians(12.0)))
        hx, hy, _ = self._hole(pocket)
        if pocket.is_middle:
            out = (np.float32(py) - y) * np.float32(1.0 if py == 0 else -1.0)  # into the rail
            width = np.float32(m / 2) + flare * np.maximum(out, 0)
            depth = abs(hy - py)
            sd: F32 = np.minimum(width - np.abs(x - np.float32(px)),
                                 np.minimum(out + 1.0, np.float32(depth) - out))
            return sd
        sx = 1.0 if px > 0 else -1.0
        sy = 1.0 if py > 0 else -1.0
        # u: along the diagonal into the field from the corner; v: across it
        u = ((x - np.float32(px)) * np.float32(-sx) + (y - np.float32(py)) * np.float32(-sy)) \
            / np.float32(math.sqrt(2))
        v = ((x - np.float32(px)) * np.float32(-sx) - (y - np.float32(py)) * np.float32(-sy)) \
            / np.float32(math.sqrt(2))
        mouth_u = np.float32(m / 2)
        hu = -((hx - px) * -sx + (hy - py) * -sy) / math.sqrt(2)
        width = np.float32(m / 2) + flare * np.maximum(mouth_u - u, 0)
        corner_sd: F32 = np.minimum(width - np.abs(v),
                                    np.minimum(mouth_u + 1.0 - u, u + np.float32(hu)))
        return corner_sd

    def _sights(self) -> list[tuple[float, float]]:
        L, W = self.table.length_mm, self.table.width_mm
        off = self.rails.cushion_mm + self.rails.wood_mm * 0.45
        pts = []
        for k in (1, 2, 3, 5, 6, 7):
            pts += [(k * L / 8, -off), (k * L / 8, W + off)]
        for k in (1, 2, 3):
            pts += [(-off, k * W / 4), (L + off, k * W / 4)]
        return pts

    def _build_noise(self, rng: np.random.Generator,
                     ) -> tuple[NDArray[np.uint8], NDArray[np.uint8]]:
        """A bank of Gaussian sensor noise, larger than the image, as its positive and negative
        parts (uint8, for saturating adds)."""
        pad = 64
        n = rng.standard_normal((self.height + pad, self.width + pad, 3), dtype=np.float32)
        n = np.clip(np.rint(n * np.float32(self.look.noise_sigma)), -127, 127)
        return np.maximum(n, 0).astype(np.uint8), np.maximum(-n, 0).astype(np.uint8)

    # --------------------------------------------------------------------------------------------
    # public
    # --------------------------------------------------------------------------------------------
    @property
    def background(self) -> NDArray[np.uint8]:
        """The empty table (no balls, no player, no noise) as BGR uint8."""
        return self._bg_u8.copy()

    def finish(self, frame: NDArray[np.uint8], rng: np.random.Generator) -> NDArray[np.uint8]:
        """Sensor noise and the look's JPEG pass; deterministic for the rng's state.

        As :func:`finish` (flicker, sharpening, noise, JPEG), but the noise comes from a
        per-clip bank of Gaussian noise (sigma ``look.noise_sigma``) at an rng-drawn offset
        and sign, so it costs about a millisecond instead of ~80."""
        frame = _sharpen_and_gain(frame, rng, self.look)
        if self._noise is None:
            self._noise = self._build_noise(np.random.default_rng(self._noise_seed))
        bank_pos, bank_neg = self._noise
        pad = bank_pos.shape[0] - self.height
        oy, ox = (int(v) for v in rng.integers(0, pad, 2))
        flip = bool(rng.integers(2))
        pos = bank_pos[oy:oy + self.height, ox:ox + self.width]
        neg = bank_neg[oy:oy + self.height, ox:ox + self.width]
        if flip:
            pos, neg = neg, pos
        out = cast(U8, cv2.subtract(cv2.add(frame, pos), neg))  # (8-bit, saturated)
        return _jpeg(out, self.look.jpeg_quality)

    def project_ball(self, x_mm: float, y_mm: float) -> tuple[float, float]:
        """Pixel of a ball centre (the point every label and test compares with)."""
        u, v = self.camera.project([[x_mm, y_mm, 0.0]])[0]
        return float(u), float(v)

    def render_frame(self, samples: Sequence[Mapping[str, BallPose]],
                     cue: CueState | Sequence[CueState | None] | None = None,
                     rng: np.random.Generator | None = None,
                     ) -> tuple[NDArray[np.uint8], dict[str, bool]]:
        """One frame: the balls of each sub-frame sample (one sample = a still frame; several =
        motion blur over the exposure), the cue/player (one state, or one per sample), and,
        when ``rng`` is given, :meth:`finish`. Returns the BGR image and, for every ball in any
        sample, whether it is visible (False when the cue or the player covers more than half
        of its disc, averaged over the sub-frames)."""
        if not samples:
            raise ValueError("expected at least one sub-frame sample")
        n = len(samples)
        cues = list(cue) if isinstance(cue, Sequence) else [cue] * n
        if len(cues) != n:
            raise ValueError(f"expected {n} cue states (one per sample), got {len(cues)}")
        out = self._bg_u8.copy()
        # balls: independent regions (overlapping tracks merged), each averaged over sub-frames
        smears = self._smears(samples)
        per_sample = [{b: self._ball(b, p, smears[i].get(b, (0.0, 0.0))) for b, p in s.items()}
                      for i, s in enumerate(samples)]
        tracks: dict[str, Rect] = {}
        for balls in per_sample:
            for b in balls.values():
                tracks[b.ball_id] = _union(tracks.get(b.ball_id), b.shadow_rect)
        for rect, cluster in _clusters(tracks):
            x0, y0, x1, y1 = rect
            sub = [{b: s[b] for b in cluster if b in s} for s in samples]
            if all(_same_state(sub[0], other) for other in sub[1:]):
                seq = [[per_sample[0][b] for b in sub[0]]]
            else:
                seq = [[per_sample[i][b] for b in st] for i, st in enumerate(sub)]
            # the background is the same in every sub-frame, so the average of the sub-frame
            # composites is bg * mean(visible background) + mean(ball colour)
            keep = np.zeros((y1 - y0, x1 - x0), np.float32)
            colour = np.zeros((y1 - y0, x1 - x0, 3), np.float32)
            for group in seq:
                self._compose(rect, group, keep, colour)
            k = np.float32(1.0 / len(seq))
            if self.look.blur_px > 0:
                keep = cast(F32, cv2.GaussianBlur(keep, (0, 0), self.look.blur_px))
                colour = cast(F32, cv2.GaussianBlur(colour, (0, 0), self.look.blur_px))
            patch = self._bg[y0:y1, x0:x1] * (keep * k)[..., None] + colour * k
            out[y0:y1, x0:x1] = np.clip(patch + np.float32(0.5), 0, 255).astype(np.uint8)
        # the cue and the player, averaged over the sub-frames (each distinct state cached)
        ids = list(tracks)
        covered = dict.fromkeys(ids, 0.0)
        present = dict.fromkeys(ids, 0)
        for balls in per_sample:
            for ball_id in balls:
                present[ball_id] += 1
        layers = [None if c is None or not c.visible else self._cue_layer(c) for c in cues]
        drawn = [lay for lay in layers if lay is not None]
        if drawn:
            rect = drawn[0].rect
            for other in drawn[1:]:
                rect = _union(rect, other.rect)
            x0, y0, x1, y1 = rect
            shadow = np.zeros((y1 - y0, x1 - x0), np.float32)
            colour = np.zeros((y1 - y0, x1 - x0, 3), np.float32)
            alpha = np.zeros((y1 - y0, x1 - x0), np.float32)
            for lay, balls in zip(layers, per_sample, strict=True):
                if lay is None:
                    continue
                lx0, ly0, lx1, ly1 = lay.rect
                sl = (slice(ly0 - y0, ly1 - y0), slice(lx0 - x0, lx1 - x0))
                colour[sl] += lay.colour
                alpha[sl] += lay.alpha
                shadow[sl] += lay.shadow
                for b in balls.values():
                    covered[b.ball_id] += self._coverage(b, lay.rect, lay.alpha)
            k = np.float32(1.0 / n)
            patch = out[y0:y1, x0:x1].astype(np.float32) * (1 - shadow * k)[..., None]
            patch = patch * (1 - alpha * k)[..., None] + colour * k
            out[y0:y1, x0:x1] = np.clip(patch + 0.5, 0, 255).astype(np.uint8)
        visible = {b: covered[b] <= 0.5 * present[b] for b in ids}
        if rng is not None:
            out = self.finish(out, rng)
        return out, visible

    def _smears(self, samples: Sequence[Mapping[str, BallPose]],
                ) -> list[dict[str, tuple[float, float]]]:
        """Each ball's image motion (px) during each sub-frame: the sub-frames split the
        exposure into equal slices, and each is smeared along its slice of the motion, so a
        fast ball leaves a continuous streak instead of separate ghosts."""
        out: list[dict[str, tuple[float, float]]] = [{} for _ in samples]
        if len(samples) < 2:
            return out
        uv = [{b: np.array(self._px(p.x_mm, p.y_mm, 0.0)[:2]) for b, p in s.items()}
              for s in samples]
        for i, cur in enumerate(uv):
            for b, here in cur.items():
                prev = uv[i - 1].get(b) if i > 0 else None
                nxt = uv[i + 1].get(b) if i + 1 < len(uv) else None
                if prev is not None and nxt is not None:
                    v = (nxt - prev) / 2
                elif nxt is not None:
                    v = nxt - here
                elif prev is not None:
                    v = here - prev
                else:
                    continue
                out[i][b] = (float(v[0]), float(v[1]))
        return out

    # --------------------------------------------------------------------------------------------
    # balls
    # --------------------------------------------------------------------------------------------
    def _ball(self, ball_id: str, pose: BallPose,
              smear: tuple[float, float] = (0.0, 0.0)) -> _Ball:
        r = self.table.ball_radius_mm
        centre = np.array([pose.x_mm, pose.y_mm, 0.0])
        u, v, depth = self._px(pose.x_mm, pose.y_mm, 0.0)
        scale = depth / self._f
        # the disc, with room for the perspective elongation toward the image corners and blur
        half = 1.3 * r / scale + 2.0 + 2.0 * self.look.blur_px
        hx, hy = half + abs(smear[0]) / 2 + 1, half + abs(smear[1]) / 2 + 1
        rect = self._box(u - hx, v - hy, u + hx, v + hy)
        # shadows: up to a lamp's offset plus the penumbra beyond the disc
        dirs, k = self._lamp_terms(centre)
        reach = float(np.max(np.hypot(dirs[:, 0], dirs[:, 1]) / dirs[:, 2])) * r
        spread = (1.7 * r + reach + self.look.lamp_size_mm * r / 900.0) / scale + 3.0
        sh = self._box(u - spread, v - spread, u + spread, v + spread)
        return _Ball(ball_id, centre, np.asarray(pose.rot, np.float64), rect, _union(rect, sh),
                     smear, scale, dirs, k)

    def _px(self, x: float, y: float, z: float) -> tuple[float, float, float]:
        """One table point -> distorted pixel (u, v) and its depth along the optical axis (mm);
        plain floats (faster than :meth:`CameraPose.project` for a single point)."""
        (r00, r01, r02), (r10, r11, r12), (r20, r21, r22) = self._rot
        t0, t1, t2 = self._trans
        xc = r00 * x + r01 * y + r02 * z + t0
        yc = r10 * x + r11 * y + r12 * z + t1
        zc = r20 * x + r21 * y + r22 * z + t2
        nx, ny = xc / zc, yc / zc
        r2 = nx * nx + ny * ny
        k = 1.0 + r2 * (self.camera.k1 + r2 * self.camera.k2)
        cam = self.camera
        return cam.fx * nx * k + cam.cx, cam.fy * ny * k + cam.cy, zc

    def _box(self, x0: float, y0: float, x1: float, y1: float) -> Rect:
        """Pixel rectangle covering [x0, x1] x [y0, y1], clipped to the image."""
        ix0 = min(max(math.floor(x0), 0), self.width)
        iy0 = min(max(math.floor(y0), 0), self.height)
        ix1 = min(max(math.ceil(x1) + 1, ix0), self.width)
        iy1 = min(max(math.ceil(y1) + 1, iy0), self.height)
        return (ix0, iy0, max(ix1, ix0), max(iy1, iy0))

    def _rect(self, uv: NDArray[np.float64], pad: float) -> Rect:
        x0 = min(max(math.floor(uv[:, 0].min() - pad), 0), self.width)
        y0 = min(max(math.floor(uv[:, 1].min() - pad), 0), self.height)
        x1 = min(math.ceil(uv[:, 0].max() + pad) + 1, self.width)
        y1 = min(math.ceil(uv[:, 1].max() + pad) + 1, self.height)
        return (x0, y0, max(x1, x0), max(y1, y0))

    def _compose(self, rect: Rect, balls: list[_Ball], keep: F32, colour_acc: F32) -> None:
        """Add one sub-frame of the balls in ``rect`` to the accumulators: ``keep`` gets how
        much of the background stays visible (not shadowed, not covered), ``colour_acc`` the
        balls' premultiplied colour."""
        x0, y0, x1, y1 = rect
        light = np.ones(keep.shape, np.float32)
        if not balls:
            keep += light
            return
        r = self.table.ball_radius_mm
        amb = self.look.ambient
        pen = 2.0 + self.look.lamp_size_mm * r / (float(np.mean(self._lamps[:, 2])) + r)
        for b in balls:
            e = float(amb + b.lamp_k.sum())
            bx, by = float(b.centre[0]), float(b.centre[1])
            # one soft ellipse per lamp (the sphere's shadow, stretched away from the lamp) and
            # a contact shadow of the ambient light around the point under the ball
            terms = [(-dv[0] * r / dv[2], -dv[1] * r / dv[2], float(dv[2]), ki / e, True)
                     for dv, ki in zip(b.lamp_dirs, b.lamp_k, strict=True)]
            terms.append((0.0, 0.0, 1.0, 0.85 * amb / e, False))
            for ox, oy, cos_t, weight, lamp in terms:
                reach = ((r / cos_t + pen * 2) if lamp else 1.6 * r) / b.scale + 2.0
                fu, fv, _ = self._px(bx + ox, by + oy, -r)
                sx0, sy0, sx1, sy1 = self._box(max(fu - reach, x0), max(fv - reach, y0),
                                               min(fu + reach, x1 - 1), min(fv + reach, y1 - 1))
                if sx1 <= sx0 or sy1 <= sy0:
                    continue
                sl = (slice(sy0 - y0, sy1 - y0), slice(sx0 - x0, sx1 - x0))
                ex = self._cloth_x[sy0:sy1, sx0:sx1] - np.float32(bx + ox)
                ey = self._cloth_y[sy0:sy1, sx0:sx1] - np.float32(by + oy)
                if lamp:
                    hyp = math.hypot(ox, oy)
                    hx, hy = (ox / hyp, oy / hyp) if hyp > 1e-9 else (1.0, 0.0)
                    along = (ex * np.float32(hx) + ey * np.float32(hy)) * np.float32(cos_t)
                    perp = ey * np.float32(hx) - ex * np.float32(hy)
                    dist = np.sqrt(along * along + perp * perp)
                    occ = np.clip((np.float32(r) - dist) * np.float32(1 / pen) + np.float32(0.5),
                                  0, 1) * np.float32(weight)
                else:
                    occ = np.exp((ex * ex + ey * ey) * np.float32(-1 / (0.75 * r) ** 2)) \
                        * np.float32(weight)
                light[sl] *= 1 - occ
        light = 1 - (1 - np.maximum(light, np.float32(0.03))) * self._cloth_w[y0:y1, x0:x1]
        # balls: farther from the camera first
        colour = np.zeros((y1 - y0, x1 - x0, 3), np.float32)
        alpha = np.zeros((y1 - y0, x1 - x0), np.float32)
        for b in sorted(balls, key=lambda b: -float(np.sum((b.centre - self._cam_c) ** 2))):
            bx0, by0, bx1, by1 = b.rect
            if bx1 <= bx0 or by1 <= by0:
                continue
            c, a = self._shade_ball(b)
            if math.hypot(*b.smear) > 0.25:
                kernel = _line_kernel(*b.smear)
                c = cast(F32, cv2.filter2D(c, -1, kernel, borderType=cv2.BORDER_CONSTANT))
                a = cast(F32, cv2.filter2D(a, -1, kernel, borderType=cv2.BORDER_CONSTANT))
            sl = (slice(by0 - y0, by1 - y0), slice(bx0 - x0, bx1 - x0))
            colour[sl] = c + colour[sl] * (1 - a)[..., None]
            alpha[sl] = a + alpha[sl] * (1 - a)
        keep += light * (1 - alpha)
        colour_acc += colour

    def _shade_ball(self, b: _Ball) -> tuple[F32, F32]:
        """Premultiplied colour and coverage of one ball inside ``b.rect``: each pixel's ray
        meets the sphere (exact outline under perspective and distortion), then hemisphere
        ambient, cloth bounce, Lambert and two gloss lobes per lamp; the markings are looked
        up in the ball's own frame. Works on separate x/y/z planes (fast for small patches)."""
        x0, y0, x1, y1 = b.rect
        dx, dy, dz = (p[y0:y1, x0:x1] for p in self._ray_planes)
        r = float(self.table.ball_radius_mm)
        wx, wy, wz = (float(v) for v in b.centre - self._cam_c)
        ww = wx * wx + wy * wy + wz * wz
        dist = math.sqrt(ww)
        proj = dx * np.float32(wx) + dy * np.float32(wy) + dz * np.float32(wz)
        perp2 = np.float32(ww) - proj * proj
        alpha = np.clip((np.float32(r) - np.sqrt(np.maximum(perp2, 0)))
                        * np.float32(self._f / dist) + np.float32(0.5), 0, 1)
        t = proj - np.sqrt(np.maximum(np.float32(r * r) - perp2, 0))
        inv_r = np.float32(1 / r)
        nx = (dx * t - np.float32(wx)) * inv_r
        ny = (dy * t - np.float32(wy)) * inv_r
        nz = (dz * t - np.float32(wz)) * inv_r
        # albedo, with the markings
        base = self._ball_alb[b.ball_id[0]]
        alb: list[F32 | float] = list(base)
        dots = self._dots.get(b.ball_id)
        if dots is not None:
            m = b.rot  # body -> table: body coordinates of n are n @ m
            bxp = nx * np.float32(m[0, 0]) + ny * np.float32(m[1, 0]) + nz * np.float32(m[2, 0])
            byp = nx * np.float32(m[0, 1]) + ny * np.float32(m[1, 1]) + nz * np.float32(m[2, 1])
            bzp = nx * np.float32(m[0, 2]) + ny * np.float32(m[1, 2]) + nz * np.float32(m[2, 2])
            cosang = None
            for ddx, ddy, ddz in dots:
                c = bxp * ddx + byp * ddy + bzp * ddz
                cosang = c if cosang is None else np.maximum(cosang, c)
            assert cosang is not None  # (a marked ball has two or four dots)
            ang = _DOT_DIAMETER_MM / 2 / r
            edge = math.sin(ang) * dist / self._f / r  # one pixel, in cosine units
            a_dot = np.clip((cosang - np.float32(math.cos(ang))) * np.float32(1 / edge)
                            + np.float32(0.5), 0, 1)
            alb = [np.float32(bc) + np.float32(dc - bc) * a_dot
                   for bc, dc in zip(base, self.look.dot_albedo, strict=True)]
        # light
        amb = np.float32(self.look.ambient)
        diffuse = amb * (np.float32(0.55) + np.float32(0.45) * nz)
        spec = np.zeros_like(nz)
        view = -np.array([wx, wy, wz]) / dist
        for dv, ki in zip(b.lamp_dirs, b.lamp_k, strict=True):
            lx, ly, lz = (np.float32(v) for v in dv)
            diffuse += np.float32(ki) * np.maximum(nx * lx + ny * ly + nz * lz, 0)
            hv = view + dv
            hx, hy, hz = (np.float32(v) for v in hv / np.linalg.norm(hv))
            nh = np.clip(nx * hx + ny * hy + nz * hz, 0, 1)  # |n| > 1 outside the disc
            n3 = nh * nh * nh
            n12 = n3 * n3
            n12 = n12 * n12
            sharp = n12 * n12  # n^24 ... n^384: the lamp's own reflection, a few mm across
            for _ in range(4):
                sharp = sharp * sharp
            spec += np.float32(ki) * (np.float32(2.5) * sharp + np.float32(0.08) * n12)
        spec *= np.float32(self.look.gloss)
        bounce_w = np.clip(np.float32(0.5) - np.float32(0.5) * nz, 0, 1) * (amb * np.float32(0.9))
        planes = [a * (diffuse + np.float32(cc) * bounce_w) + spec
                  for a, cc in zip(alb, self.look.cloth_albedo, strict=True)]
        col = _tone(cv2.merge(planes) * self._gain[y0:y1, x0:x1])
        return col * alpha[..., None], alpha

    # --------------------------------------------------------------------------------------------
    # cue and player
    # --------------------------------------------------------------------------------------------
    def _bridge(self, cue: CueState) -> NDArray[np.float64]:
        """Where the bridge hand rests on the cloth (table frame, z on the cloth)."""
        ca, sa = math.cos(cue.direction_rad), math.sin(cue.direction_rad)
        if cue.bridge_xy_mm is not None:
            x, y = cue.bridge_xy_mm
        else:
            x, y = cue.tip_xy_mm[0] - 230.0 * ca, cue.tip_xy_mm[1] - 230.0 * sa
        return np.array([x, y, -self.table.ball_radius_mm])

    def _prims(self, cue: CueState) -> tuple[list[_Prim], list[_Prim]]:
        """The cue stick with the hand and arm that move it, and the rest of the player."""
        look = self.look
        ca, sa = math.cos(cue.direction_rad), math.sin(cue.direction_rad)
        fwd = np.array([ca, sa, 0.0])
        left = np.array([-sa, ca, 0.0]) * (1 if cue.side >= 0 else -1)
        up = np.array([0.0, 0.0, 1.0])
        tip = np.array([*cue.tip_xy_mm, 0.0])
        length = 1450.0
        butt = tip - fwd * length + up * 190.0
        stick = [_Prim(tip + up * 4.0, butt, 6.0, 15.0, look.cue_shaft_albedo, gloss=0.5, bands=(
            (0.0, (0.45, 0.3, 0.15)), (0.008, (0.92, 0.93, 0.94)), (0.025, look.cue_shaft_albedo),
            (0.55, (0.1, 0.12, 0.2)), (0.57, look.cue_butt_albedo), (0.75, (0.08, 0.08, 0.08)),
            (0.95, look.cue_butt_albedo)))]
        if not cue.player:
            return stick, []
        skin, sleeve = look.skin_albedo, look.sleeve_albedo
        bridge = self._bridge(cue)
        # The player stands where the cue line leaves the table and leans in: the shoulders are
        # behind the bridge, over the rail when it can be reached, over the cloth otherwise.
        exit_mm = self._exit_distance(bridge, -fwd)
        reach = min(max(exit_mm + 120.0, 380.0), 900.0)
        lean = 1.0 if exit_mm < 700.0 else 0.8
        chest = bridge - fwd * reach + up * (560.0 * lean)
        shoulder_b = chest + left * 165.0
        shoulder_c = chest - left * 165.0
        torso = [_Prim(shoulder_b, shoulder_c, 85.0, 85.0, sleeve),
                 _Prim(chest - fwd * 60.0, chest - fwd * 380.0 - up * 60.0, 150.0, 140.0,
                       sleeve)]
        head = chest + fwd * 110.0 + up * 50.0
        # the back hand holds the butt near the hip; its arm hangs from the shoulder
        grip_mm = min(1400.0, float(np.linalg.norm(tip - bridge)) + reach + 320.0)
        grip = tip - fwd * grip_mm + up * (190.0 * grip_mm / length) - left * 10.0
        back_elbow = grip + up * 330.0 - left * 90.0 + fwd * 40.0
        stick += [_Prim(grip, grip + up * 35.0 - fwd * 25.0, 46.0, 44.0, skin),
                  _Prim(grip + up * 35.0, back_elbow, 38.0, 46.0, sleeve),
                  _Prim(back_elbow, shoulder_c, 50.0, 58.0, sleeve)]
        # the bridge hand: palm under the cue line (a little to the bridge arm's side), fingers
        # spread forward on the cloth, the thumb raised beside the cue which rests on the hand
        palm_c = bridge + left * 18.0 - fwd * 30.0 + up * 22.0
        wrist = palm_c - fwd * 60.0 + left * 28.0 + up * 12.0
        player = [_Prim(palm_c + fwd * 15.0, wrist, 40.0, 33.0, skin)]
        for i, ang in enumerate((-0.22, -0.05, 0.12, 0.3)):
            base = palm_c + fwd * 30.0 + left * (13.0 * i - 2.0) - up * 6.0
            dirv = fwd * math.cos(ang) + left * math.sin(ang)
            player.append(_Prim(base, base + dirv * (48.0 - 6.0 * abs(i - 1.5)) - up * 12.0,
                                11.5, 10.0, skin))
        player.append(_Prim(palm_c - left * 26.0 - fwd * 5.0,
                            bridge + fwd * 10.0 - left * 14.0 + up * 24.0, 13.0, 11.0, skin))
        # forearm (bare up to the sleeve), elbow out to the side, upper arm to the shoulder
        elbow = (wrist + shoulder_b) / 2 + left * 90.0 - up * 40.0
        bare = look.bare_forearm
        cuff = wrist + (elbow - wrist) * bare
        player += [_Prim(wrist, cuff + (elbow - wrist) * 0.02, 32.0, 32.0 + 8.0 * bare, skin),
                   _Prim(cuff, elbow, 42.0, 52.0, sleeve),
                   _Prim(elbow, shoulder_b, 52.0, 62.0, sleeve), *torso,
                   _Prim(head, head, 92.0, 92.0, look.hair_albedo)]
        return stick, player

    def _exit_distance(self, start: NDArray[np.float64], direction: NDArray[np.float64]) -> float:
        """Distance (mm) from ``start`` along a horizontal ``direction`` to the rails' edge."""
        e = self.rails.outer_mm
        lo = np.array([-e, -e])
        hi = np.array([self.table.length_mm + e, self.table.width_mm + e])
        best = math.inf
        for k in (0, 1):
            if abs(direction[k]) > 1e-9:
                bound = hi[k] if direction[k] > 0 else lo[k]
                best = min(best, (bound - start[k]) / direction[k])
        return max(best, 0.0)

    def _prim_rect(self, p: _Prim, shadow: bool) -> Rect:
        pts = [p.a, p.b]
        if shadow:
            for lamp in self._lamps:
                for q in (p.a, p.b):
                    s = (q[2] + self.table.ball_radius_mm) / max(lamp[2] - q[2], 1.0)
                    pts.append(q + (q - lamp) * s)
        pts_a = np.array(pts)
        rmax = max(p.r0, p.r1) * 1.3 + (self.look.lamp_size_mm * 0.5 if shadow else 0.0)
        offs = np.array([[dx, dy, dz] for dx in (-1, 1) for dy in (-1, 1) for dz in (-1, 1)])
        allp = (pts_a[:, None, :] + offs[None] * rmax).reshape(-1, 3)
        allp = allp[allp[:, 2] < self._cam_c[2] - 200.0]
        return self._rect(self.camera.project(allp), 2.0)

    def _cue_layer(self, cue: CueState) -> _Layer:
        """The cue and player layer (cached): the stick (with the hand that holds its butt)
        and the rest of the player are cached apart, so a stroke re-renders only the stick."""
        key = (cue.tip_xy_mm, cue.direction_rad, cue.bridge_xy_mm, cue.side, cue.player)
        hit = self._cue_cache.get(key)
        if hit is not None:
            return hit
        stick_prims, player_prims = self._prims(cue)
        stick = self._cached_layer(("stick", cue.tip_xy_mm, cue.direction_rad, cue.side,
                                    cue.player, cue.bridge_xy_mm), stick_prims)
        layer = stick
        if player_prims:
            bridge = self._bridge(cue)
            player = self._cached_layer(("player", tuple(bridge[:2]), cue.direction_rad,
                                         cue.side), player_prims)
            layer = _merge(stick, player)
        colour, alpha = layer.colour, layer.alpha
        if self.look.blur_px > 0:
            colour = cast(F32, cv2.GaussianBlur(colour, (0, 0), self.look.blur_px))
            alpha = cast(F32, cv2.GaussianBlur(alpha, (0, 0), self.look.blur_px))
        out = _Layer(layer.rect, colour, np.clip(alpha, 0, 1), layer.depth, layer.shadow)
        if len(self._cue_cache) > 32:
            self._cue_cache.clear()
        self._cue_cache[key] = out
        return out

    def _cached_layer(self, key: tuple[object, ...], prims: list[_Prim]) -> _Layer:
        hit = self._part_cache.get(key)
        if hit is None:
            hit = self._layer(prims)
            if len(self._part_cache) > 32:
                self._part_cache.clear()
            self._part_cache[key] = hit
        return hit

    def _layer(self, prims: list[_Prim]) -> _Layer:
        """Ray-traced capsules: premultiplied colour, coverage, depth and cloth shadow."""
        rects = [self._prim_rect(p, True) for p in prims]
        rect = rects[0]
        for rc in rects[1:]:
            rect = _union(rect, rc)
        x0, y0, x1, y1 = rect
        hh, ww = y1 - y0, x1 - x0
        depth = np.full((hh, ww), np.inf, np.float32)
        colour = np.zeros((hh, ww, 3), np.float32)
        alpha = np.zeros((hh, ww), np.float32)
        for p in prims:
            rc = self._prim_rect(p, False)
            if rc[2] <= rc[0] or rc[3] <= rc[1]:
                continue
            sl = (slice(rc[1] - y0, rc[3] - y0), slice(rc[0] - x0, rc[2] - x0))
            c, a, t = self._shade_prim(p, rc)
            _depth_over(colour[sl], alpha[sl], depth[sl], c, a, t)
        shadow = self._prim_shadow(prims, rect) if hh and ww else np.zeros((hh, ww), np.float32)
        return _Layer(rect, colour, alpha, depth, shadow)

    def _shade_prim(self, p: _Prim, rect: Rect) -> tuple[F32, F32, F32]:
        """Colour (premultiplied), coverage and ray depth of one capsule / sphere."""
        x0, y0, x1, y1 = rect
        d = self._rays[y0:y1, x0:x1]
        c = self._cam_c
        axis = (p.b - p.a)
        seg = float(np.linalg.norm(axis))
        w0 = (c - p.a).astype(np.float32)
        if seg > 1e-6:
            u = (axis / seg).astype(np.float32)
            bb = d @ u
            dd = d @ w0
            e = np.float32(w0 @ u)
            t = (bb * e - dd) / np.maximum(1 - bb * bb, np.float32(1e-6))
            s = np.clip(e + t * bb, 0, seg)
            t = s * bb - dd
            frac = s / np.float32(seg)
        else:
            u = np.zeros(3, np.float32)
            t = -(d @ w0)
            s = np.zeros_like(t)
            frac = s
        closest = w0 + d * t[..., None] - s[..., None] * u      # from axis point to ray point
        dist = np.linalg.norm(closest, axis=-1)
        rad = np.float32(p.r0) + (np.float32(p.r1 - p.r0)) * frac
        px = t / np.float32(self._f)
        alpha = np.clip((rad - dist) / np.maximum(px, 1e-3) + 0.5, 0, 1)
        # surface normal: the offset from the axis, lifted toward the camera by the depth inside
        inside = np.sqrt(np.maximum(rad * rad - dist * dist, 0))
        nrm = (closest - d * inside[..., None]) / rad[..., None]
        nrm /= np.linalg.norm(nrm, axis=-1, keepdims=True) + np.float32(1e-6)
        centre = (p.a + p.b) / 2
        dirs, k = self._lamp_terms(centre)
        amb = np.float32(self.look.ambient)
        light = amb * (0.55 + 0.45 * nrm[..., 2])
        spec = np.zeros_like(light)
        for dvec, ki in zip(dirs.astype(np.float32), k.astype(np.float32), strict=True):
            light += ki * np.maximum(nrm @ dvec, 0)
            if p.gloss:
                half = dvec - d
                half /= np.linalg.norm(half, axis=-1, keepdims=True)
                spec += ki * np.maximum((nrm * half).sum(-1), 0) ** 40
        alb = np.broadcast_to(np.array(p.albedo, np.float32), nrm.shape)
        if p.bands:
            alb = alb.copy()
            for start, band_albedo in p.bands:
                alb[frac >= start] = band_albedo
        col = alb * light[..., None] + (np.float32(p.gloss) * spec)[..., None]
        col = _tone(col * self._gain[y0:y1, x0:x1])
        return col * alpha[..., None], alpha, (t - inside).astype(np.float32)

    def _prim_shadow(self, prims: list[_Prim], rect: Rect) -> F32:
        """Darkening (0..1) of the cloth inside ``rect`` by the cue/player, from every lamp,
        computed at quarter resolution (the shadows are soft) and only where each part's
        shadow can fall."""
        x0, y0, x1, y1 = rect
        step = 4
        qx = self._cloth_x[y0:y1:step, x0:x1:step]
        qy = self._cloth_y[y0:y1:step, x0:x1:step]
        gh, gw = qx.shape
        lit = np.ones(qx.shape, np.float32)
        for lamp, p_l in zip(self._lamps, self._powers, strict=True):
            frac = np.float32((1 - self.look.ambient) * p_l)
            occ = np.zeros(qx.shape, np.float32)
            for p in prims:
                sx0, sy0, sx1, sy1 = self._shadow_box(p, lamp)
                gx0, gy0 = max((sx0 - x0) // step, 0), max((sy0 - y0) // step, 0)
                gx1 = min(-(-(sx1 - x0) // step) + 1, gw)
                gy1 = min(-(-(sy1 - y0) // step) + 1, gh)
                if gx1 <= gx0 or gy1 <= gy0:
                    continue
                sub = (slice(gy0, gy1), slice(gx0, gx1))
                occ[sub] = np.maximum(occ[sub], self._occlusion(qx[sub], qy[sub], lamp, p))
            lit -= frac * occ
        dark = np.clip(1 - lit, 0, 0.95)
        full = cv2.resize(dark, (x1 - x0, y1 - y0), interpolation=cv2.INTER_LINEAR)
        return (full * self._cloth_w[y0:y1, x0:x1]).astype(np.float32)

    def _shadow_box(self, p: _Prim, lamp: NDArray[np.float64]) -> Rect:
        """Pixels where a capsule's shadow from one lamp can fall on the cloth."""
        rz = -self.table.ball_radius_mm
        margin = max(p.r0, p.r1) * 1.3 + self.look.lamp_size_mm * 0.5
        pts = []
        for q in (p.a, p.b):
            s = (q[2] - rz) / max(lamp[2] - q[2], 1.0)
            fx, fy = q[0] + (q[0] - lamp[0]) * s, q[1] + (q[1] - lamp[1]) * s
            for dx in (-margin, margin):
                for dy in (-margin, margin):
                    u, v, _ = self._px(fx + dx, fy + dy, rz)
                    pts.append((u, v))
        arr = np.array(pts)
        return self._box(arr[:, 0].min() - 2, arr[:, 1].min() - 2,
                         arr[:, 0].max() + 2, arr[:, 1].max() + 2)

    def _occlusion(self, qx: F32, qy: F32, lamp: NDArray[np.float64], p: _Prim) -> F32:
        """How much of a lamp a capsule hides from the cloth points (qx, qy) (soft, 0..1).

        Each cloth point is moved along the lamp direction up to the capsule's mean height and
        compared with the capsule's outline projected there along the same direction (good
        for near-horizontal parts; the steep ones are high, large and soft anyway)."""
        rz = -self.table.ball_radius_mm
        mid = (p.a + p.b) / 2
        ldir = lamp - mid
        ldir /= np.linalg.norm(ldir)
        lift = (mid[2] - rz) / ldir[2]
        px = qx + np.float32(lift * ldir[0])
        py = qy + np.float32(lift * ldir[1])
        ax = p.a[0] - (p.a[2] - mid[2]) * ldir[0] / ldir[2]
        ay = p.a[1] - (p.a[2] - mid[2]) * ldir[1] / ldir[2]
        bx = p.b[0] - (p.b[2] - mid[2]) * ldir[0] / ldir[2]
        by = p.b[1] - (p.b[2] - mid[2]) * ldir[1] / ldir[2]
        abx, aby = bx - ax, by - ay
        denom = abx * abx + aby * aby
        relx, rely = px - np.float32(ax), py - np.float32(ay)
        if denom > 1e-9:
            f = np.clip((relx * np.float32(abx) + rely * np.float32(aby)) * np.float32(1 / denom),
                        0, 1)
        else:
            f = np.zeros_like(relx)
        ddx = relx - f * np.float32(abx)
        ddy = rely - f * np.float32(aby)
        dist = np.sqrt(ddx * ddx + ddy * ddy)
        rad = np.float32(p.r0) + np.float32(p.r1 - p.r0) * f
        height = float(mid[2]) - rz
        pen = 4.0 + self.look.lamp_size_mm * height / max(lamp[2] - mid[2], 50.0)
        occ: F32 = np.clip((rad - dist) * np.float32(1 / pen) + np.float32(0.5), 0, 1)
        return occ

    def _coverage(self, b: _Ball, rect: Rect, alpha: F32) -> float:
        """Fraction of a ball's disc covered by a layer with coverage ``alpha`` over ``rect``."""
        bx0, by0, bx1, by1 = b.rect
        x0, y0, x1, y1 = rect
        ix0, iy0, ix1, iy1 = max(bx0, x0), max(by0, y0), min(bx1, x1), min(by1, y1)
        if ix1 <= ix0 or iy1 <= iy0:
            return 0.0
        d = self._rays[by0:by1, bx0:bx1]
        wv = (b.centre - self._cam_c).astype(np.float32)
        proj = d @ wv
        disc = (np.float32(wv @ wv) - proj * proj) < np.float32(self.table.ball_radius_mm ** 2)
        total = float(disc.sum())
        if total == 0:
            return 0.0
        cov = np.zeros(disc.shape, np.float32)
        cov[iy0 - by0:iy1 - by0, ix0 - bx0:ix1 - bx0] = alpha[iy0 - y0:iy1 - y0, ix0 - x0:ix1 - x0]
        return float((cov * disc).sum()) / total


# ================================================================================================
# helpers
# ================================================================================================
def _dot_directions() -> dict[str, NDArray[np.float32]]:
    s = math.sin(math.radians(_W2_DOT_SEPARATION_DEG / 2))
    c = math.cos(math.radians(_W2_DOT_SEPARATION_DEG / 2))
    return {
        Ball.W1.value: np.array([[0, 0, 1], [0, 0, -1]], np.float32),
        Ball.W2.value: np.array([[s, 0, c], [-s, 0, c], [s, 0, -c], [-s, 0, -c]], np.float32),
    }


def hsv_bgr(h_deg: float, s: float, v: float) -> BGR:
    r, g, b = colorsys.hsv_to_rgb((h_deg % 360) / 360, min(max(s, 0), 1), min(max(v, 0), 1))
    return (b, g, r)


def _bgr(a: NDArray[np.float64]) -> BGR:
    return (float(a[0]), float(a[1]), float(a[2]))


def _tint(albedo: BGR, shade: NDArray[np.floating[Any]]) -> F32:
    shade = np.asarray(shade, np.float32)
    return cast(F32, cv2.merge([shade * np.float32(c) for c in albedo]))  # (float32 planes)


def _over(under: F32, over: F32, alpha: F32) -> F32:
    a = np.ascontiguousarray(alpha, dtype=np.float32)
    return cast(F32, cv2.blendLinear(np.ascontiguousarray(under, np.float32),
                                     np.ascontiguousarray(over, np.float32), 1 - a, a))


def _rect_sd(x: F32, y: F32, x0: float, x1: float, y0: float, y1: float) -> F32:
    """Signed distance to a rectangle's boundary, > 0 inside (exact inside, approximate out)."""
    sd: F32 = np.minimum(np.minimum(x - np.float32(x0), np.float32(x1) - x),
                         np.minimum(y - np.float32(y0), np.float32(y1) - y))
    return sd


def _px_size(x: F32, y: F32) -> F32:
    """Millimetres per pixel on a plane, from the plane coordinates of neighbouring pixels."""
    gx = np.hypot(np.gradient(x, axis=1), np.gradient(y, axis=1))
    gy = np.hypot(np.gradient(x, axis=0), np.gradient(y, axis=0))
    size: F32 = np.maximum(np.sqrt(gx * gy), 1e-3).astype(np.float32)
    return size


def _noise_at(rng: np.random.Generator, x: F32, y: F32, mm_per_cell: float, blur: float,
              length: float, width: float) -> F32:
    """Smooth unit-variance noise defined on the table (mm), sampled at the points (x, y)."""
    margin = 400.0
    nx = int((length + 2 * margin) / mm_per_cell) + 2
    ny = int((width + 2 * margin) / mm_per_cell) + 2
    tex = rng.standard_normal((ny, nx), dtype=np.float32)
    tex = cast(F32, cv2.GaussianBlur(tex, (0, 0), blur))
    tex /= max(float(tex.std()), 1e-6)
    mx = ((x + np.float32(margin)) / np.float32(mm_per_cell)).astype(np.float32)
    my = ((y + np.float32(margin)) / np.float32(mm_per_cell)).astype(np.float32)
    return cast(F32, cv2.remap(tex, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT))


def _periodic_noise(rng: np.random.Generator, size: int, sigma_y: float,
                    sigma_x: float) -> F32:
    """Unit-variance Gaussian-filtered noise that tiles seamlessly (filtered in Fourier space)."""
    white = rng.standard_normal((size, size))
    fy = np.fft.fftfreq(size)[:, None]
    fx = np.fft.rfftfreq(size)[None, :]
    filt = np.exp(-2 * np.pi ** 2 * ((fy * sigma_y) ** 2 + (fx * sigma_x) ** 2))
    tex = np.fft.irfft2(np.fft.rfft2(white) * filt, s=(size, size))
    return (tex / max(float(tex.std()), 1e-9)).astype(np.float32)


def _grain(rng: np.random.Generator, along: F32, across: F32) -> F32:
    """Wood grain: irregular streaks that run along each rail."""
    tex = _periodic_noise(rng, 256, 14.0, 1.0)  # long along axis 0
    warp = _periodic_noise(rng, 64, 3.0, 3.0)
    my = (along / np.float32(9.0)).astype(np.float32)
    mx = (across / np.float32(2.0)).astype(np.float32)
    mx += 3.0 * cv2.remap(warp, mx / np.float32(8.0), my / np.float32(8.0), cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_WRAP)
    return cast(F32, cv2.remap(tex, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_WRAP))


def _tone(x: F32) -> F32:
    """A camera's soft shoulder: linear to 200, then rolling off toward 255 (a new array)."""
    out = np.maximum(np.asarray(x, np.float32), 0)
    hi = out > 200
    if hi.any():
        out[hi] = 200 + 55 * (1 - np.exp((200 - out[hi]) / np.float32(55.0)))
    return out


def _jpeg(img: NDArray[np.uint8], quality: int | None) -> NDArray[np.uint8]:
    if quality is None:
        return img
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:  # pragma: no cover - OpenCV always encodes a uint8 BGR image
        raise RuntimeError("JPEG encoding failed")
    decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    if decoded is None:  # pragma: no cover - the JPEG was just encoded by OpenCV
        raise RuntimeError("JPEG decoding failed")
    return cast(U8, decoded)  # (IMREAD_COLOR: 8-bit BGR)


def _union(a: Rect | None, b: Rect) -> Rect:
    if a is None:
        return b
    return (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))


def _overlap(a: Rect, b: Rect) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _depth_over(colour: F32, alpha: F32, depth: F32, c: F32, a: F32, t: F32) -> None:
    """Composite a layer (premultiplied ``c``, coverage ``a``, depth ``t``) into the buffers,
    in place, in front of or behind what is there by depth (only where ``a`` > 0)."""
    m = a > 0
    if not m.any():
        return
    cc, aa, tt = c[m], a[m], t[m]
    col, al, de = colour[m], alpha[m], depth[m]
    front = tt < de
    colour[m] = np.where(front[:, None], cc + col * (1 - aa)[:, None], col + cc * (1 - al)[:, None])
    alpha[m] = np.where(front, aa + al * (1 - aa), al + aa * (1 - al))
    depth[m] = np.where(aa > 0.5, np.minimum(tt, de), de)


def _merge(a: _Layer, b: _Layer) -> _Layer:
    """Two layers in one rectangle, composited by depth; shadows multiply."""
    rect = _union(a.rect, b.rect)
    x0, y0, x1, y1 = rect
    hh, ww = y1 - y0, x1 - x0
    colour = np.zeros((hh, ww, 3), np.float32)
    alpha = np.zeros((hh, ww), np.float32)
    depth = np.full((hh, ww), np.inf, np.float32)
    lit = np.ones((hh, ww), np.float32)
    for lay in (a, b):
        lx0, ly0, lx1, ly1 = lay.rect
        sl = (slice(ly0 - y0, ly1 - y0), slice(lx0 - x0, lx1 - x0))
        _depth_over(colour[sl], alpha[sl], depth[sl], lay.colour, lay.alpha, lay.depth)
        lit[sl] *= 1 - lay.shadow
    return _Layer(rect, colour, alpha, depth, 1 - lit)


def _same_state(a: Mapping[str, BallPose], b: Mapping[str, BallPose]) -> bool:
    if a.keys() != b.keys():
        return False
    return all(a[k].x_mm == b[k].x_mm and a[k].y_mm == b[k].y_mm
               and np.array_equal(a[k].rot, b[k].rot) for k in a)


def _line_kernel(dx: float, dy: float) -> F32:
    """A normalised, antialiased segment from -(dx, dy)/2 to +(dx, dy)/2 (a motion-blur
    kernel), centred in an odd-sized square."""
    half = math.ceil(max(abs(dx), abs(dy)) / 2) + 1
    size = 2 * half + 1
    n = max(math.ceil(math.hypot(dx, dy) * 4), 2)
    f = np.linspace(-0.5, 0.5, n)
    xs, ys = half + f * dx, half + f * dy
    x0, y0 = np.floor(xs).astype(int), np.floor(ys).astype(int)
    wx, wy = xs - x0, ys - y0
    idx = np.concatenate([y0 * size + x0, y0 * size + x0 + 1, (y0 + 1) * size + x0,
                          (y0 + 1) * size + x0 + 1])
    wts = np.concatenate([(1 - wx) * (1 - wy), wx * (1 - wy), (1 - wx) * wy, wx * wy])
    k = np.bincount(idx, wts, minlength=size * size).reshape(size, size).astype(np.float32)
    kernel: F32 = k / k.sum()
    return kernel


def _clusters(tracks: Mapping[str, Rect]) -> list[tuple[Rect, set[str]]]:
    """Merge overlapping ball track rectangles into independent regions."""
    groups: list[tuple[Rect, set[str]]] = []
    for ball_id, rect in tracks.items():
        if rect[2] <= rect[0] or rect[3] <= rect[1]:
            continue
        merged_rect, merged_ids = rect, {ball_id}
        changed = True
        while changed:
            changed = False
            for g in list(groups):
                if _overlap(g[0], merged_rect):
                    groups.remove(g)
                    merged_rect = _union(merged_rect, g[0])
                    merged_ids |= g[1]
                    changed = True
        groups.append((merged_rect, merged_ids))
    return groups
