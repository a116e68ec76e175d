"""`vitrina config`: the resolved settings with their sources, and an endpoint check.

Exit code 0 whether or not the endpoint answers (runs fall back to the rules); 2 when
the settings themselves are invalid.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from vitrina.config import load_settings
from vitrina.llm.factory import LLMSettingsError, resolve_provider, validate
from vitrina.llm.sources import describe_settings, toml_path

if TYPE_CHECKING:
    from vitrina.llm.check import EndpointCheck

STYLE = {"ok": "green", "off": "yellow", "down": "red", "unauthorized": "red", "model_not_found": "red",
         "error": "red"}


def register(app: typer.Typer) -> None:
    app.command("config")(config_command)


def config_command(
    base_url: Annotated[str | None, typer.Option("--base-url", help="Override llm_base_url for this check.")] = None,
    model: Annotated[str | None, typer.Option("--model", help="Override llm_model.")] = None,
    api_key: Annotated[str | None, typer.Option("--api-key", help="Override llm_api_key.")] = None,
    provider: Annotated[str | None, typer.Option("--provider", help="auto, openai, ollama or none.")] = None,
    timeout: Annotated[float, typer.Option("--timeout", help="Seconds for the endpoint check.")] = 5.0,
    no_check: Annotated[bool, typer.Option("--no-check", help="Show the settings only.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """Show the resolved settings (and where each comes from) and check the LLM endpoint."""
    console, err = Console(), Console(stderr=True)
    arguments = {"llm_base_url": base_url, "llm_model": model, "llm_api_key": api_key, "llm_provider": provider}
    try:
        settings = load_settings(**arguments)
    except (ValueError, TypeError) as exc:
        err.print(f"[red]error:[/] invalid settings: {escape(str(exc))}")
        raise typer.Exit(2) from exc
    from vitrina.llm.check import check_endpoint  # the HTTP client loads only when a check runs

    rows = describe_settings(settings, arguments)
    problem: str | None = None
    try:
        validate(settings)
    except LLMSettingsError as exc:
        problem = str(exc)
    check: EndpointCheck | None = None
    if problem is None and not no_check:
        try:
            check = check_endpoint(settings, timeout_s=timeout)
        except LLMSettingsError as exc:  # e.g. the cloud endpoint and no key anywhere
            problem = str(exc)

    if as_json:
        console.print_json(json.dumps({
            "settings": [asdict(r) for r in rows],
            "toml": str(toml_path(settings.home) or "") or None,
            "provider": None if problem else resolve_provider(settings),
            "error": problem,
            "check": asdict(check) if check else None,
        }))
    else:
        path = toml_path(settings.home)
        table = Table(title="Vitrina settings", caption=f"vitrina.toml: {path or 'none found'}")
        for column in ("setting", "value", "source", "env"):
            table.add_column(column)
        for row in rows:
            table.add_row(row.name, escape(row.value), row.source, row.env)
        console.print(table)
        if problem is None:
            console.print(f"LLM provider: [bold]{resolve_provider(settings)}[/]")
        if check is not None:
            console.print(f"[{STYLE[check.status]}]{escape(check.message)}[/]")
    if problem is not None:
        err.print(f"[red]error:[/] invalid LLM settings: {escape(problem)}")
        raise typer.Exit(2)
