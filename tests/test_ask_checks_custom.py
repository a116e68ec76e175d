"""Result checks and context pruning on a small warehouse built by the test, where the data
is wrong on purpose: a dimension with a duplicated key and a negative amount."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import duckdb
import pytest
import yaml

from vitrina.ask.service import AskService
from vitrina.catalog import load_catalog
from vitrina.config import load_settings

CATALOG = {
    "catalog": {"name": "shop"},
    "topics": [
        {
            "id": "sales",
            "name_ru": "Продажи",
            "name_en": "Sales",
            "keywords": {"продаж": 3, "sale": 3},
            "tables": ["s.sales", "s.stores"],
        }
    ],
    "tables": [
        {
            "name": "s.sales",
            "default_date": "sold_on",
            "topics": ["sales"],
            "columns": [
                {"name": "sale_id", "role": "key"},
                {"name": "store_id", "role": "key"},
                {"name": "sold_on", "type": "date", "role": "date"},
                {"name": "amount", "type": "decimal", "role": "measure"},
                {"name": "note", "role": "attribute"},
            ],
        },
        {
            "name": "s.stores",
            "columns": [
                {"name": "store_id", "role": "key"},
                {
                    "name": "city",
                    "role": "dimension",
                    "synonyms": ["город", "city"],
                    "label_ru": "Город",
                },
                {"name": "manager", "role": "attribute"},
            ],
        },
    ],
    "relations": [{"left": "s.sales.store_id", "right": "s.stores.store_id"}],
    "metrics": [
        {
            "id": "revenue",
            "name_ru": "Выручка",
            "name_en": "Revenue",
            "table": "s.sales",
            "expression": "SUM(amount)",
            "format": "money",
            "topic": "sales",
            "synonyms": ["выручк", "сумм продаж", "revenue"],
        }
    ],
}


@pytest.fixture
def shop(tmp_path: Path) -> AskService:
    db = tmp_path / "shop.duckdb"
    con = duckdb.connect(str(db))
    con.execute("CREATE SCHEMA s")
    con.execute("CREATE TABLE s.stores (store_id INT, city VARCHAR, manager VARCHAR)")
    # store 2 appears twice: a key that does not identify a row
    con.execute("INSERT INTO s.stores VALUES (1, 'Kazan', 'A'), (2, 'Omsk', 'B'), (2, 'Omsk', 'C')")
    con.execute(
        "CREATE TABLE s.sales "
        "(sale_id INT, store_id INT, sold_on DATE, amount DECIMAL(10,2), note VARCHAR)"
    )
    con.execute(
        "INSERT INTO s.sales VALUES "
        "(1, 1, DATE '2025-03-01', 100, ''), (2, 2, DATE '2025-03-02', -50, '')"
    )
    con.close()
    folder = tmp_path / "catalog"
    folder.mkdir()
    (folder / "catalog.yaml").write_text(
        yaml.safe_dump(CATALOG, allow_unicode=True), encoding="utf-8"
    )
    service = AskService(
        load_settings(db_url=f"duckdb:///{db}"),
        catalog=load_catalog(folder, strict=True),
        today=date(2026, 11, 30),
        write_files=False,
    )
    yield service
    service.close()


def test_fan_out_and_negative_values_are_flagged(shop: AskService) -> None:
    result = shop.ask("Выручка по городам в марте 2025")
    assert result.status == "answered"
    checks = {c["check"]: c["message"] for c in result.checks}
    assert "s.stores.store_id is not unique" in checks["join_fan_out"]
    assert "negative" in checks


def test_context_is_pruned_but_keeps_dates_and_keys(shop: AskService) -> None:
    shop.ask("Выручка по городам в марте 2025", thread_id="p")
    context = shop.graph.get_state({"configurable": {"thread_id": "p"}}).values["context"]
    sales = {c["name"] for c in context["schema"]["s.sales"]}
    stores = {c["name"] for c in context["schema"]["s.stores"]}
    assert sales == {"sale_id", "store_id", "sold_on", "amount"}  # note (unused attribute) dropped
    assert stores == {"store_id", "city"}  # manager dropped, the join key kept


def test_explicit_topic_skips_detection(make_service) -> None:
    result = make_service().ask("Сколько открыли в мае 2025?", topics=["cards"])
    assert result.status == "answered" and result.topic == "cards"
    detection = [e.data for e in result.trace if e.node == "detect_topic"]
    assert {"topic": "cards"} in detection and not any(
        "scores" in d for d in detection
    )  # nothing scored


def test_free_text_reply_refines_the_question(make_service) -> None:
    service = make_service()
    assert service.ask("Сколько открыли в мае 2025?", thread_id="ft").status == "clarification"
    result = service.ask("кошельков через приложение", thread_id="ft")
    assert result.status == "answered" and result.topic == "wallets"
    assert "fwo.channel = 'app'" in result.sql
