"""The manager gate: a brief is checked before the coordinator opens any task.

A brief starts the team only when its KPIs are defined (each is a catalog metric), its
sources are known (each metric's table is in the catalog and in the warehouse), its limits
are stated or defaulted in the open (period, filters) and its expected result is clear (a
dashboard of at least one KPI). Otherwise the build stops before any work with the
questions for the requester (an interrupt: the requester answers by editing the brief and
running the build again). The gate asks at most `MAX_ROUNDS` times for one brief file;
after that it stops asking and hands the brief to a person.

>>> GateResult(questions=[]).passed
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from vitrina.catalog import Catalog
from vitrina.team.data.brief import Brief
from vitrina.team.data.contradictions import Span, contradictions
from vitrina.team.data.prose import prose_questions
from vitrina.team.data.scope import find_metric
from vitrina.trace import Trace
from vitrina.warehouse import Warehouse, WarehouseError

MAX_ROUNDS = 2


@dataclass
class GateResult:
    questions: list[str] = field(default_factory=list)  # each starts with its rule code
    notes: list[str] = field(default_factory=list)  # defaults the team will state

    @property
    def passed(self) -> bool:
        return not self.questions


def _t(lang: str, ru: str, en: str) -> str:
    return ru if lang == "ru" else en


def _day(value: Any) -> date:
    """A date as the warehouse returns it (SQLite: ISO text); ValueError when it is none."""
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    return date.fromisoformat(str(value)[:10])


def warehouse_span(warehouse: Warehouse, trace: Trace) -> Span:
    """The first and last date of a column in the warehouse (read once per column)."""
    held: dict[tuple[str, str], tuple[date, date] | None] = {}

    def span(table: str, column: str) -> tuple[date, date] | None:
        if (table, column) not in held:
            try:
                sql = f"SELECT MIN({column}), MAX({column}) FROM {table}"
                low, high = warehouse.execute(sql).rows[0]
                known = low is not None and high is not None
                held[(table, column)] = (_day(low), _day(high)) if known else None
            except (WarehouseError, TypeError, ValueError) as exc:
                trace.suppressed("gate: data range not read", table=table, error=str(exc))
                held[(table, column)] = None
        return held[(table, column)]

    return span


def check_brief(
    brief: Brief,
    catalog: Catalog,
    lang: str,
    tables: set[str] | None = None,
    *,
    today: date | None = None,
    span: Span | None = None,
) -> GateResult:
    """The gate's questions and notes for ``brief``; ``tables`` are the warehouse's (lowercase).
    With ``today`` the brief's contradictions are questions too (``span``: the data range)."""
    result = GateResult()
    if today is not None:  # [GATE-006] what the brief contradicts, with its line
        found = contradictions(brief, catalog, today, span)
        found += prose_questions(brief, catalog, today)  # [GATE-007] what its text asks more
        result.questions += [c.question(lang) for c in found]
    if not brief.kpis:
        result.questions.append(
            "[GATE-001] "
            + _t(
                lang,
                "В брифе нет ни одного KPI: какие показатели должен показать дашборд?",
                "The brief has no KPI: which measures must the dashboard show?",
            )
        )
    for request in brief.kpis:
        metric = find_metric(request, catalog)
        label = request.metric or request.name
        if metric is None:
            result.questions.append(
                "[BRIEF-001] "
                + _t(
                    lang,
                    f"KPI «{label}» не найден в каталоге: как он считается — какая таблица, "
                    "какое выражение (сумма или количество чего), какой фильтр?",
                    f"KPI «{label}» is not a metric of the catalog: how is it computed — which "
                    "table, which expression (a sum or a count of what), which filter?",
                )
            )
            continue
        table = metric.table.lower()
        known = table in {t.lower() for t in catalog.tables}
        reachable = tables is None or table in tables or table.split(".")[-1] in tables
        if not known or not reachable:
            result.questions.append(
                "[GATE-002] "
                + _t(
                    lang,
                    f"Источник KPI «{label}» — таблица {metric.table} — "
                    + ("не описан в каталоге" if not known else "не найден в хранилище")
                    + ": откуда брать данные?",
                    f"The source of KPI «{label}», the table {metric.table}, is "
                    + ("not in the catalog" if not known else "not in the warehouse")
                    + ": where do its data come from?",
                )
            )
    if not brief.period:
        result.notes.append(
            "[GATE-003] "
            + _t(
                lang,
                "период не указан: последние двенадцать полных месяцев (BRIEF-003)",
                "no period: the last twelve full months (BRIEF-003)",
            )
        )
    if not brief.audience:
        result.notes.append(
            "[GATE-004] "
            + _t(
                lang,
                "аудитория не указана: дашборд для аналитиков (BRIEF-004)",
                "no audience: a dashboard for analysts (BRIEF-004)",
            )
        )
    return result
