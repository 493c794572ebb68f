"""The hard tier's conditions (issue 53): each drawn condition measured in rendered pictures
(drift, flicker, hot spots, hard shadows, defocus, noise, white balance, cloth colours, the camera
bump), the draws' ranges, and a hard clip written twice with the same seed: 960x540 when drawn so,
low-quality H.264, the conditions in its labels, the same bytes.

Pictures are small (320x180 to 480x270) and few; every random choice is seeded.
"""

from __future__ import annotations

import colorsys
import json
import math
from dataclasses import replace
from pathlib import Path

import av
import cv2
import numpy as np
import pytest

from rules.table import TableSpec
from synth.camera import CameraPose, random_pose, rotation_from_angles
from synth.clip import FPS, play
from synth.conditions import (
    CLOTHS,
    ArmRest,
    Bump,
    Conditions,
    Drift,
    Flicker,
    Shadows,
    disc_kernel,
    resting_arm,
)
from synth.render import BallPose, HotSpots, Look, Renderer
from synth.scenarios import scenario
from synth.video import timeline, write_clip

TABLE = TableSpec()
L, W, R = TABLE.length_mm, TABLE.width_mm, TABLE.ball_radius_mm
LUM = np.array([0.114, 0.587, 0.299])


def _plain(seed: int = 3, size: tuple[int, int] = (320, 180), **changes: object) -> Conditions:
    """No condition at all (the look's own cloth and exposure), then ``changes``."""
    look = Look.from_seed(seed, TABLE)
    base = Conditions(cloth=look.cloth_kind, cloth_albedo=look.cloth_albedo,
                      exposure=look.exposure, image_size=size, crf=36)
    return replace(base, **changes)  # type: ignore[arg-type]


def _renderer(conditions: Conditions, seed: int = 3, quiet: bool = True,
              camera: CameraPose | None = None) -> Renderer:
    """A renderer of ``conditions`` at their size; ``quiet``: no flicker gain, sharpening or
    JPEG of the look's own (so a measurement sees only the condition)."""
    rng = np.random.default_rng(seed)
    look = Look.random(rng, TABLE)
    cam = camera or random_pose(rng, TABLE, conditions.image_size)
    look = conditions.apply_look(look)
    if quiet:
        look = replace(look, flicker=0.0, sharpen=0.0, jpeg_quality=None)
    return Renderer(TABLE, cam, look, seed=seed, hot_spots=conditions.hot_spots)


def _cloth_mask(renderer: Renderer, margin_mm: float = 120.0) -> np.ndarray:
    x, y = renderer._cloth_x, renderer._cloth_y
    return ((renderer._cloth_w > 0.99) & (x > margin_mm) & (x < L - margin_mm)
            & (y > margin_mm) & (y < W - margin_mm))


# --- the draws ---------------------------------------------------------------------------------
def test_the_draws_stay_in_their_ranges_and_cover_every_choice():
    seen_cloths, sizes, mains, bumps = set(), set(), set(), 0
    for seed in range(120):
        look = Look.from_seed(seed, TABLE)
        c = Conditions.draw(Conditions.rng(seed), look, 150, TABLE)
        assert c == Conditions.draw(Conditions.rng(seed), look, 150, TABLE)  # seeded
        seen_cloths.add(c.cloth)
        sizes.add(c.image_size)
        assert c.drift is not None and 0.10 <= c.drift.depth <= 0.15
        assert c.flicker is not None and c.flicker.mains_hz in (50, 60)
        mains.add(c.flicker.mains_hz)
        assert abs(c.flicker.light_hz - 2 * c.flicker.mains_hz) <= 0.3
        assert c.hot_spots is not None and 1.3 <= c.hot_spots.ratio <= 1.5
        assert c.lamps is not None and len(c.lamps) in (3, 4)
        assert c.hot_spots.centres_mm == tuple((x, y) for x, y, _ in c.lamps)
        assert c.white_balance is not None
        b, g, r = c.white_balance
        assert g == 1.0 and 0.05 <= abs(b - 1) <= 0.10 + 1e-9 and 0.05 <= abs(r - 1) <= 0.1 + 1e-9
        assert 1.0 <= c.defocus_px <= 2.0 and c.noise_sigma is not None and c.noise_sigma >= 4
        assert 34 <= c.crf <= 40
        assert c.arm is not None and 1.0 <= c.arm.duration_s <= 2.0
        if c.bump is not None:
            bumps += 1
            assert 2.0 - 1e-3 <= math.hypot(*c.bump.shift_px) <= 6.0 + 1e-3
            assert 0.15 <= abs(c.bump.roll_deg) <= 0.5
            assert 0.25 * 150 - 1 <= c.bump.frame <= 0.8 * 150 + 1
    assert seen_cloths == set(CLOTHS)
    assert sizes == {(960, 540), (1280, 720)} and mains == {50, 60}
    assert 0.6 * 120 <= bumps <= 0.9 * 120


# --- light ---------------------------------------------------------------------------------------
def test_the_mean_brightness_follows_the_drift():
    drift = Drift(depth=0.14, period_s=2.0, phase_rad=0.4)
    cond = _plain(drift=drift)
    renderer = _renderer(cond)
    frame, _ = renderer.render_frame([{"W1": BallPose(900.0, 700.0)}])
    mask = _cloth_mask(renderer)
    frames = range(0, 61, 5)  # two periods
    means = np.array([cond.optics(frame, f, FPS)[mask] @ LUM for f in frames]).mean(axis=1)
    gains = np.array([drift.gain(f / FPS) for f in frames])
    np.testing.assert_allclose(means / means.mean(), gains / gains.mean(), atol=0.004)
    assert means.max() / means.min() == pytest.approx((1 + 0.07) / (1 - 0.07), abs=0.01)


@pytest.mark.parametrize(("light_hz", "readout"), [(100.0, 0.75), (99.8, 0.6)])
def test_mains_flicker_beats_with_the_frame_rate_in_the_frame_means_and_bands(light_hz,
                                                                               readout):
    flicker = Flicker(mains_hz=50, light_hz=light_hz, depth=0.06, readout=readout, phase_rad=1.0)
    cond = _plain(flicker=flicker)
    renderer = _renderer(cond)
    frame, _ = renderer.render_frame([{}])
    n = 60
    pics = np.array([cond.optics(frame, f, FPS) @ LUM for f in range(n)])  # (n, h, w)
    beat = flicker.beat_hz(FPS)
    assert beat == pytest.approx(abs(light_hz - 90.0))
    freqs = np.fft.rfftfreq(n, 1 / FPS)
    for series in (pics[:, :20].mean(axis=(1, 2)), pics.mean(axis=(1, 2))):  # top rows, frame
        spectrum = np.abs(np.fft.rfft(series - series.mean()))
        assert abs(freqs[int(np.argmax(spectrum))] - beat) <= 0.5
    # the bands: each frame's rows over the unflickered rows swing by the depth, with as many
    # bright bands as the rows span periods of the light
    rows = pics[0].mean(axis=1) / (frame @ LUM).mean(axis=1)
    rows = rows / rows.mean()
    assert (rows.max() - rows.min()) / 2 == pytest.approx(0.06, abs=0.012)
    h = len(rows)
    spectrum = np.abs(np.fft.rfft((rows - 1) * np.hanning(h), 4096))
    cycles = np.fft.rfftfreq(4096, 1 / h)[int(np.argmax(spectrum))]
    assert cycles == pytest.approx(flicker.bands_per_frame(FPS), abs=0.5)


def test_sixty_hertz_mains_beat_slowly_at_30_fps():
    flicker = Flicker(mains_hz=60, light_hz=120.24, depth=0.05, readout=0.8, phase_rad=0.0)
    assert flicker.beat_hz(30.0) == pytest.approx(0.24)
    assert flicker.bands_per_frame(30.0) == pytest.approx(3.2064)


@pytest.mark.parametrize(("seed", "ratio", "n"), [(3, 1.3, 4), (8, 1.5, 3)])
def test_the_hot_spots_are_their_ratio_of_the_cloths_mean(seed, ratio, n):
    lamps = tuple(((k + 0.5) * L / n, 900.0, 1150.0) for k in range(n))
    spots = HotSpots(tuple((x, y) for x, y, _ in lamps), 220.0, ratio)
    cond = _plain(seed, (480, 270), hot_spots=spots, lamps=lamps,
                  shadows=Shadows(lamp_size_mm=40.0, ambient=0.15))
    renderer = _renderer(cond, seed)
    solved = renderer.hot_spots
    assert solved is not None and solved.amplitude is not None and solved.amplitude > 0
    assert solved.measured_ratio == pytest.approx(ratio, abs=0.01)
    frame, _ = renderer.render_frame([{}])
    lum = frame @ LUM
    cloth = renderer._cloth_w > 0.99
    inside = cloth & spots.region(renderer._cloth_x, renderer._cloth_y)
    assert lum[inside].mean() / lum[cloth].mean() == pytest.approx(ratio, abs=0.02)
    # and brighter than the same room without them (the cloth's mean at the same exposure)
    plain = _renderer(replace(cond, hot_spots=None), seed)
    base = plain.background @ LUM
    assert lum[inside].mean() / lum[cloth].mean() > base[inside].mean() / base[cloth].mean()


def test_hard_shadows_have_a_narrow_penumbra():
    x, y = 1000.0, 600.0
    rot = rotation_from_angles(0.0, 0.0, 0.0)
    centre = np.array([x, y, 2800.0])
    camera = CameraPose(fx=3000.0, fy=3000.0, cx=159.5, cy=119.5, rotation=rot,
                        translation=-rot @ centre, image_size=(320, 240))

    def penumbra(cond: Conditions) -> int:
        renderer = _renderer(cond, 5, camera=camera)
        img, _ = renderer.render_frame([{"R1": BallPose(x, y)}])
        dark = 1 - (img @ LUM) / (renderer.background @ LUM)
        # the ball itself is not a shadow
        u, v = camera.project([[x, y, 0.0]])[0]
        yy, xx = np.mgrid[:240, :320]
        dark[np.hypot(xx - u, yy - v) < R / camera.mm_per_px((x, y)) + 2] = 0
        top = dark.max()
        return int(((dark > 0.15 * top) & (dark < 0.85 * top)).sum())

    lamp = ((x + 250.0, y + 100.0, 1000.0),)  # one lamp: one shadow, its penumbra alone
    soft = penumbra(_plain(5, (320, 240), lamps=lamp,
                           shadows=Shadows(lamp_size_mm=400.0, ambient=0.15)))
    hard = penumbra(_plain(5, (320, 240), lamps=lamp,
                           shadows=Shadows(lamp_size_mm=30.0, ambient=0.15)))
    assert hard < 0.5 * soft


# --- lens and sensor -------------------------------------------------------------------------
def test_defocus_blurs_the_picture_by_the_drawn_disc():
    x, y = 1000.0, 600.0
    rot = rotation_from_angles(0.0, 0.0, 0.0)
    centre = np.array([x, y, 2800.0])
    camera = CameraPose(fx=3000.0, fy=3000.0, cx=159.5, cy=119.5, rotation=rot,
                        translation=-rot @ centre, image_size=(320, 240))
    radius = 1.6
    cond = _plain(5, (320, 240), defocus_px=radius)
    renderer = _renderer(cond, 5, camera=camera)
    sharp, _ = renderer.render_frame([{"W1": BallPose(x, y), "R1": BallPose(x + 60, y + 30)}])
    soft = cond.optics(sharp, 0, FPS).astype(np.float64)
    # the radius that best explains the defocused picture as a disc blur of the sharp one
    errors = {r: float(np.abs(cv2.filter2D(sharp, -1, disc_kernel(r),
                                           borderType=cv2.BORDER_REFLECT) - soft).mean())
              for r in np.arange(0.4, 3.05, 0.1)}
    assert min(errors, key=errors.__getitem__) == pytest.approx(radius, abs=0.11)
    # and the ball's edge is softer: the steepest step across it falls
    def steepest(img: np.ndarray) -> float:
        g = img @ LUM
        return float(np.abs(np.diff(g, axis=1)).max())

    assert steepest(soft) < 0.8 * steepest(sharp.astype(np.float64))
    assert disc_kernel(radius).sum() == pytest.approx(1.0)


def test_sensor_noise_has_the_drawn_sigma():
    cond = _plain(noise_sigma=6.0)
    renderer = _renderer(cond)
    frame, _ = renderer.render_frame([{}])
    rng = np.random.default_rng(1)
    a = renderer.finish(cond.optics(frame, 0, FPS), rng).astype(np.float64)
    b = renderer.finish(cond.optics(frame, 1, FPS), rng).astype(np.float64)
    mask = _cloth_mask(renderer)
    assert (a - b)[mask].std() / math.sqrt(2) == pytest.approx(6.0, rel=0.08)


def test_the_white_balance_is_off_by_the_drawn_gains():
    wb = (1.08, 1.0, 0.93)
    grey = _plain(11, cloth="grey-blue", cloth_albedo=(0.4, 0.36, 0.33), exposure=250.0)
    neutral = _renderer(replace(grey, white_balance=(1.0, 1.0, 1.0)), 11)
    off = _renderer(replace(grey, white_balance=wb), 11)
    mask = _cloth_mask(neutral)
    a = np.median(neutral.background[mask].astype(np.float64), axis=0)
    b = np.median(off.background[mask].astype(np.float64), axis=0)
    np.testing.assert_allclose(b / a, wb, atol=0.015)


# --- cloths ----------------------------------------------------------------------------------
def test_each_cloth_shows_its_drawn_colour():
    found: dict[str, Conditions] = {}
    seed = 0
    while len(found) < len(CLOTHS):
        c = Conditions.draw(Conditions.rng(seed), Look.from_seed(seed, TABLE), 100, TABLE)
        found.setdefault(c.cloth, replace(c, image_size=(320, 180), white_balance=None,
                                          hot_spots=None, shadows=None))
        seed += 1
    for cloth, cond in found.items():
        renderer = _renderer(cond)
        px = np.median(renderer.background[_cloth_mask(renderer)].astype(np.float64), axis=0)
        b, g, r = px / 255
        hue = colorsys.rgb_to_hsv(r, g, b)[0] * 360
        ab, ag, ar = cond.cloth_albedo
        want = colorsys.rgb_to_hsv(ar, ag, ab)[0] * 360
        # (the look's own white balance, up to 10 % per channel, moves the hue a little)
        tol = 25.0 if cloth == "grey-blue" else 12.0
        assert min(abs(hue - want), 360 - abs(hue - want)) < tol, cloth


# --- the bump ----------------------------------------------------------------------------------
def test_a_bump_moves_the_picture_by_the_drawn_shift_and_roll():
    cond = _plain(4, (480, 270), bump=Bump(frame=10, shift_px=(4.0, -3.0), roll_deg=0.3))
    assert cond.bump is not None
    before = _renderer(cond, 4)
    camera = before.camera
    moved = cond.bump.pose(camera)
    assert np.allclose(moved.centre, camera.centre)  # the camera turned, it did not travel
    # the table point seen at the principal point moves by the shift
    p = camera.to_plane([[camera.cx, camera.cy]], 0.0)[0]
    q = moved.project([[p[0], p[1], 0.0]])[0]
    assert np.allclose(q - (camera.cx, camera.cy), (4.0, -3.0), atol=0.02)
    # a table corner moves by the roll about the principal point and the shift
    corner = [0.0, 0.0, 0.0]
    a, b = camera.project([corner])[0], moved.project([corner])[0]
    th = math.radians(0.3)
    rel = a - (camera.cx, camera.cy)
    want = (camera.cx + math.cos(th) * rel[0] - math.sin(th) * rel[1] + 4.0,
            camera.cy + math.sin(th) * rel[0] + math.cos(th) * rel[1] - 3.0)
    # (exactly at the centre; off it, perspective and the lens stretch the shift a little)
    assert float(np.hypot(*(b - want))) < 0.3 * math.hypot(4.0, -3.0)
    assert float(np.hypot(*(b - a))) > 2.0
    # in the pictures: the middle of the frame moved by the shift
    after = Renderer(TABLE, moved, before.look, seed=4)
    crop = (slice(85, 185), slice(190, 290))
    g0 = cv2.cvtColor(before.background, cv2.COLOR_BGR2GRAY)[crop].astype(np.float64)
    g1 = cv2.cvtColor(after.background, cv2.COLOR_BGR2GRAY)[crop].astype(np.float64)
    (dx, dy), _ = cv2.phaseCorrelate(g0, g1, cv2.createHanningWindow((100, 100), cv2.CV_64F))
    assert abs(dx - 4.0) < 0.5 and abs(dy + 3.0) < 0.5


# --- a whole hard clip -------------------------------------------------------------------------
def _short_hard_clip(seed: int, out: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """16 frames of a hard clip (without its resting arm, which would make it seconds longer:
    the arm has tests of its own)."""
    draw = Conditions.draw

    def no_arm(*args: object, **kwargs: object) -> Conditions:
        return replace(draw(*args, **kwargs), arm=None)  # type: ignore[arg-type]

    monkeypatch.setattr(Conditions, "draw", no_arm)
    clip = replace(play(scenario("pot_HR"), seed), duration_s=0.5)
    return write_clip(clip, out, "c", hard=True)


def _seed_with(size: tuple[int, int], bump: bool) -> int:
    clip_frames = 16
    for seed in range(200):
        c = Conditions.draw(Conditions.rng(seed),
                            Look.random(np.random.default_rng(seed + 7_000_003), TABLE),
                            clip_frames, TABLE)
        if c.image_size == size and (c.bump is not None) == bump:
            return seed
    raise AssertionError("no such seed")


def test_a_hard_clip_is_remade_identically_and_labelled_with_its_conditions(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    seed = _seed_with((960, 540), True)
    first = _short_hard_clip(seed, tmp_path / "a", monkeypatch)
    second = _short_hard_clip(seed, tmp_path / "b", monkeypatch)
    for kind in ("labels", "tracks", "video"):
        assert first[kind].read_bytes() == second[kind].read_bytes(), kind
    doc = json.loads(first["labels"].read_text())
    cond = doc["conditions"]
    assert cond["tier"] == "hard" and doc["image_size"] == [960, 540]
    assert cond["image_size"] == [960, 540] and 34 <= cond["encoding"]["crf"] <= 40
    assert doc["look"]["cloth"] == cond["cloth"] in CLOTHS
    assert cond["hot_spots"]["amplitude"] is not None
    with av.open(str(first["video"])) as container:
        stream = container.streams.video[0]
        assert stream.codec_context.name == "h264"
        frames = [f.to_ndarray(format="bgr24") for f in container.decode(stream)]
    assert len(frames) == doc["frame_count"] and frames[0].shape == (540, 960, 3)
    # the bump's calibration: where the table's points are from the bump's frame on
    bump = cond["bump"]
    cal = bump["calibration"]
    assert cal["frame"] == bump["frame"] and cal["image_size"] == [960, 540]
    before = np.array(doc["calibration"]["homography_image_to_table"])
    after = np.array(cal["homography_image_to_table"])
    assert not np.allclose(before, after)


def test_a_hard_clip_without_a_bump_at_720p(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    seed = _seed_with((1280, 720), False)
    paths = _short_hard_clip(seed, tmp_path, monkeypatch)
    doc = json.loads(paths["labels"].read_text())
    assert doc["image_size"] == [1280, 720] and doc["conditions"]["bump"] is None
    assert doc["frame_count"] == 16 and doc["conditions"]["arm"] is None
    with av.open(str(paths["video"])) as container:
        stream = container.streams.video[0]
        assert (stream.codec_context.width, stream.codec_context.height) == (1280, 720)


# --- a resting arm -------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_resting_arm_hides_the_ball_it_lies_over_and_not_one_beside_it(seed):
    positions = {"W1": (1000.0, 700.0), "R1": (2100.0, 900.0), "Y": (1500.0, 420.0)}
    cond = _plain(seed, (640, 360))
    renderer = _renderer(cond, seed)
    poses = [{b: BallPose(*xy) for b, xy in positions.items()}]
    for over in (True, False):
        arm = resting_arm(ArmRest(1.5, over, 0.5, seed), positions, 3.0, TABLE)
        assert arm is not None and arm.ball == "W1" and arm.over == over
        assert arm.end_s == pytest.approx(4.5)
        assert all(math.dist(arm.cue.tip_xy_mm, xy) > 3 * R for xy in positions.values())
        _, visible = renderer.render_frame(poses, arm.cue)
        assert visible["W1"] is (not over)
        assert visible["R1"] and visible["Y"]
        doc = replace(cond, arm=ArmRest(1.5, over, 0.5, seed)).to_dict(arm=arm)
        assert doc["arm"]["from_frame"] == 90 and doc["arm"]["to_frame"] == 135
        assert doc["arm"]["ball"] == "W1" and doc["arm"]["over"] == over


def test_an_arm_goes_to_another_ball_when_its_ball_lies_against_a_cushion():
    positions = {"R2": (3204.0, 1739.0), "W1": (3470.0, 1059.0), "Y": (3253.0, 951.0)}
    arm = resting_arm(ArmRest(1.6, True, 0.0, 1431424040), positions, 4.6, TABLE)
    assert arm is not None and arm.ball == "W1"


def test_the_arm_is_in_the_timeline_only_while_it_rests():
    clip = play(scenario("pot_HR"), 3)
    final = clip.shots[-1].shot
    arm = resting_arm(ArmRest(1.0, True, 0.0, 4), dict(final.final_positions),
                      final.rest_time + 0.3, TABLE)
    assert arm is not None
    clip = replace(clip, duration_s=arm.end_s + 0.6)
    states = list(timeline(clip, arm))
    resting = [f for f, s in enumerate(states) if s.cue == arm.cue]
    assert resting[0] == math.ceil(arm.start_s * FPS) and resting[-1] == math.floor(arm.end_s * FPS)
    assert len(resting) == resting[-1] - resting[0] + 1
    assert states[-1].cue is None
