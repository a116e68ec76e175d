"""CLI: `vitrina route`, `vitrina onec` and (when wired) `vitrina chat` over the supervisor.
Thin: parse options, build the service, print the delivered reply."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from vitrina.cli_options import CatalogDir, WarehouseUrl

console = Console()
MAX_CHAT_TURNS = 1000  # a terminal dialog's hard bound


def _service(
    db: str | None,
    catalog: Path | None,
    onec: Path | None,
    model: Path | None,
    sql: list[Path] | None,
    docs_index: Path | None,
    max_steps: int | None,
    no_llm: bool = False,
) -> Any:
    from vitrina.config import load_settings
    from vitrina.route.context import MAX_STEPS
    from vitrina.route.service import RouteService

    settings = load_settings(db_url=db, catalog_dir=catalog)
    common: dict[str, Any] = {
        "docs_model": model,
        "docs_sql": sql or [],
        "docs_index": docs_index,
        "max_steps": max_steps or MAX_STEPS,
        "use_llm": not no_llm,
    }
    if onec is not None:
        from vitrina.onec import OneCInputError, OneCSource

        try:
            return RouteService(settings, onec=OneCSource.load(onec), **common)
        except OneCInputError as exc:
            Console(stderr=True).print(f"[bold red]error:[/] {exc}", highlight=False)
            raise typer.Exit(code=2) from None
    if not settings.db_url:
        from vitrina.ask import ensure_demo

        ensure_demo(settings)
    return RouteService(settings, **common)


OneC = Annotated[
    Path | None,
    typer.Option("--onec", help="A 1C configuration dumped to files (Designer or EDT)."),
]
Model = Annotated[
    Path | None, typer.Option("--model", help="Tabular model (.bim / TMDL) for measure docs.")
]
Sql = Annotated[
    list[Path] | None, typer.Option("--sql", help="SQL folder for measure lineage; repeatable.")
]
DocsIndex = Annotated[
    Path | None, typer.Option("--docs-index", help="index.json of `vitrina docs` (measure search).")
]
MaxSteps = Annotated[
    int | None, typer.Option("--max-steps", help="Metadata analyst: most ReAct steps.")
]
Details = Annotated[
    bool,
    typer.Option(
        "--details", help="Technical details: a report's options with their scores, and its SQL."
    ),
]
NoLlm = Annotated[
    bool, typer.Option("--no-llm", help="Rules only, even when a model is configured.")
]


def route_command(
    request: Annotated[
        str, typer.Argument(help="A question, a report request, a metadata search, ...")
    ],
    db: WarehouseUrl = None,
    catalog: CatalogDir = None,
    onec: OneC = None,
    model: Model = None,
    sql: Sql = None,
    docs_index: DocsIndex = None,
    max_steps: MaxSteps = None,
    no_llm: NoLlm = False,
    face: Annotated[
        str, typer.Option("--face", help="cli, web or mcp: the reply's shape.")
    ] = "cli",
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the whole result as JSON.")
    ] = False,
    details: Details = False,
) -> None:
    """Send one request to the supervisor: it picks the role (ask, report, metadata, docs...)."""
    service = _service(db, catalog, onec, model, sql, docs_index, max_steps, no_llm)
    try:
        result = service.handle(request, face=face)
    finally:
        service.close()
    if as_json or face != "cli":
        console.print_json(
            json.dumps(result.model_dump(mode="json"), ensure_ascii=False, default=str)
        )
        return
    console.print(f"[bold]{result.intent}[/] → {result.role} · {result.status}", highlight=False)
    _print_reply(result, details)


def _print_reply(result: Any, details: bool) -> None:
    """An answer of the ask role or a warehouse report: as `vitrina ask` prints an answer
    (a report's options and SQL only with --details); anything else: the reply's text."""
    from vitrina.route import render_report

    if result.ask is not None:  # a question answered by the ask role: table, SQL, files
        from vitrina.ask import AskResult, render_result

        render_result(console, AskResult.model_validate(result.ask))
    elif not render_report(console, result, details=details):
        console.print(result.reply.get("text", ""), highlight=False, markup=False)


def chat_command(
    db: WarehouseUrl = None,
    catalog: CatalogDir = None,
    onec: OneC = None,
    model: Model = None,
    sql: Sql = None,
    docs_index: DocsIndex = None,
    no_llm: NoLlm = False,
    details: Details = False,
) -> None:
    """A dialog in the terminal with the supervisor (every request routed to its role)."""
    service = _service(db, catalog, onec, model, sql, docs_index, None, no_llm)
    thread_id = uuid.uuid4().hex[:12]
    console.print(f"[bold]Vitrina chat[/] · dialog {thread_id} · empty line or Ctrl-D to quit")
    try:
        for _ in range(MAX_CHAT_TURNS):
            try:
                request = console.input("[bold cyan]? [/]").strip()
            except (EOFError, KeyboardInterrupt):
                break
            if not request:
                break
            result = service.handle(request, thread_id=thread_id)
            _print_reply(result, details)
    finally:
        service.close()


def onec_command(
    path: Annotated[
        Path,
        typer.Argument(help="Configuration dump: Configuration.xml folder or EDT project src."),
    ],
    out: Annotated[
        Path | None, typer.Option("--out", help="Write the catalog draft (catalog.yaml) here.")
    ] = None,
) -> None:
    """Read a 1C configuration dump: objects, warnings (missing files), and a catalog draft."""
    from vitrina.onec import OneCInputError, OneCSource, write_catalog_yaml

    try:
        source = OneCSource.load(path)
    except OneCInputError as exc:
        Console(stderr=True).print(f"[bold red]error:[/] {exc}", highlight=False)
        raise typer.Exit(code=2) from None
    cfg = source.config
    console.print(
        f"[bold]{cfg.name}[/] ({cfg.format}): {len(cfg.objects)} objects, "
        f"{len(source.catalog.tables)} tables, {len(source.catalog.metrics)} metrics",
        highlight=False,
    )
    for w in cfg.warnings:
        console.print(f"[yellow]warning:[/] {w.message}", highlight=False)
    if out is not None:
        console.print(f"catalog: {write_catalog_yaml(source.catalog, out)}", highlight=False)


def register(app: typer.Typer) -> None:
    """Add `route`, `onec` and `chat` (the supervisor's dialog)."""
    app.command("route")(route_command)
    app.command("onec")(onec_command)
    app.command("chat")(chat_command)
