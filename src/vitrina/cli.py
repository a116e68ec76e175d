"""The `vitrina` command line: one Typer app, each job a subcommand. No logic lives here:
every job module exposes `register(app)` and imports its heavy parts lazily."""

from __future__ import annotations

import sqlite3
import sys
from importlib import import_module
from typing import Any

import click
import typer
from typer.core import TyperGroup

# Errors of the user's environment, not of the code: printed as one line, exit code 2.
# Each class carries a message that names the file or URL and what to do.
_ENV_ERRORS = {
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
            return str(exc).splitlines()[0] if str(exc) else class_name
    if isinstance(exc, sqlite3.DatabaseError):  # a state file opened where no check names it
        return (
            f"a state database under $VITRINA_HOME cannot be read ({str(exc).splitlines()[0]}); "
            "move the damaged *.sqlite file aside and run again / файл состояния повреждён"
        )
    return None


class _Group(TyperGroup):
    """The root group: a user's environment error is one line on stderr, never a traceback."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except Exception as exc:
            message = _environment_error(exc)
            if message is None:
                raise
            click.echo(f"error: {message}", err=True)
            raise typer.Exit(2) from exc


app = typer.Typer(
    cls=_Group,
    name="vitrina",
    help="Vitrina: answers from your warehouse, documentation of BI measures, dashboards.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

JOBS = (
    "vitrina.ask.commands",  # ask, demo
    "vitrina.route.commands",  # chat (the supervisor), route, onec
    "vitrina.catalog.commands",  # catalog init / check
    "vitrina.docs.commands",  # docs, lineage
    "vitrina.server.commands",  # serve, token
    "vitrina.mcp.commands",  # mcp
    "vitrina.llm.commands",  # config
    "vitrina.eval.commands",  # eval run / compare / review / list / report / bank
    "vitrina.task.commands",  # task
    "vitrina.team.commands",  # build, board
)

for _module in JOBS:
    import_module(_module).register(app)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
