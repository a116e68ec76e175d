"""A report in the terminal and in JSON, through `vitrina.cli.main`: an answer like ask's
(the answer, the table, the file), the option chosen in words; the options' codes and scores
and the SQL only with --details; JSON holds the whole ask result of the run."""

from __future__ import annotations

import json

from tests.conftest import cli_main

REPORT = "отчёт: сумма платежей по регионам за 2025 год"


def test_a_report_prints_as_an_answer(capsys, demo_db, tmp_path) -> None:
    db = f"duckdb:///{demo_db}"
    code, out = cli_main(capsys, "route", REPORT, "--db", db, "--no-llm")
    assert code == 0, out
    assert "report → report · answered" in out
    assert "Вариант отчёта: Разбивка, как в запросе." in out
    assert "Москва" in out and "Регион" in out  # the table, its column named in words
    assert "[breakdown]" not in out and "← выбран" not in out and "SELECT" not in out

    code, out = cli_main(capsys, "route", REPORT, "--db", db, "--no-llm", "--details")
    assert code == 0, out
    assert "Технические подробности" in out and "[breakdown]: 12.0 ← выбран" in out
    assert "SELECT" in out  # the SQL, under the details

    code, out = cli_main(capsys, "route", REPORT, "--db", db, "--no-llm", "--json")
    data = json.loads(out)
    report = data["report"]
    assert report["result"]["status"] == "answered" and report["result"]["run_id"]
    assert report["result"]["table"]["columns"] and report["row_count"] == 12
    assert data["chosen"]["id"] == "breakdown"
