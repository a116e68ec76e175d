"""The CLI driven through Typer's runner, on the real demo warehouse."""

from __future__ import annotations

import json
import re
from pathlib import Path

import openpyxl
from typer.testing import CliRunner

from vitrina.cli import app
from vitrina.config import load_settings
from vitrina.warehouse.privileges import reader_role_name

runner = CliRunner()


def run(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.output


def test_ask_json_is_stable(demo_db: Path) -> None:
    code, out = run(
        "ask", "Сумма платежей по каналам в 2025 году", "--db", f"duckdb:///{demo_db}", "--json"
    )
    assert code == 0, out
    data = json.loads(out)
    for key in (
        "question",
        "rewritten_question",
        "topic",
        "period",
        "sql",
        "columns",
        "rows",
        "answer",
        "chart",
        "trace",
        "status",
    ):
        assert key in data
    assert data["status"] == "answered" and data["topic"] == "payments"
    assert data["columns"] == ["channel", "payment_amount"] and len(data["rows"]) == 4


def test_ask_writes_excel_and_chart(demo_db: Path, tmp_path: Path) -> None:
    xlsx, png = tmp_path / "out.xlsx", tmp_path / "out.png"
    code, out = run(
        "ask",
        "Количество платежей по месяцам в 2025 году",
        "--db",
        f"duckdb:///{demo_db}",
        "--excel",
        str(xlsx),
        "--chart",
        str(png),
        "--trace",
    )
    assert code == 0, out
    assert "Decision trace" in out
    sheet = openpyxl.load_workbook(xlsx).worksheets[0]
    assert sheet.max_row == 13  # header + 12 months
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_default_files_come_after_the_answer(demo_db: Path) -> None:
    code, out = run(
        "ask", "Количество платежей по месяцам в 2025 году", "--db", f"duckdb:///{demo_db}"
    )
    assert code == 0, out
    answer, excel, chart = out.index("answered ·"), out.index("Excel:"), out.index("Chart:")
    assert (
        answer < excel < chart and out.index("thread ") < excel
    )  # the answer first, then the files
    run_id = out[out.index("· run ") :].split()[2]
    outputs = load_settings().outputs_dir / run_id
    assert sorted(p.name for p in outputs.iterdir()) == ["chart.png", "result.xlsx"]


def test_clarification_round_trip(demo_db: Path) -> None:
    code, out = run("ask", "Сколько открыли в мае 2025?", "--db", f"duckdb:///{demo_db}", "--json")
    assert code == 0, out
    data = json.loads(out)
    assert data["status"] == "clarification"
    code, out = run(
        "ask", "1", "--db", f"duckdb:///{demo_db}", "--thread", data["thread_id"], "--json"
    )
    assert json.loads(out)["topic"] == "wallets"


def test_bad_input_is_a_message_not_a_traceback(tmp_path: Path) -> None:
    code, out = run("ask", "x", "--segment", "b2x")
    assert code == 2 and "unknown segment 'b2x': this catalog has auto, b2b, b2c" in out
    code, out = run("ask", "x", "--catalog", str(tmp_path / "missing"))
    assert code == 2 and "catalog folder not found" in out
    code, out = run("ask", "Сумма платежей в 2025", "--db", f"duckdb:///{tmp_path / 'nope.duckdb'}")
    assert code == 1 and "Traceback" not in out and "Хранилище недоступно" in out


def test_catalog_check(tmp_path: Path) -> None:
    from vitrina.catalog import DEMO_CATALOG

    code, out = run("catalog", "check", str(DEMO_CATALOG))
    assert code == 0 and "OK" in out
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "t.yaml").write_text(
        "tables:\n  - name: a.b\n    columns:\n      - {name: x, role: nope}\n"
    )
    code, out = run("catalog", "check", str(bad))
    assert code == 1 and f"{bad / 't.yaml'}:4" in out and "role" in out


def test_catalog_check_compiles_against_the_database(tmp_path: Path, demo_db: Path) -> None:
    from vitrina.catalog import DEMO_CATALOG

    db = f"duckdb:///{demo_db}"
    code, out = run("catalog", "check", str(DEMO_CATALOG), "--db", db)
    assert code == 0 and "OK" in out and "compiled against" in out, out
    # consistent with itself, but the warehouse has no such column: only the database finds it
    renamed = tmp_path / "renamed"
    for f in DEMO_CATALOG.rglob("*.yaml"):
        target = renamed / f.relative_to(DEMO_CATALOG)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(f.read_text(encoding="utf-8").replace("fee_rub", "fee_total"))
    code, out = run("catalog", "check", str(renamed))
    assert code == 0, out
    code, out = run("catalog", "check", str(renamed), "--db", db)
    assert code == 1, out
    assert "metrics fee_income" in out and "fee_total" in out
    assert "tables dwh.fact_payment" in out and "Traceback" not in out
    # a metric naming a column of no catalog table is reported without a database
    broken = tmp_path / "broken"
    for f in DEMO_CATALOG.rglob("*.yaml"):
        target = broken / f.relative_to(DEMO_CATALOG)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(f.read_text(encoding="utf-8").replace("SUM(fee_rub)", "SUM(x_fee)"))
    code, out = run("catalog", "check", str(broken))
    assert code == 1 and "metrics fee_income" in out and "x_fee" in out, out
    code, out = run("catalog", "check", str(DEMO_CATALOG), "--db", "nosuch://x")
    assert code == 2 and "Traceback" not in out


def test_catalog_check_reads_sample_questions(tmp_path: Path) -> None:
    from vitrina.catalog import DEMO_CATALOG

    chinook = Path(__file__).resolve().parents[1] / "suites" / "chinook"
    sample = tmp_path / "questions.yaml"
    sample.write_text(
        "questions:\n"
        "  - Revenue by country in 2024\n"
        "  - Выручка до 2023 года по выходным\n"
        "  - Which countries had more than 10 invoices in 2024?\n"
        "  - Сколько сотрудников старше 60 лет?\n"
        "  - Delete all invoices\n",
        encoding="utf-8",
    )
    code, out = run(
        "catalog", "check", str(chinook), "--questions", str(sample), "--today", "2026-01-15",
        "--json",
    )  # fmt: skip
    assert code == 0, out
    readings = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    assert [r["outcome"] for r in readings] == [
        "answered", "answered", "answered", "refuse", "refuse"
    ]  # fmt: skip
    by_country, before_2023, having, older, delete = readings
    assert by_country["metrics"] == ["revenue"] and by_country["period"] == "2024"
    assert by_country["dimensions"] == ["main.invoice.BillingCountry"]
    assert by_country["date"] == "main.invoice.InvoiceDate" and by_country["sql"]
    assert before_2023["period"] == "до 01.01.2023" and before_2023["filters"] == ["weekend"]
    assert having["filters"] == ["Number of invoices > 10"]
    assert older["unexplained"] == ["старше", "60", "лет"]
    assert "only read" in delete["reason"]
    # a text file, one question a line, the readable form, a clarification
    lines = tmp_path / "questions.txt"
    lines.write_text("# demo\nСколько было платежей картами Visa в 2025 году?\n", encoding="utf-8")
    code, out = run("catalog", "check", str(DEMO_CATALOG), "--questions", str(lines))
    assert code == 0 and "-> clarify" in out and "1 questions: clarify 1" in out, out
    code, out = run("catalog", "check", str(DEMO_CATALOG), "--questions", str(tmp_path / "no"))
    assert code == 2 and "questions file not found" in out


def test_demo_builds_and_answers(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("VITRINA_HOME", str(tmp_path / "home"))
    code, out = run("demo", "--json")
    assert code == 0, out
    lines = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    assert (tmp_path / "home" / "demo" / "warehouse.duckdb").is_file()
    statuses = [line["status"] for line in lines]
    assert statuses.count("answered") >= 6 and "refused" in statuses
    assert {line["question"][:1].isascii() for line in lines} == {True, False}  # both languages


def test_chat_keeps_the_dialog(demo_db: Path) -> None:
    result = runner.invoke(
        app,
        ["chat", "--db", f"duckdb:///{demo_db}"],
        input="Сколько открыли в мае 2025?\n1\nа в декабре?\n\n",
    )
    assert result.exit_code == 0, result.output
    assert "Уточните, пожалуйста, о чём вопрос" in result.output and "1. Кошельки" in result.output
    assert "Открыто кошельков" in result.output  # the clarified answer (wallets)
    assert "в декабре 2025" in result.output  # the follow-up was rewritten with the year
    assert result.output.count("answered") == 2


def test_demo_loads_postgres(pg_url: str, demo_db: Path, monkeypatch, tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / "demo").mkdir(parents=True)
    (home / "demo" / "warehouse.duckdb").write_bytes(demo_db.read_bytes())
    monkeypatch.setenv("VITRINA_HOME", str(home))
    code, out = run("demo", "--load-postgres", pg_url, "--no-questions")
    assert code == 0, out
    assert "loaded" in out and "rows" in out
    reader = re.search(r"VITRINA_DB_URL='([^']+)'", out)
    role = reader_role_name(pg_url.rsplit("/", 1)[1])
    assert reader and reader[1].startswith(f"postgresql://{role}:"), out
    code, out = run("ask", "Сколько кошельков открыли в мае 2025?", "--json", "--db", reader[1])
    assert json.loads(out)["rows"] == [[2142]]
    # the superuser the data was loaded with is refused, with the recipe for the reader role
    code, out = run("ask", "Сколько кошельков открыли в мае 2025?", "--db", pg_url)
    assert code != 0
    assert f"CREATE ROLE {role}" in " ".join(out.split()) and "SUPERUSER" in out
