"""The live pages in a real browser (headless Chromium through selenium, as the HTML report's
checks drive it), served by uvicorn on a loopback port, over a live folder written as the
engine writes it: the display shows the score after a shot, a call tapped on the operator page
is appended as the next shot's call, a ball's placement mark turns green once the status says
it is placed. Skipped when Chromium, its driver, selenium or the `[live]` extra is absent."""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")
pytest.importorskip("segno")
pytest.importorskip("selenium")

from live.files import LiveFiles, PlacementMark, read_commands
from live.web import make_app
from tests.benchmark_import import benchmark
from tests.live.web_helpers import (
    Served,
    record_shots,
    start_match,
    status_after,
    write,
)

pytestmark = pytest.mark.slow
WAIT_S = 10.0


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if shutil.which("chromedriver") is None or shutil.which("chromium") is None:
        pytest.skip("chromium and chromedriver are not installed")
    driver = benchmark("report_screenshots").chrome()
    yield driver
    driver.quit()


@pytest.fixture
def files(tmp_path: Path) -> LiveFiles:
    return LiveFiles(tmp_path / "live")


@pytest.fixture
def served(files: LiveFiles) -> Iterator[Served]:
    server = Served(make_app(files))
    yield server
    server.stop()


def until(check: Callable[[], object], what: str) -> object:
    """``check()`` once it is truthy (tried for WAIT_S), else a failure saying ``what``."""
    deadline = time.monotonic() + WAIT_S
    while True:
        try:
            value = check()
        except Exception:  # (an element not there yet)
            value = None
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"waited {WAIT_S:g} s for {what}")
        time.sleep(0.1)


def tap(browser: Any, css: str) -> None:
    """Click the element, found again if the page redrew it meanwhile."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By

    for _ in range(5):
        try:
            browser.find_element(By.CSS_SELECTOR, css).click()
            return
        except StaleElementReferenceException:
            time.sleep(0.1)
    pytest.fail(f"could not tap {css}")


def text(browser: Any, css: str) -> str:
    """The element's text, found again if the page redrew it meanwhile (the pages redraw as
    the status file changes: between finding an element and reading it, it may be replaced)."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By

    for _ in range(5):
        try:
            return str(browser.find_element(By.CSS_SELECTOR, css).text)
        except StaleElementReferenceException:
            time.sleep(0.1)
    pytest.fail(f"could not read {css}")


def test_the_display_shows_the_score_after_a_shot(browser, files, served):
    match_id = start_match(files)
    (first,) = record_shots(files, match_id, 0, 1)
    write(files, status_after(match_id, first, updated_unix=time.time()))
    browser.set_window_size(1280, 720)
    browser.get(served.url + "/display")
    until(lambda: text(browser, "#p1 .pts") == "40" and text(browser, "#p2 .pts") == "45",
          "the score before the shot (40:45)")
    assert "Anna" in text(browser, "#p1 .name") and "Boris to play" in text(browser, "#toplay")

    (shot,) = record_shots(files, match_id, 1, 1)  # the engine judges the next shot...
    write(files, status_after(match_id, shot, updated_unix=time.time()))
    (pot,) = record_shots(files, match_id, 2, 1)  # ...and the next: the yellow in ML, +12
    write(files, status_after(match_id, pot, updated_unix=time.time()))
    until(lambda: text(browser, "#p1 .pts") == "52", "the score after the yellow (52)")
    assert "yellow in ML: +12" in text(browser, "#latest")
    assert "12 points" in text(browser, "#why")

    browser.refresh()  # a reload catches up from the journal: each verdict once
    until(lambda: text(browser, "#p1 .pts") == "52", "the score after a reload")
    until(lambda: "yellow in ML" in text(browser, "#latest"), "the last verdict after a reload")
    seqs = browser.execute_script(
        "return [...document.querySelectorAll('#latest[data-seq], #history li')]"
        ".map(e => e.dataset.seq)")
    assert sorted(seqs) == ["0", "1", "2"]


def test_a_call_tapped_on_the_operator_page_is_the_next_shots_call(browser, files, served):
    from selenium.webdriver.common.by import By

    match_id = start_match(files)
    write(files, status_after(match_id, None, updated_unix=time.time()))
    browser.set_window_size(412, 915)
    browser.get(served.url + "/operator")
    until(lambda: browser.find_element(By.CSS_SELECTOR, "g.pocket[data-pocket=FL]"),
          "the table's pockets")
    tap(browser, ".balls button[data-ball=R]")
    tap(browser, "g.pocket[data-pocket=FL] circle")
    until(lambda: [c for c in read_commands(files) if c.kind == "call"],
          "the call in commands.jsonl")
    (call,) = read_commands(files)
    assert (call.kind, dict(call.payload)) == ("call", {"ball": "R", "pocket": "FL"})
    assert "waiting for the referee" in text(browser, "#callstate")
    # the engine takes it as the next shot's call and says so in its status
    write(files, status_after(match_id, None, next_call={"ball": "R", "pocket": "FL"},
                              commands_applied=1, updated_unix=time.time()))
    until(lambda: "Called: R in FL" in text(browser, "#callstate"), "the call held")

    # changed from the keyboard (a presenter clicker, a numeric keypad): 3 = Y, 9 = FR; each
    # press changes the call at once, the last one stands
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(browser).send_keys("39").perform()
    until(lambda: dict(read_commands(files)[-1].payload) == {"ball": "Y", "pocket": "FR"},
          "the call changed to Y in FR")


def test_a_ball_turns_green_once_it_is_placed(browser, files, served):
    from selenium.webdriver.common.by import By

    match_id = start_match(files)
    verdicts = record_shots(files, match_id, 0, 4)  # the last pots R1: it goes on point 1
    mark = PlacementMark("R1", (887.5, 887.5))
    write(files, status_after(match_id, verdicts[-1], placement=(mark,),
                              updated_unix=time.time()))
    browser.set_window_size(412, 915)
    browser.get(served.url + "/operator")
    item = "#place li[data-ball=R1]"
    until(lambda: "bad" in browser.find_element(By.CSS_SELECTOR, item).get_attribute("class"),
          "R1 red: not placed")
    assert "not seen" in text(browser, item) and "point 1" in text(browser, item)

    off = PlacementMark("R1", (887.5, 887.5), (912.0, 880.0), 25.6, False)
    write(files, status_after(match_id, verdicts[-1], placement=(off,),
                              updated_unix=time.time()))
    until(lambda: "26 mm off" in text(browser, item), "R1 seen 26 mm off")
    placed = PlacementMark("R1", (887.5, 887.5), (889.0, 886.0), 2.1, True)
    write(files, status_after(match_id, verdicts[-1], placement=(placed,),
                              updated_unix=time.time()))
    until(lambda: "ok" in browser.find_element(By.CSS_SELECTOR, item).get_attribute("class"),
          "R1 green: placed")
    border = browser.find_element(By.CSS_SELECTOR, item).value_of_css_property(
        "border-top-color")
    assert border in ("rgb(25, 195, 125)", "rgba(25, 195, 125, 1)")  # green
    assert browser.find_elements(By.CSS_SELECTOR, "svg.table g.mark.ok[data-ball=R1]")


def test_a_flagged_shot_is_confirmed_with_the_clicker(browser, files, served):
    match_id = start_match(files)
    verdicts = record_shots(files, match_id, 0, 2,
                            extra={1: {"conflicts": ["W2 was seen struck while in hand"]}})
    write(files, status_after(match_id, verdicts[-1], flagged=("shot1",),
                              updated_unix=time.time()))
    browser.set_window_size(412, 915)
    browser.get(served.url + "/operator")
    until(lambda: "W2 was seen struck" in text(browser, "#flags"), "the flagged shot")
    assert "kaisa journal override" in text(browser, "#flagbox")
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    ActionChains(browser).send_keys(Keys.PAGE_DOWN).perform()
    until(lambda: read_commands(files), "the confirm command")
    (command,) = read_commands(files)
    assert (command.kind, dict(command.payload)) == ("confirm", {"shot": "shot1"})


def test_the_display_says_when_the_camera_reconnects(browser, files, served):
    match_id = start_match(files)
    status = status_after(match_id, None, camera="reconnecting", updated_unix=time.time())
    write(files, type(status)(**{**status.__dict__, "camera_message": "no frame for 5 s",
                                 "reconnects": 2}))
    browser.set_window_size(1280, 720)
    browser.get(served.url + "/display")
    until(lambda: "reconnecting" in text(browser, "#camera"), "the camera's state")
    assert "no frame for 5 s" in text(browser, "#camera") and "2 reconnects" in text(
        browser, "#camera")


def test_a_page_that_lost_the_server_catches_up_when_it_is_back(browser, files, served):
    match_id = start_match(files)
    verdicts = record_shots(files, match_id, 0, 2)
    write(files, status_after(match_id, verdicts[-1], updated_unix=time.time()))
    browser.set_window_size(1280, 720)
    browser.get(served.url + "/display")
    until(lambda: "Shot 2" in text(browser, "#latest"), "shot 2 shown")
    served.stop()
    until(lambda: "disconnected" in browser.find_element(
        "css selector", "body").get_attribute("class"), "the page saying it lost the server")
    verdicts = record_shots(files, match_id, 2, 2)  # two shots while the page was cut off
    write(files, status_after(match_id, verdicts[-1], updated_unix=time.time()))
    again = Served(make_app(files), port=served.port)
    try:
        until(lambda: "Shot 4" in text(browser, "#latest"), "shot 4 shown after the reconnect")
        assert "disconnected" not in browser.find_element(
            "css selector", "body").get_attribute("class")
        seqs = browser.execute_script(
            "return [...document.querySelectorAll('#latest[data-seq], #history li')]"
            ".map(e => e.dataset.seq)")
        assert sorted(seqs) == ["0", "1", "2", "3"]  # each verdict once
        assert text(browser, "#p1 .pts") == "55"
    finally:
        again.stop()
