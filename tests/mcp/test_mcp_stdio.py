"""`vitrina mcp` over stdio, driven by the official SDK's client: list the tools, call each one."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.stdio import StdioServerParameters

from mcp import Client
from vitrina.config import Settings
from vitrina.docs.run import make_request, run_docs

FIXTURES = Path(__file__).resolve().parents[1] / "docs" / "fixtures"
TOOLS = {
    "ask",
    "run_sql",
    "search_catalog",
    "describe_table",
    "describe_measure",
    "trace_lineage",
    "start_task",
    "task_decision",
}


@pytest.fixture(scope="module")
def manual(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("mcp-docs")
    request = make_request(
        FIXTURES / "small.bim", [FIXTURES / "warehouse"], all_measures=True, out=home / "manual"
    )
    run_docs(request, settings=Settings(home=home))
    return home / "manual"


def _payload(result: Any) -> Any:
    if result.structured_content is not None:
        data = result.structured_content
        return (
            data.get("result", data) if isinstance(data, dict) and set(data) == {"result"} else data
        )
    return json.loads(result.content[0].text)


def _text(result: Any) -> str:
    return " ".join(getattr(c, "text", "") for c in result.content)


def test_stdio_server_lists_and_runs_every_tool(demo_db, manual, tmp_path):
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "vitrina.cli", "mcp"],
        env={
            "VITRINA_HOME": str(tmp_path),
            "VITRINA_DB_URL": f"duckdb:///{demo_db}",
            "VITRINA_DOCS_DIR": str(manual),
        },
    )
    calls: dict[str, Any] = {}

    async def session() -> None:
        async with Client(params, read_timeout_seconds=120) as client:
            listed = await client.list_tools()
            calls["tools"] = {t.name: t for t in listed.tools}
            calls["ask"] = await client.call_tool(
                "ask", {"question": "Сумма платежей по регионам за 3 квартал 2026"}
            )
            calls["clarify"] = await client.call_tool(
                "ask", {"question": "Сколько открыли в мае 2025?"}
            )
            thread = _payload(calls["clarify"])["thread_id"]
            calls["clarified"] = await client.call_tool(
                "ask", {"question": "1", "thread_id": thread}
            )
            calls["run_sql"] = await client.call_tool(
                "run_sql",
                {
                    "sql": "select region_name, count(*) as n from dwh.dim_region group by 1 "
                    "order by 1",
                    "max_rows": 5,
                },
            )
            calls["run_sql_bad"] = await client.call_tool(
                "run_sql", {"sql": "DROP TABLE dwh.fact_payment"}
            )
            calls["run_sql_file"] = await client.call_tool(
                "run_sql", {"sql": "select * from read_csv('/etc/passwd')"}
            )
            calls["search"] = await client.call_tool("search_catalog", {"query": "регион"})
            calls["table"] = await client.call_tool("describe_table", {"table": "fact_payment"})
            calls["table_bad"] = await client.call_tool(
                "describe_table", {"table": "dwh.fact_paymnt"}
            )
            calls["measure"] = await client.call_tool(
                "describe_measure", {"measure": "[Amount per Customer]"}
            )
            calls["measure_bad"] = await client.call_tool(
                "describe_measure", {"measure": "Total Amoun"}
            )
            calls["lineage"] = await client.call_tool("trace_lineage", {"measure": "Total Amount"})
            calls["typed"] = await client.call_tool(
                "run_sql", {"sql": "select 1", "max_rows": "many"}
            )
            calls["task"] = await client.call_tool(
                "start_task",
                {
                    "request": "Сравни открытия кошельков за 3 квартал 2026 с прошлым годом по "
                    "регионам"
                },
            )
            task_id = _payload(calls["task"])["task_id"]
            calls["task_stop"] = await client.call_tool(
                "task_decision", {"task_id": task_id, "action": "stop"}
            )
            calls["task_bad"] = await client.call_tool(
                "task_decision", {"task_id": "nope", "action": "approve"}
            )

    anyio.run(session)
    tools = calls["tools"]
    assert set(tools) == TOOLS
    assert tools["run_sql"].input_schema["properties"]["max_rows"]["type"] == "integer"
    assert tools["ask"].input_schema["required"] == ["question"]
    assert all(t.description for t in tools.values())

    started = _payload(calls["task"])
    assert started["status"] == "awaiting_plan" and len(started["plan"]) >= 2
    assert _payload(calls["task_stop"])["status"] in ("stopped", "done")
    assert calls["task_bad"].is_error

    answer = _payload(calls["ask"])
    assert (
        answer["status"] == "answered" and answer["row_count"] == 12 and "SELECT" in answer["sql"]
    )
    assert _payload(calls["clarify"])["status"] == "clarification"
    assert _payload(calls["clarified"])["status"] == "answered"

    rows = _payload(calls["run_sql"])
    assert (
        rows["columns"] == ["region_name", "n"]
        and len(rows["rows"]) == 5
        and rows["rows_truncated"]
    )
    assert "LIMIT" in rows["sql"]
    for bad in ("run_sql_bad", "run_sql_file"):
        assert calls[bad].is_error and "guard" in _text(calls[bad])

    hits = _payload(calls["search"])
    assert any(h["kind"] == "table" and h["id"] == "dwh.dim_region" for h in hits)
    table = _payload(calls["table"])
    assert table["name"] == "dwh.fact_payment" and any(
        c["name"] == "amount_rub" for c in table["columns"]
    )
    assert calls["table_bad"].is_error and "dwh.fact_payment" in _text(calls["table_bad"])

    measure = _payload(calls["measure"])
    assert measure["expression"].startswith("DIVIDE") and "```mermaid" in measure["markdown"]
    assert calls["measure_bad"].is_error and "[Total Amount]" in _text(calls["measure_bad"])
    lineage = _payload(calls["lineage"])
    assert any(n["id"] == "s:fact.sale" for n in lineage["nodes"]) and lineage["edges"]
    assert any(p["name"].lower() == "etl.loadsales" for p in lineage["procedures"])
    assert calls["typed"].is_error and "max_rows" in _text(calls["typed"])


def test_stdio_answers_broken_lines_with_json_rpc_errors(demo_db, tmp_path):
    """Broken JSON, invalid UTF-8 and JSON that is not JSON-RPC each get an error reply (id null)
    and a log line; the next good request is still answered."""
    import subprocess

    lines = [
        b'{"jsonrpc": "2.0", "id": 1, "method": ',
        b'\xff\xfe{"a":1}',
        b'{"a": 1}',
        b"[1, 2",
        b'{"jsonrpc":"2.0","id":2,"method":"ping"}',
    ]
    env = {**os.environ, "VITRINA_HOME": str(tmp_path), "VITRINA_DB_URL": f"duckdb:///{demo_db}"}
    import threading

    proc = subprocess.Popen(
        [sys.executable, "-m", "vitrina.cli", "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    watchdog = threading.Timer(120, proc.kill)  # a hard bound if the server never answers
    watchdog.start()
    try:
        proc.stdin.write(b"\n".join(lines) + b"\n")
        proc.stdin.flush()
        replies = [json.loads(proc.stdout.readline()) for _ in lines]  # one reply per line
        proc.stdin.close()
        stderr = proc.stderr.read().decode()
        proc.wait(timeout=30)
    finally:
        watchdog.cancel()
        proc.kill()
    errors = [r["error"]["code"] for r in replies if "error" in r]
    assert errors == [-32700, -32700, -32600, -32700], stderr[-2000:]
    assert all(r["id"] is None for r in replies if "error" in r)
    assert replies[-1] == {"jsonrpc": "2.0", "id": 2, "result": {}}
    assert stderr.count("rejected an input line") == 4
