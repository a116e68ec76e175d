"""The demo golden set run as an eval suite in rules mode: accuracy, counts and the reports."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from vitrina.eval.experiment import RunConfig
from vitrina.eval.metrics import summarize
from vitrina.eval.report_html import render_html
from vitrina.eval.report_terminal import report
from vitrina.eval.runner import run_suite
from vitrina.eval.store import EvalStore
from vitrina.eval.suite import load_suite

MIN_ACCURACY = 0.95  # measured: 150 / 150 right on the demo warehouse (rules only)


def test_golden_set_as_a_suite(suite_file: Path, store: EvalStore) -> None:
    suite = load_suite(suite_file)
    assert len(suite.cases) >= 150
    by_expect = {
        e: sum(c.expect == e for c in suite.cases) for e in ("answered", "refused", "clarification")
    }
    scripted_clarifications = sum(c.kind == "clarification" for c in suite.cases)
    run = run_suite(suite, RunConfig(mode="rules"), store=store)
    s = summarize(run.cases)
    print(
        f"golden suite, rules: accuracy {s.accuracy}, {s.right}/{s.scored} right, "
        f"refusals {s.refusal_right}/{s.refusal_cases}, at once {s.right_at_once}, "
        f"after clarification {s.right_after_clarification}, p50 {s.latency_p50_ms} ms"
    )
    assert run.config_name == "rules"
    assert s.cases == len(suite.cases) and s.pending == 0 and s.in_review == 0
    assert s.accuracy is not None and s.accuracy >= MIN_ACCURACY
    assert s.refusal_cases == by_expect["refused"] == 15 and s.refusal_accuracy == 1.0
    assert s.answer_cases == by_expect["answered"]
    # the golden dialogs that answer a clarification (measured: 5 of 5), and the must-clarify cases
    assert s.right_after_clarification >= scripted_clarifications - 1
    assert s.clarified_cases >= scripted_clarifications + by_expect["clarification"] - 1
    assert s.clarification_rate == round(s.clarified_cases / s.cases, 4)
    assert s.invented_answers == 0 and s.invented_number_rate == 0.0
    assert s.llm_calls == 0 and s.total_tokens == 0

    stored = store.load_run(run.id)
    assert summarize(stored.cases) == s

    text = _render(report([stored]))
    assert "accuracy / точность" in text and "refusal accuracy" in text
    html = render_html([stored])
    assert "<table>" in html and "latency p95" in html and "Every case is right" in html


def _render(renderable: object) -> str:
    console = Console(width=160, record=True, file=io.StringIO())
    console.print(renderable)
    return console.export_text()
