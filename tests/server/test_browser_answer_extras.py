"""In Debian's Chromium against a real `vitrina serve` (auth on) whose model endpoint refuses
connections: the answer says the rules answered, follow-up chips send their question,
thumbs down with a comment lands in the eval review queue, and a reload keeps the note and
the chips."""

from __future__ import annotations

import socket

import pytest

from vitrina.config import Settings
from vitrina.eval.store import EvalStore
from vitrina.server.spawn import spawn_server
from vitrina.server.store import Store
from vitrina.server.tokens import create_token

from .test_browser import browser  # noqa: F401  (the module-scoped Chromium fixture)
from .test_browser_flows import DESKTOP, PHONE, _ask, _errors, _page, _ready, _shot


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def dead_model_server(demo_db, docs_dir, tmp_path):
    home = tmp_path / "home"
    store = Store.from_settings(Settings(home=home))
    token = create_token(store, "browser")
    store.close()
    env = {
        "VITRINA_HOME": str(home),
        "VITRINA_DB_URL": f"duckdb:///{demo_db}",
        "VITRINA_DOCS_DIR": str(docs_dir),
        "VITRINA_LLM_BASE_URL": f"http://127.0.0.1:{_closed_port()}/v1",
        "VITRINA_LLM_MODEL": "m",
        "VITRINA_LLM_MAX_RETRIES": "0",
        # the questions below are read fully by the rules, which alone ask no model (174)
        "VITRINA_LLM_ALWAYS": "true",
    }
    with spawn_server(env, log=tmp_path / "serve.log") as proc:
        proc.token = token
        proc.home = home
        yield proc


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280", "390"])
def test_notice_chips_and_feedback(browser, dead_model_server, viewport):  # noqa: F811
    server = dead_model_server
    page = _page(browser, viewport, token=server.token)
    page.goto(server.url + "/")
    _ready(page)
    turn = _ask(page, "Сумма платежей в мае 2025")
    notice = turn.locator(".model-notice")
    assert notice.is_visible() and "Модель не использована" in notice.inner_text()
    assert "Модель не использована" not in turn.locator("p.answer").inner_text(), (
        "said once, as its own note"
    )
    chips = turn.locator(".suggestions .chip")
    assert chips.count() >= 2
    chip = next(c for c in chips.all() if "апрель 2025" in c.inner_text())
    asked = chip.inner_text()
    _shot(page, f"answer-extras-{viewport['width']}")
    before = page.locator(".turn").count()
    chip.click()
    page.wait_for_function(
        "n => document.querySelectorAll('.turn').length > n && "
        "!document.querySelector('.turn.running')",
        arg=before,
        timeout=120_000,
    )
    follow = page.locator(".turn").last
    assert asked in follow.inner_text()
    assert follow.locator(".status-answered").count() >= 1
    # thumbs down with a comment on the follow-up answer
    follow.locator(".fb-down").click()
    follow.locator(".fb-comment").fill("нужны только B2B")
    follow.locator(".fb-send").click()
    page.wait_for_function(
        "t => t.querySelector('.fb-status').textContent.includes('Спасибо')",
        arg=follow.element_handle(),
        timeout=30_000,
    )
    assert follow.locator(".fb-down[aria-pressed='true']").count() == 1
    # after a reload both answers keep their note and their follow-up chips
    live = [t.locator(".suggestions .chip").all_inner_texts() for t in page.locator(".turn").all()]
    page.reload()
    _ready(page)
    page.locator(".turn").nth(1).wait_for()
    turns = page.locator(".turn")
    assert turns.count() == 2
    for n in range(2):
        note = turns.nth(n).locator(".model-notice")
        assert note.is_visible() and "Модель не использована" in note.inner_text(), n
        assert "Модель не использована" not in turns.nth(n).locator("p.answer").inner_text()
        assert turns.nth(n).locator(".suggestions .chip").all_inner_texts() == live[n], n
    _shot(page, f"answer-extras-reloaded-{viewport['width']}")
    reloaded_chip = turns.first.locator(".suggestions .chip").first
    asked_again = reloaded_chip.inner_text()
    reloaded_chip.click()  # a chip restored by the reload still asks its question
    page.wait_for_function(
        "() => document.querySelectorAll('.turn').length === 3 && "
        "!document.querySelector('.turn.running')",
        timeout=120_000,
    )
    assert asked_again in page.locator(".turn").last.locator(".q-text").inner_text()
    assert _errors(page) == []
    store = EvalStore(server.home / "state.sqlite")
    try:
        queue = store.open_reviews()
    finally:
        store.close()
    assert len(queue) == 1
    case = queue[0].case
    assert (
        case.question == asked and "rating:down" in case.tags and "нужны только B2B" in case.reason
    )
