"""Pages for people, in Chromium at 1440 and 390 px (issue 34, items 5 and 6): coded values
as the catalog's words in a Russian answer, bars from zero after a chart-type switch, every
category label kept on a phone, the build board's hand-off and verdict blocks as fields in
the page's language, the docs page's lineage level in words; axe serious/critical = 0 in
every state."""

from __future__ import annotations

import pytest

from vitrina.team import BoardStore, board_url
from vitrina.team.lifecycle import TaskKind

from .test_accessibility import WIDE, _check
from .test_browser import browser  # noqa: F401  (the module-scoped Chromium fixture)
from .test_browser_flows import PHONE, _ask, _errors, _page, _ready, _shot, authed  # noqa: F401

VIEWPORTS = pytest.mark.parametrize("viewport", [WIDE, PHONE], ids=["1440", "390"])
REVIEW = """Проверил каждую цифру независимым запросом.

===VERDICT===
REVIEW-VERDICT: APPROVED-WITH-AMENDMENTS
AMENDMENTS:
- [DASH-001] заголовок графика обрезан: сократить
===/VERDICT===

===HANDOFF===
STATUS: REVIEW-DONE
NEXT: coordinator
===/HANDOFF===
"""
AUTHOR = """Набор данных собран.

===HANDOFF===
STATUS: READY-FOR-REVIEW
REVIEWERS-REQUESTED: data-steward
NEXT: coordinator
===/HANDOFF===
"""


def _chart(turn) -> dict:
    """The drawn Chart.js chart of a turn: its type, category labels and axes."""
    canvas = turn.locator(".chart-box canvas")
    canvas.wait_for()
    turn.page.wait_for_function(  # the chart is made on the canvas's next animation frame
        "c => Boolean(window.Chart && Chart.getChart(c))", arg=canvas.element_handle()
    )
    return canvas.evaluate(
        """c => { const ch = Chart.getChart(c); const h = ch.options.indexAxis === 'y';
        const cat = ch.scales[h ? 'y' : 'x'], val = ch.scales[h ? 'x' : 'y'];
        return { type: ch.config.type, labels: ch.data.labels.length,
                 ticks: cat.ticks.length, min: val.min }; }"""
    )


@VIEWPORTS
def test_russian_answer_words_and_charts(browser, authed, viewport):  # noqa: F811
    width = viewport["width"]
    page = _page(browser, viewport, token=authed.token)
    page.goto(authed.url + "/")
    _ready(page)
    turn = _ask(page, "Сумма платежей по каналам за 2025 год")
    turn.locator("table.result td").first.wait_for()
    cells = turn.locator("table.result td").all_inner_texts()
    assert "POS-терминал" in cells and "pos" not in cells, cells
    answer = turn.locator(".answer").first.inner_text()
    assert "POS-терминал" in answer and "QR-код" in answer
    _check(page, f"chat labels {width}")

    turn = _ask(page, "Сумма платежей по регионам за 2025 год")
    drawn = _chart(turn)
    assert drawn["ticks"] == drawn["labels"] == 12, drawn  # no region label dropped
    _shot(page, f"people-regions-{width}")

    turn = _ask(page, "Сумма платежей по месяцам в 2025 году")
    assert _chart(turn)["type"] == "line"
    turn.locator("[data-chart-type=bar]").click()
    drawn = _chart(turn)
    assert drawn["type"] == "bar" and drawn["min"] == 0, drawn  # bars start at zero
    _check(page, f"chat bar switch {width}")

    # the step timings of turns asked in this page survive a language switch and the toggle
    def timings() -> list[str]:  # the steps box is closed on a phone: read it opened
        last = page.locator(".turn").last
        last.locator(".turn-steps").evaluate("d => { d.open = true; }")
        return last.locator(".step-ms").all_inner_texts()

    live = timings()
    assert live and all(live), live
    page.click(".lang-switch [data-lang=en]")
    page.locator(".turn").last.locator(".step-ms").first.wait_for(state="attached")
    assert timings() == live
    page.locator(".turn").last.locator(".details-toggle").check()
    assert timings() == live
    assert _errors(page) == []


@VIEWPORTS
def test_clarification_keeps_the_question_and_its_period(browser, authed, viewport):  # noqa: F811
    width = viewport["width"]
    page = _page(browser, viewport, token=authed.token)
    page.goto(authed.url + "/")
    _ready(page)
    turn = _ask(page, "сколько открыто в 2025 году")
    turn.locator(".clarify-options .option").first.wait_for()
    _check(page, f"chat clarification {width}")
    before = page.locator(".turn").count()
    turn.locator(".clarify-options .option", has_text="Кошельки").click()
    page.wait_for_function(
        f"() => document.querySelectorAll('.turn').length > {before} && "
        "!document.querySelector('.turn.running')",
        timeout=60_000,
    )
    reply = page.locator(".turn").last
    assert reply.locator(".q-text").inner_text() == "сколько открыто в 2025 году"
    assert "Кошельки" not in reply.locator(".q-text").inner_text()
    month = _ask(page, "в мае")
    month.locator(".answer").first.wait_for()
    assert "май 2025" in month.locator(".answer").first.inner_text()
    page.reload()
    _ready(page)
    page.locator(".turn").nth(2).wait_for()
    assert page.locator(".turn").nth(1).locator(".q-text").inner_text() == (
        "сколько открыто в 2025 году"
    )
    assert _errors(page) == []


def _seed_board(home) -> None:
    store = BoardStore(board_url(None, home))
    try:
        build, _ = store.create_build(
            key="people",
            title="Платежи",
            brief="title: Платежи",
            workspace=str(home),
            phase="build",
        )
        work, _ = store.create_task(
            build_id=build.id, key="w1", kind=TaskKind.WORK, title="Набор данных",
            role="data-engineer", phase="build", step="dataset",
        )  # fmt: skip
        review, _ = store.create_task(
            build_id=build.id, key="r1", kind=TaskKind.REVIEW, title="Проверка набора",
            role="data-steward", phase="build", step="dataset", parent_id=work.id,
        )  # fmt: skip
        store.add_comment(
            task_id=work.id, key="c1", author="data-engineer", text=AUTHOR,
            handoff={"status": "READY-FOR-REVIEW", "reviewers_requested": ["data-steward"],
                     "next": "coordinator", "next_phase": None},
        )  # fmt: skip
        store.add_comment(
            task_id=review.id, key="c2", author="data-steward", text=REVIEW,
            handoff={"status": "REVIEW-DONE", "reviewers_requested": [], "next": "coordinator",
                     "next_phase": None},
            verdict={"verdict": "APPROVED-WITH-AMENDMENTS",
                     "amendments": ["[DASH-001] заголовок графика обрезан: сократить"]},
        )  # fmt: skip
    finally:
        store.close()


@VIEWPORTS
def test_board_and_docs_for_people(browser, authed, viewport, tmp_path):  # noqa: F811
    width = viewport["width"]
    _seed_board(tmp_path / "home")
    page = _page(browser, viewport, token=authed.token)
    page.goto(authed.url + "/board")
    _ready(page)
    assert "running" not in page.locator("#build-select").inner_text()  # the build's state in words
    card = page.locator("#columns .board-card").first  # the work task, with its review
    assert "одобрено с поправками" in card.inner_text()
    card.click()
    page.locator(".board-fields").first.wait_for()
    shown = page.locator("#task").inner_text()
    assert "===" not in shown and "REVIEW-VERDICT" not in shown and "HANDOFF" not in shown
    assert "Набор данных собран." in shown and "готово к проверке" in shown
    page.locator("#task .board-card").first.click()  # its review
    page.locator(".board-fields dd", has_text="одобрено с поправками").wait_for()
    shown = page.locator("#task").inner_text()
    assert "[DASH-001] заголовок графика обрезан" in shown and "APPROVED" not in shown
    _check(page, f"board task {width}")
    _shot(page, f"people-board-{width}", full=True)
    page.click(".lang-switch [data-lang=en]")
    page.locator(".board-card .review", has_text="approved with amendments").wait_for()
    assert "APPROVED" not in page.locator("#columns").inner_text()

    page.goto(authed.url + "/docs")
    _ready(page)
    page.click(".lang-switch [data-lang=ru]")
    if width < 768:
        page.click("#menu-button")
    page.locator("#measure-nav a", has_text="[Amount YTD]").click()
    page.locator("#doc .doc-meta").wait_for()
    meta = page.locator("#doc .doc-meta").inner_text()
    assert meta.startswith("Родословная: прослежена до"), meta
    assert "за с начала" not in page.locator("#doc").inner_text()
    _check(page, f"docs measure {width}")
    if width < 768:
        page.click("#menu-button")
    first = page.locator("#measure-nav a").first  # another measure: links in its text
    name = first.get_attribute("data-measure")
    first.click()
    page.wait_for_function(  # its page is drawn (a fixed wait checked whichever was shown)
        "n => (document.querySelector('#doc h1') || {}).textContent === '[' + n + ']'", arg=name
    )
    _check(page, f"docs manual {width}")
    assert _errors(page) == []
