"""The loaded catalog: cross-checked sections plus the look-ups the planner needs."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vitrina.catalog.errors import CatalogProblem
from vitrina.catalog.model import (
    ANY_SEGMENT,
    CatalogInfo,
    Column,
    Dictionary,
    Example,
    Instruction,
    Metric,
    Relation,
    Requirement,
    Table,
    Topic,
)

MAX_JOIN_DEPTH = 4  # longest relation path the planner will follow between two tables
MAX_PATHS = 32  # relation paths enumerated between two tables before the search stops

Located = tuple[Any, Path, int | None]


@dataclass(frozen=True)
class BrokenMetric:
    """A metric the catalog declares but that cannot be computed: kept (not silently dropped)
    so a question naming it is refused with the metric, the columns and what to fix."""

    metric: Metric
    reason: str
    missing: tuple[str, ...] = ()  # columns the expression or filter names that do not exist


def _unknown_columns(metric: Metric, table: Table) -> tuple[str, tuple[str, ...]] | None:
    """A metric's expression or filter that does not parse, or names a column its table lacks
    (caught here, not at ask time): the reason and the missing columns."""
    import sqlglot
    from sqlglot import exp

    for what, sql in (("expression", metric.expression), ("filter", metric.filter)):
        if not sql:
            continue
        try:
            tree = sqlglot.parse_one(sql, read="postgres")
        except sqlglot.errors.ParseError as exc:
            return f"{what} '{sql}' does not parse: {str(exc).splitlines()[0]}", ()
        missing = sorted(
            {c.name for c in tree.find_all(exp.Column) if table.column(c.name) is None}
        )
        if missing:
            return f"{what} '{sql}' names {missing}, not columns of {table.name}", tuple(missing)
    return None


@dataclass(frozen=True)
class DateRef:
    """A date a metric can be filtered by: its name in `dates` ("" for the only one), where it
    lives."""

    name: str
    table: str
    column: str


@dataclass
class Catalog:
    info: CatalogInfo
    topics: dict[str, Topic] = field(default_factory=dict)
    tables: dict[str, Table] = field(default_factory=dict)
    relations: list[Relation] = field(default_factory=list)
    requires: list[Requirement] = field(default_factory=list)
    metrics: dict[str, Metric] = field(default_factory=dict)
    instructions: list[Instruction] = field(default_factory=list)
    examples: list[Example] = field(default_factory=list)
    dictionaries: dict[str, Dictionary] = field(default_factory=dict)
    problems: list[CatalogProblem] = field(default_factory=list)
    broken_metrics: dict[str, BrokenMetric] = field(default_factory=dict)
    cache: dict[str, Any] = field(
        default_factory=dict, repr=False, compare=False
    )  # derived indexes

    # ---- construction -------------------------------------------------------------
    @classmethod
    def build(
        cls, info: CatalogInfo, sections: dict[str, list[Located]], problems: list[CatalogProblem]
    ) -> Catalog:
        """Index the sections, dropping (and reporting) items whose references are broken."""
        cat = cls(info=info, problems=list(problems))

        def report(file: Path, line: int | None, where: str, message: str) -> None:
            cat.problems.append(CatalogProblem(file, line, where, message))

        for table, file, line in sections["tables"]:
            if table.name in cat.tables:
                report(file, line, f"tables {table.name}", "table defined twice")
                continue
            cat.tables[table.name] = table
        for topic, file, line in sections["topics"]:
            missing = [t for t in topic.tables if t.lower() not in cat.tables]
            if missing:
                report(file, line, f"topics {topic.id}", f"unknown tables {missing}")
            topic.tables = [t.lower() for t in topic.tables if t.lower() in cat.tables]
            if topic.segment not in (ANY_SEGMENT, *info.segment_values):
                report(
                    file,
                    line,
                    f"topics {topic.id}",
                    f"unknown segment '{topic.segment}': use 'any' or one of "
                    f"{info.segment_ids()} (catalog.segment_values); read as 'any'",
                )
                topic.segment = ANY_SEGMENT
            cat.topics[topic.id] = topic
        for table in cat.tables.values():
            for topic_id in table.topics:
                if topic_id not in cat.topics:
                    cat.problems.append(
                        CatalogProblem(
                            None, None, f"tables {table.name}", f"unknown topic '{topic_id}'"
                        )
                    )
        for rel, file, line in sections["relations"]:
            bad = [end for end in (rel.left, rel.right) if not cat.has_column(end)]
            if bad:
                report(
                    file, line, f"relations {rel.left} -> {rel.right}", f"unknown column(s) {bad}"
                )
                continue
            cat.relations.append(rel)
        for req, file, line in sections["requires"]:
            req.table, req.needs = req.table.lower(), req.needs.lower()
            bad = [t for t in (req.table, req.needs) if t not in cat.tables]
            if bad:
                report(file, line, f"requires {req.table}", f"unknown table(s) {bad}")
                continue
            if cat.join_path(req.table, req.needs) is None:
                report(
                    file,
                    line,
                    f"requires {req.table}",
                    f"no relation path from {req.table} to {req.needs}: add it to relations",
                )
                continue
            cat.requires.append(req)
        ratios = [item for item in sections["metrics"] if item[0].numerator]
        for metric, file, line in [item for item in sections["metrics"] if not item[0].numerator]:
            table = cat.tables.get(metric.table)
            if table is None:
                report(file, line, f"metrics {metric.id}", f"unknown table '{metric.table}'")
                continue
            bad_sql = _unknown_columns(metric, table)
            if bad_sql:
                report(file, line, f"metrics {metric.id}", bad_sql[0])
                cat.broken_metrics[metric.id] = BrokenMetric(metric, bad_sql[0], bad_sql[1])
                continue
            bad_date = cat._bad_metric_date(metric)
            if bad_date:
                report(file, line, f"metrics {metric.id}", bad_date)
                cat.broken_metrics[metric.id] = BrokenMetric(metric, bad_date)
                continue
            cat._add_metric(metric, file, line, report)
        for metric, file, line in ratios:
            bad_ratio = cat._build_ratio(metric)
            if bad_ratio:
                report(file, line, f"metrics {metric.id}", bad_ratio)
                cat.broken_metrics[metric.id] = BrokenMetric(metric, bad_ratio)
                continue
            cat._add_metric(metric, file, line, report)
        for dic, file, line in sections["dictionaries"]:
            if not cat.has_column(dic.column):
                report(file, line, f"dictionaries {dic.column}", "unknown column")
                continue
            cat.dictionaries[dic.column] = dic
        cat.instructions = [i for i, _, _ in sections["instructions"]]
        cat.examples = [e for e, _, _ in sections["examples"]]
        if info.segment_column and not cat.has_column(info.segment_column):
            cat.problems.append(
                CatalogProblem(
                    None, None, "catalog.segment_column", f"unknown column '{info.segment_column}'"
                )
            )
            cat.info.segment_column = None
        return cat

    def _add_metric(
        self, metric: Metric, file: Path, line: int | None, report: Callable[..., None]
    ) -> None:
        """A checked metric joins the catalog unless its topic is unknown or its id taken."""
        if metric.topic and metric.topic not in self.topics:
            report(file, line, f"metrics {metric.id}", f"unknown topic '{metric.topic}'")
        elif metric.id in self.metrics:
            report(file, line, f"metrics {metric.id}", "metric defined twice")
        else:
            self.metrics[metric.id] = metric

    # ---- look-ups -------------------------------------------------------------------
    def has_column(self, qualified: str) -> bool:
        table, _, column = qualified.lower().rpartition(".")
        return table in self.tables and self.tables[table].column(column) is not None

    def column(self, qualified: str) -> Column | None:
        table, _, column = qualified.lower().rpartition(".")
        return self.tables[table].column(column) if table in self.tables else None

    def allowed_columns(self) -> dict[str, set[str]]:
        """Columns per table, as the SQL guard checks them (built once per loaded catalog)."""
        if "allowed_columns" not in self.cache:
            self.cache["allowed_columns"] = {
                name: {c.name for c in t.columns} for name, t in self.tables.items()
            }
        return self.cache["allowed_columns"]

    def metric_date_column(self, metric: Metric) -> str | None:
        """The default date when it is a column of the metric's own table, else None."""
        ref = self.metric_date(metric)
        return ref.column if ref and ref.table == metric.table else None

    def resolve_date(self, metric: Metric, written: str) -> DateRef | None:
        """`written` as a column of the metric's table, or as table.column (schema optional)."""
        own = self.tables.get(metric.table)
        if own is not None and own.column(written) is not None:
            return DateRef("", metric.table, written)
        table_part, _, column = written.rpartition(".")
        table_part = table_part.lower()
        names = [t for t in self.tables if t == table_part or t.rsplit(".", 1)[-1] == table_part]
        if len(names) != 1:
            return None
        col = self.tables[names[0]].column(column)
        return DateRef("", names[0], col.name) if col else None

    def metric_dates(self, metric: Metric) -> list[DateRef]:
        """Every date the metric can be filtered by, the default first."""
        if metric.dates:
            names = sorted(
                metric.dates, key=lambda n: n != (metric.default_date or next(iter(metric.dates)))
            )
            out = []
            for name in names:
                ref = self.resolve_date(metric, metric.dates[name])
                if ref:
                    out.append(DateRef(name, ref.table, ref.column))
            return out
        written = metric.date_column or self.tables[metric.table].default_date
        ref = self.resolve_date(metric, written) if written else None
        return [ref] if ref else []

    def metric_date(self, metric: Metric, name: str | None = None) -> DateRef | None:
        """The named date of a metric (the default one when `name` is None)."""
        dates = self.metric_dates(metric)
        if name is None:
            return dates[0] if dates else None
        return next((d for d in dates if d.name == name), None)

    def _build_ratio(self, metric: Metric) -> str | None:
        """Write a ratio metric's expression from its two metrics (each restricted to its own
        filter), or say why it cannot be: a part missing, another table, or a date of its own
        that the parts do not share."""
        import sqlglot

        from vitrina.catalog.aggregates import restrict

        parts = []
        for what, ref in (("numerator", metric.numerator), ("denominator", metric.denominator)):
            part = self.metrics.get(ref or "")
            if part is None:
                return f"{what} '{ref}' is not a metric of the catalog (defined and valid)"
            if part.table != metric.table:
                return f"{what} '{ref}' is a metric of {part.table}, not of {metric.table}"
            tree = sqlglot.parse_one(part.expression, read="postgres")
            if part.filter:
                tree = restrict(tree, sqlglot.parse_one(part.filter, read="postgres"), "case")
            parts.append(tree.sql(dialect="postgres"))
        if metric.table not in self.tables:
            return f"unknown table '{metric.table}'"
        scale = "100.0" if metric.format == "percent" else "1.0"
        metric.expression = f"{scale} * ({parts[0]}) / NULLIF({parts[1]}, 0)"
        return self._bad_metric_date(metric)

    def _bad_metric_date(self, metric: Metric) -> str | None:
        """Why a metric's date columns cannot be used, or None when they can."""
        written = dict(metric.dates) or ({"": metric.date_column} if metric.date_column else {})
        for name, column in written.items():
            ref = self.resolve_date(metric, column)
            what = f"dates.{name}" if name else "date_column"
            if ref is None:
                return (
                    f"{what} '{column}' is not a column of {metric.table} nor table.column of a "
                    f"catalog table"
                )
            if ref.table != metric.table and self.join_path(metric.table, ref.table) is None:
                return (
                    f"{what} '{column}': no many-to-one relation path from {metric.table} to "
                    f"{ref.table}; add it to relations"
                )
        return None

    def _join_graph(self) -> JoinGraph:
        """The relations as an adjacency map with cached shortest paths, built once per
        catalog (rebuilt only when the relation list itself is replaced or grows)."""
        token = (id(self.relations), len(self.relations))
        graph = self.cache.get("join_graph")
        if graph is None or graph.token != token:
            graph = self.cache["join_graph"] = JoinGraph.build(self.relations, token)
        return graph

    def neighbours(self, table: str) -> list[tuple[str, Relation, bool]]:
        """Tables one join away: (other table, relation, True when `table` is the many side)."""
        return list(self._join_graph().adjacency.get(table, ()))

    def join_path(
        self, start: str, goal: str, *, many_to_one_only: bool = True
    ) -> list[Relation] | None:
        """Shortest relation path (BFS, bounded depth). Many-to-one only by default, so a join
        never multiplies the rows of the fact table it starts from."""
        if start == goal:
            return []
        path = self._join_graph().paths_from(start, many_to_one_only).get(goal)
        return list(path) if path is not None else None

    def join_paths(self, start: str, goal: str) -> list[list[Relation]]:
        """Every many-to-one relation path from `start` to `goal` that visits no table twice
        (at most MAX_JOIN_DEPTH joins, at most MAX_PATHS paths), shortest first."""
        if start == goal:
            return [[]]
        if goal not in self._join_graph().paths_from(start):  # the cached search: no path at all
            return []
        found: list[list[Relation]] = []
        stack: list[tuple[str, list[Relation], frozenset[str]]] = [(start, [], frozenset({start}))]
        while stack and len(found) < MAX_PATHS:
            table, path, seen = stack.pop()
            if len(path) >= MAX_JOIN_DEPTH:
                continue
            for other, rel, forward in self.neighbours(table):
                if other in seen or (not forward and rel.kind != "one_to_one"):
                    continue
                if other == goal:
                    found.append([*path, rel])
                else:
                    stack.append((other, [*path, rel], seen | {other}))
        return sorted(found, key=len)

    def instructions_for(self, tags: set[str]) -> list[Instruction]:
        """Only the instructions tagged with something in use (untagged ones always apply)."""
        return [i for i in self.instructions if not i.tags or tags & {t.lower() for t in i.tags}]

    def dictionary_for(self, table: str, column: str) -> Dictionary | None:
        return self.dictionaries.get(f"{table}.{column}")


@dataclass
class JoinGraph:
    """Who joins whom, and the shortest paths out of each start table, computed once.

    `paths_from(start)` is one breadth-first search from `start` over the whole graph
    (bounded by MAX_JOIN_DEPTH); a goal's path is the one found when the goal is first
    reached, which is exactly the path a search for that goal alone returns.
    """

    token: tuple[int, int]
    adjacency: dict[str, list[tuple[str, Relation, bool]]]
    _paths: dict[tuple[str, bool], dict[str, list[Relation]]] = field(default_factory=dict)

    @classmethod
    def build(cls, relations: list[Relation], token: tuple[int, int]) -> JoinGraph:
        adjacency: dict[str, list[tuple[str, Relation, bool]]] = {}
        for rel in relations:  # relation order kept: the first shortest path wins, as before
            left, right = rel.left_table, rel.right_table
            adjacency.setdefault(left, []).append((right, rel, True))
            if right != left:
                adjacency.setdefault(right, []).append((left, rel, False))
        return cls(token=token, adjacency=adjacency)

    def paths_from(self, start: str, many_to_one_only: bool = True) -> dict[str, list[Relation]]:
        key = (start, many_to_one_only)
        found = self._paths.get(key)
        if found is None:
            found = self._paths[key] = self._search(start, many_to_one_only)
        return found

    def _search(self, start: str, many_to_one_only: bool) -> dict[str, list[Relation]]:
        paths: dict[str, list[Relation]] = {}
        queue: deque[tuple[str, list[Relation]]] = deque([(start, [])])
        seen = {start}
        while queue:  # bounded: each table enters the queue once
            table, path = queue.popleft()
            if len(path) >= MAX_JOIN_DEPTH:
                continue
            for other, rel, forward in self.adjacency.get(table, ()):
                if other in seen or (many_to_one_only and not forward and rel.kind != "one_to_one"):
                    continue
                new_path = [*path, rel]
                paths[other] = new_path
                seen.add(other)
                queue.append((other, new_path))
        return paths
