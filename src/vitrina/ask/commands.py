"""CLI commands of the ask job: `vitrina ask`, `vitrina chat`, `vitrina demo`."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from vitrina.cli_options import CatalogDir, WarehouseUrl

if TYPE_CHECKING:  # the heavy stack loads inside the commands, so `vitrina --help` stays fast
    from datetime import date

    from vitrina.ask.outputs import Kind
    from vitrina.ask.service import AskService
    from vitrina.catalog import Catalog
    from vitrina.config import Settings

console = Console()
err = Console(stderr=True)

DEMO_QUESTIONS = [
    "Сколько кошельков открыли в мае 2025?",
    "а в декабре, по неделям?",
    "Revenue by region in Q3 2026",
    "Топ-5 категорий мерчантов по сумме платежей за 2025 год",
    "Средний чек B2B клиентов по месяцам в 2025 году",
    "How many cards were issued by payment system last month?",
    "Сколько ипотек выдали в 2025 году?",
]


def fail(message: str, code: int = 2) -> typer.Exit:
    err.print(f"[red]error:[/] {message}")
    return typer.Exit(code)


READER_STATUS = {
    "created": "read-only role {role} created (SELECT on schema dwh); ask with:",
    "reset": "read-only role {role}: new password (--reset-password), earlier URLs no longer "
    "work; ask with:",
    "set": "read-only role {role} existed without a password: one is set now; ask with:",
    "kept": "read-only role {role} exists: password kept, the URL printed when it was created "
    "still works (--reset-password gives it a new one):",
}


def ensure_demo(settings: Settings) -> None:
    """Build the embedded demo warehouse on first use, with a progress bar."""
    if settings.db_url:
        return
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from vitrina.warehouse.demo import ensure_demo_warehouse

    with Progress(
        TextColumn("[bold]demo warehouse[/] {task.description}"),
        BarColumn(),
        TimeElapsedColumn(),
        console=err,
        transient=True,
    ) as progress:
        task = progress.add_task("checking", total=None)

        def report(step: str, done: int, total: int) -> None:
            progress.update(task, description=step, completed=done, total=total)

        ensure_demo_warehouse(settings.demo_db_path, progress=report)


def make_service(
    settings: Settings, *, use_llm: bool = True, write_files: bool = True
) -> AskService:
    """The ask service (imported lazily so `--help` stays fast); catalog errors are messages."""
    from vitrina.ask.service import AskService
    from vitrina.catalog import CatalogError

    ensure_demo(settings)
    try:
        return AskService(settings, use_llm=use_llm, write_files=write_files)
    except CatalogError as exc:
        raise fail(str(exc)) from exc


def _settings(db: str | None, catalog: Path | None, segment: str | None) -> Settings:
    from vitrina.config import load_settings

    if catalog is not None and not catalog.exists():
        raise fail(f"catalog folder not found: {catalog}")
    return load_settings(db_url=db, catalog_dir=catalog, segment=segment)


def _download(service: Any, result: Any, kind: Kind, dest: Path | None) -> str | None:
    """The run's file of this kind (CSV, Parquet: every row, from the stored result), written
    now; None when it was not asked for or the turn has no result."""
    if dest is None or not result.run_id or result.status != "answered":
        return None
    files = service.run_files(result.thread_id, result.run_id, (kind,))
    return files.path(kind) if files is not None else None


def _copy(src: str | None, dest: Path | None, what: str) -> None:
    if dest is None:
        return
    if not src:
        err.print(f"[yellow]no {what} for this answer; {dest} not written[/]")
        return
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, dest)
    console.print(f"[dim]{what} written to[/] {dest}")


def read_sample_questions(
    catalog: Catalog, questions: list[str], today: date, dialect: str
) -> list[dict[str, Any]]:
    """`catalog check --questions`: each question as the rules read it, nothing executed."""
    from vitrina.ask.explain import explain_question
    from vitrina.config import load_settings

    settings = load_settings()
    return [
        explain_question(q, catalog, settings=settings, today=today, dialect=dialect).as_dict()
        for q in questions
    ]


def plug_in() -> None:
    """What ask lends the core's commands (wired by `vitrina.cli.build_app` with them):
    `catalog check --questions` reads questions as ask would."""
    from vitrina.catalog.commands import register_question_reader

    register_question_reader(read_sample_questions)


def _load_mysql(demo_path: Path, url: str | None, user: str | None, reset_password: bool) -> None:
    """The demo tables into the URL's database, then its read-only account (no URL: nothing)."""
    if not url:
        return
    from vitrina.warehouse.mysql_load import (
        ensure_mysql_reader,
        load_demo_into_mysql,
        url_database,
    )

    with console.status("loading the demo data into MariaDB/MySQL"):
        try:
            counts = load_demo_into_mysql(demo_path, url)
            reader = ensure_mysql_reader(
                url, url_database(url), user=user, reset_password=reset_password
            )
        except Exception as exc:
            raise fail(f"MariaDB/MySQL load failed: {str(exc).splitlines()[0]}") from exc
    console.print(
        f"loaded {sum(counts.values()):,} rows into database {url_database(url)} at "
        f"{url.split('@')[-1].split('/')[0]}",
        markup=False,
    )
    status = {"created": "created (SELECT on the database)", "reset": "new password"}
    console.print(
        f"read-only account {reader.user}: {status.get(reader.status, 'password kept')}; ask with:",
        markup=False,
    )
    console.print(f"  VITRINA_DB_URL='{reader.url}' vitrina ask ...", markup=False, soft_wrap=True)
    for problem in reader.problems:
        console.print(f"warning: account {reader.user} {problem}", markup=False)


def register(app: typer.Typer) -> None:
    @app.command()
    def ask(
        question: Annotated[
            str,
            typer.Argument(help="A question in Russian or English, or a reply to a clarification."),
        ],
        db: WarehouseUrl = None,
        catalog: CatalogDir = None,
        thread: Annotated[
            str | None,
            typer.Option(help="Dialog id: continue a dialog or answer its clarification."),
        ] = None,
        segment: Annotated[
            str | None,
            typer.Option(help="auto, or a segment of the catalog (the demo's: b2b, b2c)."),
        ] = None,
        topic: Annotated[
            list[str] | None, typer.Option(help="Explicit topic id (repeatable): skips detection.")
        ] = None,
        excel: Annotated[
            Path | None, typer.Option(help="Write the full result to this .xlsx file.")
        ] = None,
        csv: Annotated[
            Path | None, typer.Option(help="Write the full result to this .csv file.")
        ] = None,
        parquet: Annotated[
            Path | None, typer.Option(help="Write the full result to this .parquet file.")
        ] = None,
        chart: Annotated[
            Path | None, typer.Option(help="Write the chart to this .png file.")
        ] = None,
        as_json: Annotated[
            bool, typer.Option("--json", help="Print the stable machine-readable result.")
        ] = False,
        trace: Annotated[bool, typer.Option(help="Print the decision trace.")] = False,
        no_llm: Annotated[
            bool, typer.Option("--no-llm", help="Rules only, even when a model is configured.")
        ] = False,
    ) -> None:
        """Answer one question from the warehouse (rules first; read-only)."""
        from vitrina.ask.render import json_reply, render_files, render_result
        from vitrina.warehouse import WarehouseError

        settings = _settings(db, catalog, segment)
        # the files are written after the answer is shown (--json: before, it prints their paths)
        service = make_service(settings, use_llm=not no_llm, write_files=False)
        try:
            segment = service.catalog.info.dialog_segment(segment or settings.segment)
        except ValueError as exc:
            service.close()
            raise fail(f"--segment: {exc}") from exc
        try:
            result = service.ask(question, thread_id=thread, segment=segment, topics=topic)
            if as_json:  # the files first: the reply prints their paths
                result = service.with_files(result)
                typer.echo(json_reply(result, settings.result_cell_max_chars))
            else:
                render_result(console, result, show_trace=trace)
                result = service.with_files(result)
                render_files(console, result)
            _copy(_download(service, result, "csv", csv), csv, "CSV file")
            _copy(_download(service, result, "parquet", parquet), parquet, "Parquet file")
        except WarehouseError as exc:
            raise fail(f"warehouse: {exc}") from exc
        finally:
            service.close()
        _copy(result.excel, excel, "Excel file")
        _copy(result.chart_png, chart, "chart")
        if result.status == "failed":
            raise typer.Exit(1)

    @app.command()
    def demo(
        load_postgres: Annotated[
            str | None, typer.Option(help="Also load the demo data into this PostgreSQL URL.")
        ] = None,
        load_mysql: Annotated[
            str | None,
            typer.Option(
                help="Also load the demo data into this MariaDB/MySQL URL (its database, "
                "default dwh) and create a <db>_reader account with SELECT only."
            ),
        ] = None,
        load_clickhouse: Annotated[
            str | None,
            typer.Option(
                help="Also load the demo data into ClickHouse: a chDB folder or a "
                "clickhouse://USER:PASSWORD@HOST:8123 server URL."
            ),
        ] = None,
        reader_role: Annotated[
            str | None,
            typer.Option(help="The read-only role to create (default: <database>_reader)."),
        ] = None,
        reset_password: Annotated[
            bool,
            typer.Option(help="Give an existing read-only role a new password (old URLs stop)."),
        ] = False,
        questions: Annotated[
            bool, typer.Option(help="Ask the sample questions after building.")
        ] = True,
        as_json: Annotated[
            bool, typer.Option("--json", help="Print results as JSON lines.")
        ] = False,
    ) -> None:
        """Build the demo warehouse (first use) and answer sample questions in both languages."""
        from vitrina.ask.render import render_result
        from vitrina.config import load_settings

        settings = load_settings()
        ensure_demo(settings)
        console.print(f"[dim]demo warehouse:[/] {settings.demo_db_path}")
        if load_postgres:
            from vitrina.warehouse.pg_load import load_demo_into_postgres

            with console.status("loading the demo data into PostgreSQL"):
                try:
                    counts = load_demo_into_postgres(settings.demo_db_path, load_postgres)
                except Exception as exc:
                    raise fail(f"PostgreSQL load failed: {str(exc).splitlines()[0]}") from exc
            console.print(
                f"loaded {sum(counts.values()):,} rows into {load_postgres.split('@')[-1]}"
            )
            from vitrina.warehouse.reader_role import ReaderRoleError, ensure_reader_role

            try:
                reader = ensure_reader_role(
                    load_postgres, ["dwh"], role=reader_role, reset_password=reset_password
                )
            except ReaderRoleError as exc:
                raise fail(str(exc)) from exc
            except Exception as exc:
                raise fail(
                    f"creating the read-only role failed: {str(exc).splitlines()[0]}"
                ) from exc
            console.print(READER_STATUS[reader.status].format(role=reader.role), markup=False)
            console.print(
                f"  VITRINA_DB_URL='{reader.url}' vitrina ask ...", markup=False, soft_wrap=True
            )
            for problem in reader.problems:
                console.print(f"warning: role {reader.role} {problem}", markup=False)
        _load_mysql(settings.demo_db_path, load_mysql, reader_role, reset_password)
        _load_clickhouse(settings.demo_db_path, load_clickhouse)
        if not questions:
            return
        service = make_service(settings)
        try:
            thread_id = None
            for question in DEMO_QUESTIONS:
                result = service.ask(question, thread_id=thread_id)
                thread_id = result.thread_id
                if as_json:
                    typer.echo(result.model_dump_json())
                else:
                    render_result(console, result, show_trace=False)
                    console.print()
        finally:
            service.close()


def _load_clickhouse(demo_path: Path, target: str | None) -> None:
    """`vitrina demo --load-clickhouse`: the demo's tables into database dwh of a chDB folder
    (a path or chdb:///PATH) or a ClickHouse server, then the URL to ask with."""
    if not target:
        return
    from vitrina.warehouse.clickhouse_load import load_demo_into_clickhouse

    url = target if "://" in target else f"chdb:///{Path(target).expanduser().resolve()}"
    with console.status("loading the demo data into ClickHouse"):
        try:
            counts = load_demo_into_clickhouse(demo_path, url)
        except Exception as exc:
            raise fail(f"ClickHouse load failed: {str(exc).splitlines()[0]}") from exc
    shown = url.split("@")[-1]
    console.print(f"loaded {sum(counts.values()):,} rows into {shown} (database dwh)", markup=False)
    console.print(f"  VITRINA_DB_URL='{url}' vitrina ask ...", markup=False, soft_wrap=True)
