"""The web UI in Debian's Chromium against a real `vitrina serve` on 127.0.0.1.

Screenshots go to test-artifacts/browser/. Skipped with a reason when Chromium or the
vendored chart libraries are absent (required under CI=true).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import openpyxl
import pytest

from vitrina.server.assets import vendor_status
from vitrina.server.spawn import spawn_server

CHROMIUM = "/usr/bin/chromium"
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "browser"


def _require(condition: bool, reason: str) -> None:
    if not condition:
        if IN_CI:
            pytest.fail(f"CI=true but {reason}")
        pytest.skip(reason)


@pytest.fixture(scope="module")
def browser():
    _require(Path(CHROMIUM).exists(), f"{CHROMIUM} not found (apt-get install -y chromium)")
    _require(
        all(vendor_status().values()),
        "Chart.js/Mermaid not installed: run `python -m vitrina.server.assets`",
    )
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        chromium = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        yield chromium
        chromium.close()


@pytest.fixture
def server(demo_db, docs_dir, tmp_path):
    env = {
        "VITRINA_HOME": str(tmp_path / "home"),
        "VITRINA_DB_URL": f"duckdb:///{demo_db}",
        "VITRINA_DOCS_DIR": str(docs_dir),
    }
    with spawn_server(env, "--no-auth", log=tmp_path / "serve.log") as proc:
        yield proc


@pytest.fixture
def page(browser, request):
    context = browser.new_context(
        viewport={"width": 1440, "height": 900}, locale="ru-RU", accept_downloads=True
    )
    page = context.new_page()
    page.console_errors = []
    page.on("console", lambda m: page.console_errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: page.console_errors.append(str(e)))
    yield page
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{request.node.name}-final.png"), full_page=True)
    context.close()


def _shot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def _ask(page, text: str) -> None:
    page.fill("#question", text)
    page.click("#send")


def test_ask_see_steps_table_chart_and_download_excel(page, server, tmp_path):
    page.goto(server.url + "/")
    page.wait_for_selector("body[data-ready='1']")
    # the start panel is the catalog's: auto + its segments, its examples, its topics
    assert page.locator("#segment-picker button").all_inner_texts() == ["Авто", "B2B", "B2C"]
    assert page.locator("#topic-picker .chip").count() >= 3
    examples = page.locator("#examples .example").all_inner_texts()
    assert examples and "Сколько кошельков открыли в мае 2025?" in examples  # examples.yaml
    assert "платежи" in page.locator("#question").get_attribute("placeholder")
    _shot(page, "01-start")
    _ask(page, "Сумма платежей по месяцам в 2025 году")
    turn = page.locator(".turn").last
    turn.locator(".status-answered").first.wait_for()
    steps = turn.locator(".steps .step")
    assert steps.count() >= 10
    names = turn.locator(".step-name").all_inner_texts()
    assert "Генерация SQL" in names and "Выполнение запроса" in names
    assert all(ms.endswith(("ms", " s")) for ms in turn.locator(".step-ms").all_inner_texts())
    assert turn.locator("table.result tbody tr").count() == 12
    assert "12" in turn.locator(".table-note").inner_text()
    canvas = turn.locator(".chart-box canvas")
    canvas.wait_for()
    page.wait_for_function(
        "() => { const c = document.querySelector('.chart-box canvas');"
        " return c && window.Chart && Chart.getChart(c) && c.width > 0; }"
    )
    _shot(page, "02-answer")
    with page.expect_download() as download_info:
        turn.locator("a.btn-excel").click()
    target = tmp_path / "result.xlsx"
    download_info.value.save_as(target)
    sheet = openpyxl.load_workbook(target).active
    assert sheet.max_row == 13 and sheet.cell(2, 2).value is not None
    assert page.console_errors == []


def test_clarification_by_click_then_reload_finds_the_dialog(page, server):
    page.goto(server.url + "/")
    page.wait_for_selector("body[data-ready='1']")
    _ask(page, "Сколько открыли в мае 2025?")
    options = page.locator(".turn").last.locator(".clarify-options .option")
    options.first.wait_for()
    assert options.count() >= 2
    _shot(page, "03-clarification")
    label = options.first.inner_text().split("\n")[-1].strip()
    options.first.click()
    answered = page.locator(".turn").nth(1)
    answered.locator(".status-answered").first.wait_for()
    assert answered.locator(".kpi-card").count() == 1  # a single number is drawn as a card
    # the reply continues the clarified question (issue 34): not the option's word as a question
    assert answered.locator(".q-text").inner_text() == "Сколько открыли в мае 2025?"
    chosen = page.locator(".turn").first.locator(".option.chosen")
    assert chosen.count() == 1 and label in chosen.inner_text()
    url = page.url
    assert "#/t/" in url
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    page.locator(".turn").nth(1).wait_for()
    assert page.locator(".turn").count() == 2
    assert (
        page.locator("#thread-list li a")
        .first.inner_text()
        .startswith("Сколько открыли в мае 2025?")
    )
    assert page.locator(".turn").first.locator(".option.chosen").count() == 1
    _shot(page, "04-reloaded")
    page.goto(server.url + "/")
    page.wait_for_selector("body[data-ready='1']")
    page.locator("#thread-list li a").first.click()
    page.locator(".turn").nth(1).wait_for()
    assert page.console_errors == []


def test_language_switch(page, server):
    page.goto(server.url + "/")
    page.wait_for_selector("body[data-ready='1']")
    assert page.locator("#send").inner_text() == "Спросить"
    page.click(".lang-switch button[data-lang='en']")
    assert page.locator("#send").inner_text() == "Ask"
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    assert page.locator("#send").inner_text() == "Ask"


def test_measure_docs_page_draws_mermaid(page, server):
    page.goto(server.url + "/docs")
    page.wait_for_selector("body[data-ready='1']")
    assert page.locator("#measure-nav a").count() >= 10
    page.locator("#measure-nav a", has_text="[Amount per Customer]").click()
    page.wait_for_selector("#doc pre.mermaid svg")
    assert "DIVIDE" in page.locator("#doc").inner_text()
    _shot(page, "05-measure")
    page.locator("#doc a[data-measure='Customers']").first.click()
    page.wait_for_function(
        "() => document.querySelector('#doc h1') && document.querySelector('#doc "
        "h1').textContent.includes('[Customers]')"
    )
    page.click("a[href='#manual']")
    page.wait_for_function(
        "() => document.querySelectorAll('#doc pre.mermaid').length > 5", timeout=30000
    )
    page.locator("#doc pre.mermaid").first.scroll_into_view_if_needed()
    page.wait_for_selector("#doc pre.mermaid svg", timeout=30000)  # a diagram in view is drawn
    total = page.locator("#doc pre.mermaid").count()
    drawn = page.locator("#doc pre.mermaid svg").count()
    assert total > drawn  # the rest wait until they come near the view (lazy)
    for n in range(5):  # scrolling draws them
        page.locator("#doc pre.mermaid").nth(n).scroll_into_view_if_needed()
    page.wait_for_function(
        "() => document.querySelectorAll('#doc pre.mermaid svg').length >= 5", timeout=30000
    )
    assert page.console_errors == []


def test_missing_vendor_files_are_explained(page, server, monkeypatch):
    """With the libraries gone the page still answers and says what to run."""
    from vitrina.server import assets

    backup = assets.VENDOR_DIR.with_name("vendor.bak-test")
    shutil.move(assets.VENDOR_DIR, backup)
    try:
        page.goto(server.url + "/")
        page.wait_for_selector("body[data-ready='1']")
        assert "vitrina.server.assets" in page.locator("#banner").inner_text()
    finally:
        shutil.move(backup, assets.VENDOR_DIR)


def test_task_page_redo_comment_refused_then_applied(page, server):
    """Rules mode (no model configured): a redo comment the rules cannot read is refused on the
    page with what the step takes; one they can read reruns the step with the new period."""
    missing = []
    page.on("response", lambda r: missing.append(r.url) if r.status == 404 else None)
    page.goto(server.url + "/task")
    page.fill("#request", "Открытия кошельков по регионам за 3 квартал 2026")
    page.click("#start button[type=submit]")
    page.get_by_role("button", name="Одобрить").click()  # the plan
    page.wait_for_selector("#current h2", timeout=60_000)
    comments = iter(["сделай красивее", "за 2 квартал 2026"])
    page.on("dialog", lambda d: d.accept(next(comments)))
    page.get_by_role("button", name="Повторить").click()
    notice = page.wait_for_selector("#current .notice", timeout=60_000)
    assert "Комментарий не понят без модели" in notice.inner_text()
    _shot(page, "task-redo-refused")
    page.get_by_role("button", name="Повторить").click()
    page.wait_for_function(
        "() => document.querySelector('#current') && "  # a function: the CSP forbids eval
        "document.querySelector('#current').innerText.includes('Повтор с изменениями')",
        timeout=60_000,
    )
    assert "II квартал 2026" in page.inner_text("#current")
    assert [u for u in missing if not u.endswith("/favicon.ico")] == [], (
        "only the browser's own icon request"
    )
