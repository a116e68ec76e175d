"""A database Vitrina has never seen: `catalog init` drafts a catalog, a user edits it as
the README says, and plain metric-by-dimension-over-period questions are answered right."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import duckdb
import pytest
import yaml
from typer.testing import CliRunner

from vitrina.ask.service import AskService
from vitrina.catalog import load_catalog
from vitrina.cli import app
from vitrina.config import load_settings
from vitrina.eval.compare import compare_results
from vitrina.warehouse import Warehouse

SHOP_DDL = [
    "CREATE SCHEMA {s}",
    "CREATE TABLE {s}.customers (customer_id INTEGER PRIMARY KEY, full_name VARCHAR(80), "
    "city VARCHAR(40), created_at DATE)",
    "CREATE TABLE {s}.products (product_id INTEGER PRIMARY KEY, title VARCHAR(80), "
    "category VARCHAR(40))",
    "CREATE TABLE {s}.orders (order_id INTEGER PRIMARY KEY, customer_id INTEGER "
    "REFERENCES {s}.customers, "
    "product_id INTEGER REFERENCES {s}.products, order_date DATE, status VARCHAR(20), "
    "amount NUMERIC(12,2))",
]
CITIES = ["Kazan", "Omsk", "Perm", "Tver"]
CATEGORIES = ["books", "games", "toys"]
STATUSES = ["new", "paid", "cancelled"]


def shop_rows() -> dict[str, list[tuple]]:
    customers = [
        (i, f"Customer {i}", CITIES[i % 4], date(2023, 1 + i % 12, 1 + i % 27))
        for i in range(1, 201)
    ]
    products = [(i, f"Product {i}", CATEGORIES[i % 3]) for i in range(1, 31)]
    orders = []
    for i in range(1, 3001):
        day = date(2023 + i % 2, 1 + (i * 7) % 12, 1 + (i * 13) % 28)
        orders.append(
            (
                i,
                1 + (i * 31) % 200,
                1 + (i * 17) % 30,
                day,
                STATUSES[(i * 5) % 3],
                round(10 + (i * 37) % 990 + 0.5, 2),
            )
        )
    return {"customers": customers, "products": products, "orders": orders}


def create_shop(execute, schema: str) -> None:
    for ddl in SHOP_DDL:
        execute(ddl.format(s=schema), None)
    for table, rows in shop_rows().items():
        marks = ", ".join(["%s"] * len(rows[0]))
        for row in rows:
            execute(f"INSERT INTO {schema}.{table} VALUES ({marks})", row)


def edit_like_the_readme(out: Path) -> None:
    """What the README asks a user to do: Russian names and synonyms for topics and metrics."""
    topics = yaml.safe_load((out / "topics.yaml").read_text(encoding="utf-8"))
    for topic in topics["topics"]:
        if topic["id"] == "orders":
            topic["name_ru"] = "Заказы"
            topic["keywords"].update({"заказ": 3})
    (out / "topics.yaml").write_text(yaml.safe_dump(topics, allow_unicode=True), encoding="utf-8")
    metrics = yaml.safe_load((out / "metrics.yaml").read_text(encoding="utf-8"))
    for metric in metrics["metrics"]:
        if metric["id"] == "orders_count":
            metric["synonyms"] += ["количеств заказ", "сколько заказ"]
        if metric["id"] == "orders_amount_sum":
            metric["synonyms"] += ["сумм заказ", "выручк"]
    (out / "metrics.yaml").write_text(yaml.safe_dump(metrics, allow_unicode=True), encoding="utf-8")
    for name in ("customers", "products", "orders"):
        path = out / "tables" / f"{name}.yaml"
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        for col in doc["tables"][0]["columns"]:
            extra = {"city": ["город"], "status": ["статус"], "category": ["категори"]}.get(
                col["name"], []
            )
            col["synonyms"] = [*col.get("synonyms", []), *extra]
        path.write_text(yaml.safe_dump(doc, allow_unicode=True), encoding="utf-8")


CASES = [
    (
        "number of orders by status in 2024",
        "SELECT status, count(*) FROM {s}.orders WHERE order_date BETWEEN '2024-01-01' "
        "AND '2024-12-31' GROUP BY 1",
    ),
    (
        "total amount by city in May 2023",
        "SELECT c.city, sum(o.amount) FROM {s}.orders o JOIN {s}.customers c USING (customer_id) "
        "WHERE o.order_date BETWEEN '2023-05-01' AND '2023-05-31' GROUP BY 1",
    ),
    (
        "количество заказов по категориям в 2023 году",
        "SELECT p.category, count(*) FROM {s}.orders o JOIN {s}.products p USING (product_id) "
        "WHERE o.order_date BETWEEN '2023-01-01' AND '2023-12-31' GROUP BY 1",
    ),
    (
        "сумма заказов по месяцам в 2024 году в городе Omsk",
        "SELECT date_trunc('month', o.order_date)::date, sum(o.amount) FROM {s}.orders o "
        "JOIN {s}.customers c "
        "USING (customer_id) WHERE c.city = 'Omsk' AND o.order_date BETWEEN '2024-01-01' "
        "AND '2024-12-31' GROUP BY 1",
    ),
    (
        "сколько заказов со статусом cancelled в 2024 году",
        "SELECT count(*) FROM {s}.orders WHERE status = 'cancelled' AND order_date "
        "BETWEEN '2024-01-01' AND '2024-12-31'",
    ),
]


def run_new_user_flow(url: str, schema: str, tmp_path: Path) -> None:
    out = tmp_path / "shop-catalog"
    result = CliRunner().invoke(
        app, ["catalog", "init", "--db", url, "--out", str(out), "--schema", schema]
    )
    assert result.exit_code == 0, result.output
    load_catalog(out, strict=True)  # the draft is valid as written
    edit_like_the_readme(out)
    check = CliRunner().invoke(app, ["catalog", "check", str(out)])
    assert check.exit_code == 0, check.output
    service = AskService(
        load_settings(db_url=url, catalog_dir=out), today=date(2026, 11, 30), write_files=False
    )
    direct = Warehouse(url)
    try:
        for question, reference in CASES:
            answer = service.ask(question)
            assert answer.status == "answered", (question, answer.answer)
            expected = direct.execute(reference.format(s=schema))
            verdict = compare_results([list(r) for r in expected.rows], answer.rows)
            assert verdict.ok, (question, verdict.diff, answer.sql)
    finally:
        service.close()
        direct.close()


def test_new_duckdb_database(tmp_path: Path) -> None:
    path = tmp_path / "store.duckdb"
    con = duckdb.connect(str(path))
    create_shop(lambda sql, params: con.execute(sql.replace("%s", "?"), params or []), "shop")
    con.close()
    run_new_user_flow(f"duckdb:///{path}", "shop", tmp_path)


@pytest.mark.postgres
def test_new_postgres_database(pg_url: str, tmp_path: Path) -> None:
    import psycopg

    schema = "vitrina_shop_test"
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        create_shop(lambda sql, params: conn.execute(sql, params), schema)
    try:
        from vitrina.warehouse.reader_role import create_reader_role

        reader = create_reader_role(pg_url, [schema])  # as the README says: a read-only role
        run_new_user_flow(
            reader.replace("postgresql://", "postgresql+psycopg://"), schema, tmp_path
        )
    finally:
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
