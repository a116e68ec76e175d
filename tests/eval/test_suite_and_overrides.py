"""Suite format errors, run overrides that never touch files (virtual topic, instructions,
prompts, resources), the invented-number check, and the bank seeded from a suite."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path

import pytest
import yaml
from langchain_core.messages import HumanMessage, SystemMessage

from vitrina.catalog import load_catalog
from vitrina.config import load_settings
from vitrina.eval.errors import EvalError
from vitrina.eval.experiment import load_matrix, parse_config
from vitrina.eval.invented import invented_numbers
from vitrina.eval.overrides import PromptedClient, catalog_for, settings_for
from vitrina.eval.runner import run_suite
from vitrina.eval.store import EvalStore
from vitrina.eval.suite import load_suite
from vitrina.llm.client import LLMClient
from vitrina.llm.fake import ScriptedChatModel

ROOT = Path(__file__).resolve().parents[2]


def _write(path: Path, data: object) -> Path:
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    return path


def test_demo_suite_reuses_the_golden_file() -> None:
    suite = load_suite(ROOT / "suites" / "demo.yaml")
    assert (
        suite.name == "demo"
        and suite.warehouse_url() is None
        and suite.today == dt.date(2026, 11, 30)
    )
    kinds = {c.kind for c in suite.cases}
    assert kinds == {"plain", "followup", "clarification", "must_clarify", "must_refuse"}
    assert sum(c.is_ordered for c in suite.cases) == 8  # the top-N questions


@pytest.mark.parametrize(
    ("case", "message"),
    [
        (
            {"id": "a", "question": "q", "expect": "answered"},
            "needs reference_sql or reference_rows",
        ),
        (
            {"id": "a", "question": "q", "turns": ["x"], "expect": "refused"},
            "either `question` or `turns`",
        ),
        ({"id": "a", "question": "q", "expect": "maybe"}, "expect"),
        ({"id": "a", "question": "q", "expect": "refused", "colour": 1}, "colour"),
    ],
)
def test_suite_errors_name_file_and_case(tmp_path: Path, case: dict, message: str) -> None:
    path = _write(tmp_path / "s.yaml", {"name": "s", "cases": [case]})
    with pytest.raises(EvalError) as info:
        load_suite(path)
    assert (
        str(path) in str(info.value) and "case a" in str(info.value) and message in str(info.value)
    )


def test_an_unset_variable_of_warehouse_or_catalog_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = {"id": "a", "question": "q", "expect": "refused"}
    spec = {"name": "s", "warehouse": "${VT_UNSET_DB}", "catalog": "${VT_CAT}", "cases": [case]}
    suite = load_suite(_write(tmp_path / "s.yaml", spec))
    monkeypatch.delenv("VT_UNSET_DB", raising=False)
    monkeypatch.delenv("VT_CAT", raising=False)
    for read, name in ((suite.warehouse_url, "VT_UNSET_DB"), (suite.catalog_dir, "VT_CAT")):
        with pytest.raises(EvalError) as info:
            read()
        assert name in str(info.value) and str(tmp_path / "s.yaml") in str(info.value)
    monkeypatch.setenv("VT_UNSET_DB", "duckdb:///x.duckdb")
    monkeypatch.setenv("VT_CAT", str(tmp_path / "cat"))
    assert suite.warehouse_url() == "duckdb:///x.duckdb"
    assert suite.catalog_dir() == tmp_path / "cat"


def test_duplicate_ids(tmp_path: Path) -> None:
    case = {"id": "a", "question": "q", "expect": "refused"}
    with pytest.raises(EvalError, match="repeated: a"):
        load_suite(_write(tmp_path / "s.yaml", {"name": "s", "cases": [case, case]}))


def test_virtual_topic_and_instructions_live_in_a_copy() -> None:
    base = load_catalog()
    config = parse_config(
        {
            "virtual_topic": {
                "topic": {
                    "id": "loyalty",
                    "name_ru": "Лояльность",
                    "name_en": "Loyalty",
                    "keywords": {"кешбэк": 3},
                    "tables": ["dwh.fact_payment"],
                },
                "metrics": [
                    {
                        "id": "cashback",
                        "name_ru": "Кешбэк",
                        "name_en": "Cashback",
                        "table": "dwh.fact_payment",
                        "expression": "SUM(fee_rub)",
                        "topic": "loyalty",
                        "format": "money",
                    }
                ],
            },
            "instructions": {
                "only": [base.instructions[0].id],
                "add": [{"id": "new", "text": "Be brief."}],
            },
        }
    )
    copy = catalog_for(config, base)
    assert "loyalty" in copy.topics and "cashback" in copy.metrics
    assert [i.id for i in copy.instructions] == [base.instructions[0].id, "new"]
    assert (
        "loyalty" not in base.topics and len(base.instructions) > 2
    )  # the catalog on disk is untouched
    assert catalog_for(parse_config({}), base) is base

    broken = parse_config(
        {
            "virtual_topic": {
                "topic": {"id": "x", "name_ru": "x", "name_en": "x"},
                "metrics": [
                    {
                        "id": "m",
                        "name_ru": "m",
                        "name_en": "m",
                        "table": "dwh.nowhere",
                        "expression": "1",
                    }
                ],
            }
        }
    )
    with pytest.raises(EvalError, match=r"unknown table 'dwh\.nowhere'"):
        catalog_for(broken, base)


def test_resources_model_params_and_options() -> None:
    config = parse_config(
        {
            "resources": {"max_sql_attempts": 1, "row_cap": 50},
            "model": {"temperature": 0.7},
            "options": {"semantic_check": False},
            "examples": {"use": False},
        }
    )
    settings = settings_for(config, load_settings())
    assert (settings.max_sql_attempts, settings.row_cap, settings.llm_temperature) == (1, 50, 0.7)
    options = config.ask_options()
    assert (
        options.semantic_check is False
        and options.examples is False
        and options.instructions is True
    )
    with pytest.raises(EvalError, match="unknown options"):
        parse_config({"options": {"magic": True}})


def test_prompt_overrides(tmp_path: Path) -> None:
    (tmp_path / "tables.md").write_text("NEW RULES\n{{ prompt }}", encoding="utf-8")
    _write(
        tmp_path / "m.yaml",
        {
            "base": {"mode": "llm"},
            "configs": [
                {"name": "file", "prompts": {"tables": {"file": "tables.md"}}},
                {"name": "append", "prompts": {"topic": {"append": "Prefer payments."}}},
            ],
        },
    )
    _, (by_file, by_append) = load_matrix(tmp_path / "m.yaml")
    assert by_file.prompts["tables"].template == "NEW RULES\n{{ prompt }}"
    base = LLMClient(ScriptedChatModel({}), timeout_s=5)
    client = PromptedClient(base, {**by_file.prompts, **by_append.prompts})
    assert client.rewrite("tables", "pick tables")[0].content == "NEW RULES\npick tables"
    rewritten = client.rewrite("topic", [SystemMessage("sys"), HumanMessage("which topic")])
    assert [m.content for m in rewritten] == ["sys", "which topic\n\nPrefer payments."]
    assert client.rewrite("sql_generation", "as is") == "as is"


def test_invented_numbers() -> None:
    rows = [["Москва", Decimal("3700.456")], ["Самара", Decimal("1300")]]
    columns = ["region", "amount"]
    ok = "Всего 5 000,46 ₽: Москва — 3 700,46 ₽, Самара — 1 300 ₽ (2 строки). Период: май 2025."
    assert invented_numbers(ok, columns, rows, trusted=["Сумма за май 2025"]) == []
    assert invented_numbers("Москва — 3 701 ₽, рост 17 %", columns, rows) == [
        Decimal("3701"),
        Decimal("17"),
    ]
    assert invented_numbers("Топ 5 регионов", columns, rows, trusted=["Топ 5 регионов"]) == []


def test_bank_seeded_from_the_suite(tmp_path: Path, demo_db: Path, store: EvalStore) -> None:
    suite = load_suite(
        _write(
            tmp_path / "s.yaml",
            {
                "name": "seeded",
                "warehouse": f"duckdb:///{demo_db}",
                "today": "2026-11-30",
                "cases": [
                    {
                        "id": "opened",
                        "question": "Сколько открыли в мае 2025?",
                        "expect": "answered",
                        "answers": {"wallets,cards": "кошельки"},
                        "reference_sql": "SELECT COUNT(*) FROM dwh.fact_wallet_opening "
                        "WHERE open_date BETWEEN DATE '2025-05-01' AND DATE '2025-05-31'",
                    },
                    {
                        "id": "opened_no_answer",
                        "question": "Сколько открыли в мае 2025?",
                        "expect": "answered",
                        "reference_rows": [[1]],
                    },
                ],
            },
        )
    )
    run = run_suite(suite, parse_config({"mode": "rules"}), store=store)
    first, second = run.cases
    assert (first.final, first.clarifications, first.kind) == ("right", 1, "clarification")
    assert (
        second.final == "pending"
        and "vitrina eval bank --answer seeded:opened_no_answer" in second.reason
    )
    bank = {e.case_id: e for e in store.bank("seeded")}
    assert bank["opened"].answer == "кошельки" and bank["opened"].source == "suite"
    assert (
        bank["opened_no_answer"].answer is None and bank["opened_no_answer"].key == "wallets,cards"
    )
