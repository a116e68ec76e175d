"""CLI of the eval harness: `vitrina eval run | compare | review | list | bank | report`."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.panel import Panel
from rich.table import Table

from vitrina.cli_options import CatalogDir, WarehouseUrl
from vitrina.eval.errors import ConfigError, EvalError

if TYPE_CHECKING:
    from collections.abc import Iterator

    from vitrina.config import Settings
    from vitrina.eval.experiment import RunConfig
    from vitrina.eval.records import RunRecord
    from vitrina.eval.store import EvalStore, ReviewItem
    from vitrina.eval.suite import Suite

console = Console()
err = Console(stderr=True)

eval_app = typer.Typer(
    help="Measure whether answers are right, and which configuration answers best. / "
    "Оценка качества ответов и сравнение конфигураций.",
    no_args_is_help=True,
)


def _fail(message: str, code: int = 2) -> typer.Exit:
    err.print(f"[red]error / ошибка:[/] {message}")
    return typer.Exit(code)


@contextmanager
def _store() -> Iterator[EvalStore]:
    from vitrina.config import load_settings
    from vitrina.eval.store import EvalStore

    store = EvalStore.from_settings(load_settings())
    try:
        yield store
    except EvalError as exc:
        raise _fail(str(exc)) from exc
    finally:
        store.close()


def resolve_suite_path(ref: str) -> Path:
    """A suite file: the path as given, else suites/<ref>.yaml in the current directory."""
    path = Path(ref)
    if path.is_file():
        return path
    for candidate in (Path("suites") / f"{ref}.yaml", Path("suites") / ref):
        if candidate.is_file():
            return candidate
    raise EvalError(
        f"suite not found: {ref} (a YAML file, or a name in ./suites/)",
        message_ru=f"набор не найден: {ref}",
    )


def load_suite_ref(
    ref: str,
    cases: list[str] | None = None,
    tags: list[str] | None = None,
    limit: int | None = None,
) -> Suite:
    from vitrina.eval.suite import load_suite

    suite = load_suite(resolve_suite_path(ref)).select(cases, tags, limit)
    if not suite.cases:
        raise EvalError("no cases selected", message_ru="не выбрано ни одного случая")
    return suite


def _show(
    runs: list[RunRecord],
    html: Path | None,
    title: str | None = None,
    *,
    markdown: Path | None = None,
    as_json: bool = False,
    ident: str | None = None,
) -> None:
    """Print the report (or its JSON) and write the HTML/Markdown files asked for."""
    from vitrina.eval.report_html import write_html
    from vitrina.eval.report_json import runs_json
    from vitrina.eval.report_markdown import write_markdown
    from vitrina.eval.report_terminal import report

    kind = "matrix" if runs and runs[0].matrix_id and len(runs) > 1 else "run"
    if as_json:
        print(runs_json(runs, kind, ident or (runs[0].matrix_id if kind == "matrix" else None)))
    else:
        console.print(report(runs, title))
    out = err if as_json else console
    if html is not None:
        out.print(f"[dim]HTML report / HTML-отчёт:[/] {write_html(runs, html, title)}")
    if markdown is not None:
        written = write_markdown(runs, markdown, title)
        out.print(f"[dim]Markdown report / Markdown-отчёт:[/] {written}")


def _matrix_configs(path: Path) -> tuple[Any, list[RunConfig]]:
    from vitrina.eval.experiment import load_matrix

    return load_matrix(path)


def _run_all(
    the_suite: Suite,
    config: Path | None,
    matrix: Path | None,
    store: EvalStore,
    base: Settings,
) -> tuple[list[RunRecord], str]:
    """Run the suite under the configuration or the matrix (validated whole first)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from vitrina.eval.experiment import RunConfig, config_line, load_config
    from vitrina.eval.runner import run_matrix, run_suite

    spec, configs = _matrix_configs(matrix) if matrix is not None else (None, [])
    cfg = load_config(config) if config is not None else RunConfig()
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("[dim]{task.fields[case]}"),
    )
    with Progress(*columns, console=err, transient=True) as bar:

        def tracker(name: str):  # one bar per configuration
            task = bar.add_task(name, total=len(the_suite.cases), case="")
            return lambda done, total, case_id: bar.update(task, completed=done, case=case_id)

        if matrix is not None:
            try:
                matrix_id, runs = run_matrix(
                    the_suite, configs, store=store, settings=base, progress=tracker
                )
            except ConfigError as exc:  # found before any configuration ran
                raise EvalError(
                    exc.detail,
                    file=config_line(matrix, exc.index),
                    where=exc.where,
                    message_ru=exc.message_ru,
                ) from exc
            return runs, f"{spec.name} ({matrix_id}): {the_suite.name}"
        run = run_suite(the_suite, cfg, store=store, settings=base, progress=tracker(cfg.name))
        return [run], f"{the_suite.name}: {run.config_name}"


@eval_app.command("run")
def run_command(
    suite: Annotated[str, typer.Argument(help="suite YAML file, or a name in ./suites/")],
    config: Annotated[
        Path | None, typer.Option("--config", help="one run configuration (YAML)")
    ] = None,
    matrix: Annotated[
        Path | None, typer.Option("--matrix", help="a matrix of configurations (YAML)")
    ] = None,
    html: Annotated[Path | None, typer.Option("--html", help="write the HTML report here")] = None,
    markdown: Annotated[
        Path | None, typer.Option("--markdown", help="write the Markdown report here")
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="print the runs' summaries as JSON")
    ] = False,
    db: Annotated[
        str | None, typer.Option("--db", help="warehouse URL instead of the suite's")
    ] = None,
    catalog: Annotated[
        Path | None, typer.Option("--catalog", help="catalog folder instead of the suite's")
    ] = None,
    case: Annotated[list[str] | None, typer.Option("--case", help="only these case ids")] = None,
    tag: Annotated[
        list[str] | None, typer.Option("--tag", help="only cases with these tags")
    ] = None,
    limit: Annotated[int | None, typer.Option("--limit", help="only the first N cases")] = None,
) -> None:
    """Run a suite (under one configuration or a matrix), store the run(s), print the report.
    With --db and --catalog the same suite runs on another warehouse."""
    from vitrina.eval.runner import base_settings

    if config is not None and matrix is not None:
        raise _fail("give --config or --matrix, not both / укажите --config или --matrix, не оба")
    with _store() as store:
        the_suite = load_suite_ref(suite, case, tag, limit)
        base = base_settings(the_suite, db, catalog)
        runs, title = _run_all(the_suite, config, matrix, store, base)
        _show(runs, html, title, markdown=markdown, as_json=as_json)
        (err if as_json else console).print("runs / запуски: " + ", ".join(r.id for r in runs))


@eval_app.command("compare")
def compare_command(
    a: Annotated[str, typer.Argument(help="run id (or prefix, or 'last')")],
    b: Annotated[str, typer.Argument(help="run id (or prefix, or 'last')")],
    html: Annotated[
        Path | None, typer.Option("--html", help="write both runs as one HTML report")
    ] = None,
) -> None:
    """Compare two stored runs: metrics with their change, and the cases that changed."""
    from vitrina.eval.run_compare import diff_runs, render_diff

    with _store() as store:
        run_a, run_b = store.load_run(a), store.load_run(b)
        console.print(render_diff(diff_runs(run_a, run_b)))
        if html is not None:
            from vitrina.eval.report_html import write_html

            console.print(f"[dim]HTML report / HTML-отчёт:[/] {write_html([run_a, run_b], html)}")


def _report_runs(store: EvalStore, ref: str) -> tuple[list[str], str | None]:
    """The run ids to show for `ref` (a matrix id or prefix, a run id or prefix, or 'last': the
    newest run, with its whole matrix when it belongs to one) and the matrix id, if any."""
    matrix_id = store.resolve_matrix(ref) if ref != "last" else None
    if matrix_id is None:
        run = store.load_run(ref)
        matrix_id = run.matrix_id if ref == "last" else None
        if matrix_id is None or not store.matrix_runs(matrix_id):
            return [run.id], None
    return store.matrix_runs(matrix_id) or [], matrix_id


@eval_app.command("report")
def report_command(
    run: Annotated[str, typer.Argument(help="run id, a matrix id, or 'last'")] = "last",
    html: Annotated[Path | None, typer.Option("--html", help="write the HTML report here")] = None,
    markdown: Annotated[
        Path | None, typer.Option("--markdown", help="write the Markdown report here")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the summaries as JSON")] = False,
) -> None:
    """Show a stored run (or every run of a matrix, ranked) again."""
    with _store() as store:
        ids, matrix_id = _report_runs(store, run)
        runs = [store.load_run(i) for i in ids]
        title = f"matrix / матрица {matrix_id}: {runs[0].suite}" if matrix_id else None
        _show(runs, html, title, markdown=markdown, as_json=as_json, ident=matrix_id)


def _runs_table(runs: list[RunRecord]) -> Table:
    from vitrina.eval.metrics import summarize
    from vitrina.eval.report_terminal import format_metric

    table = Table(title="eval runs / запуски оценки", title_justify="left")
    left = ("run", "suite", "config", "matrix", "started")
    for name in (*left, "right / all", "decided", "accuracy (decided)", "in review"):
        table.add_column(name, justify="left" if name in left else "right")
    for run in runs:
        s = summarize(run.cases)
        table.add_row(
            run.id,
            run.suite,
            run.config_name,
            run.matrix_id or "",
            run.started_at,
            s.right_of_all,
            f"{s.decided_of_all} ({format_metric(s.decided_share, 'rate')})",
            format_metric(s.accuracy, "rate"),
            str(s.in_review),
        )
    return table


def _matrices_table(store: EvalStore, limit: int) -> Table | None:
    from vitrina.eval.metrics import summarize
    from vitrina.eval.report_terminal import ranked

    matrices = store.list_matrices(limit)
    if not matrices:
        return None
    table = Table(title="matrices (best config by right over all) / матрицы", title_justify="left")
    for name in ("matrix", "suite", "created", "configs", "best", "right / all"):
        table.add_column(name)
    for matrix_id, suite, created, run_ids in matrices:
        best = ranked([store.load_run(i) for i in run_ids])[0]
        table.add_row(
            matrix_id,
            suite,
            created,
            str(len(run_ids)),
            f"{best.config_name} ({best.id})",
            summarize(best.cases).right_of_all,
        )
    return table


@eval_app.command("list")
def list_command(
    limit: Annotated[int, typer.Option("--limit", help="newest N runs")] = 20,
    as_json: Annotated[bool, typer.Option("--json", help="print as JSON")] = False,
) -> None:
    """Stored runs and matrices, newest first."""
    import json

    from vitrina.eval.report_json import run_json

    with _store() as store:
        runs = store.list_runs(limit)
        if as_json:
            matrices = [
                {"id": m, "suite": s, "created_at": c, "runs": ids}
                for m, s, c, ids in store.list_matrices(limit)
            ]
            body = {"runs": [run_json(r) for r in runs], "matrices": matrices}
            print(json.dumps(body, ensure_ascii=False, indent=2))
            return
        if not runs:
            console.print("no runs yet / запусков пока нет: `vitrina eval run SUITE`")
            return
        console.print(_runs_table(runs))
        matrices_table = _matrices_table(store, limit)
    if matrices_table is not None:
        console.print(matrices_table)


def _review_panel(item: ReviewItem) -> Panel:
    c = item.case
    lines = [
        f"[bold]{' → '.join(c.turns)}[/]",
        f"reason / причина: {c.reason}",
        f"judge / судья: {'equivalent' if c.judge_ok else 'different'} — {c.judge_reason or ''}",
    ]
    if c.sql:
        lines.append(f"[dim]{c.sql}[/]")
    lines.append(f"expected / ожидалось ({c.expected_count}): {c.expected[:5]}")
    lines.append(f"got / получено ({c.got_count}): {c.got[:5]}")
    if c.diff:
        lines.append(c.diff)
    return Panel("\n".join(lines), title=f"{c.case_id} · run {item.run_id}", title_align="left")


@eval_app.command("review")
def review_command(
    run: Annotated[str | None, typer.Option("--run", help="only this run's queue")] = None,
    case: Annotated[
        str | None, typer.Option("--case", help="decide this case without prompts")
    ] = None,
    verdict: Annotated[str | None, typer.Option("--verdict", help="right | wrong")] = None,
    comment: Annotated[str | None, typer.Option("--comment", help="why (required)")] = None,
) -> None:
    """The review queue: cases where the judge and the automatic check disagree. Each verdict
    needs a comment; manual verdicts change the run's metrics."""
    with _store() as store:
        if case is not None:
            items = [i for i in store.open_reviews(run) if i.case.case_id == case]
            if not items and run is None:
                raise _fail(
                    f"case {case!r} is not waiting for review / случай {case!r} не ждёт проверки"
                )
            run_id = run or items[0].run_id
            if verdict is None:
                raise _fail(
                    "--verdict right|wrong is required with --case / нужен --verdict right|wrong"
                )
            store.decide(run_id, case, verdict, comment)
            console.print(f"recorded / записано: {case} = {verdict}")
            return
        items = store.open_reviews(run)
        if not items:
            console.print("nothing to review / проверять нечего")
            return
        for n, item in enumerate(items, start=1):
            console.print(f"[dim]{n}/{len(items)}[/]")
            console.print(_review_panel(item))
            choice = (
                typer.prompt("verdict / вердикт [right/wrong/skip]", default="skip").strip().lower()
            )
            if choice not in ("right", "wrong"):
                continue
            text = ""
            while not text.strip():
                text = typer.prompt(
                    "comment (required) / комментарий (обязателен)", default="", show_default=False
                )
                if not text.strip():
                    err.print("[yellow]a verdict needs a comment / вердикту нужен комментарий[/]")
            store.decide(item.run_id, item.case.case_id, choice, text)
            console.print(f"recorded / записано: {item.case.case_id} = {choice}")


@eval_app.command("verify")
def verify_command(
    run: Annotated[str, typer.Argument(help="The run of the case.")],
    case: Annotated[str, typer.Argument(help="A case judged right, or one to correct.")],
    by: Annotated[str, typer.Option("--by", help="Who verified it.")],
    sql: Annotated[
        str | None,
        typer.Option(help="Corrected SQL (or @FILE): run, guarded and shown before it is kept."),
    ] = None,
    question: Annotated[
        list[str] | None, typer.Option("--question", "-q", help="Another wording (repeat).")
    ] = None,
    entry_id: Annotated[str | None, typer.Option("--id", help="Entry id.")] = None,
    catalog: CatalogDir = None,
    db: WarehouseUrl = None,
) -> None:
    """A reviewed answer into the bank of verified queries (docs/verified.md): a case judged
    right, or corrected with --sql; its period, values and top N become parameters."""
    from datetime import date

    from vitrina.config import load_settings
    from vitrina.query.verified.authoring import AddError, add_entry
    from vitrina.query.verified.store import Bank, bank_dir
    from vitrina.warehouse import Warehouse

    with _store() as store:
        found = [c for c in store.load_run(run).cases if c.case_id == case]
    if not found:
        raise _fail(f"no case {case!r} in run {run!r} / нет случая {case!r} в запуске {run!r}")
    record = found[0]
    text = (
        (Path(sql[1:]).read_text(encoding="utf-8") if sql.startswith("@") else sql) if sql else None
    )
    if text is None and (record.final != "right" or not record.sql):
        raise _fail(
            f"case {case!r} is not judged right with its SQL: judge it (`vitrina eval review`) "
            "or give the corrected --sql / случай не признан верным: проверьте его или дайте --sql"
        )
    if catalog is not None and not catalog.is_dir():
        raise _fail(f"catalog folder not found: {catalog}")
    settings = load_settings(db_url=db, catalog_dir=catalog)
    from vitrina.catalog import load_catalog

    warehouse = Warehouse(settings.warehouse_url, timeout_s=settings.statement_timeout_s)
    try:
        entry, checked = add_entry(
            Bank(bank_dir(settings.catalog_dir, settings.home)),
            load_catalog(settings.catalog_dir),
            warehouse,
            wordings=[record.question, *(question or [])],
            sql=text or record.sql or "",
            by=by,
            entry_id=entry_id,
            today=date.today(),
            row_cap=settings.row_cap,
            source=f"eval {run}:{case}",
        )
    except AddError as exc:
        raise _fail(str(exc)) from exc
    finally:
        warehouse.close()
    console.print(f"verified / проверено: {entry.id} ({', '.join(p.name for p in entry.params)})")
    console.print(entry.sql, markup=False, highlight=False)
    rows = checked.result.row_count if checked.result else 0
    console.print(f"{rows} rows / строк")


@eval_app.command("bank")
def bank_command(
    suite: Annotated[str | None, typer.Option("--suite", help="only this suite's answers")] = None,
    answer: Annotated[
        tuple[str, str, str] | None,
        typer.Option("--answer", help="store an answer: SUITE:CASE KEY TEXT (KEY as listed)"),
    ] = None,
) -> None:
    """The clarification bank: stored answers to clarifying questions, and those still missing."""
    from vitrina.eval.store import BankEntry

    with _store() as store:
        if answer is not None:
            where, key, text = answer
            suite_name, _, case_id = where.rpartition(":")
            known = [
                e for e in store.bank(suite_name or suite) if e.case_id == case_id and e.key == key
            ]
            if not known or not (suite_name or suite):
                raise _fail(
                    f"no clarification {key!r} for case {where!r}; see `vitrina eval bank` / "
                    "такого уточнения нет в банке"
                )
            entry = known[0]
            store.bank_put(BankEntry(**{**entry.model_dump(), "answer": text, "source": "manual"}))
            console.print(f"stored / сохранено: {entry.suite}:{case_id} [{key}] → {text}")
            return
        entries = store.bank(suite)
    if not entries:
        console.print("the bank is empty / банк пуст")
        return
    table = Table(title="clarification bank / банк ответов на уточнения", title_justify="left")
    for name in ("suite:case", "key", "question", "answer"):
        table.add_column(name, overflow="fold")
    for e in entries:
        table.add_row(
            f"{e.suite}:{e.case_id}", e.key, e.question, e.answer or "[yellow]needed / нужен[/]"
        )
    console.print(table)


def register(app: typer.Typer) -> None:
    app.add_typer(eval_app, name="eval")
