"""The annotated video (`kaisa referee VIDEO --annotated F.mp4`): the overlay is drawn where the
balls are, the scoreboard follows the verdicts, a video that ends early still gives a video."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration import Calibration
from referee.annotate import SCOREBOARD_BOX, OverlayPlan, annotate_video
from referee.cli import demo_game_path, main
from referee.evaluate import true_track_rows
from referee.labels import load_labels
from rules.table import preset

SAMPLES = Path(__file__).resolve().parents[2] / "sample_videos"
CLIP = SAMPLES / "pot_MR.mp4"
needs_clip = pytest.mark.skipif(not CLIP.exists(), reason="sample clips not made")


def frames_of(path: Path, keep: set[int] | None = None) -> tuple[int, dict[int, np.ndarray]]:
    """The frame count, and the frames whose index is in ``keep`` (all when None)."""
    capture = cv2.VideoCapture(str(path))
    frames, n = {}, 0
    while True:
        ok, image = capture.read()
        if not ok:
            break
        if keep is None or n in keep:
            frames[n] = image
        n += 1
    capture.release()
    return n, frames


def changed(a: np.ndarray, b: np.ndarray, threshold: int = 60) -> int:
    """Pixels that differ by more than ``threshold`` in some channel (codec noise is < 20)."""
    return int((np.abs(a.astype(int) - b.astype(int)).max(axis=2) > threshold).sum())


def patch(image: np.ndarray, xy: tuple[float, float], half: int) -> np.ndarray:
    x, y = round(xy[0]), round(xy[1])
    return image[max(y - half, 0):y + half, max(x - half, 0):x + half]


@pytest.fixture(scope="module")
def annotated(tmp_path_factory: pytest.TempPathFactory):
    """pot_MR with its true tracks and calibration and the labelled verdict as the report."""
    labels = load_labels(SAMPLES / "pot_MR.labels.json")
    calibration = Calibration.from_dict(labels.doc["calibration"])
    out = tmp_path_factory.mktemp("annotated") / "pot_MR.annotated.mp4"
    rows = true_track_rows(labels)
    result = annotate_video(CLIP, out, labels.doc, calibration, rows)
    shot = labels.doc["shots"][0]
    keep = {0, 10, shot["strike_frame"] - 10, shot["rest_frame"] + 5}
    return labels, calibration, rows, result, frames_of(CLIP, keep), frames_of(out, keep)


@needs_clip
def test_the_annotated_video_has_the_input_s_frames_and_size(annotated):
    _, _, _, result, (n_source, source), (n_drawn, drawn) = annotated
    assert result.path.is_file() and not result.ended_early
    assert result.frames == n_drawn == n_source == 192
    assert drawn[0].shape == source[0].shape == (720, 1280, 3)
    assert "H.264" in result.encoder or "mp4v" in result.encoder


@needs_clip
def test_each_visible_ball_is_marked_where_the_calibration_puts_it(annotated):
    labels, calibration, rows, _, (_, source), (_, drawn) = annotated
    frame = 10  # before the strike: every ball at rest and visible
    here = [(b, x, y) for f, b, x, y, v in rows if f == frame and v]
    assert len(here) == 5
    r_px = labels.table.ball_radius_mm / calibration.mm_per_px()
    for ball, x, y in here:
        (px,) = calibration.table_to_image([[x, y]])
        near = changed(patch(drawn[frame], px, round(2 * r_px)),
                       patch(source[frame], px, round(2 * r_px)))
        assert near > 30, f"{ball}: no ring or id drawn at {px}"
    # Open cloth far from every ball, trail and text is left as it was (codec noise only).
    empty = calibration.table_to_image([[600.0, 300.0]])[0]
    assert changed(patch(drawn[frame], empty, 25), patch(source[frame], empty, 25)) == 0


@needs_clip
def test_the_scoreboard_changes_with_the_verdict(annotated):
    labels, _, _, _, (_, source), (_, drawn) = annotated
    shot = labels.doc["shots"][0]
    x0, y0, x1, y1 = SCOREBOARD_BOX

    def board(i: int) -> np.ndarray:
        return drawn[i][y0:y1, x0:x1]

    before, after = shot["strike_frame"] - 10, shot["rest_frame"] + 5
    assert changed(board(0), board(before)) == 0  # nothing happened yet: the same board
    assert changed(board(before), board(after)) > 50  # "P1 0" -> "P1 3", "shot 1" -> "shot 2"
    assert changed(board(after), source[after][y0:y1, x0:x1]) > 500  # really drawn


@needs_clip
def test_a_video_that_ends_early_still_gives_a_video(tmp_path: Path, annotated):
    """A recording cut off mid-file: the container promises 60 frames, fewer decode."""
    av = pytest.importorskip("av")
    labels, calibration, rows, *_ = annotated
    cut = tmp_path / "cut.mp4"
    container = av.open(str(cut), "w", options={"movflags": "faststart"})
    stream = container.add_stream("libx264", rate=30)
    stream.width, stream.height, stream.pix_fmt = 1280, 720, "yuv420p"
    stream.options = {"preset": "ultrafast"}
    for image in frames_of(CLIP, set(range(60)))[1].values():
        for packet in stream.encode(av.VideoFrame.from_ndarray(image, format="bgr24")):
            container.mux(packet)
    for packet in stream.encode():
        container.mux(packet)
    container.close()
    data = cut.read_bytes()
    cut.write_bytes(data[: len(data) * 6 // 10])
    result = annotate_video(cut, tmp_path / "out.mp4", labels.doc, calibration, rows)
    assert 0 < result.frames < 60 and result.ended_early
    assert "ended early" in result.log_line()
    assert frames_of(tmp_path / "out.mp4", set())[0] == result.frames


def test_the_plan_follows_the_match_over_time():
    """Scoreboard, verdict window and event marks, from data alone (no video)."""
    table = preset("russian-12ft")
    w, h = 1280, 720
    calibration = Calibration.from_corners([[100, 650], [100, 70], [1180, 650], [1180, 70]],
                                           table, (w, h))
    verdict = json.loads((SAMPLES / "pot_MR.labels.json").read_text())["shots"][0]["verdict"]
    second = {**verdict, "score": {"1": 3, "2": 0}, "respots": [], "turn_passes": True,
              "next_shooter": 2, "scored_ball": None, "pocket": None, "points": 0}
    report = {"start": {"score": {"1": 0, "2": 0}, "shooter": 1},
              "shots": [{"strike_frame": 30, "rest_frame": 100, "verdict": verdict,
                         "events": [{"t": 1.0, "frame": 30, "type": "strike", "ball": "W1"},
                                    {"t": 1.5, "frame": 45, "type": "contact",
                                     "balls": ["W1", "R1"]},
                                    {"t": 2.0, "frame": 60, "type": "pocket", "ball": "R1",
                                     "pocket": "MR"}]},
                        {"correction": {"score": {"1": 3, "2": 0}, "reason": "test"}},
                        {"strike_frame": 150, "rest_frame": 200, "verdict": second,
                         "events": [{"t": 5.0, "frame": 150, "type": "strike", "ball": "W1"}]}]}
    rows = [(f, "W1", 1000.0 + 10 * f, 900.0, True) for f in range(0, 60)]
    rows += [(f, "R1", 1775.0, 500.0 - 10 * max(f - 45, 0), True) for f in range(0, 60)]
    rows += [(f, "W1", 3000.0, 900.0, True) for f in range(60, 90)]  # put back: a jump
    plan = OverlayPlan(report, calibration, rows, 30.0)

    board = plan.scoreboard(10)
    assert (board.score, board.shooter, board.shot_number, board.in_play) == ((0, 0), 1, 1, False)
    assert plan.scoreboard(50).in_play
    board = plan.scoreboard(120)
    assert (board.score, board.shot_number, board.in_play) == ((3, 0), 2, False)
    assert plan.scoreboard(210).shooter == 2
    assert plan.decided(99) is None and plan.decided(100) is not None
    assert plan.decided(149) is not None and plan.decided(150) is None  # until the next strike
    assert [m.text for m, _ in plan.marks_at(61)] == ["W1-R1", "POT R1 MR"]
    assert plan.marks_at(61)[1][0].xy_px == pytest.approx(plan.pockets_px(61)["MR"])
    assert [m.kind for m, _ in plan.marks_at(30 + 30)] == ["contact", "pocket"]  # a second each
    (ball, spot, xy), = plan.respots_px(plan.shots[0], 100)
    assert (ball, spot) == ("R1", "point1")
    assert xy == pytest.approx(tuple(calibration.table_to_image([[887.5, 887.5]])[0]))
    # The trail breaks where a ball was put back, and keeps about a second.
    (pieces,) = [p for b, p in plan.trails_at(70).items() if b == "W1"]
    assert len(pieces) == 2 and pieces[-1][1].max() == 10
    assert max(len(p) for p, _ in plan.trails_at(50)["W1"]) == 30


def test_after_the_camera_moved_the_overlay_is_drawn_with_the_new_calibration():
    """The drift monitor recalibrated at frame 20 (the camera moved 9 px right): from then on
    the balls, pockets and respot marks are drawn where the new calibration puts them."""
    table = preset("russian-12ft")
    corners = [[100, 650], [100, 70], [1180, 650], [1180, 70]]
    first = Calibration.from_corners(corners, table, (1280, 720))
    moved = Calibration.from_corners([[x + 9, y] for x, y in corners], table, (1280, 720))
    rows = [(f, "Y", 1775.0, 887.5, True) for f in range(40)]
    plan = OverlayPlan({"shots": []}, first, rows, 30.0, recalibrated=[(20, moved)])
    at = {f: plan.balls_at(f)[0][1:3] for f in (19, 20)}
    assert at[19] == pytest.approx(tuple(first.table_to_image([[1775.0, 887.5]])[0]))
    assert at[20] == pytest.approx(tuple(moved.table_to_image([[1775.0, 887.5]])[0]))
    assert at[20][0] - at[19][0] == pytest.approx(9.0, abs=0.01)
    assert plan.pockets_px(25)["MR"][0] - plan.pockets_px(5)["MR"][0] == pytest.approx(9.0,
                                                                                       abs=0.01)
    assert plan.calibration_at(19) is first and plan.calibration_at(39) is moved


def test_annotated_needs_a_video(tmp_path: Path, monkeypatch, capsys):
    monkeypatch.setenv("KAISA_JOURNAL", str(tmp_path / "j.sqlite"))
    assert main(["referee", str(demo_game_path()), "--annotated", str(tmp_path / "a.mp4")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--annotated needs a video" in err


@needs_clip
def test_kaisa_referee_writes_the_annotated_video(tmp_path: Path, monkeypatch, capsys):
    """The whole command: the tracker's rows of the run itself are drawn (no second tracking)."""
    monkeypatch.setenv("KAISA_JOURNAL", str(tmp_path / "j.sqlite"))
    labels = json.loads((SAMPLES / "pot_MR.labels.json").read_text())
    start, calib = tmp_path / "start.json", tmp_path / "calib.json"
    start.write_text(json.dumps(labels["start"]))
    calib.write_text(json.dumps(labels["calibration"]))
    out, page, video = tmp_path / "r.json", tmp_path / "r.html", tmp_path / "a.mp4"
    assert main(["referee", str(CLIP), "--start", str(start), "--calibration", str(calib),
                 "-o", str(out), "--html", str(page), "--annotated", str(video)]) == 0
    err = capsys.readouterr().err
    assert "annotated video: " in err and "tracking again" not in err
    assert frames_of(video, set())[0] == 192
    report = json.loads(out.read_text())
    assert report["annotated_video"] == str(video) and "annotated_s" in report["timings"]
    assert 'href="a.mp4"' in page.read_text()


@needs_clip
def test_without_pyav_opencv_writes_the_video(tmp_path: Path, monkeypatch, annotated):
    import video.writer

    labels, calibration, rows, *_ = annotated
    monkeypatch.setattr(video.writer, "_pyav", lambda: None)
    result = annotate_video(CLIP, tmp_path / "a.mp4", labels.doc, calibration, rows)
    assert "mp4v" in result.encoder and "PyAV is not installed" in result.log_line()
    assert frames_of(tmp_path / "a.mp4", set())[0] == result.frames == 192
    assert not list(tmp_path.glob("*.part*"))  # the side file was moved into place


# --- drawn from the frames the referee reads ----------------------------------------------------
def draw_as_read(labels, calibration, rows, out: Path, hold_s: float,
                 settled_from: int) -> tuple:
    """pot_MR drawn by DrawnAsRead: the frames come as a reader gives them, the rows as the
    tracker would, and the shot (with its verdict) once frame ``settled_from`` has been read,
    as the referee hands it on; before that only the frames before the strike are settled."""
    from referee.annotate import DrawnAsRead
    from video import read_ahead_frames

    (shot,) = labels.doc["shots"]
    plan = OverlayPlan({"start": labels.doc["start"]}, calibration, (), 30.0)
    drawing = DrawnAsRead(out, plan, hold_s=hold_s)
    by_frame: dict[int, list] = {}
    for row in rows:
        by_frame.setdefault(row[0], []).append(row)
    for index, image, _ in read_ahead_frames(CLIP):
        drawing.seen(index, image)
        plan.add_rows(by_frame.get(index, []))
        if index == settled_from:
            plan.add_shot(shot)
        drawing.release(index + 1 if index >= settled_from else shot["strike_frame"] - 3)
    return drawing.finish(), shot


@needs_clip
def test_drawn_as_read_is_the_same_video_as_drawn_afterwards(annotated, tmp_path: Path):
    # the shot is judged some frames after its rest, as the shot stream gives it out (here
    # 0.5 s: the clip ends 0.6 s after it): every frame is held until then, and drawn as if
    # the whole report had been known
    labels, calibration, rows, result, _, (_, after) = annotated
    rest = labels.doc["shots"][0]["rest_frame"]
    live, _ = draw_as_read(labels, calibration, rows, tmp_path / "live.mp4", hold_s=8.0,
                           settled_from=rest + 15)
    assert live.frames == result.frames == 192 and live.drawn_early == 0
    n, drawn = frames_of(live.path, set(after))
    assert n == 192
    for k, image in after.items():
        assert changed(drawn[k], image, threshold=8) == 0, k


@needs_clip
def test_a_shot_held_longer_than_the_hold_is_drawn_before_its_verdict(annotated,
                                                                      tmp_path: Path):
    # one second held at most: the shot's first frames go out before it is judged, without
    # its marks; the frames held stay bounded
    labels, calibration, rows, result, _, _ = annotated
    (shot,) = labels.doc["shots"]
    rest = shot["rest_frame"]
    live, _ = draw_as_read(labels, calibration, rows, tmp_path / "held.mp4", hold_s=1.0,
                           settled_from=rest + 15)
    strike = shot["strike_frame"]
    assert live.frames == 192
    # (from the first frame not settled to the one pushed out as the shot's own was read)
    assert live.drawn_early == (rest + 15 - 30) - (strike - 3) + 1
    _, drawn = frames_of(live.path, {strike + 2})
    _, source = frames_of(CLIP, {strike + 2})
    _, full = frames_of(result.path, {strike + 2})
    # the strike's mark (a white ring around the cue ball) is on the video drawn afterwards,
    # not on the one whose frames went out first
    assert changed(full[strike + 2], source[strike + 2]) > changed(drawn[strike + 2],
                                                                   source[strike + 2])


@needs_clip
def test_the_referee_draws_the_annotated_video_without_reading_the_video_again(
        tmp_path: Path, monkeypatch):
    import referee.annotate

    def no_second_reading(*args: object, **kwargs: object) -> None:
        raise AssertionError("the video was read a second time")

    monkeypatch.setattr(referee.annotate, "read_ahead_frames", no_second_reading)
    monkeypatch.setenv("KAISA_JOURNAL", str(tmp_path / "j.sqlite"))
    labels = json.loads((SAMPLES / "pot_MR.labels.json").read_text())
    start = tmp_path / "start.json"
    start.write_text(json.dumps(labels["start"]))
    out, report = tmp_path / "a.mp4", tmp_path / "r.json"
    assert main(["referee", str(CLIP), "--start", str(start), "--annotated", str(out),
                 "-o", str(report)]) == 0
    doc = json.loads(report.read_text())
    assert doc["annotated_video"] == str(out) and doc["annotated_early_frames"] == 0
    n, drawn = frames_of(out, {doc["shots"][0]["rest_frame"] + 5})
    assert n == 192
    _, source = frames_of(CLIP, set(drawn))
    (k,) = drawn
    assert changed(drawn[k], source[k]) > 500  # balls, scoreboard and verdict drawn
    assert not list(tmp_path.glob("*.part*"))
