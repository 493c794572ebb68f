"""Synthetic overhead frames of a table with a known calibration (test and benchmark support).

A pinhole camera over the table (tilted and rolled a little), a one-parameter radial lens, and a
scene described in table millimetres: cloth bed, a lighter cushion top 50 mm wide outside the
noses with a darker shadow strip just inside them, wooden rails with diamonds, pocket holes,
balls, optionally a cue and an arm crossing a cushion; vignetting and sensor noise. Every pixel
is classified from its table coordinate (2x supersampled), so the true calibration is exact.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.model import Calibration, apply_homography
from rules.table import TableSpec

CLOTHS = {  # BGR
    "green": (70, 140, 40),
    "blue": (150, 95, 25),
    "red-brown": (45, 40, 125),
}
WOOD = (35, 75, 120)
CUSHION_MM = 50.0
RAIL_MM = 150.0
SHADOW_MM = 12.0


@dataclass(frozen=True)
class Scene:
    cloth: str = "green"
    tilt_deg: tuple[float, float] = (6.0, -4.0)  # camera pitch and yaw
    roll_deg: float = 2.0  # rotation about the optical axis
    k1: float = -0.08
    focal_px: float = 1300.0
    noise: float = 3.0
    balls: int = 5
    hand: bool = True
    seed: int = 0
    image_size: tuple[int, int] = (1280, 720)
    diamonds: bool = True  # the rails' sights (every eighth of the length, quarter of the width)


def _rot(axis: int, deg: float) -> NDArray[np.float64]:
    c, s = np.cos(np.radians(deg)), np.sin(np.radians(deg))
    i, j = [(1, 2), (0, 2), (0, 1)][axis]
    r = np.eye(3)
    r[i, i], r[i, j], r[j, i], r[j, j] = c, -s, s, c
    return r


def true_calibration(scene: Scene, table: TableSpec) -> Calibration:
    """The camera of ``scene``: head at the image's left, the whole table and rails in view."""
    w, h = scene.image_size
    L, W = table.length_mm, table.width_mm
    k = np.array([[scene.focal_px, 0, (w - 1) / 2], [0, scene.focal_px, (h - 1) / 2], [0, 0, 1]])
    # camera looking straight down: x_cam = X, y_cam = -Y, depth along -Z (table frame centred)
    r0 = np.array([[1.0, 0, 0], [0, -1.0, 0], [0, 0, -1.0]])
    r = _rot(2, scene.roll_deg) @ _rot(0, scene.tilt_deg[0]) @ _rot(1, scene.tilt_deg[1]) @ r0
    centre = np.array([L / 2, W / 2, 0.0])
    outline = np.array([[-RAIL_MM, -RAIL_MM], [L + RAIL_MM, -RAIL_MM], [L + RAIL_MM, W + RAIL_MM],
                        [-RAIL_MM, W + RAIL_MM]])
    height = scene.focal_px * (L + 2 * RAIL_MM) / (0.9 * w)
    for _ in range(60):  # raise the camera until the table with its rails is in the frame
        cam = centre - height * (r.T @ np.array([0.0, 0.0, 1.0]))  # optical axis on the centre
        t = -r @ cam
        h_t2i = k @ np.column_stack([r[:, 0], r[:, 1], t])
        und = apply_homography(h_t2i / h_t2i[2, 2], outline)
        cal = Calibration(image_size=(w, h), table=table,
                          homography_image_to_table=np.linalg.inv(h_t2i),
                          camera_matrix=k, distortion=[scene.k1, 0, 0, 0, 0], source="manual")
        px = cal.distort(und)
        if px[:, 0].min() > 8 and px[:, 1].min() > 8 and px[:, 0].max() < w - 9 and \
                px[:, 1].max() < h - 9:
            return cal
        height *= 1.03
    raise ValueError("camera set-up cannot see the table")


def render(scene: Scene, table: TableSpec | None = None,
           calibration: Calibration | None = None) -> tuple[NDArray[np.uint8], Calibration]:
    """The frame and its true calibration.

    The scene is painted as a texture in table millimetres (1 mm per texel, edges on texel
    boundaries), slightly blurred against aliasing, and looked up for every image pixel through
    the true calibration (lens included)."""
    table = table or TableSpec()
    cal = calibration or true_calibration(scene, table)
    rng = np.random.default_rng(scene.seed)
    w, h = scene.image_size
    L, W = table.length_mm, table.width_mm
    pad = RAIL_MM + 50
    # texel size: edges (noses, cushions, rails) on texel boundaries
    res = 2.5 if all(float(v / 2.5).is_integer() for v in (L, W, CUSHION_MM, RAIL_MM)) else 1.0
    x0, y0 = -pad, -pad  # texel u covers X in [x0 + u * res, x0 + (u + 1) * res)
    tw, th = int(np.ceil((L + 2 * pad) / res)), int(np.ceil((W + 2 * pad) / res))
    floor = np.array([45.0, 45.0, 50.0])
    tex = np.empty((th, tw, 3), np.float32)
    tex[:] = floor
    X = ((np.arange(tw) + 0.5) * res + x0).astype(np.float32)
    Y = ((np.arange(th)[:, None] + 0.5) * res + y0).astype(np.float32)

    def box(xa: float, xb: float, ya: float, yb: float) -> tuple[slice, slice]:
        return (slice(round((ya - y0) / res), round((yb - y0) / res)),
                slice(round((xa - x0) / res), round((xb - x0) / res)))

    cloth = np.array(CLOTHS[scene.cloth], np.float32)
    grain = 1 + 0.08 * np.sin(X * 0.05) * np.sin(Y * 0.013)  # wood grain
    rail = box(-RAIL_MM, L + RAIL_MM, -RAIL_MM, W + RAIL_MM)
    tex[rail] = (np.array(WOOD, np.float32) * grain[..., None])[rail]
    tex[box(-CUSHION_MM, L + CUSHION_MM, -CUSHION_MM, W + CUSHION_MM)] = np.minimum(cloth * 1.18,
                                                                                   255)
    tex[box(0, L, 0, W)] = cloth * 0.7  # the shadow strip along the noses ...
    tex[box(SHADOW_MM, L - SHADOW_MM, SHADOW_MM, W - SHADOW_MM)] = cloth  # ... and the bed

    shift = 4

    def texel(x: float, y: float) -> tuple[int, int]:
        return round(((x - x0) / res - 0.5) * 16), round(((y - y0) / res - 0.5) * 16)

    def circle(x: float, y: float, r: float, colour: tuple[float, ...]) -> None:
        cv2.circle(tex, texel(x, y), round(r / res * 16), colour, -1, cv2.LINE_AA, shift)

    def line(a: NDArray[np.float64], b: NDArray[np.float64], width: float,
             colour: tuple[float, ...]) -> None:
        cv2.line(tex, texel(*a), texel(*b), colour, max(1, round(width / res)), cv2.LINE_AA,
                 shift)

    for i in range(1, 8 if scene.diamonds else 1):  # diamonds on the rails
        for y in (-RAIL_MM / 2, W + RAIL_MM / 2):
            circle(L * i / 8, y, 10, (230, 230, 230))
    for i in range(1, 4 if scene.diamonds else 1):
        for x in (-RAIL_MM / 2, L + RAIL_MM / 2):
            circle(x, W * i / 4, 10, (230, 230, 230))
    # pockets: holes behind the jaws, reaching a little into the bed
    for x, y, r in ((-28, -28, 62), (-28, W + 28, 62), (L + 28, -28, 62), (L + 28, W + 28, 62),
                    (L / 2, -40, 52), (L / 2, W + 40, 52)):
        circle(x, y, r, (12, 12, 12))
    r = table.ball_radius_mm
    colours = [(235, 235, 235), (225, 230, 235), (40, 40, 200), (40, 40, 200), (40, 210, 230)]
    balls = []
    for i in range(scene.balls):
        if i == 0:  # one ball frozen to a cushion
            bx, by = rng.uniform(0.2, 0.8) * L, r
        else:
            bx, by = rng.uniform(r, L - r), rng.uniform(r, W - r)
        balls.append((bx, by))
        c = colours[i % len(colours)]
        circle(bx, by, r, c)
        circle(bx - r / 3, by - r / 3, r / 4, tuple(min(255.0, v * 1.1 + 20) for v in c))
    if scene.hand:  # a cue and an arm coming in over the foot-left rail toward the first ball
        tip = np.add(balls[0], (60.0, 60.0)) if balls else np.array([L * 0.6, W * 0.5])
        butt = np.array([L + 600.0, W + 400.0])
        line(tip, butt, 24, (150, 200, 225))
        # the hand rests on the cloth near the ball, the forearm goes out over the cushion
        hand = np.array([tip[0] + 250.0, W - 150.0])
        line(hand, np.add(hand, (-300.0, 900.0)), 110, (120, 140, 190))
    tex = cv2.GaussianBlur(tex, (0, 0), 0.5)
    tex += 4 * rng.standard_normal((th, tw, 1), dtype=np.float32)  # cloth and wood texture

    ys, xs = np.mgrid[0:h, 0:w].astype(np.float64)
    mm = cal.image_to_table(np.stack([xs.ravel(), ys.ravel()], axis=1))
    mx = ((mm[:, 0] - x0) / res - 0.5).reshape(h, w).astype(np.float32)
    my = ((mm[:, 1] - y0) / res - 0.5).reshape(h, w).astype(np.float32)
    img = cv2.remap(tex, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                    borderValue=tuple(float(v) for v in floor))
    rr = ((xs - w / 2) ** 2 + (ys - h / 2) ** 2) / (w / 2) ** 2
    img *= (1 - 0.18 * rr).astype(np.float32)[..., None]  # vignetting
    img = cv2.GaussianBlur(img, (0, 0), 0.6)  # optics
    img += scene.noise * rng.standard_normal(img.shape, dtype=np.float32)  # sensor noise
    return np.clip(img, 0, 255).round().astype(np.uint8), cal


def table_grid(table: TableSpec, n: int = 15) -> NDArray[np.float64]:
    """An n x n//2 grid of table points covering the playing field."""
    xs = np.linspace(0, table.length_mm, n)
    ys = np.linspace(0, table.width_mm, max(2, n // 2))
    return np.stack(np.meshgrid(xs, ys), axis=-1).reshape(-1, 2)


def grid_error_mm(true: Calibration, found: Calibration, n: int = 15) -> NDArray[np.float64]:
    """Per grid point: project the table point with the true calibration into the image, take it
    back with the found one, distance in mm."""
    g = table_grid(true.table, n)
    back = found.image_to_table(true.table_to_image(g))
    return np.asarray(np.hypot(*(back - g).T), dtype=np.float64)
