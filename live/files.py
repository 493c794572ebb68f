"""The files through which the live engine and the pages meet, in one folder:

- ``status.json``: what the engine says now (:class:`LiveStatus`), replaced whole (written to
  a temporary file, then renamed) so that a reader never sees half of it;
- ``still.jpg``: the latest camera picture, replaced whole likewise;
- ``commands.jsonl``: the operator's commands (:class:`OperatorCommand`), one JSON object a
  line, appended under a lock, numbered from 1; the engine applies them in order and says
  the last it applied in the status (``commands_applied``);
- the journal (SQLite, :mod:`referee.journal`): written by the engine alone, read by the pages.

No cv2 or web library here: both sides import it.
"""

from __future__ import annotations

import fcntl
import json
import os
import tempfile
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args

CameraState = Literal["starting", "calibrating", "ok", "stalled", "reconnecting", "lost",
                      "ended"]
CommandKind = Literal["call", "undo", "correct", "new_match", "players", "confirm"]
COMMAND_KINDS: tuple[str, ...] = get_args(CommandKind)


@dataclass(frozen=True)
class LiveFiles:
    """The folder of one live session; ``journal`` defaults to ``journal.sqlite`` in it."""

    folder: Path
    journal_path: Path | None = None

    @property
    def status(self) -> Path:
        return self.folder / "status.json"

    @property
    def still(self) -> Path:
        return self.folder / "still.jpg"

    @property
    def commands(self) -> Path:
        return self.folder / "commands.jsonl"

    @property
    def journal(self) -> Path:
        return self.journal_path or self.folder / "journal.sqlite"


@dataclass(frozen=True)
class PlacementMark:
    """One ball the operator is to put down (§6.5): where, where it is seen, and whether it
    is there within the placement tolerance (``ok``; False while not seen)."""

    ball: str
    target_mm: tuple[float, float]
    seen_mm: tuple[float, float] | None = None
    off_mm: float | None = None
    ok: bool = False


@dataclass(frozen=True)
class LiveStatus:
    """What the engine says now. ``camera``: the source's state, ``camera_message`` its
    words; ``video_t_s``: the source's time of the latest frame; ``gaps``: each gap in the
    frames (``{"t_s", "gap_s", "shot"}``); ``placement``: the balls to put down now and
    whether each is there; ``flagged``: shot keys whose verdict waits for the operator's
    confirmation (a conflict between the camera and the game state, a camera gap, a shot
    not judged), each with its reasons in ``flag_reasons`` (``camera_gap``,
    ``camera_conflict``, ``not_judged``); ``errors``: the shots that could not be judged
    (``{"shot", "t_s", "message"}``: the match went on without them); ``engine_message``:
    what the engine says beyond the camera (calibrating, a failure, the match won);
    ``verdict_times``: per recent verdict ``{"shot", "rest_frame", "rest_seen_unix",
    "judged_unix"}`` (when the frame the balls were found at rest in was read, when the verdict
    was in the journal); ``updated_unix``: the engine's heartbeat (written about once a
    second: older than a few seconds, the engine is stuck or gone)."""

    match_id: int | None
    camera: CameraState
    camera_message: str = ""
    video_t_s: float = 0.0
    frames_read: int = 0
    fps: float = 0.0
    reconnects: int = 0
    gaps: tuple[Mapping[str, Any], ...] = ()
    score: tuple[int, int] = (0, 0)
    shooter: int = 1
    winner: int | None = None
    players: tuple[str, str] = ("Player 1", "Player 2")
    table_mm: tuple[float, float] = (3569.0, 1778.0)
    positions_mm: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    placement: tuple[PlacementMark, ...] = ()
    flagged: tuple[str, ...] = ()
    next_call: Mapping[str, str] | None = None
    commands_applied: int = 0
    still_t_s: float | None = None
    # table mm -> the still's pixels (3x3, the lens left out: a few pixels at the edges), to
    # draw the respot targets on the camera's picture; None before the first still
    still_homography: tuple[tuple[float, float, float], ...] | None = None
    engine_pid: int = 0
    updated_unix: float = 0.0
    source: str = ""
    engine_message: str = ""
    flag_reasons: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    errors: tuple[Mapping[str, Any], ...] = ()
    shots_judged: int = 0
    verdict_times: tuple[Mapping[str, Any], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LiveStatus:
        """A status as written (fields this version does not know are left out: a newer
        engine's status still reads)."""
        known = set(cls.__dataclass_fields__)
        values = {k: v for k, v in data.items() if k in known}
        values["placement"] = tuple(PlacementMark(**{**m, "target_mm": tuple(m["target_mm"]),
                                                     "seen_mm": (tuple(m["seen_mm"])
                                                                 if m.get("seen_mm") else None)})
                                    for m in values.get("placement", ()))
        for key in ("gaps", "flagged", "errors", "verdict_times"):
            values[key] = tuple(values.get(key, ()))
        values["flag_reasons"] = {k: tuple(v) for k, v in values.get("flag_reasons", {}).items()}
        for key in ("score", "players", "table_mm"):
            if key in values:
                values[key] = tuple(values[key])
        values["positions_mm"] = {b: (float(xy[0]), float(xy[1]))
                                  for b, xy in values.get("positions_mm", {}).items()}
        if values.get("still_homography") is not None:
            values["still_homography"] = tuple(tuple(float(v) for v in row)
                                               for row in values["still_homography"])
        return cls(**values)


def _replace_whole(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that a reader sees the old file or the new, never half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_status(files: LiveFiles, status: LiveStatus) -> None:
    _replace_whole(files.status, json.dumps(status.to_dict()).encode())


def read_status(files: LiveFiles) -> LiveStatus | None:
    """The engine's latest status; None before it wrote one (or when it cannot be read)."""
    try:
        return LiveStatus.from_dict(json.loads(files.status.read_bytes()))
    except (OSError, ValueError, TypeError, KeyError):
        return None


def write_still(files: LiveFiles, jpeg: bytes) -> None:
    _replace_whole(files.still, jpeg)


@dataclass(frozen=True)
class OperatorCommand:
    """One thing the operator asked for, numbered in the order given (``seq`` from 1).
    Payloads by kind:

    - ``call``: ``{"ball": "R", "pocket": "FL"}`` for the next shot struck (``{}`` clears it);
    - ``undo``: ``{"note": str}``: withdraw the last verdict (the journal's undo);
    - ``correct``: ``{"score": [a, b], "note": str}``: the journal's correction;
    - ``new_match``: ``{"players": [name1, name2]}`` (optional): a new match from the opening;
    - ``players``: ``{"names": [name1, name2]}``;
    - ``confirm``: ``{"shot": "shot3"}``: a flagged verdict stands as judged.
    """

    seq: int
    kind: CommandKind
    payload: Mapping[str, Any]
    at_unix: float

    def to_dict(self) -> dict[str, Any]:
        return {"seq": self.seq, "kind": self.kind, "payload": dict(self.payload),
                "at_unix": self.at_unix}


def append_command(files: LiveFiles, kind: str, payload: Mapping[str, Any]) -> OperatorCommand:
    """Append a command (numbered after the last one) under an exclusive lock; ValueError
    for a kind not in :data:`COMMAND_KINDS`."""
    if kind not in COMMAND_KINDS:
        raise ValueError(f"expected a command kind of {', '.join(COMMAND_KINDS)}, got {kind!r}")
    files.folder.mkdir(parents=True, exist_ok=True)
    with open(files.commands, "a+", encoding="utf-8") as log:
        fcntl.flock(log, fcntl.LOCK_EX)
        log.seek(0)
        seq = sum(1 for line in log if line.strip()) + 1
        command = OperatorCommand(seq, kind, dict(payload), time.time())  # type: ignore[arg-type]
        log.write(json.dumps(command.to_dict()) + "\n")
        log.flush()
        os.fsync(log.fileno())
    return command


def read_commands(files: LiveFiles, after_seq: int = 0) -> list[OperatorCommand]:
    """The commands numbered after ``after_seq``, in order (a torn last line is left for the
    next read)."""
    try:
        lines = files.commands.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return []
    commands = []
    for line in lines:
        try:
            data = json.loads(line)
        except ValueError:
            continue
        if int(data["seq"]) > after_seq and data["kind"] in COMMAND_KINDS:
            commands.append(OperatorCommand(int(data["seq"]), data["kind"], data["payload"],
                                            float(data["at_unix"])))
    return commands
