"""Suggested follow-ups after an answer, from the catalog alone (no model): the metric by a
dimension of its table the answer did not use, and the previous / next period of the same
length. Each is a whole question the rules read, shown as a chip that sends it."""

from __future__ import annotations

import re
from datetime import date

from vitrina.catalog import Catalog
from vitrina.language.periods.calendar import add_months, labels, month_end
from vitrina.query.plan import PeriodRef, QueryPlan

MAX_DIMENSIONS = 2  # chips per answer: at most two dimensions and two periods
MAX_MONTHS = 120  # a period longer than ten years gets no neighbours


def _whole_months(period: PeriodRef) -> int | None:
    """The period's length in whole calendar months, or None when it is not whole months."""
    start, end = period.start, period.end
    if start.day != 1 or end != month_end(end.year, end.month):
        return None
    months = (end.year - start.year) * 12 + end.month - start.month + 1
    return months if 0 < months <= MAX_MONTHS else None


def _shifted(period: PeriodRef, months: int, step: int) -> tuple[str, str, date] | None:
    start = add_months(period.start, step * months)
    end_month = add_months(start, months - 1)
    end = month_end(end_month.year, end_month.month)
    ru, en = labels(start, end)
    return ru, en, start


def _period_words(ru: str, en: str, lang: str) -> str:
    return f"за {ru}" if lang == "ru" else f"in {en}"


def suggestions(plan: QueryPlan | None, catalog: Catalog, lang: str, today: date) -> list[str]:
    """Up to four follow-up questions for an answered plan; none without a catalog metric."""
    if plan is None or not plan.metrics or plan.metrics[0] not in catalog.metrics:
        return []
    metric = catalog.metrics[plan.metrics[0]]
    table = catalog.tables.get(metric.table)
    name = metric.name(lang)
    period = plan.period
    when = _period_words(period.label_ru, period.label_en, lang) if period else ""
    out: list[str] = []
    used = {d.column for d in plan.dimensions} | {f.column for f in plan.filters}
    # a column the metric's own filter reads (status = 'success') is no breakdown of that metric
    filtered = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", metric.filter or ""))
    for column in table.columns if table else []:
        if len(out) >= MAX_DIMENSIONS:
            break
        if (
            column.role.value != "dimension"
            or column.name in used
            or column.name in filtered
            or not (column.label_ru and column.label_en)
        ):
            continue
        by = f"в разрезе «{column.label_ru}»" if lang == "ru" else f"by {column.label_en.lower()}"
        out.append(" ".join(p for p in (name, by, when) if p))
    months = _whole_months(period) if period else None
    if period and months:
        dims = ""
        if plan.dimensions:
            d = plan.dimensions[0]
            dims = f"в разрезе «{d.label_ru}»" if lang == "ru" else f"by {d.label_en.lower()}"
        for step in (-1, 1):
            shifted = _shifted(period, months, step)
            if shifted is None or shifted[2] > today:  # no question about a period not begun
                continue
            out.append(
                " ".join(p for p in (name, dims, _period_words(shifted[0], shifted[1], lang)) if p)
            )
    return out
