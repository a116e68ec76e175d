"""The build board in the web app: the API behind the token (columns by status, a task's
comments with parsed blocks, reviews, screenshots, the diff) and the page in chromium."""

from __future__ import annotations

import os
import socket
import threading
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from vitrina.server import ServeOptions, create_app
from vitrina.server.assets import AXE_FILE
from vitrina.server.store import Store
from vitrina.server.tokens import create_token
from vitrina.team import board_url

SMALL = "title: Карты 2025\nperiod: 2025 год\nkpis:\n  - name: Выпущено карт\n    by: тип карты\n"


@pytest.fixture
def served(run_build, make_service):
    home = Path(os.environ["VITRINA_HOME"])
    _, report = run_build(SMALL, board=board_url(None, home), browser=True)
    assert report.status == "done", report.blocked
    service = make_service()
    app = create_app(service.settings, ServeOptions(), service=service)
    store = Store.from_settings(service.settings)
    token = create_token(store, "board")
    store.close()
    with TestClient(app, raise_server_exceptions=False) as client:
        yield client, app, report, token


def test_the_board_api_needs_a_token_and_shows_columns_tasks_and_screenshots(served) -> None:
    client, _app, report, token = served
    assert client.get("/api/board/builds").status_code == 401
    auth = {"Authorization": f"Bearer {token}"}
    builds = client.get("/api/board/builds", headers=auth).json()["builds"]
    assert [b["id"] for b in builds] == [report.build.id]
    board = client.get(f"/api/board/builds/{report.build.id}", headers=auth).json()
    done = board["columns"]["done"]
    assert [t["step"] for t in done] == [
        "scoping",
        "dataset",
        "presentation",
        "data",
        "charts",
        "dashboard",
    ]
    assert all(t["reviews"] and all(r["verdict"] for r in t["reviews"]) for t in done)
    dashboard = done[-1]
    review_id = dashboard["reviews"][0]["id"]
    page = client.get(f"/api/board/tasks/{review_id}", headers=auth).json()
    assert any(c["verdict"] and c["handoff"]["status"] == "REVIEW-DONE" for c in page["comments"])
    shots = {a["name"]: a for a in page["attachments"]}  # the desktop and the phone (390 px)
    assert set(shots) == {"screenshot.png", "screenshot-390.png"}
    shot = shots["screenshot.png"]
    png = client.get(shot["url"], headers=auth)
    assert png.status_code == 200 and png.content[:8] == b"\x89PNG\r\n\x1a\n"
    work = client.get(f"/api/board/tasks/{dashboard['id']}", headers=auth).json()
    assert "dashboard/dashboard.json" in work["diff"]
    assert [c["id"] for c in work["children"]] == [r["id"] for r in dashboard["reviews"]]
    for bad in ("../../../etc/passwd", "screenshot.png%00", "nope.png"):
        assert (
            client.get(f"/api/board/tasks/{review_id}/attachments/{bad}", headers=auth).status_code
            == 404
        )
    assert client.get("/api/board/tasks/99999", headers=auth).status_code == 404
    assert client.get(shot["url"]).status_code == 401


def test_the_board_page_in_chromium(served) -> None:
    import uvicorn
    from playwright.sync_api import sync_playwright

    from vitrina.team.review.browser import CHROMIUM, CHROMIUM_ARGS, chromium_problem

    if chromium_problem():
        pytest.skip(chromium_problem())
    _client, app, _report, token = served
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20  # bounded: a server that could not bind never starts
    while not server.started and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.started, f"uvicorn did not start on port {port}"
    errors: list[str] = []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page()
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.add_init_script(f"localStorage.setItem('vitrina.token', {token!r})")
            page.goto(f"http://127.0.0.1:{port}/board")
            page.wait_for_selector("body[data-ready='1']", state="attached", timeout=15000)
            cards = page.locator(".board-column[data-status='done'] .board-card")
            assert cards.count() == 6
            cards.last.click()
            page.wait_for_selector("#task pre.diff", timeout=10000)
            assert "dashboard/dashboard.json" in page.locator("#task pre.diff").inner_text()
            page.locator("#task .board-card").first.click()  # its review
            page.wait_for_selector("#task figure img", timeout=10000)
            shown = page.locator("#task").inner_text()  # the blocks as fields, in words
            assert "===VERDICT===" not in shown and "REVIEW-VERDICT" not in shown
            verdict = page.locator("#task .board-fields dd").first.inner_text()
            assert verdict in {"approved", "approved with amendments", "одобрено",
                               "одобрено с поправками"}  # fmt: skip
            if AXE_FILE.is_file():  # the accessibility pass of the other pages, on a full board
                page.add_script_tag(url="/static/vendor/axe.min.js")  # CSP: no inline script
                found = page.evaluate("() => axe.run(document, {resultTypes: ['violations']})")
                serious = [
                    (v["id"], [n["target"] for n in v["nodes"][:5]])
                    for v in found["violations"]
                    if v["impact"] in ("serious", "critical")
                ]
                assert serious == []
            browser.close()
    finally:
        server.should_exit = True
        thread.join(timeout=10)
    assert errors == []
