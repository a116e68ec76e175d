"""`vitrina mcp --transport http`: the streamable HTTP transport answers the SDK's client."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import anyio
import httpx

from mcp import Client
from vitrina.server.spawn import free_port


def test_streamable_http_transport(demo_db, tmp_path):
    port = free_port()
    env = {**os.environ, "VITRINA_HOME": str(tmp_path), "VITRINA_DB_URL": f"duckdb:///{demo_db}"}
    log = (tmp_path / "mcp.log").open("wb")
    proc = subprocess.Popen([sys.executable, "-m", "vitrina.cli", "mcp", "--transport", "http", "--port", str(port)],
                            env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, (tmp_path / "mcp.log").read_text()
            try:
                httpx.get(url, timeout=1)
                break
            except httpx.HTTPError:
                assert time.monotonic() < deadline, "MCP HTTP server did not start"
                time.sleep(0.2)
        out: dict = {}

        async def session() -> None:
            async with Client(url) as client:
                out["tools"] = [t.name for t in (await client.list_tools()).tools]
                out["table"] = await client.call_tool("describe_table", {"table": "dim_region"})

        anyio.run(session)
        assert "run_sql" in out["tools"] and len(out["tools"]) == 8
        assert not out["table"].is_error and out["table"].structured_content["name"] == "dwh.dim_region"
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        log.close()
