"""Issue 51, item 2: every command that writes checks its output places before any work: a
missing or unwritable folder is exit 2 and one line on stderr, no traceback, nothing begun."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import calibration
import referee.app
import referee.cli
import referee.evaluate
import referee.pipeline
import synth.make
import vision.commands
from referee.cli import demo_game_path, main

ROOT = Path(__file__).resolve().parents[2]
CLIP = ROOT / "sample_videos" / "carom_2.mp4"
LABELS = ROOT / "sample_videos" / "carom_2.labels.json"


def _writable(folder: Path) -> bool:
    probe = folder / f".kaisa-test-probe-{os.getpid()}"
    try:
        probe.touch()
    except OSError:
        return False
    probe.unlink()
    return True


@pytest.fixture
def unwritable(tmp_path: Path) -> Iterator[Path]:
    """A folder no file can be made in: a read-only one (chmod); as root, where permissions do
    not stop writes, /sys (a kernel file system that refuses new files even to root)."""
    folder = tmp_path / "read-only"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        if not _writable(folder):
            yield folder
            return
    finally:
        folder.chmod(0o755)
    if Path("/sys").is_dir() and not _writable(Path("/sys")):
        yield Path("/sys")
        return
    pytest.skip("no folder here refuses writes (root, and no /sys)")


@pytest.fixture
def no_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every command's first piece of work fails the test: the check must come before it."""
    def began(*args: object, **kwargs: object) -> None:
        raise AssertionError("the work began before the output place was checked")

    monkeypatch.setattr(referee.app, "load_source", began)
    monkeypatch.setattr(referee.cli, "rewrite_reports", began)
    monkeypatch.setattr(vision.commands, "calibration_for", began)
    monkeypatch.setattr(calibration, "sample_frames", began)
    monkeypatch.setattr(referee.pipeline, "sample_frames_shown", began)
    monkeypatch.setattr(synth.make, "make_clip", began)
    monkeypatch.setattr(referee.evaluate, "tracker_rows", began)


@pytest.fixture(autouse=True)
def journal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "journal.sqlite"
    monkeypatch.setenv("KAISA_JOURNAL", str(path))
    return path


# Each command with the output option under test; OUT is replaced by the place.
COMMANDS: dict[str, Callable[[Path], list[str]]] = {
    "referee -o": lambda out: ["referee", str(CLIP), "-o", str(out / "r.json")],
    "referee --html": lambda out: ["referee", str(CLIP), "--html", str(out / "r.html")],
    "referee --annotated": lambda out: ["referee", str(CLIP), "--annotated",
                                        str(out / "a.mp4")],
    "referee --journal": lambda out: ["referee", str(CLIP), "--journal", str(out / "j.sqlite")],
    "referee -o DIR (several inputs)": lambda out: [
        "referee", str(CLIP), str(ROOT / "sample_videos" / "pot_HR.mp4"), "-o",
        str(out / "reports") + "/"],
    "track -o": lambda out: ["track", str(CLIP), "--calibration", str(LABELS), "-o",
                             str(out / "t.csv")],
    "synth -o": lambda out: ["synth", "--scenario", "carom_2", "-o", str(out / "clips")],
    "calibrate -o": lambda out: ["calibrate", str(CLIP), "-o", str(out / "c.json")],
    "calibrate --preview": lambda out: ["calibrate", str(CLIP), "-o", "/dev/null", "--preview",
                                        str(out / "c.png")],
    "eval --json": lambda out: ["eval", str(LABELS), "--json", str(out / "m.json")],
    "journal report -o": lambda out: ["journal", "report", "-o", str(out / "r.json")],
    "journal report --html": lambda out: ["journal", "report", "--html", str(out / "r.html")],
}


def _one_line_refusal(capsys: pytest.CaptureFixture[str], argv: list[str], *named: str) -> str:
    code = main(argv)
    err = capsys.readouterr().err
    lines = err.strip("\n").splitlines()
    assert code == 2, err
    assert len(lines) == 1, f"expected one line on stderr, got:\n{err}"
    assert "Traceback" not in err
    for text in named:
        assert text in lines[0], f"{text!r} not in {lines[0]!r}"
    return lines[0]


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_missing_folder_is_one_line_before_any_work(
        command: str, tmp_path: Path, no_work: None, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "no" / "such"
    line = _one_line_refusal(capsys, COMMANDS[command](missing), str(tmp_path / "no"))
    assert "does not exist" in line
    assert not (tmp_path / "no").exists()


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_an_unwritable_folder_is_one_line_before_any_work(
        command: str, unwritable: Path, no_work: None, capsys: pytest.CaptureFixture[str]
) -> None:
    line = _one_line_refusal(capsys, COMMANDS[command](unwritable), str(unwritable))
    assert "not writable" in line or "cannot make" in line


def test_the_check_leaves_nothing_behind_and_lets_good_places_through(tmp_path: Path) -> None:
    from referee.outpaths import check_output_file, check_output_folder

    check_output_file(tmp_path / "r.json", "the report")
    check_output_folder(tmp_path / "new", "the clips")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new"]
    assert list((tmp_path / "new").iterdir()) == []


def test_the_demo_in_an_unwritable_folder_is_one_line(unwritable: Path, tmp_path: Path) -> None:
    """`kaisa referee` with no input writes ./kaisa-demo/: refused at once where it cannot."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "KAISA_JOURNAL": str(tmp_path / "j.sqlite")}
    done = subprocess.run([sys.executable, "-m", "referee.cli", "referee"], cwd=unwritable,
                          env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip("\n").splitlines()
    assert len(lines) == 1 and "kaisa-demo" in lines[0] and "Traceback" not in done.stderr
    assert done.stdout == ""


def test_a_report_that_cannot_be_written_does_not_stop_the_other(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 50: each output whole or not at all. The JSON report's disk fills up (its .tmp is
    /dev/full): the HTML report is still written, the failure is said, no .tmp is left."""
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full")
    report, page = tmp_path / "r.json", tmp_path / "r.html"
    (tmp_path / "r.json.tmp").symlink_to("/dev/full")
    code = main(["referee", str(demo_game_path()), "-o", str(report), "--html", str(page)])
    err = capsys.readouterr().err
    assert code == 2
    assert page.is_file() and "<html" in page.read_text().lower()
    assert not report.exists()
    assert not (tmp_path / "r.json.tmp").exists() and not (tmp_path / "r.json.tmp").is_symlink()
    failures = [x for x in err.splitlines() if x.startswith("kaisa:")]
    assert len(failures) == 1 and str(report) in failures[0] and "space" in failures[0]
    assert f"html report: {page}" in err
