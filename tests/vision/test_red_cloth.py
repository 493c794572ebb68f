"""Balls of about the cloth's own colour (a red on a red cloth): the threshold's floor, set for
the whites, is lowered and the brightening counted when a ball the game state expects shows
less than a white would (the brightening alone when it shows only by its rim); on a cloth where
every ball shows by its colour nothing changes.

Real frame pairs of hard rendered clips (tests/vision/fixtures/detection) and frames rendered
here (synth.render) with a red cloth, and with a green and a blue one."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from calibration import Calibration
from rules.table import TableSpec
from synth.camera import random_pose
from synth.render import BallPose, Look, Renderer
from vision.detection import BallDetector, DetectionParams
from vision.detection.types import Detection

FIXTURES = Path(__file__).parent / "fixtures" / "detection"
TABLE = TableSpec()
RED_CLOTH = (0.076, 0.061, 0.305)  # BGR albedo: a dark, saturated red


def real_pair(name: str = "reds_on_a_red_cloth"
              ) -> tuple[dict[str, Any], Calibration, list[np.ndarray]]:
    """The fixture's case, its calibration and its two frames (each crop put back in place on a
    black frame of the video's size: the detector reads only the table's region)."""
    case = json.loads((FIXTURES / f"{name}.json").read_text())
    w, h = case["image_size"]
    x0, y0 = case["crop_origin_px"]
    frames = []
    for k in range(2):
        crop = cv2.imread(str(FIXTURES / f"{name}_{k}.png"), cv2.IMREAD_COLOR)
        assert crop is not None
        frame = np.zeros((h, w, 3), np.uint8)
        frame[y0:y0 + crop.shape[0], x0:x0 + crop.shape[1]] = crop
        frames.append(frame)
    return case, Calibration.from_dict(case["calibration"]), frames


def nearest_mm(found: list[Detection], xy: tuple[float, float]) -> float:
    return min((math.hypot(d.x_mm - xy[0], d.y_mm - xy[1]) for d in found), default=math.inf)


def test_both_reds_on_a_red_cloth_are_found_in_a_real_frame():
    case, cal, (first, second) = real_pair()
    det = BallDetector(cal)
    det.learn_cloth(first, balls_at=[tuple(p) for p in case["balls_at"].values()])
    found = det.detect(second, update=False)
    off = {ball: nearest_mm(found, tuple(xy)) for ball, xy in case["balls"].items()}
    # every ball within a radius of its true place (before: R1 and R2 not found at all)
    assert all(mm < TABLE.ball_radius_mm for mm in off.values()), off
    assert det.cloth_model.by_light
    white_floor = 0.25 * det.cloth_model._white_contrast()
    assert det.threshold == pytest.approx(det.params.faint_floor_share * white_floor, rel=0.01)


def test_a_red_that_shows_only_by_its_rim_is_found_and_the_whites_floor_stays():
    """R2's disc is above the whites' floor, its core (the lit top, of the cloth's chromaticity)
    below it: the brightening counts and fills the ring, which broken on one side made no blob
    (before: R2 not found, the nearest detection 322 mm off). The threshold keeps the whites'
    floor: no ball's disc is faint."""
    case, cal, (first, second) = real_pair("red_rings_on_a_red_cloth")
    det = BallDetector(cal)
    det.learn_cloth(first, balls_at=[tuple(p) for p in case["balls_at"].values()])
    found = det.detect(second, update=False)
    off = {ball: nearest_mm(found, tuple(xy)) for ball, xy in case["balls"].items()}
    assert all(mm < TABLE.ball_radius_mm for mm in off.values()), off
    assert det.cloth_model.by_light and det.cloth_model.faint_floor == math.inf
    blind = BallDetector(cal)
    blind.learn_cloth(first)
    assert det.threshold == blind.threshold


def test_without_the_game_states_balls_the_real_red_cloth_keeps_the_whites_floor():
    """Nothing tells the detector that a ball shows less than a white (no expected balls): the
    threshold stays a quarter of a white's contrast, and the reds are not seen. (What the game
    state adds: the referee always knows where the balls start.)"""
    case, cal, (first, second) = real_pair()
    det = BallDetector(cal)
    det.learn_cloth(first)
    assert not det.cloth_model.by_light
    assert det.threshold == pytest.approx(0.25 * det.cloth_model._white_contrast(), rel=0.01)
    found = det.detect(second, update=False)
    assert nearest_mm(found, tuple(case["balls"]["R2"])) > TABLE.ball_radius_mm


def test_a_floor_share_of_one_leaves_the_whites_floor():
    """``faint_floor_share`` is the floor's share: at 1 the threshold is the whites' floor even
    when a ball shows less (only the brightening is then counted)."""
    case, cal, (first, _) = real_pair()
    det = BallDetector(cal, DetectionParams(faint_floor_share=1.0))
    det.learn_cloth(first, balls_at=[tuple(p) for p in case["balls_at"].values()])
    assert det.cloth_model.by_light
    assert det.threshold == pytest.approx(0.25 * det.cloth_model._white_contrast(), rel=0.01)


# the five balls' places (table mm) in the rendered frames: none by a cushion or a pocket
AT = {"W1": (TABLE.length_mm - 200, TABLE.width_mm - 180), "W2": (820.0, 400.0),
      "R1": (TABLE.length_mm / 2, TABLE.width_mm / 2 + 300), "R2": (TABLE.length_mm - 650, 500.0),
      "Y": (600.0, TABLE.width_mm - 420)}


def rendered(seed: int, cloth: tuple[float, float, float] | None = None,
             kind: str | None = None) -> tuple[Calibration, list[np.ndarray]]:
    """Two frames of the five balls at rest (960x540, each with its own noise and compression),
    a red cloth of albedo ``cloth``, or a look of the cloth ``kind`` drawn from ``seed``."""
    rng = np.random.default_rng(seed)
    camera = random_pose(rng, TABLE, (960, 540))
    look = Look.from_seed(seed, TABLE, kind)
    if cloth is not None:
        look = replace(look, cloth_albedo=cloth, cloth_kind="other")
    renderer = Renderer(TABLE, camera, look, seed=seed)
    cal = Calibration.from_dict(camera.calibration_dict(TABLE, source="manual"))
    poses = {b: BallPose(x, y) for b, (x, y) in AT.items()}
    frames = [renderer.render_frame([poses], rng=np.random.default_rng(100 * seed + k))[0]
              for k in range(2)]
    return cal, frames


@pytest.mark.parametrize("seed", [0, 2])
def test_rendered_reds_on_a_dark_red_cloth_are_found(seed):
    cal, (first, second) = rendered(seed, RED_CLOTH)
    det = BallDetector(cal)
    det.learn_cloth(first, balls_at=list(AT.values()))
    found = det.detect(second, update=False)
    off = {ball: nearest_mm(found, xy) for ball, xy in AT.items()}
    assert all(mm < 10.0 for mm in off.values()), off
    # the same frames learned without the expected balls: a red is lost
    blind = BallDetector(cal)
    blind.learn_cloth(first)
    found = blind.detect(second, update=False)
    assert max(nearest_mm(found, AT[b]) for b in ("R1", "R2")) > TABLE.ball_radius_mm


@pytest.mark.parametrize(("seed", "kind"), [(1, "green"), (4, "green"), (2, "blue"), (5, "blue")])
def test_on_a_green_or_blue_cloth_the_expected_balls_change_nothing(seed, kind):
    """Every ball shows by its colour there: learned with the expected balls or without, the
    threshold, the brightening's part and the balls found are the same."""
    cal, (first, second) = rendered(seed, kind=kind)
    told, blind = BallDetector(cal), BallDetector(cal)
    told.learn_cloth(first, balls_at=list(AT.values()))
    blind.learn_cloth(first)
    assert told.threshold == blind.threshold
    assert told.cloth_model.by_light == blind.cloth_model.by_light
    assert told.cloth_model.faint_floor == math.inf
    found = told.detect(second, update=False)
    assert all(nearest_mm(found, xy) < 10.0 for xy in AT.values())


@pytest.mark.parametrize(("seed", "kind"), [(1, "green"), (2, "blue")])
def test_an_expected_ball_that_is_not_there_changes_nothing(seed, kind):
    """The game state may have a ball on its spot before it is put back there (a resumed
    match): that spot is the cloth itself, no faint ball, and the threshold stays the whites'."""
    cal, (first, _) = rendered(seed, kind=kind)
    spot = (TABLE.length_mm / 2, TABLE.width_mm / 2)  # (empty in the rendered frames)
    told, blind = BallDetector(cal), BallDetector(cal)
    told.learn_cloth(first, balls_at=[*AT.values(), spot])
    blind.learn_cloth(first, balls_at=list(AT.values()))
    assert told.cloth_model.faint_floor == math.inf
    assert told.threshold == blind.threshold
    assert told.cloth_model.by_light == blind.cloth_model.by_light


def test_on_a_red_cloth_only_an_expected_ball_that_is_there_lowers_the_floor():
    case, cal, (first, _) = real_pair()
    empty = (TABLE.length_mm / 4, TABLE.width_mm / 4)  # (no ball there)
    assert min(math.dist(empty, xy) for xy in case["balls_at"].values()) > 300
    det = BallDetector(cal)
    det.learn_cloth(first, balls_at=[empty])
    assert det.cloth_model.faint_floor == math.inf and not det.cloth_model.by_light
    det.learn_cloth(first, balls_at=[empty, tuple(case["balls_at"]["R2"])])
    assert det.cloth_model.faint_floor < math.inf and det.cloth_model.by_light
