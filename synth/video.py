"""A played clip drawn frame by frame and written out: `name.mp4`, `name.labels.json` and
`name.tracks.csv` (DESIGN.md "Labelled clip")."""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from synth.camera import CameraPose, random_pose
from synth.clip import FPS, TAIL_S, PlayedClip, PlayedShot, labels
from synth.conditions import Conditions, RestingArm, resting_arm
from synth.physics import BALL_IDS
from synth.render import BallPose, CueState, Look, Renderer, roll
from video import Encoding, FileSource, VideoError, VideoWriter

IMAGE_SIZE = (1280, 720)
SUBFRAMES = 4  # motion blur: samples averaged over the exposure of one frame
CUE_IN_S = 0.9  # the cue is over the table this long before the strike ...
CUE_OUT_S = 0.35  # ... and this long after it
BACKSWING_MM = 140.0
ARM_AFTER_REST_S = 0.3  # a hard clip's resting arm comes this long after the last ball stops
CRF = 30  # x264 quality: small files, artefacts like a webcam stream's
# Every clip's encoding: x264 at CRF, one thread (the same frames give the same bytes), the
# encoder's own conversion to 4:2:0; no other encoder.
CLIP_ENCODING = Encoding(options={"crf": str(CRF), "preset": "medium", "threads": "1"},
                         container_format=None, convert="encoder", fallback=False)


@dataclass(frozen=True)
class FrameState:
    """What is on the table during one frame: per sub-frame ball centres, and the cue."""

    samples: list[dict[str, tuple[float, float]]]
    cue: CueState | None


def timeline(clip: PlayedClip, arm: RestingArm | None = None) -> Iterator[FrameState]:
    """Every frame of the clip: balls still before a strike, moving during a shot, put back
    (respots, whites in hand) halfway between shots; ``arm``: a resting arm in its time."""
    shots = clip.shots
    for frame in range(clip.frame_count):
        t = frame / FPS
        # The exposure is centred on t, so the labelled position is the middle of a blur streak.
        times = [t + ((k + 0.5) / SUBFRAMES - 0.5) / FPS for k in range(SUBFRAMES)]
        current = _shot_at(shots, t)
        samples = [_positions_at(shots, current, tt) for tt in times]
        cue = _cue_at(shots, t)
        if cue is None and arm is not None and arm.start_s <= t <= arm.end_s:
            cue = arm.cue
        yield FrameState(samples, cue)


def _shot_at(shots: tuple[PlayedShot, ...], t: float) -> int:
    """Index of the last shot struck at or before ``t`` (-1 before the first)."""
    k = -1
    for i, s in enumerate(shots):
        if s.shot.t0 <= t:
            k = i
    return k


def _positions_at(shots: tuple[PlayedShot, ...], k: int, t: float) -> dict[str, tuple[float,
                                                                                      float]]:
    if k < 0:
        return dict(shots[0].before)
    s = shots[k]
    if t <= s.shot.rest_time:
        pos, _, _ = s.shot.sample([t])
        return {b: (float(pos[0, i, 0]), float(pos[0, i, 1])) for i, b in enumerate(BALL_IDS)
                if not math.isnan(pos[0, i, 0])}
    nxt = shots[k + 1] if k + 1 < len(shots) else None
    # The operator puts balls back halfway to the next strike.
    if nxt is not None and t >= (s.shot.rest_time + nxt.shot.t0) / 2:
        return dict(nxt.before)
    return dict(s.shot.final_positions)


def true_positions(clip: PlayedClip, frame: int) -> dict[str, tuple[float, float]]:
    """Every ball on the table at the middle of ``frame``'s exposure (the labelled position)."""
    t = frame / FPS
    return _positions_at(clip.shots, _shot_at(clip.shots, t), t)


def _cue_at(shots: tuple[PlayedShot, ...], t: float) -> CueState | None:
    for s in shots:
        t0 = s.shot.t0
        if not (t0 - CUE_IN_S <= t <= t0 + CUE_OUT_S):
            continue
        cue_xy = s.before[s.planned.strike.ball]
        d = s.planned.strike.direction
        ux, uy = math.cos(d), math.sin(d)
        if t < t0:
            # Two slow practice strokes, then the stroke that hits the ball at t0.
            phase = (t0 - t) / CUE_IN_S
            gap = 15.0 + BACKSWING_MM * 0.5 * (1 - math.cos(2 * math.pi * 2.5 * phase)) * phase
        else:
            gap = -20.0 * min(1.0, (t - t0) / 0.1)  # follow-through
        tip = (cue_xy[0] - ux * (34.0 + gap), cue_xy[1] - uy * (34.0 + gap))
        bridge = (cue_xy[0] - ux * 260.0, cue_xy[1] - uy * 260.0)
        return CueState(tip, d, True, bridge)
    return None


def write_clip(clip: PlayedClip, out_dir: Path, name: str,
               progress: Callable[[int, int], object] | None = None,
               hard: bool = False) -> dict[str, Path]:
    """Render ``clip`` and write the video, labels and tracks into ``out_dir``; ``hard``: under
    a club room's conditions drawn from the clip's seed (:mod:`synth.conditions`), recorded in
    the labels as ``conditions``."""
    rng = np.random.default_rng(clip.seed + 7_000_003)
    conditions: Conditions | None = None
    bumped: Renderer | None = None
    arm: RestingArm | None = None
    if hard:
        base_look = Look.random(rng, clip.table)
        conditions = Conditions.draw(Conditions.rng(clip.seed), base_look, clip.frame_count,
                                     clip.table)
        if conditions.arm is not None and clip.shots:
            final = clip.shots[-1].shot
            arm = resting_arm(conditions.arm, dict(final.final_positions),
                              final.rest_time + ARM_AFTER_REST_S, clip.table)
            if arm is not None:  # the clip goes on while the arm rests, and a little after
                clip = replace(clip, duration_s=max(clip.duration_s, arm.end_s + TAIL_S))
        image_size = conditions.image_size
        camera: CameraPose = random_pose(rng, clip.table, image_size)
        look = conditions.apply_look(base_look)
        renderer = Renderer(clip.table, camera, look, seed=clip.seed,
                            hot_spots=conditions.hot_spots)
        conditions = replace(conditions, hot_spots=renderer.hot_spots)  # (solved)
        if conditions.bump is not None:
            bumped = Renderer(clip.table, conditions.bump.pose(camera), look, seed=clip.seed,
                              hot_spots=renderer.hot_spots)
        encoding = conditions.encoding()
    else:
        image_size = IMAGE_SIZE
        camera = random_pose(rng, clip.table, IMAGE_SIZE)
        look = Look.random(rng, clip.table)
        renderer = Renderer(clip.table, camera, look, seed=clip.seed)
        encoding = CLIP_ENCODING
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {"video": out_dir / f"{name}.mp4", "labels": out_dir / f"{name}.labels.json",
             "tracks": out_dir / f"{name}.tracks.csv"}
    rotations = {b: np.eye(3) for b in BALL_IDS}
    last: dict[str, tuple[float, float]] = {}
    rows: list[tuple[int, str, float, float, int]] = []
    noise = np.random.default_rng(clip.seed + 11)
    with VideoWriter(paths["video"], image_size, FPS, encoding) as video:
        for frame_index, state in enumerate(timeline(clip, arm)):
            poses = []
            for sample in state.samples:
                pose = {}
                for b, xy in sample.items():
                    if b in last and math.dist(last[b], xy) < 200:  # rolled (not put back)
                        dx, dy = xy[0] - last[b][0], xy[1] - last[b][1]
                        rotations[b] = roll(rotations[b], dx, dy, clip.table.ball_radius_mm)
                    last[b] = xy
                    pose[b] = BallPose(xy[0], xy[1], rotations[b])
                poses.append(pose)
            if conditions is None:
                image, visible = renderer.render_frame(poses, state.cue, noise)
            else:
                now = renderer
                if bumped is not None and conditions.bump is not None \
                        and frame_index >= conditions.bump.frame:
                    now = bumped
                image, visible = now.render_frame(poses, state.cue)
                image = now.finish(conditions.optics(image, frame_index, FPS), noise)
            mid = true_positions(clip, frame_index)
            for b in BALL_IDS:
                if b in mid:
                    rows.append((frame_index, b, mid[b][0], mid[b][1], int(visible.get(b, True))))
            video.write(image)
            if progress is not None:
                progress(frame_index + 1, clip.frame_count)
    calibration = camera.calibration_dict(clip.table, frame=0, source="manual")
    calibration["origin"] = "synthetic ground truth (the renderer's camera)"
    document = labels(clip, paths["video"].name, image_size, calibration)
    document["look"] = {"cloth": look.cloth_kind, "seed": clip.seed}
    if conditions is not None:
        document["conditions"] = conditions.to_dict(
            None if bumped is None else bumped.camera, clip.table, FPS, arm)
    paths["labels"].write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    with paths["tracks"].open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["frame", "ball", "x_mm", "y_mm", "visible"])
        for frame_index, b, x, y, vis in rows:
            writer.writerow([frame_index, b, f"{x:.2f}", f"{y:.2f}", vis])
    return paths


def padded_copy(src_dir: Path, dst_dir: Path, name: str, shown: int = 2) -> int:
    """The labelled clip ``name`` of ``src_dir`` as a camera of ``FPS / shown`` frames a
    second, padded to ``FPS`` by its recorder, gives it: the first picture of every ``shown``
    frames shown for all of them (re-encoded), with the labels and true tracks unchanged (the
    balls were where they were, whatever the picture shows), written into ``dst_dir``.
    Returns the frames written."""
    dst_dir.mkdir(parents=True, exist_ok=True)
    src = src_dir / f"{name}.mp4"
    try:
        source = FileSource(src, planar=False)
        size = source.size
    except VideoError:
        raise FileNotFoundError(f"expected a video at {src}") from None
    shown_picture: NDArray[np.uint8] | None = None
    with VideoWriter(dst_dir / f"{name}.mp4", size, FPS, CLIP_ENCODING) as writer:
        for index, picture in source.bgr_frames():
            if index % shown == 0:
                shown_picture = picture
            assert shown_picture is not None  # (set at index 0)
            writer.write(shown_picture)
    for ext in (".labels.json", ".tracks.csv"):
        (dst_dir / f"{name}{ext}").write_bytes((src_dir / f"{name}{ext}").read_bytes())
    return writer.frames

