"""The browser review must fail a broken page: a console error, a CDN request, an undrawn chart,
a cut label. A check that cannot fail is no check."""

from __future__ import annotations

from pathlib import Path

import pytest

from vitrina.team.publish import DashboardBundle, DashboardElement, render_html
from vitrina.team.review.browser import chromium_problem, review_dashboard
from vitrina.team.review.checklist import width_findings

pytestmark = pytest.mark.skipif(bool(chromium_problem()), reason=chromium_problem() or "")
LINE = {
    "type": "line",
    "data": {"labels": ["январь", "февраль"], "datasets": [{"label": "x", "data": [1, 2]}]},
    "options": {},
}


def bundle(**overrides) -> DashboardBundle:
    chart = DashboardElement(
        id="c",
        uuid="u1",
        kind="chart",
        kpi="k",
        view="v",
        title="Платежи",
        chart_kind="line",
        spec=overrides.get("spec", LINE),
        x=0,
        y=1,
        w=6,
        h=4,
    )
    card = DashboardElement(
        id="k",
        uuid="u2",
        kind="card",
        kpi="k",
        view="v",
        title=overrides.get("card", "Сумма"),
        chart_kind="kpi",
        spec={"type": "kpi", "data": {"items": [{"label": "x", "value": "12"}]}},
        x=0,
        y=0,
        w=int(overrides.get("w", 3)),
        h=1,
    )
    return DashboardBundle(id="t", uuid="t", title="Тест", language="ru", elements=[card, chart])


def write(folder: Path, files: dict[str, bytes]) -> Path:
    for name, data in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    return folder


def test_a_good_page_passes(tmp_path: Path) -> None:
    report = review_dashboard(write(tmp_path / "d", render_html(bundle())), tmp_path / "s.png")
    assert report.error is None and report.console_errors == [] and report.failed_requests == []
    assert report.charts == ["c"] and report.undrawn == [] and report.cut_labels == []
    assert report.screenshot.read_bytes()[:4] == b"\x89PNG"


def test_a_broken_chart_a_cdn_and_a_cut_label_are_caught(tmp_path: Path) -> None:
    files = render_html(
        bundle(
            spec={"type": "no-such-chart", "data": {}},
            card="Очень длинное название карточки KPI, которое не влезет",
        )
    )
    page = (
        files["index.html"]
        .decode()
        .replace(
            '<script src="assets/dashboard.js"></script>',
            '<script src="https://cdn.jsdelivr.net/npm/chart.js"></script><script '
            'src="assets/dashboard.js"></script>',
        )
    )
    files["index.html"] = page.encode()
    report = review_dashboard(write(tmp_path / "d", files), tmp_path / "s.png", timeout_s=3)
    # the CDN script never loads: the page's own CSP blocks it (counted as a failed request and a
    # console error); had it slipped past the CSP, the review's route would have blocked it
    assert any(
        r.startswith("https://cdn.jsdelivr.net/npm/chart.js")
        for r in report.failed_requests + report.foreign_requests
    )
    assert any("cdn.jsdelivr.net" in e for e in report.console_errors)
    assert report.undrawn == ["c"]  # a chart object that paints nothing is not a drawn chart
    assert any(label.startswith("Очень длинное") for label in report.cut_labels)


def test_a_missing_chartjs_is_a_failed_request_and_nothing_drawn(tmp_path: Path) -> None:
    files = render_html(bundle())
    del files["assets/chart.umd.min.js"]
    report = review_dashboard(write(tmp_path / "d", files), tmp_path / "s.png", timeout_s=3)
    assert any("chart.umd.min.js" in r for r in report.failed_requests)
    assert report.undrawn == ["c"] and any(
        "Chart.js did not load" in e for e in report.console_errors
    )


def test_both_widths_are_measured_and_shot(tmp_path: Path) -> None:
    """A good page: nothing cut at 1440 or 390 px (titles wrap on a phone), two screenshots."""
    report = review_dashboard(write(tmp_path / "d", render_html(bundle())), tmp_path / "s.png")
    assert [w.width for w in report.widths] == [1440, 390]
    assert all(w.cut_labels == [] and w.clipped_labels == [] for w in report.widths)
    shots = [w.screenshot for w in report.widths]
    assert shots == [tmp_path / "s.png", tmp_path / "s-390.png"]
    assert all(s is not None and s.read_bytes()[:4] == b"\x89PNG" for s in shots)
    assert width_findings(report.widths, "ru") == []


def test_a_value_cut_on_a_phone_only_is_found_at_390(tmp_path: Path) -> None:
    """A card value that fits a desktop cell but not a phone: the 1440 px review alone saw
    nothing (issue 31), the 390 px one names the cell."""
    files = render_html(bundle(w=12))
    page = files["index.html"].decode()
    files["index.html"] = page.replace(
        ">12</div>", ">1 234 567 890 123 456 789 012,00 ₽</div>"
    ).encode()
    report = review_dashboard(write(tmp_path / "d", files), tmp_path / "s.png")
    desktop, phone = report.widths
    assert desktop.cut_labels == [] and phone.cut_where == ["k"], report.widths
    [finding] = width_findings(report.widths, "ru")
    assert finding.code == "RVW-WEB-CUT" and "при ширине 390 px" in finding.message


SUPERSET_LIKE = """<!doctype html><html><body>
<div data-test-chart-id="1" data-test-chart-name="Revenue"></div>
<div data-test-chart-id="2" data-test-chart-name="Orders"></div>
<div data-test-chart-id="3" data-test-chart-name="Priority"></div>
<script>
function draw(id) {
  const c = document.createElement('canvas'); c.width = 200; c.height = 100;
  c.style.width = '200px'; c.style.height = '100px';
  document.querySelector(`[data-test-chart-id="${id}"]`).appendChild(c);
}
setTimeout(() => draw(1), 300); setTimeout(() => draw(2), 900);
NEVER || setTimeout(() => draw(3), 1500);
</script></body></html>"""


@pytest.mark.parametrize("never", [False, True])
def test_the_superset_wait_lasts_until_every_container_drew(tmp_path: Path, never: bool) -> None:
    """Empty containers are not 'settled': the screenshot waits for all three charts, and a
    chart that never draws ends the wait at its bound, reported as not settled."""
    from playwright.sync_api import sync_playwright

    from vitrina.team.review.browser import CHROMIUM, CHROMIUM_ARGS
    from vitrina.team.review.superset_browser import PROBE, _wait_for_charts

    html = tmp_path / "s.html"
    html.write_text(SUPERSET_LIKE.replace("NEVER", "true" if never else "false"), "utf-8")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            page.goto(html.as_uri())
            settled = _wait_for_charts(page, 3, timeout_s=4)
            probe = page.evaluate(PROBE)
        finally:
            browser.close()
    assert settled is (not never)
    assert probe["drawnNames"] == (
        ["Revenue", "Orders"] if never else ["Revenue", "Orders", "Priority"]
    )
