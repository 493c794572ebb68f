"""Accuracy against labels: events (per type precision/recall, timing), pockets, verdicts and
tracks. Works on the shared formats (labels, match reports, tracks CSV), so any pipeline's output
can be scored the same way.
"""

from __future__ import annotations

import csv
import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import linear_sum_assignment

from referee.gamefile import fit_to_state
from rules import Ball, Call, Event, EventType, KaisaError, ShotFacts, advance, judge

# Two events are the same when they name the same balls (and cushion) and are this close in time.
EVENT_TOLERANCE_S = 0.1
# Verdict fields that must agree for a shot's verdict to count as right (DESIGN.md names).
VERDICT_FIELDS = ("shooter", "cue_ball", "scored_ball", "caroms", "combination", "bank", "points",
                  "fouls", "penalty", "turn_passes", "next_shooter", "in_hand", "respots", "score",
                  "winner")


@dataclass
class Counts:
    tp: int = 0
    fp: int = 0
    fn: int = 0
    timing_errors_s: list[float] = field(default_factory=list)

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    def add(self, other: Counts) -> None:
        self.tp += other.tp
        self.fp += other.fp
        self.fn += other.fn
        self.timing_errors_s += other.timing_errors_s

    def to_dict(self) -> dict[str, Any]:
        errors = self.timing_errors_s
        return {"tp": self.tp, "fp": self.fp, "fn": self.fn,
                "precision": round(self.precision, 4), "recall": round(self.recall, 4),
                "timing_mean_abs_s": round(float(np.mean(np.abs(errors))), 4) if errors else None}


def _identity(event: Event) -> tuple[Any, ...]:
    """What must agree for two events to be the same event (pocket ids are scored apart)."""
    extra = event.cushion.value if event.cushion else None
    return (event.type, frozenset(b.value for b in event.balls), extra)


def match_events(truth: Sequence[Event], found: Sequence[Event],
                 tolerance_s: float = EVENT_TOLERANCE_S) -> dict[EventType, Counts]:
    """Per event type: the optimal one-to-one matching of equal events within ``tolerance_s``."""
    out: dict[EventType, Counts] = {t: Counts() for t in EventType}
    groups: dict[tuple[Any, ...], tuple[list[Event], list[Event]]] = defaultdict(lambda: ([], []))
    for e in truth:
        groups[_identity(e)][0].append(e)
    for e in found:
        groups[_identity(e)][1].append(e)
    for key, (ts, fs) in groups.items():
        counts = out[key[0]]
        pairs = _assign([e.t for e in ts], [e.t for e in fs], tolerance_s)
        counts.tp += len(pairs)
        counts.fn += len(ts) - len(pairs)
        counts.fp += len(fs) - len(pairs)
        counts.timing_errors_s += [fs[j].t - ts[i].t for i, j in pairs]
    return out


def _assign(a: Sequence[float], b: Sequence[float], tolerance: float) -> list[tuple[int, int]]:
    if not a or not b:
        return []
    cost = np.abs(np.subtract.outer(np.asarray(a), np.asarray(b)))
    rows, cols = linear_sum_assignment(np.where(cost <= tolerance, cost, 1e6))
    return [(int(i), int(j)) for i, j in zip(rows, cols, strict=True) if cost[i, j] <= tolerance]


def pocket_ids(truth: Iterable[Event], found: Iterable[Event]) -> tuple[int, int]:
    """(right, compared): pots of the same ball found in both, and how many name the same pocket."""
    true_pots = {e.ball: e.pocket for e in truth if e.type is EventType.POCKET}
    found_pots = {e.ball: e.pocket for e in found if e.type is EventType.POCKET}
    both = true_pots.keys() & found_pots.keys()
    return sum(true_pots[b] == found_pots[b] for b in both), len(both)


def verdict_differences(truth: Mapping[str, Any], found: Mapping[str, Any]) -> list[str]:
    """Names of the DESIGN.md verdict fields that differ (lists compared as sets where order does
    not matter)."""
    unordered = {"caroms", "fouls", "in_hand"}
    diffs = []
    for key in VERDICT_FIELDS:
        a, b = truth.get(key), found.get(key)
        if key in unordered:
            a, b = sorted(a or []), sorted(b or [])
        if key == "respots":
            a = sorted((r["ball"], r["point"]) for r in a or [])
            b = sorted((r["ball"], r["point"]) for r in b or [])
        if a != b:
            diffs.append(key)
    return diffs


@dataclass
class ShotScores:
    events: dict[EventType, Counts]
    pockets_right: int = 0
    pockets_compared: int = 0
    shots: int = 0
    shots_matched: int = 0
    verdicts_equal: int = 0
    verdict_diffs: list[tuple[int, list[str]]] = field(default_factory=list)


def score_shots(truth_shots: Sequence[Mapping[str, Any]], found_shots: Sequence[Mapping[str, Any]],
                tolerance_s: float = EVENT_TOLERANCE_S) -> ShotScores:
    """Compare a labelled clip's shots with a report's: shots paired by strike time, events
    matched over the whole clip (so an event put in the wrong shot still counts as found)."""
    truth_facts = [ShotFacts.from_dict(s, f"labels.shots[{i}]") for i, s in enumerate(truth_shots)]
    found_facts = [ShotFacts.from_dict(s, f"report.shots[{i}]") for i, s in enumerate(found_shots)]
    all_truth = [e for f in truth_facts for e in f.events]
    all_found = [e for f in found_facts for e in f.events]
    scores = ShotScores(events=match_events(all_truth, all_found, tolerance_s))
    scores.pockets_right, scores.pockets_compared = pocket_ids(all_truth, all_found)
    scores.shots = len(truth_shots)
    # A shot is found when a found strike is within half a second of the true one.
    pairs = _assign([f.strike.t for f in truth_facts], [f.strike.t for f in found_facts], 0.5)
    scores.shots_matched = len(pairs)
    for i, j in pairs:
        t_verdict, f_verdict = truth_shots[i].get("verdict"), found_shots[j].get("verdict")
        if t_verdict is None or f_verdict is None:
            continue
        diffs = verdict_differences(t_verdict, f_verdict)
        if diffs:
            scores.verdict_diffs.append((i, diffs))
        else:
            scores.verdicts_equal += 1
    return scores


def judge_found_shots(labels: Any, found: Sequence[ShotFacts | Mapping[str, Any]]
                      ) -> list[dict[str, Any]]:
    """Judge the found shots in order from the labels' start, with the labelled calls (a match
    would take them from a calls file) and the labelled placements of whites from hand, each
    fitted to the state as ``kaisa referee`` fits a video's (see ``fit_to_state``). Each comes
    back in its JSON form with its ``verdict`` (or ``{"error": ...}``)."""
    state = labels.start
    out = []
    for k, shot in enumerate(found):
        truth = labels.doc["shots"][min(k, len(labels.doc["shots"]) - 1)]
        try:
            facts = shot if isinstance(shot, ShotFacts) else ShotFacts.from_dict(shot)
            call = truth.get("call")
            facts = replace(facts, call=Call.from_dict(call) if call is not None else None)
        except KaisaError as err:
            out.append({**(shot if isinstance(shot, Mapping) else shot.to_dict()),
                        "verdict": {"error": str(err)}})
            continue
        try:
            if "start_positions" in truth:
                placed = {Ball(b): (x, y) for b, (x, y) in truth["start_positions"].items()}
                state = replace(state, positions=placed, in_hand=frozenset(
                    w for w in state.in_hand if w not in placed))
            verdict = judge(state, fit_to_state(state, facts)[0])
            state = advance(state, verdict)
            out.append({**facts.to_dict(), "verdict": verdict.to_dict()})
        except KaisaError as err:
            out.append({**facts.to_dict(), "verdict": {"error": str(err)}})
    return out


# --- tracks -------------------------------------------------------------------------------------
Track = dict[tuple[int, str], tuple[float, float, bool]]


def read_tracks(path: Path) -> Track:
    """The labels' CSV: frame,ball,x_mm,y_mm,visible -> {(frame, ball): (x, y, visible)}."""
    out: Track = {}
    with path.open(newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            out[(int(row["frame"]), row["ball"])] = (float(row["x_mm"]), float(row["y_mm"]),
                                                     row.get("visible", "1") not in ("0", ""))
    return out


@dataclass
class TrackScores:
    visible: int = 0
    found: int = 0
    rest_errors_mm: list[float] = field(default_factory=list)
    motion_errors_mm: list[float] = field(default_factory=list)
    white_swaps: int = 0  # frames where W1 is reported where W2 is, and the other way round

    @property
    def found_share(self) -> float:
        return self.found / self.visible if self.visible else 1.0

    def add(self, other: TrackScores) -> None:
        self.visible += other.visible
        self.found += other.found
        self.rest_errors_mm += other.rest_errors_mm
        self.motion_errors_mm += other.motion_errors_mm
        self.white_swaps += other.white_swaps

    def summary(self) -> str:
        d = self.to_dict()
        return (f"found {self.found}/{self.visible} visible ball-frames ({self.found_share:.2%}), "
                f"mean error at rest {d['mean_error_rest_mm']} mm, in motion "
                f"{d['mean_error_motion_mm']} mm, white swap frames {self.white_swaps}")

    def to_dict(self) -> dict[str, Any]:
        def mean(v: list[float]) -> float | None:
            return round(float(np.mean(v)), 3) if v else None
        return {"visible_ball_frames": self.visible, "found_share": round(self.found_share, 5),
                "mean_error_rest_mm": mean(self.rest_errors_mm),
                "mean_error_motion_mm": mean(self.motion_errors_mm),
                "white_swap_frames": self.white_swaps}


def score_tracks(truth: Track, found: Track, ball_diameter_mm: float = 68.0,
                 rest_speed_mm_per_frame: float = 0.5) -> TrackScores:
    """A visible true ball is found when the same id is reported within one diameter; at rest when
    it moved less than ``rest_speed_mm_per_frame`` since the previous frame."""
    scores = TrackScores()
    for (frame, ball), (x, y, visible) in truth.items():
        if not visible:
            continue
        scores.visible += 1
        got = found.get((frame, ball))
        if got is not None and math.dist((x, y), got[:2]) <= ball_diameter_mm:
            scores.found += 1
            before = truth.get((frame - 1, ball))
            moving = before is not None and math.dist((x, y), before[:2]) > rest_speed_mm_per_frame
            (scores.motion_errors_mm if moving else scores.rest_errors_mm).append(
                math.dist((x, y), got[:2]))
    frames = {f for f, _ in truth}
    for frame in frames:
        t1, t2 = truth.get((frame, "W1")), truth.get((frame, "W2"))
        f1, f2 = found.get((frame, "W1")), found.get((frame, "W2"))
        if None in (t1, t2, f1, f2):
            continue
        assert t1 and t2 and f1 and f2
        straight = math.dist(t1[:2], f1[:2]) + math.dist(t2[:2], f2[:2])
        crossed = math.dist(t1[:2], f2[:2]) + math.dist(t2[:2], f1[:2])
        scores.white_swaps += crossed + ball_diameter_mm < straight
    return scores


# --- whole clips --------------------------------------------------------------------------------
@dataclass
class ClipsScore:
    """Event, pocket and verdict scores summed over clips, with one line per clip."""

    events: dict[EventType, Counts] = field(default_factory=lambda: {t: Counts()
                                                                      for t in EventType})
    shots: int = 0
    shots_found: int = 0
    verdicts_equal: int = 0
    pockets_right: int = 0
    pockets_compared: int = 0
    lines: list[str] = field(default_factory=list)

    @property
    def verdict_share(self) -> float:
        return self.verdicts_equal / self.shots if self.shots else 1.0

    def to_dict(self) -> dict[str, Any]:
        return {"events": {t.value: c.to_dict() for t, c in self.events.items()},
                "shots": self.shots, "shots_found": self.shots_found,
                "verdicts_equal": self.verdicts_equal,
                "verdict_share": round(self.verdict_share, 4),
                "pocket_ids_right": self.pockets_right,
                "pocket_ids_compared": self.pockets_compared}


def score_clips(cases: Sequence[tuple[str, Any, list[Any]]]) -> ClipsScore:
    """Shot facts found in each case's track rows (name, Labels, rows), judged and compared with
    the labels."""
    from vision.shots import shots_from_rows

    total = ClipsScore()
    for name, labels, rows in cases:
        # (as `kaisa referee` finds them: each shot once its balls are at rest)
        found = [s.facts for s in shots_from_rows(rows, labels.table, labels.fps)]
        scores = score_shots(labels.doc["shots"], judge_found_shots(labels, found))
        for t, c in scores.events.items():
            total.events[t].add(c)
        total.shots += scores.shots
        total.shots_found += scores.shots_matched
        total.verdicts_equal += scores.verdicts_equal
        total.pockets_right += scores.pockets_right
        total.pockets_compared += scores.pockets_compared
        missed = ", ".join(f"{c.fn} {t.value}" for t, c in scores.events.items() if c.fn)
        false = ", ".join(f"{c.fp} {t.value}" for t, c in scores.events.items() if c.fp)
        line = (f"{name:26s} {scores.shots_matched:>4d}/{scores.shots:<3d}  "
                f"{scores.verdicts_equal:>4d}/{scores.shots:<3d}  {missed or '-':20s}  "
                f"{false or '-':20s}" + (f"  {scores.verdict_diffs}" if scores.verdict_diffs
                                         else ""))
        total.lines.append(line.rstrip())
    return total


CLIP_HEADER = (f"{'clip':26s} {'shots':^8s}  {'verdicts':^8s}  {'events missed':20s}  "
               f"{'events false':20s}  verdicts that differ")


def print_evaluation(cases: Sequence[tuple[str, Any, list[Any]]]) -> ClipsScore:
    """Print a table of the clips (shots found, verdicts equal to the labels, events missed
    and false), one of the events (precision, recall, counts, timing) and the totals."""
    total = score_clips(cases)
    print(CLIP_HEADER)
    print("\n".join(total.lines) + "\n")
    print(f"{'event':10s} {'precision':>9s} {'recall':>7s} {'found':>6s} {'false':>6s} "
          f"{'missed':>6s} {'timing (mean |error|)':>22s}")
    for t, c in total.events.items():
        d = c.to_dict()
        timing = "-" if d["timing_mean_abs_s"] is None else f"{d['timing_mean_abs_s']:.4f} s"
        print(f"{t.value:10s} {d['precision']:9.3f} {d['recall']:7.3f} {c.tp:6d} {c.fp:6d} "
              f"{c.fn:6d} {timing:>22s}")
    print(f"\nshots found {total.shots_found} of {total.shots}; verdicts equal to the labels "
          f"{total.verdicts_equal} of {total.shots} ({total.verdict_share:.1%}); pocket ids "
          f"right {total.pockets_right} of {total.pockets_compared}")
    return total


def true_track_rows(labels: Any) -> list[tuple[int, str, float, float, bool]]:
    """A labelled clip's true tracks as rows (hidden frames marked, so they can be left out)."""
    return [(f, b, x, y, v) for (f, b), (x, y, v) in read_tracks(labels.tracks_path).items()]


def tracker_rows(labels: Any, calibration: Any = None, detected: Any = None
                 ) -> list[tuple[int, str, float, float, bool]]:
    """The tracker's rows for a labelled clip (the true calibration unless one is given), told
    what the referee knows before the video: the start state (where the balls were left, so the
    two reds, which no camera tells apart, are named as the labels name them) and the shooter.
    ``detected``: told the tracker's input (see :mod:`vision.tracking.replay`)."""
    from calibration import Calibration
    from referee.pipeline import camera_watch, track_rows
    from rules import cue_ball_of

    calibration = calibration or Calibration.from_dict(labels.doc["calibration"])
    # (the camera watched as the referee watches it: a bumped camera is followed)
    rows = track_rows(labels.video_path, calibration, labels.table,
                      cue_ball_of(labels.start.shooter).value, start=labels.start,
                      drift=camera_watch(calibration), detected=detected)
    return rows


def replayed_rows(labels: Any, log: Any, params: Any = None
                  ) -> list[tuple[int, str, float, float, bool]]:
    """:func:`tracker_rows` from a logged tracker input (``log``: a
    :class:`~vision.tracking.replay.DetectionLog` recorded by ``tracker_rows(...,
    detected=log.add)``): the tracker told the same start state and shooter, with ``params``
    (its defaults unless given)."""
    from referee.pipeline import rows_of
    from rules import cue_ball_of
    from vision.tracking import DEFAULT_TRACKING
    from vision.tracking.replay import replay_tracks

    positions = {b.value: xy for b, xy in labels.start.on_table.items()}
    return [row for result in replay_tracks(log, labels.table,
                                            cue_ball_of(labels.start.shooter).value, positions,
                                            params or DEFAULT_TRACKING)
            for row in rows_of(result)]
