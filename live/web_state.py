"""What the live pages show, as JSON: the engine's status and the match's journal entries in
words. No web framework here: the pages' server (:mod:`live.web`) sends what this builds.

A page keeps the entries it has by their journal ``seq`` and asks only for those after the
last it has (``since``), so a page that reloads or reconnects catches up from the journal with
no verdict missed and none shown twice; an undo changes an entry already sent, so every answer
also carries the withdrawn entries' numbers (``undone``), a short list.
"""

from __future__ import annotations

import contextlib
import re
import sqlite3
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from live.files import LiveFiles, LiveStatus, read_commands, read_status
from referee.describe import describe, explain, respot_notes
from referee.journal import Journal, JournalError, TimelineEntry, shot_number
from rules import KaisaError, Pocket, RuleOptions, TableSpec
from rules.table import Spot

# verdict flags (by value) that mean the camera and the game state disagreed, or frames were lost
CAMERA_FLAGS = frozenset({"camera_conflict", "camera_gap"})
_CAMERA_FLAG_WORDS = {"camera_conflict": "the camera's facts contradict the game state",
                      "camera_gap": "frames were missing during the shot"}
SHOT_KEY = re.compile(r"shot\d+")


@dataclass(frozen=True)
class Since:
    """Where a page is: the match it shows and the last journal seq it has (-1: none; the
    journal numbers a match's entries from 0)."""

    match_id: int | None = None
    seq: int = -1

    @classmethod
    def parse(cls, last_event_id: str | None, match: str | None, since: str | None) -> Since:
        """From an SSE ``Last-Event-ID`` (``MATCH:SEQ``, sent by a reconnecting browser) or
        else the query's ``match`` and ``since``; anything unreadable is "from the start"."""
        if last_event_id and ":" in last_event_id:
            match, since = last_event_id.split(":", 1)
        try:
            match_id = int(match) if match not in (None, "", "none") else None
        except ValueError:
            match_id = None
        try:
            seq = max(-1, int(since)) if since else -1
        except ValueError:
            seq = -1
        return cls(match_id, seq)

    def event_id(self) -> str:
        return f"{self.match_id if self.match_id is not None else 'none'}:{self.seq}"


def stamp(files: LiveFiles) -> tuple[tuple[int, int], ...]:
    """The files' (mtime ns, size): any change of the status, the journal (its WAL too) or the
    commands changes it, which is when the pages are sent the state again."""
    out = []
    journal = files.journal
    for path in (files.status, journal, journal.with_name(journal.name + "-wal"), files.commands):
        try:
            st = path.stat()
            out.append((st.st_mtime_ns, st.st_size))
        except OSError:
            out.append((0, -1))
    return tuple(out)


def _options(journal: Journal, match_id: int) -> RuleOptions:
    """The match's rules (the defaults when its start cannot be read)."""
    try:
        return journal.load(match_id).match.start.options
    except JournalError:
        return RuleOptions()


def _words(item: object) -> str:
    if isinstance(item, Mapping):
        for key in ("text", "message", "why", "what"):
            if isinstance(item.get(key), str):
                return str(item[key])
        return ", ".join(f"{k}: {v}" for k, v in item.items())
    return str(item)


def flag_reasons(entry: TimelineEntry, gap_shots: Iterable[str] = ()) -> list[str]:
    """Why a verdict waits for the operator: the camera's conflicts with the game state
    (``facts.extra["conflicts"]``), a camera flag on the verdict, a gap in its frames."""
    reasons: list[str] = []
    if entry.facts is not None:
        conflicts = entry.facts.extra.get("conflicts") or ()
        if isinstance(conflicts, (str, Mapping)):
            conflicts = [conflicts]
        reasons += [_words(c) for c in conflicts]
    if entry.verdict is not None:
        reasons += [_CAMERA_FLAG_WORDS[str(f)] for f in entry.verdict.flags
                    if str(f) in CAMERA_FLAGS and _CAMERA_FLAG_WORDS[str(f)] not in reasons]
    if entry.shot_key in set(gap_shots) and _CAMERA_FLAG_WORDS["camera_gap"] not in reasons:
        reasons.append(_CAMERA_FLAG_WORDS["camera_gap"])
    return reasons


def entry_json(entry: TimelineEntry, options: RuleOptions, names: Sequence[str],
               gap_shots: Iterable[str] = ()) -> dict[str, Any]:
    """One journal entry for the pages: a verdict in the words of the HTML report (its line,
    the referee's sheet, what to put back), a correction or an undo."""
    out: dict[str, Any] = {
        "seq": entry.seq, "kind": entry.kind, "shot_key": entry.shot_key,
        "shot": shot_number(entry.shot_key) if entry.shot_key else None,
        "note": entry.note, "created_at": entry.created_at, "undone_by": entry.undone_by,
        "void": entry.void, "score": list(entry.score) if entry.score else None,
    }
    verdict, facts = entry.verdict, entry.facts
    if verdict is not None and facts is not None:
        line = describe(verdict)
        try:
            why = explain(verdict, facts, options, names)
            respots = respot_notes(verdict, facts, names)
        except (KaisaError, ValueError, KeyError, IndexError):
            why, respots = line, []
        shooter = verdict.shooter
        out.update({
            "line": line, "short": line.split("  ")[0], "why": why,
            "respots": [{"ball": ball, "text": text} for ball, text in respots],
            "score": list(verdict.score), "shooter": shooter,
            "shooter_name": names[shooter - 1] if 0 < shooter <= len(names) else str(shooter),
            "next_shooter": verdict.next_shooter, "winner": verdict.winner,
            "net": verdict.points - verdict.penalty, "fouls": [str(f) for f in verdict.fouls],
            "flags": [str(f) for f in verdict.flags],
            "call": verdict.called.to_dict() if verdict.called else None,
            "flag_reasons": flag_reasons(entry, gap_shots),
        })
    return out


def table_json(status: LiveStatus | None, options: RuleOptions | None = None
               ) -> dict[str, Any]:
    """The table the pages draw, seen from above with the head cushion at the left: its size
    (the status's ``table_mm``), its pockets, spots and house line, all in table mm."""
    base = options.table if options is not None else TableSpec()
    if status is not None:
        length, width = status.table_mm
        with contextlib.suppress(KaisaError):  # a size the rules refuse: the rules' table
            base = TableSpec(base.name, float(length), float(width), base.ball_diameter_mm,
                             base.corner_mouth_mm, base.middle_mouth_mm)
    return {"length_mm": base.length_mm, "width_mm": base.width_mm,
            "ball_mm": base.ball_diameter_mm, "house_x_mm": base.house_line_x,
            "pockets": {p.value: list(base.pocket_xy(p)) for p in Pocket},
            "spots": {s.value: list(base.spot_xy(s)) for s in Spot}}


def _current_match(journal: Journal | None, status: LiveStatus | None) -> int | None:
    if status is not None and status.match_id is not None:
        return status.match_id
    if journal is None:
        return None
    try:
        return journal.last_match_id()
    except JournalError:
        return None


def _open(path: Path) -> Journal | None:
    try:
        return Journal(path, readonly=True)
    except JournalError:
        return None  # not written yet (the engine makes it at its first match)


class JournalView:
    """The current match's entries and rules as last read, read again only when the journal
    says it changed: the status changes several times a second, the journal once a shot, and
    rebuilding a long match each time would cost the referee's CPU."""

    def __init__(self) -> None:
        self._key: tuple[Any, ...] | None = None
        self._value: tuple[list[TimelineEntry], RuleOptions] = ([], RuleOptions())

    def read(self, journal: Journal, match_id: int) -> tuple[list[TimelineEntry], RuleOptions]:
        key = (str(journal.path), match_id, _signature(journal, match_id))
        if key != self._key or key[2] is None:
            try:
                timeline = journal.timeline(match_id)
            except JournalError:
                timeline = []
            self._value = (timeline, _options(journal, match_id))
            self._key = key
        return self._value


def _signature(journal: Journal, match_id: int) -> tuple[int, ...] | None:
    """What changes whenever an entry of the match is written or withdrawn (None: unknown, an
    old journal)."""
    if journal.version < 1:
        return None
    try:
        row = journal.db.execute(
            "SELECT COUNT(*), COALESCE(MAX(seq), -1), COUNT(undone_by), COUNT(void) FROM entries "
            "WHERE match_id = ?", (match_id,)).fetchone()
    except sqlite3.Error:
        return None
    return tuple(int(v) for v in row)


def page_state(files: LiveFiles, since: Since = Since(), view: JournalView | None = None
               ) -> tuple[dict[str, Any], Since]:
    """Everything a page needs after ``since``: the status (None before the engine wrote
    one), the entries of the current match after the page's last seq (all of them when the
    match is not the page's), the withdrawn entries, the shots waiting for confirmation. And
    where the page is once it has this. ``view``: the journal as a stream last read it."""
    view = view or JournalView()
    status = read_status(files)
    names: Sequence[str] = status.players if status is not None else ("Player 1", "Player 2")
    journal = _open(files.journal)
    try:
        match_id = _current_match(journal, status)
        reset = match_id != since.match_id
        after = -1 if reset else since.seq
        entries: list[dict[str, Any]] = []
        undone: dict[str, int] = {}
        flagged: list[dict[str, Any]] = []
        last = after
        options: RuleOptions | None = None
        if journal is not None and match_id is not None:
            timeline, options = view.read(journal, match_id)
            gap_shots = [str(g.get("shot")) for g in (status.gaps if status else ())
                         if g.get("shot")]
            confirmed = {str(c.payload.get("shot")) for c in read_commands(files)
                         if c.kind == "confirm"}
            waiting = set(status.flagged) if status is not None else set()
            for entry in timeline:
                last = max(last, entry.seq)
                if entry.undone_by is not None or entry.void is not None:
                    undone[str(entry.seq)] = entry.undone_by or 0
                data = None
                if entry.seq > after:
                    data = entry_json(entry, options, names, gap_shots)
                    entries.append(data)
                standing = entry.undone_by is None and entry.void is None
                if entry.kind == "verdict" and standing and entry.shot_key is not None:
                    reasons = flag_reasons(entry, gap_shots)
                    if reasons or entry.shot_key in waiting:
                        data = data or entry_json(entry, options, names, gap_shots)
                        flagged.append({
                            "seq": entry.seq, "shot_key": entry.shot_key, "shot": data["shot"],
                            "short": data.get("short", ""), "reasons": reasons,
                            "waiting": entry.shot_key in waiting or (
                                status is None and entry.shot_key not in confirmed),
                            "confirm_sent": entry.shot_key in confirmed})
    finally:
        if journal is not None:
            journal.close()
    state = {
        "match_id": match_id, "reset": reset, "last_seq": last,
        "status": status.to_dict() if status is not None else None,
        "entries": entries, "undone": undone, "flagged": flagged,
        "table": table_json(status, options),
        "still": files.still.is_file(), "server_unix": time.time(),
    }
    return state, Since(match_id, last)
