"""Screenshots of the live pages in headless Chromium, to look at by eye: the table display at
1280x720 (a TV) and the operator page at a phone's size (412x915), over a live folder written as
the engine writes it (the demo match part-way: a red to put back, one ball placed, one shot
flagged by the camera).

    python benchmarks/live_screenshots.py [-o docs]

Needs the `[live]` and `[report-check]` extras, Chromium and its driver (Debian: chromium,
chromium-driver).
"""

from __future__ import annotations

import argparse
import base64
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DISPLAY = (1280, 720)
PHONE = (412, 915)


def live_folder(folder: Path) -> Any:
    """A live folder part-way through the demo match, with a ball to put back."""
    from live.files import LiveFiles, PlacementMark, write_still
    from tests.live.web_helpers import record_shots, start_match, status_after, write

    files = LiveFiles(folder)
    match_id = start_match(files)
    verdicts = record_shots(files, match_id, 0, 4,
                            extra={1: {"conflicts": ["W2 was seen struck while in hand"]}})
    last = verdicts[-1]
    marks = (PlacementMark("R1", (887.5, 887.5), (935.0, 860.0), 54.8, False),)
    write(files, status_after(match_id, last, placement=marks, flagged=("shot1",),
                              next_call={"ball": "R", "pocket": "FL"}, updated_unix=time.time()))
    write_still(files, demo_still())
    return files


def demo_still(at_s: float = 12.0) -> bytes:
    """A frame of the demo match video as the engine's still (JPEG, 960 px wide)."""
    import cv2

    video = cv2.VideoCapture(str(ROOT / "sample_videos" / "demo_match.mp4"))
    video.set(cv2.CAP_PROP_POS_MSEC, at_s * 1000)
    ok, frame = video.read()
    video.release()
    if not ok:
        raise SystemExit("cannot read sample_videos/demo_match.mp4")
    h, w = frame.shape[:2]
    frame = cv2.resize(frame, (960, round(h * 960 / w)), interpolation=cv2.INTER_AREA)
    return bytes(cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 85])[1])


def screenshot(driver: Any, url: str, size: tuple[int, int], png: Path, mobile: bool,
               whole: bool = False) -> None:
    """``url`` at ``size`` (CSS px); ``whole``: the whole page's height, not the window's."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": size[0], "height": size[1], "deviceScaleFactor": 1, "mobile": mobile})
    driver.get(url)
    time.sleep(1.5)
    height = driver.execute_script("return document.documentElement.scrollHeight") if whole \
        else size[1]
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {
        "format": "png", "captureBeyondViewport": whole,
        "clip": {"x": 0, "y": 0, "width": size[0], "height": height, "scale": 1}})
    png.write_bytes(base64.b64decode(shot["data"]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-o", "--out", type=Path, default=ROOT / "docs")
    args = parser.parse_args(argv)
    from report_screenshots import chrome  # type: ignore[import-not-found]

    from live.web import make_app
    from tests.live.web_helpers import Served

    with tempfile.TemporaryDirectory() as work:
        files = live_folder(Path(work))
        served = Served(make_app(files))
        driver = chrome()
        try:
            screenshot(driver, served.url + "/display", DISPLAY, args.out / "live_display.png",
                       False)
            screenshot(driver, served.url + "/operator", PHONE, args.out / "live_operator.png",
                       True, whole=True)
        finally:
            driver.quit()
            served.stop()
    print(f"wrote {args.out / 'live_display.png'} and {args.out / 'live_operator.png'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
