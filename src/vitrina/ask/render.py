"""Terminal rendering of an ask result with Rich: answer, table, SQL, notes, trace."""

from __future__ import annotations

from rich.console import Console
from rich.panel import Panel
from rich.syntax import Syntax
from rich.table import Table

from vitrina.ask.service import AskResult
from vitrina.present.cells import cut_reply
from vitrina.present.table import TableView, rich_table

STATUS_STYLE = {
    "answered": "green",
    "clarification": "yellow",
    "refused": "magenta",
    "failed": "red",
}


def json_reply(result: AskResult, max_chars: int) -> str:
    """The stable `--json` result, its long text cells (rows and the preview table) cut to
    ``max_chars`` and counted in `cells_cut` (decision 146)."""
    cut = cut_reply({"rows": result.rows, "table": result.table}, max_chars)
    return result.model_copy(update=cut).model_dump_json(indent=2)


def trace_table(result: AskResult) -> Table:
    table = Table(title="Decision trace", show_lines=False, expand=False)
    for col in ("node", "kind", "event", "data"):
        table.add_column(col, overflow="fold")
    for event in result.trace:
        data = ", ".join(f"{k}={v}" for k, v in event.data.items())
        table.add_row(event.node, event.kind.value, event.message, data[:160])
    return table


def render_result(
    console: Console, result: AskResult, *, show_sql: bool = True, show_trace: bool = False
) -> None:
    style = STATUS_STYLE.get(result.status, "white")
    title = f"[{style}]{result.status}[/] · {result.question}"
    if result.rewritten_question and result.rewritten_question != result.question:
        title += f"  →  {result.rewritten_question}"
    console.print(Panel(result.answer or "", title=title, title_align="left", border_style=style))
    if result.status == "clarification":
        console.print(f'[dim]Answer with:[/] vitrina ask "1" --thread {result.thread_id}')
    if result.table:
        view = TableView.model_validate(result.table)
        # two breakdowns: the cross table reads better than the long form (present.pivot)
        console.print(rich_table(TableView.model_validate(view.pivot) if view.pivot else view))
    if show_sql and result.sql and result.status == "answered":
        console.print(Syntax(result.sql, "sql", word_wrap=True, theme="ansi_dark"))
    for check in result.checks:
        console.print(f"[yellow]check[/] {check['check']}: {check['message']}")
    render_files(console, result)
    if "suppressed_errors" in result.tags:
        console.print("[yellow]Answered with suppressed errors: see the trace (--trace).[/]")
    if show_trace:
        console.print(trace_table(result))
    console.print(f"[dim]thread {result.thread_id} · run {result.run_id}[/]")


def render_files(console: Console, result: AskResult) -> None:
    """Where the run's files are (printed once they are written, after the answer)."""
    if result.excel:
        console.print(f"[dim]Excel:[/] {result.excel}")
    if result.chart_png:
        console.print(f"[dim]Chart:[/] {result.chart_png}")
