"""CLI: `vitrina verified add|list|check|remove|import|accept`: the bank of verified queries.

The bank is ``verified/`` in the catalog folder (`--catalog`; the demo catalog's is under
VITRINA_HOME). Adding runs the query with its own wording's values (guard, EXPLAIN,
checks) and shows the result before the entry is kept; an import only fills the review
queue; `accept` is the person's word that makes an entry answer.

Messages are in English or Russian (decision 198): `--lang`, else the language of what the
command was given (`add`: the first wording; `import`: most tickets' questions), else English.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from vitrina.cli_options import CatalogDir, WarehouseUrl
from vitrina.query.verified.texts import Bilingual, pick

if TYPE_CHECKING:
    from vitrina.catalog import Catalog
    from vitrina.config import Settings
    from vitrina.query.verified.importer import Outcome
    from vitrina.query.verified.store import Bank
    from vitrina.warehouse import Warehouse

console = Console()
err = Console(stderr=True)
verified_app = typer.Typer(
    help="The bank of verified queries: questions an analyst checked, answered again with "
    "new periods and values.",
    no_args_is_help=True,
)


def _check_lang(value: str | None) -> str | None:
    if value is not None and value not in ("ru", "en"):
        raise typer.BadParameter("use ru or en / укажите ru или en")
    return value


Lang = Annotated[
    str | None,
    typer.Option(
        "--lang",
        help="Language of the messages: ru or en (default: that of the wording or the "
        "tickets, else en).",
        callback=_check_lang,
    ),
]


def _fail(message: str | Bilingual, lang: str = "en") -> typer.Exit:
    """Exit 2 with the message in `lang` (no traceback: a user's mistake)."""
    from rich.markup import escape

    said = message.text(lang) if isinstance(message, Bilingual) else message
    prefix = pick(lang, "error:", "ошибка:")  # the message is text: [a-z] is not markup
    err.print(f"[red]{prefix}[/] {escape(said)}", markup=True, highlight=False, soft_wrap=True)
    return typer.Exit(2)


def _settings(db: str | None, catalog: Path | None, lang: str = "en") -> Settings:
    from vitrina.config import load_settings

    if catalog is not None and not catalog.is_dir():
        raise _fail(
            Bilingual(
                f"catalog folder not found: {catalog}", f"папка каталога не найдена: {catalog}"
            ),
            lang,
        )
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
    lang: Lang = None,
) -> None:
    """The entries of the bank (or of the review queue) with who verified them."""
    from vitrina.query.verified.store import BankError

    lang = lang or "en"
    bank = _bank(_settings(None, catalog, lang))
    folder = bank.pending_root if pending else bank.root
    title = (
        pick(lang, "review queue", "очередь на проверку")
        if pending
        else pick(lang, "verified queries", "проверенные запросы")
    )
    table = Table(title=f"{title}: {folder}")
    cols = (("status", "статус"), ("verified by", "проверил"), ("parameters", "параметры"))
    for col in (
        "id",
        *(pick(lang, *c) for c in cols),
        pick(lang, "wording / note", "формулировка / примечание"),
    ):
        table.add_column(col)
    for path in sorted(folder.glob("*.yaml")) if folder.is_dir() else []:
        from vitrina.query.verified.store import read_entry

        try:
            e = read_entry(path)
        except BankError as exc:
            broken = pick(lang, "broken", "повреждён")
            table.add_row(path.stem, f"[red]{broken}[/]", "", "", exc.text(lang))
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
    lang: Lang = None,
) -> None:
    """Add a verified query: run with its first wording's values (guard, EXPLAIN, checks),
    shown, then kept. Literals the wording names become placeholders unless the SQL has some."""
    from vitrina.language.detect import detect_lang
    from vitrina.query.verified.authoring import AddError, add_entry

    lang = lang or (detect_lang(question[0]) if question else "en")
    settings = _settings(db, catalog, lang)
    text = _sql_text(sql, lang)
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
        raise _fail(exc, lang) from exc
    finally:
        warehouse.close()
    params = ", ".join(p.name for p in entry.params) or "-"
    console.print(
        pick(
            lang,
            f"added {entry.id}: parameters {params}",
            f"добавлена запись {entry.id}: параметры {params}",
        )
    )
    console.print(entry.sql, markup=False, highlight=False)
    if checked.result is not None:
        n = checked.result.row_count
        console.print(
            pick(
                lang,
                f"{n} rows with the wording's values",
                f"строк со значениями формулировки: {n}",
            )
        )


def _sql_text(sql: str, lang: str) -> str:
    """The SQL given, or read from @FILE (a missing file: its name and what to do)."""
    if not sql.startswith("@"):
        return sql
    path = Path(sql[1:])
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise _fail(
            Bilingual(
                f"--sql {sql}: cannot read the file ({exc}); give the SQL or @FILE",
                f"--sql {sql}: файл не читается ({exc}); укажите SQL или @ФАЙЛ",
            ),
            lang,
        ) from exc


@verified_app.command("remove")
def remove(
    entry_id: Annotated[str, typer.Argument(help="The entry's id.")],
    catalog: CatalogDir = None,
    pending: Annotated[bool, typer.Option(help="Remove from the review queue.")] = False,
    lang: Lang = None,
) -> None:
    """Remove an entry from the bank (or the review queue)."""
    from vitrina.query.verified.store import BankError

    lang = lang or "en"
    try:
        path = _bank(_settings(None, catalog, lang)).remove(entry_id, pending=pending)
    except BankError as exc:
        raise _fail(exc, lang) from exc
    console.print(pick(lang, f"removed {path}", f"удалено: {path}"))


@verified_app.command("accept")
def accept(
    entry_id: Annotated[str, typer.Argument(help="The id of an entry in the review queue.")],
    by: Annotated[str, typer.Option("--by", help="Who verified it.")],
    catalog: CatalogDir = None,
    lang: Lang = None,
) -> None:
    """Accept an entry of the review queue: it joins the bank and may answer."""
    from vitrina.query.verified.store import BankError

    lang = lang or "en"
    try:
        entry = _bank(_settings(None, catalog, lang)).accept(entry_id, by, date.today())
    except BankError as exc:
        raise _fail(exc, lang) from exc
    except ValueError as exc:  # the entry does not validate as verified (e.g. --by "")
        raise _fail(
            Bilingual(f"{entry_id}: {exc}", f"{entry_id}: запись некорректна: {exc}"), lang
        ) from exc
    console.print(
        pick(
            lang,
            f"accepted {entry.id} (verified by {by})",
            f"принята запись {entry.id} (проверил {by})",
        )
    )


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
def check(catalog: CatalogDir = None, db: WarehouseUrl = None, lang: Lang = None) -> None:
    """Recompile every entry against the warehouse (EXPLAIN, nothing runs); a stale entry
    (a table or column changed) is marked and never used. Exit 1 when any is stale."""
    from vitrina.query.verified.store import BankError

    lang = lang or "en"
    settings = _settings(db, catalog, lang)
    warehouse = _warehouse(settings)
    try:
        problems = check_bank(_bank(settings), _catalog(settings), warehouse, settings.row_cap)
    except BankError as exc:
        raise _fail(exc, lang) from exc
    finally:
        warehouse.close()
    for line in problems:
        console.print(line, markup=False, highlight=False)
    if problems:
        raise typer.Exit(1)
    console.print(pick(lang, "verified queries: OK", "проверенные запросы: в порядке"))


@verified_app.command("import")
def import_tickets(
    file: Annotated[Path, typer.Argument(help="A tracker export: .csv or .json.")],
    catalog: CatalogDir = None,
    db: WarehouseUrl = None,
    today: Annotated[
        str | None, typer.Option(help="The date relative periods are read against (ISO).")
    ] = None,
    lang: Lang = None,
) -> None:
    """Past tickets (question + SQL) into the review queue: each guarded, compiled, its
    parameters proposed; or refused with the reason."""
    from vitrina.query.verified.importer import Importer, ImportError_, read_tickets

    try:  # checked before the file is read: a wrong option is said first
        day = date.fromisoformat(today) if today else date.today()
    except ValueError as exc:
        raise _fail(
            Bilingual(
                f"--today {today!r} is not a date (YYYY-MM-DD)",
                f"--today {today!r} — не дата (ГГГГ-ММ-ДД)",
            ),
            lang or "en",
        ) from exc
    try:
        rows = read_tickets(file)
    except ImportError_ as exc:
        raise _fail(exc, lang or "en") from exc
    lang = lang or tickets_lang(rows)
    settings = _settings(db, catalog, lang)
    warehouse = _warehouse(settings)
    importer = Importer(
        _bank(settings), _catalog(settings), warehouse, today=day, row_cap=settings.row_cap
    )
    try:
        outcomes = [importer.one(row, n) for n, row in enumerate(rows, start=1)]
    finally:
        warehouse.close()
    _import_table(file, outcomes, lang)


def tickets_lang(rows: list[dict[str, Any]]) -> str:
    """The language most tickets' questions are in (ru or en)."""
    from vitrina.language.detect import detect_lang
    from vitrina.query.verified.importer import question_of

    said = [detect_lang(q) for row in rows[:200] if (q := question_of(row))]
    return "ru" if said and said.count("ru") * 2 > len(said) else "en"


def _import_table(file: Path, outcomes: list[Outcome], lang: str) -> None:
    table = Table(title=pick(lang, f"import of {file.name}", f"импорт {file.name}"))
    for col in (("ticket", "тикет"), ("outcome", "итог"), ("entry / reason", "запись / причина")):
        table.add_column(pick(lang, *col))
    queue, no = pick(lang, "review queue", "на проверку"), pick(lang, "refused", "отклонён")
    for o in outcomes:
        if o.accepted:
            params = ", ".join(o.params) or pick(lang, "no parameters", "без параметров")
            table.add_row(o.ticket, queue, f"{o.entry_id} ({params})")
        else:
            table.add_row(o.ticket, no, o.said(lang))
    console.print(table)
    accepted = sum(o.accepted for o in outcomes)
    console.print(
        pick(
            lang,
            f"{accepted} in the review queue (`vitrina verified accept ID --by NAME`), "
            f"{len(outcomes) - accepted} refused",
            f"{accepted} в очереди на проверку (`vitrina verified accept ID --by ИМЯ`), "
            f"{len(outcomes) - accepted} отклонено",
        )
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
