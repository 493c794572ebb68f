"""A season's statistics, from its matches' records (``kaisa season``). Pure: no I/O here (the
journal, the reports and the matches file are read by :mod:`referee.season_io`).

Per player: matches, results, shots, innings, points, the average per inning, the best inning,
caroms, pots by ball, penalties and fouls by kind. Per match: date, players, result.

What is counted:
- **points**: what the player's own shots scored at the table (the verdicts' ``points``). A
  start from a score other than 0:0 and a score corrected by hand are not shots: they are in the
  match's score, not in anyone's points. Penalties are not taken off: they are counted apart
  (``penalty_points``).
- **an inning**: a player's run of shots at the table until the turn passes (or the match is
  won, or its record ends). Its points are the sum of its shots' points.
- **caroms**: the carom balls of the player's scoring shots (a pot off two balls counts two).
- **pots by ball**: the scoring pots, by the colour of the ball that scored (W: the opponent's
  white, R, Y); an extra ball that dropped and scored nothing is not a pot here.
- **fouls**: each foul of each of the player's shots, by kind (a shot can have two).
- **results**: a finished match has a winner; one refereed to its end without one (a clip, a
  session cut short) has no result; a running one (still being refereed, or stopped before its
  end) is listed as such and counted in no one's wins or losses, though its shots so far are
  counted.
- **players** are known by name when the matches are named (``--players`` or a matches file);
  a match with no names has "Player 1" and "Player 2": their totals are per seat (player 1
  plays W1), over every unnamed match.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from rules import Foul, Verdict

SEATS = ("Player 1", "Player 2")
FINISHED, ENDED, RUNNING = "finished", "ended", "running"
STATUSES = (FINISHED, ENDED, RUNNING)
POT_BALLS = ("W", "R", "Y")
FOUL_KINDS = tuple(Foul)


@dataclass(frozen=True)
class PlayedMatch:
    """One match as the season sees it (from the journal or a report)."""

    name: str  # the input's name (its file name without the suffix): what a matches file names
    source: str  # what was refereed, as recorded
    status: str  # finished | ended | running
    verdicts: tuple[Verdict, ...]  # the standing verdicts, in order
    score: tuple[int, int]  # the final score (corrections included)
    winner: int | None
    start_score: tuple[int, int] = (0, 0)
    date: str = ""  # YYYY-MM-DD, or unknown
    players: tuple[str, str] | None = None  # None: not named (seats)
    match_id: int | None = None  # the journal's id (None: from a report without one)
    corrections: int = 0  # scores set by hand
    # other names a matches file may use for it (its path as recorded, its file name)
    aliases: tuple[str, ...] = ()

    @property
    def seat_names(self) -> tuple[str, str]:
        return self.players if self.players is not None else SEATS

    @property
    def counted_status(self) -> str:
        """A match with a winner is finished, whatever its record says."""
        return FINISHED if self.winner is not None else self.status


@dataclass(frozen=True)
class MatchInfo:
    """What a matches file (or ``--players``) says of a match: its players and its date."""

    players: tuple[str, str] | None = None
    date: str = ""


@dataclass
class PlayerStats:
    name: str
    matches: int = 0
    won: int = 0
    lost: int = 0
    no_result: int = 0
    running: int = 0
    shots: int = 0
    innings: int = 0
    points: int = 0
    best_inning: int = 0
    caroms: int = 0
    penalty_points: int = 0
    pots: dict[str, int] = field(default_factory=lambda: dict.fromkeys(POT_BALLS, 0))
    fouls: dict[Foul, int] = field(default_factory=lambda: dict.fromkeys(FOUL_KINDS, 0))

    @property
    def average(self) -> float:
        """Points per inning (0 with no inning)."""
        return self.points / self.innings if self.innings else 0.0

    @property
    def foul_count(self) -> int:
        return sum(self.fouls.values())


@dataclass(frozen=True)
class MatchRow:
    """A match in the season's list."""

    date: str
    name: str
    source: str
    match_id: int | None
    players: tuple[str, str]
    status: str
    score: tuple[int, int]
    winner: str  # the winner's name, or ""
    shots: int
    corrections: int
    start_score: tuple[int, int] = (0, 0)

    @property
    def result(self) -> str:
        a, b = self.score
        began = (f", from {self.start_score[0]}:{self.start_score[1]}"
                 if self.start_score != (0, 0) else "")
        if self.status == FINISHED:
            return f"{self.winner} won {a}:{b}" + (f" ({began[2:]})" if began else "")
        if self.status == RUNNING:
            return f"running, {a}:{b} so far{began}"
        return f"no result ({a}:{b} at the end of the record{began})"


@dataclass(frozen=True)
class Season:
    players: tuple[PlayerStats, ...]
    matches: tuple[MatchRow, ...]
    per_seat: bool  # some match had no names: "Player 1" / "Player 2" are seats

    def counts(self) -> dict[str, int]:
        """How many matches of each status."""
        return {s: sum(m.status == s for m in self.matches) for s in STATUSES}


def innings(verdicts: Iterable[Verdict]) -> list[tuple[int, list[Verdict]]]:
    """The innings of a match: (shooter, its shots), in order. A new inning begins when the
    shooter changes or the last shot passed the turn."""
    out: list[tuple[int, list[Verdict]]] = []
    for verdict in verdicts:
        if not out or out[-1][0] != verdict.shooter or out[-1][1][-1].turn_passes:
            out.append((verdict.shooter, []))
        out[-1][1].append(verdict)
    return out


def season_statistics(matches: Sequence[PlayedMatch]) -> Season:
    """Every player's totals and the list of matches (dated ones first by date, then in the
    order given). Players are ranked by wins, then average, then points, then name."""
    stats: dict[str, PlayerStats] = {}

    def player(name: str) -> PlayerStats:
        if name not in stats:
            stats[name] = PlayerStats(name)
        return stats[name]

    rows = []
    for match in matches:
        names = match.seat_names
        status = match.counted_status
        for seat, name in enumerate(names, 1):
            p = player(name)
            p.matches += 1
            if status == FINISHED:
                if match.winner == seat:
                    p.won += 1
                else:
                    p.lost += 1
            elif status == RUNNING:
                p.running += 1
            else:
                p.no_result += 1
        for shooter, shots in innings(match.verdicts):
            p = player(names[shooter - 1])
            p.innings += 1
            made = sum(v.points for v in shots)
            p.best_inning = max(p.best_inning, made)
            for v in shots:
                p.shots += 1
                p.points += v.points
                p.penalty_points += v.penalty
                for foul in v.fouls:
                    p.fouls[foul] += 1
                if v.scored_ball is not None and v.points > 0:
                    p.pots[v.scored_ball.colour.value] += 1
                    p.caroms += len(v.caroms)
        rows.append(MatchRow(
            match.date, match.name, match.source, match.match_id, names, status, match.score,
            names[match.winner - 1] if status == FINISHED and match.winner else "",
            len(match.verdicts), match.corrections, match.start_score))
    order = sorted(range(len(rows)), key=lambda k: (rows[k].date == "", rows[k].date, k))
    ranked = sorted(stats.values(), key=lambda p: (-p.won, -p.average, -p.points, p.name))
    return Season(tuple(ranked), tuple(rows[k] for k in order),
                  any(m.players is None for m in matches))


def name_matches(matches: Sequence[PlayedMatch], info: Mapping[str, MatchInfo] | None = None,
                 players: tuple[str, str] | None = None) -> tuple[list[PlayedMatch], list[str]]:
    """The matches with their players and dates: ``players`` (``--players``) name every match;
    else a matches file's entry (``info``, by the match's name, its path or its file name) names
    its match and may date it. A match the file does not name keeps the names it had (a
    report's own), else its seats. The matches with the names of those not found in ``info``."""
    named = []
    missing = []
    for match in matches:
        entry = _entry_for(match, info) if info is not None else None
        if info is not None and entry is None:
            missing.append(match.name)
        given = players or (entry.players if entry is not None else None) or match.players
        date = entry.date if entry is not None and entry.date else match.date
        named.append(replace(match, players=given, date=date))
    return named, missing


def _entry_for(match: PlayedMatch, info: Mapping[str, MatchInfo]) -> MatchInfo | None:
    for key in (match.source, *match.aliases, match.name):
        if key in info:
            return info[key]
    return None


def refereed_again(matches: Sequence[PlayedMatch]) -> dict[str, list[int | None]]:
    """The sources recorded in more than one match (a video refereed twice: each match is
    counted), with those matches' ids."""
    seen: dict[str, list[int | None]] = {}
    for match in matches:
        if match.source:
            seen.setdefault(match.source, []).append(match.match_id)
    return {source: ids for source, ids in seen.items() if len(ids) > 1}


def parse_players(text: str) -> tuple[str, str]:
    """``"Anna,Boris"`` -> ("Anna", "Boris"): two names, different, not empty; ValueError
    (its message says what was expected) otherwise."""
    names = [n.strip() for n in text.split(",")]
    if len(names) != 2 or not all(names):
        raise ValueError(f"expected two names separated by a comma (\"Anna,Boris\"), got "
                         f"{text!r}")
    if names[0] == names[1]:
        raise ValueError(f"the two players have the same name, {names[0]!r}")
    return names[0], names[1]
