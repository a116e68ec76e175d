"""The demo warehouse on MariaDB answers as on DuckDB (issue 38): the demo's own questions
and a few more (weeks, weekends, shares, quarters, filters), the same status and rows.

The demo catalog names schema ``dwh``; the run's own database gets the same tables and the
catalog is copied with ``dwh.`` renamed (as the Chinook PostgreSQL trial does)."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from vitrina.warehouse.mysql_load import ensure_mysql_reader, load_demo_into_mysql

pytestmark = pytest.mark.mysql
TODAY = date(2026, 11, 30)
QUESTIONS = [
    "Сколько кошельков открыли в мае 2025?",
    "Revenue by region in Q3 2026",
    "Топ-5 категорий мерчантов по сумме платежей за 2025 год",
    "Средний чек B2B клиентов по месяцам в 2025 году",
    "How many cards were issued by payment system last month?",
    "Сумма платежей по неделям в декабре 2025",
    "Платежи по выходным в 2025 году",
    "Доля платежей Москвы в 2025 году",
    "Количество отклонённых платежей по регионам за 2025",
    "Сколько ипотек выдали в 2025 году?",
]


@pytest.fixture(scope="module")
def services(
    module_mysql_database: str, demo_db: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator:
    from vitrina.ask.service import AskService
    from vitrina.catalog import load_catalog
    from vitrina.catalog.loader import DEMO_CATALOG
    from vitrina.config import load_settings

    url = module_mysql_database
    database = url.rsplit("/", 1)[1]
    load_demo_into_mysql(demo_db, url)
    reader = ensure_mysql_reader(url, database, reset_password=True)
    folder = tmp_path_factory.mktemp("catalog") / "demo"
    shutil.copytree(DEMO_CATALOG, folder)
    for path in folder.rglob("*.yaml"):
        text = path.read_text(encoding="utf-8")
        path.write_text(re.sub(r"\bdwh\.", f"{database}.", text), encoding="utf-8")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("VITRINA_HOME", str(tmp_path_factory.mktemp("home")))
        mysql = AskService(
            load_settings(db_url=reader.url), catalog=load_catalog(folder), today=TODAY
        )
        duck = AskService(load_settings(db_url=f"duckdb:///{demo_db}"), today=TODAY)
    yield mysql, duck
    mysql.close()
    duck.close()


def _norm(rows: list | None) -> list[tuple]:
    def cell(value: object) -> object:
        if isinstance(value, Decimal | float):
            return round(float(value), 2)
        if hasattr(value, "isoformat"):
            return str(value)[:10]
        return value

    return sorted((tuple(cell(v) for v in row) for row in rows or []), key=repr)


@pytest.mark.parametrize("question", QUESTIONS)
def test_the_same_answer_on_mariadb_and_duckdb(services: tuple, question: str) -> None:
    mysql, duck = services
    mine, theirs = mysql.ask(question), duck.ask(question)
    assert mine.status == theirs.status, (mine.status, theirs.status, mine.sql)
    assert _norm(mine.rows) == _norm(theirs.rows), mine.sql
    if mine.status == "answered":
        assert mine.rows, question
