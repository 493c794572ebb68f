"""``kaisa season``'s reading and writing: the matches from a journal or from a folder of JSON
reports, the matches file (players and dates), and the season's CSV files and HTML page. The
statistics themselves are :mod:`referee.season`'s (pure). No cv2 here: ``kaisa season`` starts
fast. Every bad input is an InputError: one line, exit 2."""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from datetime import date
from pathlib import Path, PurePath
from typing import Any

from referee.errors import InputError
from referee.gamefile import read_json, read_text
from referee.journal import Journal, JournalError
from referee.outpaths import write_text_atomically
from referee.season import (
    ENDED,
    FOUL_KINDS,
    POT_BALLS,
    RUNNING,
    SEATS,
    STATUSES,
    MatchInfo,
    PlayedMatch,
    Season,
    parse_players,
)
from rules import KaisaError, ShotEntry, Verdict

REPORT_SUFFIX = ".report.json"


def input_name(source: str) -> str:
    """``videos/club 3.mp4`` -> ``club 3``; ``x.game.json`` -> ``x`` (as `kaisa referee` names
    an input's outputs)."""
    return PurePath(source).stem.removesuffix(".game") if source else ""


def _aliases(source: str) -> tuple[str, ...]:
    return (PurePath(source).name,) if source else ()


# --- the matches ---------------------------------------------------------------------------------
def matches_from_journal(path: Path) -> list[PlayedMatch]:
    """Every match of the journal (read only), in id order. A damaged match refuses the whole
    season (JournalError, naming the match): its statistics would be wrong."""
    with Journal(path, readonly=True) as journal:
        listed = journal.matches()
        if not listed:
            raise JournalError("the journal holds no match yet (expected the journal "
                               "`kaisa referee` wrote; see --journal)", str(path))
        out = []
        for match_id, source, status, created in listed:
            record = journal.load(match_id)
            entries = record.match.entries
            verdicts = tuple(e.verdict for e in entries if isinstance(e, ShotEntry))
            state = record.match.state
            out.append(PlayedMatch(
                name=input_name(source), source=source,
                status=status if status in STATUSES else RUNNING, verdicts=verdicts,
                score=state.score, winner=state.winner, start_score=record.match.start.score,
                date=str(created)[:10], match_id=match_id,
                corrections=len(entries) - len(verdicts), aliases=_aliases(source)))
    return out


def matches_from_reports(folder: Path) -> list[PlayedMatch]:
    """Every ``NAME.report.json`` of the folder, by name."""
    try:
        paths = sorted(p for p in folder.iterdir() if p.name.endswith(REPORT_SUFFIX)
                       and p.is_file())
    except OSError as err:
        raise InputError(f"cannot list the folder ({err.strerror or type(err).__name__}); "
                         f"expected a folder of NAME{REPORT_SUFFIX} files", str(folder)) from None
    if not paths:
        raise InputError(f"no match report here (expected files NAME{REPORT_SUFFIX}, as "
                         "`kaisa referee -o` writes)", str(folder))
    return [match_from_report(p) for p in paths]


def match_from_report(path: Path) -> PlayedMatch:
    """A match from its JSON report (`kaisa referee -o`, `kaisa journal report -o`)."""
    data = read_json(path, "a kaisa match report")
    try:
        return _report_match(data, path.name.removesuffix(REPORT_SUFFIX))
    except KaisaError as err:
        raise InputError(f"{err}; expected a kaisa match report", str(path)) from None


def _report_match(data: Any, name: str) -> PlayedMatch:
    if not isinstance(data, Mapping) or not str(data.get("format", "")).startswith(
            "kaisa-match-report/"):
        raise KaisaError('not a match report (no "format": "kaisa-match-report/1")')
    shots = data.get("shots")
    if not isinstance(shots, list):
        raise KaisaError("expected a list of shots", "shots")
    verdicts: list[Verdict] = []
    corrections = 0
    for k, shot in enumerate(shots):
        if isinstance(shot, Mapping) and "correction" in shot:
            corrections += 1
        elif isinstance(shot, Mapping) and isinstance(shot.get("verdict"), Mapping):
            verdicts.append(Verdict.from_dict(shot["verdict"], f"shots[{k}].verdict"))
        else:
            raise KaisaError("expected a shot with its verdict, or a correction",
                             f"shots[{k}]")
    final = data.get("final")
    score = _score(final.get("score") if isinstance(final, Mapping) else None, "final.score")
    start = data.get("start")
    start_score = _score(start.get("score", {"1": 0, "2": 0}) if isinstance(start, Mapping)
                         else {"1": 0, "2": 0}, "start.score")
    winner = data.get("winner")
    if winner not in (None, 1, 2) or isinstance(winner, bool):
        raise KaisaError(f"expected 1, 2 or null, got {winner!r}", "winner")
    source = str(data.get("video") or data.get("source") or "")
    status = data.get("status")
    status = status if status in STATUSES else ENDED  # a report is written at a run's end
    match_id = data.get("match_id")
    given = data.get("players")
    players = None
    if given is not None and given != list(SEATS):
        if (not isinstance(given, list) or len(given) != 2
                or not all(isinstance(n, str) and n.strip() for n in given)
                or given[0].strip() == given[1].strip()):
            raise KaisaError(f"expected two different names, got {given!r}", "players")
        players = (given[0].strip(), given[1].strip())
    when = data.get("date")
    return PlayedMatch(
        name=name, source=source, status=status, verdicts=tuple(verdicts), score=score,
        winner=winner, start_score=start_score,
        date=when if isinstance(when, str) else "", players=players,
        match_id=match_id if isinstance(match_id, int) and not isinstance(match_id, bool)
        else None, corrections=corrections,
        aliases=(*_aliases(source), input_name(source)) if source else ())


def _score(value: Any, where: str) -> tuple[int, int]:
    if not isinstance(value, Mapping) or not all(
            isinstance(value.get(k), int) and not isinstance(value.get(k), bool)
            for k in ("1", "2")):
        raise KaisaError(f'expected {{"1": points, "2": points}}, got {value!r}', where)
    return int(value["1"]), int(value["2"])


# --- the matches file ----------------------------------------------------------------------------
MATCHES_FILE = ("a matches file: CSV with the columns input,player1,player2[,date] or JSON "
                '{"NAME": {"players": ["A", "B"], "date": "YYYY-MM-DD"}, ...}')


def read_matches_file(path: Path) -> dict[str, MatchInfo]:
    """Each input's players (and date) from a CSV or JSON matches file, by the input's name
    (its file name without the suffix), its file name or its path as refereed."""
    if path.suffix.lower() == ".json":
        data = read_json(path, MATCHES_FILE)
        try:
            return matches_info_from_json(data)
        except KaisaError as err:
            raise InputError(f"{err}; expected {MATCHES_FILE}", str(path)) from None
    text = read_text(path, MATCHES_FILE)
    try:
        return matches_info_from_csv(text)
    except KaisaError as err:
        raise InputError(f"{err}; expected {MATCHES_FILE}", str(path)) from None


def matches_info_from_csv(text: str) -> dict[str, MatchInfo]:
    reader = csv.DictReader(io.StringIO(text.removeprefix("\ufeff")))  # (a spreadsheet's BOM)
    fields = [f.strip().lower() for f in reader.fieldnames or []]
    key = "input" if "input" in fields else "video" if "video" in fields else None
    if key is None or "player1" not in fields or "player2" not in fields:
        raise KaisaError(f"expected a header with input (or video), player1 and player2, got "
                         f"{','.join(fields) or 'nothing'!r}", "line 1")
    reader.fieldnames = fields
    out: dict[str, MatchInfo] = {}
    for row in reader:
        where = f"line {reader.line_num}"
        if None in row:
            raise KaisaError("more fields than the header names", where)
        name = (row.get(key) or "").strip()
        if not name and not any((v or "").strip() for v in row.values()):
            continue  # an empty line
        players = _players(f"{row.get('player1') or ''},{row.get('player2') or ''}", where)
        _add(out, name, MatchInfo(players, _date(row.get("date") or "", where)), where)
    return out


def matches_info_from_json(data: Any) -> dict[str, MatchInfo]:
    """``{"NAME": {"players": [A, B], "date": D}}`` or ``[{"input": NAME, "players": ...}]``."""
    if isinstance(data, Mapping):
        items = [(str(k), v, str(k)) for k, v in data.items()]
    elif isinstance(data, list):
        items = []
        for k, v in enumerate(data):
            name = v.get("input", v.get("video")) if isinstance(v, Mapping) else None
            if not isinstance(name, str):
                raise KaisaError('expected {"input": NAME, "players": [A, B]}', f"[{k}]")
            items.append((name, v, f"[{k}]"))
    else:
        raise KaisaError(f"expected an object or a list, got {type(data).__name__}")
    out: dict[str, MatchInfo] = {}
    for name, entry, where in items:
        if not isinstance(entry, Mapping):
            raise KaisaError('expected {"players": [A, B], "date": "YYYY-MM-DD"}', where)
        given = entry.get("players")
        if (not isinstance(given, list) or len(given) != 2
                or not all(isinstance(n, str) for n in given)):
            raise KaisaError(f"expected two names, got {given!r}", f"{where}.players")
        when = entry.get("date", "")
        if not isinstance(when, str):
            raise KaisaError(f"expected a date YYYY-MM-DD, got {when!r}", f"{where}.date")
        _add(out, name.strip(), MatchInfo(_players(",".join(given), f"{where}.players"),
                                          _date(when, f"{where}.date")), where)
    return out


def _add(out: dict[str, MatchInfo], name: str, info: MatchInfo, where: str) -> None:
    if not name:
        raise KaisaError("no input named", where)
    if name in out:
        raise KaisaError(f"{name!r} is named twice", where)
    out[name] = info


def _players(text: str, where: str) -> tuple[str, str]:
    try:
        return parse_players(text)
    except ValueError as err:
        raise KaisaError(str(err), where) from None


def _date(text: str, where: str) -> str:
    text = text.strip()
    if not text:
        return ""
    try:
        return date.fromisoformat(text).isoformat()
    except ValueError:
        raise KaisaError(f"expected a date YYYY-MM-DD, got {text!r}", where) from None


# --- the CSV files -------------------------------------------------------------------------------
PLAYER_COLUMNS = (
    "player", "matches", "won", "lost", "no_result", "running", "shots", "innings", "points",
    "average", "best_inning", "caroms", *(f"pots_{b}" for b in POT_BALLS), "penalty_points",
    "fouls", *(f"foul_{f.value}" for f in FOUL_KINDS))
MATCH_COLUMNS = ("date", "input", "match_id", "player1", "player2", "status", "score1",
                 "score2", "start1", "start2", "winner", "shots", "corrections", "source")


def players_csv(season: Season) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(PLAYER_COLUMNS)
    for p in season.players:
        writer.writerow([
            p.name, p.matches, p.won, p.lost, p.no_result, p.running, p.shots, p.innings,
            p.points, f"{p.average:.2f}", p.best_inning, p.caroms,
            *(p.pots[b] for b in POT_BALLS), p.penalty_points, p.foul_count,
            *(p.fouls[f] for f in FOUL_KINDS)])
    return out.getvalue()


def matches_csv(season: Season) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(MATCH_COLUMNS)
    for m in season.matches:
        writer.writerow([m.date, m.name, "" if m.match_id is None else m.match_id,
                         m.players[0], m.players[1], m.status, m.score[0], m.score[1],
                         m.start_score[0], m.start_score[1], m.winner,
                         m.shots, m.corrections, m.source])
    return out.getvalue()


def output_paths(given: Path) -> dict[str, Path]:
    """Where the season goes: ``-o season.html`` (a name ending in .html): the page there, the
    CSV files beside it (``season.players.csv``, ``season.matches.csv``); ``-o DIR``: the
    three in DIR, named so."""
    page = given if given.suffix.lower() in (".html", ".htm") else given / "season.html"
    stem = page.name.rsplit(".", 1)[0]
    return {"html": page, "players": page.with_name(f"{stem}.players.csv"),
            "matches": page.with_name(f"{stem}.matches.csv")}


def write_season(season: Season, paths: Mapping[str, Path], source: str) -> list[Path]:
    """The page and the two CSV files, each whole or not at all; the paths written."""
    from referee.season_html import render_season

    texts = {"html": render_season(season, source), "players": players_csv(season),
             "matches": matches_csv(season)}
    for kind, text in texts.items():
        write_text_atomically(paths[kind], text)
    return [paths[k] for k in texts]
