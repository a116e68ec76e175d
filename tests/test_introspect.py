"""Introspection of the demo warehouse on DuckDB and on PostgreSQL: keys, types, values, FKs."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import duckdb
import psycopg
import pytest

from vitrina.warehouse.demo import build_demo_warehouse
from vitrina.warehouse.introspect import DatabaseSchema, TableInfo, introspect, normalize_type
from vitrina.warehouse.pg_load import load_demo_into_postgres


@pytest.fixture(scope="module")
def demo_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_demo_warehouse(
        tmp_path_factory.mktemp("introspect") / "demo.duckdb", scale=0.05
    ).path


@pytest.fixture(scope="module")
def duck(demo_path: Path) -> DatabaseSchema:
    return introspect(f"duckdb:///{demo_path}")


@pytest.fixture(scope="module")
def pg_schema(demo_path: Path, pg_url: str) -> Iterator[tuple[str, str]]:
    """(url, schema): the small demo loaded into a schema of its own in the test database."""
    schema = f"vitrina_introspect_{uuid.uuid4().hex[:10]}"
    load_demo_into_postgres(demo_path, pg_url, schema=schema)
    yield pg_url, schema
    with psycopg.connect(pg_url, autocommit=True) as c:
        c.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


@pytest.fixture(scope="module")
def pg(pg_schema: tuple[str, str]) -> DatabaseSchema:
    url, schema = pg_schema
    return introspect(url, schemas=[schema])


DEMO_TABLES = {
    "dim_region", "dim_calendar", "dim_client", "dim_merchant", "dim_wallet", "dim_card",
    "fact_wallet_opening", "fact_card_issue", "fact_payment",
}  # fmt: skip

PRIMARY_KEYS = {
    "dim_region": ["region_id"], "dim_calendar": ["date_day"], "dim_client": ["client_id"],
    "dim_merchant": ["merchant_id"], "dim_wallet": ["wallet_id"], "dim_card": ["card_id"],
    "fact_payment": ["payment_id"], "fact_wallet_opening": [], "fact_card_issue": [],
}  # fmt: skip

INFERRED_FKS = {
    "dim_client": {"region_id": "dim_region"},
    "dim_merchant": {"region_id": "dim_region"},
    "dim_wallet": {"client_id": "dim_client"},
    "dim_card": {"client_id": "dim_client", "wallet_id": "dim_wallet"},
    "fact_wallet_opening": {
        "wallet_id": "dim_wallet",
        "client_id": "dim_client",
        "region_id": "dim_region",
    },
    "fact_card_issue": {
        "card_id": "dim_card",
        "client_id": "dim_client",
        "region_id": "dim_region",
    },
    "fact_payment": {
        "client_id": "dim_client",
        "wallet_id": "dim_wallet",
        "card_id": "dim_card",
        "merchant_id": "dim_merchant",
    },
    "dim_region": {},
    "dim_calendar": {},
}

COLUMN_TYPES = [
    ("dim_region", "region_id", "integer", False),
    ("dim_region", "region_name", "varchar", False),
    ("dim_calendar", "date_day", "date", False),
    ("dim_calendar", "is_weekend", "boolean", False),
    ("dim_client", "client_id", "bigint", False),
    ("dim_client", "gender", "varchar", True),
    ("dim_client", "birth_year", "integer", True),
    ("fact_payment", "payment_ts", "timestamp", False),
    ("fact_payment", "amount_rub", "decimal", False),
    ("fact_payment", "fee_rub", "decimal", False),
    ("fact_payment", "card_id", "bigint", True),
]

LOW_CARDINALITY = [
    ("dim_client", "segment", ["B2B", "B2C"]),
    ("dim_client", "gender", ["F", "M"]),
    ("dim_wallet", "currency", ["CNY", "EUR", "RUB", "USD"]),
    ("fact_payment", "channel", ["app", "pos", "qr", "web"]),
    ("fact_payment", "status", ["declined", "refunded", "success"]),
    ("dim_card", "payment_system", ["Mastercard", "Mir", "UnionPay", "Visa"]),
    (
        "dim_calendar",
        "month_name",
        sorted(
            [
                "Январь",
                "Февраль",
                "Март",
                "Апрель",
                "Май",
                "Июнь",
                "Июль",
                "Август",
                "Сентябрь",
                "Октябрь",
                "Ноябрь",
                "Декабрь",
            ]
        ),
    ),
    ("dim_client", "client_name", None),  # thousands of names: not a dictionary
    ("dim_region", "region_id", None),  # not text
    ("fact_payment", "payment_date", None),
]


def both(request: pytest.FixtureRequest, which: str) -> DatabaseSchema:
    return request.getfixturevalue(which)


ENGINES = ["duck", pytest.param("pg", marks=pytest.mark.postgres)]


@pytest.mark.parametrize("which", ENGINES)
def test_tables_counts_and_keys(
    request: pytest.FixtureRequest, which: str, demo_path: Path
) -> None:
    db = both(request, which)
    assert db.dialect == {"duck": "duckdb", "pg": "postgres"}[which]
    assert {t.name for t in db.tables} == DEMO_TABLES  # the _vitrina_demo marker is skipped
    with duckdb.connect(str(demo_path), read_only=True) as c:
        for t in db.tables:
            assert t.error is None
            assert t.kind == "table"
            assert t.row_count == c.execute(f"SELECT count(*) FROM dwh.{t.name}").fetchone()[0]  # type: ignore[index]
            assert t.primary_key == PRIMARY_KEYS[t.name], t.name


@pytest.mark.parametrize("which", ENGINES)
def test_inferred_foreign_keys(request: pytest.FixtureRequest, which: str) -> None:
    db = both(request, which)
    for t in db.tables:
        got = {fk.columns[0]: fk.ref_table for fk in t.foreign_keys}
        assert got == INFERRED_FKS[t.name], t.name
        for fk in t.foreign_keys:
            assert fk.inferred and fk.ref_columns == fk.columns and fk.ref_schema == t.schema_name


@pytest.mark.parametrize("which", ENGINES)
@pytest.mark.parametrize(("table", "column", "data_type", "nullable"), COLUMN_TYPES)
def test_column_types(
    request: pytest.FixtureRequest,
    which: str,
    table: str,
    column: str,
    data_type: str,
    nullable: bool,
) -> None:
    col = both(request, which).table(table).column(column)
    assert (col.data_type, col.nullable) == (data_type, nullable)
    assert col.is_date == (data_type in ("date", "timestamp"))
    assert col.is_numeric == (data_type in ("integer", "bigint", "decimal"))


@pytest.mark.parametrize("which", ENGINES)
@pytest.mark.parametrize(("table", "column", "values"), LOW_CARDINALITY)
def test_low_cardinality_values(
    request: pytest.FixtureRequest, which: str, table: str, column: str, values: list[str] | None
) -> None:
    col = both(request, which).table(table).column(column)
    assert col.low_cardinality_values == values
    if values is not None:
        assert col.distinct_count == len(values)


def test_same_description_on_both_engines(duck: DatabaseSchema, pg: DatabaseSchema) -> None:
    def shape(t: TableInfo) -> tuple:
        return (
            t.name,
            t.row_count,
            t.primary_key,
            [c.model_dump(exclude={"raw_type"}) for c in t.columns],
        )

    assert [shape(t) for t in duck.tables] == [shape(t) for t in pg.tables]


def test_sample_values_limit_and_schema_filter(demo_path: Path) -> None:
    db = introspect(f"duckdb:///{demo_path}", schemas=["dwh"], sample_values=3)
    assert db.table("dwh.dim_wallet").column("currency").low_cardinality_values is None  # 4 > 3
    assert db.table("dim_client").column("segment").low_cardinality_values == ["B2B", "B2C"]
    assert introspect(f"duckdb:///{demo_path}", schemas=["nope"]).tables == []
    with_marker = introspect(f"duckdb:///{demo_path}", include_internal=True)
    assert with_marker.table("_vitrina_demo").row_count == 1


def test_progress_is_reported(demo_path: Path) -> None:
    calls: list[tuple[str, int, int]] = []
    introspect(f"duckdb:///{demo_path}", progress=lambda *a: calls.append(a))
    assert calls[0] == ("dwh.dim_calendar", 0, 9) and calls[-1] == ("done", 9, 9)


@pytest.fixture
def odd_db(tmp_path: Path) -> str:
    """A DuckDB file with declared FKs, a composite key, a view and a broken view."""
    path = tmp_path / "odd.duckdb"
    with duckdb.connect(str(path)) as c:
        c.execute("""
            CREATE SCHEMA shop;
            CREATE TABLE shop.customer (customer_id INTEGER PRIMARY KEY, name VARCHAR);
            CREATE TABLE shop.product (product_id INTEGER PRIMARY KEY, title TEXT);
            CREATE TABLE shop.orders (order_id BIGINT PRIMARY KEY,
                                      customer_id INTEGER REFERENCES shop.customer (customer_id),
                                      product_id INTEGER, price DOUBLE, ts TIMESTAMPTZ);
            CREATE TABLE shop.order_line (order_id BIGINT, line_no INTEGER, qty SMALLINT,
                                          PRIMARY KEY (order_id, line_no));
            CREATE TABLE main.gone (x INTEGER);
            CREATE VIEW shop.big_orders AS SELECT * FROM shop.orders WHERE price > 100;
            CREATE VIEW main.broken AS SELECT * FROM main.gone;
            DROP TABLE main.gone;
            INSERT INTO shop.customer VALUES (1, 'a'), (2, NULL);
        """)
    return f"duckdb:///{path}"


def test_declared_keys_views_and_a_broken_table(odd_db: str) -> None:
    db = introspect(odd_db)
    orders = db.table("shop.orders")
    assert [
        (fk.columns, fk.ref_table, fk.ref_columns, fk.inferred) for fk in orders.foreign_keys
    ] == [
        (["customer_id"], "customer", ["customer_id"], False)
    ]  # declared FKs exist, so nothing is inferred by default
    assert db.table("shop.order_line").primary_key == ["order_id", "line_no"]
    assert db.table("shop.big_orders").kind == "view"
    assert db.table("shop.customer").column("name").low_cardinality_values == ["a"]
    assert db.table("shop.product").column("title").data_type == "varchar"
    assert orders.column("ts").data_type == "timestamptz" and orders.column("ts").is_date
    assert db.table("shop.order_line").column("qty").data_type == "smallint"
    broken = db.table("main.broken")
    assert broken.error is not None and "gone" in broken.error
    assert broken.row_count is None
    assert all(t.error is None for t in db.tables if t.name != "broken")

    inferred = introspect(odd_db, infer_fks=True)
    got = {
        (fk.columns[0], fk.ref_table, fk.inferred)
        for fk in inferred.table("shop.orders").foreign_keys
    }
    assert got == {("customer_id", "customer", False), ("product_id", "product", True)}
    # order_id is the PK of orders only (order_line's key is composite): the line points to its
    # order
    assert [fk.ref_table for fk in inferred.table("shop.order_line").foreign_keys] == ["orders"]


def test_introspection_never_writes(tmp_path: Path) -> None:
    missing = tmp_path / "missing.duckdb"
    with pytest.raises(Exception):  # noqa: B017 - the driver's own error type
        introspect(f"duckdb:///{missing}")
    assert not missing.exists()


@pytest.mark.postgres
def test_permission_denied_table_is_recorded(pg_schema: tuple[str, str]) -> None:
    url, schema = pg_schema
    role = f"vitrina_ro_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(url, autocommit=True) as c:
        c.execute(f'CREATE ROLE "{role}" LOGIN')
        c.execute(f'GRANT USAGE ON SCHEMA "{schema}" TO "{role}"')
        c.execute(f'GRANT SELECT ON ALL TABLES IN SCHEMA "{schema}" TO "{role}"')
        c.execute(f'REVOKE SELECT ON "{schema}".fact_payment FROM "{role}"')
    try:
        as_role = url.replace("postgres@", f"{role}@", 1)
        db = introspect(as_role, schemas=[schema])
        payment = db.table("fact_payment")
        assert payment.error is not None and "permission denied" in payment.error
        # the catalog (metadata) is still readable, only the rows are not
        assert [c.name for c in payment.columns][:2] == ["payment_id", "payment_date"]
        assert all(t.error is None and t.row_count for t in db.tables if t.name != "fact_payment")
    finally:
        with psycopg.connect(url, autocommit=True) as c:
            c.execute(f'DROP OWNED BY "{role}"')
            c.execute(f'DROP ROLE "{role}"')


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("INTEGER", "integer"),
        ("int4", "integer"),
        ("BIGINT", "bigint"),
        ("DECIMAL(14,2)", "decimal"),
        ("NUMERIC(12, 2)", "decimal"),
        ("VARCHAR", "varchar"),
        ("character varying(20)", "varchar"),
        ("TEXT", "varchar"),
        ("DATE", "date"),
        ("TIMESTAMP WITHOUT TIME ZONE", "timestamp"),
        ("TIMESTAMP WITH TIME ZONE", "timestamptz"),
        ("BOOLEAN", "boolean"),
        ("DOUBLE PRECISION", "double"),
        ("DOUBLE", "double"),
        ("REAL", "float"),
        ("INTEGER[]", "array"),
    ],
)
def test_normalize_type(raw: str, expected: str) -> None:
    assert normalize_type(raw) == expected
