"""The task's trace says how the sandbox ran: each analysis step's "sandbox run" names whether
nested namespaces were denied, and a warning says so when this machine could not deny them."""

from __future__ import annotations

import pytest

from vitrina.task.sandbox import isolation, runner

pytestmark = pytest.mark.skipif(
    isolation()[0] is None,
    reason="no bubblewrap sandbox on this machine (apt-get install bubblewrap)",
)
QUESTION = "Сравни выпуск карт по типам карт за октябрь 2026 с прошлым годом"


@pytest.fixture
def no_denial(monkeypatch):
    """A machine with no seccomp filter and no bwrap --disable-userns."""
    monkeypatch.setattr(runner.seccomp, "program", lambda machine=None: None)
    monkeypatch.setattr(runner, "_disable_userns", lambda: False)
    runner.nested_namespaces.cache_clear()
    yield
    runner.nested_namespaces.cache_clear()


def test_the_trace_says_when_nested_namespaces_are_allowed(make_task, no_denial):
    view = make_task().run(QUESTION)
    assert [s.status for s in view.plan] == ["done"] * 4
    runs = [e for e in view.trace if e.message == "sandbox run"]
    assert runs and all(e.data["nested_namespaces"].startswith("allowed: ") for e in runs)
    warnings = [e for e in view.trace if e.message == "sandbox: nested namespaces not denied"]
    assert len(warnings) == len(runs) and warnings[0].kind == "warning"


def test_the_trace_says_nested_namespaces_were_denied(make_task):
    view = make_task().run(QUESTION)
    runs = [e for e in view.trace if e.message == "sandbox run"]
    assert runs and all("seccomp filter" in e.data["nested_namespaces"] for e in runs)
    assert not [e for e in view.trace if e.message == "sandbox: nested namespaces not denied"]
