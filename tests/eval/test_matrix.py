"""A matrix of configurations end to end: rules only vs an LLM configuration (scripted fake
model) on a few golden cases, with the clarification bank stored and reused between runs."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from vitrina.eval.experiment import parse_matrix
from vitrina.eval.metrics import summarize
from vitrina.eval.report_html import write_html
from vitrina.eval.report_terminal import report
from vitrina.eval.run_compare import diff_runs, render_diff
from vitrina.eval.runner import run_matrix
from vitrina.eval.store import EvalStore
from vitrina.eval.suite import load_suite

from .helpers import scripted_model

CASES = [
    "ru_revenue_may_2025",
    "ru_top5_clients_by_revenue_2025",
    "ru_refunds_last_year_by_channel",
    "ru_refuse_mortgage",
    "ru_clarify_opened_pick_wallets_by_number",
]

MATRIX = {
    "name": "rules vs llm",
    "base": {"options": {"chart": "rules"}, "resources": {"max_sql_attempts": 2}},
    "configs": [
        {"name": "rules", "mode": "rules"},
        {
            "name": "llm",
            "mode": "llm",
            "model": {"temperature": 0.2},
            "options": {"semantic_check": False, "answer_writer": "auto"},
            "prompts": {
                "ambiguity": {"append": "Ask only when the topic really changes the answer."}
            },
            "instructions": {
                "add": [{"id": "eval_note", "text": "Revenue means successful payments."}]
            },
        },
    ],
}


def test_matrix_rules_vs_llm(suite_file: Path, store: EvalStore, tmp_path: Path) -> None:
    suite = load_suite(suite_file).select(CASES)
    assert len(suite.cases) == len(CASES)
    _, configs = parse_matrix(MATRIX)
    models = []

    def factory(config, settings):
        assert settings.llm_temperature == 0.2 and settings.max_sql_attempts == 2
        models.append(scripted_model())
        return models[-1]

    matrix_id, (rules, llm) = run_matrix(suite, configs, store=store, model_factory=factory)
    assert store.matrix_runs(matrix_id) == [rules.id, llm.id]
    sr, sl = summarize(rules.cases), summarize(llm.cases)
    assert (sr.accuracy, sr.pending, sr.llm_calls) == (1.0, 0, 0)

    # the model's "ambiguous" on a reading the rules make with certainty is ignored
    # (decision 174: "Выручка за май 2025" was a clarification between two topics)
    revenue = next(c for c in llm.cases if c.case_id == "ru_revenue_may_2025")
    assert revenue.final == "right" and revenue.clarifications == 0, revenue.reason
    assert sl.pending == 0 and sl.accuracy == 1.0
    assert sl.llm_calls > 0 and sl.prompt_tokens > 0  # an uncertain reading asked the model
    assert sl.right_after_clarification == 1  # the rules' own clarification, from the bank
    assert models[0].prompts_for("ambiguity") == []  # no reading left for it to doubt
    assert not any(e.case_id == "ru_revenue_may_2025" for e in store.bank("golden"))

    # a clarification stored in the bank is reused by the next run
    _, (_, llm2) = run_matrix(suite, configs, store=store, model_factory=factory)
    s2 = summarize(llm2.cases)
    assert s2.pending == 0 and s2.accuracy == 1.0
    d = diff_runs(llm, llm2)
    assert not d.fixed and not d.broken and not d.other
    out = io.StringIO()
    console = Console(file=out, width=160)
    console.print(report([rules, llm]))
    console.print(render_diff(d))
    text = out.getvalue()
    assert "right after clarification" in text and "none / нет" in text
    html = write_html([rules, llm], tmp_path / "matrix.html").read_text(encoding="utf-8")
    assert "Every case is right" in html  # the ambiguity that made it pending is gone
