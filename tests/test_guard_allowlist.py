"""The function allow-list and the limits: reviewed, disjoint from the deny-list, bounded."""

from __future__ import annotations

import sys
import time

import pytest

from vitrina.sql.guard import guard
from vitrina.sql.guard.allowed_functions import (
    ANONYMOUS,
    TYPED,
    TYPED_REJECTED,
    is_allowed_function,
    unreviewed,
)
from vitrina.sql.guard.dialects import deny_list
from vitrina.sql.guard.limits import MAX_NESTING, MAX_SQL_CHARS, check_limits

TABLES = {"dwh.fact_payment", "dwh.dim_client"}


def test_every_typed_sqlglot_function_is_reviewed() -> None:
    # A sqlglot upgrade that adds a function lands here: decide, then add it to a list.
    assert unreviewed() == []
    assert not TYPED & TYPED_REJECTED


@pytest.mark.parametrize("dialect", sorted(ANONYMOUS))
def test_no_denied_name_is_on_an_allow_list(dialect: str) -> None:
    denied = deny_list(dialect)
    assert not {name for name in ANONYMOUS[dialect] if denied.denies(name)}


def test_an_unknown_dialect_gets_no_anonymous_functions() -> None:
    assert not is_allowed_function("Anonymous", "age", "snowflake")
    assert is_allowed_function("Lower", None, "snowflake")


@pytest.mark.parametrize(
    ("sql", "dialect", "rule"),
    [
        ("SELECT ts_rewrite('a'::tsquery, 'SELECT 1')", "postgres", "allowed_functions"),
        ("SELECT current_setting('data_directory')", "postgres", "allowed_functions"),
        ("SELECT public.lower(status) FROM dwh.fact_payment", "postgres", "allowed_functions"),
        ('SELECT "MAKE_DATE"(2024, 1, 1)', "postgres", "allowed_functions"),
        ("SELECT * FROM dwh.fact_payment, LATERAL duckdb_views() v", "duckdb", "table_functions"),
        ("SELECT * FROM unnest([1, 2])", "duckdb", "table_functions"),
        ("SELECT $1", "postgres", "parameters"),
        ("SELECT user", "postgres", "allowed_columns"),
        (
            "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n FROM r",
            "duckdb",
            "recursive_cte",
        ),
    ],
)
def test_refused_with_the_rule_that_says_why(sql: str, dialect: str, rule: str) -> None:
    result = guard(sql, dialect=dialect, allowed_tables=TABLES)
    assert not result.ok
    assert rule in [v.rule for v in result.violations], result.violations


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT age(payment_date), make_date(2024, 1, 1), date_trunc('month', "
        "payment_date) FROM dwh.fact_payment",
        "SELECT status, round(sum(amount_rub) / nullif(count(*), 0), 2) FROM "
        "dwh.fact_payment GROUP BY status",
        "SELECT lower(status), row_number() OVER (ORDER BY payment_id) FROM dwh.fact_payment",
        "WITH s AS (SELECT client_id FROM dwh.fact_payment) SELECT count(*) FROM s JOIN "
        "dwh.dim_client USING (client_id)",
    ],
)
def test_ordinary_analytics_is_allowed(sql: str) -> None:
    result = guard(sql, dialect="postgres", allowed_tables=TABLES)
    assert result.ok, result.violations


def test_nesting_at_the_limit_is_allowed_and_one_more_is_refused() -> None:
    def nested(depth: int) -> str:
        return "SELECT " + "abs(" * depth + "amount_rub" + ")" * depth + " FROM dwh.fact_payment"

    assert guard(nested(MAX_NESTING), dialect="duckdb", allowed_tables=TABLES).ok
    refused = guard(nested(MAX_NESTING + 1), dialect="duckdb", allowed_tables=TABLES)
    assert [v.rule for v in refused.violations] == ["too_complex"]
    assert "24" in refused.violations[0].message_en and "24" in refused.violations[0].message_ru
    assert refused.events and refused.events[0].data["rule"] == "too_complex"


def test_a_text_over_the_size_limit_is_refused_before_parsing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Refused on its length alone: the tokenizer is never reached (how fast that is, is
    benchmarks/bench_guard.py's `oversize_refusal_ms`, not a wall-clock assertion here)."""
    from sqlglot.dialects.dialect import Dialect

    def never(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("an over-long text reached the tokenizer")

    monkeypatch.setattr(Dialect, "tokenize", never)
    sql = "SELECT '" + "x" * MAX_SQL_CHARS + "'"
    (refused,) = check_limits(sql, "postgres")
    assert refused.rule == "too_complex" and str(MAX_SQL_CHARS) in refused.message_en


@pytest.mark.parametrize("depth", [3_000, 100_000])
def test_deep_nesting_is_refused_fast_and_never_raises(depth: int) -> None:
    sql = "SELECT " + "(" * depth + "1" + ")" * depth
    start = time.perf_counter()
    result = guard(sql[:MAX_SQL_CHARS], dialect="duckdb", allowed_tables=TABLES)
    assert not result.ok and result.violations[0].rule == "too_complex"
    assert time.perf_counter() - start < 2.0


def test_a_recursion_error_inside_sqlglot_is_a_refusal(monkeypatch: pytest.MonkeyPatch) -> None:
    guard_module = sys.modules["vitrina.sql.guard"]  # the package name is shadowed by guard()

    def recurse(*args: object, **kwargs: object) -> None:
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(guard_module, "parse_statement", recurse)
    result = guard("SELECT 1", dialect="duckdb", allowed_tables=TABLES)
    assert not result.ok and result.violations[0].rule == "too_complex"
    assert result.events[0].kind == "rejected"
