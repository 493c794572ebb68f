"""Screenshots of the HTML match report in headless Chromium: at a phone's width (400 px), at a
desktop's (1280 px), and as printed on A4 (print CSS; a PDF too), to look at by eye.

    python benchmarks/report_screenshots.py [--report R.json] [-o DIR] [--players A,B]

Without ``--report`` it referees the demo match video first (about 25 s; a throwaway journal),
so the page has every part: stills, paths, the measured cloth colour. Needs Chromium, its
driver and selenium (``pip install -e ".[report-check]"``; Debian: ``apt-get install chromium
chromium-driver``). Prints the pages' widths: a page wider than its window scrolls sideways,
which a phone reader should never have to do.
"""

from __future__ import annotations

import argparse
import base64
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

WIDTHS = {"phone": 400, "desktop": 1280}
A4_CSS_PX = 794  # 210 mm at 96 px per inch


def demo_report(work: Path) -> dict[str, Any]:
    """The demo match refereed from its video, as the report dict ``kaisa referee`` writes."""
    from referee.app import RefereeJob, run_job

    data = ROOT / "referee" / "data"
    out = work / "demo_match.report.json"
    job = RefereeJob(source=ROOT / "sample_videos" / "demo_match.mp4",
                     journal=work / "journal.sqlite", start=data / "demo_match.start.json",
                     calls=data / "demo_match.calls.json", output=out)
    run_job(job)
    report: dict[str, Any] = json.loads(out.read_text())
    return report


def chrome() -> Any:
    """A headless Chromium driven by selenium (its driver found on PATH, nothing downloaded)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    driver_path = shutil.which("chromedriver")
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if driver_path is None or browser is None:
        raise SystemExit("chromium and chromedriver are needed (apt-get install chromium "
                         "chromium-driver)")
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                 "--disable-dev-shm-usage"):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(driver_path), options=options)


def shoot(driver: Any, page: Path, width: int, png: Path, print_media: bool = False
          ) -> dict[str, int]:
    """A full-page PNG of ``page`` at ``width`` CSS px; the page's own width and height."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": 900, "deviceScaleFactor": 1, "mobile": width < 600})
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia",
                           {"media": "print" if print_media else "screen"})
    driver.get(page.as_uri())
    time.sleep(0.3)
    size = driver.execute_script(
        "return {w: document.documentElement.scrollWidth, h: document.documentElement."
        "scrollHeight}")
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {
        "format": "png", "captureBeyondViewport": True,
        "clip": {"x": 0, "y": 0, "width": width, "height": size["h"], "scale": 1}})
    png.write_bytes(base64.b64decode(shot["data"]))
    return {"width": int(size["w"]), "height": int(size["h"])}


def print_pdf(driver: Any, page: Path, pdf: Path) -> int:
    """The page printed on A4 (its print CSS); the number of pages."""
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    driver.get(page.as_uri())
    time.sleep(0.3)
    out = driver.execute_cdp_cmd("Page.printToPDF", {
        "paperWidth": 8.27, "paperHeight": 11.69, "preferCSSPageSize": True,
        "printBackground": True})
    data = base64.b64decode(out["data"])
    pdf.write_bytes(data)
    return data.count(b"/Type /Page") - data.count(b"/Type /Pages")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--report", type=Path, help="a saved match report (default: referee "
                        "the demo video)")
    parser.add_argument("-o", "--out", type=Path, default=Path("/tmp/kaisa-report-shots"))
    parser.add_argument("--players", default="Anna,Boris",
                        help="two names, comma-separated (default: Anna,Boris)")
    args = parser.parse_args(argv)
    from referee.html_report import render_html

    args.out.mkdir(parents=True, exist_ok=True)
    if args.report:
        report = json.loads(args.report.read_text())
    else:
        with tempfile.TemporaryDirectory() as tmp:
            report = demo_report(Path(tmp))
        saved = args.out / "demo_match.report.json"
        saved.write_text(json.dumps(report), encoding="utf-8")
        print(f"{saved}: the demo's report (--report {saved} renders it again)")
    players = [n.strip() for n in args.players.split(",")]
    page = args.out / "report.html"
    page.write_text(render_html(report, players=players), encoding="utf-8")
    driver = chrome()
    try:
        for name, width in WIDTHS.items():
            png = args.out / f"report_{name}_{width}px.png"
            size = shoot(driver, page, width, png)
            wide = " (WIDER THAN THE WINDOW: scrolls sideways)" if size["width"] > width else ""
            print(f"{png}: {width} px window, page {size['width']} x {size['height']} px{wide}")
        png = args.out / "report_print_a4.png"
        size = shoot(driver, page, A4_CSS_PX, png, print_media=True)
        print(f"{png}: A4 width with the print CSS, page {size['width']} x {size['height']} px")
        pages = print_pdf(driver, page, args.out / "report_a4.pdf")
        print(f"{args.out / 'report_a4.pdf'}: {pages} A4 pages")
    finally:
        driver.quit()
    return 0


if __name__ == "__main__":
    sys.exit(main())
