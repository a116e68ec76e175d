"""`vitrina mcp --transport http` with a token limited to Moscow: `run_sql` and `ask` read only
Moscow's rows whatever the SQL says, and say so; another token sees every region."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import duckdb
import pytest
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from tests.mcp.conftest import mcp_http_process

from mcp import Client
from vitrina.catalog import load_catalog
from vitrina.config import Settings
from vitrina.server.store import Store
from vitrina.server.tokens import create_token
from vitrina.sql.policy import RowPolicy, parse_condition

# a hand-written dodge: the region filter of another region, inside a CTE, joined from the fact
DODGE = (
    "WITH p AS (SELECT client_id, amount_rub FROM dwh.fact_payment) "
    "SELECT r.region_name, SUM(p.amount_rub) FROM p JOIN dwh.dim_client c "
    "ON c.client_id = p.client_id JOIN dwh.dim_region r ON r.region_id = c.region_id "
    "GROUP BY r.region_name ORDER BY 1"
)


@pytest.fixture
def server(demo_db: Path, tmp_path: Path) -> Iterator[tuple[str, dict[str, str]]]:
    store = Store.from_settings(Settings(home=tmp_path))
    moscow = RowPolicy(
        conditions=[parse_condition("dim_region.region_name=Москва", load_catalog())]
    )
    tokens = {
        "moscow": create_token(store, "moscow", "analyst", moscow),
        "everyone": create_token(store, "everyone", "analyst"),
    }
    store.close()
    env = {**os.environ, "VITRINA_HOME": str(tmp_path), "VITRINA_DB_URL": f"duckdb:///{demo_db}"}
    with mcp_http_process(env, tmp_path) as (url, _log):
        yield url, tokens


def _client(url: str, token: str) -> Client:
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}, timeout=None)
    return Client(streamable_http_client(url, http_client=http), read_timeout_seconds=120)


def test_mcp_run_sql_and_ask_read_through_the_tokens_policy(server, demo_db) -> None:
    url, tokens = server
    out: dict[str, Any] = {}

    async def session() -> None:
        for name in ("moscow", "everyone"):
            async with _client(url, tokens[name]) as client:
                out[f"{name}_sql"] = await client.call_tool("run_sql", {"sql": DODGE})
                out[f"{name}_ask"] = await client.call_tool(
                    "ask", {"question": "Сумма платежей по регионам в 2025 году"}
                )

    anyio.run(session)
    with duckdb.connect(str(demo_db), read_only=True) as conn:
        want = conn.execute(
            "SELECT SUM(p.amount_rub) FROM dwh.fact_payment p JOIN dwh.dim_client c "
            "ON c.client_id = p.client_id JOIN dwh.dim_region r ON r.region_id = c.region_id "
            "WHERE r.region_name = 'Москва'"
        ).fetchone()[0]
    policed = out["moscow_sql"].structured_content
    assert not out["moscow_sql"].is_error
    assert [row[0] for row in policed["rows"]] == ["Москва"]
    assert abs(float(policed["rows"][0][1]) - float(want)) < 0.01
    assert "Москва" in policed["row_policy"]
    everyone = out["everyone_sql"].structured_content
    assert len(everyone["rows"]) > 1 and "row_policy" not in everyone
    asked = out["moscow_ask"].structured_content
    assert [row[0] for row in asked["rows"]] == ["Москва"]
    assert any(c["check"] == "row_policy" for c in asked["checks"])
    assert len(out["everyone_ask"].structured_content["rows"]) > 1
