"""Byte budgets over `vitrina mcp --transport http` (decision 146): long cells are cut with a
marker and counted, a reply never exceeds `mcp_reply_max_bytes`, and while one token's query
runs another token's calls are answered."""

from __future__ import annotations

import json
from typing import Any

import anyio
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from mcp import Client

CELLS = "SELECT region_name, repeat(region_name, 100000) AS big FROM dwh.dim_region"
# 12 x 1,461 rows of 1,000 characters: far over a 20 kB reply once 500 rows are asked for
MANY = (
    "SELECT r.region_name, repeat('y', 1000) AS filler "
    "FROM dwh.dim_region AS r CROSS JOIN dwh.dim_calendar AS c"
)
# a four-way cross join (5e13 rows): it runs until the statement timeout stops it
SLOW = (
    "SELECT max(r.region_name || m.merchant_name || k.month_name || p.payment_id::varchar) AS s "
    "FROM dwh.dim_region AS r CROSS JOIN dwh.dim_merchant AS m CROSS JOIN dwh.dim_calendar AS k "
    "CROSS JOIN dwh.fact_payment AS p"
)


def _client(url: str, token: str) -> Client:
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}, timeout=None)
    return Client(streamable_http_client(url, http_client=http), read_timeout_seconds=120)


def _call(url: str, token: str, tool: str, args: dict[str, Any]) -> Any:
    async def go() -> Any:
        async with _client(url, token) as client:
            return await client.call_tool(tool, args)

    return anyio.run(go)


def test_long_cells_are_cut_and_counted(start_mcp_http) -> None:
    with start_mcp_http({"VITRINA_RESULT_CELL_MAX_CHARS": "500"}) as (url, tokens, _log):
        result = _call(url, tokens["analyst"], "run_sql", {"sql": CELLS})
    assert not result.is_error
    reply = result.structured_content
    assert reply["row_count"] == 12 and reply["cells_cut"] == 12
    for name, big in reply["rows"]:
        assert big == (name * 100000)[:500] + f"… (cut: {len(name) * 100000} chars)"
    assert len(json.dumps(reply, ensure_ascii=False).encode()) < 40_000


def test_a_reply_stays_within_its_byte_bound(start_mcp_http) -> None:
    env = {"VITRINA_MCP_REPLY_MAX_BYTES": "20000"}
    with start_mcp_http(env) as (url, tokens, _log):
        result = _call(url, tokens["analyst"], "run_sql", {"sql": MANY, "max_rows": 500})
    assert not result.is_error
    reply = result.structured_content
    assert len(json.dumps(reply, ensure_ascii=False).encode()) <= 20_000
    assert reply["rows_truncated"] and 5 < len(reply["rows"]) < 20
    assert reply["reply_cut"].startswith(f"{500 - len(reply['rows'])} of 500 rows left out")
    assert "mcp_reply_max_bytes" in reply["reply_cut"]


def test_other_tokens_are_answered_while_a_query_runs(start_mcp_http) -> None:
    """The slow query holds its worker thread for the statement timeout; the other token's
    search and table description finish first, and the slow one ends with a clear error."""
    done: list[str] = []
    out: dict[str, Any] = {}

    async def heavy(url: str, token: str) -> None:
        async with _client(url, token) as client:
            out["heavy"] = await client.call_tool("run_sql", {"sql": SLOW})
        done.append("heavy")

    async def light(url: str, token: str, started: anyio.Event) -> None:
        async with _client(url, token) as client:
            await started.wait()
            out["search"] = await client.call_tool("search_catalog", {"query": "регион"})
            out["table"] = await client.call_tool("describe_table", {"table": "dim_region"})
        done.append("light")

    env = {"VITRINA_STATEMENT_TIMEOUT_S": "4"}
    with start_mcp_http(env) as (url, tokens, log):

        async def both() -> None:
            started = anyio.Event()
            async with anyio.create_task_group() as group:
                group.start_soon(heavy, url, tokens["analyst"])
                group.start_soon(light, url, tokens["other"], started)
                await anyio.sleep(0.5)  # the heavy call is sent and running
                started.set()

        anyio.run(both)
    assert done == ["light", "heavy"], log.read_text()[-2000:]
    assert not out["search"].is_error and not out["table"].is_error
    assert out["heavy"].is_error
    text = " ".join(getattr(c, "text", "") for c in out["heavy"].content)
    assert "timeout" in text or "too large" in text.lower()
