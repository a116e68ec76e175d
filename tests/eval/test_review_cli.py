"""The review queue through the CLI: the judge disagrees with the automatic check, a person
decides with a comment (refused without one), and the metric changes; then list, compare,
report, bank and run itself."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer
import yaml
from typer.testing import CliRunner

from vitrina.eval.commands import register
from vitrina.eval.experiment import RunConfig
from vitrina.eval.metrics import summarize
from vitrina.eval.runner import run_suite
from vitrina.eval.store import EvalStore
from vitrina.eval.suite import load_suite
from vitrina.llm.client import LLMClient
from vitrina.llm.fake import ScriptedChatModel

ROUNDED = (
    "SELECT ROUND(SUM(amount_rub)) FROM dwh.fact_payment WHERE status = 'success' "
    "AND payment_date BETWEEN DATE '2025-05-01' AND DATE '2025-05-31'"
)


@pytest.fixture
def cli() -> typer.Typer:
    app = typer.Typer()
    register(app)
    return app


@pytest.fixture
def small_suite(tmp_path: Path, demo_db: Path) -> Path:
    body = {
        "name": "review-demo",
        "warehouse": f"duckdb:///{demo_db}",
        "today": "2026-11-30",
        "cases": [
            {
                "id": "revenue_rounded",
                "question": "Какая выручка за май 2025?",
                "expect": "answered",
                "reference_sql": ROUNDED,
                "tags": ["money"],
            },
            {
                "id": "mortgages",
                "question": "Сколько ипотек выдали в 2025 году?",
                "expect": "refused",
            },
        ],
    }
    path = tmp_path / "review-demo.yaml"
    path.write_text(yaml.safe_dump(body, allow_unicode=True), encoding="utf-8")
    return path


def _judge(*replies: dict) -> LLMClient:
    return LLMClient(ScriptedChatModel({"eval_judge": list(replies)}), timeout_s=5, max_retries=0)


def test_review_round_trip(cli: typer.Typer, small_suite: Path, store: EvalStore) -> None:
    runner = CliRunner()
    suite = load_suite(small_suite)
    before = run_suite(suite, RunConfig(name="no-judge", mode="rules", judge=False), store=store)
    assert (
        summarize(before.cases).accuracy == 0.5
    )  # rounded reference: the automatic check says wrong

    judged = run_suite(
        suite,
        RunConfig(name="judged", mode="rules"),
        store=store,
        judge_client=_judge({"equivalent": True, "reason": "the same sum rounded to rubles"}),
    )
    case = next(c for c in judged.cases if c.case_id == "revenue_rounded")
    assert (case.auto_ok, case.judge_ok, case.in_review, case.final) == (False, True, True, "wrong")
    s = summarize(judged.cases)
    assert (s.accuracy, s.in_review) == (0.5, 1)

    shown = runner.invoke(cli, ["eval", "review"], input="skip\n")
    assert shown.exit_code == 0, shown.output
    assert "revenue_rounded" in shown.output and "the same sum rounded to rubles" in shown.output

    refused = runner.invoke(
        cli, ["eval", "review", "--case", "revenue_rounded", "--verdict", "right"]
    )
    assert refused.exit_code == 2
    assert "a verdict needs a comment" in refused.output and "нужен комментарий" in refused.output
    assert store.load_run(judged.id).cases[0].manual is None

    done = runner.invoke(
        cli,
        [
            "eval",
            "review",
            "--case",
            "revenue_rounded",
            "--verdict",
            "right",
            "--comment",
            "rounding to rubles is fine for this question",
        ],
    )
    assert done.exit_code == 0, done.output
    after = summarize(store.load_run(judged.id).cases)
    assert (after.accuracy, after.in_review, after.right) == (1.0, 0, 2)
    assert "nothing to review" in runner.invoke(cli, ["eval", "review"]).output

    # the next run meets the same pair of results: the person's verdict is reused, no judge asked
    again = run_suite(
        suite, RunConfig(name="again", mode="rules"), store=store, judge_client=_judge()
    )
    assert summarize(again.cases).accuracy == 1.0
    assert "manual verdict reused" in again.cases[0].reason

    listed = runner.invoke(cli, ["eval", "list"], env={"COLUMNS": "200"})
    assert listed.exit_code == 0 and judged.id in listed.output and "100.0%" in listed.output

    compared = runner.invoke(cli, ["eval", "compare", before.id, judged.id], env={"COLUMNS": "200"})
    assert compared.exit_code == 0, compared.output
    assert "+50.0 pp" in compared.output and "fixed / исправлено (1)" in compared.output
    assert "revenue_rounded" in compared.output

    missing = runner.invoke(cli, ["eval", "compare", before.id, "nope"])
    assert missing.exit_code == 2 and "no run matches 'nope'" in missing.output


def test_run_command_with_html_and_bank(
    cli: typer.Typer, small_suite: Path, tmp_path: Path
) -> None:
    runner = CliRunner()
    config = tmp_path / "config.yaml"
    config.write_text(
        "name: strict\nmode: rules\nresources: {max_sql_attempts: 1}\noptions: {chart: 'off'}\n",
        encoding="utf-8",
    )
    html = tmp_path / "out" / "report.html"
    result = runner.invoke(
        cli,
        ["eval", "run", str(small_suite), "--config", str(config), "--html", str(html)],
        env={"COLUMNS": "200"},
    )
    assert result.exit_code == 0, result.output
    assert "strict" in result.output and "accuracy / точность" in result.output
    assert "revenue_rounded" in result.output  # the failure is listed with its reason
    page = html.read_text(encoding="utf-8")
    assert "revenue_rounded" in page and "SELECT" in page and "expected / ожидалось" in page

    bad = tmp_path / "bad.yaml"
    bad.write_text("options: {guard: false}\n", encoding="utf-8")
    refused = runner.invoke(cli, ["eval", "run", str(small_suite), "--config", str(bad)])
    assert refused.exit_code == 2 and "cannot be switched off" in refused.output

    report = runner.invoke(cli, ["eval", "report", "last"], env={"COLUMNS": "200"})
    assert report.exit_code == 0 and "strict" in report.output
    assert "the bank is empty" in runner.invoke(cli, ["eval", "bank"]).output
