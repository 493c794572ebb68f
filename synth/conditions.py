"""A club room's conditions, for the hard tier of fresh sets (`kaisa synth --hard`, issue 53).

A :class:`Conditions` is drawn once per clip from its own seeded generator and says everything the
clip shows beyond a normal fresh clip; it is written into the clip's labels as ``conditions``
(:meth:`Conditions.to_dict`), so every clip says what it shows:

- ``drift``: the lamps' brightness drifting slowly, ``depth`` (0.10-0.15) peak to peak over a
  period of seconds (:meth:`Drift.gain`);
- ``flicker``: the lamps' light pulsing at twice the mains frequency (50 or 60 Hz, off by the
  grid's own deviation), seen by a rolling shutter that reads the rows top to bottom in
  ``readout`` of a frame period: bands across the picture that roll at the beat of the light
  with the frame rate (:meth:`Flicker.beat_hz`), and a frame mean that pulses with them;
- ``lamps``: a club's lamp box, three or four lamps in a row about a metre over the table;
- ``hot_spots``: brighter pools of light under the lamps, the cloth there 1.3-1.5x its mean
  (:class:`synth.render.HotSpots`, solved by the renderer);
- ``shadows``: small lamps (hard-edged ball shadows) and little ambient light (dark ones);
- ``defocus_px``: a slightly defocused lens (a disc blur of that radius, in pixels);
- ``noise_sigma``: stronger sensor noise (grey levels);
- ``white_balance``: (B, G, R) gains, B and R each off by 5-10 %;
- ``image_size`` (960x540 or 1280x720) and ``crf`` (x264 at low quality);
- ``cloth``: green, blue, blue-green, grey-blue or red, with its albedo;
- ``bump``: the camera knocked at ``frame``: the picture's centre moves by ``shift_px`` and the
  picture turns by ``roll_deg`` about it; the true calibration from that frame on is in the labels.

- ``arm``: a player's arm resting on the table over or beside a ball for 1-2 s once the last
  shot's balls are at rest (the clip is made longer for it); where and when in the labels.

What is not here (yet): players leaning in other moments than after the last shot, frozen balls,
near misses and grazes (scenario-level conditions of issue 53).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, cast

import cv2
import numpy as np
from numpy.typing import NDArray

from rules.table import TableSpec
from synth.camera import CameraPose
from synth.render import BGR, CueState, HotSpots, Look, hsv_bgr
from video import Encoding

TIER = "hard"
CLOTHS = ("green", "blue", "blue-green", "grey-blue", "red")
IMAGE_SIZES = ((1280, 720), (960, 540))
SIZE_960_P = 0.6  # the share of hard clips at 960x540
BUMP_P = 0.75  # the share of hard clips with a camera bump
X264_PARAMS = "rc-lookahead=0"  # (see Conditions.encoding)
_STREAM = 53  # the conditions' generator: default_rng([clip seed, _STREAM])

U8 = NDArray[np.uint8]


def _r(v: float, nd: int = 4) -> float:
    return round(float(v), nd)


@dataclass(frozen=True)
class Drift:
    """The lamps' slow drift: gain ``1 + depth / 2 * sin(2 pi t / period_s + phase_rad)``."""

    depth: float
    period_s: float
    phase_rad: float

    def gain(self, t: float) -> float:
        return 1.0 + self.depth / 2 * math.sin(2 * math.pi * t / self.period_s + self.phase_rad)


@dataclass(frozen=True)
class Flicker:
    """Mains flicker seen by a rolling shutter: row ``y`` of the frame at time ``t`` is exposed at
    ``t + readout * y / (height * fps)`` and its gain is ``1 + depth * cos(2 pi light_hz * that
    + phase_rad)``."""

    mains_hz: int
    light_hz: float
    depth: float
    readout: float
    phase_rad: float

    def beat_hz(self, fps: float) -> float:
        """The frequency the flicker shows at in a video of ``fps`` (the light aliased)."""
        return abs(self.light_hz - round(self.light_hz / fps) * fps)

    def bands_per_frame(self, fps: float) -> float:
        """How many bright bands the rows of one frame span."""
        return self.light_hz * self.readout / fps

    def row_gain(self, t: float, height: int, fps: float) -> NDArray[np.float32]:
        rows = t + self.readout * np.arange(height, dtype=np.float64) / (height * fps)
        g = 1.0 + self.depth * np.cos(2 * math.pi * self.light_hz * rows + self.phase_rad)
        return g.astype(np.float32)


@dataclass(frozen=True)
class Shadows:
    """Hard ball shadows: small lamps (``lamp_size_mm``) and little ambient light."""

    lamp_size_mm: float
    ambient: float


@dataclass(frozen=True)
class Bump:
    """The camera knocked at ``frame``: the camera turns about its own centre so that the point
    seen at the principal point moves by ``shift_px`` (image x, y) and the picture turns by
    ``roll_deg`` about the principal point (from image +x toward +y)."""

    frame: int
    shift_px: tuple[float, float]
    roll_deg: float

    def pose(self, camera: CameraPose) -> CameraPose:
        """The camera after the bump."""
        th = math.radians(self.roll_deg)
        roll = np.array([[math.cos(th), -math.sin(th), 0.0],
                         [math.sin(th), math.cos(th), 0.0], [0.0, 0.0, 1.0]])
        b = math.atan(self.shift_px[0] / camera.fx)  # about camera y: the centre moves along +x
        g = -math.atan(self.shift_px[1] / camera.fy)  # about camera x: along +y
        ry = np.array([[math.cos(b), 0.0, math.sin(b)], [0.0, 1.0, 0.0],
                       [-math.sin(b), 0.0, math.cos(b)]])
        rx = np.array([[1.0, 0.0, 0.0], [0.0, math.cos(g), -math.sin(g)],
                       [0.0, math.sin(g), math.cos(g)]])
        delta = rx @ ry @ roll
        rot = delta @ camera.R
        return replace(camera, rotation=tuple(tuple(float(v) for v in row) for row in rot),
                       translation=tuple(float(v) for v in delta @ camera.t))


@dataclass(frozen=True)
class ArmRest:
    """A player's arm resting on the table for ``duration_s`` once the last shot's balls are at
    rest (a player leaning over to look at a position, cue in hand): the bridge hand and
    forearm over a ball (``over``) or just beside it. ``pick`` (0..1) chooses the ball among
    those at rest, ``seed`` the directions tried; :func:`resting_arm` places it."""

    duration_s: float
    over: bool
    pick: float
    seed: int


@dataclass(frozen=True)
class RestingArm:
    """An :class:`ArmRest` placed in a clip: from ``start_s`` to ``end_s`` the player's cue and
    arm are ``cue``, near ``ball``."""

    start_s: float
    end_s: float
    ball: str
    over: bool
    cue: CueState


def resting_arm(rest: ArmRest, positions: dict[str, tuple[float, float]], start_s: float,
                table: TableSpec | None = None) -> RestingArm | None:
    """Where the arm of ``rest`` lies over (or beside) one of the balls at ``positions``: the
    ball 215-290 mm behind the cue's tip along the cue (under the bridge hand and forearm,
    as in the hidden_under_arm scenario), or also 90-130 mm to the side of that line; the tip
    and the bridge hand 100 mm or more inside the cushions, the tip clear of every ball. When
    no direction of 64 fits (a ball against a cushion), the next ball in name order is tried;
    None when none fits."""
    table = table or TableSpec()
    if not positions:
        return None
    balls = sorted(positions)
    first = min(int(rest.pick * len(balls)), len(balls) - 1)
    rng = np.random.default_rng([rest.seed, 1])
    r = table.ball_radius_mm
    for ball in balls[first:] + balls[:first]:
        bx, by = positions[ball]
        for _ in range(64):
            d = float(rng.uniform(0, 2 * math.pi))
            ux, uy = math.cos(d), math.sin(d)
            back = float(rng.uniform(215, 290))
            side = 0.0 if rest.over else float(rng.choice([-1.0, 1.0]) * rng.uniform(90, 130))
            tip = (bx + ux * back - uy * side, by + uy * back + ux * side)
            bridge = (tip[0] - ux * 230.0, tip[1] - uy * 230.0)
            inside = all(3 * r <= p[0] <= table.length_mm - 3 * r
                         and 3 * r <= p[1] <= table.width_mm - 3 * r for p in (tip, bridge))
            if inside and all(math.dist(tip, q) > 3 * r for q in positions.values()):
                cue = CueState(tip, d, True, bridge)
                return RestingArm(start_s, start_s + rest.duration_s, ball, rest.over, cue)
    return None


@dataclass(frozen=True)
class Conditions:
    """One hard clip's drawn conditions (see the module's docstring); None or 0: not shown."""

    cloth: str
    cloth_albedo: BGR
    exposure: float
    image_size: tuple[int, int]
    crf: int
    lamps: tuple[tuple[float, float, float], ...] | None = None
    drift: Drift | None = None
    flicker: Flicker | None = None
    hot_spots: HotSpots | None = None
    shadows: Shadows | None = None
    defocus_px: float = 0.0
    noise_sigma: float | None = None
    white_balance: BGR | None = None
    bump: Bump | None = None
    arm: ArmRest | None = None

    # --- drawing ------------------------------------------------------------------------------
    @staticmethod
    def rng(seed: int) -> np.random.Generator:
        """The generator a clip's conditions are drawn from (apart from its camera and look)."""
        return np.random.default_rng([seed, _STREAM])

    @classmethod
    def draw(cls, rng: np.random.Generator, look: Look, frame_count: int,
             table: TableSpec | None = None) -> Conditions:
        """A club room for a clip of ``frame_count`` frames (``look``: the clip's drawn look,
        whose lamps, cloth, light and sensor the conditions replace)."""
        table = table or TableSpec()
        u = rng.uniform
        size = IMAGE_SIZES[1] if u() < SIZE_960_P else IMAGE_SIZES[0]
        cloth = CLOTHS[int(rng.integers(len(CLOTHS)))]
        hsv = {"green": (u(110, 150), u(0.4, 0.7), u(0.3, 0.5)),
               "blue": (u(205, 225), u(0.5, 0.85), u(0.3, 0.5)),
               "blue-green": (u(170, 190), u(0.45, 0.75), u(0.3, 0.5)),
               "grey-blue": (u(200, 220), u(0.12, 0.3), u(0.35, 0.5)),
               "red": (u(-10, 6) % 360, u(0.55, 0.8), u(0.3, 0.45))}[cloth]
        albedo = tuple(_r(c) for c in hsv_bgr(*hsv))
        luminance = 0.114 * albedo[0] + 0.587 * albedo[1] + 0.299 * albedo[2]
        exposure = _r(min(u(90, 130) / luminance, 450.0), 3)
        drift = Drift(_r(u(0.10, 0.15)), _r(u(2.0, 6.0), 3), _r(u(0, 2 * math.pi)))
        mains = int(rng.choice([50, 60]))
        flicker = Flicker(mains, _r(2 * (mains + u(-0.15, 0.15))), _r(u(0.03, 0.08)),
                          _r(u(0.5, 0.95), 3), _r(u(0, 2 * math.pi)))
        # a club's lamp box: three or four lamps in a row over the long axis, ~1 m up
        n = int(rng.choice([3, 4]))
        height = u(1000, 1200)
        xs = (np.arange(n) + 0.5) / n * table.length_mm * u(0.8, 0.95)
        xs = xs + (table.length_mm - xs[-1] - xs[0]) / 2
        lamps = tuple((_r(x, 1), _r(table.width_mm / 2 + rng.normal(0, 30), 1), _r(height, 1))
                      for x in xs)
        spots = HotSpots(tuple((x, y) for x, y, _ in lamps), _r(u(150, 300), 1),
                         _r(u(1.3, 1.5), 3))
        shadows = Shadows(_r(u(20, 60), 1), _r(u(0.1, 0.2), 3))
        sign = rng.choice([-1.0, 1.0], 2)
        wb = (_r(1 + sign[0] * u(0.05, 0.10)), 1.0, _r(1 + sign[1] * u(0.05, 0.10)))
        bump = None
        if u() < BUMP_P:
            frame = int(rng.integers(round(0.25 * frame_count), round(0.8 * frame_count) + 1))
            mag, ang = u(2.0, 6.0), u(0, 2 * math.pi)
            bump = Bump(frame, (_r(mag * math.cos(ang), 3), _r(mag * math.sin(ang), 3)),
                        _r(float(rng.choice([-1.0, 1.0])) * u(0.15, 0.5)))
        arm = ArmRest(_r(u(1.0, 2.0), 3), bool(u() < 0.6), _r(u()), int(rng.integers(2 ** 31)))
        return cls(cloth=cloth, cloth_albedo=cast(BGR, albedo), exposure=exposure,
                   image_size=size, lamps=lamps, crf=int(rng.integers(34, 41)), drift=drift,
                   flicker=flicker, hot_spots=spots, shadows=shadows,
                   defocus_px=_r(u(1.0, 2.0), 3), noise_sigma=_r(u(4.0, 8.0), 3),
                   white_balance=wb, bump=bump, arm=arm)

    # --- what the renderer and the writer take ---------------------------------------------------
    def apply_look(self, look: Look) -> Look:
        """``look`` with the conditions' cloth, exposure, shadows, noise and white balance."""
        out = replace(look, cloth_kind=self.cloth, cloth_albedo=self.cloth_albedo,
                      exposure=self.exposure)
        if self.lamps is not None:
            out = replace(out, lamps=self.lamps,
                          lamp_powers=tuple(1 / len(self.lamps) for _ in self.lamps))
        if self.shadows is not None:
            out = replace(out, lamp_size_mm=self.shadows.lamp_size_mm,
                          ambient=self.shadows.ambient)
        if self.noise_sigma is not None:
            out = replace(out, noise_sigma=self.noise_sigma)
        if self.white_balance is not None:
            out = replace(out, white_balance=self.white_balance)
        return out

    def encoding(self) -> Encoding:
        """x264 at the drawn CRF, preset medium, one thread and no lookahead, so the same frames
        give the same bytes (at 960x540, with the lookahead's macroblock tree on, the same
        frames gave different bytes now and then: x264 seems to read the padding below the
        540 rows, which is not initialised; 720 rows are a multiple of 16 and never did)."""
        return Encoding(options={"crf": str(self.crf), "preset": "medium", "threads": "1",
                                 "x264-params": X264_PARAMS},
                        container_format=None, convert="encoder", fallback=False)

    def gain(self, frame: int, height: int, fps: float) -> NDArray[np.float32]:
        """Each row's light gain (drift and flicker) in ``frame``."""
        t = frame / fps
        g = np.ones(height, np.float32)
        if self.drift is not None:
            g *= np.float32(self.drift.gain(t))
        if self.flicker is not None:
            g *= self.flicker.row_gain(t, height, fps)
        return g

    def optics(self, image: U8, frame: int, fps: float) -> U8:
        """The rendered frame through the defocused lens and under the drifting, flickering
        light (before the sensor's noise): a new array."""
        out = image
        if self.defocus_px > 0:
            out = cast(U8, cv2.filter2D(out, -1, disc_kernel(self.defocus_px),
                                        borderType=cv2.BORDER_REFLECT))
        if self.drift is not None or self.flicker is not None:
            g = self.gain(frame, out.shape[0], fps)
            out = np.clip(out.astype(np.float32) * g[:, None, None] + np.float32(0.5),
                          0, 255).astype(np.uint8)
        return out

    def to_dict(self, bumped: CameraPose | None = None, table: TableSpec | None = None,
                fps: float = 30.0, arm: RestingArm | None = None) -> dict[str, Any]:
        """The labels' ``conditions`` (JSON-ready); with the bumped camera, the bump's true
        calibration from its frame on; with the arm as placed, its frames and place."""
        def opt(value: Any) -> Any:
            return None if value is None else {k: list(v) if isinstance(v, tuple) else v
                                              for k, v in value.__dict__.items()}
        doc: dict[str, Any] = {
            "tier": TIER, "cloth": self.cloth, "cloth_albedo_bgr": list(self.cloth_albedo),
            "exposure": self.exposure, "image_size": list(self.image_size),
            "lamps_mm": None if self.lamps is None else [list(p) for p in self.lamps],
            "encoding": {"codec": "libx264", "crf": self.crf, "preset": "medium",
                         "x264_params": X264_PARAMS},
            "drift": opt(self.drift), "flicker": opt(self.flicker),
            "hot_spots": None, "shadows": opt(self.shadows), "defocus_px": self.defocus_px,
            "noise_sigma": self.noise_sigma,
            "white_balance_bgr": None if self.white_balance is None else list(self.white_balance),
            "bump": opt(self.bump),
        }
        if self.flicker is not None:
            doc["flicker"]["beat_hz"] = round(self.flicker.beat_hz(fps), 4)
        if self.hot_spots is not None:
            h = self.hot_spots
            doc["hot_spots"] = {"centres_mm": [list(c) for c in h.centres_mm],
                                "sigma_mm": h.sigma_mm, "ratio": h.ratio,
                                "region": "cloth within sigma_mm / 2 of a centre",
                                "amplitude": None if h.amplitude is None
                                else round(h.amplitude, 4),
                                "exposure_scale": None if h.exposure_scale is None
                                else round(h.exposure_scale, 4),
                                "measured_ratio": h.measured_ratio}
        doc["arm"] = None
        if arm is not None:
            doc["arm"] = {"from_frame": math.floor(arm.start_s * fps + 0.5),
                          "to_frame": math.floor(arm.end_s * fps + 0.5), "ball": arm.ball,
                          "over": arm.over,
                          "tip_mm": [round(v, 2) for v in arm.cue.tip_xy_mm],
                          "bridge_mm": [round(v, 2) for v in arm.cue.bridge_xy_mm or ()],
                          "direction_rad": round(arm.cue.direction_rad, 6),
                          "hidden": "the tracks' visible column says when each ball is covered"}
        if self.bump is not None and bumped is not None:
            cal = bumped.calibration_dict(table or TableSpec(), frame=self.bump.frame,
                                          source="manual")
            cal["origin"] = "synthetic ground truth (the renderer's camera after the bump)"
            doc["bump"]["calibration"] = cal
        return doc


def disc_kernel(radius_px: float) -> NDArray[np.float32]:
    """A normalised, antialiased disc (a defocused lens's blur) of ``radius_px``."""
    half = math.ceil(radius_px) + 1
    ys, xs = np.mgrid[-half:half + 1, -half:half + 1].astype(np.float32)
    k = np.clip(np.float32(radius_px + 0.5) - np.hypot(xs, ys), 0, 1)
    kernel: NDArray[np.float32] = (k / k.sum()).astype(np.float32)
    return kernel
