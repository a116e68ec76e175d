"""Issue 32 items 2 and 3: column lineage through CTEs, derived tables, temps and table
variables, with each computation quoted from the file at the line of the expression."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import sqlglot

from vitrina.config import load_settings
from vitrina.docs.live import LiveDocs
from vitrina.docs.run import make_request, run_docs
from vitrina.docs.sqlindex import build_index
from vitrina.docs.sqlindex.assignments import column_assignments
from vitrina.docs.sqlindex.quote import Quote, quote
from vitrina.mcp import tools
from vitrina.mcp.tools import Toolbox

F = Path(__file__).parent / "fixtures" / "lineage32"
BANK = Path(__file__).parent / "fixtures" / "banking"
WINDOW = (
    "MAX(o.OrderDate) OVER (PARTITION BY o.CustomerKey ORDER BY o.OrderDate\n"
    "                                      ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)"
)
RISK = "Balance * 0.01\n                       + CASE WHEN DaysOverdue > 30 THEN 10 ELSE 0 END"


def _assignments(folder: Path, table: str) -> dict[str, Any]:
    index = build_index([folder])
    return {
        a.column: a
        for o in index.objects.values()
        for st in o.statements
        for a in st.assignments
        if a.target == table
    }


def _steps(a: Any) -> list[tuple[str, str, str, int]]:
    return [(s.where, s.column, s.expression, s.line) for s in a.steps]


def test_cte_columns_are_computed_and_followed_to_the_staging_table() -> None:
    got = _assignments(F / "cte", "dw.factcustomergap")
    count = got["OrderCount"]
    assert (count.expression, count.line, count.passthrough) == ("g.OrderCount", 21, False)
    assert _steps(count) == [("CTE gaps", "OrderCount", "COUNT(*)", 14)]
    assert count.sources == ["stg.orders.*"]
    gap = got["LongestGapDays"]
    assert gap.passthrough is False and gap.line == 22
    assert _steps(gap) == [
        ("CTE gaps", "LongestGapDays", "MAX(DATEDIFF(DAY, PrevMaxDate, OrderDate))", 15),
        ("CTE ordered", "PrevMaxDate", WINDOW, 8),
    ]
    assert gap.sources[0] == "stg.orders.OrderDate"
    amount = got["AvgAmount"]
    assert (amount.expression, amount.line, amount.exact) == (
        "CAST(a.Amount AS DECIMAL(18, 2))",
        23,
        True,
    )
    assert _steps(amount) == [("derived table a", "Amount", "AVG(Amount)", 26)]
    assert amount.sources == ["stg.orders.Amount"]
    assert got["Tier"].expression == "CONVERT(INT, g.OrderCount / 10)"
    key = got["CustomerKey"]
    assert key.passthrough is True and key.steps == []  # copied unchanged through both CTEs
    assert key.sources == ["stg.orders.CustomerKey"]
    every = [s for a in got.values() for s in a.sources]
    assert not any(s.split(".")[0] in ("gaps", "ordered", "a", "dbo") for s in every), every


def test_caller_temp_callee_update_and_table_variable() -> None:
    index = build_index([F / "temps"])
    by = {
        (o.name, a.target, a.column): a
        for o in index.objects.values()
        for st in o.statements
        for a in st.assignments
    }
    score = by[("etl.scoreaccounts", "#accounts", "RiskScore")]
    assert (score.expression, score.line, score.passthrough) == (RISK, 6, False)
    assert score.sources == ["#accounts.Balance", "#accounts.DaysOverdue"]
    assert by[("etl.loadaccountrisk", "@top", "RiskScore")].sources == ["#accounts.RiskScore"]
    fact = by[("etl.loadaccountrisk", "dw.factaccountrisk", "RiskScore")]
    assert fact.passthrough and fact.sources == ["@top.RiskScore"]


def _docs(tmp_path: Path, lang: str = "en") -> Path:
    out = tmp_path / f"out-{lang}"
    report = run_docs(make_request(F / "model.bim", [F / "cte", F / "temps"], out=out, lang=lang))
    assert report.missed == []
    return out


def test_documents_quote_each_computation_with_its_line(tmp_path: Path) -> None:
    out = _docs(tmp_path)
    gap = (out / "measures" / "Longest Gap.md").read_text(encoding="utf-8")
    table = gap.split("## How the business columns are computed", 1)[1].split("\n## ", 1)[0]
    assert "`g.LongestGapDays` ← CTE gaps.LongestGapDays: " in table
    assert "`MAX(DATEDIFF(DAY, PrevMaxDate, OrderDate))` (line 15)" in table
    assert "(copied)" not in table and "dw.LoadCustomerGaps, line 22" in table
    orders = (out / "measures" / "Orders.md").read_text(encoding="utf-8")
    assert "CTE gaps.OrderCount: `COUNT(*)` (line 14)" in orders
    assert "(copied)" not in orders.split("## How the business columns are computed", 1)[1]
    amount = (out / "measures" / "Average Amount.md").read_text(encoding="utf-8")
    assert "`CAST(a.Amount AS DECIMAL(18, 2))`" in amount and "NUMERIC" not in amount
    assert "derived table a.Amount: `AVG(Amount)` (line 26)" in amount
    customers = (out / "measures" / "Customers.md").read_text(encoding="utf-8")
    assert "`g.CustomerKey` (copied)" in customers
    risk = (out / "measures" / "Average Risk.md").read_text(encoding="utf-8")
    steps = risk.split("## How the business columns are computed", 1)[1].split("\n## ", 1)[0]
    assert "etl.ScoreAccounts, line 6" in steps and "CASE WHEN DaysOverdue > 30" in steps
    assert "`CAST(0 AS DECIMAL(9, 2))` | etl.LoadAccountRisk, line 13" in steps
    assert "@Top.RiskScore | `RiskScore` (copied) | etl.LoadAccountRisk, line 21" in steps
    ru = (_docs(tmp_path, "ru") / "measures" / "Average Amount.md").read_text(encoding="utf-8")
    assert "производная таблица a.Amount: `AVG(Amount)` (строка 26)" in ru
    assert "производная таблица a.Amount = `AVG(Amount)` (строка 26)" in ru  # the explanation


def _no_cte_named(value: Any, path: str = "") -> list[str]:
    """Every string in a JSON tree that names a CTE as a table (`gaps.`, `ordered.`)."""
    if isinstance(value, dict):
        return [h for k, v in value.items() for h in _no_cte_named(v, f"{path}.{k}")]
    if isinstance(value, list):
        return [h for v in value for h in _no_cte_named(v, path)]
    if isinstance(value, str) and path.endswith((".sources", ".source", ".id", ".label", ".name")):
        low = value.lower()
        return [f"{path}: {value}"] if low.startswith(("gaps", "ordered", "dbo.gaps")) else []
    return []


def test_index_json_and_mcp_never_name_a_cte_as_a_table(tmp_path: Path) -> None:
    out = _docs(tmp_path)
    index = json.loads((out / "index.json").read_text(encoding="utf-8"))
    assert _no_cte_named(index) == []
    sources = [
        s
        for entry in index["measures"].values()
        for step in entry["lineage"]["column_steps"]
        for s in step["sources"]
    ]
    assert "stg.Orders.OrderDate" in sources  # the real table, as its DDL writes it
    box = Toolbox(
        load_settings(),
        docs_dir=tmp_path / "none",
        live_docs=LiveDocs(F / "model.bim", [F / "cte", F / "temps"]),
    )
    lin = tools.trace_lineage(box, "Longest Gap")
    assert _no_cte_named(lin) == []
    assert any(s["steps"] for s in lin["column_steps"])
    assert {p["order_basis"] for p in lin["procedures"]} == {"data"}
    assert lin["order_notes"] == []


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("SELECT CAST(x AS DECIMAL(18,2)) AS a FROM t", "CAST(x AS DECIMAL(18,2))"),
        ("SELECT CAST(x AS INT) AS a FROM t", "CAST(x AS INT)"),
        ("SELECT DATEDIFF(day, a, b) AS d FROM t", "DATEDIFF(day, a, b)"),
        ("SELECT d = CONVERT(date, @v) FROM t", "CONVERT(date, @v)"),
        ("SELECT TOP (5) x * 2 y FROM t", "x * 2"),
        ("SELECT (SELECT MAX(z) FROM q WHERE q.k = t.k) AS m FROM t", None),
    ],
)
def test_quotes_are_the_authors_text(sql: str, expected: str | None) -> None:
    tree = sqlglot.parse_one(sql, read="tsql")
    proj = tree.expressions[0]
    got = quote(proj.this if proj.alias else proj, sql)
    assert got.exact
    assert got.text == (expected or "(SELECT MAX(z) FROM q WHERE q.k = t.k)")
    assert "DATETIME2" not in got.text and "NUMERIC" not in got.text and "INTEGER" not in got.text


def test_without_the_text_the_normalised_form_is_labelled() -> None:
    tree = sqlglot.parse_one("INSERT INTO t (a) SELECT CAST(x AS INT) FROM s", read="tsql")
    (a,) = column_assignments(tree)  # no statement text: nothing to slice
    assert a.exact is False and a.expression == "CAST(x AS INTEGER)"  # sqlglot's, labelled
    out = tree.sql(dialect="tsql")
    (b,) = column_assignments(sqlglot.parse_one(out, read="tsql"), out)
    assert b.exact is True


def test_the_banking_merge_sources_resolve_through_the_using_subquery() -> None:
    got = _assignments(BANK / "sql", "##stagedsnapshot")
    churn = got["ChurnFlag"]
    assert churn.sources == ["##monthlyactivity.LastTxnDate"]
    assert churn.line == 8 and churn.expression.startswith("CASE WHEN DATEDIFF(DAY,")


def test_a_repeated_variable_is_quoted_where_its_list_item_stands() -> None:
    sql = "UPDATE t\n   SET a = CONVERT(INT, @v),\n       b = @v\n WHERE k = @v"
    tree = sqlglot.parse_one(sql, read="tsql")
    first, second = (eq.expression for eq in tree.expressions)
    assert quote(first, sql) == Quote("CONVERT(INT, @v)", 2, True)
    got = quote(second, sql)
    assert (got.text, got.exact) == ("@v", False)  # two candidates after it: not guessed
