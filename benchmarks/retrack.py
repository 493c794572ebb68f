"""Labelled clips tracked again and scored as ``kaisa eval DIR`` scores them (shots, verdicts,
events, and the tracking: balls found, mm, white swaps), for judging a change to the tracker:
each clip's tracker input (its detections frame by frame) is logged the first time it is
tracked, and fed to the tracker again after that (:mod:`vision.tracking.replay`), to the bit
the same answers in a fraction of the time (detection is about three quarters of tracking).

    python benchmarks/retrack.py DIR [DIR ...] [-j 2] [--rows OUT.pkl] [--compare OLD.pkl]
                                 [--set NAME=VALUE ...] [--detect-again] [--quiet]

- The logs are kept in ``DIR/.detections/`` (one file a clip; made again when the video
  changed). **A change to the detection needs ``--detect-again``**: the logs hold the old
  detector's output.
- ``--set NAME=VALUE``: a tracker parameter (a field of ``TrackingParams``) changed for this run.
- ``--rows``: every clip's rows written to a pickle ({"set/clip": rows}); ``--compare``: the
  clips whose rows differ from such a file are named.
- ``-j``: clips tracked in that many processes at once.
"""

from __future__ import annotations

import argparse
import dataclasses
import pickle
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from referee.evaluate import (  # noqa: E402
    TrackScores,
    print_evaluation,
    read_tracks,
    replayed_rows,
    score_clips,
    score_tracks,
    tracker_rows,
)
from referee.labels import load_labels  # noqa: E402
from video.reader import video_fps  # noqa: E402
from vision.tracking import DEFAULT_TRACKING, TrackingParams  # noqa: E402
from vision.tracking.params import TrackingParamsError  # noqa: E402
from vision.tracking.replay import DetectionLog  # noqa: E402

Rows = list[tuple[int, str, float, float, bool]]


def log_path(labels_path: Path) -> Path:
    return labels_path.parent / ".detections" / (
        labels_path.name.removesuffix(".labels.json") + ".pkl")


def video_key(video: Path) -> str:
    """What tells a log made from an older file of the same name (a set rendered again)."""
    st = video.stat()
    return f"{video.name}:{st.st_size}:{st.st_mtime_ns}"


def track_clip(labels_path: Path, params: TrackingParams, detect_again: bool
               ) -> tuple[Rows, bool]:
    """One clip's rows, and whether they came from its log."""
    labels = load_labels(labels_path)
    where = log_path(labels_path)
    key = video_key(labels.video_path)
    log = None if detect_again else DetectionLog.load(where)
    if log is not None and log.source == key:
        return replayed_rows(labels, log, params), True
    log = DetectionLog(video_fps(labels.video_path), source=key)
    rows = tracker_rows(labels, detected=log.add)
    if params != DEFAULT_TRACKING:  # (the log is the detector's; the rows are these params')
        rows = replayed_rows(labels, log, params)
    log.save(where)
    return rows, False


def parse_overrides(pairs: list[str]) -> TrackingParams:
    fields = {f.name: f for f in dataclasses.fields(TrackingParams)}
    changes: dict[str, Any] = {}
    for pair in pairs:
        name, _, value = pair.partition("=")
        if name not in fields or not value:
            raise SystemExit(f"retrack: --set expects NAME=VALUE with NAME a TrackingParams "
                             f"field, got {pair!r}")
        kind = type(getattr(DEFAULT_TRACKING, name))
        try:
            changes[name] = kind(value) if kind is not bool else value.lower() in ("1", "true")
        except ValueError:
            raise SystemExit(f"retrack: --set {name} expects a {kind.__name__}, got {value!r}"
                             ) from None
    try:
        return dataclasses.replace(DEFAULT_TRACKING, **changes)
    except TrackingParamsError as err:
        raise SystemExit(f"retrack: {err}") from None


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dirs", nargs="+", type=Path)
    ap.add_argument("-j", type=int, default=1)
    ap.add_argument("--rows", type=Path)
    ap.add_argument("--compare", type=Path)
    ap.add_argument("--set", dest="overrides", action="append", default=[])
    ap.add_argument("--detect-again", action="store_true")
    ap.add_argument("--quiet", action="store_true", help="only the totals of each set")
    args = ap.parse_args(argv)
    params = parse_overrides(args.overrides)
    paths = [p for d in args.dirs for p in sorted(d.glob("*.labels.json"))]
    if not paths:
        raise SystemExit("retrack: no labelled clips (*.labels.json) in " +
                         " ".join(map(str, args.dirs)))
    t0 = time.perf_counter()
    with ProcessPoolExecutor(max_workers=max(1, args.j)) as pool:
        done = list(pool.map(track_clip, paths, [params] * len(paths),
                             [args.detect_again] * len(paths)))
    replayed = sum(1 for _, r in done if r)
    print(f"{len(paths)} clips tracked in {time.perf_counter() - t0:.0f} s ({replayed} from "
          f"their logs)", file=sys.stderr)
    rows_of = {f"{p.parent.name}/{p.name.removesuffix('.labels.json')}": rows
               for p, (rows, _) in zip(paths, done, strict=True)}
    old = pickle.loads(args.compare.read_bytes()) if args.compare else None
    overall = TrackScores()
    for folder in args.dirs:
        cases, tracking = [], TrackScores()
        for p in sorted(folder.glob("*.labels.json")):
            labels = load_labels(p)
            name = p.name.removesuffix(".labels.json")
            rows = rows_of[f"{folder.name}/{name}"]
            cases.append((name, labels, rows))
            found = {(f, b): (x, y, v) for f, b, x, y, v in rows}
            scores = score_tracks(read_tracks(labels.tracks_path), found,
                                  labels.table.ball_diameter_mm)
            tracking.add(scores)
            overall.add(scores)
        print(f"== {folder}")
        if args.quiet:
            total = score_clips(cases)
            print(f"verdicts {total.verdicts_equal}/{total.shots}")
        else:
            print_evaluation(cases)
        print(f"tracking: {tracking.summary()}\n")
    if len(args.dirs) > 1:
        print(f"all sets, tracking: {overall.summary()}")
    if old is not None:
        changed = sorted(k for k, rows in rows_of.items() if old.get(k) != rows)
        print(f"rows changed against {args.compare}: {len(changed)} of {len(rows_of)} clips"
              + "".join(f"\n  {k}" for k in changed))
    if args.rows:
        args.rows.write_bytes(pickle.dumps(rows_of))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
