"""CLI: `vitrina docs` and `vitrina lineage`. Thin: parse options, call the job, print."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table
from rich.tree import Tree

from vitrina.docs.errors import DocsInputError


def _fail(message: str) -> typer.Exit:
    """One clear line on stderr and exit code 2: a user mistake, never a traceback."""
    Console(stderr=True).print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)
    return typer.Exit(code=2)


def _lang(value: str) -> str:
    if value not in ("ru", "en"):
        raise typer.BadParameter("use ru or en")
    return value


def docs_command(
    model: Annotated[
        Path, typer.Option("--model", help="A .bim file or a TMDL folder (PBIP definition/).")
    ],
    sql: Annotated[
        list[Path] | None,
        typer.Option("--sql", help="Folder of .sql files (SSDT project); repeatable."),
    ] = None,
    measures: Annotated[
        Path | None,
        typer.Option("--measures", help="Measure list: '# Topic' then '## [M1], [M2]'."),
    ] = None,
    all_measures: Annotated[
        bool, typer.Option("--all", help="Document every measure of the model.")
    ] = False,
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Output folder (default: $VITRINA_HOME/outputs/docs/<model>)."),
    ] = None,
    lang: Annotated[
        str, typer.Option("--lang", help="Document language: ru or en.", callback=_lang)
    ] = "en",
    timeout: Annotated[
        float, typer.Option("--timeout", help="Time limit per measure, seconds.")
    ] = 60.0,
    fresh: Annotated[
        bool, typer.Option("--fresh", help="Ignore an interrupted run instead of resuming it.")
    ] = False,
    llm: Annotated[
        bool,
        typer.Option(
            "--llm",
            help="Word explanations and read a free-text measure list with the "
            "configured model (checked against the lineage).",
        ),
    ] = False,
    agent: Annotated[
        str | None,
        typer.Option(
            "--agent",
            help="Delegate each measure to a coding-agent CLI: "
            "cursor, claude, codex or a command line.",
        ),
    ] = None,
    agent_timeout: Annotated[
        float,
        typer.Option("--agent-timeout", help="Time limit per measure for the agent, seconds."),
    ] = 600.0,
    order: Annotated[
        Path | None,
        typer.Option(
            "--order",
            help="Load order file: one procedure per line, in run order (wins over job "
            "steps, EXEC order and data flow).",
        ),
    ] = None,
) -> None:
    """Document BI measures: DAX, dependencies and lineage down to the loading procedures."""
    from vitrina.config import load_settings
    from vitrina.docs.run import make_request, run_docs
    from vitrina.docs.writer.i18n import labels

    if measures is not None and all_measures:
        raise _fail("give either --measures FILE or --all, not both")
    if order is not None and not order.is_file():
        raise _fail(f"order file not found: {order} (give a text file, one procedure per line)")
    settings = load_settings()
    out_dir = out or settings.outputs_dir / "docs" / (model.stem or "model")
    runner = None
    if agent:
        from vitrina.docs.agent import AgentError, AgentRunner

        try:
            runner = AgentRunner(agent, timeout_s=agent_timeout)
        except AgentError as exc:
            raise _fail(str(exc)) from None
    explain = list_llm = client = None
    model_name = None
    if llm:
        explain, list_llm, client = _llm_slots(settings, lang)
        model_name = client.model_name if client is not None else None
    request = make_request(
        model,
        sql or [],
        measures_file=measures,
        all_measures=all_measures,
        out=out_dir,
        lang=lang,
        agent=runner.name if runner else None,
        llm=model_name,
        order=order,
    )
    console = Console(stderr=False)
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
        disable=not sys.stderr.isatty(),
    ) as progress:
        task = progress.add_task(labels(lang)["console_documenting"], total=None)

        def on_progress(_kind: str, done: int, total: int, name: str) -> None:
            progress.update(task, completed=done, total=total, description=f"[{name}]"[:40])

        try:
            report = run_docs(
                request,
                settings=settings,
                measure_timeout_s=timeout,
                on_progress=on_progress,
                fresh=fresh,
                explain=explain,
                list_llm=list_llm,
                agent=runner,
            )
        except DocsInputError as exc:
            raise _fail(str(exc)) from None
    if client is not None:
        from vitrina.llm.accounting import calls_summary

        report.llm_usage = calls_summary(client.calls)
    _print_report(console, report, lang)


def _llm_slots(settings: Any, lang: str = "en") -> tuple[Any, Any, Any]:
    """(explain slot, measure-list slot, client) for --llm; a warning and the rules without a
    model."""
    from vitrina.docs.llm import build_docs_client, measure_list_llm, wording_explainer
    from vitrina.llm.factory import LLMSettingsError

    try:
        client = build_docs_client(settings)
    except LLMSettingsError as exc:
        raise _fail(f"--llm: {exc}") from None
    if client is None:
        from vitrina.docs.writer.i18n import labels

        L = labels(lang)
        Console(stderr=True).print(
            f"[yellow]{L['console_warning']}:[/] {L['console_no_llm']}", highlight=False
        )
        return None, None, None
    run = client.turn()  # one model budget for the whole run, every measure (decision 175)
    return wording_explainer(run), measure_list_llm(run), client


def _print_report(console: Console, report: Any, lang: str = "en") -> None:
    """The run summary in the run's language: counts, outputs, misses, errors, warnings."""
    from vitrina.docs.writer.i18n import labels, translate_warning

    L = labels(lang)
    table = Table(title="vitrina docs", show_lines=False)
    table.add_column(L["console_item"])
    table.add_column(L["console_value"], overflow="fold")
    for key, value in _summary_rows(report, L):
        table.add_row(L[key], value)
    console.print(table)
    if report.missed:
        missed = Table(title=L["console_missed_title"])
        missed.add_column(L["measure"])
        missed.add_column(L["reason"])
        missed.add_column(L["detail"], overflow="fold")
        for m in report.missed:
            reason = L.get(f"reason_{m['reason']}", m["reason"])
            missed.add_row(
                f"[{m['measure']}]", reason, translate_warning(m.get("detail", ""), lang)
            )
        console.print(missed)
    for prefix, lines in (("error", report.errors), ("warning", report.warnings)):
        colour = "red" if prefix == "error" else "yellow"
        for line in lines:
            console.print(
                f"[{colour}]{L['console_' + prefix]}:[/] {translate_warning(line, lang)}",
                highlight=False,
                soft_wrap=True,
            )


def _summary_rows(report: Any, L: dict[str, str]) -> list[tuple[str, str]]:
    note = (
        L["console_resumed"] if report.resumed else (L["console_skipped"] if report.skipped else "")
    )
    rows = [
        ("console_processed", str(len(report.processed))),
        ("console_written", str(len(report.created))),
        ("console_unchanged", str(len(report.unchanged))),
        ("console_missed", str(len(report.missed))),
        ("console_time", f"{report.seconds:.2f} s" + note),
    ]
    usage = report.llm_usage
    if usage:
        tokens = usage["prompt_tokens"] + usage["completion_tokens"]
        text = L["console_calls_text"].format(
            calls=usage["calls"],
            failures=usage["failures"],
            repairs=usage["repairs"],
            tokens=tokens,
        )
        rows.append(("console_model_calls", text))
    if report.errors:
        rows.append(("console_errors", str(len(report.errors))))
    rows.append(("console_warnings", str(len(report.warnings))))
    for key in ("manual", "index", "measures_dir"):
        if key in report.outputs:
            rows.append((f"console_{key}", report.outputs[key]))
    return rows


def lineage_command(
    measure: Annotated[str, typer.Argument(help='The measure, e.g. "[Total Sales]".')],
    model: Annotated[Path, typer.Option("--model", help="A .bim file or a TMDL folder.")],
    sql: Annotated[
        list[Path] | None, typer.Option("--sql", help="Folder of .sql files; repeatable.")
    ] = None,
) -> None:
    """Print one measure's lineage as a tree: measures, model tables, sources, loaders."""
    from vitrina.docs.lineage import build_lineage
    from vitrina.docs.screen import screen_lineage
    from vitrina.docs.workspace import Workspace

    name = measure.strip()
    if name.startswith("[") and name.endswith("]"):
        name = name[1:-1].replace("]]", "]")
    try:
        ws = Workspace.load(model, sql or [])
    except DocsInputError as exc:
        raise _fail(str(exc)) from None
    found = ws.measure_by_name(name)
    if found is None:
        import difflib

        close = difflib.get_close_matches(
            name, [m.name for m in ws.model.measures], n=3, cutoff=0.5
        )
        hint = f"; did you mean {', '.join(f'[{c}]' for c in close)}?" if close else ""
        raise _fail(f"measure [{name}] not found in {model}{hint}")
    lin = screen_lineage(ws, build_lineage(ws, found))
    console = Console()
    console.print(lineage_tree(lin))
    console.print(f"lineage level: {lin.level}", highlight=False)
    for w in [*lin.unresolved, *lin.warnings]:
        console.print(f"[yellow]warning:[/] {w}", highlight=False)


def lineage_tree(lin: Any) -> Tree:
    """A Rich tree from the lineage edges, each node expanded once (cycles shown, not followed)."""
    labels = {n.id: (n.kind, n.label) for n in lin.nodes}
    children: dict[str, list[tuple[str, str]]] = {}
    for e in lin.edges:
        children.setdefault(e.source, []).append((e.target, e.label))
    root_id = f"m:{lin.measure}"
    tree = Tree(f"[bold]\\[{lin.measure}][/] (measure)", highlight=False)
    expanded: set[str] = set()

    def grow(node: Tree, nid: str, depth: int) -> None:
        if nid in expanded or depth > 30:
            return
        expanded.add(nid)
        for target, label in children.get(nid, []):
            kind, text = labels.get(target, ("?", target))
            text = text.replace("[", "\\[")
            again = " (see above)" if target in expanded and children.get(target) else ""
            grow(
                node.add(f"{label} → {text} [dim]({kind}){again}[/]", highlight=False),
                target,
                depth + 1,
            )

    grow(tree, root_id, 0)
    return tree


def register(app: typer.Typer) -> None:
    """Add `docs` and `lineage` to the Vitrina CLI."""
    app.command("docs")(docs_command)
    app.command("lineage")(lineage_command)
