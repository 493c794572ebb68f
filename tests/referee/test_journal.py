"""The match journal: every verdict in SQLite at once; resume after a kill; undo and corrections."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

from referee.cli import demo_game_path, main
from referee.gamefile import load_game
from referee.journal import Journal


def straight_run_verdicts() -> list[dict]:
    return [v.to_dict() for _, _, v in load_game(demo_game_path()).judged()]


DEMO = straight_run_verdicts()
SHOT_LINE = re.compile(r"^\s*\d+:\d\d\.\d\d\s+shot\s+\d+", re.M)
SHOTS = len(DEMO)


def journal_verdicts(path: Path, match_id: int) -> list[dict]:
    with Journal(path) as j:
        return [v.to_dict() for v in j.load(match_id).match.verdicts]


def test_every_verdict_is_journalled_and_reads_back(journal_path: Path, capsys):
    assert main(["referee", str(demo_game_path())]) == 0
    assert f"player {DEMO[-1]['winner']} WINS" in capsys.readouterr().out
    assert journal_verdicts(journal_path, 1) == straight_run_verdicts()
    with Journal(journal_path) as j:
        assert j.matches()[0][2] == "finished"
        assert j._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_the_journal_survives_a_kill_mid_match(journal_path: Path, tmp_path: Path):
    """SIGKILL after three shots; --resume then judges the rest, none lost, none twice."""
    env = {**os.environ, "KAISA_JOURNAL": str(journal_path)}
    cmd = [sys.executable, "-m", "referee.cli", "referee", str(demo_game_path())]
    proc = subprocess.Popen([*cmd, "--pace", "0.5"], stdout=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None
    shots_seen = 0
    while shots_seen < 3:
        line = proc.stdout.readline()
        assert line, "the referee stopped before three shots"
        shots_seen += bool(SHOT_LINE.match(line))
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    proc.stdout.close()
    with Journal(journal_path) as j:
        recorded = len(j.load(1).match.verdicts)
    assert 3 <= recorded < SHOTS

    done = subprocess.run([*cmd, "--resume", "-o", str(tmp_path / "r.json")], env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert f"{recorded} shots already recorded" in done.stderr  # (notices on stderr)
    assert len(SHOT_LINE.findall(done.stdout)) == SHOTS - recorded
    assert journal_verdicts(journal_path, 1) == straight_run_verdicts()


def test_without_resume_a_new_match_is_started_and_the_old_one_named(journal_path: Path,
                                                                      capsys):
    with Journal(journal_path) as j:
        game = load_game(demo_game_path())
        from referee.journal import source_key
        j.start_match(str(game.path), source_key(game.path), game.options, game.start)
    assert main(["referee", str(demo_game_path())]) == 0
    err = capsys.readouterr().err
    assert "match 1 of this input was not finished; use --resume" in err


def test_undo_and_correct_are_recorded(journal_path: Path, capsys):
    main(["referee", str(demo_game_path())])
    assert main(["journal", "undo", "--reason", "the carom was not seen"]) == 0
    out = capsys.readouterr().out
    before_last = DEMO[-2]
    assert out.strip().endswith(f"score {before_last['score']['1']}:{before_last['score']['2']}, "
                                f"player {before_last['next_shooter']} to play")
    assert main(["journal", "correct", "--score", "57:59", "--reason", "miscount"]) == 0
    out = capsys.readouterr().out
    assert "correction  score set to 57:59  (miscount)" in out
    with Journal(journal_path) as j:
        kinds = [row[1] for row in j.history(1)]
    assert kinds == ["verdict"] * SHOTS + ["undo", "correction"]
    # The undone shot happened: --resume judges it again, from the state before it (here the
    # corrected score), and only it.
    main(["referee", str(demo_game_path()), "--resume"])
    out, err = capsys.readouterr()
    assert f"{SHOTS - 1} shots already recorded" in err
    assert [int(m) for m in re.findall(r"shot\s+(\d+)\s+P", out)] == [SHOTS]


def test_journal_errors_are_one_line(journal_path: Path, capsys):
    assert main(["journal", "show"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    main(["referee", str(demo_game_path())])
    capsys.readouterr()
    assert main(["journal", "show", "7"]) == 2
    assert "no match 7" in capsys.readouterr().err
