"""A match as a history of verdicts, so a human referee can undo the last one."""

from __future__ import annotations

from dataclasses import dataclass

from rules.errors import StateError
from rules.events import ShotFacts
from rules.judge import advance, judge
from rules.state import GameState, Verdict


@dataclass(frozen=True)
class Match:
    """The start state and every shot so far with its verdict; ``states[i]`` is before shot i."""

    start: GameState
    shots: tuple[tuple[ShotFacts, Verdict], ...] = ()
    states: tuple[GameState, ...] = ()

    @property
    def state(self) -> GameState:
        """The state the next shot is played from."""
        return self.states[-1] if self.states else self.start

    @property
    def verdicts(self) -> tuple[Verdict, ...]:
        return tuple(v for _, v in self.shots)

    def play(self, facts: ShotFacts) -> tuple[Match, Verdict]:
        """Judge a shot from the current state; the new match and the verdict."""
        verdict = judge(self.state, facts)
        return self.record(facts, verdict), verdict

    def record(self, facts: ShotFacts, verdict: Verdict) -> Match:
        """Append a verdict decided elsewhere (e.g. read back from a journal)."""
        return Match(
            self.start,
            (*self.shots, (facts, verdict)),
            (*self.states, advance(self.state, verdict)),
        )

    def undo(self) -> Match:
        """The match without its last verdict."""
        if not self.shots:
            raise StateError("nothing to undo: no shot has been judged yet")
        return Match(self.start, self.shots[:-1], self.states[:-1])
