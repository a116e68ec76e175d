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

if TYPE_CHECKING:  # settings and the factory load inside the command: `vitrina --help` stays fast
    from vitrina.config import Settings
    from vitrina.llm.check import EndpointCheck

STYLE = {
    "ok": "green",
    "off": "yellow",
    "down": "red",
    "unauthorized": "red",
    "model_not_found": "red",
    "error": "red",
}


def register(app: typer.Typer) -> None:
    app.command("config")(config_command)


def config_command(
    base_url: Annotated[
        str | None, typer.Option("--base-url", help="Override llm_base_url for this check.")
    ] = None,
    model: Annotated[str | None, typer.Option("--model", help="Override llm_model.")] = None,
    api_key: Annotated[str | None, typer.Option("--api-key", help="Override llm_api_key.")] = None,
    provider: Annotated[
        str | None, typer.Option("--provider", help="auto, openai, ollama or none.")
    ] = None,
    timeout: Annotated[
        float, typer.Option("--timeout", help="Seconds for the endpoint check.")
    ] = 5.0,
    no_check: Annotated[bool, typer.Option("--no-check", help="Show the settings only.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """Show the resolved settings (and where each comes from) and check the LLM endpoint."""
    from vitrina.config import load_settings, toml_path, unknown_settings
    from vitrina.llm.factory import LLMSettingsError, resolve_provider, validate
    from vitrina.llm.sources import describe_settings

    console, err = Console(), Console(stderr=True)
    arguments = {
        "llm_base_url": base_url,
        "llm_model": model,
        "llm_api_key": api_key,
        "llm_provider": provider,
    }
    try:
        settings = load_settings(**arguments)
    except (ValueError, TypeError) as exc:
        err.print(f"[red]error:[/] invalid settings: {escape(str(exc))}")
        raise typer.Exit(2) from exc
    from vitrina.llm.check import check_endpoint  # the HTTP client loads only when a check runs

    rows = describe_settings(settings, arguments)
    warnings = unknown_settings(settings.home)
    problem: str | None = None
    try:
        validate(settings)
    except LLMSettingsError as exc:
        problem = str(exc)
    paths = _paths(settings)
    breaker = None if problem else _breaker(settings)
    check: EndpointCheck | None = None
    if problem is None and not no_check:
        try:
            check = check_endpoint(settings, timeout_s=timeout)
        except LLMSettingsError as exc:  # e.g. the cloud endpoint and no key anywhere
            problem = str(exc)

    if as_json:
        console.print_json(
            json.dumps(
                {
                    "settings": [asdict(r) for r in rows],
                    "toml": str(toml_path(settings.home) or "") or None,
                    "paths": paths,
                    "unknown": warnings,
                    "breaker": breaker,
                    "provider": None if problem else resolve_provider(settings),
                    "error": problem,
                    "check": asdict(check) if check else None,
                }
            )
        )
    else:
        path = toml_path(settings.home)
        table = Table(title="Vitrina settings", caption=f"vitrina.toml: {path or 'none found'}")
        for column in ("setting", "value", "source", "env"):
            table.add_column(column)
        for row in rows:
            table.add_row(row.name, escape(row.value), row.source, row.env)
        console.print(table)
        for label, value in paths.items():
            console.print(f"{label}: {escape(value)}", highlight=False)
        for line in warnings:
            console.print(f"[yellow]warning:[/] {escape(line)}", highlight=False)
        if problem is None:
            console.print(f"LLM provider: [bold]{resolve_provider(settings)}[/]")
        if breaker:
            console.print(f"[yellow]{escape(breaker)}[/]", highlight=False)
        if check is not None:
            console.print(f"[{STYLE[check.status]}]{escape(check.message)}[/]")
    if problem is not None:
        err.print(f"[red]error:[/] invalid LLM settings: {escape(problem)}")
        raise typer.Exit(2)


def _paths(settings: Settings) -> dict[str, str]:
    """Where the run's files are: the demo warehouse (and whether it is built), the state."""
    demo = settings.demo_db_path
    built = "built" if demo.exists() else "not built yet: `vitrina demo` builds it"
    used = "" if settings.db_url else " (the warehouse in use: db_url is not set)"
    return {
        "home": str(settings.home),
        "demo warehouse": f"{demo} ({built}){used}",
        "state": settings.state_url or str(settings.state_path),
    }


def _breaker(settings: Settings) -> str | None:
    """A sentence when the endpoint's circuit breaker holds failures, else None."""
    import time

    from vitrina.llm.breaker import Breaker
    from vitrina.llm.factory import BREAKER_FILE, endpoint_key, resolve_provider

    path = settings.home / BREAKER_FILE
    if not path.exists() or resolve_provider(settings) == "none":
        return None
    state = Breaker(path, endpoint_key(settings)).state()
    if not state.failures:
        return None
    now = time.time()
    if state.is_open(now):
        return (
            f"circuit breaker open: {state.failures} failures in a row "
            f"({state.last_error}); runs use "
            f"the rules for {state.open_until - now:.0f} s more, then try the endpoint once"
        )
    return f"circuit breaker: {state.failures} recent failures ({state.last_error})"
