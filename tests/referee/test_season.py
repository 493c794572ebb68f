"""`kaisa season`: season statistics worked out by hand on a small journal made by refereeing
golden GAME files through `kaisa referee` (their verdicts are the hand-made ones of
tests/golden/*.expected.json), the CSV columns, the page, the names, and the pure module.

The journal (a matches file names the players and dates):
- m1 = opening_realistic_default, Anna (P1, W1) v Boris (P2), ended 24:1 without a winner:
  Anna R2 FR 3, R2 FL +Y 9, miss (inning 12) | Boris W1 HR +R1 4, scratch -3 (inning 4) |
  Anna Y FL +R2 12 (inning 12, the record ends).
- m2 = table_kaisa10ft_whole_game, Boris (P1) v Anna (P2), Boris wins 60:15:
  Boris R2 FR 3, Y ML +R1 18, yellow middle twice 0 (inning 21) | Anna R1 HL +W1 5,
  W1 FR +R2+Y 10, miss (inning 15) | Boris Y MR +W2+R2+R1 23, R1 HL +Y+W2 11,
  R2 FR +W2 5 wins (an inning of three shots: 39).
- m3 = finish_exact_bust_then_win, Anna (P1) v Carl (P2), from 55:50; its winning shot (Anna's)
  undone: running at 55:57. Anna bust 0 (inning 0) | Carl R1 HL 3, W1 FR +R2 4, miss
  (inning 7). Running: in no one's wins or losses.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from referee.cli import main
from referee.season import (
    FINISHED,
    RUNNING,
    MatchInfo,
    PlayedMatch,
    innings,
    name_matches,
    parse_players,
    season_statistics,
)
from referee.season_io import MATCH_COLUMNS, PLAYER_COLUMNS, output_paths
from rules import Verdict
from tests.referee.conftest import run_cli as _run

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden"
GAMES = {"m1": "opening_realistic_default", "m2": "table_kaisa10ft_whole_game",
         "m3": "finish_exact_bust_then_win"}
MATCHES_CSV = ("input,player1,player2,date\n"
               "m1,Anna,Boris,2026-03-01\n"
               "m2,Boris,Anna,2026-03-08\n"
               "m3,Anna,Carl,2026-03-15\n")

# worked out by hand (see the docstring)
EXPECTED = {
    "Anna": {"matches": "3", "won": "0", "lost": "1", "no_result": "1", "running": "1",
             "shots": "8", "innings": "4", "points": "39", "average": "9.75",
             "best_inning": "15", "caroms": "5", "pots_W": "1", "pots_R": "3", "pots_Y": "1",
             "penalty_points": "0", "fouls": "1", "foul_bust": "1", "foul_scratch": "0",
             "foul_yellow_middle_twice": "0"},
    "Boris": {"matches": "2", "won": "1", "lost": "0", "no_result": "1", "running": "0",
              "shots": "8", "innings": "3", "points": "64", "average": "21.33",
              "best_inning": "39", "caroms": "8", "pots_W": "1", "pots_R": "3", "pots_Y": "2",
              "penalty_points": "3", "fouls": "2", "foul_scratch": "1",
              "foul_yellow_middle_twice": "1", "foul_bust": "0"},
    "Carl": {"matches": "1", "won": "0", "lost": "0", "no_result": "0", "running": "1",
             "shots": "3", "innings": "1", "points": "7", "average": "7.00",
             "best_inning": "7", "caroms": "1", "pots_W": "1", "pots_R": "1", "pots_Y": "0",
             "penalty_points": "0", "fouls": "0"},
}


@pytest.fixture(autouse=True)
def _private_journal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KAISA_JOURNAL", str(tmp_path / "default.sqlite"))


@pytest.fixture
def season_journal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """m1, m2, m3 refereed through `kaisa referee`, m3's winning shot undone (running)."""
    games = tmp_path / "games"
    games.mkdir()
    journal = tmp_path / "season.sqlite"
    for name, golden in GAMES.items():
        game = shutil.copy(GOLDEN / f"{golden}.game.json", games / f"{name}.game.json")
        assert main(["referee", str(game), "--journal", str(journal)]) == 0
    assert main(["journal", "undo", "3", "--journal", str(journal), "--reason", "test"]) == 0
    (tmp_path / "matches.csv").write_text(MATCHES_CSV, encoding="utf-8")
    capsys.readouterr()
    return journal


def _csv(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))


def _one_line(err: str, *named: str) -> None:
    lines = err.strip("\n").splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    for text in named:
        assert text in lines[0], (text, lines[0])


# --- the statistics, by hand -------------------------------------------------------------------
def test_statistics_worked_out_by_hand(season_journal: Path, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    out_dir = tmp_path / "out"
    code, out, _ = _run(capsys, "season", "--journal", str(season_journal), "--matches",
                        str(tmp_path / "matches.csv"), "-o", str(out_dir))
    assert code == 0
    assert "3 matches (1 finished, 1 with no result, 1 running), 3 players" in out
    rows = {r["player"]: r for r in _csv(out_dir / "season.players.csv")}
    assert set(rows) == set(EXPECTED)
    for player, expected in EXPECTED.items():
        got = {k: rows[player][k] for k in expected}
        assert got == expected, player
    # ranked by wins, then average
    assert [r["player"] for r in _csv(out_dir / "season.players.csv")] == \
        ["Boris", "Anna", "Carl"]


def test_matches_csv_has_date_players_and_result(season_journal: Path, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    out_dir = tmp_path / "out"
    assert _run(capsys, "season", str(season_journal), "--matches",
                str(tmp_path / "matches.csv"), "-o", str(out_dir))[0] == 0
    rows = _csv(out_dir / "season.matches.csv")
    got = [(r["date"], r["input"], r["match_id"], r["player1"], r["player2"], r["status"],
            r["score1"], r["score2"], r["start1"], r["start2"], r["winner"], r["shots"])
           for r in rows]
    assert got == [
        ("2026-03-01", "m1", "1", "Anna", "Boris", "ended", "24", "1", "0", "0", "", "6"),
        ("2026-03-08", "m2", "2", "Boris", "Anna", "finished", "60", "15", "0", "0", "Boris",
         "9"),
        ("2026-03-15", "m3", "3", "Anna", "Carl", "running", "55", "57", "55", "50", "", "4"),
    ]


def test_csv_columns(season_journal: Path, tmp_path: Path,
                     capsys: pytest.CaptureFixture[str]) -> None:
    out_dir = tmp_path / "out"
    assert _run(capsys, "season", "--journal", str(season_journal), "-o", str(out_dir))[0] == 0
    players = (out_dir / "season.players.csv").read_text(encoding="utf-8").splitlines()[0]
    assert players.split(",") == list(PLAYER_COLUMNS)
    assert players == (
        "player,matches,won,lost,no_result,running,shots,innings,points,average,best_inning,"
        "caroms,pots_W,pots_R,pots_Y,penalty_points,fouls,foul_scratch,foul_wrong_cue_ball,"
        "foul_opening_shot,foul_yellow_middle_twice,foul_bust,foul_object_off_table,"
        "foul_chain_too_long,foul_bank_not_allowed")
    matches = (out_dir / "season.matches.csv").read_text(encoding="utf-8").splitlines()[0]
    assert matches.split(",") == list(MATCH_COLUMNS) == [
        "date", "input", "match_id", "player1", "player2", "status", "score1", "score2",
        "start1", "start2", "winner", "shots", "corrections", "source"]


def test_the_page_has_each_players_row_and_says_what_runs(
        season_journal: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = tmp_path / "league" / "spring.html"
    page.parent.mkdir()
    assert _run(capsys, "season", "--journal", str(season_journal), "--matches",
                str(tmp_path / "matches.csv"), "-o", str(page))[0] == 0
    assert sorted(p.name for p in page.parent.iterdir()) == [
        "spring.html", "spring.matches.csv", "spring.players.csv"]
    text = page.read_text(encoding="utf-8")
    for player in EXPECTED:
        # a row in the standings and one in the shots table
        assert text.count(f'<tr data-player="{player}"><td class=name>{player}</td>') == 2
    assert "Boris won 60:15" in text and "running, 55:57 so far, from 55:50" in text
    assert "1 match is still running" in text
    assert "are seats" not in text  # every match is named
    assert "<script" not in text and "http" not in text  # self-contained
    assert "@media print" in text and "width=device-width" in text


def test_without_names_the_totals_are_per_seat_and_the_page_says_so(
        season_journal: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_dir = tmp_path / "out"
    assert _run(capsys, "season", "--journal", str(season_journal), "-o", str(out_dir))[0] == 0
    rows = {r["player"]: r for r in _csv(out_dir / "season.players.csv")}
    assert set(rows) == {"Player 1", "Player 2"}
    # seat 1: Anna's m1 and m3 with Boris's m2; seat 2 the others (see the docstring)
    assert (rows["Player 1"]["points"], rows["Player 1"]["innings"],
            rows["Player 1"]["best_inning"], rows["Player 1"]["won"],
            rows["Player 1"]["running"]) == ("84", "5", "39", "1", "1")
    assert (rows["Player 2"]["points"], rows["Player 2"]["innings"],
            rows["Player 2"]["lost"]) == ("26", "3", "1")
    assert "are seats, not people" in (out_dir / "season.html").read_text(encoding="utf-8")


def test_players_option_names_every_match(season_journal: Path, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    out_dir = tmp_path / "out"
    assert _run(capsys, "season", "--journal", str(season_journal), "--players", "Ann, Bo",
                "-o", str(out_dir))[0] == 0
    rows = {r["player"]: r for r in _csv(out_dir / "season.players.csv")}
    assert set(rows) == {"Ann", "Bo"} and rows["Ann"]["points"] == "84"


def test_a_match_the_file_does_not_name_is_said_and_left_to_its_seats(
        season_journal: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    partial = tmp_path / "partial.json"
    partial.write_text(json.dumps({"m2.game.json": {"players": ["Boris", "Anna"]}}),
                       encoding="utf-8")
    out_dir = tmp_path / "out"
    code, _, err = _run(capsys, "season", "--journal", str(season_journal), "--matches",
                        str(partial), "-o", str(out_dir))
    assert code == 0
    assert "2 matches not in" in err and "m1, m3" in err
    names = {r["player"] for r in _csv(out_dir / "season.players.csv")}
    assert names == {"Boris", "Anna", "Player 1", "Player 2"}


def test_a_folder_of_reports_gives_the_journals_statistics(
        season_journal: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    reports = tmp_path / "reports"
    reports.mkdir()
    for k, name in enumerate(GAMES, 1):
        assert main(["journal", "report", str(k), "--journal", str(season_journal), "-o",
                     str(reports / f"{name}.report.json")]) == 0
    (reports / "notes.json").write_text("not a report", encoding="utf-8")  # not NAME.report.json
    from_journal, from_reports = tmp_path / "j", tmp_path / "r"
    for source, out in ((str(season_journal), from_journal), (str(reports), from_reports)):
        assert _run(capsys, "season", source, "--matches", str(tmp_path / "matches.csv"),
                    "-o", str(out))[0] == 0
    journal_rows = _csv(from_journal / "season.players.csv")
    report_rows = _csv(from_reports / "season.players.csv")
    # a report does not say that its match is running: m3 has no result there
    for rows in (journal_rows, report_rows):
        for r in rows:
            r["no_result"] = str(int(r["no_result"]) + int(r.pop("running")))
    assert report_rows == journal_rows


def test_a_spreadsheets_csv_with_a_bom_is_read(season_journal: Path, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    saved = tmp_path / "excel.csv"
    saved.write_bytes(b"\xef\xbb\xbf" + MATCHES_CSV.replace("\n", "\r\n").encode())
    out_dir = tmp_path / "out"
    assert _run(capsys, "season", str(season_journal), "--matches", str(saved), "-o",
                str(out_dir))[0] == 0
    assert {r["player"] for r in _csv(out_dir / "season.players.csv")} == set(EXPECTED)


def test_an_input_refereed_twice_is_said(season_journal: Path, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    game = tmp_path / "games" / "m1.game.json"
    assert main(["referee", str(game), "--journal", str(season_journal)]) == 0
    capsys.readouterr()
    code, out, err = _run(capsys, "season", str(season_journal), "-o", str(tmp_path / "out"))
    assert code == 0 and "4 matches" in out
    assert f"{game} is in 2 matches (1, 4): each is counted" in err


# --- bad input: one line, exit 2 ---------------------------------------------------------------
@pytest.mark.parametrize(("text", "named"), [
    ("input,player1\nm1,Anna\n", "player2"),
    ("input,player1,player2\nm1,Anna,Anna\n", "line 2"),
    ("input,player1,player2,date\nm1,Anna,Boris,1 March\n", "YYYY-MM-DD"),
    ("input,player1,player2\nm1,Anna,Boris\nm1,Carl,Dora\n", "named twice"),
    ("input,player1,player2\nm1,Anna,,\n", "line 2"),
])
def test_a_malformed_matches_file_is_one_line(
        text: str, named: str, season_journal: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text(text, encoding="utf-8")
    code, _, err = _run(capsys, "season", "--journal", str(season_journal), "--matches",
                        str(bad), "-o", str(tmp_path / "out"))
    assert code == 2
    _one_line(err, str(bad), named)
    assert not list((tmp_path / "out").glob("*"))


@pytest.mark.parametrize("content", [
    '{"m1": {"players": ["Anna"]}}', '[{"players": ["A", "B"]}]', '{"m1": ', '"m1"'])
def test_a_malformed_json_matches_file_is_one_line(
        content: str, season_journal: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(content, encoding="utf-8")
    code, _, err = _run(capsys, "season", "--journal", str(season_journal), "--matches",
                        str(bad), "-o", str(tmp_path / "out"))
    assert code == 2
    _one_line(err, str(bad))


@pytest.mark.parametrize(("content", "named"), [
    ("{not json", "not valid JSON"),
    ('{"format": "kaisa-clip-labels/1"}', "not a match report"),
    ('{"format": "kaisa-match-report/1", "shots": [{"verdict": {"shooter": 3}}], '
     '"final": {"score": {"1": 0, "2": 0}}}', "shots[0].verdict"),
    ('{"format": "kaisa-match-report/1", "shots": [], "final": {}}', "final.score"),
    ('{"format": "kaisa-match-report/1", "shots": [], "final": {"score": {"1": 0, "2": 0}}, '
     '"players": ["Anna", ""]}', "players"),
])
def test_a_malformed_report_is_one_line(content: str, named: str, tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    reports = tmp_path / "reports"
    reports.mkdir()
    bad = reports / "x.report.json"
    bad.write_text(content, encoding="utf-8")
    code, _, err = _run(capsys, "season", str(reports), "-o", str(tmp_path / "out"))
    assert code == 2
    _one_line(err, str(bad), named)


def test_a_damaged_match_is_one_line(season_journal: Path, tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    with sqlite3.connect(season_journal) as db:
        db.execute("UPDATE entries SET verdict_json = '{}' WHERE match_id = 2 AND seq = 1")
    db.close()
    code, _, err = _run(capsys, "season", str(season_journal), "-o", str(tmp_path / "out"))
    assert code == 2
    _one_line(err, "match 2 is damaged", "shot 2")


@pytest.mark.parametrize("argv", [
    ["--players", "Anna"], ["--players", "Anna,Anna"], ["--players", "A,B,C"],
    ["--players", "A,B", "--matches", "x.csv"], ["JOURNAL", "--journal", "J2"],
])
def test_bad_options_are_one_line(argv: list[str], season_journal: Path, tmp_path: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    argv = [str(season_journal) if a == "JOURNAL" else a for a in argv]
    code, _, err = _run(capsys, "season", *argv, "-o", str(tmp_path / "out"))
    assert code == 2
    _one_line(err)


def test_no_journal_no_reports_is_one_line(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(capsys, "season", "--journal", str(tmp_path / "none.sqlite"), "-o",
                        str(tmp_path / "out"))
    assert code == 2
    _one_line(err, "none.sqlite", "no journal here")
    empty = tmp_path / "empty"
    empty.mkdir()
    code, _, err = _run(capsys, "season", str(empty), "-o", str(tmp_path / "out"))
    assert code == 2
    _one_line(err, "no match report here")


def test_the_output_place_is_checked_before_any_work(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A place that cannot be written is said first (the journal named is not even there)."""
    code, _, err = _run(capsys, "season", "--journal", str(tmp_path / "none.sqlite"), "-o",
                        str(tmp_path / "no" / "such" / "folder"))
    assert code == 2
    _one_line(err, "does not exist")
    assert "none.sqlite" not in err
    page = tmp_path / "missing" / "season.html"
    code, _, err = _run(capsys, "season", "--journal", str(tmp_path / "none.sqlite"), "-o",
                        str(page))
    assert code == 2
    _one_line(err, "season page", "does not exist")


def test_season_loads_no_video_library(season_journal: Path, tmp_path: Path) -> None:
    """`kaisa season` starts fast: no cv2, PyAV or numba imported (as `kaisa score`)."""
    script = (
        "import sys\n"
        "from referee.cli import main\n"
        f"assert main(['season', {str(season_journal)!r}, '-o', {str(tmp_path / 'o')!r}]) == 0\n"
        "print('LOADED', sorted(m for m in ('cv2', 'av', 'numba', 'scipy', 'tqdm')\n"
        "                       if m in sys.modules), file=sys.stderr)\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "LOADED []" in done.stderr


# --- the pure module ---------------------------------------------------------------------------
def _verdicts(golden: str) -> tuple[Verdict, ...]:
    data = json.loads((GOLDEN / f"{golden}.expected.json").read_text(encoding="utf-8"))
    return tuple(Verdict.from_dict(v) for v in data["verdicts"])


def test_innings_end_where_the_turn_passes() -> None:
    got = [(shooter, [v.points for v in shots])
           for shooter, shots in innings(_verdicts("table_kaisa10ft_whole_game"))]
    assert got == [(1, [3, 18, 0]), (2, [5, 10, 0]), (1, [23, 11, 5])]
    assert innings(()) == []


def test_names_from_the_players_option_then_the_file_then_the_match() -> None:
    base = PlayedMatch("m1", "games/m1.game.json", FINISHED, (), (1, 0), 1,
                       aliases=("m1.game.json",))
    own = PlayedMatch("m2", "m2.mp4", RUNNING, (), (0, 0), None, players=("X", "Y"),
                      date="2026-01-01")
    info = {"games/m1.game.json": MatchInfo(("A", "B"), "2026-02-02")}
    named, missing = name_matches([base, own], info)
    assert [(m.players, m.date) for m in named] == [(("A", "B"), "2026-02-02"),
                                                    (("X", "Y"), "2026-01-01")]
    assert missing == ["m2"]
    named, missing = name_matches([base, own], info, ("P", "Q"))
    assert [m.players for m in named] == [("P", "Q"), ("P", "Q")]
    assert name_matches([base], None)[0][0].players is None


def test_a_won_match_counts_even_if_its_record_says_running() -> None:
    """(a version 0 journal marked no match finished): the winner decides."""
    won = PlayedMatch("m", "m", RUNNING, _verdicts("finish_reach_overshoot_wins"), (71, 0), 1,
                      players=("A", "B"))
    season = season_statistics([won])
    assert season.matches[0].status == FINISHED and season.players[0].won == 1


def test_parse_players() -> None:
    assert parse_players(" Anna Virtanen , Boris ") == ("Anna Virtanen", "Boris")
    for bad in ("Anna", "Anna,", "A,B,C", "A,A"):
        with pytest.raises(ValueError):
            parse_players(bad)


def test_output_paths() -> None:
    assert output_paths(Path("out")) == {"html": Path("out/season.html"),
                                         "players": Path("out/season.players.csv"),
                                         "matches": Path("out/season.matches.csv")}
    assert output_paths(Path("a/spring.html"))["players"] == Path("a/spring.players.csv")


def test_a_reports_own_names_are_used_when_none_are_given(
        season_journal: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "m2.report.json"
    assert main(["journal", "report", "2", "--journal", str(season_journal), "-o",
                 str(report)]) == 0
    data = json.loads(report.read_text(encoding="utf-8"))
    data["players"] = ["Boris", "Anna"]
    report.write_text(json.dumps(data), encoding="utf-8")
    out_dir = tmp_path / "out"
    assert _run(capsys, "season", str(report), "-o", str(out_dir))[0] == 0
    rows = {r["player"]: r for r in _csv(out_dir / "season.players.csv")}
    assert (rows["Boris"]["won"], rows["Boris"]["points"], rows["Anna"]["points"]) == \
        ("1", "60", "15")
    (match,) = _csv(out_dir / "season.matches.csv")
    assert (match["input"], match["match_id"], match["winner"]) == ("m2", "2", "Boris")
