"""Rules turn a reading of the question into a typed QueryPlan.

Table selection: the first metric fixes the base (fact) table; every dimension and
filter is placed on the nearest table reachable from it by many-to-one relations, so
joins never multiply the fact rows; mandatory relations ("table X always needs Y")
are added with their join keys by code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import Any

from vitrina.catalog import Catalog
from vitrina.catalog.model import Metric, Relation
from vitrina.language.text import phrase_stems
from vitrina.query.compiler import effective_filter
from vitrina.query.join_paths import (
    PathChoice,
    choose_path,
    table_names,
    tables_named,
    via_tables,
    walk,
)
from vitrina.query.messages import text
from vitrina.query.multi_metric import with_other_tables
from vitrina.query.plan import Comparison, Dimension, Filter, Join, PeriodRef, QueryPlan
from vitrina.query.understand import CONJUNCTIONS, DATE_WORDS, Match, Reading, phrases
from vitrina.trace import Trace


@dataclass
class PlanOutcome:
    plan: QueryPlan | None
    refusal: str | None = None
    notes: list[str] = field(default_factory=list)
    clarification: dict[str, Any] | None = None  # a question the user can answer instead


def plan_vocabulary(plan: QueryPlan, catalog: Catalog) -> frozenset[str]:
    """Every word the plan's own catalog items are named by: another form of one of them in
    the question restates the plan and adds no condition (see understand.restates)."""
    names: list[str] = []
    for metric_id in plan.metrics:
        metric = catalog.metrics[metric_id]
        names += [metric.name_ru, metric.name_en, *metric.synonyms]
    topic = catalog.topics.get(plan.topic)
    if topic:
        names += [topic.name_ru, topic.name_en, *topic.keywords]
    for flt in plan.filters:
        dictionary = catalog.dictionary_for(flt.table, flt.column)
        for value in dictionary.values if dictionary else []:
            if value.value in flt.values:
                names += [value.value, value.label_en or "", *(value.synonyms or [])]
        names += [flt.label_ru, flt.label_en]
    if plan.segment:
        for stems in catalog.info.segment_keywords.values():
            names += stems
    for dim in plan.dimensions:
        col = catalog.column(f"{dim.table}.{dim.column}")
        names += [*(col.synonyms if col else []), dim.label_ru, dim.label_en]
    known = table_names(catalog)
    for table in plan.tables:
        names += known.get(table, ())
    return frozenset(word for name in names for word in phrase_stems(name) if not word.isdigit())


def joined_vocabulary(plan: QueryPlan, catalog: Catalog) -> frozenset[str]:
    """The words naming the tables a plan joins and their columns (synonyms, labels)."""
    names: list[str] = []
    known = table_names(catalog)
    for table in plan.tables:
        names += known.get(table, ())
        for col in catalog.tables[table].columns if table in catalog.tables else []:
            names += [*col.synonyms, col.label_ru or "", col.label_en or ""]
    return frozenset(word for name in names for word in phrase_stems(name) if not word.isdigit())


def metric_examples(catalog: Catalog, lang: str, n: int = 2) -> str:
    """The catalog's first metrics, quoted, for refusal and help texts (never a fixed demo name)."""
    names = list(dict.fromkeys(m.name(lang) for m in catalog.metrics.values()))[:n]
    quote = ("«{}»" if lang == "ru" else '"{}"').format
    return ", ".join(quote(name) for name in names) or "-"


def joined_by_conjunction(reading: Reading, first: Match, second: Match) -> bool:
    lo, hi = sorted((first, second), key=lambda m: m.start)
    between = reading.words[lo.start + lo.length : hi.start]
    return any(w.text in CONJUNCTIONS for w in between)


def choose_metrics(
    reading: Reading, catalog: Catalog, topic: str, trace: Trace, lead_id: str | None = None
) -> list[Metric]:
    in_topic = [m for m in reading.metrics if catalog.metrics[m.phrase.target].topic == topic]
    for m in reading.metrics:
        if m not in in_topic:
            trace.rejected("metric outside the detected topic ignored", metric=m.phrase.target)
    compared = [
        catalog.metrics[b.targets[0]]
        for b in reading.comparisons
        if b.kind == "metric" and catalog.metrics[b.targets[0]].topic == topic
    ]
    if not in_topic and compared:
        trace.branch(
            "the metric a number is compared with is the metric asked for", metric=compared[0].id
        )
        return [compared[0]]
    if not in_topic:
        default = next((m for m in catalog.metrics.values() if m.topic == topic), None)
        if default is None:
            return []
        trace.branch("no metric named: the topic's first metric is used", metric=default.id)
        return [default]
    lead = in_topic[0]
    chosen = [catalog.metrics[lead_id or lead.phrase.target]]
    for other in in_topic[1:]:
        metric = catalog.metrics[other.phrase.target]
        if metric.id in {m.id for m in chosen}:
            continue
        if metric.table != chosen[0].table:
            trace.rejected("second metric lives in another table: not combined", metric=metric.id)
            continue
        if not joined_by_conjunction(reading, lead, other):
            trace.rejected("word read as context, not as a second metric", metric=metric.id)
            continue
        chosen.append(metric)
    return chosen


class _Joins:
    """Accumulates the joins a plan needs, each table once, in a stable order; when several
    relation paths lead to a table, join_paths decides or records the ambiguity."""

    def __init__(self, catalog: Catalog, base: str, named: set[str] | None = None) -> None:
        self.catalog = catalog
        self.base = base
        self.named = named or set()
        self.joins: list[Join] = []
        self.entered: dict[str, Relation] = {}
        self.ambiguous: dict[
            str, list[list[Relation]]
        ] = {}  # table -> the paths no rule chose between

    @property
    def tables(self) -> set[str]:
        return {self.base, *(j.right_table for j in self.joins)}

    def choice(self, table: str) -> PathChoice:
        return choose_path(self.catalog, self.base, table, named=self.named, entered=self.entered)

    def path(self, table: str) -> list[Relation] | None:
        """The chosen path; the shortest of the candidates when no rule decided (for distances)."""
        choice = self.choice(table)
        return (
            choice.path if choice.path is not None or not choice.ambiguous else choice.ambiguous[0]
        )

    def add(self, table: str, reason: str) -> bool:
        choice = self.choice(table)
        if choice.path is None and choice.ambiguous:
            self.ambiguous[table] = choice.ambiguous
            return True
        path = choice.path
        if path is None:
            return False
        for entered, rel in walk(self.base, path):
            self.entered.setdefault(entered, rel)
        for rel in path:
            if rel.right_table in self.tables and rel.left_table in self.tables:
                continue
            left, right = (
                (rel.left, rel.right) if rel.left_table in self.tables else (rel.right, rel.left)
            )
            lt, lc = left.rsplit(".", 1)
            rt, rc = right.rsplit(".", 1)
            self.joins.append(
                Join(left_table=lt, left_column=lc, right_table=rt, right_column=rc, reason=reason)
            )
        return True


def _nearest(columns: tuple[str, ...] | list[str], joins: _Joins) -> str | None:
    """Of several table.column candidates, the one on the base table or the fewest joins away."""
    best: tuple[int, str] | None = None
    for qualified in columns:
        table = qualified.rsplit(".", 1)[0]
        path = joins.path(table)
        if path is None:
            continue
        if best is None or len(path) < best[0]:
            best = (len(path), qualified)
    return best[1] if best else None


def _place_date(
    plan: QueryPlan,
    reading: Reading,
    catalog: Catalog,
    lead: Metric,
    joins: _Joins,
    lang: str,
    trace: Trace,
) -> str | None:
    """Choose the date that dates the plan (the one the question names, else the metric's
    default), join its table when it is not the metric's own; a refusal text when the date
    the question needs is not there."""
    dates = catalog.metric_dates(lead)
    chosen = dates[0] if dates else None
    if reading.dates:
        named = reading.dates[0].phrase.target.lower()
        chosen = next((d for d in dates if f"{d.table}.{d.column}".lower() == named), None)
        if chosen is None:
            col = catalog.column(named)
            trace.rejected(
                "the question names a date the metric cannot be dated by",
                date=named,
                metric=lead.id,
            )
            return text(
                "date_unavailable",
                lang,
                date=col.label(lang) if col else named,
                metric=lead.name(lang),
                dates=", ".join(_date_label(catalog, d.table, d.column, lang) for d in dates)
                or "-",
            )
        trace.branch("date chosen by the question's words", date=named)
        if dates and chosen is not dates[0]:
            plan.date_words = _guessed_date(reading)
    needs_date = plan.period is not None or plan.grain is not None or plan.day_kind is not None
    if chosen is None:
        if needs_date:
            trace.rejected(
                "metric has no date column: the period cannot be applied", metric=lead.id
            )
            return text("no_date", lang, metric=lead.name(lang))
        return None
    if chosen.table != lead.table:
        if not joins.add(chosen.table, f"date {chosen.column}"):
            return text("no_date", lang, metric=lead.name(lang))
        trace.branch(
            "metric dated by a column of a joined table", table=chosen.table, column=chosen.column
        )
    plan.date_column = chosen.column
    plan.date_table = chosen.table if chosen.table != lead.table else None
    if len(dates) > 1 or chosen.table != lead.table:
        plan.date_label_ru = _date_label(catalog, chosen.table, chosen.column, "ru")
        plan.date_label_en = _date_label(catalog, chosen.table, chosen.column, "en")
    return None


def _guessed_date(reading: Reading) -> str | None:
    """The words that named the date, when none of them is a date noun ("shipped", not
    "ship date", "по дате отгрузки"): a verb may say how, not when."""
    match = reading.dates[0]
    said = reading.words[match.start : match.end]
    if not said or any(w.text.startswith(DATE_WORDS) for w in said):
        return None
    return " ".join(w.original for w in said)


def _place_comparisons(
    plan: QueryPlan,
    reading: Reading,
    catalog: Catalog,
    lead: Metric,
    joins: _Joins,
    lang: str,
    trace: Trace,
) -> str | None:
    """Each number the question compares: WHERE on the nearest numeric column it names (or
    of the unit it says), HAVING on a metric of the base table per group; a refusal text when
    the column is not reachable, several columns are equally near, or a per-group condition
    has no groups."""
    for bound in reading.comparisons:
        comp = bound.comparison
        shown = comp.text()
        if bound.kind == "metric":
            metric = catalog.metrics[bound.targets[0]]
            if metric.table != lead.table:  # the same metric named on the lead's table
                metric = next(
                    (
                        m
                        for m in catalog.metrics.values()
                        if m.table == lead.table
                        and (m.name_en, m.name_ru) == (metric.name_en, metric.name_ru)
                    ),
                    metric,
                )
            if metric.table != lead.table:
                trace.rejected(
                    "a metric compared per group lives in another table", metric=metric.id
                )
                return text("compare_other_table", lang, metric=metric.name(lang), condition=shown)
            if not plan.breakdown:
                trace.rejected(
                    "a condition on a metric without groups: not guessed", metric=metric.id
                )
                return text("compare_needs_groups", lang, metric=metric.name(lang), condition=shown)
            if metric.id not in plan.metrics:
                plan.metrics.append(metric.id)
            plan.comparisons.append(
                Comparison(
                    kind="metric",
                    op=comp.op,
                    value=comp.value,
                    metric=metric.id,
                    label_ru=metric.name_ru,
                    label_en=metric.name_en,
                )
            )
            trace.branch("per-group condition placed (HAVING)", metric=metric.id, condition=shown)
            continue
        reachable = []
        for qualified in bound.targets:
            path = joins.path(qualified.rsplit(".", 1)[0])
            if path is not None:
                reachable.append((len(path), qualified))
        if not reachable:
            trace.rejected("no compared column is reachable from the metric", columns=bound.targets)
            return text("compare_unreachable", lang, metric=lead.name(lang), condition=shown)
        nearest = min(d for d, _ in reachable)
        closest = [q for d, q in reachable if d == nearest]
        if len(closest) > 1:
            trace.rejected("several columns fit the comparison: not guessed", columns=closest)
            names = ", ".join(_column_label(catalog, q, lang) for q in closest)
            return text("compare_ambiguous", lang, condition=shown, columns=names)
        table, column = closest[0].rsplit(".", 1)
        joins.add(table, f"comparison {column}")
        plan.comparisons.append(
            Comparison(
                kind="column",
                op=comp.op,
                value=comp.value,
                table=table,
                column=column,
                label_ru=_column_label(catalog, closest[0], "ru"),
                label_en=_column_label(catalog, closest[0], "en"),
            )
        )
        trace.branch("row condition placed (WHERE)", column=closest[0], condition=shown)
    return None


def _place_derived(
    plan: QueryPlan,
    reading: Reading,
    catalog: Catalog,
    lead: Metric,
    joins: _Joins,
    lang: str,
    trace: Trace,
) -> str | None:
    """A share of the total or an average per unit of the lead metric; a refusal text when the
    metric does not allow it (not additive, several metrics) or the unit is not reachable."""
    if not (reading.share or reading.per_unit):
        return None
    name = lead.name(lang)
    if reading.share and reading.per_unit:
        return text("derived_both", lang, metric=name)
    if not lead.additive or len(plan.metrics) > 1 or plan.comparisons:
        trace.rejected("a derived metric of this metric is not built", metric=lead.id)
        return text("derived_not_additive", lang, metric=name)
    if reading.share:
        plan.share_filters, plan.filters = plan.filters, []  # only the question's values yet
        if not plan.share_filters and not plan.dimensions:
            trace.rejected("a share of nothing: no part and no breakdown", metric=lead.id)
            return text("share_of_what", lang, metric=name)
        plan.derived = "share"
        plan.derived_label_ru = f"Доля: {lead.name_ru}"
        plan.derived_label_en = f"Share of {lead.name_en}"
        trace.branch(
            "share of the total",
            metric=lead.id,
            part=[f"{f.column}={f.values}" for f in plan.share_filters],
        )
        return None
    unit = reading.per_unit
    assert unit is not None
    if unit.table == lead.table:
        column = None
    else:
        path = joins.path(unit.table)
        if path is None or not path:
            trace.rejected("the unit of an average is not reachable", table=unit.table)
            return text("per_unreachable", lang, metric=name, unit=unit.word)
        last = path[-1]
        many, _one = (
            (last.left, last.right) if last.right_table == unit.table else (last.right, last.left)
        )
        table, column = many.rsplit(".", 1)
        # the catalog's own spelling: a relation's ends may come lower-cased, and a
        # case-sensitive engine (ClickHouse) knows CustomerId, not customerid
        known = catalog.column(many)
        column = known.name if known is not None else column
        if table != lead.table:
            joins.add(table, f"per {unit.word}")
        plan.per_table = table
    plan.per_column = column
    plan.derived = "per"
    plan.derived_label_ru = f"{lead.name_ru} в среднем на {unit.word.lower()}"
    plan.derived_label_en = f"{lead.name_en} per {unit.word}"
    trace.branch("average per unit", metric=lead.id, unit=unit.table, counted=column)
    return None


def _column_label(catalog: Catalog, qualified: str, lang: str) -> str:
    col = catalog.column(qualified)
    return col.label(lang) if col else qualified.rsplit(".", 1)[-1]


def _ambiguity_text(joins: _Joins, catalog: Catalog, lang: str, trace: Trace) -> str:
    """Several relation paths and nothing in the question or the catalog chooses: name them."""
    table, paths = next(iter(joins.ambiguous.items()))
    ways = []
    for path in paths:
        via = via_tables(joins.base, path)
        ways.append(" → ".join(catalog.tables[t].short_name for t in via) or joins.base)
    trace.rejected(
        "several relation paths and nothing chooses between them: not guessed",
        table=table,
        paths=ways,
    )
    return text(
        "join_ambiguous", lang, table=catalog.tables[table].short_name, ways="; ".join(ways)
    )


def _join_clarification(joins: _Joins, catalog: Catalog, lang: str) -> dict[str, Any] | None:
    """The paths as options: each named by a table only it passes through (that table,
    chosen, decides the path as if the question had named it); None if a path has none."""
    table, paths = next(iter(joins.ambiguous.items()))
    vias = [via_tables(joins.base, path) for path in paths]
    options = []
    for via in vias:
        # the distinct table nearest the goal: "customer", not the "orders" before it
        own = next((t for t in reversed(via) if sum(t in other for other in vias) == 1), None)
        if own is None:
            return None
        route = " → ".join(catalog.tables[t].short_name for t in [*via, table])
        options.append({"id": own, "label": route})
    return {
        "kind": "join",
        "question": text("clarify_join", lang, table=catalog.tables[table].short_name),
        "options": options,
    }


def _date_label(catalog: Catalog, table: str, column: str, lang: str) -> str:
    col = catalog.column(f"{table}.{column}")
    return col.label(lang) if col else column


def build_plan(
    reading: Reading,
    catalog: Catalog,
    *,
    topic: str,
    lang: str,
    period: PeriodRef | None,
    segment: str | None,
    trace: Trace,
    via: str | None = None,
) -> PlanOutcome:
    """The rule plan; when it cannot be built, another metric named by the same words
    (revenue of invoices and revenue of invoice lines) is tried before refusing. `via` is
    the table a user chose to join through when several relation paths lead to one."""
    attempt = partial(
        _build_plan,
        reading,
        catalog,
        topic=topic,
        lang=lang,
        period=period,
        segment=segment,
        via=via,
    )
    outcome = attempt(trace=trace)
    if outcome.plan is not None:
        return with_other_tables(outcome, reading, catalog, attempt, trace)
    lead = next(
        (m for m in reading.metrics if catalog.metrics[m.phrase.target].topic == topic), None
    )
    if lead is None:
        return outcome
    twins = [
        p.target
        for p in phrases(catalog)
        if p.kind == "metric"
        and p.stems == lead.phrase.stems
        and p.target != lead.phrase.target
        and catalog.metrics[p.target].topic == topic
    ]
    for twin in dict.fromkeys(twins):
        scratch = Trace(trace.node)
        other = attempt(trace=scratch, lead_id=twin)
        if other.plan is not None:
            trace.branch(
                "another metric named by the same words reaches what the question asks",
                metric=twin,
                instead_of=lead.phrase.target,
            )
            trace.events.extend(scratch.events)
            return with_other_tables(other, reading, catalog, attempt, trace)
    return outcome


def _place_dimensions(
    plan: QueryPlan,
    reading: Reading,
    catalog: Catalog,
    lead: Metric,
    joins: _Joins,
    lang: str,
    trace: Trace,
) -> str | None:
    """Each breakdown on the nearest table that names it by the same words; a refusal text
    when none is reachable from the metric's table."""
    dims_by_stems: dict[tuple[str, ...], list[str]] = {}
    for match in reading.dimensions:
        dims_by_stems.setdefault(match.phrase.stems, []).append(match.phrase.target)
    for stems in dims_by_stems:
        candidates = [
            p.target for p in phrases(catalog) if p.kind == "dimension" and p.stems == stems
        ]
        qualified = _nearest(candidates, joins)
        if qualified is None:
            col = catalog.column(candidates[0])
            return text(
                "dimension_unreachable",
                lang,
                dimension=col.label(lang) if col else candidates[0],
                metric=lead.name(lang),
            )
        _add_dimension(plan, catalog, joins, qualified, lang, trace)
    return None


def _add_dimension(
    plan: QueryPlan, catalog: Catalog, joins: _Joins, qualified: str, lang: str, trace: Trace
) -> None:
    """One breakdown column (table.column) joined and added, once."""
    table, column = qualified.rsplit(".", 1)
    if any(d.table == table and d.column == column for d in plan.dimensions):
        return
    joins.add(table, f"dimension {column}")
    col = catalog.tables[table].column(column)
    assert col is not None
    select = col.localized.get(lang, column)
    plan.dimensions.append(
        Dimension(
            table=table,
            column=column,
            select_column=select,
            alias=column,
            label_ru=col.label("ru"),
            label_en=col.label("en"),
            key_column=col.identified_by,
        )
    )
    trace.branch("dimension placed", column=qualified)


def _place_values(
    plan: QueryPlan,
    reading: Reading,
    catalog: Catalog,
    lead: Metric,
    joins: _Joins,
    lang: str,
    trace: Trace,
) -> str | None:
    """Each value the question names: a filter on the nearest column that holds it; a refusal
    text when none is reachable from the metric's table."""
    for match in reading.values:
        qualified = _nearest(match.alternatives or (match.phrase.target,), joins)
        value = match.phrase.value or ""
        if qualified is None:
            col = catalog.column(match.phrase.target)
            label = f"{col.label(lang) if col else match.phrase.target} = {value}"
            return text("filter_unreachable", lang, filter=label, metric=lead.name(lang))
        _add_filter_value(plan, catalog, joins, qualified, value, trace)
    return None


def _add_filter_value(
    plan: QueryPlan, catalog: Catalog, joins: _Joins, qualified: str, value: str, trace: Trace
) -> None:
    """One value joined and added: to the column's filter when there is one, else a new one."""
    table, column = qualified.rsplit(".", 1)
    joins.add(table, f"filter {column}")
    existing = next((f for f in plan.filters if f.table == table and f.column == column), None)
    dictionary = catalog.dictionary_for(table, column)
    known = dictionary.values if dictionary else []
    entry = next((v for v in known if v.value == value), None)
    label_ru, label_en = (entry.label("ru"), entry.label("en")) if entry else (value, value)
    if existing:
        if value not in existing.values:
            existing.values.append(value)
            existing.value_labels_en.append(label_en)
            existing.value_labels_ru.append(label_ru)
        return
    col = catalog.tables[table].column(column)
    plan.filters.append(
        Filter(
            table=table,
            column=column,
            values=[value],
            value_labels_en=[label_en],
            value_labels_ru=[label_ru],
            label_ru=col.label("ru") if col else column,
            label_en=col.label("en") if col else column,
        )
    )
    trace.branch("filter placed", column=qualified, value=value)


def _place_segment(
    plan: QueryPlan,
    reading: Reading,
    catalog: Catalog,
    lead: Metric,
    joins: _Joins,
    lang: str,
    trace: Trace,
    *,
    segment: str | None,
) -> str | None:
    """The segment asked for: a filter on the catalog's segment column with its mandatory
    join; a refusal text when that column is not reachable."""
    if not (segment and catalog.info.segment_column):
        return None
    seg_table, seg_column = catalog.info.segment_column.rsplit(".", 1)
    if not joins.add(seg_table, "segment (mandatory relation)"):
        return text(
            "segment_unreachable",
            lang,
            metric=lead.name(lang),
            segment=catalog.info.segment_label(segment),
            column=catalog.info.segment_column,
        )
    value = catalog.info.segment_label(segment)
    plan.segment = value
    plan.filters.append(
        Filter(
            table=seg_table,
            column=seg_column,
            values=[value],
            value_labels_en=[value],
            value_labels_ru=[value],
            label_ru=catalog.info.segment_name_ru or "Сегмент",
            label_en=catalog.info.segment_name_en or "Segment",
        )
    )
    trace.branch("segment filter added with its mandatory join", segment=value)
    return None


def _add_required(catalog: Catalog, joins: _Joins, trace: Trace) -> None:
    """The catalog's "table X always needs Y" relations for the tables joined."""
    for req in catalog.requires:
        if req.when == "always" and req.table in joins.tables and req.needs not in joins.tables:
            joins.add(req.needs, f"required: {req.reason}")
            trace.branch("mandatory relation added", table=req.table, needs=req.needs)


def _note_replaced_filters(plan: QueryPlan, metrics: list[Metric], trace: Trace) -> None:
    """Trace each metric whose own filter the question's filter replaces."""
    for metric in metrics:
        if metric.filter and effective_filter(metric.filter, plan) is None:
            trace.branch(
                "the question's own filter replaces the metric's filter",
                metric=metric.id,
                replaced=metric.filter,
            )


def _place_order(plan: QueryPlan, reading: Reading, trace: Trace) -> None:
    """Order and top N apply to a breakdown; without one they are ignored (and traced)."""
    if plan.breakdown:
        plan.order = (
            reading.order
            if reading.order
            else ("desc" if plan.dimensions and not plan.grain else None)
        )
        plan.limit = reading.limit
    elif reading.order or reading.limit:
        trace.rejected("order or top-N without a breakdown ignored")


# The plan is placed in these steps, in this order; each returns a refusal text or None.
PLACE_STEPS = (_place_date, _place_dimensions, _place_values, _place_comparisons, _place_derived)


def _build_plan(
    reading: Reading,
    catalog: Catalog,
    *,
    topic: str,
    lang: str,
    period: PeriodRef | None,
    segment: str | None,
    trace: Trace,
    lead_id: str | None = None,
    via: str | None = None,
) -> PlanOutcome:
    """The plan of one reading for one topic: the metrics chosen fix the base table, then
    the steps of PLACE_STEPS and the segment place the rest, each of which may refuse."""
    metrics = choose_metrics(reading, catalog, topic, trace, lead_id)
    if not metrics:
        return PlanOutcome(
            None,
            refusal=text(
                "no_topic",
                lang,
                topics=", ".join(t.name(lang) for t in catalog.topics.values()),
                examples=metric_examples(catalog, lang),
            ),
        )
    lead = metrics[0]
    named = tables_named(reading.words, catalog) | ({via} if via in catalog.tables else set())
    joins = _Joins(catalog, lead.table, named)
    plan = QueryPlan(
        topic=topic,
        base_table=lead.table,
        metrics=[m.id for m in metrics],
        period=period,
        grain=reading.grain,
        day_kind=reading.day_kind,
    )
    for place in (*PLACE_STEPS, partial(_place_segment, segment=segment)):
        refusal = place(plan, reading, catalog, lead, joins, lang, trace)
        if refusal:
            return PlanOutcome(None, refusal=refusal)
    _add_required(catalog, joins, trace)
    if joins.ambiguous:
        return PlanOutcome(
            None,
            refusal=_ambiguity_text(joins, catalog, lang, trace),
            clarification=_join_clarification(joins, catalog, lang),
        )
    plan.joins = joins.joins
    _note_replaced_filters(plan, metrics, trace)
    _place_order(plan, reading, trace)
    return PlanOutcome(plan)
