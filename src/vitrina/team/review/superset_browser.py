"""Browser review of a dashboard published in Superset: what a reader sees there.

Playwright with Debian's chromium logs in through Superset's own login form, opens the
dashboard standalone, waits for every chart container, and reports console errors (the
look-ups of web fonts that an offline machine cannot reach are not counted), failed API
calls, alert texts such as "Data error", the charts drawn (an ECharts canvas or SVG with
size, a big number with its text) and a full-page screenshot.
"""

from __future__ import annotations

import contextlib
import re
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

from vitrina.team.review.browser import CHROMIUM, CHROMIUM_ARGS, VIEWPORT, chromium_problem

MAX_ITEMS = 20
# a font or a map tile from the internet: an offline machine cannot reach it, a reader can
OFFLINE_NOISE = re.compile(
    r"fonts\.(googleapis|gstatic)\.com|\.woff2?\b|\.ttf\b|net::ERR_NAME_NOT_RESOLVED"
)
PROBE = """() => {
  const out = {containers: [], drawn: [], drawnNames: [], failed: [], empty: [], alerts: []};
  for (const holder of document.querySelectorAll('[data-test-chart-id]')) {
    const id = holder.getAttribute('data-test-chart-id');
    const name = holder.getAttribute('data-test-chart-name') || '';
    out.containers.push(id);
    const canvas = [...holder.querySelectorAll('canvas, svg')].some(
      el => el.getBoundingClientRect().width > 20 && el.getBoundingClientRect().height > 20);
    const bigNumber = [...holder.querySelectorAll('.header-line, .big-number, [class*="BigNumber"]')]
      .some(el => el.textContent.trim().length > 0);
    const problem = holder.querySelector('[role="alert"], .alert, [data-test="error-message"]');
    if (problem) {
      out.alerts.push(`${name || id}: ${problem.textContent.trim().slice(0, 200)}`);
      out.failed.push(id);
    }
    if ((canvas || bigNumber) && !problem) { out.drawn.push(id); out.drawnNames.push(name || id); }
    else out.empty.push(name || id);
  }
  for (const el of document.querySelectorAll('[role="alert"], .ant-alert, .alert')) {
    const text = el.textContent.trim();
    if (text && !out.alerts.some(a => a.includes(text.slice(0, 60)))) out.alerts.push(text.slice(0, 200));
  }
  return out;
}"""  # noqa: E501


@dataclass
class SupersetReport:
    url: str = ""
    expected: int = 0
    containers: list[str] = field(default_factory=list)
    drawn: list[str] = field(default_factory=list)
    drawn_names: list[str] = field(default_factory=list)  # what the verdict says it saw
    settled: bool = False  # every container drew or showed its error before the screenshot
    empty: list[str] = field(default_factory=list)
    alerts: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    ignored_console: int = 0  # offline font look-ups, not counted
    failed_api: list[str] = field(default_factory=list)
    screenshot: Path | None = None
    error: str | None = None
    ms: float = 0.0

    @property
    def ok(self) -> bool:
        return (
            self.error is None
            and not self.alerts
            and not self.console_errors
            and not self.failed_api
            and len(self.drawn) == self.expected
        )


_LOGIN_ATTEMPTS = 5


def _login(page, url: str, username: str, password: str, timeout_ms: float) -> None:
    """Fill Superset's React login form and submit it.

    The form is drawn before React takes it over, and the takeover clears what was typed
    (seen on a loaded machine: the review then saw only the login page), so the page is
    left to settle and the values are checked before submitting, a bounded number of times.
    """
    page.goto(f"{url}/login/", wait_until="domcontentloaded", timeout=timeout_ms)
    user = page.locator('input[name="username"], #username').first
    secret = page.locator('input[name="password"], #password').first
    user.wait_for(state="visible", timeout=timeout_ms)
    for _attempt in range(_LOGIN_ATTEMPTS):
        # a page that keeps polling never idles: then go on after the wait
        with contextlib.suppress(Exception):
            page.wait_for_load_state("networkidle", timeout=min(timeout_ms, 15_000))
        user.fill(username)
        secret.fill(password)
        page.wait_for_timeout(300)
        if user.input_value() == username and secret.input_value() == password:
            break
    with page.expect_navigation(timeout=timeout_ms):
        secret.press("Enter")


def review_superset(
    url: str,
    dashboard_id: int,
    *,
    username: str,
    password: str,
    expected: int,
    screenshot: Path,
    timeout_s: float = 90.0,
) -> SupersetReport:
    """Log in, open the dashboard standalone, wait for ``expected`` charts, probe, screenshot."""
    problem = chromium_problem()
    if problem:
        return SupersetReport(error=problem, expected=expected)
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import sync_playwright

    report = SupersetReport(
        url=f"{url.rstrip('/')}/superset/dashboard/{dashboard_id}/?standalone=1", expected=expected
    )
    start = time.perf_counter()
    executable = CHROMIUM if Path(CHROMIUM).is_file() else shutil.which("chromium")
    timeout_ms = timeout_s * 1000
    origin = url.rstrip("/")
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=executable, args=CHROMIUM_ARGS, headless=True
            )
            try:
                page = browser.new_page(viewport=VIEWPORT, locale="en-US")
                state = {"watching": False}

                def on_console(message) -> None:
                    if message.type != "error" or not state["watching"]:
                        return
                    where = (message.location or {}).get("url", "")
                    if OFFLINE_NOISE.search(message.text) or OFFLINE_NOISE.search(where):
                        report.ignored_console += 1
                    elif len(report.console_errors) < MAX_ITEMS:
                        report.console_errors.append(message.text[:300])

                watched: set[object] = set()  # requests the dashboard page made

                def on_request(request) -> None:
                    # the dashboard's own calls; a page left behind (the welcome page after the
                    # login) has its calls aborted, which is no failure of the dashboard
                    referer = request.headers.get("referer") or ""
                    if state["watching"] and "/superset/dashboard/" in referer:
                        watched.add(request)

                def on_response(response) -> None:
                    if response.request not in watched or response.status < 400:
                        return
                    if (
                        response.url.startswith(f"{origin}/api/")
                        and len(report.failed_api) < MAX_ITEMS
                    ):
                        path = response.url[len(origin) :].split("?")[0]
                        report.failed_api.append(f"{path} (HTTP {response.status})")

                def on_failed(request) -> None:
                    if request not in watched or not request.url.startswith(f"{origin}/api/"):
                        return
                    if len(report.failed_api) < MAX_ITEMS:
                        path = request.url[len(origin) :].split("?")[0]
                        report.failed_api.append(f"{path} ({request.failure})")

                page.on("request", on_request)
                page.on("console", on_console)
                page.on(
                    "pageerror",
                    lambda e: (
                        report.console_errors.append(str(e)[:300]) if state["watching"] else None
                    ),
                )
                page.on("response", on_response)
                page.on("requestfailed", on_failed)
                _login(page, origin, username, password, timeout_ms)
                page.wait_for_load_state("load", timeout=timeout_ms)
                report.console_errors.clear()  # the login page's own noise is not the dashboard's
                report.ignored_console = 0
                state["watching"] = True
                page.goto(report.url, wait_until="domcontentloaded", timeout=timeout_ms)
                report.settled = _wait_for_charts(page, expected, timeout_s)
                probe = page.evaluate(PROBE)
                report.containers = probe["containers"]
                report.drawn = probe["drawn"]
                report.drawn_names = probe["drawnNames"]
                report.empty = probe["empty"]
                report.alerts = probe["alerts"][:MAX_ITEMS]
                screenshot.parent.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(screenshot), full_page=True)
                report.screenshot = screenshot
            finally:
                browser.close()
    except PlaywrightError as exc:
        report.error = f"the Superset review failed: {str(exc).splitlines()[0]}"
    report.ms = round((time.perf_counter() - start) * 1000, 1)
    return report


def _wait_for_charts(page, expected: int, timeout_s: float) -> bool:
    """Until every chart container has drawn or shows its error, or the time is up (bounded);
    True when settled. A container still empty is not settled: the screenshot would be blank
    (issue 31: a first screenshot taken before any chart drew, the verdict saying all drew)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        probe = page.evaluate(PROBE)
        settled = (
            len(probe["containers"]) >= expected
            and len(probe["drawn"]) + len(probe["failed"]) >= expected
            and not page.locator(".loading, [data-test='loading-indicator']").count()
        )
        if settled:
            page.wait_for_timeout(500)  # the last frame of an animation
            return True
        page.wait_for_timeout(500)
    return False
