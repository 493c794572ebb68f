"""The synthetic camera and renderer: geometry against the true calibration, balls where the
camera puts them, ball markings, occlusion by the player, determinism, cloth colours.

Renderers are built at small image sizes to keep the tests fast; every random choice is seeded.
"""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from rules.table import Pocket, TableSpec
from synth.camera import CameraPose, random_pose, rotation_from_angles
from synth.render import BallPose, CueState, Look, RailSpec, Renderer, roll

TABLE = TableSpec()
L, W, R = TABLE.length_mm, TABLE.width_mm, TABLE.ball_radius_mm
SIZE = (640, 360)


def _renderer(seed: int, size: tuple[int, int] = SIZE, cloth: str | None = None,
              table: TableSpec = TABLE) -> Renderer:
    rng = np.random.default_rng(seed)
    camera = random_pose(rng, table, size)
    return Renderer(table, camera, Look.random(rng, table, cloth), seed=seed)


def _close_up(centre_xy: tuple[float, float], size: tuple[int, int] = (240, 200),
              focal: float = 3000.0) -> CameraPose:
    """A long lens straight above a point: a ball is ~70 px across."""
    rot = rotation_from_angles(0.0, 0.0, 0.0)
    centre = np.array([centre_xy[0], centre_xy[1], 2800.0])
    w, h = size
    return CameraPose(fx=focal, fy=focal, cx=(w - 1) / 2, cy=(h - 1) / 2, rotation=rot,
                      translation=-rot @ centre, k1=-0.1, k2=0.02, image_size=size)


# --- camera ----------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(8))
def test_table_points_round_trip_through_the_calibration_homography(seed):
    camera = random_pose(np.random.default_rng(seed), TABLE)
    calib = camera.calibration_dict(TABLE)
    assert calib["format"] == "kaisa-calibration/1"
    assert calib["source"] == "truth" and calib["rms_residual_mm"] == 0.0
    assert calib["distortion"][2:] == [0.0, 0.0, 0.0]
    pts = np.array([TABLE.pocket_xy(p) for p in Pocket] + [(L / 4, W / 2), (900.0, 300.0)])
    px = camera.project(np.column_stack([pts, np.zeros(len(pts))]))
    und = cv2.undistortPoints(px.reshape(-1, 1, 2), np.array(calib["camera_matrix"]),
                              np.array(calib["distortion"]), P=np.array(calib["camera_matrix"]),
                              criteria=(cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 200,
                                        1e-12)).reshape(-1, 2)
    h = np.array(calib["homography_image_to_table"])
    q = np.column_stack([und, np.ones(len(und))]) @ h.T
    back = q[:, :2] / q[:, 2:3]
    assert np.abs(back - pts).max() < 0.5


@pytest.mark.parametrize("seed", range(8))
def test_random_pose_frames_the_table_head_left_long_axis_horizontal(seed):
    camera = random_pose(np.random.default_rng(seed), TABLE)
    w, h = camera.image_size
    e = RailSpec().outer_mm
    corners = np.array([[-e, -e, -R], [L + e, -e, -R], [-e, W + e, -R], [L + e, W + e, -R]])
    px = camera.project(corners)
    assert np.all(px[:, 0] > 0.01 * w) and np.all(px[:, 0] < 0.99 * w)
    assert np.all(px[:, 1] > 0.01 * h) and np.all(px[:, 1] < 0.99 * h)
    head, foot, right, left = camera.project(
        [[0, W / 2, 0], [L, W / 2, 0], [L / 2, 0, 0], [L / 2, W, 0]])
    assert head[0] < foot[0] and abs(foot[0] - head[0]) > 2 * abs(foot[1] - head[1])
    assert right[1] > left[1]  # the right cushion (y = 0) at the bottom
    assert 2500 <= camera.centre[2] <= 3500 and -0.25 <= camera.k1 <= 0.05


def test_project_matches_opencv_and_plane_intersection_inverts_it():
    camera = random_pose(np.random.default_rng(11), TABLE)
    pts = np.random.default_rng(0).uniform([0, 0, -R], [L, W, R], (50, 3))
    ref, _ = cv2.projectPoints(pts, cv2.Rodrigues(camera.R)[0], camera.t, camera.camera_matrix,
                               camera.distortion)
    px = camera.project(pts)
    assert np.abs(px - ref.reshape(-1, 2)).max() < 1e-6
    flat = pts.copy()
    flat[:, 2] = 0.0
    assert np.abs(camera.to_plane(camera.project(flat), 0.0) - flat[:, :2]).max() < 1e-6


# --- balls -----------------------------------------------------------------------------------
def test_roll_turns_the_ball_without_slipping():
    rot = roll(np.eye(3), 2 * math.pi * R, 0.0, R)  # one full turn
    assert np.allclose(rot, np.eye(3), atol=1e-9)
    rot = roll(np.eye(3), math.pi / 2 * R, 0.0, R)  # a quarter turn toward +x
    assert np.allclose(rot @ [0, 0, 1], [1, 0, 0], atol=1e-9)  # the top comes to the front
    rot = roll(roll(np.eye(3), 30.0, -12.0, R), -30.0, 12.0, R)
    assert np.allclose(rot, np.eye(3), atol=1e-9)


@pytest.mark.parametrize("seed", range(4))
def test_a_ball_appears_where_the_camera_projects_its_centre(seed):
    renderer = _renderer(seed, (1280, 720))
    rng = np.random.default_rng(seed)
    for ball in ("R1", "Y", "W2"):
        x, y = rng.uniform([150, 150], [L - 150, W - 150])
        img, visible = renderer.render_frame([{ball: BallPose(x, y)}])
        assert visible == {ball: True}
        u, v = renderer.camera.project([[x, y, 0.0]])[0]
        x0, y0 = round(u) - 25, round(v) - 25
        roi = img[y0:y0 + 51, x0:x0 + 51].astype(np.float32)
        # the ball's pixels: chromaticity nearer the ball's (at its centre) than the cloth's (at
        # the border); chromaticity keeps the shaded limb and ignores the ball's shadow
        chroma = roi / (roi.sum(axis=2, keepdims=True) + 1.0)
        ball_c = chroma[25, 25]
        edge = np.concatenate([chroma[0], chroma[-1], chroma[:, 0], chroma[:, -1]])
        cloth_c = np.median(edge, axis=0)
        near_ball = np.linalg.norm(chroma - ball_c, axis=2) < np.linalg.norm(chroma - cloth_c,
                                                                              axis=2)
        mask = near_ball.astype(np.uint8)
        _, labels, _, cents = cv2.connectedComponentsWithStats(mask)
        biggest = int(labels[25, 25])
        cu, cv_ = cents[biggest]
        assert math.hypot(x0 + cu - u, y0 + cv_ - v) < 1.0, (ball, x, y)


def _dark_blobs(img: np.ndarray, centre: tuple[float, float], radius: float,
                dot_px: float) -> list[tuple]:
    """Dark spots inside a ball's disc, (x, y) centroid of each: pixels much darker than the
    local median brightness (which follows the ball's smooth shading but not its dots)."""
    grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    k = 2 * int(1.2 * dot_px) + 1
    local = cv2.medianBlur(grey, k).astype(np.float32)
    yy, xx = np.mgrid[: grey.shape[0], : grey.shape[1]]
    inside = np.hypot(xx - centre[0], yy - centre[1]) < 0.85 * radius
    dark = (inside & (grey.astype(np.float32) < 0.6 * local)).astype(np.uint8)
    dark = cv2.morphologyEx(dark, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    n, _, stats, cents = cv2.connectedComponentsWithStats(dark)
    return [tuple(cents[i]) for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] >= 3]


@pytest.mark.parametrize("seed", [5, 6, 7])
def test_w1_shows_one_dot_and_w2_two_and_they_turn_as_the_ball_rolls(seed):
    x, y = 1000.0, 600.0
    camera = _close_up((x, y))
    renderer = Renderer(TABLE, camera, Look.from_seed(seed, TABLE), seed=seed)
    centre = camera.project([[x, y, 0.0]])[0]
    radius = R / camera.mm_per_px((x, y))
    dot_px = 12.0 / camera.mm_per_px((x, y))
    for ball, dots in (("W1", 1), ("W2", 2)):
        img, _ = renderer.render_frame([{ball: BallPose(x, y, np.eye(3))}])
        assert len(_dark_blobs(img, centre, radius, dot_px)) == dots, ball
    # a 30 degree roll toward +x carries the W1 dot half a radius toward +x (image right)
    rolled = roll(np.eye(3), math.radians(30) * R, 0.0, R)
    img, _ = renderer.render_frame([{"W1": BallPose(x, y, rolled)}])
    (bx, by), = _dark_blobs(img, centre, radius, dot_px)
    assert abs((bx - centre[0]) - 0.5 * radius) < 0.15 * radius and abs(by - centre[1]) < 2
    # plain balls have no markings: turning them changes nothing
    for ball in ("R1", "R2", "Y"):
        a, _ = renderer.render_frame([{ball: BallPose(x, y)}])
        b, _ = renderer.render_frame([{ball: BallPose(x, y, roll(np.eye(3), 40.0, 25.0, R))}])
        assert np.array_equal(a, b)


def test_motion_blur_streaks_a_fast_ball_along_its_path():
    renderer = _renderer(2)
    samples = [{"Y": BallPose(1200.0 + 30.0 * k, 800.0)} for k in range(4)]
    img, visible = renderer.render_frame(samples)
    assert visible == {"Y": True}
    diff = np.abs(img.astype(np.int32) - renderer.background.astype(np.int32)).sum(axis=2)
    a = renderer.camera.project([[1200.0, 800.0, 0.0]])[0]
    b = renderer.camera.project([[1290.0, 800.0, 0.0]])[0]
    # continuous along the path: no gap between the first and last sub-frame positions
    for f in np.linspace(0, 1, 12):
        u, v = a + (b - a) * f
        assert diff[round(v), round(u)] > 30
    # an averaged sub-frame is fainter than a still ball
    still, _ = renderer.render_frame([samples[0]])
    d_still = np.abs(still.astype(np.int32) - renderer.background.astype(np.int32)).sum(axis=2)
    assert diff.max() < d_still.max()


# --- player ----------------------------------------------------------------------------------
def test_a_ball_under_the_arm_is_not_visible_and_one_in_the_open_is():
    renderer = _renderer(4)
    cue = CueState(tip_xy_mm=(1500.0, 900.0), direction_rad=0.3, side=1)
    img, _ = renderer.render_frame([{}], cue=cue)
    changed = (np.abs(img.astype(np.int32) - renderer.background.astype(np.int32)).sum(axis=2)
               > 40).astype(np.uint8)
    changed = cv2.morphologyEx(changed, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    depth = cv2.distanceTransform(changed, cv2.DIST_L2, 5)
    # the most covered pixel well inside the table
    inner = np.zeros_like(depth)
    cam = renderer.camera
    corners = cam.project([[150, 150, 0], [L - 150, W - 150, 0]])
    (u0, v0), (u1, v1) = np.sort(corners, axis=0).astype(int)
    inner[v0:v1, u0:u1] = depth[v0:v1, u0:u1]
    v, u = np.unravel_index(int(np.argmax(inner)), inner.shape)
    assert inner[v, u] > R / cam.mm_per_px((L / 2, W / 2))  # deeper than a ball radius
    hidden_xy = cam.to_plane([[u, v]], 0.0)[0]
    open_xy = (L - 300.0, W - 300.0) if hidden_xy[0] < L / 2 else (300.0, 300.0)
    _, visible = renderer.render_frame(
        [{"R1": BallPose(*hidden_xy), "Y": BallPose(*open_xy)}], cue=cue)
    assert visible == {"R1": False, "Y": True}
    # without the player both are seen
    _, visible = renderer.render_frame([{"R1": BallPose(*hidden_xy), "Y": BallPose(*open_xy)}])
    assert visible == {"R1": True, "Y": True}


def test_the_cue_alone_hides_little():
    renderer = _renderer(6)
    cue = CueState(tip_xy_mm=(1000.0, 900.0), direction_rad=math.pi, player=False)
    img, visible = renderer.render_frame([{"W1": BallPose(960.0, 900.0)}], cue=cue)
    assert visible == {"W1": True}
    assert not np.array_equal(img, renderer.render_frame([{"W1": BallPose(960.0, 900.0)}])[0])


# --- determinism and looks -------------------------------------------------------------------
def test_rendering_is_deterministic_for_a_seed():
    def clip(seed: int) -> list[np.ndarray]:
        renderer = _renderer(seed)
        rng = np.random.default_rng(seed)
        cue = CueState(tip_xy_mm=(700.0, 500.0), direction_rad=0.1)
        frames = []
        for k in range(3):
            samples = [{"W1": BallPose(800.0 + 40 * k + 10 * j, 520.0,
                                       roll(np.eye(3), 40 * k + 10 * j, 0, R)),
                        "R2": BallPose(2000.0, 1000.0)} for j in range(4)]
            img, _ = renderer.render_frame(samples, cue=cue if k == 0 else None, rng=rng)
            frames.append(img)
        return frames

    a, b = clip(9), clip(9)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert not np.array_equal(a[0], clip(10)[0])


def _cloth_hue_deg(renderer: Renderer) -> float:
    pts = renderer.camera.project([[L * f, W * g, -R] for f in (0.3, 0.5, 0.7)
                                   for g in (0.3, 0.5, 0.7)])
    bg = renderer.background
    pix = np.array([bg[int(v), int(u)] for u, v in pts], np.float32)
    b, g, r = np.median(pix, axis=0) / 255.0
    hue = math.degrees(math.atan2(math.sqrt(3) * (g - b), 2 * r - g - b)) % 360
    return hue


@pytest.mark.parametrize("seed", range(5))
def test_cloth_colours_follow_the_look(seed):
    blue = _cloth_hue_deg(_renderer(seed, (320, 180), cloth="blue"))
    green = _cloth_hue_deg(_renderer(seed, (320, 180), cloth="green"))
    assert 180 < blue < 260, blue
    assert 80 < green < 190, green


def test_looks_are_mostly_green():
    kinds = [Look.from_seed(s).cloth_kind for s in range(200)]
    assert kinds.count("green") > 110 and kinds.count("blue") > 10 and kinds.count("other") > 10


def test_a_10ft_table_renders_its_own_pockets():
    table = TableSpec.from_value("kaisa-10ft")
    renderer = _renderer(1, (640, 360), table=table)
    bg = renderer.background
    grey = cv2.cvtColor(bg, cv2.COLOR_BGR2GRAY)
    for p in Pocket:
        x, y = table.pocket_xy(p)
        sx = 0 if p.is_middle else (-1 if x == 0 else 1)
        sy = -1 if y == 0 else 1
        u, v = renderer.camera.project([[x + sx * 20, y + sy * 30, -R]])[0]
        cloth = renderer.camera.project([[table.length_mm / 2, table.width_mm / 2, -R]])[0]
        assert grey[int(v), int(u)] < 0.4 * grey[int(cloth[1]), int(cloth[0])], p


def test_balls_and_players_anywhere_render_without_error():
    renderer = _renderer(8, (320, 180))
    rng = np.random.default_rng(8)
    for _ in range(20):
        balls = {b: BallPose(*rng.uniform([-600, -600], [L + 600, W + 600]))
                 for b in ("W1", "W2", "R1", "R2", "Y")}
        moved = {b: BallPose(p.x_mm + 50, p.y_mm - 20) for b, p in balls.items()}
        cue = CueState(tuple(rng.uniform([0, 0], [L, W])), float(rng.uniform(0, 2 * math.pi)),
                       side=int(rng.choice([-1, 1])))
        img, visible = renderer.render_frame([balls, moved], cue=cue)
        assert img.shape == (180, 320, 3) and img.dtype == np.uint8
        assert set(visible) == set(balls)
