"""CLI: `vitrina mcp` over stdio (for Cursor and Claude Desktop) or streamable HTTP."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import typer
from rich.console import Console

from vitrina.cli_options import CatalogDir, WarehouseUrl

err = Console(stderr=True)  # stdout belongs to the protocol under stdio


def mcp_command(
    transport: Annotated[
        Literal["stdio", "http"],
        typer.Option(help="stdio (an editor starts the process) or http (streamable HTTP)."),
    ] = "stdio",
    host: Annotated[str, typer.Option(help="HTTP interface (http transport).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="HTTP port (http transport).")] = 8765,
    db: WarehouseUrl = None,
    catalog: CatalogDir = None,
    docs: Annotated[
        Path | None, typer.Option(help="A `vitrina docs` output folder (env VITRINA_DOCS_DIR).")
    ] = None,
    model: Annotated[
        Path | None,
        typer.Option(
            "--model",
            help="A .bim / TMDL model: describe_measure and trace_lineage answer from it directly.",
        ),
    ] = None,
    sql: Annotated[
        list[Path] | None, typer.Option("--sql", help="SQL folder for --model; repeatable.")
    ] = None,
    no_auth: Annotated[
        bool, typer.Option("--no-auth", help="HTTP without tokens (loopback hosts only).")
    ] = False,
) -> None:
    """Serve Vitrina's tools over MCP: ask, run_sql, search_catalog, describe_table,
    describe_measure, trace_lineage."""
    from vitrina.config import load_settings
    from vitrina.mcp.server import build_server
    from vitrina.mcp.tools import Toolbox
    from vitrina.server.options import docs_dir_from_env, is_loopback
    from vitrina.warehouse.demo import ensure_demo_warehouse

    if catalog is not None and not catalog.exists():
        err.print(f"[bold red]error:[/] catalog folder not found: {catalog}")
        raise typer.Exit(2)
    if transport == "http" and no_auth and not is_loopback(host):
        err.print(
            "[bold red]error:[/] --no-auth is allowed only on a loopback host, not on "
            f"{host!r}: create a "
            "token with `vitrina token create NAME` and send 'Authorization: Bearer TOKEN'",
            highlight=False,
        )
        raise typer.Exit(2)
    settings = load_settings(db_url=db, catalog_dir=catalog)
    if not settings.db_url:
        ensure_demo_warehouse(settings.demo_db_path)
    from vitrina.docs import DocsInputError, load_live

    try:
        live = load_live(model, sql or [])
    except DocsInputError as exc:
        err.print(f"[bold red]error:[/] {exc}", highlight=False)
        raise typer.Exit(2) from None
    box = Toolbox(settings, docs_dir=docs or docs_dir_from_env(), live_docs=live)
    tokens = None
    if transport == "http" and not no_auth:
        from vitrina.mcp.auth import TokenTable

        tokens = TokenTable(box.store)  # the tokens of `vitrina token create`, roles included
    server = build_server(box, tokens=tokens, host=host, port=port)
    try:
        if transport == "stdio":
            import anyio

            from vitrina.mcp.stdio import run_stdio

            anyio.run(run_stdio, server)
        else:
            err.print(f"Vitrina MCP on http://{host}:{port}/mcp", highlight=False)
            from vitrina.mcp.http import run_http

            run_http(server, host, port)
    finally:
        box.close()


def register(app: typer.Typer) -> None:
    """Add `mcp` to the Vitrina CLI."""
    app.command("mcp")(mcp_command)
