"""What a brief contradicts, found at the gate with the brief's line, before any task.

Filters that cannot hold at once (two values of the single-valued segment, two filters of
one column with nothing in common, a value the dictionary lacks), a period that cannot be
(its end before its start, or entirely outside the data of a KPI), a KPI that repeats
another (the same metric by id, name or synonym, with the same breakdown) and a breakdown
no join path reaches. Each is a question in the brief's language, starting with its code.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date

from vitrina.catalog import Catalog
from vitrina.language.periods import extract_period
from vitrina.team.data.brief import Brief, FilterRequest
from vitrina.team.data.scope import (
    EXPLICIT_RANGE,
    dictionary_value,
    filter_dictionary,
    find_breakdown,
    find_metric,
)

# (table, column) -> the first and last date the warehouse holds there, None when unknown
Span = Callable[[str, str], tuple[date, date] | None]


@dataclass(frozen=True)
class Contradiction:
    code: str
    line: int
    ru: str
    en: str

    def question(self, lang: str) -> str:
        where = (f"строка {self.line}: " if lang == "ru" else f"line {self.line}: ") * bool(
            self.line
        )
        return f"[{self.code}] {where}{self.ru if lang == 'ru' else self.en}"


def _d(day: date) -> str:
    return f"{day:%d.%m.%Y}"


def repeated_kpis(brief: Brief, catalog: Catalog) -> list[Contradiction]:
    """A KPI naming the metric of an earlier one with the same breakdown."""
    seen: dict[tuple[str, str], tuple[int, str]] = {}
    found = []
    for request in brief.kpis:
        metric = find_metric(request, catalog)
        if metric is None:
            continue
        wanted = request.by or brief.by or ""
        by = find_breakdown(wanted, catalog, metric) if wanted else None
        key = (metric.id, (by.grain or by.column or "") if by else wanted.strip().lower())
        if key in seen:
            line, label = seen[key]
            found.append(
                Contradiction(
                    "BRIEF-006",
                    request.line,
                    f"KPI «{request.label}» повторяет KPI «{label}» (строка {line}): это тот же "
                    f"показатель {metric.id} с тем же разрезом — удалите одну из строк или "
                    "задайте другой разрез (by)",
                    f"KPI «{request.label}» repeats KPI «{label}» (line {line}): the same metric "
                    f"{metric.id} with the same breakdown — remove one of them or give another "
                    "breakdown (by)",
                )
            )
        else:
            seen[key] = (request.line, request.label)
    return found


def unreachable_breakdowns(brief: Brief, catalog: Catalog) -> list[Contradiction]:
    """A breakdown that is no time grain and no dimension joined to the KPI's table."""
    found = []
    for request in brief.kpis:
        metric = find_metric(request, catalog)
        wanted = request.by or brief.by
        if metric is None or not wanted or catalog.metric_date(metric) is None:
            continue  # an unknown KPI is BRIEF-001's, an undated one BRIEF-007's
        if find_breakdown(wanted, catalog, metric) is None:
            line = request.line if request.by else brief.key_lines.get("by", request.line)
            found.append(
                Contradiction(
                    "BRIEF-002",
                    line,
                    f"KPI «{request.label}»: разрез «{wanted}» — не шаг времени и не измерение, "
                    f"связанное с таблицей {metric.table}: нет пути соединений; укажите "
                    "месяц, неделю, год или измерение каталога",
                    f"KPI «{request.label}»: the breakdown «{wanted}» is neither a time grain "
                    f"nor a dimension joined to {metric.table}: no join path; write month, "
                    "week, year or a dimension of the catalog",
                )
            )
    return found


def _unknown_filter(request: FilterRequest) -> Contradiction:
    return Contradiction(
        "BRIEF-005",
        request.line,
        f"фильтр «{request.dimension}»: в каталоге нет измерения со списком значений с таким "
        "именем; назовите колонку каталога со справочником",
        f"filter «{request.dimension}»: no dimension with a list of values has this name; "
        "name a catalog column that has a dictionary",
    )


def _resolved(
    request: FilterRequest, catalog: Catalog, found: list[Contradiction]
) -> tuple[str, set[str]] | None:
    """(column, dictionary values) of one filter; each unknown value is a contradiction."""
    resolved = filter_dictionary(request.dimension, catalog)
    if resolved is None:
        found.append(_unknown_filter(request))
        return None
    column, dictionary = resolved
    values = set()
    allowed = ", ".join(v.value for v in dictionary.values)
    for wanted in request.values:
        value = dictionary_value(wanted, dictionary)
        if value is None:
            found.append(
                Contradiction(
                    "BRIEF-005",
                    request.line,
                    f"фильтр «{request.dimension}» = «{wanted}»: такого значения нет в "
                    f"справочнике {column} (значения: {allowed})",
                    f"filter «{request.dimension}» = «{wanted}»: not a value of {column} "
                    f"(values: {allowed})",
                )
            )
        else:
            values.add(value)
    return column, values


def _single_valued(request: FilterRequest, column: str, values: set[str]) -> Contradiction:
    both = ", ".join(sorted(values))
    return Contradiction(
        "BRIEF-008",
        request.line,
        f"фильтр «{request.dimension}» требует сразу {both}: у строки бывает только одно "
        f"значение {column}, вместе они не дают ни одной строки — оставьте одно значение или "
        "уберите фильтр (все значения)",
        f"filter «{request.dimension}» asks for {both} at once: a row has one value of "
        f"{column}, together they match no row — keep one value or drop the filter (all)",
    )


def _disjoint(request: FilterRequest, column: str, earlier: tuple[int, set[str]], values):
    line, before = earlier
    return Contradiction(
        "BRIEF-008",
        request.line,
        f"фильтр «{request.dimension}» ({', '.join(sorted(values))}) противоречит фильтру "
        f"строки {line} ({', '.join(sorted(before))}) по той же колонке {column}: вместе они "
        "не оставляют ни одной строки — оставьте один фильтр",
        f"filter «{request.dimension}» ({', '.join(sorted(values))}) contradicts the filter of "
        f"line {line} ({', '.join(sorted(before))}) on the same column {column}: together "
        "they match no row — keep one filter",
    )


def contradictory_filters(brief: Brief, catalog: Catalog) -> list[Contradiction]:
    """Unknown values, two values of the single-valued segment, disjoint filters of a column."""
    found: list[Contradiction] = []
    seen: dict[str, tuple[int, set[str]]] = {}
    segment = (catalog.info.segment_column or "").lower()
    for request in brief.filters:
        resolved = _resolved(request, catalog, found)
        if resolved is None or not resolved[1]:
            continue
        column, values = resolved
        if column.lower() == segment and len(values) > 1:
            found.append(_single_valued(request, column, values))
        elif column in seen and not seen[column][1] & values:
            found.append(_disjoint(request, column, seen[column], values))
        seen.setdefault(column, (request.line, values))
    return found


def read_period(text: str, today: date) -> tuple[date, date] | None:
    """The brief's period as the scoping rules read it (an explicit range as written)."""
    explicit = EXPLICIT_RANGE.match(text)
    if explicit:
        return date.fromisoformat(explicit.group(1)), date.fromisoformat(explicit.group(2))
    found = extract_period(text, today)
    return (found.start, found.end) if found else None


def _outside(brief: Brief, catalog: Catalog, period, span: Span, line: int):
    found = []
    checked: set[tuple[str, str]] = set()
    for request in brief.kpis:
        metric = find_metric(request, catalog)
        dated = catalog.metric_date(metric) if metric else None
        if dated is None or (dated.table, dated.column) in checked:
            continue
        checked.add((dated.table, dated.column))
        held = span(dated.table, dated.column)
        if held is None or (period[1] >= held[0] and period[0] <= held[1]):
            continue
        found.append(
            Contradiction(
                "BRIEF-009",
                line,
                f"период «{brief.period}» ({_d(period[0])}–{_d(period[1])}) целиком вне данных "
                f"KPI «{request.label}»: в хранилище они есть с {_d(held[0])} по "
                f"{_d(held[1])} — укажите период внутри",
                f"the period «{brief.period}» ({period[0]} to {period[1]}) lies entirely "
                f"outside the data of KPI «{request.label}»: the warehouse holds {held[0]} to "
                f"{held[1]} — give a period inside it",
            )
        )
    return found


def impossible_period(
    brief: Brief, catalog: Catalog, today: date, span: Span | None = None
) -> list[Contradiction]:
    """A period that does not read, ends before it starts, or misses the KPIs' data."""
    if not brief.period:
        return []
    line = brief.key_lines.get("period", 0)
    period = read_period(brief.period, today)
    if period is None:
        return [
            Contradiction(
                "BRIEF-003",
                line,
                f"период «{brief.period}» не читается: напишите, например, «2025 год», "
                "«III квартал 2026», «последние 12 месяцев» или 2025-01-01..2025-12-31",
                f"the period «{brief.period}» does not read: write e.g. '2025', 'Q3 2026', "
                "'last 12 months' or 2025-01-01..2025-12-31",
            )
        ]
    if period[1] < period[0]:
        return [
            Contradiction(
                "BRIEF-009",
                line,
                f"период «{brief.period}»: конец ({_d(period[1])}) раньше начала "
                f"({_d(period[0])}) — поменяйте даты местами",
                f"the period «{brief.period}» ends ({period[1]}) before it starts "
                f"({period[0]}) — swap the dates",
            )
        ]
    return _outside(brief, catalog, period, span, line) if span else []


def contradictions(
    brief: Brief, catalog: Catalog, today: date, span: Span | None = None
) -> list[Contradiction]:
    """Every contradiction of the brief, in the order of the checks."""
    return [
        *repeated_kpis(brief, catalog),
        *unreachable_breakdowns(brief, catalog),
        *contradictory_filters(brief, catalog),
        *impossible_period(brief, catalog, today, span),
    ]
