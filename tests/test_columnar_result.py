"""A large DuckDB result kept as Arrow columns (issue 38): the same rows, summary, chart data
and number check as the same rows held as tuples (`vitrina.warehouse.columnar`)."""

from __future__ import annotations

import subprocess
import sys
from decimal import Decimal, localcontext
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from vitrina.present.charts import ChartDecision
from vitrina.present.charts.choose import choose_chart
from vitrina.present.charts.data import build_chart_data
from vitrina.present.columns import ColumnMeta, ColumnRole, ValueFormat
from vitrina.present.numbers import allowed_numbers
from vitrina.present.stored import to_table
from vitrina.present.summary import summarize
from vitrina.warehouse import columnar as columnar_module
from vitrina.warehouse.columnar import ARROW_AFTER, ArrowRows
from vitrina.warehouse.engine import Warehouse
from vitrina.warehouse.result import QueryResult

ROOT = Path(__file__).resolve().parent.parent
ROWS = ARROW_AFTER * 3 + 7
SQL = """SELECT DATE '2024-01-01' + (i % 40)::INTEGER AS day,
  CASE WHEN i % 97 = 0 THEN NULL ELSE 'c' || (i % 23)::VARCHAR END AS customer,
  CASE WHEN i % 51 = 0 THEN NULL ELSE ((i * 7919) % 1000 - 20)::DECIMAL(12, 2) END AS revenue,
  (i % 13)::BIGINT AS orders
FROM range({rows}) t(i) ORDER BY i"""


@pytest.fixture(scope="module")
def results() -> tuple[QueryResult, QueryResult]:
    wh = Warehouse("duckdb:///:memory:", row_cap=10 * ROWS, result_max_bytes=10**9)
    columnar = wh.execute(SQL.format(rows=ROWS))
    tuples = QueryResult(columns=columnar.columns, rows=list(columnar.rows))
    return columnar, tuples


def _meta(name: str, role: ColumnRole, fmt: ValueFormat, **more: str) -> ColumnMeta:
    return ColumnMeta(name=name, label_ru=name, label_en=name, role=role, fmt=fmt, **more)


def metas() -> list[ColumnMeta]:
    return [
        _meta("day", ColumnRole.PERIOD, ValueFormat.DATE, grain="day"),
        _meta("customer", ColumnRole.DIMENSION, ValueFormat.TEXT),
        _meta("revenue", ColumnRole.METRIC, ValueFormat.MONEY, unit="USD"),
        _meta("orders", ColumnRole.METRIC, ValueFormat.COUNT),
    ]


def test_past_arrow_after_the_rows_are_columnar_and_read_back_the_same(results) -> None:
    columnar, tuples = results
    assert isinstance(columnar.rows, ArrowRows) and columnar.arrow is not None
    assert columnar.row_count == ROWS and not columnar.truncated
    assert columnar.rows[ARROW_AFTER] == tuples.rows[ARROW_AFTER]
    assert columnar.rows[-1] == tuples.rows[-1]
    assert columnar.rows[5:9] == tuples.rows[5:9]
    assert list(columnar.rows) == tuples.rows
    assert isinstance(tuples.rows[1][2], Decimal) and tuples.rows[0][2] is None
    assert columnar.model_dump()["rows"] == tuples.model_dump()["rows"]
    # the stored file keeps the engine's types (DECIMAL(12,2), not the values' narrowest)
    stored = to_table(columnar)
    assert str(stored.schema.field("revenue").type) == "decimal128(12, 2)"
    assert stored.to_pylist() == to_table(tuples).to_pylist()


def test_small_result_stays_tuples_and_cap_cuts_columnar() -> None:
    wh = Warehouse("duckdb:///:memory:", row_cap=ARROW_AFTER + 5, result_max_bytes=10**9)
    small = wh.execute(SQL.format(rows=100))
    assert type(small.rows) is list and small.arrow is None
    cut = wh.execute(SQL.format(rows=ROWS))
    assert cut.truncated and cut.row_count == ARROW_AFTER + 5 and cut.arrow is not None


def test_summary_is_the_same(results) -> None:
    columnar, tuples = results
    assert summarize(columnar, metas()) == summarize(tuples, metas())


@pytest.mark.parametrize(
    "decision",
    [
        ChartDecision(
            kind="line",
            x="day",
            x_columns=["day"],
            series_columns=["customer"],
            y_columns=["revenue"],
            order="x",
            max_points=30,
            max_series=6,
            fold_other=True,
        ),
        ChartDecision(
            kind="bar",
            x="customer",
            x_columns=["customer"],
            y_columns=["revenue", "orders"],
            order="desc",
            max_points=10,
        ),
        ChartDecision(
            kind="bar",
            x="customer",
            x_columns=["customer"],
            series_columns=["day"],
            y_columns=["orders"],
            order="desc",
            max_points=7,
            max_series=4,
            fold_other=False,
        ),
        ChartDecision(  # by total with a series folded into "Other" (negatives, NULLs)
            kind="stacked_bar",
            x="day",
            x_columns=["day"],
            series_columns=["customer"],
            y_columns=["revenue"],
            order="desc",
            max_points=12,
            max_series=5,
            fold_other=True,
        ),
    ],
)
def test_chart_data_is_the_same(results, decision) -> None:
    columnar, tuples = results
    for lang in ("ru", "en"):
        got = build_chart_data(decision, columnar, metas(), lang)
        assert got == build_chart_data(decision, tuples, metas(), lang)
        assert got.labels and got.datasets


def test_the_columnar_steps_import_neither_acero_nor_pandas() -> None:
    """The summary, the chart choice, the number check and the chart's points of a
    columnar result: grouped by dictionary codes and NumPy (`charts.exact`; Arrow's
    `Table.group_by` imports pyarrow.acero and with it pandas, 43 MB, issue 38), with no
    `pa.array` or Python literal given to `pyarrow.compute` (each imports pandas)."""
    script = """
import sys
from tests.test_columnar_result import SQL, ROWS, metas
from vitrina.present.charts import ChartDecision
from vitrina.present.charts.choose import choose_chart
from vitrina.present.numbers import allowed_numbers
from vitrina.present.summary import summarize
from vitrina.present.charts.data import build_chart_data
from vitrina.warehouse.engine import Warehouse
wh = Warehouse("duckdb:///:memory:", row_cap=10 * ROWS, result_max_bytes=10**9)
result = wh.execute(SQL.format(rows=ROWS))
summary = summarize(result, metas())
assert choose_chart(result, metas(), "en") is not None
assert allowed_numbers(result, metas(), summary=summary)
for order in ("x", "desc"):
    decision = ChartDecision(kind="line", x="day", x_columns=["day"], order=order,
        series_columns=["customer"], y_columns=["revenue"], max_points=9, max_series=3,
        fold_other=True)
    assert build_chart_data(decision, result, metas(), "en").datasets
print(sorted(m for m in ("pyarrow.acero", "pandas") if m in sys.modules))
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert done.stdout.strip() == "[]", done.stdout + done.stderr


def test_exact_sums_hold_past_64_bits() -> None:
    """Decimal sums past int64 and negatives, per group, as Python's exact arithmetic."""
    import pyarrow as pa

    from vitrina.present.charts import exact

    big = Decimal("9" * 32 + ".99")  # 2 * big is past 2**64 * 100 and 28 digits
    values = [big, big, big.copy_negate(), Decimal("-0.01"), None, Decimal("1.50"), None]
    keys = ["a", "a", "b", "b", "c", "c", "d"]
    table = pa.table({"k": keys, "v": pa.array(values, pa.decimal128(38, 2))})
    grouped = exact.groups(table, [0])
    assert grouped is not None and grouped.count == 4
    summed = exact.sums(table.column(1), grouped, min_count=1)
    got = [exact.decimal(summed, i) for i in range(grouped.count)]
    with localcontext() as context:
        context.prec = 60  # the expected sums exact
        assert got == [big + big, -(big + Decimal("0.01")), Decimal("1.50"), None]
        assert [exact.decimal(exact.absolute(summed), i) for i in range(3)] == [
            big + big,
            big + Decimal("0.01"),
            Decimal("1.50"),
        ]
    assert exact.descending(summed, grouped.first_row).tolist() == [0, 2, 3, 1]


def test_number_check_allows_the_same_numbers(results) -> None:
    columnar, tuples = results
    summary = summarize(tuples, metas())
    assert allowed_numbers(columnar, metas(), summary=summary) == allowed_numbers(
        tuples, metas(), summary=summary
    )


def test_chart_choice_is_the_same(results) -> None:
    columnar, tuples = results
    for lang in ("ru", "en"):
        assert choose_chart(columnar, metas(), lang) == choose_chart(tuples, metas(), lang)


def test_a_series_first_last_and_a_first_value_chart_are_the_same() -> None:
    """One row per period (first and last of a series), and a metric that is not summed (a
    point keeps its first row's value), with duplicate points."""
    wh = Warehouse("duckdb:///:memory:", row_cap=10 * ROWS, result_max_bytes=10**9)
    sql = """SELECT DATE '1990-01-01' + i::INTEGER AS day,
      CASE WHEN i % 7 = 0 THEN NULL ELSE (i % 1000 - 300)::BIGINT END AS revenue
    FROM range({rows}) t(i) ORDER BY (i * 7919) % {rows}"""
    columnar = wh.execute(sql.format(rows=ROWS))
    tuples = QueryResult(columns=columnar.columns, rows=list(columnar.rows))
    series = [metas()[0], _meta("revenue", ColumnRole.METRIC, ValueFormat.MONEY)]
    got = summarize(columnar, series)
    assert got == summarize(tuples, series) and got.metrics["revenue"].first_row is not None
    average = _meta("orders", ColumnRole.METRIC, ValueFormat.NUMBER)  # not summed: a number
    mixed = [*metas()[:2], average, metas()[2]]
    result = wh.execute(SQL.format(rows=ROWS).replace("AS revenue", "AS orders2"))
    result = QueryResult(columns=["day", "customer", "orders", "revenue"], rows=result.rows)
    rows = QueryResult(columns=result.columns, rows=list(result.rows))
    decision = ChartDecision(
        kind="bar",
        x="customer",
        x_columns=["customer"],
        series_columns=["day"],
        y_columns=["orders"],
        order="desc",
        max_points=9,
        max_series=5,
        fold_other=False,
    )
    assert build_chart_data(decision, result, mixed, "en") == build_chart_data(
        decision, rows, mixed, "en"
    )


def _by_column(pivot: dict | None) -> dict | None:
    """A rendered pivot with its columns in name order, each with its cells down the side."""
    if pivot is None:
        return None
    columns, rows = pivot["columns"], pivot["rows"]
    cells = {str(name): [list(row)[i] for row in rows] for i, name in enumerate(columns)}
    return {**pivot, "columns": sorted(map(str, columns)), "rows": sorted(cells.items())}


QUESTIONS = (
    "Сумма платежей по месяцам в 2025 году",
    "Revenue by city in 2025",
    "Сумма платежей по месяцам и городам в 2025 году",
)


@pytest.mark.parametrize("question", QUESTIONS)
def test_a_real_turn_answers_the_same_columnar(make_service, monkeypatch, question) -> None:
    """Through the ask graph on the demo warehouse, with the switch to Arrow after 2 rows:
    the same answer, table and chart as with tuples, and every row in the stored result."""
    plain = make_service().ask(question, thread_id="t")
    monkeypatch.setattr(columnar_module, "ARROW_AFTER", 2)
    seen: list[QueryResult] = []
    execute = Warehouse.execute

    def spy(self, sql, **kwargs):
        result = execute(self, sql, **kwargs)
        seen.append(result)
        return result

    monkeypatch.setattr(Warehouse, "execute", spy)
    service = make_service()
    got = service.ask(question, thread_id="t")
    assert plain.status == got.status == "answered" and plain.row_count > 2
    assert any(r.arrow is not None for r in seen)  # the turn's result went columnar
    assert (got.answer, got.chart) == (plain.answer, plain.chart)
    # rows of one month come in any order from DuckDB's GROUP BY (ORDER BY month only)
    assert sorted(map(repr, got.rows)) == sorted(map(repr, plain.rows))
    table, expected = dict(got.table or {}), dict(plain.table or {})
    # the preview is the first rows of that order: as many, maybe not the same
    assert len(table.pop("rows")) == len(expected.pop("rows"))
    # the pivot's columns come in the order the rows first show them: any order, the same cells
    assert _by_column(table.pop("pivot")) == _by_column(expected.pop("pivot"))
    assert table == expected
    files = service.run_files("t", got.run_id, ("csv", "parquet"))
    assert files is not None and files.parquet and files.csv
    assert pq.read_table(files.parquet).num_rows == got.row_count


def test_codes_number_values_by_first_appearance_across_chunks_with_null_last() -> None:
    import pyarrow as pa

    from vitrina.present.columnar import codes_of, combined_codes, distinct

    column = pa.chunked_array([["b", None, "a"], [], ["a", "c", None, "b"]], pa.string())
    codes, size = codes_of(column)
    assert (codes.tolist(), size) == ([0, 3, 1, 1, 2, 3, 0], 4)
    table = pa.table({"name": column, "n": pa.chunked_array([[1, 1, 2], [], [2, 2, 1, 1]])})
    assert distinct(table, [0]) == 4 and distinct(table, [0, 1]) == 4
    pairs = combined_codes(table, [0, 1])
    assert pairs.tolist()[0] == pairs.tolist()[-1] and len(set(pairs.tolist())) == 4
    assert codes_of(pa.chunked_array([[[1], [2]]])) is None  # lists cannot be hashed here
