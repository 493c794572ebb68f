"""Issue 51 (a new user's first hour) and issue 50's outputs: sample clips referee right on their
own, progress on stderr, the CLI's manners, a closed stdout, a video that ends early."""

from __future__ import annotations

import io
import json
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import referee.pipeline
import referee.progress
import vision.tracking
from referee.app import RefereeJob, start_and_calls, start_contradictions
from referee.cli import demo_game_path, main
from referee.gamefile import load_game
from referee.progress import Progress
from rules import GameState, RuleOptions, ShotFacts

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_videos"
SHOT_LINE = re.compile(r"^\s*\d+:\d+\.\d+\s+shot\s+(\d+)\s", re.M)


@pytest.fixture(autouse=True)
def journal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "journal.sqlite"
    monkeypatch.setenv("KAISA_JOURNAL", str(path))
    return path


def _env(journal: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "KAISA_JOURNAL": str(journal)}


# --- item 1: sample clips referee right on their own ---------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("clip", ["carom_2", "pot_HR"])
def test_a_sample_clip_alone_gives_its_labelled_verdicts(clip: str, tmp_path: Path,
                                                         journal: Path) -> None:
    """No --start, no --calls: the labels beside the clip give both (carom_2 was "wrong cue
    ball, penalty 2" from the assumed opening; pot_HR found no shot)."""
    labels = json.loads((SAMPLES / f"{clip}.labels.json").read_text())
    report = tmp_path / "r.json"
    done = subprocess.run([sys.executable, "-m", "referee.cli", "referee",
                           str(SAMPLES / f"{clip}.mp4"), "-o", str(report)], cwd=tmp_path,
                          env=_env(journal), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert f"{clip}.labels.json" in done.stderr  # where the start state came from, said once
    assert "warning" not in done.stderr
    doc = json.loads(report.read_text())
    got = [s["verdict"] for s in doc["shots"]]
    want = [s["verdict"] for s in labels["shots"]]
    assert [(v["points"], v["fouls"], v["score"]) for v in got] == \
        [(v["points"], v["fouls"], v["score"]) for v in want]
    # progress on stderr, as plain lines (not a terminal): frame N of M, percent, time left
    assert "\r" not in done.stderr
    frames = labels["frame_count"]
    assert re.search(rf"tracking.*frame {frames} of {frames} \(100 %\).*left", done.stderr)
    assert re.search(r"calibration.*frame \d+ of \d+ \(100 %\)", done.stderr)


def test_start_accepts_a_labels_file_with_its_calls(tmp_path: Path) -> None:
    video = tmp_path / "copy.mp4"  # (no labels beside it)
    video.write_bytes(b"")
    labels = json.loads((SAMPLES / "demo_match.labels.json").read_text())
    given = start_and_calls(RefereeJob(video, tmp_path / "j.sqlite",
                                       start=SAMPLES / "demo_match.labels.json"))
    assert not given.start_assumed
    assert given.start.to_dict() == GameState.from_dict(labels["start"]).to_dict()
    # (so `kaisa referee sample_videos/demo_match.mp4` starts as bare `kaisa referee` does)
    shipped_start = json.loads((ROOT / "referee" / "data" / "demo_match.start.json").read_text())
    assert given.start.to_dict() == GameState.from_dict(shipped_start).to_dict()
    shipped = json.loads((ROOT / "referee" / "data" / "demo_match.calls.json").read_text())
    assert given.calls == shipped["calls"]  # the labels' calls are the demo's calls


def test_a_clip_with_labels_beside_it_takes_them_and_one_without_assumes_the_opening(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    beside = start_and_calls(RefereeJob(SAMPLES / "carom_2.mp4", tmp_path / "j.sqlite"))
    assert not beside.start_assumed and beside.calls == [{"shot": 0, "ball": "R",
                                                           "pocket": "FL"}]
    assert not beside.start.opening
    assert "carom_2.labels.json" in capsys.readouterr().err
    video = tmp_path / "carom_2.mp4"
    video.write_bytes(b"")
    alone = start_and_calls(RefereeJob(video, tmp_path / "j.sqlite"))
    assert alone.start_assumed and alone.start.opening and alone.calls == []
    # --calls given alone: the labels beside are not read (the start is the opening)
    calls = tmp_path / "calls.json"
    calls.write_text('{"calls": []}')
    given = start_and_calls(RefereeJob(SAMPLES / "carom_2.mp4", tmp_path / "j.sqlite",
                                       calls=calls))
    assert given.start_assumed


def test_balls_seen_against_the_assumed_opening_are_named() -> None:
    labels = json.loads((SAMPLES / "carom_2.labels.json").read_text())
    shot = ShotFacts.from_dict({**labels["shots"][0], "extra": {
        "start_positions": labels["start"]["positions"]}}, "shots[0]")
    opening = GameState(options=RuleOptions())
    wrong = start_contradictions(opening, shot)
    assert any(w.startswith("R1 ") and "mm from where" in w for w in wrong)
    assert "W2 on the table, not in hand" in wrong
    assert not any(w.startswith("W1") for w in wrong)  # the shooter places his own white
    assert start_contradictions(GameState.from_dict(labels["start"]), shot) == []


def test_one_warning_names_start_when_the_first_strike_contradicts_the_opening(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A GAME-like camera record (the same loop refereeing a video): the first shot's measured
    balls against the assumed opening give one warning, which names --start."""
    from dataclasses import replace

    from referee.app import referee_game
    from referee.journal import Journal

    labels = json.loads((SAMPLES / "carom_2.labels.json").read_text())
    shot = ShotFacts.from_dict({**labels["shots"][0], "extra": {
        "start_positions": labels["start"]["positions"]}}, "shots[0]")
    game = load_game(demo_game_path())
    game = replace(game, path=tmp_path / "clip.mp4", start=GameState(options=RuleOptions()),
                   shots=(shot,), from_camera=True, start_assumed=True)
    (tmp_path / "clip.mp4").write_bytes(b"a clip")
    with Journal(tmp_path / "j.sqlite") as journal:
        referee_game(game, journal, out=io.StringIO())
    warnings = [x for x in capsys.readouterr().err.splitlines() if "warning" in x]
    assert len(warnings) == 1 and "--start" in warnings[0] and "opening" in warnings[0]


# --- item 3: progress ----------------------------------------------------------------------------
def test_progress_off_a_terminal_is_plain_lines_with_the_total_percent_and_time_left(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(referee.progress, "LOG_EVERY_S", 0.0)
    stream = io.StringIO()
    with Progress("clip.mp4: tracking", 40, stream=stream) as bar:
        for k in range(1, 41):
            bar.to(k)
    text = stream.getvalue()
    assert "\r" not in text
    lines = text.splitlines()
    assert len(lines) >= 3 and len(set(lines)) == len(lines)
    assert lines[-1].startswith("clip.mp4: tracking: frame 40 of 40 (100 %)")
    assert all(re.search(r"frame \d+ of 40 \(\s*\d+ %\), \S+ left, \S+ elapsed$", x)
               for x in lines)


def test_progress_on_a_terminal_is_one_line_redrawn() -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

        def fileno(self) -> int:
            raise OSError("no file")

    stream = Terminal()
    with Progress("clip.mp4: tracking", 3, stream=stream) as bar:
        bar.to(3)
    text = stream.getvalue()
    assert text.count("\n") == 1 and "\r" in text
    assert "clip.mp4: tracking: frame 3 of 3 (100 %)" in text.split("\r")[-1]


def test_synth_rendering_shows_its_progress(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    import synth.make

    def make_clip(name: str, scenario: str, seed: int, out: Path, progress: Any) -> Any:
        for k in range(1, 31):
            progress(k, 30)
        return {"video": out / f"{name}.mp4"}

    monkeypatch.setattr(synth.make, "make_clip", make_clip)
    assert main(["synth", "--scenario", "carom_2", "-o", str(tmp_path)]) == 0
    err = capsys.readouterr().err
    assert re.search(r"carom_2: rendering: frame 30 of 30 \(100 %\)", err) and "\r" not in err


# --- item 6: the CLI's manners -------------------------------------------------------------------
def test_bare_kaisa_prints_help_and_does_no_work(tmp_path: Path, journal: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "referee.cli"], cwd=tmp_path,
                          env=_env(journal), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0
    assert done.stdout.startswith("usage: kaisa") and "referee" in done.stdout
    assert list(tmp_path.iterdir()) == []  # no ./kaisa-demo/, no journal


def test_synth_needs_an_output_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["synth"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "-o DIR" in err and "--committed" in err
    assert list(tmp_path.iterdir()) == []


def test_score_and_journal_load_no_video_library(tmp_path: Path, journal: Path) -> None:
    """`kaisa score` and `kaisa journal` start fast: no cv2, PyAV or numba imported."""
    assert main(["referee", str(demo_game_path())]) == 0
    script = (
        "import sys\n"
        "from referee.cli import main\n"
        f"assert main(['score', {str(demo_game_path())!r}]) == 0\n"
        "for argv in (['journal', 'list'], ['journal', 'show'],\n"
        f"             ['journal', 'report', '-o', {str(tmp_path / 'r.json')!r},\n"
        f"              '--html', {str(tmp_path / 'r.html')!r}]):\n"
        "    assert main(argv) == 0, argv\n"
        "print('LOADED', sorted(m for m in ('cv2', 'av', 'numba', 'scipy', 'tqdm')\n"
        "                       if m in sys.modules), file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=_env(journal),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "LOADED []" in done.stderr
    assert (tmp_path / "r.json").is_file() and (tmp_path / "r.html").is_file()


def test_journal_list_has_a_header_and_plural_shots(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["referee", str(demo_game_path())]) == 0
    capsys.readouterr()
    assert main(["journal", "list"]) == 0
    header, row = capsys.readouterr().out.splitlines()
    assert header.split() == ["id", "started", "status", "score", "source"]
    assert row.split()[2:4] == ["finished", "58:60"]


def test_a_clip_refereed_to_its_end_is_not_called_unfinished_on_the_next_run(
        journal: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A GAME record (or a clip) refereed to its last shot without a winner is "ended":
    running it again starts a new match without the "use --resume" notice (there is nothing to
    resume); a run that stopped early still gets the notice."""
    game = ROOT / "tests" / "golden" / "respot_fallbacks.game.json"
    assert main(["referee", str(game)]) == 0
    assert main(["referee", str(game)]) == 0
    err = capsys.readouterr().err
    assert "not finished" not in err
    with sqlite3.connect(journal) as db:
        assert db.execute("SELECT status FROM matches ORDER BY id").fetchall() == \
            [("ended",), ("ended",)]
    assert main(["referee", str(game), "--resume"]) == 0  # ended: nothing judged again
    out, err = capsys.readouterr()
    assert not SHOT_LINE.search(out) and "match 2 of this input was refereed to its end" in err
    with sqlite3.connect(journal) as db:
        db.execute("UPDATE matches SET status = 'running' WHERE id = 2")  # (as a killed run)
    assert main(["referee", str(game)]) == 0
    assert "match 2 of this input was not finished; use --resume" in capsys.readouterr().err


def test_help_and_detect_say_what_they_mean(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["--help"], ["referee", "--help"], ["synth", "--help"], ["detect", "--help"]):
        with pytest.raises(SystemExit):
            main(argv)
        text = capsys.readouterr().out
        assert "extra" not in text and "when PyAV is installed" not in text
        if argv[0] == "detect":
            assert "score, 0 to 1" in " ".join(text.split())


def test_track_names_the_balls_from_start(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    seen: dict[str, Any] = {}

    def fake_track(video: Path, calibration: Any, table: Any, **kwargs: Any) -> Any:
        seen.update(kwargs)
        yield from ()

    monkeypatch.setattr(vision.tracking, "track_video", fake_track)
    labels = json.loads((SAMPLES / "carom_2.labels.json").read_text())
    start = tmp_path / "start.json"
    start.write_text(json.dumps({**labels["start"], "shooter": 2}))
    out = tmp_path / "t.csv"
    assert main(["track", str(SAMPLES / "carom_2.mp4"), "--calibration",
                 str(SAMPLES / "carom_2.labels.json"), "--start", str(start), "-o",
                 str(out)]) == 0
    assert seen["cue_ball"] == "W2"
    assert seen["start_positions"] == {b: tuple(xy) for b, xy in
                                       labels["start"]["positions"].items()}
    assert out.read_text().startswith("frame,ball")
    assert not (tmp_path / "t.csv.part").exists()
    assert "0 frames" in capsys.readouterr().err


# --- issue 50, item 5: outputs --------------------------------------------------------------------
def test_a_closed_stdout_stops_the_run_cleanly_and_the_match_resumes(tmp_path: Path,
                                                                     journal: Path) -> None:
    game = tmp_path / "demo.game.json"
    game.write_bytes(demo_game_path().read_bytes())
    proc = subprocess.Popen([sys.executable, "-m", "referee.cli", "referee", str(game),
                             "--pace", "0.3"], cwd=ROOT, env=_env(journal),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stderr is not None
    while not SHOT_LINE.match(proc.stdout.readline()):
        pass
    proc.stdout.close()  # (`| head`: the reader is gone)
    err = proc.stderr.read()
    proc.stderr.close()
    assert proc.wait(timeout=60) == 141
    assert "Traceback" not in err and "Exception ignored" not in err
    lines = err.strip("\n").splitlines()
    assert len(lines) == 1 and "--resume" in lines[0]
    with sqlite3.connect(journal) as db:
        status, lease = db.execute("SELECT status, lease_pid FROM matches").fetchone()
        judged = db.execute("SELECT COUNT(*) FROM entries").fetchone()[0]
    assert (status, lease) == ("running", None) and 1 <= judged < 12
    done = subprocess.run([sys.executable, "-m", "referee.cli", "referee", str(game),
                           "--resume"], cwd=ROOT, env=_env(journal), capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert len(SHOT_LINE.findall(done.stdout)) == 12 - judged
    assert "58:60" in done.stdout


def test_a_video_that_ends_early_says_where(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """A clip cut at 60 % (its index at the front, so what is left decodes): the frames end
    at 69 of the 139 its file announces; the tracking pass says so and reports where."""
    import av

    whole = tmp_path / "whole.mp4"
    with av.open(str(SAMPLES / "carom_2.mp4")) as src, \
            av.open(str(whole), "w", options={"movflags": "faststart"}) as dst:
        stream = dst.add_stream_from_template(src.streams.video[0])
        for packet in src.demux(src.streams.video[0]):
            if packet.dts is not None:
                packet.stream = stream
                dst.mux(packet)
    cut = tmp_path / "cut.mp4"
    cut.write_bytes(whole.read_bytes()[:whole.stat().st_size * 6 // 10])
    from video import FileSource

    decoded = sum(1 for _ in FileSource(cut).frames())
    assert 0 < decoded < 139

    def fake_track(video: Path, *args: Any, **kwargs: Any) -> Any:
        for k in range(decoded if video == cut else 139):
            yield SimpleNamespace(frame=k, balls={})

    monkeypatch.setattr(referee.pipeline, "track_video", fake_track)
    ended: dict[str, Any] = {}
    list(referee.pipeline.tracked_frames(cut, None, None, None, ended=ended))  # type: ignore
    assert ended == {"frames_read": decoded, "frames_announced": 139,
                     "t_s": round(decoded / 30, 3)}
    warning = capsys.readouterr().err.strip().splitlines()[-1]
    assert f"ends at frame {decoded}" in warning and "of the 139" in warning
    ended.clear()
    list(referee.pipeline.tracked_frames(whole, None, None, None, ended=ended))  # type: ignore
    assert ended == {}  # the whole clip: nothing said
    assert "ends at frame" not in capsys.readouterr().err


def test_no_shot_found_from_an_assumed_opening_names_start(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """pot_HR from the assumed opening found no shot, and said nothing: now it names --start."""
    from dataclasses import replace

    from referee.app import _referee_and_report, timed

    (tmp_path / "clip.mp4").write_bytes(b"a clip")
    game = replace(load_game(demo_game_path()), path=tmp_path / "clip.mp4", shots=(),
                   start=GameState(options=RuleOptions()), from_camera=True,
                   start_assumed=True)
    job = RefereeJob(tmp_path / "clip.mp4", tmp_path / "j.sqlite")
    assert _referee_and_report(job, game, None, timed(), io.StringIO()) == ()
    warnings = [x for x in capsys.readouterr().err.splitlines() if "warning" in x]
    assert len(warnings) == 1 and "no shot was found" in warnings[0] and "--start" in warnings[0]
    assert _referee_and_report(job, replace(game, start_assumed=False), None, timed(),
                               io.StringIO()) == ()
    assert "warning" not in capsys.readouterr().err


def test_eval_prints_a_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "--source", "tracks", str(SAMPLES / "carom_2.labels.json"),
                 str(SAMPLES / "pot_HR.labels.json")]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].split()[:5] == ["clip", "shots", "verdicts", "events", "missed"]
    assert lines[1].split()[:3] == ["carom_2", "1/1", "1/1"]
    assert lines[2].split()[:3] == ["pot_HR", "1/1", "1/1"]
    assert "(missed, false)" not in out
    event_header = next(x for x in lines if x.startswith("event"))
    assert event_header.split()[:4] == ["event", "precision", "recall", "found"]
    assert re.search(r"^contact\s+1\.000\s+1\.000\s+\d+\s+0\s+0\s", out, re.M)
    assert "verdicts equal to the labels 2 of 2 (100.0%)" in out


def test_the_calibration_shown_reads_the_same_frames(capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    """The referee's calibration pass (shown as progress) samples exactly the frames
    calibration.sample_frames does: the table found is the same."""
    import numpy as np

    from calibration import sample_frames

    clip = SAMPLES / "carom_2.mp4"
    plain, shown = sample_frames(clip, 9), referee.pipeline.sample_frames_shown(clip, 9)
    assert [i for i, _ in plain] == [i for i, _ in shown]
    assert all(np.array_equal(a, b) for (_, a), (_, b) in zip(plain, shown, strict=True))
    assert "calibration, sample frames: frame 9 of 9 (100 %)" in capsys.readouterr().err


def test_eval_calibrate_counts_a_refused_table_as_nothing_seen_and_goes_on(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # a copy of a clip's labels whose video shows no table (an all-dark picture)
    import cv2
    import numpy as np

    dark = tmp_path / "dark.mp4"
    writer = cv2.VideoWriter(str(dark), cv2.VideoWriter_fourcc(*"mp4v"), 30, (320, 180))
    for _ in range(10):
        writer.write(np.full((180, 320, 3), 20, np.uint8))
    writer.release()
    doc = json.loads((SAMPLES / "carom_2.labels.json").read_text())
    doc["video"] = dark.name
    labels = tmp_path / "dark_carom.labels.json"
    labels.write_text(json.dumps(doc))
    (tmp_path / "dark_carom.tracks.csv").write_text(
        (SAMPLES / "carom_2.tracks.csv").read_text())
    metrics = tmp_path / "m.json"
    assert main(["eval", "--calibrate", str(labels), str(SAMPLES / "pot_HR.labels.json"),
                 "--json", str(metrics)]) == 0
    captured = capsys.readouterr()
    assert re.search(r"kaisa eval: dark_carom: the table was refused \(no table found",
                     captured.err)
    lines = captured.out.splitlines()
    assert lines[1].split()[:3] == ["dark_carom", "0/1", "0/1"]
    assert lines[2].split()[:3] == ["pot_HR", "1/1", "1/1"]
    assert "calibration: 1 of 2 tables found; refused: dark_carom" in captured.out
    assert json.loads(metrics.read_text())["tables_refused"] == ["dark_carom"]
