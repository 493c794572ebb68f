"""Detection on frames drawn here: known ball centres, touching balls, a line on the cloth."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration import Calibration
from rules.table import TableSpec
from vision.detect import BallDetector, ColourModel, VisionError, detect_frame

W, H = 1280, 720
TABLE = TableSpec()
BGR = {"white": (235, 240, 240), "red": (30, 30, 200), "yellow": (20, 190, 220)}


def calibration() -> Calibration:
    # a table 1100 px long, seen straight from above, head at the left
    x0, x1, yb = 90.0, 1190.0, 635.0
    yt = yb - (x1 - x0) * TABLE.width_mm / TABLE.length_mm
    return Calibration.from_corners([[x0, yb], [x0, yt], [x1, yb], [x1, yt]], TABLE, (W, H))


def cloth() -> np.ndarray:
    """Green cloth with a lighting gradient (brighter in the middle) and a little noise."""
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    light = 0.7 + 0.3 * np.exp(-(((xx - 640) / 500) ** 2 + ((yy - 360) / 300) ** 2))
    base = np.array([110, 150, 40], np.float32)
    img = light[..., None] * base
    img += np.random.default_rng(0).normal(0, 2, img.shape).astype(np.float32)
    return np.clip(img, 0, 255).astype(np.uint8)


def draw_ball(img: np.ndarray, cal: Calibration, xy_mm: tuple[float, float], colour: str,
              dots: int = 0) -> tuple[float, float]:
    (x, y), = cal.table_to_image([xy_mm])
    r = TABLE.ball_radius_mm / cal.mm_per_px()
    s = 16  # sub-pixel drawing (4 fractional bits)
    cv2.circle(img, (round(x * s), round(y * s)), round(r * s), BGR[colour], -1, cv2.LINE_AA, 4)
    for k in range(dots):
        dx = (k - (dots - 1) / 2) * 0.45 * r
        cv2.circle(img, (round((x + dx) * s), round(y * s)), round(0.18 * r * s), (20, 20, 25),
                   -1, cv2.LINE_AA, 4)
    return float(x), float(y)


def test_every_ball_found_within_one_pixel_with_its_colour():
    cal = calibration()
    img = cloth()
    balls = {(600.0, 400.0): "white", (1500.0, 900.0): "red", (2400.0, 1300.0): "yellow",
             (3000.0, 300.0): "red", (900.0, 1500.0): "white"}
    truth = {xy: draw_ball(img, cal, xy, c) for xy, c in balls.items()}
    found = detect_frame(img, cal)
    assert len(found) == len(balls)
    for xy, (px, py) in truth.items():
        d = min(found, key=lambda q: np.hypot(q.x_px - px, q.y_px - py))
        assert np.hypot(d.x_px - px, d.y_px - py) < 1.0
        assert np.hypot(d.x_mm - xy[0], d.y_mm - xy[1]) < 4.0
        assert d.colour == balls[xy]


def test_touching_balls_are_split():
    cal = calibration()
    img = cloth()
    a, b = (1700.0, 900.0), (1700.0 + TABLE.ball_diameter_mm, 900.0)
    pa, pb = draw_ball(img, cal, a, "white"), draw_ball(img, cal, b, "white", dots=2)
    c = (1740.0, 900.0 + TABLE.ball_diameter_mm * 0.99)
    pc = draw_ball(img, cal, c, "red")
    found = detect_frame(img, cal)
    assert len(found) == 3
    for px, py in (pa, pb, pc):
        d = min(found, key=lambda q: np.hypot(q.x_px - px, q.y_px - py))
        assert np.hypot(d.x_px - px, d.y_px - py) < 1.5


def test_a_line_on_the_cloth_is_not_a_ball():
    cal = calibration()
    img = cloth()
    p0, p1 = cal.table_to_image([[300.0, 200.0], [3200.0, 1500.0]])
    cv2.line(img, tuple(int(v) for v in p0), tuple(int(v) for v in p1), (230, 250, 180), 3,
             cv2.LINE_AA)
    draw_ball(img, cal, (1000.0, 1400.0), "red")
    found = detect_frame(img, cal)
    assert len(found) == 1 and found[0].colour == "red"


def test_wrong_frame_size_is_refused():
    det = BallDetector(calibration())
    with pytest.raises(VisionError, match="expected a 1280x720 BGR frame"):
        det.learn_cloth(np.zeros((100, 100, 3), np.uint8))


def test_colour_classes_are_named_by_relative_hue_and_saturation():
    model = ColourModel.fit(np.array([BGR["white"], BGR["red"], BGR["yellow"], (200, 210, 215)]))
    assert model.classify(BGR["red"]) == "red"
    assert model.classify(BGR["yellow"]) == "yellow"
    assert model.classify((220, 228, 230)) == "white"


def test_fast_pixel_to_table_map_matches_the_calibration():
    from dataclasses import replace

    from calibration.model import guess_camera_matrix
    from vision.detect import _PixelToTable

    cal = replace(calibration(), camera_matrix=guess_camera_matrix((W, H)),
                  distortion=[-0.1, 0.01, 0.0, 0.0, 0.0])
    to_table = _PixelToTable(cal, (90, 60, 1190, 650))
    pts = np.random.default_rng(1).uniform([90, 60], [1190, 650], (500, 2))
    exact = cal.image_to_table(pts)
    assert np.abs(to_table(pts) - exact).max() < 0.05  # mm
    xs, ys = np.linspace(90, 1189, 37), np.linspace(60, 649, 23)
    u, v = np.meshgrid(xs, ys)
    grid = to_table.grid(xs, ys)
    assert np.abs(grid - to_table(np.stack([u.ravel(), v.ravel()], 1)).reshape(grid.shape)).max() \
        < 1e-9


def test_a_frame_shrunk_ahead_gives_the_same_detections():
    cal = calibration()
    img = cloth()
    draw_ball(img, cal, (1500.0, 900.0), "red")
    a, b = BallDetector(cal), BallDetector(cal)
    a.learn_cloth(img)
    b.learn_cloth(img)
    assert a.detect(img) == b.detect(img, small=b.shrink(img))
