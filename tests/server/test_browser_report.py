"""A report of the planner in the chat, in Chromium at 1440 and 390 px: it is an answer like
ask's (table, chart, an Excel download of the run), the option chosen is said in words, the
options' codes and scores show only with the technical details, a partial period of a
comparison is flagged, a reload shows the same answer, and axe finds nothing serious."""

from __future__ import annotations

import pytest

from .test_accessibility import _check
from .test_browser import browser  # noqa: F401  (the module-scoped Chromium fixture)
from .test_browser_flows import PHONE, _ask, _errors, _page, _ready, authed  # noqa: F401

WIDE = {"width": 1440, "height": 900}
REPORT = "Отчёт: сумма платежей по регионам за 2025 год"


def _no_codes(turn) -> None:
    """Nothing of the options' internals in what a person sees (hidden details excluded)."""
    seen = turn.inner_text()
    assert "[breakdown]" not in seen and "← выбран" not in seen and "[top_n]" not in seen, seen


@pytest.mark.parametrize("viewport", [WIDE, PHONE], ids=["1440", "390"])
def test_a_report_in_the_chat_is_an_answer(browser, authed, viewport):  # noqa: F811
    width = viewport["width"]
    page = _page(browser, viewport, token=authed.token)
    page.goto(authed.url + "/")
    _ready(page)
    turn = _ask(page, REPORT)
    turn.locator(".chart-box canvas").wait_for()
    assert turn.locator("table.result tbody tr").count() == 12  # the twelve regions
    assert "Вариант отчёта: Разбивка, как в запросе" in turn.locator(".report-choice").inner_text()
    excel = turn.locator("a.btn-excel")
    url = excel.get_attribute("href")
    assert url and url.startswith("/api/runs/")
    download = page.request.get(
        authed.url + url, headers={"Authorization": f"Bearer {authed.token}"}
    )
    assert download.status == 200 and download.body()[:2] == b"PK"  # an .xlsx (a zip)
    _no_codes(turn)
    _check(page, f"chat report {width}")

    turn.locator(".turn-steps").evaluate("d => { d.open = true; }")  # closed on a phone
    turn.locator(".details-toggle").check()
    options = page.locator(".turn").last.locator(".report-options")
    options.wait_for()
    assert "[breakdown]: 12 ← выбран" in options.inner_text()  # the score, only here
    _check(page, f"chat report with details {width}")
    page.evaluate("() => localStorage.setItem('vitrina.details', '0')")  # details off again

    page.reload()  # the report is an answer of the dialog: it comes back from the history
    _ready(page)
    page.wait_for_selector(".turn table.result")
    again = page.locator(".turn").last
    assert again.locator("table.result tbody tr").count() == 12
    assert "Разбивка, как в запросе" in again.locator(".report-choice").inner_text()
    _no_codes(again)
    assert _errors(page) == []


def test_a_partial_year_is_flagged_in_a_report(browser, authed):  # noqa: F811
    """The data end on 30.11.2026: a report of 2026 against 2025 says that 2026 is partial."""
    page = _page(browser, WIDE, token=authed.token)
    page.goto(authed.url + "/")
    _ready(page)
    turn = _ask(page, "отчёт: сумма платежей за 2026 год по сравнению с 2025")
    answer = turn.locator(".answer").first.inner_text()
    assert "неполный" in answer and "30.11.2026" in answer, answer
    assert "Сравнение с периодом 2025 год" in turn.locator(".report-choice").inner_text()
    _no_codes(turn)
    _check(page, "chat partial comparison 1440")


def test_metadata_search_and_docs_answer_in_words(browser, authed):  # noqa: F811
    """The metadata search lists tables, fields, measures and a question to ask, its scores
    only under technical details; the docs intent reads the manual that /docs serves."""
    page = _page(browser, WIDE, token=authed.token)
    page.goto(authed.url + "/")
    _ready(page)
    found = _ask(page, "Где хранятся данные о платежах?")
    seen = found.inner_text()
    assert "dwh.fact_payment" in seen and "Поля:" in seen and "Как спросить:" in seen, seen
    assert "topic keyword" not in seen and "6.0" not in seen, seen
    docs = _ask(page, "Документация по мере [Amount per Customer]")
    text = docs.inner_text()
    assert "VITRINA_DOCS_MODEL" not in text and "[Amount per Customer]" in text, text
    assert docs.locator("a[href^='/docs#measure=']").count() or "/docs#measure=" in text
    _check(page, "chat metadata and docs 1440")
    assert _errors(page) == []
