"""Shot facts in the rules' form: one shot's (:func:`shot_facts`) and a whole match's
(:func:`shots_from_tracks`, from tracks CSV rows by :func:`tracks_from_rows`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rules.balls import Ball
from rules.events import ShotFacts
from rules.table import TableSpec
from vision.shots.events import shot_events
from vision.shots.params import DEFAULT_SHOT_FACTS, ShotFactsParams
from vision.shots.samples import Sample, ShotWindow
from vision.shots.segmentation import split_shots, steady_tracks


def tracks_from_rows(rows: Sequence[tuple[int, str, float, float, bool]], fps: float,
                     visible_only: bool = True) -> dict[str, list[Sample]]:
    """Per-ball samples from tracks CSV rows (frame, ball, x, y, visible)."""
    out: dict[str, list[Sample]] = {}
    for frame, ball, x, y, visible in sorted(rows):
        if visible or not visible_only:
            out.setdefault(ball, []).append(Sample(frame, frame / fps, (x, y)))
    return out


def shots_from_tracks(table: TableSpec, tracks: Mapping[str, Sequence[Sample]],
                      fps: float, params: ShotFactsParams = DEFAULT_SHOT_FACTS
                      ) -> list[dict[str, object]]:
    """Every shot found in the whole tracks, in DESIGN.md's JSON form (see :func:`shot_facts`;
    call null)."""
    tracks = steady_tracks(tracks, params)
    shots = []
    for window in split_shots(tracks, fps, params):
        facts = shot_facts(table, tracks, window, fps, params)
        if facts is not None:
            shots.append(facts.to_dict())
    return shots


def shot_facts(table: TableSpec, tracks: Mapping[str, Sequence[Sample]], window: ShotWindow,
               fps: float, params: ShotFactsParams = DEFAULT_SHOT_FACTS) -> ShotFacts | None:
    """One shot's facts found in ``window`` of the steady ``tracks`` (no call), with
    ``strike_frame``, ``rest_frame`` and ``start_positions`` (where the balls lay just before
    the strike, mm: respotted and placed balls included, for the placement check) in its
    ``extra``; None when no strike is found in it."""
    events, finals, estimated = shot_events(table, tracks, window, fps, params)
    if not events:
        return None
    return ShotFacts(
        events=tuple(e.to_event(fps) for e in events),
        final_positions={Ball(b): (round(x, 2), round(y, 2)) for b, (x, y) in finals.items()},
        estimated_positions={Ball(b): (round(x, 2), round(y, 2))
                             for b, (x, y) in estimated.items()} or None,
        extra={"start_positions": {b: [round(x, 2), round(y, 2)]
                                   for b, (x, y) in window.rest_before.items()},
               "strike_frame": round(events[0].t * fps), "rest_frame": window.last})
