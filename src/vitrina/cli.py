"""The `vitrina` command line: one Typer app, each job a subcommand. No logic lives here."""

from __future__ import annotations

import typer

app = typer.Typer(
    name="vitrina",
    help="Vitrina: answers from your warehouse, documentation of BI measures, dashboards.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

# --- job registrations (each job module exposes register(app)) ---
# (jobs are registered below this line)
from vitrina.docs.commands import register as register_docs  # noqa: E402

register_docs(app)
from vitrina.ask.commands import register as register_ask  # noqa: E402

register_ask(app)
from vitrina.catalog.commands import register as register_catalog  # noqa: E402

register_catalog(app)
from vitrina.server.commands import register as register_server  # noqa: E402

register_server(app)
from vitrina.mcp.commands import register as register_mcp  # noqa: E402

register_mcp(app)
from vitrina.llm.commands import register as register_llm  # noqa: E402

register_llm(app)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
