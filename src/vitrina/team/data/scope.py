"""The scoping rules: a brief read against the catalog, with everything missing flagged.

Every KPI becomes a catalog metric (by id, name or synonym), every breakdown a time grain
or a dimension column reachable by many-to-one joins, every filter a dictionary value.
What cannot be resolved blocks the build with a question for the requester; what is only
absent (period, audience, language) gets a stated default. Flags cite the codes of the
``defining-metrics`` skill.
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import Literal

from pydantic import BaseModel, Field

from vitrina.catalog import Catalog
from vitrina.catalog.model import ColumnRole, Dictionary, Metric
from vitrina.language.detect import detect_lang
from vitrina.language.periods import extract_grain, extract_period
from vitrina.language.periods.grain import BREAKDOWN_WORDS
from vitrina.language.text import normalize, phrase_stems, stem_matches
from vitrina.team.data.brief import Brief, KpiRequest

GRAIN_STEMS = {
    "day": ("day", "daily", "ден", "дн", "сут"),
    "week": ("week", "недел"),
    "month": ("month", "месяц", "месячн"),
    "quarter": ("quarter", "квартал"),
    "year": ("year", "annual", "год", "лет"),
}
EXPLICIT_RANGE = re.compile(
    r"^\s*(\d{4}-\d{2}-\d{2})\s*(?:\.\.|—|–|to|по)\s*(\d{4}-\d{2}-\d{2})\s*$"
)
Severity = Literal["blocking", "warning", "info"]


class Flag(BaseModel):
    code: str
    severity: Severity
    message: str
    line: int = 0


class Breakdown(BaseModel):
    kind: Literal["grain", "dimension"]
    grain: str | None = None
    column: str | None = None  # table.column
    phrase: str = ""  # the catalog's own words for it (what the planner reads)
    label_ru: str
    label_en: str


class ScopeFilter(BaseModel):
    column: str  # table.column
    values: list[str]
    phrase: str  # the dictionary values as the planner reads them
    label_ru: str
    label_en: str


class ScopePeriod(BaseModel):
    start: date
    end: date
    label_ru: str
    label_en: str
    source: Literal["brief", "default"]


class ScopeKpi(BaseModel):
    id: str
    metric: str
    name_ru: str
    name_en: str
    title: str  # the requester's words, or the metric's name in the dashboard's language
    description: str = ""
    table: str
    format: str
    unit: str | None = None
    additive: bool
    date_column: str | None = None
    date_table: str | None = None  # the table of date_column when not the metric's (a join)
    by: Breakdown | None = None
    filters: list[str] = Field(
        default_factory=list
    )  # the scope filters (table.column) this KPI takes


class Scope(BaseModel):
    title: str
    language: Literal["ru", "en"]
    audience: str
    period: ScopePeriod
    kpis: list[ScopeKpi] = Field(default_factory=list)
    filters: list[ScopeFilter] = Field(default_factory=list)
    flags: list[Flag] = Field(default_factory=list)

    @property
    def blocking(self) -> list[Flag]:
        return [f for f in self.flags if f.severity == "blocking"]


def _fold(text: str) -> str:
    return normalize(text).strip()


def _stems_cover(words: str, synonym: str) -> bool:
    """Every word of ``words`` matches the stems of ``synonym`` in order (same length)."""
    stems, tokens = phrase_stems(synonym), phrase_stems(words)
    return (
        bool(stems)
        and len(stems) == len(tokens)
        and all(stem_matches(s, t) for s, t in zip(stems, tokens, strict=True))
    )


def _named(text: str, names: list[str], synonyms: list[str]) -> bool:
    """``text`` is one of the names (folded), or a synonym's stems cover its words."""
    folded = _fold(text)
    return folded in {_fold(n) for n in names} or any(_stems_cover(folded, s) for s in synonyms)


def find_metric(request: KpiRequest, catalog: Catalog) -> Metric | None:
    """The catalog metric a KPI names: id, then name, then a synonym covering its words."""
    if request.metric:
        return catalog.metrics.get(request.metric.strip())
    name = _fold(request.name)
    for metric in catalog.metrics.values():
        if name in (metric.id, _fold(metric.name_ru), _fold(metric.name_en)):
            return metric
    hits = {m.id for m in catalog.metrics.values() for syn in m.synonyms if _stems_cover(name, syn)}
    return catalog.metrics[hits.pop()] if len(hits) == 1 else None


def _grain(text: str) -> str | None:
    found = extract_grain(normalize(text))
    if found:
        return str(found)
    tokens = phrase_stems(text)
    for grain, stems in GRAIN_STEMS.items():
        if len(tokens) <= 2 and any(stem_matches(s, t) for s in stems for t in tokens):
            return grain
    return None


def find_breakdown(text: str, catalog: Catalog, metric: Metric) -> Breakdown | None:
    """A time grain, or the nearest dimension column named by ``text`` (id, label, synonym)."""
    grain = _grain(text)
    if grain:
        if catalog.metric_date(metric) is None:  # ask's reading: own, joined or named dates
            return None
        ru, en = BREAKDOWN_WORDS[grain]
        return Breakdown(kind="grain", grain=grain, label_ru=ru, label_en=en)
    folded = _fold(text)
    best: tuple[int, str, str] | None = None
    for table in catalog.tables.values():
        for col in table.columns:
            if col.role is not ColumnRole.DIMENSION or not col.synonyms:
                continue
            names = {
                col.name,
                f"{table.name}.{col.name}",
                _fold(col.label("ru")),
                _fold(col.label("en")),
            }
            synonym = next((s for s in col.synonyms if _stems_cover(folded, s)), None)
            if folded not in names and synonym is None:
                continue
            path = catalog.join_path(metric.table, table.name)
            if path is None:
                continue
            if best is None or len(path) < best[0]:
                best = (len(path), f"{table.name}.{col.name}", synonym or col.synonyms[0])
    if best is None:
        return None
    column = catalog.column(best[1])
    assert column is not None
    return Breakdown(
        kind="dimension",
        column=best[1],
        phrase=best[2],
        label_ru=f"в разрезе «{column.label('ru')}»",
        label_en=f"by {column.label('en').lower()}",
    )


def _period(brief: Brief, today: date, flags: list[Flag]) -> ScopePeriod:
    if brief.period:
        explicit = EXPLICIT_RANGE.match(brief.period)
        if explicit:
            start, end = (
                date.fromisoformat(explicit.group(1)),
                date.fromisoformat(explicit.group(2)),
            )
            if end >= start:
                label_ru = f"{start:%d.%m.%Y}–{end:%d.%m.%Y}"
                return ScopePeriod(
                    start=start,
                    end=end,
                    label_ru=label_ru,
                    label_en=f"{start} to {end}",
                    source="brief",
                )
        found = extract_period(brief.period, today)
        if found is not None:
            return ScopePeriod(
                start=found.start,
                end=found.end,
                label_ru=found.label_ru,
                label_en=found.label_en,
                source="brief",
            )
        flags.append(
            Flag(
                code="BRIEF-003",
                severity="blocking",
                message=f"the period '{brief.period}' is not a period the rules read: write e.g. "
                "'2025 год', 'III квартал 2026', 'last 12 months' or 2025-01-01..2025-12-31",
            )
        )
    end = today.replace(day=1) - timedelta(days=1)
    start = date(end.year - 1, end.month, 1) + timedelta(days=32)
    start = start.replace(day=1)
    period = ScopePeriod(
        start=start,
        end=end,
        label_ru=f"{start:%d.%m.%Y}–{end:%d.%m.%Y}",
        label_en=f"{start} to {end}",
        source="default",
    )
    if not brief.period:
        flags.append(
            Flag(
                code="BRIEF-003",
                severity="warning",
                message=f"no period in the brief: the last twelve full months are used "
                f"({period.label_en})",
            )
        )
    return period


def filter_dictionary(dimension: str, catalog: Catalog) -> tuple[str, Dictionary] | None:
    """The dimension column a filter names (label, name or synonym) that has a dictionary."""
    columns = [
        f"{t.name}.{c.name}"
        for t in catalog.tables.values()
        for c in t.columns
        if c.role is ColumnRole.DIMENSION
        and _named(dimension, [c.name, c.label("ru"), c.label("en")], c.synonyms)
    ]
    for column in columns:
        dictionary = catalog.dictionary_for(*column.rsplit(".", 1))
        if dictionary is not None:
            return column, dictionary
    return None


def dictionary_value(wanted: str, dictionary: Dictionary) -> str | None:
    """The dictionary value a filter value names (the value or one of its synonyms)."""
    return next(
        (v.value for v in dictionary.values if _named(wanted, [v.value, *v.synonyms], v.synonyms)),
        None,
    )


def _filters(brief: Brief, catalog: Catalog, flags: list[Flag]) -> list[ScopeFilter]:
    out: list[ScopeFilter] = []
    for request in brief.filters:
        found = filter_dictionary(request.dimension, catalog)
        if found is None:
            flags.append(
                Flag(
                    code="BRIEF-005",
                    severity="blocking",
                    line=request.line,
                    message=f"filter on '{request.dimension}': no dimension with a list of "
                    "values has this name; name a catalog column that has a dictionary",
                )
            )
            continue
        column, dictionary = found
        values: list[str] = []
        for wanted in request.values:
            value = dictionary_value(wanted, dictionary)
            if value is None:
                allowed = ", ".join(v.value for v in dictionary.values)
                flags.append(
                    Flag(
                        code="BRIEF-005",
                        severity="blocking",
                        line=request.line,
                        message=f"filter {request.dimension} = '{wanted}': not a value of {column} "
                        f"(values: {allowed})",
                    )
                )
            elif value not in values:
                values.append(value)
        earlier = next((f for f in out if f.column == column), None)
        if earlier is not None:  # two filters of one column hold together: their intersection
            kept = [v for v in earlier.values if v in values] or earlier.values
            earlier.values, earlier.phrase = kept, " ".join(kept)
        elif values:
            col = catalog.column(column)
            assert col is not None
            out.append(
                ScopeFilter(
                    column=column,
                    values=values,
                    phrase=" ".join(values),
                    label_ru=col.label("ru"),
                    label_en=col.label("en"),
                )
            )
    return out


def _kpi_id(metric: Metric, by: Breakdown | None, taken: set[str]) -> str:
    base = metric.id if by is None else f"{metric.id}_by_{by.grain or by.column.rsplit('.', 1)[1]}"
    kpi_id, n = base, 2
    while kpi_id in taken:
        kpi_id, n = f"{base}_{n}", n + 1
    return kpi_id


def resolve_scope(brief: Brief, catalog: Catalog, *, today: date) -> Scope:
    """The scope of a brief, with every flag the scoping rules raise."""
    flags: list[Flag] = []
    language = brief.language or ("ru" if detect_lang(brief.title) == "ru" else "en")
    if not brief.language:
        flags.append(
            Flag(
                code="BRIEF-004",
                severity="info",
                message=f"no language in the brief: the dashboard is in '{language}' (the title's)",
            )
        )
    audience = brief.audience or ("аналитики" if language == "ru" else "analysts")
    if not brief.audience:
        flags.append(
            Flag(
                code="BRIEF-004",
                severity="warning",
                message=f"no audience in the brief: written for {audience}",
            )
        )
    if not brief.kpis:
        flags.append(
            Flag(
                code="BRIEF-001",
                severity="blocking",
                message="the brief names no KPI: list at least one under 'kpis'",
            )
        )
    period = _period(brief, today, flags)
    kpis: list[ScopeKpi] = []
    seen: set[tuple[str, str]] = set()
    for request in brief.kpis:
        metric = find_metric(request, catalog)
        if metric is None:
            known = ", ".join(m.name(language) for m in catalog.metrics.values())
            flags.append(
                Flag(
                    code="BRIEF-001",
                    severity="blocking",
                    line=request.line,
                    message=f"KPI '{request.label}' is not a metric of the catalog: give its "
                    "definition "
                    f"(table, expression, filter) or pick a known metric ({known})",
                )
            )
            continue
        dated = catalog.metric_date(metric)  # the date ask uses: own table or through a join
        if dated is None:
            flags.append(
                Flag(
                    code="BRIEF-007",
                    severity="blocking",
                    line=request.line,
                    message=f"KPI '{request.label}' ({metric.id}) has no date in the catalog: "
                    "the period cannot apply to it; drop the KPI or give the metric a "
                    "date_column (a column of its table, or table.column reachable by joins) "
                    "or dates",
                )
            )
            continue
        wanted = request.by or brief.by
        by = find_breakdown(wanted, catalog, metric) if wanted else None
        if wanted and by is None:
            flags.append(
                Flag(
                    code="BRIEF-002",
                    severity="blocking",
                    line=request.line,
                    message=f"KPI '{request.label}': '{wanted}' is neither a time grain nor a "
                    "dimension "
                    f"reachable from {metric.table}",
                )
            )
            continue
        key = (metric.id, by.model_dump_json() if by else "")
        if key in seen:
            flags.append(
                Flag(
                    code="BRIEF-006",
                    severity="info",
                    line=request.line,
                    message=f"KPI '{request.label}' is listed twice: kept once",
                )
            )
            continue
        seen.add(key)
        kpis.append(
            ScopeKpi(
                id=_kpi_id(metric, by, {k.id for k in kpis}),
                metric=metric.id,
                name_ru=metric.name_ru,
                name_en=metric.name_en,
                title=request.title or request.name or metric.name(language),
                description=request.description or metric.description,
                table=metric.table,
                format=metric.format,
                unit=metric.unit,
                additive=metric.additive,
                date_column=dated.column,
                date_table=dated.table if dated.table != metric.table else None,
                by=by,
            )
        )
    filters = _filters(brief, catalog, flags)
    for kpi in kpis:
        for flt in filters:
            if catalog.join_path(kpi.table, flt.column.rsplit(".", 1)[0]) is not None:
                kpi.filters.append(flt.column)
            else:
                flags.append(
                    Flag(
                        code="BRIEF-005",
                        severity="warning",
                        message=f"filter {flt.label_en} does not apply to KPI '{kpi.title}': "
                        f"{flt.column} is not reachable from {kpi.table}",
                    )
                )
    return Scope(
        title=brief.title,
        language=language,
        audience=audience,
        period=period,
        kpis=kpis,
        filters=filters,
        flags=flags,
    )
