"""The tracker and the shot facts on the real club footage (a measurement, not a test).

    python benchmarks/bench_realdata.py [--clips NAME ...] [--frames DIR] [--every N]
                                        [--at CLIP:F,F,...] [--ball-mm MM] [--game-state]
                                        [--shift N]

Reads ../shared/realdata/club-overhead (beside the project; skipped with a message when it is
absent). For each clip: calibrate as ``kaisa calibrate`` does (the median of 9 frames; the
default table spec, russian-12ft, stands in for the unknown pool table, as in
tests/calibration/test_calibration_realdata.py), track every frame with
``vision.tracking.tracker.track_video`` and find the shots with
``vision.shots.facts.shots_from_tracks`` (as
referee/pipeline.py chains them, with no start state and no cue ball named; with
``--game-state``, from the state a match would give at each clip's start,
benchmarks/realdata_startstate.json: the white named W1 and the cue ball, the red R1, where they
rest, and no other ball on the table). Prints per clip: the
frames, the balls of each colour the tracker reports visible per frame (median, min, max) and the
raw detections per frame, the share of frames in which each identity is visible, the shots found
and the pots (ball, pocket, time, frame); with the hand labels, the hand check's counts and a line
for each hand-placed ball no id of its colour found (with the detections near it): those of
benchmarks/realdata_handlabels.json (40 frames chosen for their hard moments, and the 8 pots) and,
apart, those of benchmarks/realdata_randomlabels.json (30 frames drawn at random); and the
every-frame check by eye, benchmarks/realdata_everyframe.json: its totals, and this run
re-scored against the places it judged (found again, lost, still missed, and the frames whose
ids moved, listed to be looked at again). ``--shift N`` adds N grey levels (negative: takes them
away) to every channel of every frame the tracker is given: how much the results hang on the
decoder's last level (another FFmpeg build, another colour conversion, differ by about one).

There are no labels for this footage: these numbers say what the tracker *reports*, not whether
it is right. ``--frames DIR`` writes overlay pictures for checking by eye (every ``--every``
frames, and the frames named by ``--at``): each tracked id drawn at
``Calibration.table_to_image`` of its position (filled label when visible, grey in brackets when
hidden), each raw detection as a thin circle with its colour letter and score, the pockets'
names, and a line of the frame's tracks. benchmarks/realdata_handcheck.md is the hand check
made with these pictures.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]
REALDATA = ROOT.parent / "shared" / "realdata"
CLIPS = REALDATA / "club-overhead"

COLOUR_OF = {"W1": "white", "W2": "white", "R1": "red", "R2": "red", "Y": "yellow"}
DRAW_BGR = {"white": (255, 255, 255), "red": (0, 0, 255), "yellow": (0, 255, 255),
            "other": (255, 0, 255)}


def _parse_at(values: list[str]) -> dict[str, set[int]]:
    at: dict[str, set[int]] = {}
    for v in values:
        clip, _, frames = v.partition(":")
        at.setdefault(clip, set()).update(int(f) for f in frames.split(",") if f)
    return at


def _overlay(frame: Any, calibration: Any, result: Any, clip: str) -> Any:
    import cv2
    import numpy as np

    img = frame.copy()
    for pocket, (px, py) in calibration.pockets_px().items():
        cv2.putText(img, pocket.value, (int(px) - 10, int(py) + 5), cv2.FONT_HERSHEY_SIMPLEX,
                    0.45, (255, 255, 0), 1, cv2.LINE_AA)
    for d in result.detections:
        colour = DRAW_BGR.get(d.colour, (255, 0, 255))
        c = (round(d.x_px), round(d.y_px))
        cv2.circle(img, c, max(2, round(d.radius_px) + 3), colour, 1, cv2.LINE_AA)
        cv2.putText(img, f"{d.colour[0]}{d.score:.1f}", (c[0] + 12, c[1] + 22),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.35, colour, 1, cv2.LINE_AA)
    names = sorted(result.balls)
    if names:
        pts = calibration.table_to_image(
            np.array([[result.balls[b][0], result.balls[b][1]] for b in names]))
        for b, (x, y) in zip(names, pts, strict=True):
            visible = result.balls[b][2]
            colour = DRAW_BGR[COLOUR_OF[b]] if visible else (128, 128, 128)
            c = (round(x), round(y))
            cv2.drawMarker(img, c, colour, cv2.MARKER_CROSS, 8, 1, cv2.LINE_AA)
            label = b if visible else f"({b})"
            cv2.putText(img, label, (c[0] + 10, c[1] - 10), cv2.FONT_HERSHEY_SIMPLEX, 0.6,
                        (0, 0, 0), 3, cv2.LINE_AA)
            cv2.putText(img, label, (c[0] + 10, c[1] - 10), cv2.FONT_HERSHEY_SIMPLEX, 0.6,
                        colour, 1, cv2.LINE_AA)
    text = " ".join(f"{b}{'' if result.balls[b][2] else '(hidden)'}"
                    f"@{result.balls[b][0]:.0f},{result.balls[b][1]:.0f}" for b in names)
    cv2.rectangle(img, (0, 0), (img.shape[1], 22), (0, 0, 0), -1)
    cv2.putText(img, f"{clip} frame {result.frame} dets {len(result.detections)} | {text}",
                (4, 16), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 255, 255), 1, cv2.LINE_AA)
    return img


def _save_overlays(path: Path, calibration: Any, by_frame: dict[int, Any], wanted: set[int],
                   out: Path) -> int:
    import cv2

    from calibration import read_frames

    out.mkdir(parents=True, exist_ok=True)
    n = 0
    for index, frame in read_frames(path):
        if index in wanted and index in by_frame:
            img = _overlay(frame, calibration, by_frame[index], path.stem)
            cv2.imwrite(str(out / f"{path.stem}_{index:04d}.png"), img)
            n += 1
        if index > max(wanted, default=-1):
            break
    return n


def _stats(values: list[int]) -> str:
    if not values:
        return "-"
    return f"{statistics.median(values):g}/{min(values)}/{max(values)}"


def table_spec(ball_mm: float | None) -> Any:
    """The default spec (russian-12ft, as the calibration tests use for this footage), or the
    same table with balls of ``ball_mm`` (``TableSpec.with_ball``: the pocket mouths in
    proportion)."""
    from rules import TableSpec

    return TableSpec() if ball_mm is None else TableSpec().with_ball(ball_mm)


HANDLABELS = ROOT / "benchmarks" / "realdata_handlabels.json"
# The footage has at most one white and one red on the table, and no yellow (SOURCES.md): every
# visible id beyond that in a frame is a phantom. Counted over every frame, with no labels, it
# shows what a sample of hand-checked frames misses between its frames.
FOOTAGE_BALLS = {"white": 1, "red": 1, "yellow": 0}
# a second sample: frames drawn at random over all the footage (the first was chosen to hold the
# hard moments: strikes, blurs, hands over the table), so the share of frames is estimated too
RANDOMLABELS = ROOT / "benchmarks" / "realdata_randomlabels.json"


def score_frames(labels: dict[str, list[dict[str, Any]]], match_px: float, calibration: Any,
                 by_frame: dict[int, Any], misses: list[str] | None = None) -> Counter[str]:
    """The hand-labelled balls of one clip against what the tracker reports (ids) and what the
    detector saw (raw detections): found (an id of the ball's colour, visible, within
    ``match_px``), wrong colour, missed, phantoms (visible ids near no ball); the same for the
    raw detections. ``misses``: a line is added for each ball no id of its colour found, with
    the detections within three match radii of it (colour, score, distance in px)."""
    import numpy as np

    n: Counter[str] = Counter()
    for frame, balls in labels.items():
        r = by_frame.get(int(frame))
        if r is None:
            continue
        ids = [b for b in sorted(r.balls) if r.balls[b][2]]
        pts = (calibration.table_to_image(np.array([r.balls[b][:2] for b in ids]))
               if ids else np.zeros((0, 2)))
        tracked = [(COLOUR_OF[b], float(x), float(y)) for b, (x, y) in zip(ids, pts, strict=True)]
        raw = [(d.colour, d.x_px, d.y_px) for d in r.detections]
        for kind, seen in (("ids", tracked), ("detections", raw)):
            near_any = [False] * len(seen)
            for ball in balls:
                near = [k for k, (_, x, y) in enumerate(seen)
                        if math.hypot(x - ball["x_px"], y - ball["y_px"]) <= match_px]
                for k in near:
                    near_any[k] = True
                if any(seen[k][0] == ball["colour"] for k in near):
                    n[f"{kind} found"] += 1
                    continue
                if kind == "ids" and misses is not None:
                    gaps = [(d, c, math.hypot(x - ball["x_px"], y - ball["y_px"]))
                            for d, (c, x, y) in zip(r.detections, raw, strict=True)]
                    around = [f"{c} {d.score:.2f} at {g:.0f} px" for d, c, g in gaps
                              if g <= 3 * match_px]
                    misses.append(f"frame {frame}: the {ball['colour']} at ({ball['x_px']}, "
                                  f"{ball['y_px']}) px has no id; detections near: "
                                  + (", ".join(around) or "none"))
                if near:
                    n[f"{kind} wrong colour"] += 1
                else:
                    n[f"{kind} missed"] += 1
            n[f"{kind} phantoms"] += near_any.count(False)
        n["balls"] += len(balls)
        n["frames"] += 1
    return n


def _scored(hand: dict[str, Any] | None, clip: str, calibration: Any,
            by_frame: dict[int, Any], misses: list[str]) -> Counter[str]:
    """``score_frames`` of the hand-labelled frames of ``clip`` in ``hand`` (a labels file's
    contents), or nothing when it has none."""
    if hand is None or clip not in hand["frames"]:
        return Counter()
    return score_frames(hand["frames"][clip], float(hand["match_px"]), calibration, by_frame,
                        misses)


def _print_check(title: str, scores: Counter[str], misses: list[str]) -> None:
    if scores:
        print(f"  {title}: " + ", ".join(f"{k} {v}" for k, v in sorted(scores.items())))
        for line in misses:
            print(f"    {line}")


EVERYFRAME = ROOT / "benchmarks" / "realdata_everyframe.json"
STARTSTATE = ROOT / "benchmarks" / "realdata_startstate.json"
VERDICTS = ("found", "missed", "covered", "gone")


def everyframe_totals(doc: dict[str, Any]) -> dict[str, Counter[str]]:
    """The verdicts of ``realdata_everyframe.json`` counted per clip (frames of each ball
    judged found, missed, covered, gone). Each ball's runs must cover its clip's frames, in
    order, once each: a ValueError says where they do not."""
    totals: dict[str, Counter[str]] = {}
    for clip, balls in doc["clips"].items():
        n = doc["frames"][clip]
        counts: Counter[str] = Counter()
        for colour, ball in balls.items():
            at = 0
            for run in ball["runs"]:
                if run["from"] != at or run["to"] < run["from"] or run["verdict"] not in VERDICTS:
                    raise ValueError(f"{clip} {colour}: expected a run from frame {at} with a "
                                     f"verdict of {', '.join(VERDICTS)}, got {run}")
                counts[run["verdict"]] += run["to"] - run["from"] + 1
                at = run["to"] + 1
            if at != n:
                raise ValueError(f"{clip} {colour}: the runs end at frame {at - 1}, the clip "
                                 f"has {n} frames")
        totals[clip] = counts
    return totals


SAME_PLACE_PX = 5.0  # an id this near the place judged on the ball is found again


def everyframe_rescore(ball: dict[str, Any], ids_px: dict[int, list[tuple[float, float]]]
                       ) -> tuple[Counter[str], list[int], list[int]]:
    """One ball of ``realdata_everyframe.json`` against a run's visible ids of its colour
    (``ids_px``: frame -> image pixels): found again (an id within SAME_PLACE_PX of a place
    judged on it: the code of record's, or another run's in ``other_found_px``), found where
    the code of record missed it ("gained": at such another place), lost (a found frame with
    no id of its colour at all), still missed (a missed frame whose ids are all at the places
    judged not on it); with the frames to look at again (a found frame whose id moved, a
    missed frame with an id somewhere new) and those lost."""
    counts: Counter[str] = Counter()
    look: list[int] = []
    lost: list[int] = []
    found, wrong = ball["found_px"], ball["wrong_ids_px"]
    other = ball.get("other_found_px", {})

    def near(here: list[tuple[float, float]], places: list[list[float]]) -> bool:
        return any(math.dist(p, q) <= SAME_PLACE_PX for p in here for q in places)

    for run in ball["runs"]:
        for f in range(run["from"], run["to"] + 1):
            here = ids_px.get(f, [])
            on_it = [found[str(f)]] if str(f) in found else []
            only_wrong = all(near([p], wrong.get(str(f), [])) for p in here)
            if run["verdict"] == "found":
                if near(here, on_it + other.get(str(f), [])):
                    counts["found"] += 1
                elif here and not only_wrong:
                    look.append(f)
                else:  # no id, or only ids judged not on it
                    counts["lost"] += 1
                    lost.append(f)
            elif run["verdict"] == "missed":
                if near(here, other.get(str(f), [])):
                    counts["gained"] += 1
                elif only_wrong:
                    counts["missed"] += 1
                else:
                    look.append(f)
    return counts, look, lost


def _print_everyframe(doc: dict[str, Any], runs: dict[str, dict[str, Any]] | None) -> None:
    """The every-frame check's totals; and with ``runs`` (clip -> its frames' visible ids of
    each colour, image pixels), this run re-scored against it."""
    totals = everyframe_totals(doc)
    all_: Counter[str] = sum(totals.values(), Counter())
    seen = all_["found"] + all_["missed"]
    print(f"every frame, judged by eye on the ids of {doc['code']} "
          f"(benchmarks/realdata_everyframe.json): {all_['found']} of {seen} ball-frames in view "
          f"found ({100 * all_['found'] / max(seen, 1):.2f} %), {all_['missed']} missed, "
          f"{all_['covered']} covered, {all_['gone']} in a pocket or gone")
    for clip, c in totals.items():
        if c["missed"]:
            print(f"  {clip}: {c['missed']} missed of {c['found'] + c['missed']}")
    if not runs:
        return
    now: Counter[str] = Counter()
    lines: list[str] = []
    to_look = 0
    for clip, balls in doc["clips"].items():
        if clip not in runs:
            continue
        for colour, ball in balls.items():
            counts, look, lost = everyframe_rescore(ball, runs[clip][colour])
            now += counts
            to_look += len(look)
            if look:
                lines.append(f"{clip} {colour}: to look at, frames {_ranges(look)}")
            if lost:
                lines.append(f"{clip} {colour}: lost, frames {_ranges(lost)}")
    print(f"this run against it: {now['found']} found again, {now['gained']} found where the "
          f"code of record missed (at places judged on other runs), {now['lost']} lost, "
          f"{now['missed']} still missed, {to_look} to look at again; found for sure "
          f"{now['found'] + now['gained']} of {seen} "
          f"({100 * (now['found'] + now['gained']) / max(seen, 1):.2f} %)")
    for line in lines:
        print(f"  {line}")


def _ranges(frames: list[int]) -> str:
    """1, 2, 3, 7 -> '1-3, 7'."""
    out: list[str] = []
    for f in frames:
        if out and f == int(out[-1].split("-")[-1]) + 1:
            out[-1] = f"{out[-1].split('-')[0]}-{f}"
        else:
            out.append(str(f))
    return ", ".join(out)


def score_pots(truth: list[dict[str, Any]], reported: list[tuple[str, Any, float, int]],
               calibration: Any) -> Counter[str]:
    """Reported ball losses of one clip against its real pots: right (a red id in a pocket of
    the right kind within 10 frames of the drop), wrong (the pot reported off the table or in
    the other kind of pocket), missed, phantom pots and phantom off-table events."""
    n: Counter[str] = Counter()
    used: set[int] = set()
    for pot in truth:
        a, b = pot["frames"]
        hit = None
        for k, (ball, _, _, frame) in enumerate(reported):
            if k not in used and COLOUR_OF.get(ball) == pot["colour"] and a - 10 <= frame <= b + 10:
                hit = k
                break
        if hit is None:
            n["pots missed"] += 1
            continue
        used.add(hit)
        pocket = reported[hit][1]
        middle = pocket in ("ML", "MR")
        right = pocket is not None and middle == (pot["pocket_side"] == "middle")
        n["pots right" if right else "pots wrong"] += 1
    for k, (_, pocket, _, _) in enumerate(reported):
        if k not in used:
            n["phantom pots" if pocket else "phantom off-table"] += 1
    return n


def run_clip(path: Path, frames_dir: Path | None, every: int, at: set[int],
             ball_mm: float | str | None = None,
             hand: dict[str, Any] | None = None,
             random_hand: dict[str, Any] | None = None,
             state: dict[str, Any] | None = None, shift: int = 0) -> dict[str, Any]:
    import numpy as np

    from calibration import detect_table_in_video
    from calibration.video import sample_frames
    from video import grey_shift, video_fps
    from vision.detection import calibrate_for_the_balls
    from vision.shots import shots_from_tracks, tracks_from_rows
    from vision.tracking import track_video

    t0 = time.perf_counter()
    measured = None
    sample = sample_frames(path, 9)
    if ball_mm == "auto":  # as the referee does (vision.detection.ballsize.calibrate_for_the_balls)
        calibration = calibrate_for_the_balls(path, table_spec(None), sample)
        table = calibration.table
        measured = (calibration.checks or {}).get("ball_diameter_mm")
    else:
        table = table_spec(None if ball_mm is None else float(ball_mm))
        calibration = detect_table_in_video(path, table, sample=sample).calibration
    t1 = time.perf_counter()
    fps = video_fps(path)
    start, cue_ball = None, None
    if state is not None and path.stem in state["clips"]:
        # (image pixels of frame 0 to table mm, as the referee's game state has them)
        places = state["clips"][path.stem]
        xy = calibration.image_to_table(np.array(list(places.values()), np.float64))
        start = {b: (float(x), float(y)) for b, (x, y) in zip(places, xy, strict=True)}
        cue_ball = state["cue_ball"]
    results = list(track_video(path, calibration, table, cue_ball=cue_ball,
                               start_positions=start, adjust=grey_shift(shift)))
    t2 = time.perf_counter()
    rows = [(r.frame, b, x, y, v) for r in results for b, (x, y, v) in r.balls.items()]
    shots = shots_from_tracks(table, tracks_from_rows(rows, fps), fps)
    t3 = time.perf_counter()

    n = len(results)
    per_colour: dict[str, list[int]] = {c: [] for c in ("white", "red", "yellow")}
    raw: dict[str, list[int]] = {c: [] for c in ("white", "red", "yellow", "other")}
    visible_frames: Counter[str] = Counter()
    reported_frames: Counter[str] = Counter()
    surplus = 0  # visible ids beyond the balls the footage has, summed over the frames
    for r in results:
        counts = Counter(COLOUR_OF[b] for b, (_, _, v) in r.balls.items() if v)
        surplus += sum(max(0, counts[c] - k) for c, k in FOOTAGE_BALLS.items())
        for c in per_colour:
            per_colour[c].append(counts[c])
        dets = Counter(d.colour for d in r.detections)
        for c in raw:
            raw[c].append(dets[c])
        for b, (_, _, v) in r.balls.items():
            reported_frames[b] += 1
            visible_frames[b] += int(v)

    print(f"\n{path.stem}: {n} frames at {fps:g} fps; calibration {t1 - t0:.1f} s, tracking "
          f"{t2 - t1:.1f} s, shot facts {t3 - t2:.2f} s; ball {table.ball_diameter_mm:.0f} mm"
          + ("" if measured is None else f" (the balls measure {measured:.0f} mm)"))
    print("  tracked visible per frame (median/min/max): "
          + ", ".join(f"{c} {_stats(v)}" for c, v in per_colour.items()))
    print("  raw detections per frame (median/min/max):  "
          + ", ".join(f"{c} {_stats(v)}" for c, v in raw.items()))
    print(f"  ids beyond the footage's balls (one white, one red, no yellow), summed over the "
          f"frames: {surplus}")
    for b in sorted(reported_frames):
        print(f"  {b:3}: visible in {visible_frames[b]:4d}/{n} frames "
              f"({100 * visible_frames[b] / max(n, 1):5.1f} %), on the table (visible or "
              f"hidden) in {reported_frames[b]}")
    pots = []
    for k, shot in enumerate(shots):
        events = shot["events"]
        kinds = Counter(str(e["type"]) for e in events)
        print(f"  shot {k}: strike frame {shot['strike_frame']}, rest frame {shot['rest_frame']}, "
              f"events {dict(kinds)}")
        for e in events:
            if e["type"] in ("pocket", "off_table", "off"):
                t = float(e["t"])
                pots.append((e["ball"], e.get("pocket"), t, round(t * fps)))
                print(f"    {e['type']}: {e['ball']} in {e.get('pocket')} at {t:.2f} s "
                      f"(frame {round(t * fps)})")
    if not shots:
        print("  no shots found")
    by_frame = {r.frame: r for r in results}
    ids_px: dict[str, dict[int, list[tuple[float, float]]]] = {"white": {}, "red": {}}
    for r in results:
        shown = [(b, x, y) for b, (x, y, v) in r.balls.items() if v and COLOUR_OF[b] in ids_px]
        if shown:
            pts = calibration.table_to_image(np.array([(x, y) for _, x, y in shown]))
            for (b, _, _), (px, py) in zip(shown, pts, strict=True):
                ids_px[COLOUR_OF[b]].setdefault(r.frame, []).append((float(px), float(py)))
    misses: list[str] = []
    scores = _scored(hand, path.stem, calibration, by_frame, misses)
    if hand is not None:
        scores += score_pots([p for p in hand["pots"] if p["clip"] == path.stem], pots,
                             calibration)
    _print_check("hand check", scores, misses)
    random_misses: list[str] = []
    random_scores = _scored(random_hand, path.stem, calibration, by_frame, random_misses)
    _print_check("hand check, random frames", random_scores, random_misses)

    if frames_dir is not None:
        wanted = set(range(0, n, every)) | at if every > 0 else set(at)
        for _, _, _, f in pots:  # the frames around each reported pot
            wanted |= {f - 6, f - 3, f, f + 3, f + 6}
        saved = _save_overlays(path, calibration, by_frame,
                               {f for f in wanted if 0 <= f < n}, frames_dir)
        print(f"  {saved} overlay pictures in {frames_dir}")
    return {"frames": n, "visible": visible_frames, "shots": len(shots), "pots": pots,
            "seconds": t3 - t0, "scores": scores, "random_scores": random_scores,
            "surplus": surplus, "ids_px": ids_px}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clips", nargs="*", default=[],
                        help="clip names (default: every clip in club-overhead)")
    parser.add_argument("--frames", type=Path, help="write overlay PNGs for the hand check here")
    parser.add_argument("--every", type=int, default=15, help="overlay every N frames (0: none)")
    parser.add_argument("--at", action="append", default=[], metavar="CLIP:F,F,...",
                        help="also overlay these frames of this clip")
    parser.add_argument("--game-state", action="store_true",
                        help="track as a referee in a match does, from the game state at each "
                             "clip's start (benchmarks/realdata_startstate.json: where the "
                             "white, the cue ball, and the red rest); default: no game state")
    parser.add_argument("--ball-mm", default="auto",
                        help="a ball this big (mm in the russian-12ft frame) instead of the "
                             "preset's 68; 'auto' (default): as the balls measure in each clip "
                             "(vision.detection.ballsize, about 100 mm here); 'preset': the "
                             "preset's")
    parser.add_argument("--shift", type=int, default=0, metavar="N",
                        help="add N grey levels to every channel of every frame tracked "
                             "(negative: take them away); default 0")
    args = parser.parse_args()
    if not CLIPS.is_dir():
        print(f"bench_realdata: {CLIPS} not found (the real footage lives beside the project in "
              "../shared/realdata); skipped")
        return 0
    paths = sorted(CLIPS.glob("*.mp4"))
    if args.clips:
        paths = [p for p in paths if p.stem in args.clips]
    at = _parse_at(args.at)
    ball_mm: float | str | None = {"auto": "auto", "preset": None}.get(args.ball_mm,
                                                                        args.ball_mm)
    if isinstance(ball_mm, str) and ball_mm != "auto":
        ball_mm = float(ball_mm)
    hand = json.loads(HANDLABELS.read_text()) if HANDLABELS.is_file() else None
    random_hand = json.loads(RANDOMLABELS.read_text()) if RANDOMLABELS.is_file() else None
    state = json.loads(STARTSTATE.read_text()) if args.game_state else None
    print(f"real club footage: {len(paths)} clips from {CLIPS}; ball {args.ball_mm}; "
          + ("from the game state at each clip's start" if state else "no game state")
          + (f"; every frame shifted by {args.shift:+d} grey levels" if args.shift else ""))
    summary = []
    for path in paths:
        summary.append((path.stem, run_clip(path, args.frames, args.every,
                                            at.get(path.stem, set()), ball_mm, hand,
                                            random_hand, state, args.shift)))
    print("\nsummary")
    print(f"{'clip':36} {'frames':>6} {'shots':>5} {'pots':>4} {'s':>5}  visible share per id")
    total = 0.0
    for name, s in summary:
        share = " ".join(f"{b} {100 * v / max(s['frames'], 1):.0f}%"
                         for b, v in sorted(s["visible"].items()))
        print(f"{name:36} {s['frames']:6d} {s['shots']:5d} {len(s['pots']):4d} "
              f"{s['seconds']:5.1f}  {share}")
        total += s["seconds"]
    print(f"total {sum(s['frames'] for _, s in summary)} frames, "
          f"{sum(len(s['pots']) for _, s in summary)} pots reported, {total:.0f} s; visible ids "
          f"beyond the footage's balls (at least one phantom each): "
          f"{sum(s['surplus'] for _, s in summary)} id-frames")
    for key, title in (("scores", f"hand check ({HANDLABELS.relative_to(ROOT)})"),
                       ("random_scores", f"hand check, random frames "
                                         f"({RANDOMLABELS.relative_to(ROOT)})")):
        scores: Counter[str] = sum((s[key] for _, s in summary), Counter())
        if scores:
            print(f"{title}: " + ", ".join(f"{k} {v}" for k, v in sorted(scores.items())))
    if EVERYFRAME.is_file() and not args.clips:
        # (in image pixels: whatever the ball size and the game state, the same places)
        _print_everyframe(json.loads(EVERYFRAME.read_text()),
                          {name: s["ids_px"] for name, s in summary})
    return 0


if __name__ == "__main__":
    sys.exit(main())
