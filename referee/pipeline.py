"""Video -> calibration -> tracks -> shot facts: the facts of a recorded match, for the same
refereeing loop that judges a GAME record (journal, one line per shot, reports)."""

from __future__ import annotations

import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from calibration import (
    Calibration,
    DriftEvent,
    DriftMonitor,
    find_table,
    sample_frames,
)
from referee.errors import InputError
from referee.gamefile import Game, read_json
from rules import Call, GameState, KaisaError, RuleOptions, TableSpec, cue_ball_of
from vision.ballsize import calibrate_for_the_balls, table_for_the_balls
from vision.shotfacts import shots_from_tracks, tracks_from_rows
from vision.track import track_video, video_fps

DRIFT_CHECK_S = 5.0  # seconds of video between two checks that the camera has not moved


def load_calibration(path: Path) -> Calibration:
    data = read_json(path, "a kaisa-calibration/1 file")
    try:
        return Calibration.from_dict(data)
    except KaisaError as err:
        raise InputError(str(err), str(path)) from None


def load_calls(path: Path) -> list[dict[str, Any]]:
    """A calls file: `{"calls": [{"shot": 3, "ball": "R", "pocket": "FL"}, {"t": 95.2, ...}]}`;
    `shot` counts from 0; `t` (seconds) names the first shot struck at or after it."""
    data = read_json(path, 'a calls file {"calls": [{"shot" or "t", "ball", "pocket"}, ...]}')
    calls = data.get("calls") if isinstance(data, Mapping) else None
    if not isinstance(calls, list):
        raise InputError('expected {"calls": [...]}', str(path))
    for i, c in enumerate(calls):
        where = f"{path}: calls[{i}]"
        if not isinstance(c, Mapping) or ("shot" in c) == ("t" in c):
            raise InputError('expected "shot" (index) or "t" (seconds), and "ball", "pocket"',
                             where)
        try:
            Call.from_dict(c)
        except KaisaError as err:
            raise InputError(str(err), where) from None
    return calls


def apply_calls(shots: Sequence[dict[str, Any]], calls: Sequence[Mapping[str, Any]]
                ) -> list[dict[str, Any]]:
    """The shots with their calls (shots without one stay uncalled)."""
    out = [dict(s) for s in shots]
    for c in calls:
        call = {"ball": c["ball"], "pocket": c["pocket"]}
        if "shot" in c:
            if 0 <= int(c["shot"]) < len(out):
                out[int(c["shot"])]["call"] = call
            continue
        for s in out:
            if s["events"][0]["t"] >= float(c["t"]) - 0.5:
                s["call"] = call
                break
    return out


def illustrate(video: Path, shots: list[dict[str, Any]], rows: Sequence[tuple[int, str, float,
                                                                          float, bool]]) -> None:
    """Add to each shot what a person checks a verdict with: the balls' paths during the shot
    (mm, every other frame) and a still of the table just before the strike."""
    import base64

    import cv2

    by_frame: dict[int, list[tuple[str, float, float]]] = {}
    for frame, ball, x, y, visible in rows:
        if visible:
            by_frame.setdefault(frame, []).append((ball, x, y))
    capture = cv2.VideoCapture(str(video))
    try:
        for shot in shots:
            first, last = int(shot["strike_frame"]), int(shot["rest_frame"])
            paths: dict[str, list[list[float]]] = {}
            for frame in range(first, last + 1, 2):
                for ball, x, y in by_frame.get(frame, []):
                    paths.setdefault(ball, []).append([round(x), round(y)])
            shot["paths"] = paths
            capture.set(cv2.CAP_PROP_POS_FRAMES, max(first - 3, 0))
            ok, image = capture.read()
            if ok:
                small = cv2.resize(image, (640, image.shape[0] * 640 // image.shape[1]))
                ok, jpeg = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, 70])
                if ok:
                    shot["still_jpeg_b64"] = base64.b64encode(jpeg.tobytes()).decode("ascii")
    finally:
        capture.release()


Row = tuple[int, str, float, float, bool]


def track_rows(video: Path, calibration: Calibration, table: TableSpec, cue_ball: str | None,
               progress: bool = False, start: GameState | None = None,
               drift: DriftMonitor | None = None) -> list[Row]:
    """The tracker's answer for every frame as rows (frame, ball, x_mm, y_mm, visible);
    ``start``, the game state when the video begins, names the balls by where they were left;
    ``drift`` watches the camera (its notable checks are printed as they happen)."""
    rows: list[Row] = []
    positions = ({b.value: xy for b, xy in start.on_table.items()} if start is not None
                 else None)
    told = 0
    for k, result in enumerate(track_video(video, calibration, table, cue_ball=cue_ball,
                                           start_positions=positions, drift=drift)):
        for ball, (x, y, visible) in result.balls.items():
            rows.append((result.frame, ball, x, y, visible))
        if progress and k % 150 == 0:
            print(f"\r{video.name}: tracking, frame {k}", end="", file=sys.stderr, flush=True)
        if drift is not None and len(drift.events) > told:
            for event in drift.events[told:]:
                if event.status != "unmeasured":
                    print(f"\n{video.name}: {event.t_s:.1f} s: {event.message}", file=sys.stderr)
            told = len(drift.events)
    if progress:
        print(file=sys.stderr)
    return rows


@dataclass
class VideoFacts:
    """What refereeing a video found: the game (shots with calls), the calibration it started
    with, the time each stage took, the tracker's rows (for the annotated video) and the camera
    drift checks that were not "ok" (each with the calibration in force after it)."""

    game: Game
    calibration: Calibration
    timings: dict[str, float]
    rows: list[Row]
    drift: list[DriftEvent] = field(default_factory=list)

    def drift_report(self) -> list[dict[str, Any]]:
        return [{"frame": e.frame, "t_s": round(e.t_s, 3), "status": e.status,
                 "drift_mm": None if e.drift_mm is None else round(e.drift_mm, 2),
                 "message": e.message} for e in self.drift]


def game_from_video(video: Path, options: RuleOptions, start: GameState,
                    calibration: Calibration | None, calls: Sequence[Mapping[str, Any]]
                    ) -> VideoFacts:
    """Calibrate (unless given), track (watching for the camera moving), find the shots (with
    their paths and a still), attach the calls."""
    clock = time.perf_counter()
    if calibration is None:
        calibration = calibrate_for_the_balls(video, options.table, sample_frames(video, 9))
        for warning in calibration.warnings:
            print(f"kaisa: calibration warning: {warning}", file=sys.stderr)
    calibrated = time.perf_counter()
    fps = video_fps(video)
    table = options.table
    # balls far from the preset's size are looked for at the size they measure (a calibration
    # made for them, or one made for the preset whose checks measured them)
    fitted = table_for_the_balls(replace(calibration, table=table))
    if calibration.table in (table, fitted):
        table = fitted
        calibration = replace(calibration, table=fitted)
    drift = DriftMonitor(calibration, every_s=DRIFT_CHECK_S,
                         recalibrate=lambda frame: find_table(frame, table))
    rows = track_rows(video, calibration, table, cue_ball_of(start.shooter).value,
                      progress=True, start=start, drift=drift)
    tracked = time.perf_counter()
    shots = shots_from_tracks(table, tracks_from_rows(rows, fps), fps)
    found = time.perf_counter()
    illustrate(video, shots, rows)
    timings = {"calibration_s": round(calibrated - clock, 3),
               "tracking_s": round(tracked - calibrated, 3),
               "shot_facts_s": round(found - tracked, 3),
               "pictures_s": round(time.perf_counter() - found, 3)}
    game = Game(video, options, start, tuple(apply_calls(shots, calls)),
                f"{len(shots)} shots found in the video", from_camera=True)
    return VideoFacts(game, calibration, timings, rows, drift.events)
