"""`kaisa referee A B ... --jobs N`: each input refereed in its own process, its own journal
match and its own files; lines prefixed with the input's name; a failure stops no other input."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from referee.app import PrefixedLines
from referee.cli import main
from referee.evaluate import verdict_differences
from referee.journal import Journal

SAMPLES = Path(__file__).resolve().parents[2] / "sample_videos"
GOLDEN = Path(__file__).resolve().parents[1] / "golden"
CLIPS = ["pot_FL", "pot_HR"]
needs_clips = pytest.mark.skipif(not all((SAMPLES / f"{c}.mp4").exists() for c in CLIPS),
                                 reason="sample clips not made")


@pytest.fixture
def journal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "j.sqlite"
    monkeypatch.setenv("KAISA_JOURNAL", str(path))
    return path


def per_clip_inputs(folder: Path, clips: list[str]) -> None:
    """NAME.start.json, NAME.calls.json, NAME.calib.json (true calibration: quicker) per clip."""
    folder.mkdir(exist_ok=True)
    for name in clips:
        labels = json.loads((SAMPLES / f"{name}.labels.json").read_text())
        (folder / f"{name}.start.json").write_text(json.dumps(labels["start"]))
        (folder / f"{name}.calib.json").write_text(json.dumps(labels["calibration"]))
        (folder / f"{name}.calls.json").write_text(
            json.dumps({"calls": [{"shot": 0, **labels["shots"][0]["call"]}]}))


@needs_clips
def test_two_clips_in_two_processes(tmp_path: Path, journal: Path, capfd):
    inputs = tmp_path / "in"
    per_clip_inputs(inputs, CLIPS)
    broken = tmp_path / "broken.mp4"
    broken.write_bytes(b"\x00" * 100)
    out = tmp_path / "reports"  # no suffix: a directory, made for us
    argv = ["referee", *(str(SAMPLES / f"{c}.mp4") for c in CLIPS), str(broken),
            "--jobs", "2", "--start", str(inputs), "--calls", str(inputs),
            "--calibration", str(inputs), "-o", str(out), "--html", str(out)]
    assert main(argv) == 2  # the broken input failed; the two clips did not
    stdout, stderr = capfd.readouterr()

    errors = [line for line in stderr.splitlines() if line.startswith("kaisa: ")]
    assert len([e for e in errors if "broken.mp4" in e and "expected a video" in e]) == 1
    assert errors[-1] == "kaisa: 1 of 3 inputs failed"
    for name in CLIPS:
        labels = json.loads((SAMPLES / f"{name}.labels.json").read_text())
        report = json.loads((out / f"{name}.report.json").read_text())
        (shot,) = report["shots"]
        assert verdict_differences(labels["shots"][0]["verdict"], shot["verdict"]) == []
        assert (out / f"{name}.html").is_file()
        # Every line of a worker is whole and carries the input's name.
        mine = [line for line in stdout.splitlines() if line.startswith(f"[{name}.mp4] ")]
        assert any(re.search(r"shot\s+1\s+P1", line) for line in mine)
        assert any(f"report: {out / name}.report.json" in line for line in stderr.splitlines()
                   if line.startswith(f"[{name}.mp4] "))
    assert all(re.match(r"\[\w+\.mp4\] ", line) for line in stdout.splitlines() if line)
    # One journal match per clip, each its own source.
    with Journal(journal) as j:
        matches = j.matches()
        sources = sorted(Path(source).name for _, source, _, _ in matches)
        assert sources == ["pot_FL.mp4", "pot_HR.mp4"]
        for match_id, _, _, _ in matches:
            assert len(j.load(match_id).match.verdicts) == 1


def test_several_game_files_one_after_another(tmp_path: Path, journal: Path, capsys):
    """Without --jobs the inputs run in this process; without -o each report goes beside its
    input; a bad input is one line and the next input is still refereed."""
    games = []
    for name in ("opening_realistic_default", "finish_reach_overshoot_wins"):
        games.append(tmp_path / f"{name}.game.json")
        shutil.copy(GOLDEN / f"{name}.game.json", games[-1])
    bad = tmp_path / "bad.game.json"
    bad.write_text("{not json")
    assert main(["referee", str(games[0]), str(bad), str(games[1])]) == 2
    err = capsys.readouterr().err
    assert len([line for line in err.splitlines() if "bad.game.json" in line]) == 1
    for game in games:
        report = tmp_path / game.name.replace(".game.json", ".report.json")
        assert json.loads(report.read_text())["format"] == "kaisa-match-report/1"
    with Journal(journal) as j:
        assert len(j.matches()) == 2


def test_two_inputs_may_not_write_one_file(tmp_path: Path, journal: Path, capsys):
    a, b = tmp_path / "a" / "same.game.json", tmp_path / "b" / "same.game.json"
    for path in (a, b):
        path.parent.mkdir()
        shutil.copy(GOLDEN / "opening_realistic_default.game.json", path)
    assert main(["referee", str(a), str(b), "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "would both write" in err
    assert not (tmp_path / "out" / "same.report.json").exists()


def test_jobs_must_be_a_positive_number(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["referee", "--jobs", "0"])
    assert exit_.value.code == 2
    assert "expected a whole number of processes >= 1" in capsys.readouterr().err


def test_prefixed_lines_are_whole_lines():
    read, write = os.pipe()
    stream = PrefixedLines(write, "[a.mp4] ")
    stream.write("\ra.mp4: tracking, frame 0")
    stream.write("\ra.mp4: tracking, frame 150\n")
    stream.write("half a ")
    stream.write("line\nand the rest")
    stream.flush()
    os.close(write)
    with os.fdopen(read) as f:
        assert f.read().splitlines() == [
            "[a.mp4] a.mp4: tracking, frame 0", "[a.mp4] a.mp4: tracking, frame 150",
            "[a.mp4] half a line", "[a.mp4] and the rest"]
