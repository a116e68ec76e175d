"""Properties of the SQL guard, through its public functions only (`guard`, `guard_with_catalog`).

Any SELECT built from the catalog's own tables, columns and relations is accepted, and what
the guard returns is again accepted and capped; any statement that writes, defines, grants,
copies, attaches or sets, alone or stacked behind a SELECT, is rejected; and no text, however
random or deeply nested, makes the guard do anything but answer.
"""

from __future__ import annotations

import re

import pytest
import sqlglot
from hypothesis import given
from hypothesis import strategies as st
from sqlglot import exp

from vitrina.catalog import load_catalog
from vitrina.sql.guard import guard, guard_with_catalog

CATALOG = load_catalog()
COLUMNS = {t: sorted(cols) for t, cols in CATALOG.allowed_columns().items() if cols}
TABLES = sorted(COLUMNS)
RELATIONS = [(r.left_table, r.left.rsplit(".", 1)[1], r.right_table, r.right.rsplit(".", 1)[1])
             for r in CATALOG.relations]  # fmt: skip
ROW_CAP = 500
DIALECTS = st.sampled_from(["duckdb", "postgres"])


@st.composite
def selects(draw: st.DrawFn) -> str:
    """A SELECT over one catalog table, perhaps joined along a relation, grouped, ordered."""
    table = draw(st.sampled_from(TABLES))
    cols = [f"t.{c}" for c in draw(st.lists(st.sampled_from(COLUMNS[table]), min_size=1, max_size=4,
                                            unique=True))]  # fmt: skip
    joins = [rel for rel in RELATIONS if rel[0] == table]
    sql_from = f"{table} AS t"
    if joins and draw(st.booleans()):
        _, left, right, key = draw(st.sampled_from(joins))
        sql_from += f" JOIN {right} AS j ON t.{left} = j.{key}"
        cols.append(f"j.{draw(st.sampled_from(COLUMNS[right]))}")
    agg = draw(st.sampled_from([None, "COUNT(*)", "COUNT", "SUM", "AVG", "MIN", "MAX"]))
    measure = draw(st.sampled_from(cols))
    if agg is None:
        select, group = ", ".join(cols), ""
    else:
        value = agg if agg == "COUNT(*)" else f"{agg}({measure})"
        keys = cols[:-1] if len(cols) > 1 else []
        select = ", ".join([*keys, f"{value} AS value"])
        group = f" GROUP BY {', '.join(keys)}" if keys else ""
    where = f" WHERE {draw(st.sampled_from(cols))} IS NOT NULL" if draw(st.booleans()) else ""
    order = " ORDER BY 1 DESC" if draw(st.booleans()) else ""
    limit = f" LIMIT {draw(st.integers(1, 10_000))}" if draw(st.booleans()) else ""
    sql = f"SELECT {select} FROM {sql_from}{where}{group}{order}{limit}"
    if draw(st.booleans()):
        sql = f"WITH q AS ({sql}) SELECT * FROM q"
    return sql


def _limit(sql: str, dialect: str) -> int | None:
    tree = sqlglot.parse_one(sql, read=dialect)
    limit = tree.args.get("limit")
    return int(limit.expression.name) if limit is not None else None


@given(sql=selects(), dialect=DIALECTS)
def test_a_select_over_the_catalog_is_accepted_and_capped(sql: str, dialect: str) -> None:
    result = guard_with_catalog(sql, CATALOG, dialect=dialect, row_cap=ROW_CAP)
    assert result.ok, (sql, [v.rule for v in result.violations])
    cap = _limit(result.sql, dialect)
    assert cap is not None and cap <= ROW_CAP, result.sql
    again = guard_with_catalog(result.sql, CATALOG, dialect=dialect, row_cap=ROW_CAP)
    assert again.ok and again.sql == result.sql, result.sql  # the guard's output is a fixed point


WRITES = [
    "INSERT INTO {t} VALUES (1)",
    "INSERT INTO {t} SELECT * FROM {t}",
    "UPDATE {t} SET {c} = NULL",
    "DELETE FROM {t}",
    "DELETE FROM {t} WHERE {c} IS NULL",
    "DROP TABLE {t}",
    "DROP VIEW {t}",
    "DROP SCHEMA dwh CASCADE",
    "TRUNCATE {t}",
    "TRUNCATE TABLE {t}",
    "CREATE TABLE x AS SELECT * FROM {t}",
    "CREATE VIEW v AS SELECT {c} FROM {t}",
    "CREATE INDEX i ON {t} ({c})",
    "ALTER TABLE {t} ADD COLUMN z INT",
    "ALTER TABLE {t} DROP COLUMN {c}",
    "ALTER TABLE {t} RENAME TO x",
    "GRANT SELECT ON {t} TO PUBLIC",
    "REVOKE SELECT ON {t} FROM PUBLIC",
    "COPY {t} TO '/tmp/out.csv'",
    "COPY {t} FROM '/tmp/in.csv'",
    "MERGE INTO {t} USING {t} AS s ON 1 = 1 WHEN MATCHED THEN DELETE",
    "CALL p()",
    "ATTACH 'x.db' AS x",
    "DETACH x",
    "PRAGMA enable_profiling",
    "SET search_path = public",
    "VACUUM",
    "INSTALL httpfs",
    "LOAD httpfs",
    "EXPORT DATABASE '/tmp/db'",
    "SELECT * INTO x FROM {t}",
    "SELECT * FROM {t} FOR UPDATE",
    "WITH d AS (DELETE FROM {t} RETURNING *) SELECT * FROM d",
    "BEGIN",
    "COMMIT",
    "CHECKPOINT",
    "CREATE SECRET s (TYPE s3)",
    "SELECT pg_terminate_backend(1)",
    "SELECT * FROM read_csv('/etc/passwd')",
]


def _vary(sql: str, style: int) -> str:
    """The same statement as another writer sends it: case, spacing, comments."""
    if style == 1:
        return sql.lower()
    if style == 2:
        return re.sub(r"\s+", "\n  ", sql)
    if style == 3:
        return sql.replace(" ", " /* c */ ", 1)
    return sql


@st.composite
def writes(draw: st.DrawFn) -> str:
    table = draw(st.sampled_from(TABLES))
    text = draw(st.sampled_from(WRITES)).format(t=table, c=draw(st.sampled_from(COLUMNS[table])))
    text = _vary(text, draw(st.integers(0, 3)))
    where = draw(st.sampled_from(["alone", "after", "before"]))
    if where == "alone":
        return text
    select = draw(selects())
    return f"{select}; {text}" if where == "after" else f"{text}; {select}"


@given(sql=writes(), dialect=DIALECTS)
def test_a_write_or_a_stacked_statement_is_rejected(sql: str, dialect: str) -> None:
    result = guard_with_catalog(sql, CATALOG, dialect=dialect, row_cap=ROW_CAP)
    assert not result.ok and result.violations, sql


@given(text=st.text(max_size=300), dialect=DIALECTS)
def test_any_text_gets_an_answer_never_an_exception(text: str, dialect: str) -> None:
    result = guard_with_catalog(text, CATALOG, dialect=dialect, row_cap=ROW_CAP)
    assert result.ok != bool(result.violations)
    if result.ok:  # then it is one read-only query over the catalog
        assert isinstance(sqlglot.parse_one(result.sql, read=dialect), exp.Query), (
            text,
            result.sql,
        )


@given(sql=selects(), cut=st.integers(0, 400), junk=st.text(max_size=20), dialect=DIALECTS)
def test_a_mangled_select_gets_an_answer(sql: str, cut: int, junk: str, dialect: str) -> None:
    mangled = sql[:cut] + junk + sql[cut:]
    result = guard(mangled, dialect=dialect, allowed_tables=set(TABLES), row_cap=ROW_CAP)
    assert result.ok != bool(result.violations)


NESTINGS = [
    "SELECT {o}1{c}",
    "SELECT * FROM {sub}dwh.fact_payment{end}",
    "SELECT 1 + {plus}1",
    "SELECT * FROM dwh.fact_payment WHERE {nots}TRUE",
]


def nesting_cases() -> list[object]:
    cases = []
    for depth in (10, 200, 2_000, 20_000):
        for shape in NESTINGS:
            cases.append(pytest.param(shape, depth, id=f"{depth}-{shape}"))
    return cases


@pytest.mark.parametrize(("shape", "depth"), nesting_cases())
def test_deep_nesting_gets_an_answer(shape: str, depth: int) -> None:
    parts = {
        "o": "(",
        "c": ")",
        "sub": "(SELECT * FROM ",
        "end": ") s",
        "plus": "1 + ",
        "nots": "NOT ",
    }
    sql = shape.format(**{key: text * depth for key, text in parts.items()})
    result = guard(sql, dialect="duckdb", allowed_tables=set(TABLES), row_cap=ROW_CAP)
    assert result.ok != bool(result.violations)
