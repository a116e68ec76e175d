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
from typing import Any

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
VIEWPORT = {"width": 1366, "height": 900}
# the widths a reader opens a dashboard at: a desktop and a phone (issue 31: a review at
# desktop width only reported no cut titles while a phone cut five)
VIEWPORTS = ({"width": 1440, "height": 900}, {"width": 390, "height": 844})
PROBE = """() => {
  const out = {charts: [], undrawn: [], cut: [], cutWhere: [], clipped: [], cutChartLabels: 0,
               errors: []};
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
      const cell = el.closest('[data-element]');
      out.cutWhere.push(cell ? cell.dataset.element : 'page');
    }
  }
  // x labels drawn outside their canvas (Chart.js label items against the canvas width)
  for (const canvas of document.querySelectorAll('canvas[data-chart]')) {
    const chart = window.Chart && window.Chart.getChart(canvas);
    const scale = chart && chart.scales && chart.scales.x;
    if (!scale || typeof scale.getLabelItems !== 'function') continue;
    try {
      const ctx = chart.ctx, width = chart.width;
      for (const item of scale.getLabelItems()) {
        ctx.save(); ctx.font = item.options.font.string;
        const lines = [].concat(item.label);
        const w = Math.max(...lines.map((t) => ctx.measureText(String(t)).width));
        ctx.restore();
        const [x] = item.options.translation, angle = Math.abs(item.options.rotation || 0);
        const span = angle ? w * Math.cos(angle) : w / 2;
        const left = angle ? x - span : x - span, right = angle ? x : x + span;
        if (left < -1 || right > width + 1) {
          out.clipped.push(canvas.dataset.chart + ': ' + String(lines[0]).slice(0, 40));
        }
      }
    } catch (e) { /* an older Chart.js: no label items to measure */ }
  }
  const state = window.vitrinaDashboard || {};
  out.cutChartLabels = state.cutLabels || 0;
  out.errors = state.errors || [];
  return out;
}"""  # noqa: E501


@dataclass
class WidthReport:
    """What a reader sees at one window width: the cut labels (with their cells), the chart
    labels drawn outside their canvas, and the screenshot."""

    width: int
    cut_labels: list[str] = field(default_factory=list)
    cut_where: list[str] = field(default_factory=list)  # the element id of each cut label
    clipped_labels: list[str] = field(default_factory=list)
    screenshot: Path | None = None


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
    widths: list[WidthReport] = field(default_factory=list)  # 1440 and 390 px

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


def _beside(screenshot: Path, width: int) -> Path:
    return screenshot.with_name(f"{screenshot.stem}-{width}{screenshot.suffix}")


def _at_width(page: Any, viewport: dict[str, int], shot: Path) -> WidthReport:
    """Resize the window, let Chart.js redraw (two animation frames), probe, screenshot."""
    page.set_viewport_size(viewport)
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    probe = page.evaluate(PROBE)
    shot.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(shot), full_page=True)
    return WidthReport(
        width=viewport["width"],
        cut_labels=probe["cut"],
        cut_where=probe["cutWhere"],
        clipped_labels=probe["clipped"],
        screenshot=shot,
    )


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
                page = browser.new_page(viewport=VIEWPORTS[0])

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
                for n, viewport in enumerate(VIEWPORTS):
                    shot = screenshot if n == 0 else _beside(screenshot, viewport["width"])
                    report.widths.append(_at_width(page, viewport, shot))
                probe = page.evaluate(PROBE)
                report.charts, report.undrawn = probe["charts"], probe["undrawn"]
                report.cut_labels = sorted({c for w in report.widths for c in w.cut_labels})
                report.cut_chart_labels = int(probe["cutChartLabels"])
                report.screenshot = report.widths[0].screenshot
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
