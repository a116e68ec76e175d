"""Two requests for what a page shows, answered out of order: the page draws the latest one.
A dialog opened, then another (its answer first): the second stays. On /docs, a language
switch (the manual) then a click on a measure: the measure stays. The slow answer is held
in the page (its fetch waits), so the order is the test's choice, not a race it hopes to win.
"""

from __future__ import annotations

from .test_accessibility import WIDE
from .test_browser import browser  # noqa: F401  (the module-scoped Chromium fixture)
from .test_browser_flows import _errors, _page, _ready, authed  # noqa: F401

# an answer whose URL holds window.__slow (when asked) comes 1.5 s late; then __slowDone
HOLD = """(() => {
  const real = window.fetch;
  window.fetch = async (...args) => {
    const url = String((args[0] && args[0].url) || args[0]);
    const slow = Boolean(window.__slow) && url.includes(window.__slow);
    const resp = await real(...args);
    if (slow) {
      await new Promise((done) => setTimeout(done, 1500));
      window.__slowDone = true;
    }
    return resp;
  };
})();"""


def test_the_latest_dialog_and_the_latest_doc_are_drawn(browser, authed):  # noqa: F811
    page = _page(browser, WIDE, token=authed.token)
    page.context.add_init_script(HOLD)
    page.goto(authed.url + "/")
    _ready(page)
    auth = {"Authorization": f"Bearer {authed.token}"}
    ids = []
    for title in ("Первый", "Второй"):
        made = page.request.post(
            authed.url + "/api/threads", headers=auth, data={"segment": "auto", "topics": []}
        )
        ids.append(made.json()["id"])
        renamed = page.request.patch(
            authed.url + f"/api/threads/{ids[-1]}", headers=auth, data={"title": title}
        )
        assert renamed.ok
    page.evaluate(
        "id => { window.__slow = '/api/threads/' + id; location.hash = '#/t/' + id; }", ids[0]
    )
    page.evaluate("id => { window.__slow = null; location.hash = '#/t/' + id; }", ids[1])
    page.wait_for_function("() => window.__slowDone === true")
    # the held answer's own code runs right after it resolves: a slower machine could only
    # let this pass too early, never fail a right page
    page.wait_for_timeout(300)
    assert page.locator("#dialog-title").inner_text() == "Второй"

    page.goto(authed.url + "/docs")
    _ready(page)
    page.evaluate("() => { window.__slow = '/api/docs/manual'; }")
    page.click(".lang-switch [data-lang=ru]")  # the manual again, held
    page.evaluate("() => { window.__slow = null; }")
    page.locator("#measure-nav a", has_text="[Amount YTD]").click()
    page.locator("#doc .doc-meta").wait_for()
    page.wait_for_function("() => window.__slowDone === true")
    page.wait_for_timeout(300)
    assert page.locator("#doc .doc-meta").count() == 1  # still the measure, not the manual
    assert _errors(page) == []
