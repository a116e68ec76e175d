"""CLI: `vitrina verified add|list|check|remove|import|accept`: the bank of verified queries.

The bank is ``verified/`` in the catalog folder (`--catalog`; the demo catalog's is under
VITRINA_HOME). Adding runs the query with its own wording's values (guard, EXPLAIN,
checks) and shows the result before the entry is kept; an import only fills the review
queue; `accept` is the person's word that makes an entry answer.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table

from vitrina.cli_options import CatalogDir, WarehouseUrl

if TYPE_CHECKING:
    from vitrina.catalog import Catalog
    from vitrina.config import Settings
    from vitrina.query.verified.store import Bank
    from vitrina.warehouse import Warehouse

console = Console()
err = Console(stderr=True)
verified_app = typer.Typer(
    help="The bank of verified queries: questions an analyst checked, answered again with "
    "new periods and values.",
    no_args_is_help=True,
)


def _fail(message: str) -> typer.Exit:
    err.print(f"[red]error:[/] {message}", markup=True, highlight=False, soft_wrap=True)
    return typer.Exit(2)


def _settings(db: str | None, catalog: Path | None) -> Settings:
    from vitrina.config import load_settings

    if catalog is not None and not catalog.is_dir():
        raise _fail(f"catalog folder not found: {catalog}")
    return load_settings(db_url=db, catalog_dir=catalog)


def _bank(settings: Settings) -> Bank:
    from vitrina.query.verified.store import Bank, bank_dir

    return Bank(bank_dir(settings.catalog_dir, settings.home))


def _catalog(settings: Settings) -> Catalog:
    from vitrina.catalog import load_catalog

    return load_catalog(settings.catalog_dir)


def _warehouse(settings: Settings) -> Warehouse:
    from vitrina.warehouse import Warehouse

    return Warehouse(
        settings.warehouse_url,
        timeout_s=settings.statement_timeout_s,
        row_cap=settings.row_cap,
        allow_privileged=settings.allow_privileged_warehouse,
    )


@verified_app.command("list")
def list_entries(
    catalog: CatalogDir = None,
    pending: Annotated[bool, typer.Option(help="The review queue instead of the bank.")] = False,
) -> None:
    """The entries of the bank (or of the review queue) with who verified them."""
    from vitrina.query.verified.store import BankError

    bank = _bank(_settings(None, catalog))
    folder = bank.pending_root if pending else bank.root
    table = Table(title=f"{'review queue' if pending else 'verified queries'}: {folder}")
    for col in ("id", "status", "verified by", "parameters", "wording / note"):
        table.add_column(col)
    for path in sorted(folder.glob("*.yaml")) if folder.is_dir() else []:
        from vitrina.query.verified.store import read_entry

        try:
            e = read_entry(path)
        except BankError as exc:
            table.add_row(path.stem, "[red]broken[/]", "", "", str(exc))
            continue
        params = ", ".join(p.name for p in e.params)
        who = f"{e.verified_by} {e.verified_at or ''}".strip()
        table.add_row(e.id, e.status, who, params, e.stale_reason or e.wordings[0])
    console.print(table)


@verified_app.command("add")
def add(
    question: Annotated[list[str], typer.Option("--question", "-q", help="A wording (repeat).")],
    sql: Annotated[str, typer.Option(help="The SQL, or @FILE to read it from a file.")],
    by: Annotated[str, typer.Option("--by", help="Who verified it.")],
    entry_id: Annotated[
        str | None, typer.Option("--id", help="Entry id (default: a slug).")
    ] = None,
    catalog: CatalogDir = None,
    db: WarehouseUrl = None,
) -> None:
    """Add a verified query: run with its first wording's values (guard, EXPLAIN, checks),
    shown, then kept. Literals the wording names become placeholders unless the SQL has some."""
    from vitrina.query.verified.authoring import AddError, add_entry

    settings = _settings(db, catalog)
    text = Path(sql[1:]).read_text(encoding="utf-8") if sql.startswith("@") else sql
    warehouse = _warehouse(settings)
    try:
        entry, checked = add_entry(
            _bank(settings),
            _catalog(settings),
            warehouse,
            wordings=question,
            sql=text,
            by=by,
            entry_id=entry_id,
            today=date.today(),
            row_cap=settings.row_cap,
        )
    except AddError as exc:
        raise _fail(str(exc)) from exc
    finally:
        warehouse.close()
    console.print(f"added {entry.id}: parameters {', '.join(p.name for p in entry.params) or '-'}")
    console.print(entry.sql, markup=False, highlight=False)
    if checked.result is not None:
        console.print(f"{checked.result.row_count} rows with the wording's values")


@verified_app.command("remove")
def remove(
    entry_id: Annotated[str, typer.Argument(help="The entry's id.")],
    catalog: CatalogDir = None,
    pending: Annotated[bool, typer.Option(help="Remove from the review queue.")] = False,
) -> None:
    """Remove an entry from the bank (or the review queue)."""
    from vitrina.query.verified.store import BankError

    try:
        path = _bank(_settings(None, catalog)).remove(entry_id, pending=pending)
    except BankError as exc:
        raise _fail(str(exc)) from exc
    console.print(f"removed {path}")


@verified_app.command("accept")
def accept(
    entry_id: Annotated[str, typer.Argument(help="The id of an entry in the review queue.")],
    by: Annotated[str, typer.Option("--by", help="Who verified it.")],
    catalog: CatalogDir = None,
) -> None:
    """Accept an entry of the review queue: it joins the bank and may answer."""
    from vitrina.query.verified.store import BankError

    try:
        entry = _bank(_settings(None, catalog)).accept(entry_id, by, date.today())
    except (BankError, ValueError) as exc:
        raise _fail(str(exc)) from exc
    console.print(f"accepted {entry.id} (verified by {by})")


def check_bank(bank: Bank, catalog: Catalog, warehouse: Warehouse, row_cap: int) -> list[str]:
    """Every bank entry compiled against the warehouse; stale ones marked in their files
    (and a stale one that compiles again restored). The problems, one line each."""
    from vitrina.query.verified.check import check_entry

    problems = []
    for entry in bank.entries():
        if entry.status == "pending":
            continue
        reason = check_entry(entry, catalog, warehouse, row_cap)
        if reason:
            problems.append(f"verified query {entry.id}: stale: {reason}")
            bank.save(entry.model_copy(update={"status": "stale", "stale_reason": reason}))
        elif entry.status == "stale":
            bank.save(entry.model_copy(update={"status": "verified", "stale_reason": None}))
    return problems


@verified_app.command("check")
def check(catalog: CatalogDir = None, db: WarehouseUrl = None) -> None:
    """Recompile every entry against the warehouse (EXPLAIN, nothing runs); a stale entry
    (a table or column changed) is marked and never used. Exit 1 when any is stale."""
    from vitrina.query.verified.store import BankError

    settings = _settings(db, catalog)
    warehouse = _warehouse(settings)
    try:
        problems = check_bank(_bank(settings), _catalog(settings), warehouse, settings.row_cap)
    except BankError as exc:
        raise _fail(str(exc)) from exc
    finally:
        warehouse.close()
    for line in problems:
        console.print(line, markup=False, highlight=False)
    if problems:
        raise typer.Exit(1)
    console.print("verified queries: OK")


@verified_app.command("import")
def import_tickets(
    file: Annotated[Path, typer.Argument(help="A tracker export: .csv or .json.")],
    catalog: CatalogDir = None,
    db: WarehouseUrl = None,
    today: Annotated[
        str | None, typer.Option(help="The date relative periods are read against (ISO).")
    ] = None,
) -> None:
    """Past tickets (question + SQL) into the review queue: each guarded, compiled, its
    parameters proposed; or refused with the reason."""
    from vitrina.query.verified.importer import Importer, ImportError_

    try:
        day = date.fromisoformat(today) if today else date.today()
    except ValueError as exc:
        raise _fail(f"--today {today!r} is not a date (YYYY-MM-DD)") from exc
    settings = _settings(db, catalog)
    warehouse = _warehouse(settings)
    importer = Importer(
        _bank(settings), _catalog(settings), warehouse, today=day, row_cap=settings.row_cap
    )
    try:
        outcomes = importer.run(file)
    except ImportError_ as exc:
        raise _fail(str(exc)) from exc
    finally:
        warehouse.close()
    table = Table(title=f"import of {file.name}")
    for col in ("ticket", "outcome", "entry / reason"):
        table.add_column(col)
    for o in outcomes:
        if o.accepted:
            params = ", ".join(o.params) or "no parameters"
            table.add_row(o.ticket, "review queue", f"{o.entry_id} ({params})")
        else:
            table.add_row(o.ticket, "refused", o.reason or "")
    console.print(table)
    accepted = sum(o.accepted for o in outcomes)
    console.print(
        f"{accepted} in the review queue (`vitrina verified accept ID --by NAME`), "
        f"{len(outcomes) - accepted} refused"
    )


def database_check(directory: Path, catalog: Catalog, warehouse: Warehouse) -> list[str]:
    """`vitrina catalog check --db` runs this too: the catalog folder's bank, if it has one."""
    from vitrina.query.verified.store import BANK_DIR, Bank

    bank = Bank(directory / BANK_DIR)
    if not bank.root.is_dir():
        return []
    return check_bank(bank, catalog, warehouse, warehouse.row_cap or 100_000)


def plug_in() -> None:
    """Wired by `vitrina.cli.build_app` with the catalog commands: `catalog check --db`
    also checks the catalog's verified queries."""
    from vitrina.catalog.commands import register_database_check

    register_database_check(database_check)


def register(app: typer.Typer) -> None:
    app.add_typer(verified_app, name="verified")
