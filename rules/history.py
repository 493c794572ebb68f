"""A match as a history of entries (verdicts and score corrections), so a human referee can undo
the last one and correct a score, each recorded as such."""

from __future__ import annotations

from dataclasses import dataclass, replace

from rules.errors import StateError
from rules.events import ShotFacts
from rules.judge import advance, judge
from rules.state import GameState, Verdict


@dataclass(frozen=True)
class ScoreCorrection:
    """A human referee set the score by hand (a miscount, a disputed shot)."""

    score: tuple[int, int]
    reason: str


@dataclass(frozen=True)
class ShotEntry:
    facts: ShotFacts
    verdict: Verdict


Entry = ShotEntry | ScoreCorrection


@dataclass(frozen=True)
class Match:
    """The start state and every entry so far; ``states[i]`` is the state after entry i."""

    start: GameState
    entries: tuple[Entry, ...] = ()
    states: tuple[GameState, ...] = ()

    @property
    def state(self) -> GameState:
        """The state the next shot is played from."""
        return self.states[-1] if self.states else self.start

    @property
    def verdicts(self) -> tuple[Verdict, ...]:
        return tuple(e.verdict for e in self.entries if isinstance(e, ShotEntry))

    def play(self, facts: ShotFacts) -> tuple[Match, Verdict]:
        """Judge a shot from the current state; the new match and the verdict."""
        verdict = judge(self.state, facts)
        return self.record(facts, verdict), verdict

    def record(self, facts: ShotFacts, verdict: Verdict) -> Match:
        """Append a verdict decided elsewhere (e.g. read back from a journal)."""
        return self._append(ShotEntry(facts, verdict), advance(self.state, verdict))

    def correct_score(self, score: tuple[int, int], reason: str) -> Match:
        """Set the score by hand; the winner follows the finish option."""
        options = self.state.options
        winner = next((p for p in (1, 2) if options.reached(score[p - 1])), None)
        return self._append(
            ScoreCorrection(score, reason), replace(self.state, score=score, winner=winner)
        )

    def undo(self) -> Match:
        """The match without its last entry."""
        if not self.entries:
            raise StateError("nothing to undo: no shot has been judged yet")
        return Match(self.start, self.entries[:-1], self.states[:-1])

    def _append(self, entry: Entry, state: GameState) -> Match:
        return Match(self.start, (*self.entries, entry), (*self.states, state))
