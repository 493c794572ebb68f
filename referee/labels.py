"""Reading labelled clips (`kaisa-clip-labels/1`, DESIGN.md) and checking that they hold
together: facts that parse, frames that match times, and verdicts that the rules core gives."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from referee.errors import InputError
from referee.evaluate import verdict_differences
from referee.gamefile import read_json
from rules import Ball, GameState, KaisaError, RuleOptions, ShotFacts, Verdict, advance, judge
from rules.table import TableSpec

FORMAT = "kaisa-clip-labels/1"


@dataclass(frozen=True)
class Labels:
    path: Path
    doc: Mapping[str, Any]
    table: TableSpec
    start: GameState
    facts: tuple[ShotFacts, ...]
    verdicts: tuple[Verdict, ...]

    @property
    def fps(self) -> float:
        return float(self.doc["fps"])

    @property
    def tracks_path(self) -> Path:
        return self.path.with_name(self.path.name.replace(".labels.json", ".tracks.csv"))

    @property
    def video_path(self) -> Path:
        return self.path.with_name(str(self.doc["video"]))


def load_labels(path: Path) -> Labels:
    """Read and check a labels file; InputError naming the field when something does not hold."""
    return labels_from_doc(read_json(path, f"a {FORMAT} document"), path)


def labels_from_doc(doc: Any, path: Path = Path("labels.json")) -> Labels:
    """Check a labels document already in memory (see :func:`load_labels`)."""
    where = str(path)
    if not isinstance(doc, Mapping) or doc.get("format") != FORMAT:
        raise InputError(f"expected \"format\": \"{FORMAT}\"", where)
    for key in ("video", "fps", "frame_count", "image_size", "table", "start", "shots"):
        if key not in doc:
            raise InputError(f"missing field {key!r}", where)
    try:
        table = TableSpec.from_value(doc["table"])
        options = RuleOptions.from_mapping({**(doc.get("rules") or {}), "table": doc["table"]})
        state = GameState.from_dict(doc["start"], options)
    except KaisaError as err:
        raise InputError(str(err), where) from None
    start = state
    fps = float(doc["fps"])
    all_facts: list[ShotFacts] = []
    verdicts: list[Verdict] = []
    for i, shot in enumerate(doc["shots"]):
        at = f"shots[{i}]"
        try:
            facts = ShotFacts.from_dict(shot, at)
            if "start_positions" in shot:  # balls placed from hand are where the clip shows them
                placed = {Ball(b): (float(x), float(y)) for b, (x, y) in
                          shot["start_positions"].items()}
                state = replace(state, positions=placed,
                                in_hand=frozenset(w for w in state.in_hand if w not in placed))
            verdict = judge(state, facts)
        except KaisaError as err:
            raise InputError(str(err if err.where.startswith(at) else err.at(at)), where) from None
        for k, event in enumerate(facts.events):
            if event.frame is not None and event.frame != round(event.t * fps):
                raise InputError(f"frame {event.frame} does not match t={event.t:.4f} s at "
                                 f"{fps:g} fps", f"{where}: {at}.events[{k}].frame")
        if "verdict" in shot:
            diffs = verdict_differences(shot["verdict"], verdict.to_dict())
            if diffs:
                raise InputError(f"the labelled verdict differs from the rules core's in "
                                 f"{', '.join(diffs)}", f"{where}: {at}.verdict")
        all_facts.append(facts)
        verdicts.append(verdict)
        state = advance(state, verdict)
    return Labels(path, doc, table, start, tuple(all_facts), tuple(verdicts))
