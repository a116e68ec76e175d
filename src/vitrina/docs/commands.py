"""CLI: `vitrina docs` and `vitrina lineage`. Thin: parse options, call the job, print."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
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
    model: Annotated[Path, typer.Option("--model", help="A .bim file or a TMDL folder (PBIP definition/).")],
    sql: Annotated[list[Path] | None, typer.Option("--sql", help="Folder of .sql files (SSDT project); repeatable.")] = None,
    measures: Annotated[Path | None, typer.Option("--measures", help="Measure list: '# Topic' then '## [M1], [M2]'.")] = None,
    all_measures: Annotated[bool, typer.Option("--all", help="Document every measure of the model.")] = False,
    out: Annotated[Path | None, typer.Option("--out", help="Output folder (default: $VITRINA_HOME/outputs/docs/<model>).")] = None,
    lang: Annotated[str, typer.Option("--lang", help="Document language: ru or en.", callback=_lang)] = "en",
    timeout: Annotated[float, typer.Option("--timeout", help="Time limit per measure, seconds.")] = 60.0,
    fresh: Annotated[bool, typer.Option("--fresh", help="Ignore an interrupted run instead of resuming it.")] = False,
    llm: Annotated[bool, typer.Option("--llm", help="Use the configured model for a free-text measure list "
                                      "and the wording of explanations (rules when it fails).")] = False,
) -> None:
    """Document BI measures: DAX, dependencies and lineage down to the loading procedures."""
    from vitrina.config import load_settings
    from vitrina.docs.run import make_request, run_docs

    if measures is not None and all_measures:
        raise _fail("give either --measures FILE or --all, not both")
    settings = load_settings()
    client = _client(settings) if llm else None
    out_dir = out or settings.outputs_dir / "docs" / (model.stem or "model")
    request = make_request(model, sql or [], measures_file=measures, all_measures=all_measures, out=out_dir, lang=lang)
    console = Console(stderr=False)
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=Console(stderr=True), transient=True, disable=not sys.stderr.isatty()) as progress:
        task = progress.add_task("documenting", total=None)

        def on_progress(_kind: str, done: int, total: int, name: str) -> None:
            progress.update(task, completed=done, total=total, description=f"[{name}]"[:40])

        try:
            report = run_docs(request, settings=settings, measure_timeout_s=timeout, on_progress=on_progress,
                              fresh=fresh, llm=client)
        except DocsInputError as exc:
            raise _fail(str(exc)) from None
    _print_report(console, report)


def _client(settings: Any) -> Any:
    """The configured model, or None with a note: the docs job runs on rules without one."""
    from vitrina.llm.factory import LLMSettingsError, build_client

    try:
        client = build_client(settings)
    except LLMSettingsError as exc:
        Console(stderr=True).print(f"[yellow]--llm:[/] invalid LLM settings ({exc}); rules only", highlight=False)
        return None
    if client is None:
        Console(stderr=True).print("[yellow]--llm:[/] no model configured (see `vitrina config`); rules only")
    return client


def _print_report(console: Console, report: Any) -> None:
    table = Table(title="vitrina docs", show_lines=False)
    table.add_column("item")
    table.add_column("value", overflow="fold")
    table.add_row("processed", str(len(report.processed)))
    table.add_row("documents written", str(len(report.created)))
    table.add_row("unchanged (kept)", str(len(report.unchanged)))
    table.add_row("missed", str(len(report.missed)))
    table.add_row("time", f"{report.seconds:.2f} s" + (" (resumed)" if report.resumed else ""))
    usage = report.llm_usage
    if usage:
        table.add_row("model calls", f"{usage['calls']} ({usage['failures']} failed, {usage['repairs']} repairs, "
                                     f"{usage['prompt_tokens'] + usage['completion_tokens']} tokens)")
    for key in ("manual", "index", "measures_dir"):
        if key in report.outputs:
            table.add_row(key, report.outputs[key])
    console.print(table)
    if report.missed:
        missed = Table(title="missed measures")
        missed.add_column("measure")
        missed.add_column("reason")
        missed.add_column("detail", overflow="fold")
        for m in report.missed:
            missed.add_row(f"[{m['measure']}]", m["reason"], m.get("detail", ""))
        console.print(missed)


def lineage_command(
    measure: Annotated[str, typer.Argument(help='The measure, e.g. "[Total Sales]".')],
    model: Annotated[Path, typer.Option("--model", help="A .bim file or a TMDL folder.")],
    sql: Annotated[list[Path] | None, typer.Option("--sql", help="Folder of .sql files; repeatable.")] = None,
) -> None:
    """Print one measure's lineage as a tree: measures, model tables, sources, loaders."""
    from vitrina.docs.lineage import build_lineage
    from vitrina.docs.workspace import Workspace

    name = measure.strip()
    if name.startswith("[") and name.endswith("]"):
        name = name[1:-1].replace("]]", "]")
    try:
        ws = Workspace.load(model, sql or [])
    except DocsInputError as exc:
        raise _fail(str(exc)) from None
    found = ws.model.measure(name)
    if found is None:
        import difflib

        close = difflib.get_close_matches(name, [m.name for m in ws.model.measures], n=3, cutoff=0.5)
        hint = f"; did you mean {', '.join(f'[{c}]' for c in close)}?" if close else ""
        raise _fail(f"measure [{name}] not found in {model}{hint}")
    lin = build_lineage(ws, found)
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
            grow(node.add(f"{label} → {text} [dim]({kind}){again}[/]", highlight=False), target, depth + 1)

    grow(tree, root_id, 0)
    return tree


def register(app: typer.Typer) -> None:
    """Add `docs` and `lineage` to the Vitrina CLI."""
    app.command("docs")(docs_command)
    app.command("lineage")(lineage_command)
