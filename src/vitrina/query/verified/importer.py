"""Past tickets into the review queue: a tracker's export (CSV or JSON) of questions with
the SQL an analyst wrote.

Each ticket is guarded (the catalog's allow-lists, one SELECT), compiled against the
warehouse (EXPLAIN), and its parameters proposed: the literals its own question names
(its period's bounds, its dictionary values, its top N) become placeholders
(`params.lift`). An accepted ticket waits in ``verified/pending/`` until a person accepts
it (`vitrina verified accept`); a refused one is reported with the reason. Nothing here
answers a question until then.
"""

from __future__ import annotations

import csv
import json
import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vitrina.language.detect import detect_lang
from vitrina.query.run import compile_step
from vitrina.query.verified.check import fingerprint, guard_entry
from vitrina.query.verified.match import bind_question, read_params
from vitrina.query.verified.model import Entry, ParamError
from vitrina.query.verified.params import lift
from vitrina.query.verified.texts import Bilingual
from vitrina.trace import Trace

if TYPE_CHECKING:
    from vitrina.catalog import Catalog
    from vitrina.query.verified.store import Bank
    from vitrina.warehouse import Warehouse

MAX_TICKETS = 5000  # tickets read from one file
MAX_SQL = 20_000
ID_KEYS = ("id", "key", "ticket", "issue")
QUESTION_KEYS = ("question", "summary", "title", "вопрос")
SQL_KEYS = ("sql", "query", "запрос")
AUTHOR_KEYS = ("author", "assignee", "analyst", "автор")


class ImportError_(Bilingual):
    """The export file cannot be read at all (not a ticket of it): file and what to do."""


@dataclass(frozen=True)
class Outcome:
    """One ticket: in the review queue (`entry_id`) or refused (`reason`)."""

    ticket: str
    entry_id: str | None = None
    reason: str | None = None  # English
    params: tuple[str, ...] = ()
    reason_ru: str | None = None

    @property
    def accepted(self) -> bool:
        return self.entry_id is not None

    def said(self, lang: str) -> str:
        """Why it was refused, in `lang` (ru, else English)."""
        return (self.reason_ru if lang == "ru" else None) or self.reason or ""


def refused(ticket: str, en: str, ru: str) -> Outcome:
    return Outcome(ticket, reason=en, reason_ru=ru)


def question_of(row: dict[str, Any]) -> str:
    """A ticket's question text (the first of QUESTION_KEYS it has)."""
    return _field(row, QUESTION_KEYS)


def _field(row: dict[str, Any], keys: tuple[str, ...]) -> str:
    lowered = {str(k).strip().lower(): v for k, v in row.items()}
    for key in keys:
        value = lowered.get(key)
        if value not in (None, ""):
            return str(value).strip()
    return ""


def read_tickets(path: Path) -> list[dict[str, Any]]:
    """The rows of a CSV (a header row) or JSON (a list, or {"tickets"|"issues": [...]})."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise ImportError_(
            f"{path}: cannot read the file ({exc})", f"{path}: файл не читается ({exc})"
        ) from exc
    if path.suffix.lower() == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ImportError_(
                f"{path}: not JSON ({exc}); export the tickets as JSON or CSV",
                f"{path}: не JSON ({exc}); выгрузите тикеты в JSON или CSV",
            ) from exc
        if isinstance(data, dict):
            data = data.get("tickets") or data.get("issues") or []
        if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
            raise ImportError_(
                f"{path}: expected a list of tickets (objects)",
                f"{path}: ожидался список тикетов (объектов)",
            )
        return data[:MAX_TICKETS]
    if path.suffix.lower() == ".csv":
        rows = list(csv.DictReader(text.splitlines()))
        return rows[:MAX_TICKETS]
    raise ImportError_(
        f"{path}: a tracker export is .csv or .json", f"{path}: выгрузка трекера — .csv или .json"
    )


def entry_id(ticket: str) -> str:
    """A file-safe entry id from a ticket id ("DATA-12" -> "ticket-data-12")."""
    return "ticket-" + (re.sub(r"[^a-z0-9_-]+", "-", ticket.lower()).strip("-")[:60] or "x")


def _periods_used(lifted: list[str], periods: int, fixed: list[str]) -> tuple[str, str] | None:
    """Why the lifted SQL does not take the question's periods whole, if it does not: each
    period needs its start and its end (or the day after) as date bounds."""
    for n in range(1, periods + 1):
        prefix = "period" if n == 1 else "period2"
        start = f"{prefix}_start" in lifted
        end = f"{prefix}_end" in lifted or f"{prefix}_until" in lifted
        if not (start and end):
            kept = f" (dates in the SQL: {', '.join(fixed)})" if fixed else ""
            kept_ru = f" (даты в SQL: {', '.join(fixed)})" if fixed else ""
            missing = "start" if not start else "end"
            missing_ru = "началу" if not start else "концу"
            return (
                f"the question names a period (#{n}) but the SQL has no date bound equal to "
                f"its {missing}{kept}: check the bounds, or write them as dates (a year as "
                "text or a function of the date is not lifted)",
                f"в вопросе назван период (№{n}), но в SQL нет границы-даты, равной его "
                f"{missing_ru}{kept_ru}: проверьте границы или запишите их датами (год "
                "текстом или функция от даты не распознаются)",
            )
    return None


class Importer:
    """Tickets -> pending entries of one bank, checked against one warehouse."""

    def __init__(
        self, bank: Bank, catalog: Catalog, warehouse: Warehouse, *, today: date, row_cap: int
    ) -> None:
        self.bank, self.catalog, self.warehouse = bank, catalog, warehouse
        self.today, self.row_cap = today, row_cap
        self.seen: set[str] = set()

    def _early(self, ticket: str, question: str, sql: str) -> Outcome | None:
        """A ticket refused before its SQL is read: nothing to read, or read already."""
        if not question:
            return refused(
                ticket,
                "no question text (columns question/summary/title)",
                "нет текста вопроса (столбцы question/summary/title)",
            )
        if not sql:
            return refused(ticket, "no SQL (column sql/query)", "нет SQL (столбец sql/query)")
        if len(sql) > MAX_SQL:
            return refused(
                ticket, f"SQL longer than {MAX_SQL} characters", f"SQL длиннее {MAX_SQL} символов"
            )
        eid = entry_id(ticket)
        if eid in self.seen:
            return refused(
                ticket,
                "the same ticket id twice in the file",
                "один и тот же номер тикета в файле дважды",
            )
        self.seen.add(eid)
        if "{{" in sql:
            return refused(
                ticket,
                "placeholders in a ticket's SQL: add it with `verified add`",
                "плейсхолдеры в SQL тикета: добавьте его через `verified add`",
            )
        return None

    def one(self, row: dict[str, Any], n: int) -> Outcome:
        """One ticket through the checks (see the module docstring)."""
        ticket = _field(row, ID_KEYS) or f"row-{n}"
        question, sql = _field(row, QUESTION_KEYS), _field(row, SQL_KEYS)
        early = self._early(ticket, question, sql)
        if early is not None:
            return early
        asked = read_params(question, self.catalog, self.today)
        try:
            lifted = lift(sql, asked, self.warehouse.dialect)
        except ParamError as exc:
            return refused(
                ticket,
                f"SQL does not parse: {exc.message_en}",
                f"SQL не разбирается: {exc.message_ru}",
            )
        lang = detect_lang(question)
        base = Entry(
            id=entry_id(ticket),
            wordings_en=[question] if lang == "en" else [],
            wordings_ru=[question] if lang == "ru" else [],
            sql=lifted.sql,
            source=ticket,
            note=_field(row, AUTHOR_KEYS) and f"SQL by {_field(row, AUTHOR_KEYS)}",
        )
        return self._checked(base, asked, lifted.fixed, ticket)

    def _checked(self, entry: Entry, asked: Any, fixed: list[str], ticket: str) -> Outcome:
        guarded = guard_entry(entry, self.catalog, self.warehouse.dialect, self.row_cap)
        if guarded.reason:
            return refused(
                ticket,
                f"refused by the guard: {guarded.reason}",
                f"отклонено проверкой безопасности SQL: {guarded.reason}",
            )
        failed = compile_step(guarded.sql, self.warehouse, Trace("verified import"))
        if failed is not None:
            first = str(failed).splitlines()[0]
            return refused(ticket, f"does not compile: {first}", f"не компилируется: {first}")
        names = [p.name for p in entry.params]
        why = _periods_used(names, len(asked.periods), fixed)
        if why is None and len(asked.periods) > 2:
            why = ("the question names more than two periods", "в вопросе больше двух периодов")
        if why is None and bind_question(entry, asked) is None:
            why = (
                "the question's top N is not the SQL's LIMIT",
                "топ N вопроса не совпадает с LIMIT в SQL",
            )
        if why:
            return refused(ticket, *why)
        fp = fingerprint(guarded.sql, guarded.tables, self.catalog, self.warehouse.dialect)
        note = "; ".join(
            x
            for x in (
                entry.note,
                f"parameters proposed: {', '.join(names) or 'none'}",
                f"dates kept as written: {', '.join(fixed)}" if fixed else "",
            )
            if x
        )
        self.bank.save(entry.model_copy(update={"fingerprint": fp, "note": note}), pending=True)
        return Outcome(ticket, entry.id, params=tuple(names))

    def run(self, path: Path) -> list[Outcome]:
        """Every ticket of the export, each accepted into the review queue or refused."""
        return [self.one(row, n) for n, row in enumerate(read_tickets(path), start=1)]
