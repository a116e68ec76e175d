"""Stars and whole rows against the column allow-list (issue 30, item 1), on both engines.

The warehouse here has a column the catalog leaves out (``secret_note``, in the middle
of the table so a positional trick would land on it). Every form is checked twice: the
guard refuses it or expands its star to the allowed columns, and the SQL the guard
returns, run on a real DuckDB and a real PostgreSQL, never brings the hidden value back.
Each refused form marked ``leaks`` is also run as written, without the guard, to show
that it reads the hidden value on that engine (the test would catch a real leak).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import duckdb
import psycopg
import pytest

from vitrina.sql.guard import guard

MARKER = "HIDDEN-"
ROW_CAP = 100
ALLOWED = {
    "dim_client": ["client_id", "client_name", "segment", "region_id"],
    "dim_region": ["region_id", "region_name"],
}
DDL = [
    "CREATE TABLE {s}.dim_client (client_id INTEGER, secret_note TEXT, client_name TEXT, "
    "segment TEXT, region_id INTEGER)",
    "CREATE TABLE {s}.dim_region (region_id INTEGER, region_name TEXT, secret_note TEXT)",
    "INSERT INTO {s}.dim_client VALUES (1, 'HIDDEN-c1', 'Анна', 'B2C', 10), "
    "(2, 'HIDDEN-c2', 'Борис', 'B2B', 20)",
    "INSERT INTO {s}.dim_region VALUES (10, 'Москва', 'HIDDEN-r10'), (20, 'Казань', 'HIDDEN-r20')",
]
BOTH = ("duckdb", "postgres")
DUCK = ("duckdb",)
# DuckDB reads Python-style lambdas (`lambda c: ...`) from 1.3; before, that form is a
# syntax error, not a leak (the guard refuses it on every version all the same)
PY_LAMBDAS = tuple(int(p) for p in duckdb.__version__.split(".")[:2]) >= (1, 3)
PG = ("postgres",)


@dataclass(frozen=True)
class Form:
    id: str
    sql: str
    dialects: tuple[str, ...]
    expect: str  # "expand": accepted with the star replaced; "refuse"; "ok": accepted as is
    rule: str | None = None  # the rule that refuses it
    leaks: tuple[str, ...] = ()  # engines where the SQL as written reads the hidden value

    def __repr__(self) -> str:
        return f"Form({self.id})"


FORMS = [
    # stars: expanded to the catalog's columns
    Form("star", "SELECT * FROM {s}.dim_client", BOTH, "expand", leaks=BOTH),
    Form("table_star", "SELECT c.* FROM {s}.dim_client c", BOTH, "expand", leaks=BOTH),
    Form(
        "two_table_stars",
        "SELECT c.*, r.* FROM {s}.dim_client c JOIN {s}.dim_region r ON r.region_id = c.region_id",
        BOTH,
        "expand",
        leaks=BOTH,
    ),
    Form(
        "star_over_join",
        "SELECT * FROM {s}.dim_client c JOIN {s}.dim_region r ON r.region_id = c.region_id",
        BOTH,
        "expand",
        leaks=BOTH,
    ),
    Form(
        "cte_star",
        "WITH c AS (SELECT * FROM {s}.dim_client) SELECT * FROM c",
        BOTH,
        "expand",
        leaks=BOTH,
    ),
    Form(
        "cte_table_star",
        "WITH c AS (SELECT d.* FROM {s}.dim_client d) SELECT c.* FROM c",
        BOTH,
        "expand",
        leaks=BOTH,
    ),
    Form(
        "derived_star",
        "SELECT s.* FROM (SELECT * FROM {s}.dim_client) AS s",
        BOTH,
        "expand",
        leaks=BOTH,
    ),
    Form(
        "union_star",
        "SELECT * FROM {s}.dim_client UNION ALL SELECT * FROM {s}.dim_client",
        BOTH,
        "expand",
        leaks=BOTH,
    ),
    Form(
        "lateral_star",
        "SELECT x.* FROM {s}.dim_region r CROSS JOIN LATERAL "
        "(SELECT * FROM {s}.dim_client c WHERE c.region_id = r.region_id) AS x",
        BOTH,
        "expand",
        leaks=BOTH,
    ),
    Form("from_first", "FROM {s}.dim_client", DUCK, "expand", leaks=DUCK),
    Form("table_statement", "TABLE {s}.dim_client", PG, "expand", leaks=PG),
    Form(
        "star_exclude",
        "SELECT * EXCLUDE (segment) FROM {s}.dim_client",
        DUCK,
        "expand",
        leaks=DUCK,
    ),
    Form(
        "star_in_using_join_side",
        "SELECT c.* FROM {s}.dim_client c JOIN {s}.dim_region r USING (region_id)",
        BOTH,
        "expand",
        leaks=BOTH,
    ),
    # stars that cannot be expanded with certainty
    Form(
        "star_over_using",
        "SELECT * FROM {s}.dim_client JOIN {s}.dim_region USING (region_id)",
        BOTH,
        "refuse",
        "star_projections",
        leaks=BOTH,
    ),
    Form(
        "star_replace",
        "SELECT * REPLACE (upper(segment) AS segment) FROM {s}.dim_client",
        DUCK,
        "refuse",
        "star_projections",
        leaks=DUCK,
    ),
    Form(
        "star_rename",
        "SELECT * RENAME (segment AS s) FROM {s}.dim_client",
        DUCK,
        "refuse",
        "star_projections",
        leaks=DUCK,
    ),
    Form(
        "star_unpivot",
        "SELECT * FROM {s}.dim_client UNPIVOT (v FOR k IN (segment))",
        DUCK,
        "refuse",
        "star_projections",
        leaks=DUCK,
    ),
    Form(
        "star_pivot",
        "SELECT * FROM {s}.dim_client PIVOT (count(*) FOR segment IN ('B2C', 'B2B'))",
        DUCK,
        "refuse",
        "star_projections",
        leaks=DUCK,
    ),
    Form(
        "pivot_keeps_the_hidden_column",
        "SELECT secret_note FROM {s}.dim_client PIVOT (count(*) FOR segment IN ('B2C', 'B2B'))",
        BOTH,
        "refuse",
        "whole_rows",
        leaks=DUCK,
    ),
    Form(
        "star_of_unknown_alias",
        "SELECT x.* FROM {s}.dim_client c",
        BOTH,
        "refuse",
        "star_projections",
    ),
    # stars inside expressions, COLUMNS(...), positions
    Form(
        "star_like",
        "SELECT * LIKE 'secret%' FROM {s}.dim_client",
        DUCK,
        "refuse",
        "whole_rows",
        leaks=DUCK,
    ),
    Form(
        "star_similar",
        "SELECT * SIMILAR TO 'secret.*' FROM {s}.dim_client",
        DUCK,
        "refuse",
        "whole_rows",
        leaks=DUCK,
    ),
    Form(
        "columns_star",
        "SELECT COLUMNS(*) FROM {s}.dim_client",
        DUCK,
        "refuse",
        "whole_rows",
        leaks=DUCK,
    ),
    Form(
        "columns_regex",
        "SELECT COLUMNS('secret.*') FROM {s}.dim_client",
        DUCK,
        "refuse",
        "whole_rows",
        leaks=DUCK,
    ),
    Form(
        "columns_lambda",
        "SELECT COLUMNS(lambda c: c LIKE 'secret%') FROM {s}.dim_client",
        DUCK,
        "refuse",
        "whole_rows",
        leaks=DUCK if PY_LAMBDAS else (),
    ),
    Form(
        "columns_in_aggregate",
        "SELECT max(COLUMNS(*)) FROM {s}.dim_client",
        DUCK,
        "refuse",
        "whole_rows",
        leaks=DUCK,
    ),
    Form(
        "struct_pack_star",
        "SELECT struct_pack(*) FROM {s}.dim_client",
        DUCK,
        "refuse",
        "whole_rows",
    ),
    Form("row_star", "SELECT row(*) FROM {s}.dim_client", DUCK, "refuse", "whole_rows"),
    Form(
        "row_table_star",
        "SELECT ROW(c.*) FROM {s}.dim_client c",
        PG,
        "refuse",
        "whole_rows",
        leaks=PG,
    ),
    Form(
        "table_star_as_text",
        "SELECT (c.*)::text FROM {s}.dim_client c",
        PG,
        "refuse",
        "whole_rows",
        leaks=PG,
    ),
    Form(
        "table_star_field",
        "SELECT (c.*).secret_note FROM {s}.dim_client c",
        PG,
        "refuse",
        "whole_rows",
        leaks=PG,
    ),
    Form(
        "to_json_table_star",
        "SELECT to_jsonb(c.*) FROM {s}.dim_client c",
        PG,
        "refuse",
        "whole_rows",
        leaks=PG,
    ),
    Form(
        "count_table_star", "SELECT count(c.*) FROM {s}.dim_client c", BOTH, "refuse", "whole_rows"
    ),
    Form("positional", "SELECT #2 FROM {s}.dim_client", DUCK, "refuse", "whole_rows", leaks=DUCK),
    # whole-row references
    Form("whole_row", "SELECT c FROM {s}.dim_client c", BOTH, "refuse", "whole_rows", leaks=BOTH),
    Form(
        "whole_row_by_table_name",
        "SELECT dim_client FROM {s}.dim_client",
        BOTH,
        "refuse",
        "whole_rows",
        leaks=BOTH,
    ),
    Form(
        "whole_row_schema_qualified",
        "SELECT {s}.dim_client FROM {s}.dim_client",
        BOTH,
        "refuse",
        "whole_rows",
        leaks=DUCK,
    ),
    Form(
        "to_json",
        "SELECT to_json(c) FROM {s}.dim_client c",
        BOTH,
        "refuse",
        "whole_rows",
        leaks=BOTH,
    ),
    Form(
        "to_jsonb", "SELECT to_jsonb(c) FROM {s}.dim_client c", PG, "refuse", "whole_rows", leaks=PG
    ),
    Form(
        "row_to_json",
        "SELECT row_to_json(c) FROM {s}.dim_client c",
        PG,
        "refuse",
        "whole_rows",
        leaks=PG,
    ),
    Form(
        "json_build_object",
        "SELECT json_build_object('row', c) FROM {s}.dim_client c",
        PG,
        "refuse",
        "whole_rows",
        leaks=PG,
    ),
    Form(
        "jsonb_agg",
        "SELECT jsonb_agg(c) FROM {s}.dim_client c",
        PG,
        "refuse",
        "whole_rows",
        leaks=PG,
    ),
    Form(
        "json_agg", "SELECT json_agg(c) FROM {s}.dim_client c", PG, "refuse", "whole_rows", leaks=PG
    ),
    Form(
        "array_agg",
        "SELECT array_agg(c) FROM {s}.dim_client c",
        BOTH,
        "refuse",
        "whole_rows",
        leaks=BOTH,
    ),
    Form(
        "list_agg", "SELECT list(c) FROM {s}.dim_client c", DUCK, "refuse", "whole_rows", leaks=DUCK
    ),
    Form(
        "string_agg_text",
        "SELECT string_agg(c::text, ',') FROM {s}.dim_client c",
        BOTH,
        "refuse",
        "whole_rows",
        leaks=BOTH,
    ),
    Form(
        "cast_text",
        "SELECT CAST(c AS TEXT) FROM {s}.dim_client c",
        BOTH,
        "refuse",
        "whole_rows",
        leaks=BOTH,
    ),
    Form(
        "colon_cast_text",
        "SELECT c::text FROM {s}.dim_client c",
        BOTH,
        "refuse",
        "whole_rows",
        leaks=BOTH,
    ),
    Form("hash_row", "SELECT hash(c) FROM {s}.dim_client c", DUCK, "refuse", "whole_rows"),
    Form("md5_row_text", "SELECT md5(c::text) FROM {s}.dim_client c", BOTH, "refuse", "whole_rows"),
    Form(
        "field_of_row",
        "SELECT (c).secret_note FROM {s}.dim_client c",
        BOTH,
        "refuse",
        "whole_rows",
        leaks=BOTH,
    ),
    Form(
        "row_in_where",
        "SELECT count(*) FROM {s}.dim_client c WHERE c::text LIKE '%HIDDEN-c1%'",
        BOTH,
        "refuse",
        "whole_rows",
    ),
    Form(
        "order_by_row",
        "SELECT client_id FROM {s}.dim_client c ORDER BY c",
        BOTH,
        "refuse",
        "whole_rows",
    ),
    Form(
        "row_in_scalar_subquery",
        "SELECT (SELECT c::text) FROM {s}.dim_client c",
        BOTH,
        "refuse",
        "whole_rows",
        leaks=BOTH,
    ),
    Form(
        "row_in_lateral",
        "SELECT x.v FROM {s}.dim_client c CROSS JOIN LATERAL (SELECT c::text AS v) AS x",
        BOTH,
        "refuse",
        "whole_rows",
        leaks=BOTH,
    ),
    Form(
        "row_of_cte",
        "WITH c AS (SELECT client_id FROM {s}.dim_client) SELECT to_json(c) FROM c",
        BOTH,
        "refuse",
        "whole_rows",
    ),
    Form(
        "struct_literal_of_row",
        "SELECT {{'r': c}} FROM {s}.dim_client c",
        DUCK,
        "refuse",
        "whole_rows",
        leaks=DUCK,
    ),
    # other ways to a column the query never names
    Form(
        "natural_join_oracle",
        "SELECT count(*) FROM {s}.dim_client NATURAL JOIN (SELECT 'HIDDEN-c1' AS secret_note) s",
        BOTH,
        "refuse",
        "whole_rows",
    ),
    Form(
        "positional_column_aliases",
        "SELECT x.client_name FROM {s}.dim_client AS x(client_id, client_name)",
        DUCK,
        "refuse",
        "whole_rows",
        leaks=DUCK,
    ),
    Form(
        "positional_column_aliases_pg",
        "SELECT x.c2 FROM {s}.dim_client AS x(c1, c2)",
        BOTH,
        "refuse",
        "whole_rows",
        leaks=BOTH,
    ),
    Form(
        "alias_shadows_column",
        "SELECT 1 AS secret_note, secret_note AS v FROM {s}.dim_client",
        DUCK,
        "refuse",
        "alias_references",
        leaks=DUCK,
    ),
    Form(
        "alias_in_where",
        "SELECT count(*) AS secret_note FROM {s}.dim_client WHERE secret_note LIKE 'HIDDEN-%'",
        BOTH,
        "refuse",
        "alias_references",
    ),
    Form(
        "alias_in_having",
        "SELECT max(client_id) AS secret_note FROM {s}.dim_client HAVING secret_note LIKE 'H%'",
        DUCK,
        "refuse",
        "alias_references",
    ),
    # legitimate queries stay accepted
    Form("count_star", "SELECT count(*) FROM {s}.dim_client", BOTH, "ok"),
    Form(
        "cte_named_like_its_column",
        "WITH n AS (SELECT count(*) AS n FROM {s}.dim_client) SELECT n FROM n",
        BOTH,
        "ok",
    ),
    Form(
        "order_by_alias",
        "SELECT segment, count(*) AS clients FROM {s}.dim_client GROUP BY segment "
        "ORDER BY clients DESC",
        BOTH,
        "ok",
    ),
    Form(
        "group_by_alias_runs_as_its_position",
        "SELECT upper(segment) AS secret_note, count(*) FROM {s}.dim_client GROUP BY secret_note",
        BOTH,
        "ok",
    ),
    Form(
        "group_by_position",
        "SELECT upper(segment) AS seg, count(*) FROM {s}.dim_client GROUP BY 1",
        BOTH,
        "ok",
    ),
    Form(
        "row_of_named_columns",
        "SELECT json_build_object('id', c.client_id, 'segment', c.segment) FROM {s}.dim_client c",
        PG,
        "ok",
    ),
]


def _cases() -> list[Any]:
    return [
        pytest.param(form, dialect, id=f"{form.id}-{dialect}")
        for form in FORMS
        for dialect in form.dialects
    ]


class Engine:
    """A real warehouse with the hidden column: a schema name and a way to run SQL."""

    def __init__(self, dialect: str, schema: str, run: Any) -> None:
        self.dialect, self.schema, self._run = dialect, schema, run

    def run(self, sql: str) -> list[tuple[Any, ...]]:
        return self._run(sql)

    def check(self, sql: str) -> Any:
        tables = {f"{self.schema}.{name}" for name in ALLOWED}
        columns = {f"{self.schema}.{name}": cols for name, cols in ALLOWED.items()}
        return guard(
            sql,
            dialect=self.dialect,
            allowed_tables=tables,
            allowed_columns=columns,
            row_cap=ROW_CAP,
        )


@pytest.fixture(scope="module")
def duck_engine() -> Iterator[Engine]:
    con = duckdb.connect(":memory:")
    con.execute("CREATE SCHEMA dwh")
    for statement in DDL:
        con.execute(statement.format(s="dwh"))

    def run(sql: str) -> list[tuple[Any, ...]]:
        return con.execute(sql).fetchall()

    yield Engine("duckdb", "dwh", run)
    con.close()


@pytest.fixture(scope="module")
def pg_engine(pg_url: str) -> Iterator[Engine]:
    schema = f"vitrina_rows_{uuid.uuid4().hex[:8]}"
    con = psycopg.connect(pg_url, autocommit=True)
    con.execute(f"CREATE SCHEMA {schema}")
    for statement in DDL:
        con.execute(statement.format(s=schema))

    def run(sql: str) -> list[tuple[Any, ...]]:
        with con.transaction(force_rollback=True):
            return con.execute(sql).fetchall()

    try:
        yield Engine("postgres", schema, run)
    finally:
        con.execute(f"DROP SCHEMA {schema} CASCADE")
        con.close()


def _engine(request: pytest.FixtureRequest, dialect: str) -> Engine:
    return request.getfixturevalue("duck_engine" if dialect == "duckdb" else "pg_engine")


@pytest.mark.parametrize(("form", "dialect"), _cases())
def test_the_hidden_column_never_comes_back(
    form: Form, dialect: str, request: pytest.FixtureRequest
) -> None:
    engine = _engine(request, dialect)
    sql = form.sql.format(s=engine.schema)
    result = engine.check(sql)
    if form.expect == "refuse":
        assert not result.ok, f"accepted: {result.sql}"
        assert form.rule in [v.rule for v in result.violations], result.violations
        for found in result.violations:
            assert found.message_en and found.message_ru and found.fragment
        if dialect in form.leaks:  # the form is a real leak on this engine without the guard
            assert MARKER in repr(engine.run(sql))
        return
    assert result.ok, [v.message_en for v in result.violations]
    if form.id == "group_by_alias_runs_as_its_position":
        # the alias's position: the name alone groups by the table's hidden column
        assert "GROUP BY\n  1" in result.sql, result.sql
    else:
        assert "secret_note" not in result.sql
    if form.expect == "expand":
        # the star over the table became its allowed columns, qualified with its alias; a
        # star over a CTE or subquery stays (it reads only what that query selects)
        assert ".region_id" in result.sql, result.sql
        if dialect in form.leaks:
            assert MARKER in repr(engine.run(sql))  # what the star read before the guard
    rows = engine.run(result.sql)
    assert rows, "the accepted query still answers"
    assert MARKER not in repr(rows)


def test_a_star_runs_as_the_catalog_columns_in_catalog_order() -> None:
    result = guard(
        "SELECT * FROM dim_client",
        dialect="postgres",
        allowed_tables={"dwh.dim_client"},
        allowed_columns={"dwh.dim_client": ["segment", "Client_ID", "order"]},
    )
    assert result.ok
    assert result.sql == (
        'SELECT\n  dim_client.segment,\n  dim_client."Client_ID",\n  dim_client.order\n'
        "FROM dwh.dim_client"
    )
    # a set gives no order: sorted, so the same query always runs the same SQL
    again = guard(
        "SELECT d.* FROM dwh.dim_client AS d",
        dialect="duckdb",
        allowed_tables={"dwh.dim_client"},
        allowed_columns={"dwh.dim_client": {"segment", "client_id"}},
    )
    assert again.sql == "SELECT\n  d.client_id,\n  d.segment\nFROM dwh.dim_client AS d"


def test_tables_without_a_column_list_keep_their_star() -> None:
    for columns in (None, {"dwh.dim_region": ["region_id"]}):
        result = guard(
            "SELECT * FROM dwh.dim_client",
            dialect="duckdb",
            allowed_tables={"dwh.dim_client", "dwh.dim_region"},
            allowed_columns=columns,
        )
        assert result.ok and result.sql == "SELECT\n  *\nFROM dwh.dim_client"
    mixed = guard(
        "SELECT * FROM dwh.dim_client c JOIN dwh.dim_region r ON r.region_id = c.region_id",
        dialect="postgres",
        allowed_tables={"dwh.dim_client", "dwh.dim_region"},
        allowed_columns={"dwh.dim_region": ["region_id"]},
    )
    assert mixed.ok
    assert mixed.sql.startswith("SELECT\n  c.*,\n  r.region_id\nFROM"), mixed.sql


def test_the_whole_row_message_names_the_alias_in_both_languages() -> None:
    result = guard(
        "SELECT to_json(cl) FROM dwh.dim_client AS cl",
        dialect="postgres",
        allowed_tables={"dwh.dim_client"},
        allowed_columns={"dwh.dim_client": ["client_id"]},
    )
    (found,) = result.violations
    assert found.rule == "whole_rows" and found.fragment == "to_json(cl)"
    assert found.message_en.startswith("to_json(cl) uses the table cl as a value")
    assert "cl.column" in found.message_en
    assert found.message_ru.startswith("to_json(cl) использует таблицу cl как значение")
