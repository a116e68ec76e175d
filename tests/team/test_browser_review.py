"""The browser review must fail a broken page: a console error, a CDN request, an undrawn chart,
a cut label. A check that cannot fail is no check."""

from __future__ import annotations

from pathlib import Path

import pytest

from vitrina.team.publish import DashboardBundle, DashboardElement, render_html
from vitrina.team.review.browser import chromium_problem, review_dashboard

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
