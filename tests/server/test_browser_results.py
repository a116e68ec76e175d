"""Issue 34 in Chromium at 1440 and 390 px: a 365-row answer sorted, filtered, paged and
totalled over its whole result (the top day by amount is the SQL's), copied as TSV and
downloaded with every row; a reload in the middle of a turn shows the question and then
the answer; two tabs of one dialog see the same turn, and the second one's typed text is
kept when the dialog is busy. axe finds nothing serious or critical in any of these states.

The server is the real app in this process (uvicorn on a loopback port) over the demo
warehouse; its turns can be held at their second step (`gate`), so "in the middle of a
turn" is a state the test chooses, not a race it hopes to win.
"""

from __future__ import annotations

import csv
import io
import re
import threading
import time

import duckdb
import openpyxl
import pytest

from vitrina.server import ServeOptions, create_app
from vitrina.server.spawn import free_port
from vitrina.server.tokens import create_token

from .helpers import hold_turns
from .test_accessibility import _check
from .test_browser import browser  # noqa: F401  (the module-scoped Chromium fixture)
from .test_browser_flows import PHONE, _ask, _errors, _page, _ready, _shot

WIDE = {"width": 1440, "height": 900}
VIEWPORTS = pytest.mark.parametrize("viewport", [WIDE, PHONE], ids=["1440", "390"])
DAYS = "Сумма платежей по дням в 2025 году"  # 365 rows
MONTHS = "Сумма платежей по месяцам в 2025 году"
TOP_DAY = """
SELECT CAST(payment_date AS DATE) FROM dwh.fact_payment
WHERE status = 'success' AND payment_date >= DATE '2025-01-01' AND payment_date < DATE '2026-01-01'
GROUP BY 1 ORDER BY SUM(amount_rub) DESC LIMIT 1
"""


@pytest.fixture
def served(make_service):
    """The app on 127.0.0.1 with auth on, a token, and a gate its turns wait at."""
    import uvicorn

    service = make_service(write_files=False)
    gate = threading.Event()
    gate.set()
    hold_turns(service, gate, wait_s=90)
    app = create_app(service.settings, ServeOptions(), service=service)
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    runner = threading.Thread(target=server.run, daemon=True)
    runner.start()
    for _ in range(300):
        if server.started:
            break
        time.sleep(0.05)
    server.url = f"http://127.0.0.1:{port}"
    server.token = create_token(app.state.vitrina.store, "browser")
    server.gate = gate
    try:
        yield server
    finally:
        gate.set()
        server.should_exit = True
        runner.join(30)


def _caption(turn) -> str:
    return turn.locator(".table-note").inner_text()


def _wait_caption(page, text: str) -> None:
    page.wait_for_function(
        "t => [...document.querySelectorAll('.turn .table-note')]"
        ".some(n => n.textContent.includes(t))",
        arg=text,
        timeout=30_000,
    )


@VIEWPORTS
def test_a_365_row_answer_sorts_filters_pages_over_every_row(
    browser,  # noqa: F811
    served,
    demo_db,
    viewport,
    tmp_path,
):
    width = viewport["width"]
    (top_day,) = duckdb.connect(str(demo_db), read_only=True).execute(TOP_DAY).fetchone()
    page = _page(browser, viewport, token=served.token)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=served.url)
    page.goto(served.url + "/")
    _ready(page)
    turn = _ask(page, DAYS)
    turn.locator("table.result").scroll_into_view_if_needed()  # its pages load when seen
    _wait_caption(page, "Строки 1–20 из 365")
    assert turn.locator("table.result tbody tr").count() == 20
    totals = turn.locator("table.result tfoot tr.totals")
    assert "Итого по всем 365 строкам" in totals.inner_text()
    assert "все строки (365)" in turn.locator("a.btn-excel").inner_text()
    _check(page, f"whole result {width}")

    turn.locator("th .sort-button").nth(1).click()  # the amount, descending first
    _wait_caption(page, "по убыванию")
    assert _caption(turn).startswith("Строки 1–20 из 365, по убыванию «")
    first_day = turn.locator("table.result tbody tr").first.locator("td").first.inner_text()
    assert first_day == top_day.strftime("%d.%m.%Y")  # the answer's top day, not the page's
    assert turn.locator("th").nth(1).get_attribute("aria-sort") == "descending"

    turn.locator(".rows-next").click()
    _wait_caption(page, "Строки 21–40 из 365, по убыванию")
    turn.locator(".rows-prev").click()
    _wait_caption(page, "Строки 1–20 из 365, по убыванию")
    _shot(page, f"results-sorted-{width}")

    turn.locator(".rows-filter").fill("2025-06")
    _wait_caption(page, "из 30 по отбору «2025-06» (всего 365)")
    assert "Итого по 30 строкам отбора" in totals.inner_text()
    _check(page, f"whole result filtered {width}")

    turn.locator(".rows-copy").click()
    turn.locator(".rows-copied", has_text="Скопировано строк: 30").wait_for()
    copied = page.evaluate("() => navigator.clipboard.readText()").splitlines()
    assert len(copied) == 31 and copied[1].split("\t")[0].startswith("2025-06")

    with page.expect_download() as got:
        turn.locator("a.btn-csv").click()
    target = tmp_path / "all.csv"
    got.value.save_as(target)
    rows = list(csv.reader(io.StringIO(target.read_text(encoding="utf-8"))))
    assert len(rows) == 366  # the download holds every row, whatever the table shows
    with page.expect_download() as got:
        turn.locator("a.btn-excel").click()
    got.value.save_as(tmp_path / "all.xlsx")
    assert openpyxl.load_workbook(tmp_path / "all.xlsx").active.max_row == 366

    page.click(".lang-switch button[data-lang='en']")  # the caption in the page's language
    turn = page.locator(".turn").last
    turn.locator("table.result").scroll_into_view_if_needed()
    _wait_caption(page, "Rows 1–20 of 365")
    turn.locator("th .sort-button").nth(1).click()
    _wait_caption(page, "descending")
    assert re.match(r"^Rows 1–20 of 365, sorted by “.+”, descending$", _caption(turn))
    assert "Total of all 365 rows" in turn.locator("tfoot").inner_text()
    assert _errors(page) == []


@VIEWPORTS
def test_a_reload_mid_turn_shows_the_question_then_the_answer(browser, served, viewport):  # noqa: F811
    width = viewport["width"]
    page = _page(browser, viewport, token=served.token)
    page.goto(served.url + "/")
    _ready(page)
    served.gate.clear()
    page.fill("#question", MONTHS)
    page.click("#send")
    page.wait_for_selector(
        ".turn.running .step", state="attached"
    )  # the turn is under way, held at its step
    page.reload()
    _ready(page)
    running = page.locator(".turn.running")
    running.wait_for()
    assert running.locator(".q-text").inner_text() == MONTHS
    assert page.locator("#dialog-title").inner_text() == MONTHS
    assert page.locator("#start-panel").is_hidden()
    _check(page, f"reload mid-turn {width}")
    _shot(page, f"results-reload-running-{width}")
    served.gate.set()
    page.wait_for_selector(".turn.status-answered", timeout=60_000)
    assert page.locator(".turn.running").count() == 0
    assert page.locator(".turn").count() == 1
    assert page.locator(".turn .q-text").inner_text() == MONTHS
    assert page.locator(".turn table.result tbody tr").count() == 12
    _check(page, f"reload answered {width}")
    assert _errors(page) == []


@VIEWPORTS
def test_two_tabs_see_one_turn_and_keep_the_typed_text(browser, served, viewport):  # noqa: F811
    width = viewport["width"]
    first = _page(browser, viewport, token=served.token)
    first.goto(served.url + "/")
    _ready(first)
    _ask(first, MONTHS)
    url = first.url
    second = first.context.new_page()
    second.console_errors = []
    second.on("pageerror", lambda e: second.console_errors.append(str(e)))
    second.goto(url)
    _ready(second)
    second.locator(".turn.status-answered").wait_for()

    served.gate.clear()
    first.fill("#question", "А по неделям?")
    first.click("#send")
    first.wait_for_selector(".turn.running .step", state="attached")
    second.locator(".turn.running .q-text", has_text="А по неделям?").wait_for(timeout=20_000)

    typed = "Сколько кошельков открыли в мае 2025?"
    second.fill("#question", typed)
    second.click("#send")
    banner = second.locator("#banner")
    banner.wait_for(state="visible")
    assert "ещё отвечает на предыдущий вопрос" in banner.inner_text()
    shown = banner.inner_text()
    assert "409" not in shown and "thread_busy" not in shown and "null" not in shown
    assert second.input_value("#question") == typed  # never lost
    _check(second, f"two tabs busy {width}")
    _shot(second, f"results-two-tabs-busy-{width}")

    served.gate.set()
    for tab in (first, second):
        tab.wait_for_function(
            "() => document.querySelectorAll('.turn').length === 2 && "
            "!document.querySelector('.turn.running')",
            timeout=60_000,
        )
        assert tab.locator(".turn .q-text").last.inner_text() == "А по неделям?"
    assert second.input_value("#question") == typed
    second.reload()  # the draft outlives the page too
    _ready(second)
    second.locator(".turn").nth(1).wait_for()
    assert second.input_value("#question") == typed
    assert _errors(first) == [] and second.console_errors == []
