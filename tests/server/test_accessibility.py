"""Accessibility of the chat, docs and task pages: axe-core (from npm, copied into
static/vendor/ by `python -m vitrina.server.assets`, injected from that local file, never a
CDN) finds no violation of impact "serious" or "critical", at 1440 and 390 px.

Each page is checked in the states a user sees most: the chat empty (and its drawer on a
phone), with an answer (chart, table, feedback, follow-ups), with the developer trace shown;
the docs page with a drawn lineage diagram; the task page empty, with a plan waiting for
approval, and with a step waiting with its preview. Skipped with the reason when axe is not
installed, except under CI=true, where it must run.
"""

from __future__ import annotations

import pytest

from vitrina.server.assets import AXE_FILE

from .test_browser import _require, browser  # noqa: F401  (the module-scoped Chromium fixture)
from .test_browser_flows import PHONE, _ask, _errors, _page, _ready, _shot, authed  # noqa: F401

WIDE = {"width": 1440, "height": 900}
BLOCKING = ("serious", "critical")


def _violations(page) -> list[dict]:
    """axe's serious and critical violations of the page as it is now."""
    _require(AXE_FILE.is_file(), f"axe-core not installed ({AXE_FILE} missing): run `make assets`")
    if not page.evaluate("() => Boolean(window.axe)"):
        # from the server's own static/vendor/: the pages' CSP refuses an inline script
        page.add_script_tag(url="/static/vendor/axe.min.js")
    result = page.evaluate("() => axe.run(document, { resultTypes: ['violations'] })")
    return [v for v in result["violations"] if v["impact"] in BLOCKING]


def _report(where: str, violations: list[dict]) -> str:
    lines = [f"{where}: {len(violations)} serious/critical axe violations"]
    for v in violations:
        lines.append(f"- {v['id']} ({v['impact']}): {v['help']}")
        for node in v["nodes"][:8]:
            summary = (node.get("failureSummary") or "").replace("\n", " ")
            lines.append(f"    {node['target']}  {node['html'][:120]}  {summary[:200]}")
    return "\n".join(lines)


def _check(page, where: str) -> None:
    found = _violations(page)
    assert found == [], _report(where, found)


@pytest.mark.parametrize("viewport", [WIDE, PHONE], ids=["1440", "390"])
def test_chat_docs_and_task_pages_have_no_serious_violations(browser, authed, viewport):  # noqa: F811
    width = viewport["width"]
    page = _page(browser, viewport, token=authed.token)
    page.goto(authed.url + "/")
    _ready(page)
    _check(page, f"chat start {width}")
    if width < 768:
        page.click("#menu-button")
        page.wait_for_function("() => document.body.classList.contains('drawer-open')")
        _check(page, f"chat drawer {width}")
        page.keyboard.press("Escape")
    turn = _ask(page, "Сумма платежей по месяцам в 2025 году")
    turn.locator(".chart-box canvas").wait_for()
    turn.locator(".suggestions .chip").first.wait_for()
    _check(page, f"chat answer {width}")
    turn.locator(".turn-steps").evaluate("d => { d.open = true; }")  # closed on a phone
    turn.locator(".details-toggle").check()  # the developer trace is shown too
    turn.locator(".fb-down").click()  # the comment box opens
    _check(page, f"chat answer with details {width}")

    page.goto(authed.url + "/docs")
    _ready(page)
    if width < 768:
        page.click("#menu-button")
    page.locator("#measure-nav a", has_text="[Amount per Customer]").click()
    page.wait_for_function(
        "() => (document.querySelector('#doc h1') || {}).textContent === '[Amount per Customer]'"
        " && document.querySelector('#doc .diagram-scroll')"
    )
    page.locator("#doc .diagram-scroll").first.scroll_into_view_if_needed()  # drawn near view
    page.wait_for_selector("#doc pre.mermaid svg", timeout=30_000)
    _check(page, f"docs diagram {width}")

    page.goto(authed.url + "/task")
    _ready(page)
    _check(page, f"task start {width}")
    page.fill("#request", "Сумма платежей по регионам за 3 квартал 2026")
    page.click("#start button[type=submit]")
    page.get_by_role("button", name="Одобрить").wait_for(timeout=60_000)
    _check(page, f"task plan {width}")
    page.get_by_role("button", name="Одобрить").click()
    page.wait_for_selector("#current h2", timeout=60_000)  # step 1 waits with its preview
    _check(page, f"task step {width}")
    _shot(page, f"a11y-task-{width}")
    assert _errors(page) == []
