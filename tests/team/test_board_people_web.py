"""People on /board (issue 31 item 5, the web half): the token's role is the board role (admin
a lead, analyst a member, viewer read only), the API acts through the same `People` class as
the CLI (audited), and in chromium at 1440 px a lead answers a blocker from the page while a
viewer sees no button and gets a 403 in words from the API."""

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
from vitrina.team.lifecycle import TaskStatus

from .conftest import make_env
from .helpers import task_in_review
from .test_people import audit, blocked_task

S = TaskStatus


@pytest.fixture
def served(make_service, tmp_path: Path):
    home = Path(os.environ["VITRINA_HOME"])
    env = make_env(board_url(None, home), tmp_path)
    task, blocker = blocked_task(env)
    service = make_service()
    app = create_app(service.settings, ServeOptions(), service=service)
    store = Store.from_settings(service.settings)
    tokens = {
        role: create_token(store, f"anna-{role}", role) for role in ("admin", "analyst", "viewer")
    }
    store.close()
    with TestClient(app, raise_server_exceptions=False) as client:
        yield client, app, env, task, blocker, tokens
    env.store.close()


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_a_missing_task_is_the_same_404_on_the_read_view_and_the_actions(served) -> None:
    """One place says "not found": the task page, its actions and an action on it answer a
    missing task with the same code and words (the actions had a 404 of their own)."""
    client, _app, _env, _task, _blocker, tokens = served
    auth = _auth(tokens["admin"])
    answers = [
        client.get("/api/board/tasks/99999", headers=auth),
        client.get("/api/board/tasks/99999/actions", headers=auth),
        client.post("/api/board/tasks/99999/actions", json={"action": "approve"}, headers=auth),
    ]
    assert [a.status_code for a in answers] == [404, 404, 404]
    errors = [a.json()["error"] for a in answers]
    assert errors == [errors[0]] * 3
    assert errors[0]["code"] == "board_not_found"
    assert errors[0]["message"] == "task 99999 not found"
    assert errors[0]["message_ru"] == "задача 99999 не найдена"


def test_the_token_role_decides_the_actions_and_a_viewer_gets_403_in_words(served) -> None:
    client, _app, env, task, blocker, tokens = served
    url = f"/api/board/tasks/{blocker}/actions"
    seen = client.get(url, headers=_auth(tokens["viewer"])).json()
    assert seen == {"board_role": "viewer", "actions": [], "reassign_to": []}
    lead = client.get(url, headers=_auth(tokens["admin"])).json()
    assert lead["board_role"] == "lead" and lead["actions"] == ["comment", "answer"]
    body = {"action": "comment", "text": "Посмотрите период"}
    refused = client.post(url, json=body, headers=_auth(tokens["viewer"]))
    assert refused.status_code == 403
    error = refused.json()["error"]
    assert error["code"] == "board_read_only" and "reads the board only" in error["message"]
    assert "только читает доску" in error["message_ru"]
    assert audit(env, "comment") == ["person:anna-viewer denied"]  # the refusal audited
    assert all(c.author != "person:anna-viewer" for c in env.store.comments(blocker))
    review = task_in_review(env.prims, "dataset")
    member = client.post(
        f"/api/board/tasks/{review.id}/actions",
        json={"action": "approve"},
        headers=_auth(tokens["analyst"]),
    )
    assert member.status_code == 403 and member.json()["error"]["code"] == "board_forbidden"
    assert env.store.get_task(review.id).status is S.REVIEW
    wrong = client.post(
        f"/api/board/tasks/{task}/actions",
        json={"action": "answer", "text": "2025"},
        headers=_auth(tokens["admin"]),
    )
    assert wrong.status_code == 409 and "not a blocker" in wrong.json()["error"]["message"]
    approved = client.post(
        f"/api/board/tasks/{review.id}/actions",
        json={"action": "approve", "text": "принимаю"},
        headers=_auth(tokens["admin"]),
    ).json()
    assert approved["changed"] is True and env.store.get_task(review.id).status is S.DONE
    again = client.post(
        f"/api/board/tasks/{review.id}/actions",
        json={"action": "approve", "text": "принимаю"},
        headers=_auth(tokens["admin"]),
    ).json()
    assert again["changed"] is False  # idempotent, as in the CLI
    assert client.post(url, json=body).status_code == 401


def _serve(app) -> tuple[object, threading.Thread, int]:
    import uvicorn

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.started, f"uvicorn did not start on port {port}"  # not a later page error
    return server, thread, port


def _serious(page) -> list:
    """axe's serious and critical violations of the page as it is (none when axe is absent)."""
    if not AXE_FILE.is_file():
        return []
    if not page.evaluate("() => Boolean(window.axe)"):
        page.add_script_tag(url="/static/vendor/axe.min.js")  # CSP: no inline script
    found = page.evaluate("() => axe.run(document, {resultTypes: ['violations']})")
    return [
        (v["id"], [n["target"] for n in v["nodes"][:5]])
        for v in found["violations"]
        if v["impact"] in ("serious", "critical")
    ]


def _open_blocker(page, port: int, token: str, blocker: int) -> None:
    page.add_init_script(f"localStorage.setItem('vitrina.token', {token!r})")
    page.goto(f"http://127.0.0.1:{port}/board")
    page.wait_for_selector("body[data-ready='1']", state="attached", timeout=15000)
    page.locator(".board-column[data-status='blocked'] .board-card").first.click()
    page.wait_for_selector("#task .board-actions h3", timeout=10000)
    page.locator("#task .board-card").first.click()  # the blocker under the task
    page.wait_for_function(
        "(id) => document.querySelector('#task h2').textContent.startsWith('#' + id + ' ')"
        " && document.querySelector('#task .board-actions h3')",
        arg=blocker,
        timeout=10000,
    )


def test_a_lead_answers_a_blocker_on_the_page_and_a_viewer_sees_no_button(served) -> None:
    from playwright.sync_api import sync_playwright

    from vitrina.team.review.browser import CHROMIUM, CHROMIUM_ARGS, chromium_problem

    if chromium_problem():
        pytest.skip(chromium_problem())
    _client, app, env, task, blocker, tokens = served
    server, thread, port = _serve(app)
    errors: list[str] = []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            viewer = browser.new_page(viewport={"width": 1440, "height": 900})
            _open_blocker(viewer, port, tokens["viewer"], blocker)
            assert viewer.locator("#task .board-actions button").count() == 0
            assert "reads the board only" in viewer.locator("#task .board-actions").inner_text()
            status = viewer.evaluate(
                """async ([id, token]) => (await fetch('/api/board/tasks/' + id + '/actions', {
                   method: 'POST', headers: {'Content-Type': 'application/json',
                                             Authorization: 'Bearer ' + token},
                   body: JSON.stringify({action: 'answer', text: '2025'})})).status""",
                [blocker, tokens["viewer"]],
            )
            assert status == 403
            lead = browser.new_page(viewport={"width": 1440, "height": 900})
            lead.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            _open_blocker(lead, port, tokens["admin"], blocker)
            assert lead.locator("#task .board-actions button").count() == 2
            assert _serious(lead) == []
            lead.fill("#action-text", "Период: 2025 год")
            lead.click("#task .board-actions button[data-action='answer']")
            lead.wait_for_selector("body[data-acted='answer']", state="attached", timeout=10000)
            assert "woke" in lead.locator("#action-result").inner_text()
            # the task, back in progress: a comment or a reassignment (a role list) for a lead
            lead.locator(".board-column[data-status='in_progress'] .board-card").first.click()
            lead.wait_for_selector("#task .board-actions select#action-to", timeout=10000)
            assert _serious(lead) == []
            browser.close()
    finally:
        server.should_exit = True  # type: ignore[attr-defined]
        thread.join(timeout=10)
    assert errors == []
    assert env.store.get_task(blocker).status is S.DONE
    work = env.store.get_task(task)
    assert work.status is S.IN_PROGRESS and work.round == 2
    assert env.store.get_build(env.build.id).status == "running"
    assert audit(env, "answer") == ["person:anna-viewer denied", "person:anna-admin done"]
