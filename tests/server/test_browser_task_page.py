"""The task page a person can follow, in Chromium at 1440 and 390 px (issue 34, item 3): the
request on top (also after a reload), each step's question in words, a step whose question
needs a clarification answered with the chat's option buttons, statuses that say what is
awaited, focus kept on the step after every decision, previews formatted like answers
(labels, words for coded values, numbers), and axe serious/critical = 0 in every state."""

from __future__ import annotations

import re

import pytest

from .test_accessibility import WIDE, _check
from .test_browser import browser  # noqa: F401  (the module-scoped Chromium fixture)
from .test_browser_flows import PHONE, _errors, _page, _ready, _shot, authed  # noqa: F401

REQUEST = "Посчитай открытия за 2025 год и платежи по каналам"
AMBIGUOUS = "сколько открыто в 2025 году"
CHANNELS = "Сумма платежей по каналам за 2025 год"


def _settled(page) -> None:
    """The page waits for the user again: buttons shown and no spinner."""
    page.wait_for_function(
        "() => !document.querySelector('#status .spinner') && "
        "(document.querySelector('#actions button') || document.querySelector('#summary h1'))",
        timeout=120_000,
    )


def _focused(page) -> str:
    return page.evaluate("() => document.activeElement && document.activeElement.id")


@pytest.mark.parametrize("viewport", [WIDE, PHONE], ids=["1440", "390"])
def test_task_with_a_clarification_step(browser, authed, viewport):  # noqa: F811
    width = viewport["width"]
    page = _page(browser, viewport, token=authed.token)
    page.goto(authed.url + "/task")
    _ready(page)
    page.fill("#request", REQUEST)
    page.click("#start button[type=submit]")
    _settled(page)
    assert page.locator("#request-text").inner_text() == REQUEST
    assert page.locator("#start").is_hidden()
    assert "Ждёт вашего решения" in page.locator("#status").inner_text()
    page.click("#actions [data-action=edit]")
    page.fill("#steps", f"{AMBIGUOUS}\n{CHANNELS}")
    page.click("#saveSteps")
    _settled(page)
    _check(page, f"task edited plan {width}")
    page.click("#actions [data-action=approve]")

    # step 1 waits for a clarification: the chat's buttons, the status says what is awaited
    page.locator("#current .clarify-options .option").first.wait_for(timeout=120_000)
    _settled(page)
    assert _focused(page) == "current-step"
    options = page.locator("#current .clarify-options .option").all_inner_texts()
    assert [re.sub(r"^\d+", "", o).strip() for o in options] == ["Кошельки", "Карты"]
    assert "ждёт уточнения" in page.locator("#status").inner_text()
    awaiting = page.locator("#plan tr.awaiting td").last.inner_text()
    assert awaiting == "ждёт вашего решения"
    assert page.locator("#actions [data-action=clarify]").count() == 0
    assert page.locator("#actions [data-action=approve]").count() == 0
    _check(page, f"task clarification {width}")
    _shot(page, f"task-clarify-{width}", full=True)
    page.locator("#current .clarify-options .option", has_text="Кошельки").click()

    # the step reran with the choice: a preview formatted like an answer, focus on the step
    page.wait_for_function(
        "() => document.querySelector('#current .task-preview') && "
        "!document.querySelector('#status .spinner')",
        timeout=120_000,
    )
    assert _focused(page) == "current-step"
    assert "Уточнено: Кошельки." in page.locator("#current").inner_text()
    assert page.locator("#actions [data-action=approve]").count() == 1
    _check(page, f"task clarified step {width}")

    # a reload: the request is still on top, the step still waits
    page.reload()
    _ready(page)
    _settled(page)
    assert page.locator("#request-text").inner_text() == REQUEST
    assert page.locator("#plan tr.awaiting").count() == 1
    page.click("#actions [data-action=approve]")

    # step 2: channels as words, amounts as answers write them, labels not column names
    page.wait_for_function(
        "() => (document.querySelector('#current h2') || {}).textContent?.startsWith('Шаг 2')"
        " && document.querySelector('#current .task-preview')",
        timeout=120_000,
    )
    _settled(page)
    assert _focused(page) == "current-step"
    preview = page.locator("#current .task-preview")
    heads = preview.locator("th").all_inner_texts()
    assert heads == ["Канал платежа", "Сумма платежей"]
    cells = preview.locator("td").all_inner_texts()
    assert "POS-терминал" in cells and "pos" not in cells
    assert any(re.fullmatch(r"[\d\u00a0 ]+,\d\d\u00a0?₽", c) for c in cells), cells
    _check(page, f"task labels preview {width}")
    page.click("#actions [data-action=approve]")
    page.locator("#summary h1").wait_for(timeout=120_000)
    summary = page.locator("#summary").inner_text()
    assert "clarify" not in summary and "wallets" not in summary
    _check(page, f"task summary {width}")
    _shot(page, f"task-summary-{width}", full=True)
    assert _errors(page) == []
