"""The HTML report in a real browser (headless Chromium through selenium, the same driver as
benchmarks/report_screenshots.py): at 400 px nothing scrolls sideways and the diagram's names
are at least 10 px high; printed on A4 the shot cards are not cut. Skipped when Chromium, its
driver or selenium is absent (``pip install -e ".[report-check]"``)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from referee.cli import demo_game_path, main
from referee.html_report import render_html
from tests.benchmark_import import benchmark

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def browser():
    pytest.importorskip("selenium")
    if shutil.which("chromedriver") is None or shutil.which("chromium") is None:
        pytest.skip("chromium and chromedriver are not installed")
    driver = benchmark("report_screenshots").chrome()
    yield driver
    driver.quit()


@pytest.fixture()
def page(tmp_path: Path, monkeypatch) -> Path:
    monkeypatch.setenv("KAISA_JOURNAL", str(tmp_path / "j.sqlite"))
    out = tmp_path / "r.json"
    assert main(["referee", str(demo_game_path()), "-o", str(out)]) == 0
    page = tmp_path / "r.html"
    page.write_text(render_html(json.loads(out.read_text()), players=["Anna", "Boris"]))
    return page


def test_at_400_px_nothing_scrolls_sideways_and_the_labels_are_readable(browser, page, tmp_path):
    shoot = benchmark("report_screenshots").shoot
    size = shoot(browser, page, 400, tmp_path / "phone.png")
    assert size["width"] <= 400
    assert (tmp_path / "phone.png").stat().st_size > 10_000
    heights = browser.execute_script(
        "return Array.from(document.querySelectorAll("
        "'svg[aria-label=\"the table after the shot\"] text')).map("
        "function(t){return t.getBoundingClientRect().height})")
    assert heights and min(heights) >= 10.0


def test_printed_on_a4_each_shot_card_stays_whole(browser, page, tmp_path):
    bench = benchmark("report_screenshots")
    size = bench.shoot(browser, page, bench.A4_CSS_PX, tmp_path / "a4.png", print_media=True)
    assert size["width"] <= bench.A4_CSS_PX
    pages = bench.print_pdf(browser, page, tmp_path / "a4.pdf")
    cards = page.read_text().count("<article class=shot")
    assert 1 <= pages <= cards  # (at least one whole card a page)
