"""Every item of the hostile corpus is refused by the guard itself, quickly and in words.

The guard is the first layer: the entry-point tests (test_entry_points.py) then show the
same items cannot get through MCP, a task step or a question, and that the database and
the file system are unchanged afterwards.
"""

from __future__ import annotations

import time

import pytest
import sqlglot
from sqlglot import exp

from vitrina.sql.guard import guard_with_catalog

from .corpus import HIDDEN_COLUMN, Attack, for_dialect, hidden_catalog

CATALOG = hidden_catalog()  # the demo catalog without one column the warehouse has
ROW_CAP = 100
SECONDS_PER_ITEM = 5.0  # the 3,000-paren query took minutes before the limits


def _cases() -> list[object]:
    return [
        pytest.param(attack, dialect, id=f"{attack.id}-{dialect}")
        for dialect in ("duckdb", "postgres", "mysql", "tsql", "trino", "clickhouse")
        for attack in for_dialect(dialect)
    ]


@pytest.mark.parametrize(("attack", "dialect"), _cases())
def test_the_guard_refuses_it(attack: Attack, dialect: str) -> None:
    start = time.perf_counter()
    result = guard_with_catalog(attack.sql, CATALOG, dialect=dialect, row_cap=ROW_CAP)
    elapsed = time.perf_counter() - start
    assert elapsed < SECONDS_PER_ITEM, f"{attack.id} took {elapsed:.1f} s"
    if result.ok:
        assert attack.safe_sql is not None, f"{attack.id} ({attack.why}) accepted as:\n{result.sql}"
        assert result.sql == attack.safe_sql, (
            "accepted, and what runs is not the comment-free query (or the expanded star)"
        )
        read = {
            c.name.lower() for c in sqlglot.parse_one(result.sql, read=dialect).find_all(exp.Column)
        }
        assert HIDDEN_COLUMN not in read, "what runs reads the column the catalog leaves out"
        return
    assert result.violations
    for violation in result.violations:
        assert violation.message_en.strip() and violation.message_ru.strip()
        assert violation.rule, "every refusal names its rule"
    if any(v.rule in ("too_complex", "qualify_failed") for v in result.violations):
        assert result.events, "a fail-closed refusal writes a trace event"


def test_the_corpus_is_big_enough() -> None:
    ids = {attack.id for dialect in ("duckdb", "postgres") for attack in for_dialect(dialect)}
    assert len(ids) >= 200
