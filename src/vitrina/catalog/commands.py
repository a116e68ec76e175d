"""CLI: `vitrina catalog init` drafts a catalog from a database; `catalog check` validates one."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

if TYPE_CHECKING:
    from vitrina.catalog import Catalog

console = Console()
err = Console(stderr=True)
catalog_app = typer.Typer(
    help="Draft, check and inspect the knowledge base (catalog).", no_args_is_help=True
)


def _role_advice(db: str, schemas: list[str]) -> None:
    """After a PostgreSQL draft: the reader-role recipe, unless the draft was already made as
    a read-only role (then this URL is the one to give Vitrina)."""
    from vitrina.warehouse.privileges import inspect_postgres_role, reader_role_sql

    report = None
    try:
        import psycopg

        from vitrina.warehouse.pg_load import pg_conninfo

        with psycopg.connect(pg_conninfo(db), connect_timeout=10) as conn:
            report = inspect_postgres_role(conn)
    except Exception:  # advice only: without the report, the recipe is shown
        report = None
    if report is not None and not report.privileged:
        console.print(
            f"PostgreSQL role {report.role!r} can only read: use this URL in VITRINA_DB_URL."
        )
        return
    console.print(
        "Vitrina queries PostgreSQL as a read-only role and refuses a privileged one. "
        "Create it once (as an administrator), then use it in VITRINA_DB_URL:"
    )
    console.print(reader_role_sql(schemas), markup=False, soft_wrap=True)


@catalog_app.command("init")
def init(
    db: Annotated[str, typer.Option(help="SQLAlchemy URL of the database to introspect.")],
    out: Annotated[Path, typer.Option(help="Folder to write the draft catalog into.")],
    schema: Annotated[
        list[str] | None, typer.Option(help="Only these schemas (repeatable).")
    ] = None,
    sample_values: Annotated[
        int, typer.Option(help="Columns with at most this many values get a value list.")
    ] = 30,
    force: Annotated[bool, typer.Option(help="Overwrite existing files.")] = False,
) -> None:
    """Draft a catalog from any database: keys, types, relations, low-cardinality values."""
    from vitrina.catalog.draft import draft_catalog, write_draft
    from vitrina.warehouse.introspect import introspect

    with console.status(f"introspecting {db.split('@')[-1]}"):
        try:
            schema_info = introspect(db, schemas=schema, sample_values=sample_values)
        except Exception as exc:
            err.print(
                f"[red]error:[/] cannot introspect {db}: "
                f"{str(exc).splitlines()[0] if str(exc) else exc}"
            )
            raise typer.Exit(2) from exc
    for table in schema_info.tables:
        if table.error:
            err.print(f"[yellow]skipped[/] {table.schema_name}.{table.name}: {table.error}")
    if not any(not t.error for t in schema_info.tables):
        err.print("[red]error:[/] no readable tables found; check the URL and --schema")
        raise typer.Exit(2)
    draft = draft_catalog(schema_info, name=out.name)
    try:
        written = write_draft(draft, out, overwrite=force)
    except FileExistsError as exc:
        err.print(f"[red]error:[/] {exc}")
        raise typer.Exit(2) from exc
    console.print(f"drafted {len(schema_info.tables)} tables into {out} ({len(written)} files)")
    notes = draft.all_notes()
    if notes:  # also on top of the files they concern, as `# review:` comments
        console.print(f"review before use ({len(notes)}):")
        for note in notes:
            console.print(f"  - {note}", markup=False, highlight=False)
    if db.split(":", 1)[0].split("+", 1)[0] in ("postgresql", "postgres"):
        _role_advice(db, sorted({t.schema_name for t in schema_info.tables if not t.error}))
    console.print(
        "next: edit the draft (README: 'Your own warehouse'), then "
        f"[bold]vitrina catalog check {out}[/]"
    )


# Extension point: the job that reads questions (ask) registers how; the catalog (a core
# package) cannot import it. reader(catalog, questions, today, dialect) -> list of dicts.
QuestionReader = Callable[["Catalog", list[str], date, str], list[dict]]
_question_readers: list[QuestionReader] = []


DatabaseCheck = Callable[[Path, "Catalog", Any], list[str]]  # (folder, catalog, warehouse)
_database_checks: list[DatabaseCheck] = []


def register_database_check(check: DatabaseCheck) -> None:
    """Called by `vitrina.query.verified.commands.plug_in`: `catalog check --db` also
    recompiles the catalog's verified queries (wired by `vitrina.cli.build_app`)."""
    if check not in _database_checks:
        _database_checks.append(check)


def register_question_reader(reader: QuestionReader) -> None:
    """Called by `vitrina.ask.commands.plug_in`, which `vitrina.cli.build_app` wires with
    these commands: `catalog check --questions` uses it."""
    if reader not in _question_readers:
        _question_readers.append(reader)


@catalog_app.command("check")
def check(
    directory: Annotated[Path, typer.Argument(help="The catalog folder.")],
    db: Annotated[
        str | None,
        typer.Option(
            help="SQLAlchemy URL of the warehouse: every table, metric, relation and value list "
            "is compiled against it (EXPLAIN, nothing runs). Default: VITRINA_DB_URL when set."
        ),
    ] = None,
    questions: Annotated[
        Path | None,
        typer.Option(
            help="A file of sample questions (YAML list, `questions:` / suite `cases:`, or one "
            "per line): how the rules read each one, without running it.",
        ),
    ] = None,
    today: Annotated[
        str | None, typer.Option(help="The date relative periods are read against (ISO).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Readings as JSON lines.")] = False,
) -> None:
    """Validate a catalog: every problem with its file and line; exit 1 when there are any."""
    from vitrina.catalog import CatalogError, load_catalog

    try:
        catalog = load_catalog(directory)
    except CatalogError as exc:
        _print_problems([str(p) for p in exc.problems])
        raise typer.Exit(1) from exc
    problems = [str(p) for p in catalog.problems]
    url = db or _env_db_url()
    if url:
        problems += _database_problems(catalog, url, directory)
    if questions is not None:
        _print_readings(catalog, questions, today, url, as_json=as_json)
    if problems:
        _print_problems(problems)
        raise typer.Exit(1)
    if questions is not None and as_json:
        return
    title = f"catalog {catalog.info.name}: OK" + (
        f" (compiled against {url.split('@')[-1]})" if url else ""
    )
    table = Table(title=title)
    table.add_column("section")
    table.add_column("items", justify="right")
    for section, count in [
        ("topics", len(catalog.topics)),
        ("tables", len(catalog.tables)),
        ("relations", len(catalog.relations)),
        ("requires", len(catalog.requires)),
        ("metrics", len(catalog.metrics)),
        ("instructions", len(catalog.instructions)),
        ("examples", len(catalog.examples)),
        ("dictionaries", len(catalog.dictionaries)),
    ]:
        table.add_row(section, str(count))
    console.print(table)


def _print_readings(
    catalog: Catalog, path: Path, today: str | None, url: str | None, *, as_json: bool
) -> None:
    """How the rules read each sample question: plan, unexplained words, outcome."""
    import json
    from datetime import date as date_

    if not path.is_file():
        err.print(f"[red]error:[/] questions file not found: {path}")
        raise typer.Exit(2)
    try:
        day = date_.fromisoformat(today) if today else date_.today()
    except ValueError as exc:
        err.print(f"[red]error:[/] --today {today!r} is not a date (YYYY-MM-DD)")
        raise typer.Exit(2) from exc
    if not _question_readers:
        err.print("[red]error:[/] no question reader is registered (the ask job is not loaded)")
        raise typer.Exit(2)
    from vitrina.warehouse.engine import dialect_of

    try:
        asked = _read_questions(path)
    except ValueError as exc:
        err.print(f"[red]error:[/] {path}: {exc}")
        raise typer.Exit(2) from exc
    readings = _question_readers[0](catalog, asked, day, dialect_of(url) if url else "duckdb")
    if as_json:
        for reading in readings:
            line = json.dumps(reading, ensure_ascii=False, default=str)
            console.print(line, markup=False, highlight=False, soft_wrap=True)
        return
    counts: dict[str, int] = {}
    for r in readings:
        counts[r["outcome"]] = counts.get(r["outcome"], 0) + 1
        console.print(f"[bold]{r['question']}[/]", highlight=False)
        parts = [f"-> {r['outcome']}"]
        for key in ("topic", "metrics", "dimensions", "filters", "period", "date", "unexplained"):
            value = r.get(key)
            if value:
                shown = ", ".join(value) if isinstance(value, list) else value
                parts.append(f"{key}: {shown}")
        console.print("   " + "; ".join(parts), markup=False, highlight=False)
        if r["outcome"] != "answered" and r.get("reason"):
            console.print(f"   {r['reason']}", markup=False, highlight=False)
    summary = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
    console.print(f"{len(readings)} questions: {summary}", highlight=False)


def _read_questions(path: Path) -> list[str]:
    import yaml

    text = path.read_text(encoding="utf-8-sig")
    try:
        from vitrina.catalog.questions import questions_in

        return questions_in(text, is_yaml=path.suffix.lower() in (".yaml", ".yml"))
    except yaml.YAMLError as exc:
        raise ValueError(f"not valid YAML: {str(exc).splitlines()[0]}") from exc


def _print_problems(problems: list[str]) -> None:
    from rich.markup import escape

    for problem in problems:
        err.print(f"[red]✗[/] {escape(problem)}", highlight=False)
    err.print(f"[red]{len(problems)} problem(s)[/]")


def _env_db_url() -> str | None:
    import os

    return os.environ.get("VITRINA_DB_URL") or None


def _database_problems(catalog: Catalog, url: str, directory: Path) -> list[str]:
    """The catalog compiled against the warehouse at `url`; a connection failure exits 2."""
    from vitrina.catalog.db_check import check_against_database
    from vitrina.warehouse.engine import Warehouse, WarehouseError

    try:
        warehouse = Warehouse(url, timeout_s=30)
    except (ValueError, WarehouseError) as exc:
        err.print(f"[red]error:[/] {url}: {exc}")
        raise typer.Exit(2) from exc
    try:
        found = check_against_database(catalog, warehouse)
        extras: list[str] = []
        if directory.is_dir():
            for extra in _database_checks:  # plug-ins: the verified queries
                extras += extra(directory, catalog, warehouse)
    except WarehouseError as exc:
        err.print(f"[red]error:[/] cannot reach {url.split('@')[-1]}: {exc}")
        raise typer.Exit(2) from exc
    finally:
        warehouse.close()
    return [f"database: {p}" for p in found] + extras


def register(app: typer.Typer) -> None:
    app.add_typer(catalog_app, name="catalog")
