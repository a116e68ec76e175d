"""Checks of meaning: does SQL a model wrote say what the rules read in the question?

The guard proves a query is safe and EXPLAIN that it runs; neither proves it answers the
question. A plausible query that drops "без Москвы", counts every client for "старше 60
лет" or sums by the wrong date is the error a user cannot see. The rules' reading of the
question (a plan, possibly partial, plus the words they could not place) is what the
model's SQL is held to, in code:

- every word the rules could not place must be carried by something the reading does not
  hold (a condition, a column, a grain), else the answer is refused naming the words;
- each metric's catalog expression, as defined, and its mandatory filter;
- the date column is one of the metric's dates, and the period's bounds are the reading's;
- the breakdown (dimensions and grain) is the reading's, no more and no less;
- each filter of the reading, with its values; no condition the question does not ask;
- a join that is not many-to-one toward the fact (it multiplies the fact's rows) must
  pre-aggregate;
- a number is not scaled by a constant (a unit slip).

A problem the catalog decides refuses the SQL (the model gets it back, bounded); one it
cannot decide (a join no relation describes) is answered with a visible caveat. Every
message is in the question's language.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta

import sqlglot
from sqlglot import exp

from vitrina.catalog import Catalog
from vitrina.catalog.model import ColumnRole, Metric
from vitrina.query.carried import explains, uncarried
from vitrina.query.plan import PeriodRef, QueryPlan

DATE_TEXT = re.compile(r"^\d{4}-\d{2}-\d{2}")

MESSAGES: dict[str, tuple[str, str]] = {
    "unplaced": (
        "в запросе модели нет ничего, что отвечает на слова {words}",
        "the model's query holds nothing for the words {words}",
    ),
    "metric": (
        "показатель «{name}» считается не так, как в каталоге ({expected})",
        "the metric '{name}' is not computed as the catalog defines it ({expected})",
    ),
    "mandatory_filter": (
        "у показателя «{name}» пропущено обязательное условие {condition}",
        "the metric '{name}' misses its mandatory condition {condition}",
    ),
    "aggregate": (
        "в запросе считается {got}, а показатели вопроса в каталоге: {expected}",
        "the query computes {got}, the question's metrics in the catalog are {expected}",
    ),
    "unit": (
        "число умножено или разделено на {factor}: единицы не те, что в каталоге",
        "the number is multiplied or divided by {factor}: not the catalog's unit",
    ),
    "date_column": (
        "период отсчитан по столбцу {column}, а у показателя даты: {allowed}",
        "the period is applied to {column}, but the metric's dates are {allowed}",
    ),
    "date_guess": (
        "период отсчитан по {column}; «{words}» в вопросе может означать и другую дату ({other})",
        "the period is applied to {column}; '{words}' may mean another date ({other})",
    ),
    "period": (
        "период в запросе {got}, а в вопросе {expected}",
        "the query's period is {got}, the question asks for {expected}",
    ),
    "period_extra": (
        "в запросе есть ограничение по дате, которого нет в вопросе",
        "the query limits dates the question does not limit",
    ),
    "breakdown_missing": (
        "нет разбивки по {column}, о которой спрашивали",
        "the breakdown by {column} that was asked is missing",
    ),
    "breakdown_extra": (
        "в запросе разбивка {item}, о которой не спрашивали",
        "the query breaks down by {item}, which was not asked",
    ),
    "filter_missing": (
        "пропущено условие {label}",
        "the condition {label} is missing",
    ),
    "filter_values": (
        "условие {column} взято со значениями {got} вместо {expected}",
        "the condition on {column} uses {got} instead of {expected}",
    ),
    "condition_extra": (
        "в запросе условие {condition}, которого нет в вопросе",
        "the query has the condition {condition}, which the question does not ask",
    ),
    "unchecked": (
        "правила не прочитали вопрос целиком, запрос модели не с чем сверить",
        "the rules could not read the question, so the model's query is not checked against it",
    ),
    "table": (
        "в запросе нет таблицы показателя {table}",
        "the query does not read the metric's table {table}",
    ),
    "fan_out": (
        "соединение с {table} размножает строки {fact}: нужно сначала агрегировать",
        "the join with {table} multiplies the rows of {fact}: aggregate it first",
    ),
    "join_unknown": (
        "соединение с {table} не описано в каталоге: проверьте, что строки не размножены",
        "the join with {table} is not described in the catalog: check that rows are not repeated",
    ),
}


@dataclass(frozen=True)
class MeaningProblem:
    """One way the SQL differs from the reading. `decided`: the catalog settles it (the SQL
    is refused); otherwise the answer is given with `message` as a caveat."""

    check: str
    message: str
    decided: bool = True


def say(check: str, lang: str, **values: str) -> str:
    ru, en = MESSAGES[check]
    return (ru if lang == "ru" else en).format(**values)


def bare(name: str) -> str:
    """A table or column name without schema or qualifier, lower case."""
    return name.rsplit(".", 1)[-1].strip('"`[]').lower()


def normalised(node: exp.Expr, dialect: str) -> str:
    """An expression's SQL without column qualifiers, lower case: aliases do not matter."""
    copy = node.copy()
    for col in copy.find_all(exp.Column):
        col.set("table", None)
        col.set("db", None)
        col.set("catalog", None)
    text = copy.sql(dialect=dialect).lower()
    return re.sub(r"count\(1\)", "count(*)", re.sub(r"\s+", " ", text))


@dataclass
class Facts:
    """What the query does, collected once: conditions, groupings, tables, aggregates."""

    text: str  # the whole query, normalised
    conditions: list[tuple[str, str, list[str]]]  # (column, operator, literal values)
    all_conditions: list[tuple[str | None, str, list[str]]]  # aggregates compared too
    grouped: list[exp.Expr]
    tables: set[str]
    outer: exp.Select | None


def _literal_values(node: exp.Expr) -> list[str]:
    if isinstance(node, exp.Column):
        return []
    return [lit.this for lit in node.find_all(exp.Literal) if not node.find(exp.Column)]


def _comparison(node: exp.Expr) -> tuple[exp.Column, str, list[exp.Expr]] | None:
    """(column, operator, the other side) of `column op literal`, either way round."""
    right = node.args.get("expression")
    if isinstance(node, exp.In) and isinstance(node.this, exp.Column):
        return node.this, "in", list(node.expressions)
    if isinstance(node.this, exp.Column) and right is not None:
        return node.this, node.key, [right]
    if isinstance(right, exp.Column):
        flipped = {"gt": "lt", "gte": "lte", "lt": "gt", "lte": "gte"}
        return right, flipped.get(node.key, node.key), [node.this]
    return None


def _join_edges(select: exp.Select) -> list[tuple[str, str, str, str]]:
    """(table, column, table, column) of every column = column of the SELECT's JOIN ... ON."""
    aliases = {
        t.alias_or_name.lower(): bare(t.name)
        for t in select.find_all(exp.Table)
        if t.find_ancestor(exp.Select) is select
    }
    edges = []
    for join in select.args.get("joins") or []:
        on = join.args.get("on")
        for eq in on.find_all(exp.EQ) if on is not None else []:
            left, right = eq.this, eq.expression
            if isinstance(left, exp.Column) and isinstance(right, exp.Column):
                lt = aliases.get(left.table.lower())
                rt = aliases.get(right.table.lower())
                if lt and rt:
                    edges.append((lt, left.name.lower(), rt, right.name.lower()))
    return edges


def _without_subqueries(node: exp.Expr) -> exp.Expr:
    """A projection with its scalar subqueries blanked (a share's whole is not its part)."""
    copy = node.copy()
    for sub in list(copy.find_all(exp.Subquery)):
        sub.replace(exp.Null())
    return copy


def _scalar(select: exp.Select) -> bool:
    """A SELECT inside another one's expressions (a scalar subquery: a share's whole), not
    a CTE or a derived table."""
    node = select.parent
    while node is not None:
        if isinstance(node, exp.CTE | exp.From | exp.Join):
            return False
        if isinstance(node, exp.Select):
            return True
        node = node.parent
    return False


def _stripped(agg: exp.Expr) -> exp.Expr:
    """An aggregate without the condition of one period or part: SUM(CASE WHEN c THEN x
    END) is SUM(x), COUNT(CASE WHEN c THEN 1 END) is COUNT(*) (FILTER (WHERE c) sits
    outside the aggregate node already)."""
    case = agg.this
    if not isinstance(case, exp.Case) or len(case.args.get("ifs") or []) != 1:
        return agg
    default = case.args.get("default")
    zero = isinstance(default, exp.Literal) and default.this in ("0", "0.0")
    if (
        default is not None
        and not isinstance(default, exp.Null)
        and not (zero and isinstance(agg, exp.Sum))
    ):
        return agg
    copy = agg.copy()
    copy.set("this", case.args["ifs"][0].args["true"].copy())
    return copy


def _aggregates(select: exp.Select) -> list[exp.Expr]:
    """The outermost aggregates of a SELECT's own projections (not of its subqueries)."""
    out: list[exp.Expr] = []
    for proj in select.expressions:
        for agg in proj.find_all(exp.AggFunc):
            if agg.find_ancestor(exp.Select) is select and agg.find_ancestor(exp.AggFunc) is None:
                out.append(agg)
    return out


def _date_scopes(tree: exp.Expr) -> list[list[tuple[str, str, list[str]]]]:
    """The comparisons of each WHERE (a FILTER's too) and of each CASE WHEN branch apart,
    aggregates included: two periods in one query are two scopes, never one mixed range."""
    scopes: dict[int, list[tuple[str, str, list[str]]]] = {}
    for node in tree.find_all(exp.EQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.Between):
        scope = node.find_ancestor(exp.Where, exp.If)
        if scope is None:
            continue
        if isinstance(node, exp.Between):
            if isinstance(node.this, exp.Column):
                name = bare(node.this.name)
                scopes.setdefault(id(scope), []).extend(
                    [
                        (name, "gte", _literal_values(node.args["low"])),
                        (name, "lte", _literal_values(node.args["high"])),
                    ]
                )
            continue
        found = _comparison(node)
        if found is None or any(o.find(exp.Column) for o in found[2]):
            continue
        values = [v for o in found[2] for v in _literal_values(o)]
        if values:
            scopes.setdefault(id(scope), []).append((bare(found[0].name), found[1], values))
    return list(scopes.values())


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _all_conditions(tree: exp.Expr) -> list[tuple[str | None, str, list[str]]]:
    """Comparisons with a number: of a column (its bare name) or of an aggregate (None)."""
    out: list[tuple[str | None, str, list[str]]] = list(_conditions(tree))
    for node in tree.find_all(exp.GT, exp.GTE, exp.LT, exp.LTE):
        right = node.args.get("expression")
        if node.this.find(exp.AggFunc) and isinstance(right, exp.Literal):
            out.append((None, node.key, [right.this]))
    return out


def _conditions(tree: exp.Expr) -> list[tuple[str, str, list[str]]]:
    """Every comparison of a column with literals, anywhere in the query (CTEs included),
    except inside an aggregate (CASE WHEN of a share or a rate: the metric's own)."""
    out = []
    for node in tree.find_all(exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.In):
        if node.find_ancestor(exp.AggFunc) is not None:
            continue
        found = _comparison(node)
        if found is None or any(o.find(exp.Column) for o in found[2]):
            continue
        col, op, other = found
        values = [v for o in other for v in _literal_values(o)]
        if values:
            out.append((bare(col.name), op, values))
    for node in tree.find_all(exp.Between):
        if isinstance(node.this, exp.Column) and node.find_ancestor(exp.AggFunc) is None:
            low = _literal_values(node.args["low"])
            high = _literal_values(node.args["high"])
            out += [(bare(node.this.name), "gte", low), (bare(node.this.name), "lte", high)]
    return out


def _grouped(select: exp.Select) -> list[exp.Expr]:
    group = select.args.get("group")
    if not group:
        return []
    by_alias = {p.alias_or_name.lower(): p for p in select.expressions}
    out = []
    for item in group.expressions:
        target = item
        if isinstance(item, exp.Literal) and item.is_int:
            index = int(item.this) - 1
            target = select.expressions[index] if 0 <= index < len(select.expressions) else item
        elif isinstance(item, exp.Column) and not item.table and item.name.lower() in by_alias:
            target = by_alias[item.name.lower()]
        out.append(target.this if isinstance(target, exp.Alias) else target)
    return out


def facts_of(tree: exp.Expr, dialect: str) -> Facts:
    outer = tree if isinstance(tree, exp.Select) else tree.find(exp.Select)
    grouped = [g for s in tree.find_all(exp.Select) for g in _grouped(s)]
    return Facts(
        text=normalised(tree, dialect),
        conditions=_conditions(tree),
        all_conditions=_all_conditions(tree),
        grouped=grouped,
        tables={bare(t.name) for t in tree.find_all(exp.Table)},
        outer=outer,
    )


def _date_of(value: str) -> date | None:
    return date.fromisoformat(value[:10]) if DATE_TEXT.match(value) else None


def _bounds(conditions: list[tuple[str, str, list[str]]]) -> dict[str, list[date | None]]:
    """Per date column, the inclusive [start, end] its conditions give."""
    out: dict[str, list[date | None]] = {}
    for column, op, values in conditions:
        day = _date_of(values[0]) if len(values) == 1 else None
        if day is None:
            continue
        bounds = out.setdefault(column, [None, None])
        if op in ("gte", "gt"):
            bounds[0] = day + timedelta(days=1) if op == "gt" else day
        elif op in ("lte", "lt"):
            bounds[1] = day - timedelta(days=1) if op == "lt" else day
        elif op == "eq":
            out[column] = [day, day]
    return out


class Reader:
    """The checks of one query against one reading."""

    def __init__(
        self,
        sql: str,
        dialect: str,
        catalog: Catalog,
        plan: QueryPlan,
        lang: str,
        today: date | None = None,
    ) -> None:
        self.today = today
        self.tree = sqlglot.parse_one(sql, read=dialect)
        self.dialect, self.catalog, self.plan, self.lang = dialect, catalog, plan, lang
        self.facts = facts_of(self.tree, dialect)
        self.problems: list[MeaningProblem] = []
        self.misdated: set[str] = set()  # date columns already reported as the wrong date

    def add(self, check: str, *, decided: bool = True, **values: str) -> None:
        self.problems.append(MeaningProblem(check, say(check, self.lang, **values), decided))

    @property
    def plans(self) -> list[QueryPlan]:
        """The reading and its parts (metrics on other fact tables, each with its date)."""
        return [self.plan, *self.plan.parts]

    def chosen_dates(self) -> set[str]:
        """The date each part of the reading chose (see _chosen)."""
        return set().union(*(self._chosen(p) for p in self.plans))

    def _chosen(self, plan: QueryPlan) -> set[str]:
        """The reading's date; else each metric's default date; else any of its dates."""
        if plan.date_column:
            return {bare(plan.date_column)}
        chosen = set()
        for metric_id in plan.metrics:
            metric = self.catalog.metrics.get(metric_id)
            if metric and metric.default_date and metric.default_date in metric.dates:
                chosen.add(bare(metric.dates[metric.default_date]))
            elif metric and metric.date_column:
                chosen.add(bare(metric.date_column))
        return chosen or self._dates(plan)

    def guessed_dates(self) -> set[str]:
        """The reading's date and the metric's default one, when a verb chose the first
        ("shipped by rail": maybe how, not when): either is answered with a caveat."""
        if not self.plan.date_words or not self.plan.date_column:
            return set()
        out = {bare(self.plan.date_column)}
        for metric_id in self.plan.metrics:
            metric = self.catalog.metrics.get(metric_id)
            dates = self.catalog.metric_dates(metric) if metric else []
            if dates:
                out.add(bare(dates[0].column))
        return out if len(out) > 1 else set()

    def metric_dates(self) -> set[str]:
        return set().union(*(self._dates(p) for p in self.plans))

    def _dates(self, plan: QueryPlan) -> set[str]:
        dates = {bare(plan.date_column)} if plan.date_column else set()
        for metric_id in plan.metrics:
            metric = self.catalog.metrics.get(metric_id)
            if metric is None:
                continue
            if metric.date_column:
                dates.add(bare(metric.date_column))
            dates |= {bare(d) for d in metric.dates.values()}
            table = self.catalog.tables.get(metric.table)
            if not dates and table is not None:
                dates |= {bare(c.name) for c in table.columns if c.role == ColumnRole.DATE}
        return dates

    # -- the metric -------------------------------------------------------------------

    def _measured(self) -> str:
        """The projections of every aggregating SELECT, normalised (HAVING left out)."""
        return " ".join(
            normalised(_without_subqueries(p), self.dialect)
            for select in self.tree.find_all(exp.Select)
            if not _scalar(select)
            for p in select.expressions
            if p.find(exp.AggFunc)
        )

    def check_metrics(self, partial: bool) -> None:
        if partial and (self.plan.combined or not self.tree.find(exp.AggFunc)):
            # a partial reading's metric may be a default where the model read a listing,
            # its metrics of other facts or periods guesses beside what it could not place
            return
        if self.plan.combined:
            self._check_combined()
            return
        measured = self._measured()
        self._metrics_as_defined(measured)
        self._per_unit(measured)

    def _metrics_as_defined(self, measured: str) -> None:
        """Each metric of the plan as the catalog defines it: its expression among what the
        query measures, its mandatory filter among the conditions, its table read."""
        for metric_id in self.plan.metrics:
            metric = self.catalog.metrics.get(metric_id)
            if metric is None:
                continue
            name = metric.name_ru if self.lang == "ru" else metric.name_en
            for part in self._expressions(metric):
                self._expression(part, name, measured)
            if metric.filter:
                condition = sqlglot.parse_one(metric.filter, read=self.dialect)
                if normalised(condition, self.dialect) not in self.facts.text:
                    self.add("mandatory_filter", name=name, condition=metric.filter)
            if bare(metric.table) not in self.facts.tables:
                self.add("table", table=metric.table)

    def _check_combined(self) -> None:
        """Several metrics, or one over two periods, each aggregated on its own (scalar
        subqueries, joined parts, FILTER or CASE WHEN per period): every metric's expression
        among the aggregates, and every aggregate one of the metrics' expressions (AVG
        where the catalog sums is a wrong number, even beside a right SUM)."""
        aggregates = [
            normalised(_stripped(agg), self.dialect)
            for select in self.tree.find_all(exp.Select)
            for agg in _aggregates(select)
        ]
        self._metrics_as_defined(" ".join(aggregates))
        expected = [
            normalised(sqlglot.parse_one(part, read=self.dialect), self.dialect)
            for metric_id in self.plan.metrics
            if (metric := self.catalog.metrics.get(metric_id)) is not None
            for part in self._expressions(metric)
        ]
        if self.plan.derived or not expected:
            return  # a share or a rate counts more than its metrics: checked above
        for text in dict.fromkeys(aggregates):
            if text not in expected:
                self.add("aggregate", got=text.upper(), expected=", ".join(expected).upper())

    def _expressions(self, metric: Metric) -> list[str]:
        """The expression, or a ratio's numerator and denominator expressions."""
        if not metric.numerator:
            return [metric.expression]
        parts = [self.catalog.metrics.get(m) for m in (metric.numerator, metric.denominator or "")]
        return [p.expression for p in parts if p is not None and p.expression and not p.numerator]

    def _expression(self, expression: str, name: str, measured: str) -> None:
        """The catalog's expression among what the query measures. A share may be written
        as the average of a flag: not decided, a caveat."""
        if not expression:
            return
        expected = normalised(sqlglot.parse_one(expression, read=self.dialect), self.dialect)
        found = expected in measured
        if self.plan.derived == "per" and not self.plan.per_column and expected.startswith("sum("):
            # per row of the fact: the average, or the sum over the count
            found = ("avg(" + expected[4:]) in measured or (found and "count(*)" in measured)
        if not found:
            share = self.plan.derived == "share"
            self.add("metric", decided=not share, name=name, expected=expression)

    def _per_unit(self, measured: str) -> None:
        """ "per customer": divided by the distinct count of the customer key."""
        if self.plan.derived != "per" or not self.plan.per_column:
            return
        key = bare(self.plan.per_column)
        counted = f"count(distinct {key})"
        # the key, or a column an ON makes equal to it (o.o_orderkey = l.l_orderkey)
        same = {key} | {
            other
            for select in self.tree.find_all(exp.Select)
            for _t, a, _u, b in _join_edges(select)
            if key in (a, b)
            for other in (a, b)
        }
        if not any(f"count(distinct {name})" in measured for name in same):
            self.add("metric", name=self.plan.per_column, expected=counted.upper())

    def check_units(self) -> None:
        if self.facts.outer is None:
            return
        for proj in self.facts.outer.expressions:
            for node in proj.find_all(exp.Mul, exp.Div):
                sides = [node.this, node.expression]
                numbers = [s for s in sides if isinstance(s, exp.Literal) and s.is_number]
                scaled = [s for s in sides if s.find(exp.AggFunc)]
                if numbers and scaled and float(numbers[0].this) not in (1.0, 100.0):
                    self.add("unit", factor=numbers[0].this)
                    return

    # -- dates --------------------------------------------------------------------------

    def check_period(self) -> None:
        if self.plan.compared is not None and self.plan.period is not None:
            self._check_two_periods(self.plan.period, self.plan.compared)
            return
        bounds = _bounds(self.facts.conditions)
        period = self.plan.period
        if period is None:
            dates = self.metric_dates()
            if any(column in dates for column in bounds):
                self.add("period_extra")
            return
        # the date the reading chose (the question's or the metric's default), else any of
        # the metric's dates
        allowed = self.chosen_dates()
        guessed = self.guessed_dates()
        for column, (low, high) in bounds.items():
            if column in guessed:
                others = ", ".join(sorted(guessed - {column}))
                words = self.plan.date_words or ""
                self.add("date_guess", decided=False, column=column, words=words, other=others)
            elif allowed and column not in allowed:
                self.misdated.add(column)
                self.add("date_column", column=column, allowed=", ".join(sorted(allowed)))
                continue
            start = None if period.open_start else period.start
            if low != start or not self._same_end(high, period.end):
                self.add(
                    "period",
                    got=f"{low or '…'} – {high or '…'}",
                    expected=f"{start or '…'} – {period.end}",
                )

    def _check_two_periods(self, period: PeriodRef, compared: PeriodRef) -> None:
        """Two periods: each scope's bounds (a WHERE, a FILTER, a CASE WHEN branch) are one
        of the two periods or the span of both, on the chosen date; both periods appear."""
        allowed = self.chosen_dates()
        wanted = {"current": period, "compared": compared}
        seen: set[str] = set()
        expected = " / ".join(f"{p.start} – {p.end}" for p in wanted.values())
        first, last = min(period.start, compared.start), max(period.end, compared.end)
        for scope in _date_scopes(self.tree):
            for column, (low, high) in _bounds(scope).items():
                if allowed and column not in allowed:
                    self.misdated.add(column)
                    self.add("date_column", column=column, allowed=", ".join(sorted(allowed)))
                    continue
                hits = [
                    k for k, p in wanted.items() if low == p.start and self._same_end(high, p.end)
                ]
                seen.update(hits)
                if not hits and not (low == first and self._same_end(high, last)):
                    self.add("period", got=f"{low or '…'} – {high or '…'}", expected=expected)
        missing = [p for k, p in wanted.items() if k not in seen]
        if missing and not any(p.check in ("period", "date_column") for p in self.problems):
            got = ", ".join(f"{p.start} – {p.end}" for p in missing)
            self.add("period", got="—", expected=got)

    def _same_end(self, high: date | None, end: date) -> bool:
        """The period's end, or any day from today to it: no data lies in the future."""
        if high == end:
            return True
        return bool(self.today and high and self.today <= high < end)

    # -- breakdown ----------------------------------------------------------------------

    def _dimension_names(self) -> set[str]:
        names = set()
        for dim in self.plan.dimensions:
            names |= {bare(dim.column), bare(dim.select_column)}
            if dim.key_column:
                names.add(bare(dim.key_column))
        return names

    def _is_date_bucket(self, item: exp.Expr) -> bool:
        columns = {bare(c.name) for c in item.find_all(exp.Column)}
        return bool(columns & self.metric_dates()) or not columns

    def check_breakdown(self) -> None:
        names = self._dimension_names()
        grouped_columns = set()
        for item in self.facts.grouped:
            if isinstance(item, exp.Column) and bare(item.name) in names:
                grouped_columns.add(bare(item.name))
                continue
            if self.plan.grain and self._is_date_bucket(item):
                continue
            self.add("breakdown_extra", item=item.sql(dialect=self.dialect))
        for dim in self.plan.dimensions:
            wanted = {bare(dim.column), bare(dim.select_column)}
            if not wanted & grouped_columns:
                self.add("breakdown_missing", column=dim.column)

    # -- conditions ---------------------------------------------------------------------

    def _known_columns(self) -> set[str]:
        """Columns a condition may use without the question naming it."""
        known = {bare(f.column) for f in self.plan.filters}
        known |= self.metric_dates()
        known |= {bare(c.column) for c in self.plan.comparisons if c.column}
        for metric_id in self.plan.metrics:
            metric = self.catalog.metrics.get(metric_id)
            if metric and metric.filter:
                condition = sqlglot.parse_one(metric.filter, read=self.dialect)
                known |= {bare(c.name) for c in condition.find_all(exp.Column)}
        if self.plan.segment and self.catalog.info.segment_column:
            known.add(bare(self.catalog.info.segment_column))
        return known

    def check_filters(self) -> None:
        by_column: dict[str, set[str]] = {}
        for column, op, values in self.facts.conditions:
            if op in ("eq", "in"):
                by_column.setdefault(column, set()).update(values)
        for f in self.plan.filters:
            got = by_column.get(bare(f.column))
            label = f.label_ru if self.lang == "ru" else f.label_en
            if got is None:
                self.add("filter_missing", label=label or f.column)
            elif got != set(f.values):
                self.add(
                    "filter_values",
                    column=f.column,
                    got=", ".join(sorted(got)),
                    expected=", ".join(f.values),
                )

    def extra_conditions(self) -> list[tuple[str, str, list[str]]]:
        """Conditions (outside aggregates) on columns the reading does not name."""
        known = self._known_columns() | self.misdated
        seen: list[tuple[str, str, list[str]]] = []
        for condition in self.facts.conditions:
            if condition[0] not in known and condition not in seen:
                seen.append(condition)
        return seen

    def check_comparisons(self) -> None:
        """ "больше 10 долларов", "more than 8 invoices": the comparison with its number."""
        for comparison in self.plan.comparisons:
            wanted = comparison.value
            column = bare(comparison.column) if comparison.column else None
            found = any(
                (column is None or name == column)
                and any(_number(v) == wanted for v in values)
                and op in ("gt", "gte", "lt", "lte")
                for name, op, values in self.facts.all_conditions
            )
            if not found:
                label = comparison.label_ru if self.lang == "ru" else comparison.label_en
                self.add("filter_missing", label=label)

    # -- joins --------------------------------------------------------------------------

    def check_joins(self) -> None:
        """Walk the joins of each aggregating SELECT from the fact along their ON keys: a step
        from the many side to the one side (a catalog relation) keeps the fact's rows; a step
        the other way multiplies them (a fan-out); a step no relation describes is unknown."""
        relations = {
            (bare(r.left_table), r.left_column.lower(), bare(r.right_table), r.right_column.lower())
            for r in self.catalog.relations
            if r.kind == "many_to_one"
        }
        for select in self.tree.find_all(exp.Select):
            if not any(p.find(exp.AggFunc) for p in select.expressions):
                continue
            edges = _join_edges(select)
            fact = self._fact_of(select)
            if fact in {t for edge in edges for t in (edge[0], edge[2])}:
                self._walk(fact, edges, relations)

    def _fact_of(self, select: exp.Select) -> str:
        """The fact a SELECT aggregates: the reading's, or the part whose metric it measures
        (each part of several metrics is aggregated on its own table)."""
        if self.plan.parts:
            measured = " ".join(normalised(_stripped(a), self.dialect) for a in _aggregates(select))
            for part in self.plan.parts:
                for metric_id in part.metrics:
                    metric = self.catalog.metrics.get(metric_id)
                    for text in self._expressions(metric) if metric else []:
                        expression = sqlglot.parse_one(text, read=self.dialect)
                        if normalised(expression, self.dialect) in measured:
                            return bare(part.base_table)
        return bare(self.plan.base_table)

    def _walk(
        self,
        fact: str,
        edges: list[tuple[str, str, str, str]],
        relations: set[tuple[str, str, str, str]],
    ) -> None:
        seen, todo = {fact}, [fact]
        while todo:  # bounded: each table is entered once
            here = todo.pop()
            for a, ac, b, bc in edges:
                if here not in (a, b):
                    continue
                there, key = (b, (a, ac, b, bc)) if here == a else (a, (b, bc, a, ac))
                if there in seen:
                    continue
                seen.add(there)
                todo.append(there)
                back = (key[2], key[3], key[0], key[1])
                if key in relations:
                    continue  # many-to-one toward the table joined
                if back in relations:
                    self.add("fan_out", table=there, fact=fact)
                else:
                    self.add("join_unknown", decided=False, table=there)


def check_meaning(
    sql: str,
    dialect: str,
    catalog: Catalog,
    plan: QueryPlan | None,
    *,
    unexplained: list[str],
    lang: str,
    today: date | None = None,
) -> list[MeaningProblem]:
    """Every way `sql` differs from the rules' reading `plan` (None: the rules have none).

    `unexplained`: the words the rules could not place. Each must be carried by the query
    (vitrina.query.carried), else the query is refused naming them. With such words the
    reading is partial: its metric may be a default, so a metric or date that differs is a
    caveat, not a refusal, and a condition beyond the reading is expected where a word asks
    for it (else a caveat)."""
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except sqlglot.errors.ParseError:
        return []  # the guard reports unparsable SQL
    lost = uncarried(tree, catalog, unexplained)
    unplaced = (
        [MeaningProblem("unplaced", say("unplaced", lang, words=_quoted(lost)))] if lost else []
    )
    if plan is None:
        unchecked = MeaningProblem("unchecked", say("unchecked", lang), decided=False)
        return [*unplaced, unchecked]
    reader = Reader(sql, dialect, catalog, plan, lang, today)
    reader.check_metrics(partial=bool(unexplained))
    reader.check_units()
    reader.check_period()
    reader.check_breakdown()
    reader.check_filters()
    reader.check_comparisons()
    reader.check_joins()
    extra = reader.extra_conditions()
    if unexplained:
        reader.problems = [_softened(p) for p in reader.problems if p.check != "breakdown_extra"]
        extra = [c for c in extra if not explains(c, unexplained)]
    for column, op, values in extra:
        reader.add(
            "condition_extra",
            decided=not unexplained,
            condition=f"{column} {SIGNS.get(op, op)} {', '.join(values)}",
        )
    return [*unplaced, *reader.problems]


SIGNS = {"eq": "=", "neq": "<>", "gt": ">", "gte": ">=", "lt": "<", "lte": "<=", "in": "IN"}
PARTIAL_CAVEATS = frozenset({"metric", "mandatory_filter", "table", "date_column"})


def _softened(problem: MeaningProblem) -> MeaningProblem:
    """On a partial reading the rules' metric and date may be defaults: a caveat."""
    if problem.check in PARTIAL_CAVEATS:
        return MeaningProblem(problem.check, problem.message, decided=False)
    return problem


def _quoted(words: list[str]) -> str:
    return ", ".join(f"«{w}»" for w in words)


def dropped_words(message: str, rewritten: str) -> list[str]:
    """Words of a follow-up message that a model's standalone rewrite lost ("а без Москвы?"
    rewritten without "Москвы" is answered with the Moscow figure). Compared by lemma, so
    an inflected form is kept; function words do not count."""
    from vitrina.language.morph import lemma
    from vitrina.language.stopwords import QUESTION_STOPWORDS
    from vitrina.language.text import tokenize

    kept = {lemma(w.text) for w in tokenize(rewritten)} | {w.text for w in tokenize(rewritten)}
    return [
        w.original
        for w in tokenize(message)
        if w.text not in QUESTION_STOPWORDS and w.text not in kept and lemma(w.text) not in kept
    ]
