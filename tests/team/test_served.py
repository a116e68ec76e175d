"""`vitrina serve` serves published dashboards: the page and its assets to anyone, the data only
with a token; nothing outside the published folder is reachable."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from vitrina.server import ServeOptions, create_app
from vitrina.server.store import Store
from vitrina.server.tokens import create_token

SMALL = "title: Карты 2025\nperiod: 2025 год\nkpis:\n  - name: Выпущено карт\n    by: тип карты\n"


@pytest.fixture
def served(run_build, demo_db: Path, make_service):
    _, report = run_build(SMALL)
    assert report.status == "done", report.blocked
    service = make_service()
    app = create_app(service.settings, ServeOptions(), service=service)
    with TestClient(app, raise_server_exceptions=False) as client:
        yield client, report.build.id, service.settings


def _token(settings) -> str:
    store = Store.from_settings(settings)
    try:
        return create_token(store, "dashboards")
    finally:
        store.close()


def test_page_and_assets_without_data_data_with_a_token(served) -> None:
    client, build_id, settings = served
    page = client.get(f"/dashboards/build-{build_id}/")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert 'id="dashboard-data"' not in page.text and "Выпущено карт" in page.text
    assert client.get(f"/dashboards/build-{build_id}", follow_redirects=False).status_code == 308
    for name in ("chart.umd.min.js", "dashboard.js", "dashboard.css"):
        assert client.get(f"/dashboards/build-{build_id}/assets/{name}").status_code == 200
    assert client.get(f"/dashboards/build-{build_id}/dashboard.json").status_code == 401
    headers = {"Authorization": f"Bearer {_token(settings)}"}
    data = client.get(f"/dashboards/build-{build_id}/dashboard.json", headers=headers)
    assert data.status_code == 200 and data.json()["elements"][0]["kind"] == "card"
    assert client.get(f"/api/dashboards/build-{build_id}", headers=headers).status_code == 200


@pytest.mark.parametrize(
    "path",
    [
        "/dashboards/build-999/",
        "/dashboards/..%2f..%2fstate.sqlite/",
        "/dashboards/build-1/assets/..%2f..%2fdashboard.json",
        "/dashboards/build-1/assets/index.html",
        "/dashboards/x/assets/dashboard.js",
    ],
)
def test_nothing_else_is_served(served, path: str) -> None:
    client, _, _ = served
    assert client.get(path).status_code == 404


def test_the_served_page_draws_with_the_readers_token(run_build, make_service) -> None:
    """In chromium: the page from `vitrina serve` fetches its data with the stored token and
    draws."""
    import socket
    import threading
    import time

    import uvicorn
    from playwright.sync_api import sync_playwright

    from vitrina.team.review.browser import CHROMIUM, CHROMIUM_ARGS, chromium_problem

    if chromium_problem():
        pytest.skip(chromium_problem())
    _, report = run_build(SMALL)
    service = make_service()
    app = create_app(service.settings, ServeOptions(), service=service)
    token = _token(service.settings)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    errors: list[str] = []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page()
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.add_init_script(f"localStorage.setItem('vitrina.token', {token!r})")
            page.goto(f"http://127.0.0.1:{port}/dashboards/build-{report.build.id}/")
            page.wait_for_selector("body[data-ready='1']", state="attached", timeout=15000)
            drawn = page.evaluate(
                "() => document.querySelectorAll('canvas[data-drawn=\"1\"]').length"
            )
            card = page.inner_text("[data-card]")
            browser.close()
    finally:
        server.should_exit = True
        thread.join(timeout=10)
    assert errors == [] and drawn == 1 and card.strip()
