"""The `vitrina` command line: one Typer app, each job a subcommand. No logic lives here:
every job module exposes `register(app)` and imports its heavy parts lazily."""

from __future__ import annotations

from importlib import import_module

import typer

app = typer.Typer(
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
