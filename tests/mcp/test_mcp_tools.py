"""The MCP tools as functions: run_sql is guarded like the pipeline; clear failures."""

from __future__ import annotations

import pytest

from vitrina.config import load_settings
from vitrina.mcp import tools
from vitrina.mcp.tools import Toolbox, ToolFailure

HOSTILE = [
    ("DELETE FROM dwh.fact_payment", "select_only"),
    ("select 1; drop table dwh.dim_region", "single_statement"),
    ("select * into x from dwh.dim_region", "select_into"),
    ("select * from information_schema.tables", "system_catalogs"),
    ("select * from dwh.secret_table", "allowed_tables"),
    ("select password from dwh.dim_region", "allowed_columns"),
    ("select * from read_parquet('x.parquet')", "table_functions"),
]


@pytest.fixture
def box(demo_db, tmp_path):
    toolbox = Toolbox(
        load_settings(db_url=f"duckdb:///{demo_db}", row_cap=50), docs_dir=tmp_path / "none"
    )
    yield toolbox
    toolbox.close()


@pytest.mark.parametrize(("sql", "rule"), HOSTILE)
def test_run_sql_rejects_what_the_guard_rejects(box, sql, rule):
    with pytest.raises(ToolFailure, match="guard") as info:
        tools.run_sql(box, sql)
    assert rule in str(info.value) or "rejected" in str(info.value)


def test_run_sql_applies_the_row_cap(box):
    result = tools.run_sql(box, "select payment_id from dwh.fact_payment", max_rows=500)
    assert "LIMIT 50" in result["sql"] and result["row_count"] == 50


def test_no_manual_is_a_clear_failure(box):
    with pytest.raises(ToolFailure, match="vitrina docs"):
        tools.describe_measure(box, "[X]")


def test_run_sql_over_the_byte_budget_is_a_clear_failure(demo_db, tmp_path):
    """The result byte budget (VITRINA_RESULT_MAX_BYTES) refuses before the rows are kept."""
    toolbox = Toolbox(
        load_settings(db_url=f"duckdb:///{demo_db}", result_max_bytes=100),
        docs_dir=tmp_path / "none",
    )
    try:
        with pytest.raises(ToolFailure) as info:
            tools.run_sql(toolbox, "select region_name from dwh.dim_region")
        assert str(info.value).startswith("result too large (> 100")
    finally:
        toolbox.close()
