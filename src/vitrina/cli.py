"""The `vitrina` command line: one Typer app, each job a subcommand. No logic lives here:
every job module exposes `register(app)` and imports its heavy parts lazily."""

from __future__ import annotations

import gc
import sqlite3
import sys
from importlib import import_module
from typing import Any

import typer
from typer.core import TyperGroup

# Errors of the user's environment, not of the code: printed as one line, exit code 2.
# Each class carries a message that names the file or URL and what to do.
_ENV_ERRORS = {
    "vitrina.catalog.errors": "CatalogError",
    "vitrina.checkpoint": "StateFileError",
    "vitrina.config": "SettingsError",
    "vitrina.warehouse.engine": "WarehouseError",
}


def _environment_error(exc: BaseException) -> str | None:
    """The one-line message for an error of the user's environment, else None."""
    for module_name, class_name in _ENV_ERRORS.items():
        module = sys.modules.get(module_name)
        cls = getattr(module, class_name, None) if module is not None else None
        if cls is not None and isinstance(exc, cls):
            if getattr(exc, "problems", None):  # a catalog: its problems, each with its file
                return _problems_line(exc.problems)
            return str(exc).splitlines()[0] if str(exc) else class_name
    if isinstance(exc, sqlite3.DatabaseError):  # a state file opened where no check names it
        return (
            f"a state database under $VITRINA_HOME cannot be read ({str(exc).splitlines()[0]}); "
            "move the damaged *.sqlite file aside and run again / файл состояния повреждён"
        )
    return None


def _problems_line(problems: list[Any], shown: int = 3) -> str:
    line = "; ".join(str(p) for p in problems[:shown])
    if len(problems) > shown:
        line += f" (and {len(problems) - shown} more: `vitrina catalog check DIR` lists them)"
    return line


class _Group(TyperGroup):
    """The root group: a user's environment error is one line on stderr, never a traceback."""

    # typer.Context is the public name of the click Context typer passes (its own copy of
    # click since typer 0.2x): the same object, a narrower type than the base class names
    def invoke(self, ctx: typer.Context) -> Any:  # type: ignore[override]
        try:
            return super().invoke(ctx)
        except Exception as exc:
            message = _environment_error(exc)
            if message is None:
                raise
            typer.echo(f"error: {message}", err=True)
            raise typer.Exit(2) from exc


def _new_app() -> typer.Typer:
    built = typer.Typer(
        cls=_Group,
        name="vitrina",
        help="Vitrina: answers from your warehouse, documentation of BI measures, dashboards.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
    )
    # a callback keeps the app a group even when only one single-command job module is
    # registered (`vitrina mcp`, `vitrina config`): Typer would otherwise make that command
    # the whole program and read its name as an extra argument
    built.callback()(_root)
    return built


def _root() -> None:
    """Vitrina: answers from your warehouse, documentation of BI measures, dashboards."""


# each top-level command -> the job module that registers it (tests/test_cli_commands.py
# checks this against what every module registers)
COMMANDS = {
    "ask": "vitrina.ask.commands",
    "demo": "vitrina.ask.commands",
    "chat": "vitrina.route.commands",
    "route": "vitrina.route.commands",
    "onec": "vitrina.route.commands",
    "catalog": "vitrina.catalog.commands",
    "docs": "vitrina.docs.commands",
    "lineage": "vitrina.docs.commands",
    "serve": "vitrina.server.commands",
    "token": "vitrina.server.commands",
    "mcp": "vitrina.mcp.commands",
    "config": "vitrina.llm.commands",
    "eval": "vitrina.eval.commands",
    "task": "vitrina.task.commands",
    "build": "vitrina.team.commands",
    "board": "vitrina.team.commands",
    "verified": "vitrina.query.verified.commands",
}
JOBS = tuple(dict.fromkeys(COMMANDS.values()))

# A core command that a job extends (the core imports no job): the core's command module ->
# the job modules whose `plug_in()` fills its extension point. Wired here, with the command,
# so the command works however the CLI is entered (`main` registers one module only).
PLUG_INS = {"vitrina.catalog.commands": ("vitrina.ask.commands", "vitrina.query.verified.commands")}


def build_app(jobs: tuple[str, ...] = JOBS) -> typer.Typer:
    """The Typer app with the commands of these job modules, and the plug-ins they need."""
    built = _new_app()
    for module in jobs:
        import_module(module).register(built)
        for job in PLUG_INS.get(module, ()):
            import_module(job).plug_in()
    return built


def __getattr__(name: str) -> Any:
    """`vitrina.cli.app`: every command, built on first use (PEP 562)."""
    if name == "app":
        globals()["app"] = built = build_app()
        return built
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main(argv: list[str] | None = None) -> None:
    """The console script: a named command registers only its own job module (`--help`, no
    command or an unknown one: all of them)."""
    args = sys.argv[1:] if argv is None else argv
    # a short-lived process that allocates ~1 M objects while importing: collect less often
    # (gen 0 every 20,000 allocations instead of 700), ~10% of a cold start
    gc.set_threshold(20_000, 50, 50)
    job = COMMANDS.get(args[0]) if args else None
    try:
        build_app((job,) if job else JOBS)(args=args, prog_name="vitrina")
    finally:
        # what is alive now lives until the process ends: the interpreter's collections at
        # exit skip it (they were ~0.45 s of a cold `vitrina ask`); atexit handlers, flushes
        # and closes run as before
        gc.freeze()


if __name__ == "__main__":
    main()
