"""`vitrina mcp --transport http`: the streamable HTTP transport answers the SDK's client, only
with a Vitrina API token; roles gate the tools and one token cannot touch another's task or
dialog; broken JSON and invalid UTF-8 get a JSON-RPC error."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from mcp import Client

REQUEST = "Сумма платежей по регионам за 3 квартал 2026, доли"


@pytest.fixture
def mcp_http(start_mcp_http) -> Iterator[tuple[str, dict[str, str], Path]]:
    """A running `vitrina mcp --transport http` and tokens of each role (plus a second analyst)."""
    with start_mcp_http() as running:
        yield running


def _client(url: str, token: str) -> Client:
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}, timeout=None)
    return Client(streamable_http_client(url, http_client=http), read_timeout_seconds=120)


def _text(result: Any) -> str:
    return " ".join(getattr(c, "text", "") for c in result.content)


def test_http_needs_a_token(mcp_http) -> None:
    url, _tokens, _log = mcp_http
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    headers = {"Accept": "application/json, text/event-stream"}
    assert httpx.post(url, json=body, headers=headers, timeout=10).status_code == 401
    wrong = {**headers, "Authorization": "Bearer vt_nope_nope"}
    assert httpx.post(url, json=body, headers=wrong, timeout=10).status_code == 401


def test_roles_and_owners_over_http(mcp_http) -> None:
    url, tokens, _log = mcp_http
    out: dict[str, Any] = {}

    async def session() -> None:
        async with _client(url, tokens["viewer"]) as viewer:
            out["tools"] = [t.name for t in (await viewer.list_tools()).tools]
            out["table"] = await viewer.call_tool("describe_table", {"table": "dim_region"})
            out["viewer_sql"] = await viewer.call_tool("run_sql", {"sql": "SELECT 1"})
            out["viewer_task"] = await viewer.call_tool("start_task", {"request": REQUEST})
            out["ask"] = await viewer.call_tool("ask", {"question": "Сколько платежей в мае 2025?"})
        async with _client(url, tokens["analyst"]) as analyst:
            out["sql"] = await analyst.call_tool(
                "run_sql", {"sql": "SELECT region_name FROM dwh.dim_region"}
            )
            out["task"] = await analyst.call_tool("start_task", {"request": REQUEST})
            thread = out["ask"].structured_content["thread_id"]
            out["foreign_dialog"] = await analyst.call_tool(
                "ask", {"question": "а в июне?", "thread_id": thread}
            )
        async with _client(url, tokens["other"]) as other:
            task_id = out["task"].structured_content["task_id"]
            out["foreign_task"] = await other.call_tool(
                "task_decision", {"task_id": task_id, "action": "stop"}
            )
        async with _client(url, tokens["analyst"]) as analyst:
            out["own_task"] = await analyst.call_tool(
                "task_decision", {"task_id": task_id, "action": "stop"}
            )

    anyio.run(session)
    assert "run_sql" in out["tools"] and len(out["tools"]) == 8
    assert not out["table"].is_error and out["table"].structured_content["name"] == "dwh.dim_region"
    assert out["viewer_sql"].is_error and "needs the analyst role" in _text(out["viewer_sql"])
    assert out["viewer_task"].is_error and "needs the analyst role" in _text(out["viewer_task"])
    assert not out["ask"].is_error
    assert not out["sql"].is_error and out["sql"].structured_content["row_count"] > 0
    assert not out["task"].is_error and out["task"].structured_content["status"] == "awaiting_plan"
    assert out["foreign_dialog"].is_error and "no dialog" in _text(out["foreign_dialog"])
    assert out["foreign_task"].is_error and "no task" in _text(out["foreign_task"])
    assert (
        not out["own_task"].is_error and out["own_task"].structured_content["status"] == "stopped"
    )


@pytest.mark.parametrize(
    "body",
    [
        b'{"jsonrpc": "2.0", "id": 1, "method": ',
        b'\xff\xfe{"jsonrpc":"2.0"}',
        b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": "\xc3\x28"}',
        b"[1, 2",
        b"null",
    ],
)
def test_broken_input_gets_a_json_rpc_error(mcp_http, body: bytes) -> None:
    url, tokens, log = mcp_http
    headers = {
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        "Authorization": f"Bearer {tokens['viewer']}",
    }
    reply = httpx.post(url, content=body, headers=headers, timeout=10)
    assert 400 <= reply.status_code < 500
    error = reply.json()["error"]
    assert error["code"] in (-32700, -32600, -32602) and error["message"]
    for _ in range(50):  # the log line is written as the reply goes out; bounded wait
        if "MCP HTTP: rejected a request" in log.read_text(errors="replace"):
            break
        time.sleep(0.1)
    assert "MCP HTTP: rejected a request" in log.read_text(errors="replace")
