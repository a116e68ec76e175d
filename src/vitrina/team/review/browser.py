"""Browser review: Playwright with Debian's chromium opens the dashboard and reports what a
reader would see: console errors, failed requests (any request to another host is blocked
and counted), charts drawn (a Chart.js instance with painted pixels), labels cut, and a
full-page screenshot.

The dashboard folder is served on 127.0.0.1 by a throw-away HTTP server for the review,
so the page loads exactly as a static host would serve it.
"""

from __future__ import annotations

import functools
import http.server
import shutil
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
VIEWPORT = {"width": 1366, "height": 900}
PROBE = """() => {
  const out = {charts: [], undrawn: [], cut: [], cutChartLabels: 0, errors: []};
  for (const canvas of document.querySelectorAll('canvas[data-chart]')) {
    const id = canvas.dataset.chart;
    out.charts.push(id);
    const chart = window.Chart && window.Chart.getChart(canvas);
    let painted = false;
    if (chart && canvas.width && canvas.height) {
      const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
      for (let i = 3; i < pixels.length; i += 16) { if (pixels[i] !== 0) { painted = true; break; } }
    }
    if (!chart || !painted || canvas.dataset.drawn !== '1') out.undrawn.push(id);
  }
  for (const el of document.querySelectorAll('.label')) {
    if (el.offsetParent === null) continue;
    if (el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 2) {
      out.cut.push(el.textContent.trim().slice(0, 80));
    }
  }
  const state = window.vitrinaDashboard || {};
  out.cutChartLabels = state.cutLabels || 0;
  out.errors = state.errors || [];
  return out;
}"""  # noqa: E501


@dataclass
class BrowserReport:
    url: str = ""
    console_errors: list[str] = field(default_factory=list)
    failed_requests: list[str] = field(default_factory=list)
    foreign_requests: list[str] = field(default_factory=list)
    charts: list[str] = field(default_factory=list)
    undrawn: list[str] = field(default_factory=list)
    cut_labels: list[str] = field(default_factory=list)
    cut_chart_labels: int = 0
    screenshot: Path | None = None
    error: str | None = None  # the review itself could not run
    ms: float = 0.0

    @property
    def drawn(self) -> int:
        return len(self.charts) - len(self.undrawn)


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        return


@contextmanager
def serve_folder(folder: Path) -> Iterator[str]:
    """The folder over HTTP on a free loopback port, for the duration of the block."""
    handler = functools.partial(_Quiet, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def chromium_problem() -> str | None:
    """Why the browser review cannot run here, or None."""
    if not Path(CHROMIUM).is_file() and shutil.which("chromium") is None:
        return (
            "chromium is not installed: `apt-get install chromium` (Debian) runs the browser review"
        )
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return (
            "Playwright is not installed: `pip install playwright` (the chromium of the "
            "system is used)"
        )
    return None


def review_url(
    url: str, screenshot: Path, *, origin: str, timeout_s: float = 20.0
) -> BrowserReport:
    """Open ``url``, wait for every chart, probe the page, save a full-page screenshot."""
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import sync_playwright

    report = BrowserReport(url=url)
    start = time.perf_counter()
    executable = CHROMIUM if Path(CHROMIUM).is_file() else shutil.which("chromium")
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=executable, args=CHROMIUM_ARGS, headless=True
            )
            try:
                page = browser.new_page(viewport=VIEWPORT)

                def guard_route(route) -> None:
                    if route.request.url.startswith(origin):
                        route.continue_()
                    else:
                        report.foreign_requests.append(route.request.url)
                        route.abort()

                page.route("**/*", guard_route)
                page.on(
                    "console",
                    lambda m: report.console_errors.append(m.text) if m.type == "error" else None,
                )
                page.on("pageerror", lambda e: report.console_errors.append(str(e)))
                page.on(
                    "requestfailed",
                    lambda r: report.failed_requests.append(f"{r.url} ({r.failure})"),
                )
                page.on(
                    "response",
                    lambda r: (
                        report.failed_requests.append(f"{r.url} (HTTP {r.status})")
                        if r.status >= 400
                        else None
                    ),
                )
                page.goto(url, wait_until="load", timeout=timeout_s * 1000)
                try:
                    page.wait_for_selector(
                        "body[data-ready='1']", timeout=timeout_s * 1000, state="attached"
                    )
                except PlaywrightError:
                    report.console_errors.append(
                        f"the charts were not all drawn within {timeout_s:g} s"
                    )
                probe = page.evaluate(PROBE)
                report.charts, report.undrawn = probe["charts"], probe["undrawn"]
                report.cut_labels, report.cut_chart_labels = (
                    probe["cut"],
                    int(probe["cutChartLabels"]),
                )
                screenshot.parent.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(screenshot), full_page=True)
                report.screenshot = screenshot
            finally:
                browser.close()
    except PlaywrightError as exc:
        report.error = f"the browser review failed: {str(exc).splitlines()[0]}"
    report.ms = round((time.perf_counter() - start) * 1000, 1)
    return report


def review_dashboard(
    folder: Path, screenshot: Path, *, page: str = "index.html", timeout_s: float = 20.0
) -> BrowserReport:
    """Serve a dashboard folder on loopback and review its page in chromium."""
    problem = chromium_problem()
    if problem:
        return BrowserReport(error=problem)
    with serve_folder(folder) as origin:
        return review_url(f"{origin}/{page}", screenshot, origin=origin, timeout_s=timeout_s)
