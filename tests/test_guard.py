"""The SQL guard: a hostile corpus, message text, LIMIT injection, normalisation, real engines.

The corpus lives in tests/data/guard_corpus.yaml and is read by one parametrised test;
accepted queries are also run against a real DuckDB (and planned by a real PostgreSQL
when one is reachable) to prove the normalised SQL is valid in its dialect.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest
import sqlglot
import yaml

from vitrina.sql import GuardError, SqlParseError, format_sql, guard
from vitrina.sql.guard import RULES
from vitrina.sql.guard.dialects import DUCKDB, GENERIC, POSTGRES
from vitrina.sql.guard.nodes import Nodes
from vitrina.sql.guard.statements import select_into
from vitrina.sql.guard.tables import TableIndex, table_references

CORPUS_PATH = Path(__file__).parent / "data" / "guard_corpus.yaml"
CORPUS: list[dict[str, Any]] = yaml.safe_load(CORPUS_PATH.read_text(encoding="utf-8"))
DIALECTS = ("duckdb", "postgres")

ALLOWED_COLUMNS: dict[str, set[str]] = {
    "dwh.fact_payment": {
        "payment_id",
        "payment_date",
        "client_id",
        "merchant_id",
        "amount_rub",
        "status",
    },
    "dwh.dim_client": {"client_id", "segment", "region_id", "client_name"},
    "dwh.dim_region": {"region_id", "region_name"},
    "dwh.dim_merchant": {"merchant_id", "merchant_name", "mcc", "region_id"},
    "dwh.dim_calendar": {"calendar_date", "year_num", "month_num", "quarter_num", "is_holiday"},
    "dwh.dim_wallet": {"wallet_id", "client_id", "wallet_type", "opened_at"},
    "dwh.dim_card": {"card_id", "client_id", "card_type", "issued_at"},
    "dwh.fact_wallet_opening": {"wallet_id", "client_id", "opening_date", "channel"},
    "dwh.fact_card_issue": {"card_id", "client_id", "issue_date", "card_type", "region_id"},
}
ALLOWED_TABLES = set(ALLOWED_COLUMNS)
COLUMN_TYPES = {
    "payment_date": "DATE",
    "calendar_date": "DATE",
    "opening_date": "DATE",
    "issue_date": "DATE",
    "opened_at": "DATE",
    "issued_at": "DATE",
    "amount_rub": "NUMERIC(18, 2)",
    "is_holiday": "BOOLEAN",
}
TEXT_COLUMNS = {"status", "segment", "client_name", "region_name", "merchant_name", "mcc"} | {
    "wallet_type",
    "card_type",
    "channel",
}


def _ddl() -> list[str]:
    statements = ["CREATE SCHEMA dwh"]
    for table, columns in sorted(ALLOWED_COLUMNS.items()):
        defs = ", ".join(
            f"{c} {COLUMN_TYPES.get(c, 'TEXT' if c in TEXT_COLUMNS else 'INTEGER')}"
            for c in sorted(columns)
        )
        statements.append(f"CREATE TABLE {table} ({defs})")
    return statements


def _cases(expect: str | None = None) -> Iterator[Any]:
    for entry in CORPUS:
        if expect is not None and entry["expect"] != expect:
            continue
        for dialect in entry["dialects"]:
            yield pytest.param(entry, dialect, id=f"{entry['id']}-{dialect}")


def _guard_entry(entry: dict[str, Any], dialect: str, **kwargs: Any):
    with_catalog = entry.get("catalog") != "none"
    return guard(
        entry["sql"],
        dialect=dialect,
        allowed_tables=ALLOWED_TABLES if with_catalog else None,
        allowed_columns=ALLOWED_COLUMNS if with_catalog else None,
        **kwargs,
    )


# --- the corpus -------------------------------------------------------------------------


def test_corpus_shape() -> None:
    ids = [entry["id"] for entry in CORPUS]
    assert len(ids) == len(set(ids)), "corpus ids must be unique"
    assert len(CORPUS) >= 60
    passing = [e for e in CORPUS if e["expect"] == "ok" and set(DIALECTS) <= set(e["dialects"])]
    assert len(passing) >= 15, "at least 15 legitimate queries in both dialects"
    rule_names = {rule.__name__ for rule in RULES} | {"parse_error", "single_statement"}
    for entry in CORPUS:
        assert entry["expect"] in ("ok", "reject"), entry["id"]
        assert set(entry["dialects"]) <= set(DIALECTS), entry["id"]
        if entry["expect"] == "reject":
            assert entry["rule"] in rule_names, entry["id"]


@pytest.mark.parametrize(("entry", "dialect"), list(_cases()))
def test_corpus(entry: dict[str, Any], dialect: str) -> None:
    result = _guard_entry(entry, dialect)
    rules = [v.rule for v in result.violations]
    if entry["expect"] == "reject":
        assert not result.ok, f"accepted: {result.sql}"
        assert entry["rule"] in rules, rules
        for violation in result.violations:
            assert violation.message_en and violation.message_ru
    else:
        assert result.ok, [v.message_en for v in result.violations]
        # normalisation is a fixed point and stays acceptable
        again = _guard_entry({**entry, "sql": result.sql}, dialect)
        assert again.ok and again.sql == result.sql


@pytest.fixture(scope="module")
def duck() -> Iterator[duckdb.DuckDBPyConnection]:
    con = duckdb.connect(":memory:")
    for statement in _ddl():
        con.execute(statement)
    yield con
    con.close()


@pytest.mark.parametrize(
    ("entry", "dialect"),
    [p for p in _cases("ok") if p.values[1] == "duckdb" and p.values[0].get("catalog") != "none"],
)
def test_accepted_sql_runs_on_duckdb(
    entry: dict[str, Any], dialect: str, duck: duckdb.DuckDBPyConnection
) -> None:
    result = _guard_entry(entry, dialect, row_cap=50)
    duck.execute(result.sql).fetchall()


@pytest.mark.postgres
def test_accepted_sql_plans_on_postgres(pg_url: str) -> None:
    """EXPLAIN every accepted PostgreSQL query in a throwaway database."""
    import psycopg

    name = f"vitrina_guard_{os.getpid()}"
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute(f"DROP DATABASE IF EXISTS {name}")
        admin.execute(f"CREATE DATABASE {name}")
    try:
        with psycopg.connect(pg_url.rsplit("/", 1)[0] + f"/{name}", autocommit=True) as con:
            for statement in _ddl():
                con.execute(statement)
            for param in _cases("ok"):
                entry, dialect = param.values
                if dialect != "postgres" or entry.get("catalog") == "none":
                    continue
                result = _guard_entry(entry, dialect, row_cap=50)
                try:
                    con.execute("EXPLAIN " + result.sql)
                except psycopg.Error as error:
                    pytest.fail(f"{entry['id']}: {error}\n{result.sql}")
    finally:
        with psycopg.connect(pg_url, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {name}")


@pytest.mark.parametrize("dialect", DIALECTS)
def test_every_denied_function_is_rejected(dialect: str) -> None:
    denied = GENERIC | (DUCKDB if dialect == "duckdb" else POSTGRES)
    names = sorted(denied.names) + [f"{prefix}x" for prefix in denied.prefixes]
    for name in names:
        for sql in (f"SELECT {name}('x')", f"SELECT * FROM {name}('x') AS t"):
            result = guard(sql, dialect=dialect, allowed_tables=ALLOWED_TABLES)
            assert not result.ok, sql
            assert {v.rule for v in result.violations} & {"dangerous_functions", "parse_error"}, sql


# --- messages ---------------------------------------------------------------------------


def test_parse_error_names_line_and_column() -> None:
    result = guard(
        "SELECT a,\n  b\nFROM dwh.fact_payment WHERE (", dialect="duckdb", allowed_tables=None
    )
    [violation] = result.violations
    assert violation.rule == "parse_error"
    assert "line 3, column" in violation.message_en
    assert "строке 3, столбце" in violation.message_ru
    assert "duckdb" in violation.message_en


def test_unterminated_string_names_its_position() -> None:
    result = guard("SELECT 1,\n'oops", dialect="postgres", allowed_tables=None)
    [violation] = result.violations
    assert violation.rule == "parse_error"
    assert "line 2, column 1" in violation.message_en
    assert violation.fragment == "'oops"


def test_single_statement_message_counts_statements() -> None:
    [violation] = guard("SELECT 1; DROP TABLE t", dialect="duckdb", allowed_tables=None).violations
    assert violation.message_en.startswith("Expected exactly one SQL statement, found 2.")
    assert violation.message_ru.startswith("Ожидалась ровно одна SQL-инструкция, найдено: 2.")
    assert violation.fragment == "DROP TABLE t"


def test_select_only_names_the_statement() -> None:
    [violation] = guard("DELETE FROM t", dialect="postgres", allowed_tables=None).violations
    assert "this statement is DELETE" in violation.message_en
    assert "эта инструкция — DELETE" in violation.message_ru


def test_unknown_table_lists_allowed_tables() -> None:
    [violation] = guard(
        "SELECT * FROM dwh.salaries", dialect="duckdb", allowed_tables=ALLOWED_TABLES
    ).violations
    assert violation.rule == "allowed_tables"
    assert violation.fragment == "dwh.salaries"
    assert violation.message_en.startswith("Table dwh.salaries is not among the allowed tables.")
    assert "dwh.dim_client" in violation.message_en and "dwh.dim_client" in violation.message_ru


def test_ambiguous_table_asks_for_schema() -> None:
    tables = {"dwh.fact_payment", "stage.fact_payment"}
    [violation] = guard(
        "SELECT * FROM fact_payment", dialect="postgres", allowed_tables=tables
    ).violations
    assert violation.rule == "allowed_tables"
    assert (
        "ambiguous" in violation.message_en
        and "dwh.fact_payment, stage.fact_payment" in violation.message_en
    )
    assert "Укажите схему" in violation.message_ru


def test_unknown_column_message_names_table_and_columns() -> None:
    result = guard(
        "SELECT r.population FROM dwh.dim_region r",
        dialect="postgres",
        allowed_tables=ALLOWED_TABLES,
        allowed_columns=ALLOWED_COLUMNS,
    )
    [violation] = result.violations
    assert violation.rule == "allowed_columns"
    assert violation.message_en == (
        "Column population does not exist in table dwh.dim_region. "
        "Use one of its columns: region_id, region_name."
    )
    assert violation.message_ru.startswith("В таблице dwh.dim_region нет столбца population.")


def test_dangerous_function_message() -> None:
    [violation] = guard("SELECT PG_SLEEP(5)", dialect="postgres", allowed_tables=None).violations
    assert violation.message_en.startswith("Function pg_sleep() is not allowed")
    assert violation.message_ru.startswith("Функция pg_sleep() запрещена")
    assert violation.fragment == "PG_SLEEP(5)"
    [quoted] = guard('SELECT "pg_sleep"(5)', dialect="postgres", allowed_tables=None).violations
    assert quoted.fragment == '"pg_sleep"(5)'


def test_unparsable_non_query_is_reported_as_not_a_select() -> None:
    [violation] = guard("EXPORT DATABASE 'x'", dialect="duckdb", allowed_tables=None).violations
    assert violation.rule == "select_only"
    assert "this statement is EXPORT" in violation.message_en


def test_all_violations_are_reported_together() -> None:
    result = guard(
        "SELECT pg_sleep(1), x.a FROM dwh.secret x, information_schema.tables FOR UPDATE",
        dialect="postgres",
        allowed_tables=ALLOWED_TABLES,
    )
    assert [v.rule for v in result.violations] == [
        "row_locks",
        "dangerous_functions",
        "system_catalogs",
        "allowed_tables",
    ]


def test_raise_for_violations() -> None:
    with pytest.raises(GuardError, match="select_only: Only read-only SELECT"):
        guard("DROP TABLE t", dialect="duckdb", allowed_tables=None).raise_for_violations()
    guard("SELECT 1", dialect="duckdb", allowed_tables=None).raise_for_violations()


def test_unknown_dialect_is_a_programming_error() -> None:
    with pytest.raises(ValueError):
        guard("SELECT 1", dialect="no_such_dialect", allowed_tables=None)


# --- rules alone ------------------------------------------------------------------------


def test_a_rule_runs_alone() -> None:
    expression = sqlglot.parse_one("SELECT * INTO t2 FROM t", read="postgres")
    assert [v.rule for v in select_into(Nodes(expression), "postgres")] == ["select_into"]
    assert list(select_into(Nodes(sqlglot.parse_one("SELECT 1")), "postgres")) == []


def test_cte_references_are_not_tables() -> None:
    sql = "WITH a AS (SELECT 1 AS x), b AS (SELECT * FROM a, dwh.t) SELECT * FROM b, a, c"
    refs = table_references(sqlglot.parse_one(sql), "duckdb")
    assert sorted(r.name for r in refs) == ["c", "dwh.t"]


def test_table_index_resolves_suffixes() -> None:
    index = TableIndex({"wh.dwh.fact_payment"})
    assert index.resolve(("fact_payment",)) == ["wh.dwh.fact_payment"]
    assert index.resolve(("dwh", "fact_payment")) == ["wh.dwh.fact_payment"]
    assert index.resolve(("other", "dwh", "fact_payment")) == []


# --- tables, rewriting and the row cap ---------------------------------------------------


def test_tables_are_reported_and_pinned_to_their_schema() -> None:
    result = guard(
        "SELECT fact_payment.amount_rub FROM fact_payment JOIN DWH.Dim_Client c USING (client_id)",
        dialect="postgres",
        allowed_tables=ALLOWED_TABLES,
    )
    assert result.ok
    assert result.tables == {"dwh.fact_payment", "dwh.dim_client"}
    assert "FROM dwh.fact_payment" in result.sql
    assert "fact_payment.amount_rub" in result.sql


def test_tables_without_catalog_are_as_written_lower_case() -> None:
    result = guard("SELECT * FROM Sales.Orders o, items", dialect="duckdb", allowed_tables=None)
    assert result.tables == {"sales.orders", "items"}


def _limit(sql: str, row_cap: int = 100, dialect: str = "duckdb") -> str:
    result = guard(sql, dialect=dialect, allowed_tables=None, row_cap=row_cap)
    assert result.ok, result.violations
    return sqlglot.parse_one(result.sql, read=dialect).sql(dialect)  # one line


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("SELECT a FROM t", "SELECT a FROM t LIMIT 100"),
        ("SELECT a FROM t LIMIT 5000", "SELECT a FROM t LIMIT 100"),
        ("SELECT a FROM t LIMIT 10", "SELECT a FROM t LIMIT 10"),
        (
            "SELECT a FROM t ORDER BY a LIMIT 500 OFFSET 20",
            "SELECT a FROM t ORDER BY a LIMIT 100 OFFSET 20",
        ),
        (
            "SELECT * FROM (SELECT a FROM t LIMIT 5000) s",
            "SELECT * FROM (SELECT a FROM t LIMIT 5000) AS s LIMIT 100",
        ),
        ("SELECT 1 UNION ALL SELECT 2", "SELECT 1 UNION ALL SELECT 2 LIMIT 100"),
        (
            "WITH x AS (SELECT a FROM t LIMIT 1000) SELECT * FROM x",
            "WITH x AS (SELECT a FROM t LIMIT 1000) SELECT * FROM x LIMIT 100",
        ),
        (
            "SELECT a FROM t LIMIT 10 PERCENT",
            "SELECT * FROM (SELECT a FROM t LIMIT 10 PERCENT) AS capped LIMIT 100",
        ),
    ],
)
def test_row_cap(sql: str, expected: str) -> None:
    assert _limit(sql) == expected


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("SELECT a FROM t LIMIT ALL", "SELECT a FROM t LIMIT 100"),
        ("SELECT a FROM t LIMIT NULL", "SELECT a FROM t LIMIT 100"),
        ("SELECT a FROM t FETCH FIRST 500 ROWS ONLY", "SELECT a FROM t FETCH FIRST 100 ROWS ONLY"),
        ("SELECT a FROM t FETCH FIRST 5 ROWS ONLY", "SELECT a FROM t FETCH FIRST 5 ROWS ONLY"),
        (
            "SELECT a FROM t ORDER BY a FETCH FIRST 5 ROWS WITH TIES",
            "SELECT * FROM (SELECT a FROM t ORDER BY a FETCH FIRST 5 ROWS WITH TIES) AS "
            "capped LIMIT 100",
        ),
        (
            "SELECT a FROM t LIMIT 2 * 3",
            "SELECT * FROM (SELECT a FROM t LIMIT 2 * 3) AS capped LIMIT 100",
        ),
    ],
)
def test_row_cap_postgres(sql: str, expected: str) -> None:
    assert _limit(sql, dialect="postgres") == expected


def test_row_cap_not_applied_without_cap_or_on_rejection() -> None:
    assert "LIMIT" not in guard("SELECT a FROM t", dialect="duckdb", allowed_tables=None).sql
    rejected = guard(
        "SELECT a FROM t FOR UPDATE", dialect="postgres", allowed_tables=None, row_cap=10
    )
    assert not rejected.ok and "LIMIT" not in rejected.sql


def test_row_cap_result_runs_on_duckdb(duck: duckdb.DuckDBPyConnection) -> None:
    values = ", ".join(f"({i})" for i in range(20))
    sql = (
        f"SELECT * FROM (VALUES {values}) AS t(i) UNION ALL SELECT * FROM (VALUES (1), (2)) AS u(i)"
    )
    result = guard(sql, dialect="duckdb", allowed_tables=None, row_cap=7)
    assert len(duck.execute(result.sql).fetchall()) == 7


# --- normalisation ----------------------------------------------------------------------


@pytest.mark.parametrize("dialect", DIALECTS)
def test_format_sql_is_idempotent_on_the_corpus(dialect: str) -> None:
    for entry in CORPUS:
        if entry["expect"] != "ok" or dialect not in entry["dialects"]:
            continue
        once = format_sql(entry["sql"], dialect)
        assert format_sql(once, dialect) == once, entry["id"]


def test_format_sql_keeps_comments_and_quoted_names_guard_drops_comments() -> None:
    sql = 'select "myFunc"(1) as "Выручка" -- why\nfrom t'
    formatted = format_sql(sql, "postgres")
    assert formatted == 'SELECT\n  "myFunc"(1) AS "Выручка" /* why */\nFROM t'
    normalised = guard(sql, dialect="postgres", allowed_tables=None).sql
    assert normalised == 'SELECT\n  "myFunc"(1) AS "Выручка"\nFROM t'


def test_format_sql_several_statements_and_errors() -> None:
    assert format_sql("select 1; select 2;", "duckdb") == "SELECT\n  1;\n\nSELECT\n  2"
    with pytest.raises(SqlParseError) as info:
        format_sql("SELECT (1", "duckdb")
    assert (info.value.line, info.value.col) == (1, 9)


def test_normalised_sql_transpiles_dialect_specifics() -> None:
    duck = guard("FROM dwh.dim_region", dialect="duckdb", allowed_tables=ALLOWED_TABLES)
    assert duck.sql == "SELECT\n  *\nFROM dwh.dim_region"
    pg = guard(
        "SELECT amount_rub::int FROM dwh.fact_payment", dialect="postgres", allowed_tables=None
    )
    assert pg.sql == "SELECT\n  CAST(amount_rub AS INT)\nFROM dwh.fact_payment"
