"""Detection on frames drawn here: known ball centres, touching balls, a line on the cloth."""

from __future__ import annotations

import json
import math

import cv2
import numpy as np
import pytest

from calibration import Calibration
from rules.table import TableSpec
from synth.camera import random_pose
from synth.render import BallPose, Look, Renderer
from vision.detection import (
    DEFAULT_DETECTION,
    BallDetector,
    ColourModel,
    Detection,
    DetectionParams,
    DetectionParamsError,
    VisionError,
    detect_frame,
)
from vision.detection.shapes import distances
from vision.detection.split import BallSplitter
from vision.detection.types import Blob

# the tuned levels the drawn foreground maps below are made against
STRONG = DEFAULT_DETECTION.strong_thresholds
STRONGER = DEFAULT_DETECTION.stronger_thresholds
BALL_DEPTH = DEFAULT_DETECTION.ball_depth_radii

W, H = 1280, 720
TABLE = TableSpec()
BGR = {"white": (235, 240, 240), "red": (30, 30, 200), "yellow": (20, 190, 220),
       "dark red": (18, 16, 135)}


def calibration() -> Calibration:
    # a table 1100 px long, seen straight from above, head at the left
    x0, x1, yb = 90.0, 1190.0, 635.0
    yt = yb - (x1 - x0) * TABLE.width_mm / TABLE.length_mm
    return Calibration.from_corners([[x0, yb], [x0, yt], [x1, yb], [x1, yt]], TABLE, (W, H))


def cloth(seed: int = 0) -> np.ndarray:
    """Green cloth with a lighting gradient (brighter in the middle) and a little noise."""
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    light = 0.7 + 0.3 * np.exp(-(((xx - 640) / 500) ** 2 + ((yy - 360) / 300) ** 2))
    base = np.array([110, 150, 40], np.float32)
    img = light[..., None] * base
    img += np.random.default_rng(seed).normal(0, 2, img.shape).astype(np.float32)
    return np.clip(img, 0, 255).astype(np.uint8)


def on_empty_cloth() -> tuple[Calibration, np.ndarray, BallDetector]:
    """The calibration, an empty cloth, and a detector that learned it."""
    cal, img = calibration(), cloth()
    det = BallDetector(cal)
    det.learn_cloth(img)
    return cal, img, det


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



def test_a_blurred_ball_is_a_mixture_with_the_cloth_in_brightness_too():
    """Real footage with a projector: a cream white, clipped to pure white at rest, blurs into a
    warm streak over green cloth. In chromaticity alone that streak is nearest a faint red
    mixture (a sixth of a red ball, the rest cloth), but such a mixture would be half as
    bright as the streak: it is the white. A red ball blurred over the same cloth stays red."""
    cloth_bgr = (136.0, 149.0, 110.0)
    model = ColourModel.fit(np.array([(255, 255, 255)] * 4 + [(23, 1, 200)] * 4
                                     + [(165, 178, 137)] * 4 + [(141, 151, 105)] * 4))
    streak = (199.0, 224.0, 255.0)
    assert not model.is_sure(streak)
    assert model.classify(streak, cloth_bgr) == "white"
    a = 0.4  # a red ball 40 % of the pixel, the cloth the rest
    red_blur = tuple(a * r + (1 - a) * c for r, c in zip((23, 1, 200), cloth_bgr, strict=True))
    assert model.classify(red_blur, cloth_bgr) == "red"
    a = 0.5
    white_blur = tuple(a * 255 + (1 - a) * c for c in cloth_bgr)
    assert model.classify(white_blur, cloth_bgr) == "white"

def test_the_compressions_blocks_on_a_grey_cloth_are_no_white_balls():
    """On a grey cloth the threshold is low (a white ball differs from it in light only) and
    the compression leaves ball-sized blocks a little off the cloth's colour, many of them (more
    as the picture drifts from the key frame). By chromaticity alone they were white balls
    (k-means gave them a class named white): an in-hand W2 was tracked on the cloth for the
    whole of an opening shot on a grey cloth. A white ball is brighter than the cloth; such a
    block is not."""
    from vision.detection import Detection

    frames, _, _ = grey_cloth_frames(0)
    det = BallDetector(calibration())
    det.learn_cloth(frames[0])
    under = (150.0, 140.0, 130.0)
    rng = np.random.default_rng(3)

    def seen(bgr: tuple[float, float, float], x: float) -> Detection:
        return Detection(0.0, 0.0, x, 500.0, 10.0, "other", 0.8, bgr, cloth_bgr=under)

    blocks = [seen(tuple(np.array(under) * (1 + rng.uniform(-0.12, 0.12, 3))), 10.0 * i)
              for i in range(40)]
    balls = [seen(BGR["white"], 2000.0), seen(BGR["red"], 2100.0), seen(BGR["yellow"], 2200.0),
             seen((120.0, 125.0, 130.0), 2300.0)]  # the last: a ghost, darker than the cloth
    det.fit_colours(blocks + balls[:3])
    named = det.classify(blocks + balls)
    assert sorted((q.colour, q.x_mm) for q in named) == [
        ("red", 2100.0), ("white", 2000.0), ("yellow", 2200.0)]


def test_a_still_ball_read_as_a_short_streak_still_gives_its_colour_a_class():
    """The colour classes are fitted from the first frames read, where the balls mostly lie
    still. A still yellow beside its hard shadow (a club lamp's, at low quality) was read as a
    short streak in each of them; left out of the fit as a blur, it left the video with no
    yellow class, and the yellow, named a doubtful white, went unseen for a whole clip. A
    streak's core as strongly unlike the cloth as a ball's counts; a faint one (junk, or a
    see-through mixture) does not: a grey one made a dark class of its own."""
    from vision.detection import Detection
    from vision.detection.colour import chromaticity

    frames, _, _ = grey_cloth_frames(0)
    det = BallDetector(calibration())
    det.learn_cloth(frames[0])
    under = (150.0, 140.0, 130.0)
    junk = (140.0, 134.0, 128.0)

    def seen(bgr: tuple[float, float, float], x: float, streak_mm: float = 0.0) -> Detection:
        return Detection(0.0, 0.0, x, 500.0, 10.0, "other", 0.8, bgr, streak_mm=streak_mm,
                         cloth_bgr=under)

    assert det.classifier.core_contrast(junk, under) < det.params.strong_thresholds
    frames_seen = [[seen(BGR["white"], 1000.0), seen(BGR["red"], 1200.0),
                    seen(BGR["yellow"], 1400.0, streak_mm=107.0),
                    seen(junk, 1600.0, streak_mm=90.0)] for _ in range(10)]
    model = det.fit_colours([d for ds in frames_seen for d in ds])
    i, sure = model.nearest(BGR["yellow"])
    assert (model.names[i], sure) == ("yellow", True)
    balls = chromaticity(np.array([BGR["white"], BGR["red"], BGR["yellow"]], np.float64))
    # every class is a ball colour's (none the junk's, nor pulled toward it)
    assert all(np.abs(balls - c).sum(axis=1).min() < 0.01 for c in model.centres)


def test_the_colour_classes_are_fitted_to_the_balls_where_the_game_state_has_them():
    """The colours of a red cloth at 960x540 (a hard set): the two reds, their cores much like
    the cloth, score 0.40-0.50, under the fit's bar of 0.5; the cue and an arm passing in the
    first frames leave blobs that score more. Fitted by score, the red class was the cue's
    (0.25, 0.25, 0.51), 0.19 from the reds, which were no class's and unseen for the whole
    clip. Where the game state says the balls lie, those detections count whatever their
    score; a game state the picture does not bear out (its places mostly empty) is not used."""
    frames, _, _ = grey_cloth_frames(0)
    under = (56.0, 47.0, 160.0)

    def seen(bgr: tuple[float, float, float], x: float, y: float, score: float) -> Detection:
        return Detection(0.0, 0.0, x, y, 10.0, "other", score, bgr, cloth_bgr=under)

    balls = {(1900.0, 780.0): ((224.0, 244.0, 255.0), 0.96),
             (2010.0, 970.0): ((220.0, 235.0, 253.0), 0.97),
             (1780.0, 360.0): ((46.0, 169.0, 227.0), 0.74),
             (887.0, 883.0): ((50.0, 43.0, 182.0), 0.45),
             (2663.0, 890.0): ((45.0, 46.0, 175.0), 0.50)}
    junk = [((66.0, 66.0, 137.0), 2090.0, 1310.0, 0.51), ((32.0, 27.0, 83.0), 110.0, 1140.0, 0.71),
            ((27.0, 22.0, 93.0), 1510.0, 40.0, 0.58), ((85.0, 84.0, 127.0), 2040.0, 1170.0, 0.47)]
    frames_seen = [[seen(bgr, x, y, s) for (x, y), (bgr, s) in balls.items()]
                   + [seen(bgr, x, y, s) for bgr, x, y, s in junk] for _ in range(10)]
    red = (50.0, 43.0, 182.0)

    def red_is_sure(balls_at: list[tuple[float, float]]) -> bool:
        det = BallDetector(calibration())
        det.learn_cloth(frames[0])
        model = det.fit_colours([d for ds in frames_seen for d in ds], balls_at)
        i, sure = model.nearest(red)
        return model.names[i] == "red" and sure

    assert red_is_sure(list(balls))
    assert not red_is_sure([])  # fitted by score: the junk's red class
    # a stale game state: one of its five places shows a ball
    assert not red_is_sure([(887.0, 883.0), (100.0, 100.0), (300.0, 300.0), (500.0, 500.0),
                            (700.0, 700.0)])


def test_a_ghost_with_a_hint_of_red_is_no_see_through_red_ball():
    """A ball dropped in a pocket leaves a ghost in the video until the next key frame: a blob
    a little darker than the cloth at the mouth, with a hint of red (a red potted on a grey
    cloth). Read as a mixture of red and the cloth it was a faint red ball, and R1 stayed on
    the table for 3.6 s. A mixture must explain most of how a colour differs from the cloth; a
    red ball blurred over the cloth still does."""
    model = ColourModel.fit(np.array([(148, 180, 187)] * 6 + [(18, 21, 145)] * 6
                                     + [(19, 160, 220)] * 4))  # grey cloth's balls
    ghost, mouth = (49.0, 41.0, 53.0), (41.0, 43.0, 45.0)
    assert not model.is_sure(ghost)
    assert model.classify(ghost, mouth) != "red"
    a = 0.3  # a red ball 30 % of the pixel, the cloth the rest
    red_blur = tuple(a * r + (1 - a) * c for r, c in zip((18, 21, 145), mouth, strict=True))
    assert model.classify(red_blur, mouth) == "red"


def test_fast_pixel_to_table_map_matches_the_calibration():
    from dataclasses import replace

    from calibration.model import guess_camera_matrix
    from vision.detection.geometry import PixelToTable

    cal = replace(calibration(), camera_matrix=guess_camera_matrix((W, H)),
                  distortion=[-0.1, 0.01, 0.0, 0.0, 0.0])
    to_table = PixelToTable(cal, (90, 60, 1190, 650))
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


def test_the_foreground_kept_between_frames_finds_what_a_fresh_one_finds():
    """Frames with new noise each: a red ball rolling by a white one at rest, and past a yellow
    resting against the cushion (their pictures touch). The detector recomputes its foreground
    and its blobs only where the picture changed beyond the noise; a detector that recomputes
    all of it every frame finds the same balls, within a tenth of a pixel, and the resting white
    is not measured again while nothing near it changed."""
    cal = calibration()
    rng = np.random.default_rng(5)
    base = cloth()
    kept, fresh = BallDetector(cal), BallDetector(cal)
    whites = []
    for k in range(12):
        noisy = base.astype(np.float32) + rng.normal(0, 2, base.shape).astype(np.float32)
        img = np.clip(noisy, 0, 255).astype(np.uint8)
        red = draw_ball(img, cal, (800.0 + 60.0 * k, 110.0), "red")
        white = draw_ball(img, cal, (2600.0, 1100.0), "white")
        yellow = draw_ball(img, cal, (1300.0, 40.0), "yellow")
        fresh._f = None  # recompute the whole foreground map (and so every blob)
        a, b = kept.detect(img), fresh.detect(img)
        assert len(a) == len(b) == 3
        for da in a:
            db = min(b, key=lambda q: np.hypot(q.x_px - da.x_px, q.y_px - da.y_px))
            assert np.hypot(da.x_px - db.x_px, da.y_px - db.y_px) < 0.1
        for (px, py) in (red, white, yellow):
            assert min(np.hypot(q.x_px - px, q.y_px - py) for q in a) < 1.0
        whites.append(min(a, key=lambda q: np.hypot(q.x_px - white[0], q.y_px - white[1])))
    assert all(w is whites[1] for w in whites[1:])  # measured once after the first frame


# --- other renderer looks: pale cloth, strong vignetting, compression noise -----------------------
def pale_cloth(vignetting: float = 0.0, seed: int = 0) -> np.ndarray:
    """Pale blue-grey cloth (a red ball is darker than half its brightness), optionally darker
    towards the corners, with a little noise."""
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    light = 1.0 - vignetting * (((xx - 640) / 640) ** 2 + ((yy - 360) / 360) ** 2) / 2
    img = light[..., None] * np.array([215, 205, 190], np.float32)
    img += np.random.default_rng(seed).normal(0, 2, img.shape).astype(np.float32)
    return np.clip(img, 0, 255).astype(np.uint8)


def test_a_dark_ball_on_a_bright_cloth_is_a_ball_not_a_shadow():
    # a red ball on pale cloth is less than half as bright as the cloth: its chromaticity, not
    # its darkness, says it is a ball
    cal = calibration()
    img = pale_cloth()
    red = (35, 35, 150)
    assert sum(red) < 0.5 * sum((215, 205, 190))
    (x, y), = cal.table_to_image([(1500.0, 900.0)])
    r = TABLE.ball_radius_mm / cal.mm_per_px()
    cv2.circle(img, (round(x * 16), round(y * 16)), round(r * 16), red, -1, cv2.LINE_AA, 4)
    draw_ball(img, cal, (2500.0, 500.0), "white")
    found = detect_frame(img, cal)
    assert len(found) == 2
    d = min(found, key=lambda q: np.hypot(q.x_px - x, q.y_px - y))
    assert np.hypot(d.x_px - x, d.y_px - y) < 1.0


def test_no_ghost_where_a_ball_by_the_cushion_rested_when_the_cloth_was_learned():
    # The cloth under a ball is filled in from the cloth around it only: a dark red cushion and
    # a neighbouring ball must not leak into it (a window median did), else the empty place
    # is a "ball" once the ball has gone.
    cal = calibration()
    empty = cloth()
    corners = cal.table_to_image([[0.0, 0.0], [TABLE.length_mm, TABLE.width_mm]])
    (x0, y1), (x1, y0) = corners
    cushion = np.ones((H, W), bool)
    cushion[int(y0):int(y1), int(x0):int(x1)] = False
    empty[cushion] = (20, 20, 90)  # dark red cushions and rails
    first = empty.copy()
    r_mm = TABLE.ball_radius_mm
    near_cushion = [(1200.0, TABLE.width_mm - r_mm - 1), (1200.0 + 2.2 * r_mm, TABLE.width_mm
                                                          - 3 * r_mm),
                    (3000.0, r_mm + 1), (3000.0 - 2.2 * r_mm, 3 * r_mm)]
    for xy, c in zip(near_cushion, ("yellow", "red", "white", "red"), strict=True):
        draw_ball(first, cal, xy, c)
    det = BallDetector(cal)
    det.learn_cloth(first)
    assert len(det.detect(first, update=False)) == 4
    assert det.detect(empty, update=False) == []


def block_noise(shape: tuple[int, int], sigma: float, seed: int, block: int = 16) -> np.ndarray:
    """Colour noise constant over 16 x 16 pixel blocks, as a video codec's chroma blocks leave
    (the same size in intensity everywhere: large in chromaticity where the image is dark)."""
    h, w = shape
    rng = np.random.default_rng(seed)
    small = rng.normal(0, sigma, (h // block + 1, w // block + 1, 3)).astype(np.float32)
    return np.asarray(np.kron(small, np.ones((block, block, 1), np.float32))[:h, :w])


@pytest.mark.xfail(strict=True, reason="known: the threshold is floored at the next frame's "
                   "noise (twice its 99th percentile) on a neutral cloth only, and there never "
                   "above a quarter of the palest white's contrast (0.025): this noise (blocks "
                   "of sigma 2.5 everywhere) needs more. Flooring it on every cloth lost 49 of "
                   "57 hand-checked balls on the club footage; at the noise against the median, "
                   "the red ball on the real club clip (cloth texture)")
def test_compression_noise_on_a_pale_cloth_makes_no_balls():
    # On a pale, nearly grey cloth a quarter of a white ball's contrast is below the noise that
    # compression leaves in every frame: the threshold must not drop below the first frame's own
    # noise (against a smooth cloth) when the model becomes that frame, noise and all.
    cal = calibration()
    base = pale_cloth(seed=2).astype(np.float32)
    balls = {(500.0, 300.0): "white", (1800.0, 900.0): "yellow", (3100.0, 1500.0): "white"}
    assert_only_the_balls_in_the_second_frame(
        cal, [base + block_noise((H, W), 2.5, seed) for seed in (3, 4)], balls)


def assert_only_the_balls_in_the_second_frame(cal: Calibration, empty: list[np.ndarray],
                                              balls: dict[tuple[float, float], str]) -> None:
    """The balls drawn on both empty frames; the cloth learned from the first: in the second
    the balls are found, and nothing else."""
    frames = []
    for e in empty:
        img = np.clip(e, 0, 255).astype(np.uint8)
        truth = [draw_ball(img, cal, xy, c) for xy, c in balls.items()]
        frames.append(img)
    det = BallDetector(cal)
    det.learn_cloth(frames[0])
    found = det.detect(frames[1], update=False)
    assert len(found) == len(balls)
    for px, py in truth:
        assert min(np.hypot(q.x_px - px, q.y_px - py) for q in found) < 1.5


@pytest.mark.parametrize("seed", range(6))
def test_a_white_ball_on_a_grey_cloth_in_the_first_frame_is_not_learned_as_cloth(seed):
    # On a grey cloth a white ball has hardly any colour against it, only light. Joined to the
    # compression noise of the first frame it made no ball-like blob, stayed in the cloth
    # model, and was unseen for the whole video (W2, at rest through a whole carom shot).
    # On a neutral cloth a pixel much brighter than the cloth is foreground too: the white is
    # a ball-like blob, painted out of the model. (Without a game state: the test below has one.)
    frames, _, white = grey_cloth_frames(seed)
    det = BallDetector(calibration())
    det.learn_cloth(frames[0])
    found = det.detect(frames[1], update=False)
    assert min(np.hypot(q.x_px - white[0], q.y_px - white[1]) for q in found) < 2.0


def test_a_shaded_white_ball_on_a_grey_cloth_is_found_centred():
    # Lit from one side: the white's lit half is 2.5 times as bright as the grey cloth, its
    # shaded edge 1.35 times. Its colour is the cloth's; only its light shows it. The centre
    # comes from the whole ball (0.1 px off), not from its brighter part alone (0.37 px off
    # toward the light: a millimetre).
    cal = calibration()
    empty = np.clip(np.full((H, W, 3), 100.0, np.float32) + block_noise((H, W), 2.0, 5), 0, 255
                    ).astype(np.uint8)
    img = empty.copy()
    (x, y), = cal.table_to_image([(1500.0, 700.0)])
    r = TABLE.ball_radius_mm / cal.mm_per_px()
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    inside = (xx - x) ** 2 + (yy - y) ** 2 <= r * r
    shade = 0.5 + 0.5 * np.clip((xx - x) / r, -1, 1)  # 0 on the left edge, 1 on the right
    img[inside] = np.clip(135 + 120 * shade[inside], 0, 255)[:, None].astype(np.uint8)
    det = BallDetector(cal)
    det.learn_cloth(empty)
    found = det.detect(img, update=False)
    assert min(np.hypot(q.x_px - x, q.y_px - y) for q in found) < 0.2


def test_the_compressions_blocks_in_the_next_frame_raise_a_neutral_cloths_threshold():
    """On a neutral cloth the threshold from the first frame is a quarter of a white ball's
    chromaticity contrast, a fifth of the blocks the compression changes in the next frames (a
    pale grey cloth: 0.003). The blocks were ball candidates, and joined a moving ball's blob
    into one too wide for a ball (a rolling yellow banked to a corner: lost for 100 frames). The
    threshold is raised to twice the next frame's noise: only the balls are found."""
    cal = calibration()
    base = np.ones((H, W, 3), np.float32) * np.array([150, 140, 130], np.float32)
    rng = np.random.default_rng(11)
    changed = (rng.random((H // 16 + 1, W // 16 + 1)) < 0.015).astype(np.float32)
    blocks = np.kron(changed, np.ones((16, 16), np.float32))[:H, :W, None] * np.array(
        [6.0, -3.0, 0.0], np.float32)
    balls = {(800.0, 500.0): "white", (1800.0, 900.0): "yellow", (2800.0, 1300.0): "red"}
    assert_only_the_balls_in_the_second_frame(cal, [base, base + blocks], balls)


def grey_cloth_frames(seed: int) -> tuple[list[np.ndarray], tuple[float, float],
                                         tuple[float, float]]:
    """Two frames (compression noise of their own) of a grey cloth with a white, a yellow and a
    red ball; the white's table mm and its image pixel."""
    cal = calibration()
    base = np.ones((H, W, 3), np.float32) * np.array([150, 140, 130], np.float32)
    at = (3076.0, TABLE.width_mm - 133.0)
    frames = []
    for s in (2 * seed, 2 * seed + 1):
        img = np.clip(base + block_noise((H, W), 2.5, s), 0, 255).astype(np.uint8)
        white = draw_ball(img, cal, at, "white")
        draw_ball(img, cal, (3104.0, TABLE.width_mm - 218.0), "yellow")
        draw_ball(img, cal, (3200.0, TABLE.width_mm - 256.0), "red")
        frames.append(img)
    return frames, at, white


@pytest.mark.parametrize("seed", range(6))
def test_a_white_ball_where_the_game_state_has_one_is_not_learned_as_cloth(seed):
    # The game state knows where the balls were left: the cloth model is painted over where
    # one is expected and the first frame differs from the cloth at all, so a white on a grey
    # cloth (light only, no colour against it) is found from the first frame on, even when
    # the state's position is 25 mm off (a measured, not a true, position).
    frames, at, white = grey_cloth_frames(seed)
    for off in ((0.0, 0.0), (20.0, -15.0)):
        det = BallDetector(calibration())
        det.learn_cloth(frames[0], balls_at=[(at[0] + off[0], at[1] + off[1])])
        found = det.detect(frames[1], update=False)
        assert min(np.hypot(q.x_px - white[0], q.y_px - white[1]) for q in found) < 2.0


def test_an_expected_ball_on_empty_cloth_leaves_the_model_alone():
    # nothing there differs from the cloth: nothing is painted (the cloth's own marks stay)
    img = cloth()
    det = BallDetector(calibration())
    det.learn_cloth(img)
    plain = det.cloth.copy()
    det = BallDetector(calibration())
    det.learn_cloth(img, balls_at=[(1000.0, 700.0), (2500.0, 400.0)])
    assert np.array_equal(det.cloth, plain)
    assert det.detect(img, update=False) == []


def red_and_white_fitted(make=None) -> tuple[BallDetector, list]:
    """A red and a white ball on a cloth (``cloth()`` by default), detected, colour classes
    fitted: the detector and its detections."""
    cal = calibration()
    img = (make or cloth)()
    draw_ball(img, cal, (1500.0, 900.0), "red")
    draw_ball(img, cal, (2500.0, 500.0), "white")
    det = BallDetector(cal)
    det.learn_cloth(img)
    found = det.detect(img, update=False)
    det.fit_colours(found)
    return det, found


def test_a_blob_of_the_cloths_own_colour_is_no_ball():
    # a compression artefact against a model learned from one frame: a blob whose core has the
    # cloth's colour there is left out by the colour step, a ball is kept
    from dataclasses import replace

    det, found = red_and_white_fitted()
    ghost = replace(found[0], bgr=(101.0, 139.0, 38.0), cloth_bgr=(98.0, 135.0, 36.0))
    kept = det.classify([*found, ghost])
    assert len(kept) == len(found) == 2
    assert sorted(d.colour for d in kept) == ["red", "white"]


def test_a_streak_that_is_no_mixture_of_a_ball_and_the_cloth_is_no_ball():
    # A potted red's trail: a streak whose faint core is a little darker than the cloth and
    # greener (no see-through mixture of any ball colour with the cloth) took a white's class and
    # brought the red back out of its pocket. A red blurred over the cloth (a mixture) stays a
    # ball, and so does a streak with a ball's own strong core.
    from dataclasses import replace

    det, found = red_and_white_fitted()
    red = next(d for d in det.classify(found) if d.colour == "red")
    cloth = tuple(float(c) for c in red.cloth_bgr)
    ghost = replace(red, bgr=(cloth[0] - 5.0, cloth[1] + 2.0, cloth[2] - 6.0), streak_mm=102.0)
    assert det.classifier.core_contrast(ghost.bgr, cloth) < STRONG
    assert det.classify([ghost]) == []
    mixed = tuple(0.85 * c + 0.15 * r for c, r in zip(cloth, red.bgr, strict=True))
    blurred = replace(red, bgr=mixed, streak_mm=102.0)
    assert 1.0 < det.classifier.core_contrast(blurred.bgr, cloth) < STRONG
    assert [d.colour for d in det.classify([blurred])] == ["red"]
    assert [d.colour for d in det.classify([replace(red, streak_mm=102.0)])] == ["red"]


def test_a_faint_core_with_a_red_balls_colour_and_light_on_a_red_cloth_is_a_ball():
    # A red potted on a red cloth: its core 1.6 thresholds unlike the cloth there (below
    # STRONG), but of the red class's chromaticity and brightness, and brighter than the cloth:
    # a ball. As unlike the cloth, but no brighter than it: junk (light falls on a ball's top).
    from dataclasses import replace

    det, found = red_and_white_fitted()
    red, cloth = (49.0, 36.0, 237.0), (37.0, 46.0, 172.0)
    det.colours = ColourModel.fit([red, (235.0, 240.0, 240.0), (20.0, 190.0, 220.0)])
    det.threshold, det.cloth_model.level = 0.171, sum(cloth)
    ball = replace(found[0], bgr=red, cloth_bgr=cloth, streak_mm=0.0)
    assert 1.0 < det.classifier.core_contrast(ball.bgr, cloth) < STRONG
    assert [d.colour for d in det.classify([ball])] == ["red"]
    dull = replace(ball, bgr=(33.0, 27.0, 221.0))  # a tenth brighter than the cloth
    assert 1.0 < det.classifier.core_contrast(dull.bgr, cloth) < STRONG
    assert det.classify([dull]) == []


def test_a_faint_core_on_a_red_class_no_brighter_than_a_lit_red_cloth_is_a_ball():
    # A red at rest on a red cloth under a lamp (hard touching_whites_h619): its core 1.8
    # thresholds unlike the cloth there and only 5 % brighter than it, so no lit top to tell it
    # by; but its chromaticity lies on the red class's (0.002 off it, 0.107 off the cloth's), and
    # it was left out as junk from the colours' fit to the end of the shot. Junk a tenth brighter
    # but nearer the cloth in colour (0.41 of the way) is still no ball, and so is a core on the
    # class but darker than the cloth.
    from dataclasses import replace

    det, found = red_and_white_fitted()
    red, cloth = (66.0, 64.0, 237.0), (79.0, 75.0, 194.0)
    det.colours = ColourModel.fit([(70.0, 68.0, 250.0), (235.0, 240.0, 240.0),
                                   (20.0, 190.0, 220.0)])
    det.threshold, det.cloth_model.level = 0.1134, sum(cloth)
    ball = replace(found[0], bgr=red, cloth_bgr=cloth, streak_mm=0.0)
    assert 1.0 < det.classifier.core_contrast(ball.bgr, cloth) < STRONG
    assert [d.colour for d in det.classify([ball])] == ["red"]
    junk = replace(ball, bgr=(74.0, 72.0, 237.0))  # a tenth brighter, 0.41 of the way to the cloth
    assert 1.0 < det.classifier.core_contrast(junk.bgr, cloth) < STRONG
    assert det.classify([junk]) == []
    dark = replace(ball, bgr=(51.0, 49.0, 182.0))  # on the class, darker than the cloth
    assert det.classify([dark]) == []


def test_a_red_core_a_hair_darker_than_a_red_cloth_is_a_ball():
    # A red at rest on a bright red cloth (fresh yellow_middle_twice_s1801): its core of the red
    # class's own brightness and chromaticity, 1.5 thresholds unlike the cloth, read 0.6 % darker
    # than the cloth's model there. Taken for darker than the cloth, both reds were left out for
    # four seconds, until the model's update. Darker by no more than the noise is not darker.
    from dataclasses import replace

    from vision.detection.colour import core_against_cloth

    det, found = red_and_white_fitted()
    red, cloth = (57.0, 61.0, 246.0), (81.0, 71.0, 213.0)
    det.colours = ColourModel.fit([red, (235.0, 240.0, 240.0), (20.0, 190.0, 220.0)])
    det.threshold, det.cloth_model.level = 0.1253, 301.0
    ball = replace(found[0], bgr=red, cloth_bgr=cloth, streak_mm=0.0)
    assert 0.99 < core_against_cloth(red, cloth)[1] < 1.0
    assert 1.0 < det.classifier.core_contrast(ball.bgr, cloth) < STRONG
    assert [d.colour for d in det.classify([ball])] == ["red"]
    # darker than the noise: as before, no ball
    assert det.classify([replace(ball, bgr=(53.0, 57.0, 229.0))]) == []


def two_red_classes_fitted(centres: list[list[float]], brightness: tuple[float, ...], *,
                           threshold: float, level: float) -> tuple[BallDetector, Detection]:
    """A detector whose colour classes are a red cloth video's (red, white, yellow, red: a lit
    red class and another), with its ball threshold and cloth level; and a detection to dress
    as a ball."""
    det, found = red_and_white_fitted()
    det.colours = ColourModel(centres=np.array(centres), names=("red", "white", "yellow", "red"),
                              brightness=brightness)
    det.threshold, det.cloth_model.level = threshold, level
    return det, found[0]


def test_a_red_on_a_red_cloth_read_by_light_is_no_block_of_the_cloth():
    # On a neutral cloth a core of about the cloth's chromaticity, no brighter than it, is one of
    # the compression's blocks (cloth_in_light): a red or yellow ball lies further off. A red
    # cloth whose reds at rest are faint is read by light as well (see
    # ClothModel._faint_balls_floor), but there a red lies within that of the cloth's colour: in
    # hard yellow_middle_twice_h647 the two reds (0.11-0.24 from the cloth's chromaticity, 3 %
    # brighter than the cloth's model to 17 % darker, as the lamps flickered) were left out in
    # every frame. Only a neutral cloth has such blocks; on the red cloth a faint block is junk
    # by its contrast.
    from dataclasses import replace

    cloth = (56.0, 47.0, 160.0)
    det, seen = two_red_classes_fitted(
        [[0.178, 0.159, 0.663], [0.31, 0.34, 0.35], [0.1, 0.39, 0.51], [0.25, 0.25, 0.51]],
        (274.0, 708.0, 430.0, 269.0), threshold=0.068, level=sum(cloth))
    det.cloth_model.by_light, det.cloth_model.brighter = True, 0.3
    for bgr in ((48.0, 43.0, 179.0), (39.0, 31.0, 157.0)):
        ball = replace(seen, bgr=bgr, cloth_bgr=cloth, streak_mm=0.0)
        assert [d.colour for d in det.classify([ball])] == ["red"]
    block = replace(ball, bgr=(55.0, 45.0, 167.0))  # about the cloth's colour, 4 % brighter
    assert det.classify([block]) == []
    det.cloth_model.neutral = True  # the same numbers on a neutral cloth: the cloth's blocks
    assert det.classifier.cloth_in_light(ball)
    assert det.classify([ball]) == []


def test_a_red_at_rest_on_a_red_cloth_between_two_red_classes_is_a_ball():
    # A video's colours gave the reds two classes, a lit one and a darker one. A red at rest
    # on a red cloth (core 1.7 thresholds unlike the cloth), its core nearest the lit class in
    # colour but of the darker one's brightness and sure of neither, was left out as junk for
    # frames while it lay still. It is a ball, as a class of its name says; junk as unlike
    # the cloth but no brighter than it is still no ball.
    from dataclasses import replace

    cloth = (19.0, 22.0, 89.0)
    det, seen = two_red_classes_fitted(
        [[0.106, 0.135, 0.759], [0.308, 0.339, 0.352], [0.078, 0.447, 0.475],
         [0.121, 0.136, 0.743]],
        (241.0, 698.5, 511.0, 203.0), threshold=0.1722, level=186.0)  # (a darker cloth there)
    ball = replace(seen, bgr=(18.0, 25.0, 145.0), cloth_bgr=cloth, streak_mm=0.0)
    i, sure = det.colours.nearest(ball.bgr)
    assert (det.colours.names[i], sure) == ("red", False)
    assert det.colours.brightness is not None and (
        sum(ball.bgr) + 3) / (det.colours.brightness[i] + 3) < 1 / 1.25  # not the lit class's
    assert 1.0 < det.classifier.core_contrast(ball.bgr, cloth) < STRONG
    assert [d.colour for d in det.classify([ball])] == ["red"]
    dull = replace(ball, bgr=(21.0, 24.0, 100.0))  # as red, barely brighter than the cloth
    assert det.classify([dull]) == []


def detector_and_blocky_frame(corners_mm: tuple[tuple[float, float], tuple[float, float]],
                              red_gain: float) -> tuple[Calibration, BallDetector, np.ndarray]:
    """A detector that learned the empty cloth, and a frame of that cloth with a block of
    compression junk (the red channel times ``red_gain``) over a table rectangle."""
    cal = calibration()
    base = cloth()
    det = BallDetector(cal)
    det.learn_cloth(base)
    det.detect(cloth(seed=1), update=False)  # (the next frame's noise floors the threshold)
    img = base.copy()
    corners = cal.table_to_image([list(c) for c in corners_mm])
    (x0, y0), (x1, y1) = corners.min(0).astype(int), corners.max(0).astype(int)
    block = img[y0:y1, x0:x1].astype(np.float32)
    img[y0:y1, x0:x1] = np.clip(block * (1.0, 1.0, red_gain), 0, 255).astype(np.uint8)
    return cal, det, img


def test_balls_joined_by_a_faint_block_of_junk_are_both_found():
    # A compression block between two balls, a little above the threshold, joins them into one
    # blob too wide for balls (which is how a hand looks): the balls are found by their own,
    # strong, pixels; the block is no ball.
    cal, det, img = detector_and_blocky_frame(((1640.0, 830.0), (1880.0, 990.0)), red_gain=1.7)
    a, b = (1700.0, 900.0), (1700.0 + 1.7 * TABLE.ball_diameter_mm, 900.0 + 30.0)
    pa, pb = draw_ball(img, cal, a, "white"), draw_ball(img, cal, b, "red")
    f = det.cloth_model.foreground(det.shrink(img))
    grid = det.grid
    gap = f[grid.work_row[round((pa[1] + pb[1]) / 2)], grid.work_col[round((pa[0] + pb[0]) / 2)]]
    assert det.threshold < gap < 2.0 * det.threshold  # the block is faint junk, above threshold
    found = det.detect(img, update=False)
    assert len(found) == 2
    for px, py in (pa, pb):
        assert min(np.hypot(q.x_px - px, q.y_px - py) for q in found) < 1.5


def test_a_moving_ball_in_stronger_junk_blocks_is_found():
    # A ball moving in a compressed video leaves blocks around it at a few times the threshold:
    # above twice the threshold they still join it into a blob too wide for a ball. The ball
    # outshines them many times over, and is found by its pixels above four times it.
    cal, det, img = detector_and_blocky_frame(((1560.0, 800.0), (1900.0, 980.0)), red_gain=2.6)
    p = draw_ball(img, cal, (1700.0, 900.0), "yellow")
    f = det.cloth_model.foreground(det.shrink(img))
    level = f[det.grid.work_row[round(p[1])], det.grid.work_col[round(p[0] - 40)]] / det.threshold
    assert 2.0 < level < 4.0  # the junk beside the ball
    found = det.detect(img, update=False)
    assert len(found) == 1 and np.hypot(found[0].x_px - p[0], found[0].y_px - p[1]) < 1.5


@pytest.mark.parametrize("mix", [0.3, 0.5])
def test_two_pale_whites_in_a_row_with_a_yellow_in_junk_are_three_balls(mix):
    # As W2, W1 and Y after a carom: three balls touching in a row, the two whites pale (W1
    # blurred: a mixture with the cloth, under four times the threshold), joined by a faint
    # block of junk into a blob too wide for balls. Their pixels above twice the threshold are
    # three balls in a row, to be split there: above four times it only the yellow is left.
    cal, det, img = detector_and_blocky_frame(((1600.0, 800.0), (1950.0, 1000.0)), red_gain=1.7)
    d = TABLE.ball_diameter_mm
    whites = [(1700.0, 900.0), (1700.0 + d, 900.0)]
    over = img.copy()
    truth = [draw_ball(over, cal, xy, "white") for xy in whites]
    img = cv2.addWeighted(over, mix, img, 1 - mix, 0)
    truth.append(draw_ball(img, cal, (1700.0 + 2 * d, 905.0), "yellow"))
    f = det.cloth_model.foreground(det.shrink(img))
    level = f[det.grid.work_row[round(truth[0][1])], det.grid.work_col[round(truth[0][0])]]
    assert 2.0 < level / det.threshold < 4.0  # a pale white
    found = det.detect(img, update=False)
    assert len(found) == 3
    for px, py in truth:
        assert min(np.hypot(q.x_px - px, q.y_px - py) for q in found) < 2.0


def test_a_red_ball_a_little_brighter_than_half_a_bright_cloth_is_seen_whole():
    # As a red banked to a corner on a bright green cloth: the red's middle is at 0.62 of the
    # cloth's brightness, its shaded rim at 0.4. Against the cloth's brightness the middle is
    # weighted down (lit, but little above the threshold) and the rim to nothing: half a ball's
    # blob, too small for a ball, and R1 was never seen until struck. Measured against its own
    # brightness (a dark ball's reference) the whole disc is above the threshold. (The same on a
    # darker green: R2 unseen for 118 frames of 180, its blob flickering around the least area
    # of a ball.)
    det = BallDetector(calibration())
    det.learn_cloth(cloth())
    det.threshold = 0.09  # that cloth's
    r = det.grid.d_work / 2
    yy, xx = np.mgrid[0:41, 0:41].astype(np.float32)
    rho = np.hypot(xx - 20, yy - 20) / r
    disc = rho <= 1
    d = np.where(disc, 1.25, 0.02).astype(np.float32)  # strongly coloured
    ratio = np.where(disc, np.where(rho > 0.75, 0.4, 0.62), 1.0).astype(np.float32)
    si = ratio * np.float32(det.cloth_model.level)
    w = det.cloth_model.weights(d.copy(), si, ratio.copy())
    assert np.count_nonzero(w[disc] > det.threshold) < 0.6 * disc.sum()
    det.cloth_model.dark_balls(d, ratio, si, w)
    assert np.all(w[disc] > det.threshold)


def test_the_noise_in_a_black_pocket_hole_is_no_ball():
    # In a nearly black hole the colour of a pixel is noise: a few grey levels change its
    # chromaticity completely. The hole in the learned frame and the hole now differ only so.
    from rules.table import Pocket

    cal = calibration()
    base = cloth()
    (hx, hy), = cal.table_to_image([TABLE.pocket_xy(Pocket.FR)])
    r = round(1.2 * TABLE.ball_radius_mm / cal.mm_per_px())
    rng = np.random.default_rng(5)

    def with_hole() -> np.ndarray:
        img = base.copy()
        hole = np.zeros_like(img[:, :, 0])
        cv2.circle(hole, (round(hx), round(hy)), r, 1, -1)
        dark = rng.integers(0, 7, img.shape, dtype=np.uint8)
        img[hole > 0] = dark[hole > 0]
        return img

    det = BallDetector(cal)
    det.learn_cloth(with_hole())
    for _ in range(3):
        found = det.detect(with_hole(), update=False)
        assert all(np.hypot(q.x_px - hx, q.y_px - hy) > 3 * r for q in found)


def test_a_blob_barely_unlike_the_cloth_is_no_ball_a_white_on_a_pale_cloth_is():
    # junk (a dark corner, a compression block): the core a little off the cloth's colour, more
    # than the cloth-like margin but far less unlike it than any ball; a white ball on a pale
    # cloth, the faintest ball there is, stays
    from dataclasses import replace

    from vision.detection.colour import cloth_coloured

    for make in (cloth, pale_cloth):
        det, found = red_and_white_fitted(make)
        assert sorted(d.colour for d in det.classify(found)) == ["red", "white"]
    # on the green cloth (its ball threshold is ten times the pale one's) a 12 % shift of one
    # channel is beyond the cloth-like margin and still faint
    det, found = red_and_white_fitted()
    under = found[0].cloth_bgr
    assert under is not None
    junk = replace(found[0], bgr=(under[0], under[1], 1.12 * under[2]))
    assert not cloth_coloured(junk, DEFAULT_DETECTION)
    kept = det.classify([*found, junk])
    assert len(kept) == len(found) == 2
    # in a corner a third as bright, a chromaticity is three times as noisy: so is the margin
    dim = (under[0] / 3, under[1] / 3, under[2] / 3)
    dark_junk = replace(found[0], bgr=(dim[0], dim[1], 2.0 * dim[2]), cloth_bgr=dim)
    assert not cloth_coloured(dark_junk, DEFAULT_DETECTION)
    assert len(det.classify([*found, dark_junk])) == 2


# The mask (work pixels, ball radius 4.68) of two white balls touching on a diagonal, as the
# first frames of a synthetic video drew them: their light fills the neck.
TOUCHING_ON_A_DIAGONAL = """
..............111...
............1111111.
...........11111111.
..........1111111111
..........1111111111
.......11.1111111111
.....111111111111111
....1111111111111111
...11111111111111111
...11111111111111111
...1111111111...11..
...1111111111.......
...111111111........
...111111111........
....111111..........
......11............
"""


def test_two_balls_touching_on_a_diagonal_are_two_balls_not_a_streak():
    # the pixel between the two centres keeps 0.7 radii of the blob's width there (as a streak
    # would); but a streak is as wide as at its peaks all along, two balls are not
    from vision.detection.shapes import distances

    rows = TOUCHING_ON_A_DIAGONAL.split()
    mask = np.array([[c == "1" for c in row] for row in rows], np.uint8)
    det = BallDetector(calibration())
    r = 4.68
    blobs = splitter(det).split(distances(mask), 0, 0, 1, r, int(mask.sum()))
    assert len(blobs) == 2
    assert not any(b.streak for b in blobs)
    centres = sorted((b.x, b.y) for b in blobs)
    assert np.hypot(centres[0][0] - 7, centres[0][1] - 10) < 1.5  # the lower-left ball
    assert np.hypot(centres[1][0] - 14, centres[1][1] - 5) < 1.5  # the upper-right ball


@pytest.mark.parametrize("angle", [0.0, 30.0, 45.0, 60.0])
def test_two_balls_touching_at_any_angle_are_two_balls_not_a_streak(angle):
    # on a diagonal the pixel between the two centres can keep 0.7 radii of the blob's width
    # (as a streak would); but a streak is as wide as at its peaks all along, two balls are not
    import math as m

    cal, img, det = on_empty_cloth()
    a = (1700.0, 900.0)
    d = TABLE.ball_diameter_mm * 1.005
    b = (a[0] + d * m.cos(m.radians(angle)), a[1] + d * m.sin(m.radians(angle)))
    # the light a white ball throws on the cloth around it: a faint halo that fills the neck
    r = TABLE.ball_radius_mm / cal.mm_per_px()
    halo = np.zeros(img.shape[:2], np.uint8)
    for xy in (a, b):
        (x, y), = cal.table_to_image([xy])
        cv2.circle(halo, (round(x), round(y)), round(1.25 * r), 1, -1)
    img[halo > 0] = np.clip(img[halo > 0].astype(np.float32) * (1.25, 1.15, 1.6), 0, 255)
    pa, pb = draw_ball(img, cal, a, "white", dots=1), draw_ball(img, cal, b, "white", dots=2)
    found = det.detect(img, update=False)
    assert all(q.streak_mm == 0 for q in found)
    assert len(found) == 2
    for px, py in (pa, pb):
        assert min(np.hypot(q.x_px - px, q.y_px - py) for q in found) < 2.5


@pytest.mark.parametrize("gaps_mm", [(10.0, 10.0), (25.0, 10.0)])
def test_three_nearly_touching_balls_of_three_colours_are_three_balls_in_place(gaps_mm):
    # three balls a few mm apart, each throwing a faint halo of light on the cloth around it:
    # their blob's area holds four balls' worth of pixels, but its shape holds three (a fourth
    # "ball" in the gap pulled its neighbours' centres several mm towards it)
    import math as m

    cal = calibration()
    img = cloth()
    d = TABLE.ball_diameter_mm
    a = (1700.0, 900.0)
    b = (a[0] + d + gaps_mm[0], a[1])
    half = 0.5 * (d + gaps_mm[0])
    c = (a[0] + half, a[1] + m.sqrt((d + gaps_mm[1]) ** 2 - half ** 2))
    r = TABLE.ball_radius_mm / cal.mm_per_px()
    halo = np.zeros(img.shape[:2], np.uint8)
    for xy in (a, b, c):
        (x, y), = cal.table_to_image([xy])
        cv2.circle(halo, (round(x), round(y)), round(1.25 * r), 1, -1)
    img[halo > 0] = np.clip(img[halo > 0].astype(np.float32) * (1.25, 1.15, 1.6), 0, 255)
    for xy, colour in ((a, "white"), (b, "red"), (c, "yellow")):
        draw_ball(img, cal, xy, colour)
    det = BallDetector(cal)
    det.learn_cloth(img)
    found = det.detect(img, update=False)
    assert len(found) == 3
    for x, y in (a, b, c):
        assert min(np.hypot(q.x_mm - x, q.y_mm - y) for q in found) < 2.0


@pytest.mark.parametrize("angle", [0.0, 35.0, 90.0, 150.0])
def test_a_motion_blur_streak_tells_its_direction_on_the_table(angle):
    # a fast ball smeared along its way over the frame: the detection is one streak, its centre
    # the middle of the way and its direction the way's (either sense: a streak has no arrow)
    import math as m

    cal, img, det = on_empty_cloth()
    start, length = np.array([1500.0, 800.0]), 4 * TABLE.ball_diameter_mm
    way = np.array([m.cos(m.radians(angle)), m.sin(m.radians(angle))])
    blur = np.zeros(img.shape, np.float32)
    steps = 24
    for k in range(steps):  # the ball's picture at each instant of the exposure, averaged
        draw = img.copy()
        draw_ball(draw, cal, tuple(start + way * length * k / (steps - 1)), "yellow")
        blur += draw.astype(np.float32) / steps
    img = np.clip(blur, 0, 255).astype(np.uint8)
    found = det.detect(img, update=False)
    streaks = [q for q in found if q.streak_mm > 0]
    assert len(streaks) == 1
    q = streaks[0]
    middle = start + way * length / 2
    assert np.hypot(q.x_mm - middle[0], q.y_mm - middle[1]) < 0.25 * TABLE.ball_diameter_mm
    assert q.streak_mm > 3 * TABLE.ball_diameter_mm  # (its length is short on a diagonal)
    assert abs(abs(float(np.dot(q.streak_dir, way))) - 1.0) < 1e-3 + 1 - m.cos(m.radians(5))
    assert np.hypot(*q.streak_dir) == pytest.approx(1.0)
    # and a sharp ball has none
    assert all(p.streak_dir == (0.0, 0.0) for p in found if p.streak_mm == 0)


def red_cloth() -> np.ndarray:
    """A dark red cloth (as the synthetic ones of nearly a red ball's hue) with a little noise."""
    img = np.full((H, W, 3), (30, 17, 84), np.float32)
    img += np.random.default_rng(3).normal(0, 2, img.shape).astype(np.float32)
    return np.clip(img, 0, 255).astype(np.uint8)


def blurred(img: np.ndarray, cal: Calibration, start: np.ndarray, end: np.ndarray,
            colour: str) -> np.ndarray:
    """``img`` with a ball of ``colour`` smeared from ``start`` to ``end`` (table mm) over the
    exposure: its picture at each instant, averaged."""
    acc = np.zeros(img.shape, np.float32)
    steps = 24
    for k in range(steps):
        draw = img.copy()
        draw_ball(draw, cal, tuple(start + (end - start) * k / (steps - 1)), colour)
        acc += draw.astype(np.float32) / steps
    return np.clip(acc, 0, 255).astype(np.uint8)


def test_a_red_whose_pale_middle_has_a_red_cloths_colour_is_a_ball():
    # A saturated red on a paler red cloth: its dots and highlight, white mixed with the red, have
    # the cloth's chromaticity (only brighter), so only its rim is foreground: a thin ring, which
    # the opening would wipe (both reds were never seen in a whole shot). The ring's hole is the
    # ball's.
    cal = calibration()
    img = np.full((H, W, 3), (50, 46, 140), np.float32)
    img += np.random.default_rng(4).normal(0, 2, img.shape).astype(np.float32)
    img = np.clip(img, 0, 255).astype(np.uint8)
    det = BallDetector(cal)
    det.learn_cloth(img)
    r = TABLE.ball_radius_mm / cal.mm_per_px()
    centres = []
    for xy in ((900.0, 700.0), (2600.0, 1100.0)):
        x, y = draw_ball(img, cal, xy, "red")
        s = 16
        cv2.circle(img, (round(x * s), round(y * s)), round(0.55 * r * s), (90, 83, 252), -1,
                   cv2.LINE_AA, 4)  # the cloth's colour, 1.8 times as bright
        centres.append((x, y))
    found = det.detect(img, update=False)
    assert len(found) == 2
    for x, y in centres:
        assert min(np.hypot(q.x_px - x, q.y_px - y) for q in found) < 1.0


@pytest.mark.parametrize("angle", [0.0, 40.0, 90.0, 130.0])
def test_a_red_blurred_over_a_red_cloth_is_a_short_streak_and_a_red_ball(angle):
    # On a cloth of nearly its hue a fast red's blur is so faint that only its middle rises
    # above the threshold: a blob of about one ball's area, drawn out along the way. Its core is
    # barely unlike the cloth (a sharp blob as faint is junk), but as a streak it is kept, and a
    # mixture of red and the cloth names it red.
    import math as m

    cal, img = calibration(), red_cloth()
    det = BallDetector(cal)
    det.learn_cloth(img)
    sharp = img.copy()
    for xy, colour in (((600.0, 400.0), "dark red"), ((900.0, 1300.0), "white"),
                       ((2900.0, 500.0), "yellow"), ((3100.0, 1400.0), "white")):
        draw_ball(sharp, cal, xy, colour)
    det.fit_colours(det.detect(sharp, update=False))
    way = np.array([m.cos(m.radians(angle)), m.sin(m.radians(angle))])
    start = np.array([1700.0, 800.0])
    end = start + way * 1.75 * TABLE.ball_diameter_mm  # 3.6 m/s at 30 frames a second
    found = det.detect(blurred(img, cal, start, end, "dark red"), update=False)
    middle = 0.5 * (start + end)
    near = [q for q in found if np.hypot(q.x_mm - middle[0], q.y_mm - middle[1])
            < 0.5 * TABLE.ball_diameter_mm]
    assert len(near) == 1
    assert near[0].colour == "red"
    assert near[0].streak_mm > TABLE.ball_diameter_mm
    assert abs(abs(float(np.dot(near[0].streak_dir, way))) - 1.0) < 1 - m.cos(m.radians(10))


def test_only_a_blob_longer_than_a_ball_and_as_wide_is_drawn_out():
    # (work pixels, radius 5) a disc, a half-hidden ball, a piece of the cue (a strip 1.2 balls
    # long, half a ball wide: as spread across as the cue's pieces on the synthetic clips) are
    # not; a ball's faint blur (1.6 balls long, 0.8 wide) is, along its way
    from vision.detection.shapes import one_ball

    r = 5.0
    yy, xx = np.mgrid[0:40, 0:40].astype(np.float64) - 20.0

    def shape(inside: np.ndarray) -> tuple[bool, tuple[float, float]]:
        b = one_ball(inside, 20.0, 20.0, 1, (), r, DEFAULT_DETECTION)
        assert not b.streak  # (whether it is a streak is decided by its core's colour)
        return b.drawn_out, b.axis

    assert not shape(xx ** 2 + yy ** 2 <= r * r)[0]
    assert not shape((xx ** 2 + yy ** 2 <= r * r) & (yy <= 0))[0]
    assert not shape((np.abs(xx) <= 1.2 * r) & (np.abs(yy) <= 0.5 * r))[0]
    along, across = (xx + yy) / np.sqrt(2), (xx - yy) / np.sqrt(2)
    streak, axis = shape((np.abs(along) <= 1.6 * r) & (np.abs(across) <= 0.8 * r))
    assert streak
    assert abs(abs(axis[0] + axis[1]) / np.sqrt(2) - 1.0) < 1e-6


def test_a_drawn_out_blob_is_a_blur_only_if_its_core_is_faint_but_no_fainter_than_a_ball_s():
    # core colours measured on the synthetic videos: a red's blur on a red cloth, a sharp red
    # there, and a block of junk by a pocket's hole (nearly the cloth's own colour, but just more
    # than cloth_like_share off in each channel of a dark cloth)
    cal, img = calibration(), red_cloth()
    det = BallDetector(cal)
    det.learn_cloth(img)
    assert det.classifier.a_blur((28.0, 16.0, 110.0), (30.0, 17.0, 84.0), det.colours)
    assert not det.classifier.a_blur((18.0, 16.0, 160.0), (30.0, 17.0, 84.0), det.colours)
    assert not det.classifier.a_blur((24.0, 32.0, 22.0), (22.0, 35.0, 24.0), det.colours)


def test_a_compression_ghost_where_a_ball_rolled_is_no_blur():
    """After R2 rolled into a corner pocket over a dark cloth, the video keeps a ghost of it
    on its way there for a few seconds: a drawn-out blob a little bluer than the
    cloth, faint but above the threshold (1.27 of it where the corner is half as bright as the
    cloth's usual 249), named white and taken for R2 on the table for three seconds after its
    pot. No ball's colour mixed with the cloth makes it; a red blurred over the cloth does."""
    img = np.full((H, W, 3), (80, 100, 69), np.float32)  # the cloth's usual brightness: 249
    img += np.random.default_rng(5).normal(0, 1.5, img.shape).astype(np.float32)
    det = BallDetector(calibration())
    det.learn_cloth(np.clip(img, 0, 255).astype(np.uint8))
    det.threshold = 0.033  # as the video's (its compression noise)
    det.colours = ColourModel.fit(np.array([(215, 230, 235)] * 6 + [(25, 24, 171)] * 6
                                           + [(28, 186, 210)] * 4, float))
    ghost, corner = (44.0, 49.0, 33.0), (38.0, 47.0, 33.0)
    assert 1.0 <= det.classifier.core_contrast(ghost, corner) < STRONG
    assert det.colours.mixture(ghost, corner) is None
    assert not det.classifier.a_blur(ghost, corner, det.colours)
    red_blur = tuple(0.05 * r + 0.95 * c for r, c in zip((25, 24, 171), corner, strict=True))
    assert 1.0 <= det.classifier.core_contrast(red_blur, corner) < STRONG
    assert det.classifier.a_blur(red_blur, corner, det.colours)


def test_a_ball_creeping_a_little_each_frame_is_followed():
    """A ball creeping 0.05 px a frame (a white in a pocket's jaws): each frame's change is
    too small to take for a new picture, but a resting ball's answer is kept only while its
    blob and surroundings are as they were when it was made, so the detection follows the
    ball (it lagged by up to a pixel, 4 mm, and a creep into the pocket was not seen)."""
    cal, empty, det = on_empty_cloth()
    lags = []
    for k in range(60):
        img = empty.copy()
        x, y = draw_ball(img, cal, (1500.0 + 0.05 * k * cal.mm_per_px(), 700.0), "red")
        found = det.detect(img)
        lags.append(min(np.hypot(q.x_px - x, q.y_px - y) for q in found))
    assert max(lags) < 0.4


def test_a_ball_joined_to_a_hand_by_the_cue_is_found_at_the_strong_level():
    """As in real footage of a break: the cue's tip on a white ball
    joins it to the bridge hand in one blob. At STRONG times the threshold the ball is a part of
    its own and the hand one too wide for balls; at STRONGER the hand breaks into two knuckles
    and the pale ball is gone. Only the hand's part is searched at STRONGER: the ball stays."""
    _, _, det = on_empty_cloth()
    t, r = det.threshold, 5.0
    f = np.zeros((80, 40), np.float32)
    f[2:40, 5:35] = 0.5 * (STRONG + STRONGER) * t  # the hand, strong but too wide for a ball
    for cy in (10, 30):  # ... its knuckles stronger still, ball-sized
        cv2.circle(f, (20, cy), 5, float(1.5 * STRONGER * t), -1)
    f[40:60, 19:21] = 1.5 * t  # the cue, thin and faint
    cv2.circle(f, (20, 66), 6, float(0.5 * (STRONG + STRONGER) * t), -1)  # the pale ball
    part = (f > t).astype(np.uint8)
    found = splitter(det).strong_parts(f, part, 0, 0, 1, r)
    assert found is not None
    assert any(math.hypot(b.x - 20, b.y - 66) < 1.5 for b in found)


def draw_white_under_a_spotlight(img: np.ndarray, cal: Calibration, xy_mm: tuple[float, float],
                                 lit: float) -> tuple[float, float]:
    """A white ball lit from straight above on a bright cloth: ``lit`` times the cloth's light on
    its top (clipped at white), falling off toward a rim darker than the cloth, with two dots."""
    (x, y), = cal.table_to_image([xy_mm])
    r = TABLE.ball_radius_mm / cal.mm_per_px()
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    rho2 = ((xx - x) ** 2 + (yy - y) ** 2) / (r * r)
    inside = rho2 <= 1.0
    top = np.sqrt(np.clip(1.0 - rho2, 0.0, 1.0))
    shade = 0.55 + (lit - 0.55) * top  # 0.55 of the cloth's light at the rim, lit on top
    img[inside] = np.clip(img[inside].astype(np.float32) * shade[inside][:, None], 0, 255
                          ).astype(np.uint8)
    for dx in (-0.25 * r, 0.25 * r):
        cv2.circle(img, (round(x + dx), round(y)), 1, (20, 20, 25), -1,
                   cv2.LINE_AA)
    return float(x), float(y)


def test_a_white_ball_on_a_bright_neutral_cloth_is_found_by_its_lit_top():
    """A neutral cloth in a spotlight, at 0.7 of full white: a white ball there is at most 1.4
    times as bright as the cloth, and its rim is darker than the cloth. Its lit top (half its
    disc) is what shows. With a margin of 1.3 times the cloth's brightness, and a blob needing
    0.45 of a disc, it was never seen after the first frame of a synthetic video."""
    cal = calibration()
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    light = 0.8 + 0.2 * np.exp(-(((xx - 640) / 400) ** 2 + ((yy - 360) / 250) ** 2))
    base = light[..., None] * np.array([176.0, 182.0, 180.0], np.float32)
    at = (1500.0, 800.0)
    frames, white = [], (0.0, 0.0)
    for s in (3, 4):
        img = np.clip(base + block_noise((H, W), 1.0, s), 0, 255).astype(np.uint8)
        white = draw_white_under_a_spotlight(img, cal, at, 1.38)
        frames.append(img)
    det = BallDetector(cal)
    det.learn_cloth(frames[0], balls_at=[at])
    found = det.detect(frames[1], update=False)
    assert found and min(np.hypot(q.x_px - white[0], q.y_px - white[1]) for q in found) < 1.5


def test_touching_balls_turning_about_their_contact_are_followed():
    """Two touching balls turning slowly about the point where they touch (as two balls rolling
    past each other after a carom): their blob keeps its size and centre, and the places of its
    pieces (maxima of a distance map, whole work pixels) stay put for frames on end. Each ball
    is found anew in every frame all the same (the last frame's answers were kept, up to 4 mm
    behind, and the contact was lost)."""
    cal, empty, det = on_empty_cloth()
    centre, half = np.array([1800.0, 900.0]), 0.5 * TABLE.ball_diameter_mm
    errors, last, held = [], set(), 0
    for k in range(20):
        img = empty.copy()
        way = np.array([math.cos(0.5 + 0.08 * k), math.sin(0.5 + 0.08 * k)])
        drawn = [draw_ball(img, cal, tuple(centre + s * half * way), c)
                 for s, c in ((1.0, "white"), (-1.0, "red"))]
        found = det.detect(img)
        assert len(found) == 2
        errors += [min(math.hypot(q.x_px - x, q.y_px - y) for q in found) for x, y in drawn]
        now = {(q.x_px, q.y_px) for q in found}
        held += len(now & last)
        last = now
    assert held == 0
    assert max(errors) < 1.0


def _under_a_light_turning_warmer(det: BallDetector, frames: int = 240) -> list[int]:
    """How many balls ``det`` finds in each frame of a cloth whose light turns much warmer over
    ``frames`` frames (blue down by half, red up by a fifth: a lamp's colour drifting, far faster
    than a club's light does), a white and a red on it."""
    cal, base = det.calibration, cloth().astype(np.float32)
    rng = np.random.default_rng(5)
    noise = [rng.normal(0, 2, base.shape).astype(np.float32) for _ in range(3)]
    end = np.array([0.5, 0.75, 1.2], np.float32)
    counts = []
    for k in range(frames):
        gain = 1 + (end - 1) * min(1.0, k / (0.8 * frames))
        img = np.clip(base * gain + noise[k % 3], 0, 255).astype(np.uint8)
        draw_ball(img, cal, (900.0, 700.0), "white")
        draw_ball(img, cal, (2500.0, 1100.0), "red")
        if det.cloth is None:
            det.learn_cloth(img)
        counts.append(len(det.detect(img)))
    return counts


def test_the_cloth_model_follows_the_light_as_it_changes():
    # Chromaticity alone does not follow a change of the light's colour: a detector that never
    # updates its cloth sees the whole cloth come up as balls
    assert max(_under_a_light_turning_warmer(BallDetector(calibration(),
                                                          cloth_update_every=0))) > 20
    assert set(_under_a_light_turning_warmer(BallDetector(calibration()))) == {2}


def test_the_model_updates_tell_the_cloth_from_the_balls_by_a_coarse_median():
    # An update's wide median is taken on a grid coarse_step_diameters apart (a tenth of the
    # cost): on the cloth, balls and all, it is the full median within the noise, and what
    # stands out against it (the balls, a ball's shadow and light around them) is what stands
    # out against the full one; learning, once, takes the full median even when handed an
    # update's work.
    cal = calibration()
    img = cloth()
    for i, at in enumerate([(900.0, 700.0), (950.0, 760.0), (2500.0, 1100.0), (1800.0, 300.0)]):
        draw_ball(img, cal, at, ("white", "red", "yellow", "white")[i])
    det = BallDetector(cal)
    det.learn_cloth(cloth(1))
    small = det.shrink(img)
    full, coarse = det.cloth_model.cloth_from(small), det.cloth_model.cloth_from(small, coarse=True)
    inside = det.grid.on_cloth
    assert float(np.abs(coarse - full)[inside].max()) <= 4.0  # (noise sigma 2, a lit gradient)
    model = det.cloth_model
    like_full, like_coarse = model.cloth_like(small, full), model.cloth_like(small, coarse)
    assert np.count_nonzero(~like_full & inside) > 4 * 60  # four balls and their surroundings
    assert np.count_nonzero((like_full != like_coarse) & inside) <= 0.01 * np.count_nonzero(
        ~like_full & inside)
    _, update = det.prepare(img, 29)
    assert update is not None and update.coarse and update.cloth_like is not None
    assert np.array_equal(update.smooth, coarse)
    # handed an update's coarse work, learning makes the full median itself
    fresh, asked = BallDetector(cal), []
    made = fresh.cloth_model.cloth_from
    fresh.cloth_model.cloth_from = (  # type: ignore[method-assign]
        lambda s, coarse=False: asked.append(coarse) or made(s, coarse))
    fresh.learn_cloth(img, small=small, ahead=update)
    assert asked == [False]


def test_the_foreground_map_stands_through_a_model_update_until_the_picture_changes():
    # An update moves the model only at cloth pixels, toward the picture, by a quarter of a
    # difference within the noise: the map is not made again over the whole table for it (a
    # third of an update's cost), only where the picture then changes; the balls are the same.
    cal = calibration()
    img = cloth()
    draw_ball(img, cal, (900.0, 700.0), "white")
    draw_ball(img, cal, (2500.0, 1100.0), "red")
    det = BallDetector(cal)
    det.learn_cloth(img)
    whole, made = [], det.foreground_map._whole
    det.foreground_map._whole = (  # type: ignore[method-assign]
        lambda small, cloth: whole.append(1) or made(small, cloth))
    found = [[(d.x_mm, d.y_mm) for d in det.detect(img)] for _ in range(2 * det.cloth_update_every)]
    assert len(whole) == 1  # the first frame's map only
    assert all(f == found[0] for f in found) and len(found[0]) == 2
    moved = img.copy()
    draw_ball(moved, cal, (1500.0, 700.0), "yellow")
    assert len(det.detect(moved)) == 3


def splitter(det: BallDetector) -> BallSplitter:
    """The detector's blob splitter against its threshold now."""
    return det.blob_finder.splitter(det.threshold)


def search(det: BallDetector, f: np.ndarray, rect: tuple[int, int, int, int]) -> list[Blob]:
    """The detector's candidates in ``rect`` of the foreground map ``f``."""
    return det.blob_finder.search(f, rect, det.threshold, det.cloth_model.by_light)


def work_map_by_the_middle() -> tuple[BallDetector, np.ndarray, tuple[int, int], float]:
    """A detector on empty cloth, ready to search a foreground map of its own: the map (work
    resolution, empty), its middle pixel, and a ball's radius there."""
    _, _, det = on_empty_cloth()
    det.blob_finder.parts = det.blob_finder.parts if det.blob_finder.parts is not None else {}
    ww, hh = det.work_size
    cx, cy = ww // 2, hh // 2
    return det, np.zeros((hh, ww), np.float32), (cx, cy), float(det.radius_work[cy, cx])


def test_a_faint_ball_joined_to_the_hand_by_the_cue_is_found_by_its_round_core():
    """As in real footage, through a practice stroke: the cue's tip on a
    white ball joins it to the bridge hand in one blob too wide for balls, and the ball is so
    little above the threshold that at STRONG times it, it is gone, so the strong parts are the
    hand's alone. The blob's round piece with a core as deep as a ball's picture is a ball
    too; the cue's round pieces, shallower, are not."""
    det, f, (cx, cy), r = work_map_by_the_middle()
    t, (ww, hh) = det.threshold, det.work_size
    hand = 0.5 * (STRONG + STRONGER) * t  # strong, much wider than a ball
    cv2.rectangle(f, (round(cx - 3 * r), round(cy - 8 * r)), (round(cx + 3 * r), round(cy - 2 * r)),
                  float(hand), -1)
    for ky in (cy - 6.5 * r, cy - 3.5 * r):  # its knuckles, stronger still
        cv2.circle(f, (cx, round(ky)), round(r), float(1.5 * STRONGER * t), -1)
    half = round(1.05 * r)  # the cue and its shadow: faint, two balls wide
    f[round(cy - 2 * r):round(cy + 2.5 * r), cx - half:cx + half] = 1.5 * t
    # a fingertip on it, round and a ball's size, but with no halo: not as deep as a ball's
    # picture, which takes in its rim and shadow
    tip = (round(cx + 2.2 * r), cy)
    cv2.circle(f, tip, round(r), float(1.5 * t), -1)
    ball = (cx, round(cy + 3.3 * r))  # faint: gone at STRONG
    cv2.circle(f, ball, round(1.3 * r), float(1.5 * t), -1)
    blobs = search(det, f, (0, 0, ww, hh))
    assert any(math.hypot(b.x - ball[0], b.y - ball[1]) < 1.5 for b in blobs)
    assert not any(math.hypot(b.x - tip[0], b.y - tip[1]) < r for b in blobs)


def test_a_ball_joined_to_a_hand_too_wide_even_at_the_stronger_level_is_found_whole():
    """As in real footage at a soft strike: the white, nudged by the cue's tip and
    a little drawn out, is joined by the cue to the bridge hand, and the hand is too wide for
    balls even at STRONGER, so the strong parts are given up. The white is a part of its own
    at STRONG, two balls' area, a ball's core deep with its rim: a ball. A fingertip's part
    there, shallower, is not one."""
    det, f, (cx, cy), r = work_map_by_the_middle()
    t, (ww, hh) = det.threshold, det.work_size
    # the hand: too wide for balls at every level
    cv2.rectangle(f, (round(cx - 4 * r), round(cy - 9 * r)), (round(cx + 4 * r), round(cy - 2 * r)),
                  float(1.5 * STRONGER * t), -1)
    half = round(1.4 * r)  # the cue, its shadow and the blur: faint, wider than a ball
    f[round(cy - 2 * r):round(cy + 5 * r), cx - half:cx + half] = 1.5 * t
    tip = (round(cx + 2.6 * r), round(cy - 0.5 * r))  # a fingertip: a ball's size, no halo
    cv2.circle(f, tip, round(r), float(0.5 * (STRONG + STRONGER) * t), -1)
    f[round(cy - 2 * r):round(cy - 0.5 * r), round(cx + 1.0 * r):round(cx + 2.6 * r)] = 1.5 * t
    ball = (cx, round(cy + 3.5 * r))  # drawn out along the cue, with its rim
    cv2.ellipse(f, ball, (round(1.2 * r), round(1.6 * r)), 0, 0, 360,
                float(0.5 * (STRONG + STRONGER) * t), -1)
    part = (f > t).astype(np.uint8)
    assert splitter(det).strong_parts(f, part, 0, 0, 1, r) is None
    blobs = search(det, f, (0, 0, ww, hh))
    assert any(math.hypot(b.x - ball[0], b.y - ball[1]) < 1.5 for b in blobs)
    cores = splitter(det).strong_cores(f, part, 0, 0, 1, r)
    assert [math.hypot(b.x - ball[0], b.y - ball[1]) < 1.5 for b in cores] == [True]


def test_two_touching_balls_in_a_blob_with_a_hand_too_wide_for_balls_are_both_found():
    """As in real footage, a frame into a shot: the struck white
    touches the red at the contact, the cue behind it joins both to the player's hand, and the
    hand is too wide for balls even at STRONGER, so the strong parts are given up. The two
    balls, with their rims, are one part at STRONG bigger than three balls: two discs necked
    where they touch are two balls, not one (the red alone was found, the white lost)."""
    det, f, (cx, cy), r = work_map_by_the_middle()
    t, (ww, hh) = det.threshold, det.work_size
    hand = ((round(cx - 4 * r), round(cy - 12 * r)), (round(cx + 4 * r), round(cy - 5 * r)))
    cv2.rectangle(f, *hand, float(1.5 * STRONGER * t), -1)
    half = round(0.6 * r)  # the cue: faint
    f[round(cy - 5 * r):round(cy - r), cx - half:cx + half] = 1.5 * t
    white, red = (cx, round(cy + 0.2 * r)), (cx, round(cy + 2.6 * r))
    for ball in (white, red):
        cv2.circle(f, ball, round(1.4 * r), float(0.5 * (STRONG + STRONGER) * t), -1)
    part = (f > t).astype(np.uint8)
    assert splitter(det).strong_parts(f, part, 0, 0, 1, r) is None
    cores = splitter(det).strong_cores(f, part, 0, 0, 1, r)
    assert len(cores) == 2
    for ball in (white, red):
        assert any(math.hypot(b.x - ball[0], b.y - ball[1]) < 0.5 * r for b in cores)
    blobs = search(det, f, (0, 0, ww, hh))
    for ball in (white, red):
        assert any(math.hypot(b.x - ball[0], b.y - ball[1]) < 0.5 * r for b in blobs)


def test_a_faint_ball_deeper_than_a_ball_with_its_glow_beside_a_strong_one_is_found():
    """As in real footage of a straight shot: the white, just after
    hitting the red, nearly touches it; with its glow on the cloth it is 1.41 radii deep,
    deeper than one ball's picture may be, and only a little above the threshold, so the
    blob's one strong part is the red. Its summit, with little of the blob around it, is a
    ball too; without it only the red was found."""
    det, f, (cx, cy), r = work_map_by_the_middle()
    t, (ww, hh) = det.threshold, det.work_size
    red, white = (cx, cy), (round(cx + 2.7 * r), cy)
    cv2.circle(f, red, round(1.1 * r), float(1.5 * STRONGER * t), -1)
    cv2.circle(f, white, round(1.6 * r), float(1.5 * t), -1)  # faint, with its glow
    part = (f > t).astype(np.uint8)
    assert float(distances(part > 0).max()) > BALL_DEPTH * r
    blobs = search(det, f, (0, 0, ww, hh))
    assert len(blobs) == 2
    for ball in (red, white):
        assert any(math.hypot(b.x - ball[0], b.y - ball[1]) < 0.5 * r for b in blobs)


def test_a_long_streak_too_big_for_two_balls_even_at_the_stronger_level_is_one_ball():
    """As in real footage with a projector: the struck white's streak, three
    balls long, lies in a faint glow joined to projected lines, so the blob is deeper than a
    ball; the streak's own pixels, well above STRONGER times the threshold, are a part of
    three balls' area and more, a ball wide: one ball's streak, at its middle (it was given
    up with the blob, as a hand or the cue would be)."""
    det, f, (cx, cy), r = work_map_by_the_middle()
    t, (ww, hh) = det.threshold, det.work_size
    glow = (round(cx - 3.6 * r), round(cy - 1.45 * r)), (round(cx + 3.6 * r), round(cy + 1.45 * r))
    cv2.rectangle(f, *glow, float(1.5 * t), -1)
    half = round(0.95 * r)  # the streak: a ball wide, from end to end three balls long
    cv2.rectangle(f, (round(cx - 2 * r), cy - half), (round(cx + 2 * r), cy + half),
                  float(1.5 * STRONGER * t), -1)
    for end in (round(cx - 2 * r), round(cx + 2 * r)):
        cv2.circle(f, (end, cy), half, float(1.5 * STRONGER * t), -1)
    blobs = search(det, f, (0, 0, ww, hh))
    assert [b.streak for b in blobs] == [True]
    assert math.hypot(blobs[0].x - cx, blobs[0].y - cy) < 0.5 * r
    # a strip as long but wider than a ball (the back of a hand, a forearm) is no streak
    wide = round(1.3 * r)
    f[cy - wide:cy + wide + 1, round(cx - 2 * r):round(cx + 2 * r) + 1] = 1.5 * STRONGER * t
    assert splitter(det).strong_parts(f, (f > t).astype(np.uint8), 0, 0, 1, r) is None


def test_a_pale_white_touching_a_bright_ball_is_two_balls_though_their_halos_make_it_big():
    """As in real footage: the white touches the red it has just hit. With
    their rims and shadows the two make a part of 2.7 balls' area at STRONG times the threshold,
    more than two touching balls are allowed; at STRONGER the white, only three times the
    threshold, is gone. Two discs necked where they touch, one of them pale, are two balls."""
    _, _, det = on_empty_cloth()
    t, r = det.threshold, 5.0
    f = np.zeros((40, 60), np.float32)
    cv2.circle(f, (18, 20), round(1.15 * r), float(0.5 * (STRONG + STRONGER) * t), -1)  # pale
    cv2.circle(f, (18 + round(2.2 * r), 20), round(1.15 * r), float(1.5 * STRONGER * t), -1)
    part = (f > t).astype(np.uint8)
    assert np.count_nonzero(part) > 2.5 * math.pi * r * r
    found = splitter(det).strong_parts(f, part, 0, 0, 1, r)
    assert found is not None and len(found) == 2
    for cx in (18, 18 + round(2.2 * r)):
        assert any(math.hypot(b.x - cx, b.y - 20) < 1.5 for b in found)


def test_a_streak_whose_ends_are_two_ball_colours_is_two_balls():
    """As at the contacts of two shots of real footage:
    the white, drawn out a little as it strikes the red, and the red, their shadows joining
    them, make a blob as wide all along as a streak, and the streak's middle, of neither colour,
    was the only detection. A streak is one ball, of one colour all along: with each end sure
    of another ball colour, it is two balls at its ends; a white's own streak stays one."""
    from vision.detection.shapes import distances

    det, _ = red_and_white_fitted()
    r = 5.0
    mask = np.zeros((40, 80), np.uint8)
    cv2.line(mask, (20, 20), (20 + round(2.4 * r), 20), 1, round(2.2 * r))
    blobs = splitter(det).split(distances(mask.astype(bool)), 100, 100, 1, r, int(mask.sum()))
    assert len(blobs) == 1 and blobs[0].streak and blobs[0].ends is not None
    (x1, y1), (x2, y2) = sorted(blobs[0].ends)
    w, h = det.work_size
    cloth_bgr = (100, 140, 40)
    small = np.full((h, w, 3), cloth_bgr, np.uint8)
    cv2.circle(small, (round(x1), round(y1)), round(r), BGR["white"], -1)
    cv2.circle(small, (round(x2), round(y2)), round(r), BGR["red"], -1)
    frame = cloth()  # (the full-resolution picture: read only for ends of one colour)
    two = det.refiner.streaks_of_one_colour(frame, small, blobs, det.colours)
    assert sorted((b.x, b.y, b.streak) for b in two) == [(x1, y1, False), (x2, y2, False)]
    # the balls' shadows between them pull the peaks inward (in real footage of a straight
    # shot: the red's peak 10 px from its middle toward the white): each end's colour is read half a
    # radius out along the streak, in the ball's middle, not at the shadowed peak
    small[:] = cloth_bgr
    cv2.circle(small, (round(x1 - 0.5 * r), round(y1)), round(r), BGR["white"], -1)
    cv2.circle(small, (round(x2 + 0.5 * r), round(y2)), round(r), BGR["red"], -1)
    cv2.rectangle(small, (round(x1 - 2), round(y1) - 3), (round(x2 + 2), round(y2) + 3),
                  (50, 70, 20), -1)
    assert len(det.refiner.streaks_of_one_colour(frame, small, blobs, det.colours)) == 2
    # a white streak, see-through at its ends: one ball
    small[:] = cloth_bgr
    cv2.line(small, (round(x1), round(y1)), (round(x2), round(y2)), (170, 190, 140), round(2 * r))
    assert det.refiner.streaks_of_one_colour(frame, small, blobs, det.colours) == blobs


def test_the_neck_share_of_two_touching_discs_and_of_a_smeared_disc():
    """Half a radius off the line through their middles two touching discs leave a gap of the
    cloth between them; a disc smeared along the same line fills it."""
    from vision.detection.shapes import neck_share

    r = 9.0
    pair = np.zeros((40, 70), np.float32)
    cv2.circle(pair, (20, 20), round(r), 100.0, -1)
    cv2.circle(pair, (20 + round(2 * r), 20), round(r), 100.0, -1)
    smear = np.zeros_like(pair)
    cv2.line(smear, (20, 20), (20 + round(2 * r), 20), 100.0, round(2 * r))
    ends = ((20.0, 20.0), (20.0 + 2 * r, 20.0))
    assert neck_share(pair, *ends, r, 0.5) < 0.3
    assert neck_share(smear, *ends, r, 0.5) == 1.0
    assert neck_share(pair, ends[0], ends[0], r, 0.5) == 1.0  # (no length: no neck)


def test_a_streak_of_two_touching_balls_of_one_colour_is_two_balls():
    """As in a fresh render: two whites resting against each other, their shadows joining them,
    made a blob as wide all along as a streak, and a second touch of the two was lost. Half a
    radius off the line through its ends the picture falls to the cloth between two balls, and
    does not along a ball's own blur: the touching pair is two balls at its ends, the white
    blurred along its way (its ends as sure of white) stays one streak."""
    det, _ = red_and_white_fitted()
    cal = det.calibration
    grid = det.refiner.grid
    x0, y0, _, _ = grid.roi

    def work(px: float, py: float) -> tuple[float, float]:
        return (px + 0.5 - x0) / grid.sx - 0.5, (py + 0.5 - y0) / grid.sy - 0.5

    d = TABLE.ball_radius_mm * 2
    frame = cloth()
    a = draw_ball(frame, cal, (2000.0, 800.0), "white")
    b = draw_ball(frame, cal, (2000.0 + d, 800.0), "white")
    ends = (work(*a), work(*b))
    streak = Blob(0.5 * (ends[0][0] + ends[1][0]), 0.5 * (ends[0][1] + ends[1][1]), 1,
                  streak=True, length=2 * d, ends=ends)
    two = det.refiner.streaks_of_one_colour(frame, det.shrink(frame), [streak], det.colours)
    assert [(p.x, p.y, p.streak) for p in two] == [(*ends[0], False), (*ends[1], False)]
    # one white blurred along the same line: its picture smeared from one place to the other
    frame = cloth()
    smear = np.zeros_like(frame, np.float32)
    steps = 12
    for k in range(steps):
        ball = cloth()
        draw_ball(ball, cal, (2000.0 + d * k / (steps - 1), 800.0), "white")
        smear += ball.astype(np.float32) / steps
    frame = smear.round().astype(np.uint8)
    assert det.refiner.streaks_of_one_colour(frame, det.shrink(frame), [streak],
                                             det.colours) == [streak]


def test_a_blurred_white_over_a_projected_line_is_read_against_the_cloth_under_it():
    """Real footage: a projector draws the aiming line on the cloth, so the
    cloth model holds it. The struck cream white (clipped to pure white at rest) rolled along
    it as a warm streak; against the line's pale cyan at the streak's middle pixel that streak
    is a red's mixture, and it was read red for eight frames. Against the cloth under the
    pixels its colour came from, it is the white."""
    cal = calibration()
    cloth_bgr = (155.0, 165.0, 120.0)  # that footage's cloth, and its ball colours
    img = np.full((H, W, 3), cloth_bgr, np.float32)
    img += np.random.default_rng(5).normal(0, 2, img.shape).astype(np.float32)
    (x0, y0), (x1, y1) = cal.table_to_image([(1500.0, 800.0), (2500.0, 800.0)])
    cv2.line(img, (round(x0), round(y0)), (round(x1), round(y1)), (245, 255, 176), 3)
    det = BallDetector(cal)
    det.learn_cloth(np.clip(img, 0, 255).astype(np.uint8))
    det.colours = ColourModel.fit(np.array([(255, 255, 255)] * 4 + [(23, 1, 200)] * 4))
    # the cream white as bright as the camera clips at rest, smeared 3 diameters over the
    # exposure along the line: its picture at each instant, averaged, then clipped
    cream = (330.0, 400.0, 560.0)
    start = np.array([1700.0, 800.0])
    end = start + np.array([3 * TABLE.ball_diameter_mm, 0.0])
    r = TABLE.ball_radius_mm / cal.mm_per_px()
    acc = np.zeros(img.shape, np.float32)
    for k in range(24):
        draw = img.copy()
        (x, y), = cal.table_to_image([tuple(start + (end - start) * k / 23)])
        cv2.circle(draw, (round(x * 16), round(y * 16)), round(r * 16), cream, -1, cv2.LINE_AA,
                   4)
        acc += draw / 24
    found = det.detect(np.clip(acc, 0, 255).astype(np.uint8), update=False)
    streaks = [q for q in found if q.streak_mm > 0]
    assert len(streaks) == 1 and streaks[0].colour == "white"


def test_a_streak_joined_to_its_shadow_is_one_ball_though_wider_than_a_ball():
    """Real footage with a projector: the struck white's blur, its shadow joined to it, is
    1.44 radii deep, deeper than a ball; taken for a hand, its round parts were looked for and
    none was found, and the white was lost for the frame. Straight and as wide all along, it
    is one streak; a blob twice a ball's depth (an arm) is not."""
    from vision.detection.shapes import distances

    det = BallDetector(calibration())
    r = 5.0
    for width, shadow, streak in ((2.4 * r, 1.4 * r, True), (4.0 * r, 0.0, False)):
        mask = np.zeros((60, 100), np.uint8)
        cv2.line(mask, (30, 30), (30 + round(3 * r), 30), 1, round(width))
        if shadow:  # the shadow widens it on one side, 1.5 radii deep there
            cv2.circle(mask, (38, 32), round(shadow), 1, -1)
        dist = distances(mask.astype(bool))
        assert dist.max() > 1.4 * r
        blobs = splitter(det).split(dist, 100, 100, 1, r, int(mask.sum()))
        assert [b.streak for b in blobs] == ([True] if streak else [False] * len(blobs))


def test_two_balls_with_halos_a_little_apart_are_two_balls_not_three():
    """Real footage: the white rolling up to the resting red, a third of a
    ball apart; each ball with its halo 1.3 radii deep, and the gap between them filled by the
    halos and the white's blur. The halos' rims between them were taken for a third ball,
    which pulled the red's centre 12 px toward the white. Each ball explains the pixels within
    its own depth: no third ball; and three balls in a tight triangle, two of them found as
    peaks, still hold a third."""
    from vision.detection.shapes import distances, unexplained_balls

    r = 5.0
    yy, xx = np.mgrid[0:30, 0:40]

    def discs(centres: list[tuple[float, float]], halo: float) -> np.ndarray:
        m = np.zeros((30, 40), bool)
        for cx, cy in centres:
            m |= (xx - cx) ** 2 + (yy - cy) ** 2 <= (halo * r) ** 2
        return m

    pair = [(10.0, 15.0), (10.0 + 2.95 * r, 15.0)]
    bridged = discs(pair, 1.32) | ((xx >= pair[0][0]) & (xx <= pair[1][0])
                                   & (np.abs(yy - 15.0) <= 0.6 * r))
    assert unexplained_balls(distances(bridged), pair, r, 2) == 0
    triangle = [(12.0, 20.0), (12.0 + 2 * r, 20.0), (12.0 + r, 20.0 - math.sqrt(3) * r)]
    assert unexplained_balls(distances(discs(triangle, 1.3)), triangle[:2], r, 2) == 1


def test_a_ball_as_deep_with_its_halo_as_the_ball_found_beside_it_is_a_ball():
    """Real footage: the white touching the red it has just hit, each 1.43 radii deep with its
    halo (a projected ring around it), joined into one blob. The red is found among the blob's
    strong parts; the white, only a little above the threshold inside its bright rim, is not,
    and its summit is deeper than one ball alone. A summit as deep as the ball found beside
    it is a ball; one much deeper (a hand) is not, nor is any beside a ball of one ball's
    depth."""
    from vision.detection.shapes import as_deep_as_its_balls, distances
    from vision.detection.types import Blob

    r = 5.0
    yy, xx = np.mgrid[0:30, 0:50]
    white, red = (14.0, 15.0), (14.0 + 3.2 * r, 15.0)

    def disc(c: tuple[float, float], radius: float) -> np.ndarray:
        return (xx - c[0]) ** 2 + (yy - c[1]) ** 2 <= radius ** 2

    found = [Blob(100.0 + red[0], 200.0 + red[1], 1)]
    pair = distances(disc(white, 1.43 * r) | disc(red, 1.43 * r))
    (ball,) = as_deep_as_its_balls(pair, 100, 200, 1, r, found, DEFAULT_DETECTION)
    assert math.dist((ball.x - 100.0, ball.y - 200.0), white) <= 1.0
    hand = distances(disc(white, 2.2 * r) | disc(red, 1.43 * r))
    assert as_deep_as_its_balls(hand, 100, 200, 1, r, found, DEFAULT_DETECTION) == []
    plain = distances(disc(white, 1.43 * r) | disc(red, 1.1 * r))
    assert as_deep_as_its_balls(plain, 100, 200, 1, r, found, DEFAULT_DETECTION) == []


def test_a_faint_ball_deeper_with_its_halo_joined_to_faint_lines_is_found_at_its_summit():
    """As in real footage, for three frames: the rolling white, only a little above
    the threshold inside its bright rim, is joined to projected lines as faint, and with its
    halo it is 1.41 radii deep, more than one ball's picture alone. Nothing in the blob is
    strong (no hand, no cue), and no round piece is a ball's core deep: its summit, no deeper
    than a streak joined to its shadow, is the ball."""
    det, f, (cx, cy), r = work_map_by_the_middle()
    t, (ww, hh) = det.threshold, det.work_size
    ball = (cx, cy)
    cv2.circle(f, ball, round(1.45 * r), float(1.5 * t), -1)
    half = max(1, round(0.3 * r))  # two projected lines through it, a third of a ball wide
    f[cy - half:cy + half, round(cx - 8 * r):round(cx + 8 * r)] = 1.5 * t
    f[round(cy - 6 * r):round(cy + 6 * r), cx + round(3 * r) - half:cx + round(3 * r) + half] = (
        1.5 * t)
    part = (f > t).astype(np.uint8)
    assert splitter(det).strong_parts(f, part, 0, 0, 1, r) == []
    assert distances(part > 0).max() > BALL_DEPTH * r
    blobs = search(det, f, (0, 0, ww, hh))
    assert [math.hypot(b.x - ball[0], b.y - ball[1]) <= 1.0 for b in blobs] == [True]





def lamp_lit_balls(seed: int) -> list[tuple[str, float]]:
    """Each ball of a rendered frame (synth.render: lamps above the table, the cloth's bounce
    light) with how far (px) the detector's centre is from its true one: the whites near
    cushions, far from the lamps, where their far side is shaded and tinted by the cloth."""
    rng = np.random.default_rng(seed)
    camera = random_pose(rng, TABLE, (W, H))
    renderer = Renderer(TABLE, camera, Look.from_seed(seed, TABLE), seed=seed)
    cal = Calibration.from_dict(camera.calibration_dict(TABLE, source="manual"))
    length, width = TABLE.length_mm, TABLE.width_mm
    at = {"W1": (length - 200, width - 180), "W2": (220.0, 200.0), "R1": (length / 2, width / 2),
          "R2": (length - 250, 200.0), "Y": (300.0, width - 220)}
    img, _ = renderer.render_frame([{b: BallPose(x, y) for b, (x, y) in at.items()}])
    first = BallDetector(cal)
    first.learn_cloth(renderer.background)
    colours = first.fit_colours(first.detect(img, update=False))
    det = BallDetector(cal)  # (as a video's detector is once it knows the colours)
    det.colours = colours
    det.learn_cloth(renderer.background)
    found = det.detect(img, update=False)
    out = []
    for ball, xy in at.items():
        px, py = renderer.project_ball(*xy)
        d = min(found, key=lambda q: math.hypot(q.x_px - px, q.y_px - py))
        assert d.colour == {"W": "white", "R": "red", "Y": "yellow"}[ball[0]], ball
        out.append((ball, math.hypot(d.x_px - px, d.y_px - py)))
    return out


@pytest.mark.parametrize("seed", [2, 3])
def test_lamp_lit_red_and_yellow_balls_are_found_centred(seed):
    assert all(off < 0.65 for ball, off in lamp_lit_balls(seed) if ball[0] != "W")


@pytest.mark.xfail(strict=True, reason="known: a lamp-lit white is found off toward the lamps "
                   "(rendered, 0.8-1.4 px; the committed clips' whites at rest 3.9 and 4.0 mm "
                   "against 0.8-1.5 mm for the reds and the yellow). Its outline taken at 0.15 "
                   "of its core's level mended the renders (whites 1.9 and 1.6 mm) but not the "
                   "club footage: the cue's tip and the projected aiming line on the cue ball "
                   "joined its faint outline there (14 judged frames lost, 2 phantom pots)")
@pytest.mark.parametrize("seed", [2, 3])
def test_lamp_lit_whites_by_the_cushions_are_found_centred(seed):
    assert all(off < 0.65 for ball, off in lamp_lit_balls(seed) if ball[0] == "W")


def test_the_balls_of_a_picture_unchanged_since_the_colours_were_fitted_are_named():
    """A picture that does not change is handed the last answers again: those made before the
    colour classes were fitted are named by them too (they came back as "other")."""
    cal, img, det = on_empty_cloth()
    for xy, colour in (((600.0, 400.0), "white"), ((1500.0, 900.0), "red"),
                       ((2400.0, 1300.0), "yellow")):
        draw_ball(img, cal, xy, colour)
    det.fit_colours(det.detect(img, update=False))
    assert sorted(d.colour for d in det.detect(img, update=False)) == ["red", "white", "yellow"]


# --- the detection's parameters ------------------------------------------------------------------
# The tuned thresholds, as the module constants they were before they were parameters (the old
# name after each).
TUNED = {
    "coloured_chroma": 0.5,  # _COLOURED
    "neutral_cloth_chroma": 0.075,  # NEUTRAL_CLOTH
    "brighter_share": 0.3,  # BRIGHTER
    "headroom_share": 0.3,  # HEADROOM_SHARE
    "palest_white_ratio": 1.5,  # PALEST_WHITE
    "whole_share": 0.75,  # WHOLE
    "faint_floor_share": 0.5,  # (new: the floor for a ball that shows less than a white)
    "faint_core_radii": 0.5,  # (new, 2026-12-07: a red that shows only by its rim)
    "mostly_changed_share": 0.4,  # MOSTLY_CHANGED
    "coarse_step_diameters": 0.375,  # COARSE_STEP_DIAMETERS
    "least_blob_share": 0.45,  # LEAST_BLOB
    "least_lit_top_share": 0.3,  # LEAST_LIT_TOP
    "strong_thresholds": 2.0,  # STRONG
    "stronger_thresholds": 4.0,  # STRONGER
    "round_core_radii": 1.2,  # ROUND_CORE
    "touching_cores_ball_areas": 4.0,  # TOUCHING_CORES
    "alone_share": 0.5,  # ALONE_SHARE
    "streak_spread_radii": 0.65,  # STREAK_SPREAD
    "short_streak_spread_ratio": 1.3,  # SHORT_STREAK_SPREAD
    "short_streak_length_diameters": 1.25,  # SHORT_STREAK_LENGTH
    "short_streak_width_radii": 0.37,  # SHORT_STREAK_WIDTH
    "holed_ring_ball_areas": 1.6,  # HOLED_BALL
    "ball_depth_radii": 1.4,  # BALL_DEPTH
    "wide_streak_radii": 1.6,  # WIDE_STREAK
    "cloth_like_share": 0.08,  # CLOTH_LIKE
    "class_brightness_ratio": 1.25,  # CLASS_BRIGHTNESS
    "on_class_share": 0.2,  # (new, 2026-12-07: a red on a red cloth lit no more than the cloth)
    "level_noise_share": 0.03,  # (new, 2026-12-08: a red on a red cloth a hair darker than it)
    "mixture_brightness_ratio": 1.5,  # MIXTURE_BRIGHTNESS
    # (new, 2026-12-07, fifteenth session: the colour fit takes the balls where the game state
    # has them, whatever their score)
    "known_ball_radii": 1.0, "known_balls_share": 0.5,
    # the whites' dots read against the ball's own shading (2026-12-06, fifth session)
    "dot_darker_share": 0.75, "dot_fit_radii": 0.8, "dot_within_radii": 0.8,
    "dot_most_area_share": 0.12, "dot_elongation_ratio": 4.0,
    # a short streak of one colour necked like two balls touching is two (seventh session)
    "necked_length_radii": 2.5, "necked_offset_radii": 0.5, "necked_dip_share": 0.48,
}


def test_the_default_parameters_are_the_tuned_thresholds():
    assert DetectionParams() == DEFAULT_DETECTION
    assert DEFAULT_DETECTION.to_dict() == TUNED
    assert all(type(v) is float for v in DEFAULT_DETECTION.to_dict().values())
    det = BallDetector(calibration())
    assert det.params is DEFAULT_DETECTION
    assert ColourModel.fit(np.array([BGR["white"], BGR["red"]])).mixture_brightness_ratio == 1.5


@pytest.mark.parametrize(("field", "value"), [
    ("least_blob_share", 0.0), ("whole_share", 1.5), ("coloured_chroma", 2.5),
    ("strong_thresholds", 0.5), ("class_brightness_ratio", 0.8), ("ball_depth_radii", -1.0),
    ("short_streak_width_radii", float("nan")), ("coarse_step_diameters", math.inf),
    ("round_core_radii", True), ("alone_share", "0.5"),
    # the ends of ranges: the stronger level above the strong one, a ball no deeper than a streak
    ("stronger_thresholds", 2.0), ("wide_streak_radii", 1.3), ("round_core_radii", 1.5),
])
def test_a_parameter_out_of_its_range_is_refused_by_name(field, value):
    with pytest.raises(DetectionParamsError) as refused:
        DetectionParams(**{field: value})
    message = str(refused.value)
    assert isinstance(refused.value, ValueError)
    assert field in message and "\n" not in message


def test_the_parameters_round_trip_through_their_dict():
    changed = DetectionParams(least_blob_share=0.2, strong_thresholds=3, ball_depth_radii=1.5)
    assert changed.strong_thresholds == 3.0 and type(changed.strong_thresholds) is float
    for params in (DEFAULT_DETECTION, changed):
        d = params.to_dict()
        assert DetectionParams(**d) == params
        assert DetectionParams(**json.loads(json.dumps(d))) == params
    assert DetectionParams(strong_thresholds=2) == DEFAULT_DETECTION
    with pytest.raises(TypeError, match="DetectionParams"):
        BallDetector(calibration(), TUNED)  # type: ignore[arg-type]


def test_a_lower_least_blob_share_finds_a_smaller_round_thing():
    """A red disc of half a ball's radius (a quarter of a ball's disc) is noise to the tuned
    detector (its blob under ``least_blob_share``, 0.45 of a disc); a detector that takes blobs
    of a fifth of a disc finds it too, and the ball just as before."""
    cal = calibration()
    img = cloth()
    ball = draw_ball(img, cal, (1000.0, 700.0), "red")
    (x, y), = cal.table_to_image([(2400.0, 900.0)])
    r = TABLE.ball_radius_mm / cal.mm_per_px()
    cv2.circle(img, (round(x * 16), round(y * 16)), round(0.5 * r * 16), BGR["red"], -1,
               cv2.LINE_AA, 4)

    def found_with(params: DetectionParams) -> list:
        det = BallDetector(cal, params)
        det.learn_cloth(cloth())
        return sorted(det.detect(img, update=False), key=lambda d: d.x_px)

    tuned = found_with(DEFAULT_DETECTION)
    lower = found_with(DetectionParams(least_blob_share=0.2))
    assert len(tuned) == 1 and math.dist((tuned[0].x_px, tuned[0].y_px), ball) < 1.0
    assert len(lower) == 2
    assert (lower[0].x_px, lower[0].y_px) == (tuned[0].x_px, tuned[0].y_px)
    assert math.dist((lower[1].x_px, lower[1].y_px), (x, y)) < 1.0


def test_a_refitted_table_keeps_the_detectors_state_and_places_its_answers_anew():
    """The table fitted again to the same picture (the rails' sights after a bump) changes only
    where the pixels lie on the table: the detector keeps its cloth model, foreground map and
    kept answers, their places in mm those of the new calibration (a new detector started them
    afresh, and on hard 647 two verdicts went with that)."""
    from dataclasses import replace

    pictures = []
    det, _ = red_and_white_fitted(lambda: pictures.append(cloth()) or pictures[-1])
    img, cal = pictures[0], det.calibration
    before = det.detect(img, update=False)
    cloth_model, fmap = det.cloth_model.image, det.foreground_map.map
    # the same picture, the table 4 mm further along and 2 mm across
    shift = np.array([[1.0, 0.0, 4.0], [0.0, 1.0, 2.0], [0.0, 0.0, 1.0]])
    refit = replace(cal, homography_image_to_table=shift @ np.asarray(
        cal.homography_image_to_table))
    det.refitted(refit)
    assert det.cloth_model.image is cloth_model and det.foreground_map.map is fmap
    after = det.detect(img, update=False)
    assert len(after) == len(before) == 2
    for a, b in zip(sorted(after, key=lambda d: d.x_px), sorted(before, key=lambda d: d.x_px),
                    strict=True):
        assert (a.x_px, a.y_px, a.colour) == (b.x_px, b.y_px, b.colour)  # the same answer
        assert (a.x_mm - b.x_mm, a.y_mm - b.y_mm) == pytest.approx((4.0, 2.0), abs=0.05)
