"""Every flow a first-time analyst clicks, in Debian's Chromium against a real `vitrina serve`
with auth on (the default): the token dialog, the chat through the supervisor, the task page,
a 390 px phone, reloads. Screenshots (1280 and 390 px, RU and EN) go to test-artifacts/browser/.
"""

from __future__ import annotations

import re

import pytest

from vitrina.config import Settings
from vitrina.server.spawn import spawn_server
from vitrina.server.store import Store
from vitrina.server.tokens import create_token

from .test_browser import ARTIFACTS, browser  # noqa: F401  (the module-scoped Chromium fixture)

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 860}
# Chromium logs a failed request (the expected 401s of the token flow) as a console error.
EXPECTED_401 = "the server responded with a status of 401"
RUSSIAN_NODE = re.compile(r"^[A-Za-z_]+$")


@pytest.fixture
def authed(demo_db, docs_dir, tmp_path):
    """A server with auth on, and a token made in its state database."""
    home = tmp_path / "home"
    store = Store.from_settings(Settings(home=home))
    token = create_token(store, "browser")
    store.close()
    env = {
        "VITRINA_HOME": str(home),
        "VITRINA_DB_URL": f"duckdb:///{demo_db}",
        "VITRINA_DOCS_DIR": str(docs_dir),
    }
    with spawn_server(env, log=tmp_path / "serve.log") as proc:
        proc.token = token
        yield proc


def _page(browser, viewport, lang="ru", token=None):  # noqa: F811
    context = browser.new_context(
        viewport=viewport, locale="ru-RU" if lang == "ru" else "en-US", accept_downloads=True
    )
    script = f"localStorage.setItem('vitrina.lang', '{lang}');"
    if token:
        script += f"localStorage.setItem('vitrina.token', '{token}');"
    context.add_init_script(script)
    page = context.new_page()
    page.console_errors = []
    page.on("console", lambda m: page.console_errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: page.console_errors.append(str(e)))
    page.on(
        "response",
        lambda r: page.console_errors.append(f"{r.status} {r.url}") if r.status == 404 else None,
    )
    return page


def _errors(page) -> list[str]:
    return [e for e in page.console_errors if EXPECTED_401 not in e]


def _shot(page, name: str, full: bool = False) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=full)


def _ready(page) -> None:
    page.wait_for_selector("body[data-ready='1']", timeout=60_000)


def _ask(page, text: str):
    before = page.locator(".turn").count()
    page.fill("#question", text)
    page.click("#send")
    page.wait_for_function(
        "n => document.querySelectorAll('.turn').length > n && "
        "!document.querySelector('.turn.running')",
        arg=before,
        timeout=120_000,
    )
    return page.locator(".turn").last


def test_token_escape_wrong_token_then_right_token(browser, authed):  # noqa: F811
    page = _page(browser, DESKTOP)
    page.goto(authed.url + "/")
    dialog = page.locator("#token-dialog")
    dialog.wait_for(state="visible")
    page.keyboard.press("Escape")
    _ready(page)
    banner = page.locator("#banner")
    assert "токен" in banner.inner_text().lower()
    assert "недоступен" not in banner.inner_text()  # an auth failure is not "server down"
    assert page.locator("#send").is_visible()  # the page is alive, the controls are not covered
    page.locator("#banner .banner-action").click()
    dialog.wait_for(state="visible")
    page.fill("#token-input", "vt_wrong.secret")
    page.locator("#token-form button[value=save]").click()
    page.wait_for_load_state()
    dialog.wait_for(state="visible")  # the wrong token is refused, and the dialog says so
    assert "Токен не подошёл" in page.locator("#token-error").inner_text()
    _shot(page, "flows-token-rejected")
    page.fill("#token-input", authed.token)
    page.locator("#token-form button[value=save]").click()
    page.wait_for_function("() => document.querySelector('#banner').hidden")
    turn = _ask(page, "Сумма платежей по месяцам в 2025 году")
    assert turn.locator(".status-answered").count() >= 1
    assert _errors(page) == []


def test_server_down_is_not_an_auth_failure(browser, authed):  # noqa: F811
    page = _page(browser, DESKTOP, token=authed.token)
    page.goto(authed.url + "/")
    _ready(page)
    page.route("**/api/**", lambda route: route.abort())
    page.fill("#question", "Сумма платежей по месяцам в 2025 году")
    page.click("#send")
    page.wait_for_selector("#banner:not([hidden]), .turn .error")
    text = page.inner_text("body")
    assert "Сервер недоступен" in text and "Токен не подошёл" not in text


def test_task_page_with_auth_summary_downloads_russian(browser, authed, tmp_path):  # noqa: F811
    page = _page(browser, DESKTOP, token=authed.token)
    page.goto(authed.url + "/")
    _ready(page)
    page.click("nav a[href='/task']")  # linked from the navigation
    _ready(page)
    page.fill("#request", "Сумма платежей по регионам за 3 квартал 2026")
    page.click("#start button[type=submit]")
    page.get_by_role("button", name="Одобрить").wait_for(timeout=60_000)
    _shot(page, "flows-task-plan")
    for _ in range(
        12
    ):  # approve the plan, then every step (skip one that cannot be approved), to the summary
        page.wait_for_function(
            "() => document.querySelector('#summary').textContent.trim() || "
            "(document.querySelector('#actions button') && "
            "!document.querySelector('#status .spinner'))",
            timeout=120_000,
        )
        if page.locator("#summary").inner_text().strip():
            break
        actions = page.locator("#actions button").evaluate_all(
            "els => els.map(e => e.dataset.action)"
        )
        page.click("#actions [data-action=%s]" % ("approve" if "approve" in actions else "skip"))
    summary = page.locator("#summary")
    summary.locator("h1, h2").first.wait_for(timeout=60_000)
    text = summary.inner_text()
    assert "##" not in text and "**" not in text  # Markdown rendered, not shown raw
    assert (
        "/outputs/" not in text and "summary.md" not in text
    )  # no server paths: the files are links
    english = re.findall(
        r"\b(step|done|skipped|files|summary|slope|intercept|shares?|total)\b", text, re.I
    )
    assert english == [], f"English in the Russian summary: {english}"
    links = page.locator("#files a[data-file]")
    assert links.count() >= 1
    assert all(
        not href.startswith("/home") and "/api/tasks/" in href
        for href in links.evaluate_all("els => els.map(e => e.getAttribute('href'))")
    )
    with page.expect_download() as info:
        links.first.click()
    saved = tmp_path / info.value.suggested_filename
    info.value.save_as(saved)
    assert saved.stat().st_size > 0
    _shot(page, "flows-task-summary-1280-ru", full=True)
    assert _errors(page) == []


def test_chat_sends_a_compound_request_to_the_task_job(browser, authed):  # noqa: F811
    page = _page(browser, DESKTOP, token=authed.token)
    page.goto(authed.url + "/")
    _ready(page)
    turn = _ask(
        page,
        "Сравни открытия кошельков за 3 квартал 2026 с прошлым годом по регионам, "
        "найди где падение и сделай прогноз на следующий квартал",
    )
    assert turn.locator(".status-task").count() == 1  # not "answered" after half the work
    turn.locator(".task-plan li").first.wait_for(timeout=60_000)
    assert turn.locator(".task-plan li").count() >= 3
    _shot(page, "flows-chat-task")
    turn.locator("[data-approve]").click()
    turn.get_by_text("План одобрен").wait_for()
    href = turn.locator("a[href^='/task?id=']").get_attribute("href")
    page.reload()
    _ready(page)
    page.locator(
        ".turn .status-task"
    ).wait_for()  # the routed turn is part of the dialog after a reload
    assert page.locator(".turn").count() == 1
    page.goto(authed.url + href)
    _ready(page)
    page.locator("#plan tbody tr").first.wait_for()
    assert _errors(page) == []


def test_metadata_search_is_answered_by_its_role(browser, authed):  # noqa: F811
    page = _page(browser, DESKTOP, token=authed.token)
    page.goto(authed.url + "/")
    _ready(page)
    turn = _ask(page, "В каких таблицах хранятся платежи?")
    assert turn.locator(".routed").count() == 1 or "routed" in (turn.get_attribute("class") or "")
    assert "Поиск по метаданным" in turn.locator(".answer-head").inner_text()
    assert turn.locator(".answer-md").first.inner_text().strip()
    assert _errors(page) == []


def test_reload_keeps_durations_and_shows_no_developer_text(browser, authed):  # noqa: F811
    page = _page(browser, DESKTOP, token=authed.token)
    page.goto(authed.url + "/")
    _ready(page)
    _ask(page, "Сумма платежей по месяцам в 2025 году")
    _ask(page, "А по регионам?")
    live = page.locator(".turn").last.locator(".step-ms").all_inner_texts()
    page.reload()
    _ready(page)
    page.locator(".turn").nth(1).wait_for()
    turn = page.locator(".turn").last
    assert turn.locator(".step-ms").all_inner_texts() == live and all(live)
    names = page.locator(".step-name").all_inner_texts()
    assert not [n for n in names if RUSSIAN_NODE.match(n)], names  # no node names in the Russian UI
    assert page.locator(".step-events").first.is_hidden()  # trace lines only under the toggle
    turn.locator(".details-toggle").check()
    assert page.locator(".show-details").count() == 1
    assert _errors(page) == []


def test_table_sort_chart_switch_and_dialog_tools(browser, authed):  # noqa: F811
    page = _page(browser, DESKTOP, token=authed.token)
    page.on("dialog", lambda d: d.accept("Платежи 2025") if d.type == "prompt" else d.accept())
    page.goto(authed.url + "/")
    _ready(page)
    turn = _ask(page, "Сумма платежей по месяцам в 2025 году")
    numbers = turn.locator("table.result tbody tr td:nth-child(2)")
    turn.locator("table.result th").nth(1).locator("button").click()
    turn.locator("th[aria-sort='descending']").wait_for()  # sorted by the server (issue 34)
    first = numbers.all_inner_texts()

    def value(text: str) -> float:
        return float(re.sub(r"[^\d,.-]", "", text).replace(",", "."))

    assert [value(v) for v in first] == sorted((value(v) for v in first), reverse=True)
    assert turn.locator("th[aria-sort='descending']").count() == 1
    turn.locator("[data-chart-type='bar']").click()
    page.wait_for_function(
        "() => { const c = document.querySelector('.chart-box canvas');"
        " return c && Chart.getChart(c) && Chart.getChart(c).config.type === 'bar'; }"
    )
    thread = page.locator("#thread-list li").first
    thread.hover()
    thread.locator("[data-rename]").click()
    page.locator("#thread-list li a", has_text="Платежи 2025").wait_for()
    page.fill("#thread-search", "нет такого")
    assert page.locator("#thread-list li").count() == 0
    page.fill("#thread-search", "платежи")
    assert page.locator("#thread-list li").count() == 1
    page.locator("#thread-list li").first.hover()
    page.locator("#thread-list li [data-delete]").first.click()
    page.wait_for_function("() => document.querySelectorAll('#thread-list li').length === 0")
    page.reload()
    _ready(page)
    assert page.locator("#thread-list li").count() == 0
    assert _errors(page) == []


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "390"])
def test_board_is_linked_from_every_page(browser, authed, viewport):  # noqa: F811
    """The build board is one click away from every page, like /task, and renders cleanly."""
    page = _page(browser, viewport, token=authed.token)
    for path in ("/", "/docs", "/task", "/board"):
        page.goto(authed.url + path)
        _ready(page)
        assert page.locator("nav a[href='/board']").is_visible(), path
    page.goto(authed.url + "/")
    _ready(page)
    page.click("nav a[href='/board']")
    page.wait_for_url("**/board")
    _ready(page)
    assert page.locator("h1").inner_text() == "Доска сборок"
    assert page.locator("nav a[aria-current='page']").inner_text() == "Доска сборок"
    assert page.locator("#board-empty").is_visible()  # no build in this home yet: it says so
    assert "vitrina build" in page.locator("#board-empty").inner_text()
    assert page.locator("#board-error").is_hidden()
    sideways = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert sideways <= 0
    page.click(".lang-switch button[data-lang='en']")
    assert page.locator("h1").inner_text() == "Build board"
    _shot(page, f"flows-board-{viewport['width']}")
    assert _errors(page) == []


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_phone_390_is_usable(browser, authed, lang):  # noqa: F811
    page = _page(browser, PHONE, lang=lang, token=authed.token)
    page.goto(authed.url + "/")
    _ready(page)
    _shot(page, f"flows-chat-390-{lang}-start")

    def sideways() -> int:
        return page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")

    assert sideways() <= 0
    box = page.locator("#question").bounding_box()
    assert box["height"] >= 44 and box["width"] >= 250
    send = page.locator("#send").bounding_box()
    assert send["y"] + send["height"] <= PHONE["height"]  # the send button is on screen
    question = (
        "Сумма платежей по регионам за 3 квартал 2026"
        if lang == "ru"
        else "Revenue by region in Q3 2026"
    )
    turn = _ask(page, question)
    top = turn.locator(".answer-head").bounding_box()
    conv = page.locator("#conversation").bounding_box()
    assert (
        conv["y"] - 1 <= top["y"] <= conv["y"] + conv["height"] - 20
    )  # the answer's start is in view
    assert sideways() <= 0
    _shot(page, f"flows-chat-390-{lang}-answer")
    page.click("#menu-button")
    page.wait_for_function(
        "() => document.getElementById('sidebar').getBoundingClientRect().x >= 0"
    )
    _shot(page, f"flows-chat-390-{lang}-drawer")
    page.keyboard.press("Escape")
    page.wait_for_function("() => !document.body.classList.contains('drawer-open')")
    for path in ("/docs", "/task"):
        page.goto(authed.url + path)
        _ready(page)
        assert sideways() <= 0, path
        _shot(page, f"flows-{path.strip('/')}-390-{lang}")
    assert _errors(page) == []


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_desktop_1280_screens(browser, authed, lang):  # noqa: F811
    page = _page(browser, DESKTOP, lang=lang, token=authed.token)
    page.goto(authed.url + "/")
    _ready(page)
    question = (
        "Сумма платежей по месяцам в 2025 году" if lang == "ru" else "Revenue by month in 2025"
    )
    _ask(page, question)
    page.wait_for_function(
        "() => { const c = document.querySelector('.chart-box canvas'); return c && "
        "Chart.getChart(c); }"
    )
    _shot(page, f"flows-chat-1280-{lang}")
    clarify = "Сколько открыли в мае 2025?" if lang == "ru" else "How many were opened in May 2025?"
    turn = _ask(page, clarify)
    turn.locator(".clarify-options .option").first.wait_for()
    _shot(page, f"flows-clarification-1280-{lang}")
    page.goto(authed.url + "/docs")
    _ready(page)
    page.locator("#measure-nav a", has_text="[Amount per Customer]").click()
    page.wait_for_selector("#doc .diagram svg")
    label = page.evaluate(
        "() => Math.max(...[...document.querySelectorAll('#doc .diagram svg text, #doc "
        ".diagram svg .nodeLabel')].map(t => parseFloat(getComputedStyle(t).fontSize) * "
        "(t.getBoundingClientRect().height ? 1 : 0)))"
    )
    assert label >= 12, f"diagram labels are {label}px"  # legible, not squeezed to the column
    _shot(page, f"flows-docs-1280-{lang}")
    page.goto(authed.url + "/task")
    _ready(page)
    _shot(page, f"flows-task-1280-{lang}")
    assert _errors(page) == []
