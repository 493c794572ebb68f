"""Reading GAME files (`kaisa score`): rules options, a start state and a list of shot facts.

`{"rules": {...options}, "start": {...}, "shots": [shot facts, ...]}`. Errors name the file, the
shot and the field, e.g. ``game.json: shots[3].events[2].ball: unknown ball id 'R3' (...)``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.conflicts import fit_camera_facts, fit_to_state, judge_camera_shot
from referee.errors import InputError
from rules import (
    GameState,
    KaisaError,
    RuleOptions,
    ShotFacts,
    Verdict,
    advance,
    judge,
)
from rules.options import parse_rules_text


def read_text(path: Path, what: str) -> str:
    """The text of ``path``; an InputError that says what was expected otherwise."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"no such file (expected {what})", str(path)) from None
    except IsADirectoryError:
        raise InputError(f"is a directory (expected {what})", str(path)) from None
    except (OSError, UnicodeDecodeError) as err:
        raise InputError(f"cannot read it as text ({err.__class__.__name__}); expected {what}",
                         str(path)) from None


def read_json(path: Path, what: str) -> Any:
    """The parsed JSON of ``path``; an InputError that says what was expected otherwise."""
    text = read_text(path, what)
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise InputError(f"not valid JSON (line {err.lineno}, column {err.colno}: {err.msg}); "
                         f"expected {what}", str(path)) from None


def read_rules_file(path: Path) -> RuleOptions:
    """Rule options from a `.toml` or `.json` rules file."""
    fmt = "toml" if path.suffix.lower() == ".toml" else "json"
    text = read_text(path, "a rules file of TOML or JSON rule options")
    try:
        return parse_rules_text(text, fmt, where="rules")
    except KaisaError as err:
        raise InputError(str(err), str(path)) from None


@dataclass(frozen=True)
class Game:
    """A parsed GAME file, or a video's: the options, the start state and the raw shot records
    (for a video a stream, found as the video is read: iterate it once)."""

    path: Path
    options: RuleOptions
    start: GameState
    shots: Iterable[Mapping[str, Any] | ShotFacts]
    description: str = ""
    from_camera: bool = False  # the shots were found in a video (see referee.conflicts)
    first_shot: int = 0  # the index of ``shots``' first (a video taken up after it was judged)
    # told each verdict with its shot and the game state after it, as soon as it is made (a
    # video's tracking then follows the next shot from that state; its drawing shows it)
    on_verdict: Callable[[ShotFacts, Verdict, GameState], None] | None = None
    # nothing said where the balls were at the start: the opening was assumed (a video's first
    # shot is checked against it)
    start_assumed: bool = False

    def fitted(self, shot: Mapping[str, Any] | ShotFacts, state: GameState, where: str
               ) -> tuple[ShotFacts, list[str]]:
        """A shot (a record, parsed here; or a camera's facts) as judged from ``state``, and
        what was left out of it: a camera's facts are fitted to the state, their conflicts
        with it repaired and listed in ``extra["conflicts"]`` (see referee.conflicts), a
        file's are not. Raises KaisaError naming ``where``."""
        if self.from_camera:
            return fit_camera_facts(state, shot, where)
        facts = shot if isinstance(shot, ShotFacts) else ShotFacts.from_dict(shot, where)
        return facts, []

    def judged(self) -> Iterator[tuple[int, ShotFacts, Verdict]]:
        """Each shot with its verdict, judged in order. Raises InputError (naming the file, the
        shot and the field) at the first shot that cannot be judged; earlier ones are yielded.
        A camera's shots are judged as well as their facts allow (referee.conflicts): one that
        cannot be judged is recorded ``not_judged`` and the match goes on."""
        state = self.start
        for i, shot in enumerate(self.shots, self.first_shot):
            where = f"shots[{i}]"
            try:
                if self.from_camera:
                    camera = judge_camera_shot(state, shot, where)
                    facts, verdict = camera.facts, camera.verdict
                else:
                    facts = self.fitted(shot, state, where)[0]
                    verdict = judge(state, facts)
            except KaisaError as err:
                located = err if err.where.startswith(where) else err.at(where)
                raise InputError(str(located), str(self.path)) from None
            state = advance(state, verdict)
            yield i, facts, verdict


def load_game(path: Path, options: RuleOptions | None = None) -> Game:
    """Read a GAME file; ``options`` (from --rules) replace the file's own ``rules``."""
    data = read_json(path, 'a GAME object {"rules": {...}, "start": {...}, "shots": [...]}')
    if not isinstance(data, Mapping):
        raise InputError(f"expected a GAME object, got a JSON {type(data).__name__}", str(path))
    shots = data.get("shots")
    if not isinstance(shots, list):
        raise InputError(f"shots: expected a list of shot facts, got {shots!r}"[:200], str(path))
    try:
        opts = options or RuleOptions.from_mapping(data.get("rules"))
        start = GameState.from_dict(data.get("start"), opts)
    except KaisaError as err:
        raise InputError(str(err), str(path)) from None
    return Game(path, opts, start, tuple(shots), str(data.get("description", "")))


__all__ = ["Game", "fit_to_state", "load_game", "read_json", "read_rules_file", "read_text"]
