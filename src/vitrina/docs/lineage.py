"""The lineage graph of one measure, from DAX down to the procedures that load the tables.

measure -> measures it uses (transitively) -> model columns and tables -> partition
sources -> views (views on views) -> warehouse tables -> procedures that write them ->
the tables those procedures read (staging), recursively. Cycles are cut by a visited set
and the SQL walk by a depth bound; both cuts are recorded. Column-level links come from
the partition's column mapping and the index's view column lineage; where neither is
available the link is table-level, and `level` says which.
"""

from __future__ import annotations

import time
from typing import Any, Literal

from pydantic import BaseModel, Field

from vitrina.docs.dax.resolver import DaxDeps
from vitrina.docs.dax.syntax import check as dax_check
from vitrina.docs.model import Measure
from vitrina.docs.order_notes import order_basis, order_notes
from vitrina.docs.sources.types import SourceRef
from vitrina.docs.sqlindex.models import ColumnDerivation
from vitrina.docs.workspace import Workspace
from vitrina.trace import Trace

MAX_MEASURE_DEPTH = 50
MAX_SQL_DEPTH = 8
EXCERPT_LINES = 40


class MeasureTimeout(Exception):
    """The per-measure time limit ran out."""


class LineageNode(BaseModel):
    id: str
    kind: (
        str  # measure, model_table, source, view, table, procedure, function, missing, unsupported
    )
    label: str
    file: str | None = None
    line: int | None = None


class LineageEdge(BaseModel):
    source: str
    target: str
    label: str = ""


class SqlExcerpt(BaseModel):
    """The statement of a procedure that writes a table: what the document quotes."""

    procedure: str
    target: str
    kind: str
    file: str | None = None
    line: int | None = None
    sql: str = ""
    parsed_by: str | None = None


class ProcedureInfo(BaseModel):
    name: str
    file: str | None = None
    line: int | None = None
    writes: list[str] = Field(default_factory=list)
    reads: list[str] = Field(default_factory=list)
    excerpts: list[SqlExcerpt] = Field(default_factory=list)
    partial: bool = False
    dynamic_sql: bool = False
    order: int | None = None  # place in the load's execution order (call graph, else data order)
    order_basis: str | None = None  # "file", "job", "exec" or "data" (inferred from data flow)
    called_by: list[str] = Field(default_factory=list)
    external: list[str] = Field(default_factory=list)  # BULK INSERT files, OPENROWSET sources


class OrderNote(BaseModel):
    """A cycle broken in the inferred load order, or a sequence that data flow contradicts."""

    kind: Literal["cycle", "conflict"]
    members: list[str] = Field(default_factory=list)  # cycle: the modules; conflict: before, after
    tables: list[str] = Field(default_factory=list)
    first: str = ""  # cycle: the module run first to break it
    sequence: str = ""  # conflict: "job", "file" or the orchestrator's name


class ColumnStep(BaseModel):
    """One write of a business column: `target.column` gets `expression` in `procedure`."""

    model_column: str
    target: str
    column: str
    procedure: str
    file: str | None = None
    line: int | None = None
    expression: str
    computed: bool = True  # False: the value is copied unchanged from `sources`
    sources: list[str] = Field(default_factory=list)
    exact: bool = True  # False: the expression is sqlglot's normalised form, not the file's text
    steps: list[ColumnDerivation] = Field(default_factory=list)  # computations in CTEs, subqueries


class CalculatedItem(BaseModel):
    """A calculated column or calculated table the measure uses, with its DAX."""

    kind: Literal["calculated_column", "calculated_table"]
    name: str
    expression: str


class SqlObjectInfo(BaseModel):
    name: str
    kind: str
    file: str | None = None
    line: int | None = None
    depth: int = 0
    found: bool = True


class ColumnLink(BaseModel):
    model_column: str  # 'Table'[Column]
    source: str  # schema.object.column, or schema.object for table-level
    level: Literal["column", "table"]
    via: list[str] = Field(default_factory=list)


class MeasureLineage(BaseModel):
    """Everything the documents say about one measure's origin (serialised into index.json)."""

    measure: str
    table: str
    expression: str
    direct_measures: list[str] = Field(default_factory=list)
    all_measures: list[str] = Field(default_factory=list)
    columns: list[str] = Field(default_factory=list)
    model_tables: list[str] = Field(default_factory=list)
    sources: dict[str, list[SourceRef]] = Field(default_factory=dict)
    sql_objects: list[SqlObjectInfo] = Field(default_factory=list)
    procedures: list[ProcedureInfo] = Field(default_factory=list)
    column_links: list[ColumnLink] = Field(default_factory=list)
    column_steps: list[ColumnStep] = Field(default_factory=list)
    calculated: list[CalculatedItem] = Field(default_factory=list)
    syntax_errors: list[str] = Field(default_factory=list)
    never_written: list[str] = Field(default_factory=list)
    order_notes: list[OrderNote] = Field(default_factory=list)
    level: Literal["column", "table", "mixed", "none"] = "none"
    relationships: list[str] = Field(default_factory=list)
    time_intelligence: list[str] = Field(default_factory=list)
    filters: list[str] = Field(default_factory=list)
    variables: list[str] = Field(default_factory=list)
    unresolved: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    nodes: list[LineageNode] = Field(default_factory=list)
    edges: list[LineageEdge] = Field(default_factory=list)
    truncated: bool = False

    def node_ids(self) -> set[str]:
        return {n.id for n in self.nodes}


def key(name: str) -> str:
    """`[Fact].[Sale]` / `Fact.Sale` -> `fact.sale` (the index's key form)."""
    parts = [p.strip().strip('[]"`').strip() for p in _split_dotted(name)]
    return ".".join(p for p in parts if p).lower()


def _split_dotted(name: str) -> list[str]:
    out, buf, depth = [], [], 0
    for ch in name:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        if ch == "." and depth == 0:
            out.append("".join(buf))
            buf = []
        else:
            buf.append(ch)
    out.append("".join(buf))
    return out


def col_ref(table: str, column: str) -> str:
    return f"'{table}'[{column}]"


class _Builder:
    def __init__(
        self, ws: Workspace, measure: Measure, deadline: float | None, trace: Trace
    ) -> None:
        self.ws = ws
        self.trace = trace
        self.deadline = deadline
        self.lin = MeasureLineage(
            measure=measure.name, table=measure.table, expression=measure.expression
        )
        self._nodes: dict[str, LineageNode] = {}
        self._edges: set[tuple[str, str, str]] = set()

    def check_time(self) -> None:
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise MeasureTimeout(self.lin.measure)

    def node(
        self, id_: str, kind: str, label: str, file: str | None = None, line: int | None = None
    ) -> str:
        if id_ not in self._nodes:
            self._nodes[id_] = LineageNode(id=id_, kind=kind, label=label, file=file, line=line)
        return id_

    def edge(self, a: str, b: str, label: str = "") -> None:
        if a != b:
            self._edges.add((a, b, label))

    def warn(self, text: str) -> None:
        if text not in self.lin.warnings:
            self.lin.warnings.append(text)

    def finish(self) -> MeasureLineage:
        self.lin.nodes = list(self._nodes.values())
        self.lin.edges = [
            LineageEdge(source=a, target=b, label=lab) for a, b, lab in sorted(self._edges)
        ]
        return self.lin


def build_lineage(
    ws: Workspace,
    measure: Measure,
    *,
    deadline: float | None = None,
    trace: Trace | None = None,
    max_sql_depth: int = MAX_SQL_DEPTH,
) -> MeasureLineage:
    """Trace one measure. Raises MeasureTimeout when `deadline` (monotonic) passes."""
    trace = trace or Trace("docs.lineage")
    b = _Builder(ws, measure, deadline, trace)
    root = b.node(f"m:{measure.name}", "measure", f"[{measure.name}]")
    _check_syntax(b, measure)
    deps = ws.deps(measure)
    b.lin.direct_measures = sorted(deps.measures)
    b.lin.variables = list(deps.variables)
    _note_functions(b.lin, deps)
    closure = _measure_closure(b, measure)  # 1. measures, transitively (cycle-safe)
    columns = _model_columns(b, measure, closure)  # 2. model columns and tables
    sql_roots = _partition_sources(b)  # 3. partition sources
    _warehouse(b, sql_roots, max_sql_depth)  # 4. views, tables, loaders, staging
    _column_links(b, columns)  # 5. column-level links, then the SQL of each business column
    if ws.index is not None:
        _column_steps(b, ws.index)
    b.trace.measurement("lineage built", measure=measure.name, root=root, nodes=len(b._nodes))
    return b.finish()


def _check_syntax(b: _Builder, measure: Measure) -> None:
    problem = dax_check(measure.expression)
    if problem is None:
        return
    where = f" ({measure.file}:{measure.line})" if measure.file and measure.line else ""
    text = f"DAX syntax error in [{measure.name}] at {problem.text()}{where}"
    b.lin.syntax_errors.append(text)
    b.warn(text)
    b.trace.warning(
        "DAX syntax error",
        measure=measure.name,
        line=problem.line,
        column=problem.column,
        error=problem.message,
    )


def _measure_closure(b: _Builder, measure: Measure) -> list[Measure]:
    """The measure and every measure it uses, breadth-first, cycle-safe and depth-bounded."""
    closure: list[Measure] = [measure]
    seen = {measure.name.lower()}
    frontier = [(measure, 0)]
    while frontier:
        b.check_time()
        current, depth = frontier.pop(0)
        for target in _used_measures(b, current):
            if target.name.lower() in seen:
                continue
            if depth + 1 > MAX_MEASURE_DEPTH:
                b.lin.truncated = True
                b.warn(
                    f"measure dependencies deeper than {MAX_MEASURE_DEPTH} levels were not followed"
                )
                continue
            seen.add(target.name.lower())
            closure.append(target)
            frontier.append((target, depth + 1))
    b.lin.all_measures = [m.name for m in closure[1:]]
    return closure


def _used_measures(b: _Builder, current: Measure) -> list[Measure]:
    """Measures `current` uses directly, each drawn as a `uses` edge."""
    out = []
    for name in sorted(b.ws.deps(current).measures):
        target = b.ws.measure_by_name(name)
        if target is None:
            continue
        b.edge(
            f"m:{current.name}", b.node(f"m:{target.name}", "measure", f"[{target.name}]"), "uses"
        )
        out.append(target)
    return out


def _model_columns(b: _Builder, measure: Measure, closure: list[Measure]) -> set[tuple[str, str]]:
    """Model columns and tables of the closure; calculated columns followed to what they use."""
    columns: set[tuple[str, str]] = set()
    tables_by_measure: dict[str, set[str]] = {}
    for m in closure:
        d = b.ws.deps(m)
        if m is not measure:
            _note_functions(b.lin, d)
        for u in d.unresolved:
            text = f"unresolved reference {u} in [{m.name}]"
            if text not in b.lin.unresolved:
                b.lin.unresolved.append(text)
        tables_by_measure[m.name] = set(d.tables) | {t for t, _ in d.columns}
        columns |= d.columns
    _calculated_column_deps(b, columns, tables_by_measure.setdefault(measure.name, set()))
    b.lin.columns = sorted(col_ref(t, c) for t, c in columns)
    _calculated_columns(b, columns)
    _model_tables(b, tables_by_measure, columns)
    return columns


def _calculated_column_deps(b: _Builder, columns: set[tuple[str, str]], tables: set[str]) -> None:
    """Add what calculated columns use to `columns` (and their tables to the measure's)."""
    pending = sorted(columns)
    done: set[tuple[str, str]] = set()
    while pending:
        col = pending.pop()
        if col in done:
            continue
        done.add(col)
        cd = b.ws.column_deps(*col)
        if cd is None:
            continue
        for c in sorted(cd.columns):
            if c not in columns:
                columns.add(c)
                pending.append(c)
        tables.update(cd.tables)


def _calculated_columns(b: _Builder, columns: set[tuple[str, str]]) -> None:
    for t, c in sorted(columns):
        table_obj = b.ws.table(t)
        col_obj = table_obj.column(c) if table_obj else None
        if col_obj is not None and col_obj.expression and col_obj.kind == "calculated":
            b.lin.calculated.append(
                CalculatedItem(
                    kind="calculated_column", name=col_ref(t, c), expression=col_obj.expression
                )
            )


def _model_tables(
    b: _Builder, tables_by_measure: dict[str, set[str]], columns: set[tuple[str, str]]
) -> None:
    model_tables: set[str] = {t for t, _ in columns}
    for mname, tabs in tables_by_measure.items():
        for t in sorted(tabs):  # sorted: node order (and so the content hash) is set-order free
            model_tables.add(t)
            b.edge(f"m:{mname}", b.node(f"t:{t}", "model_table", f"'{t}'"), "reads")
    b.lin.model_tables = sorted(model_tables)
    if not model_tables:
        b.warn("the measure reads no model column or table (a constant or a parameter)")


def _partition_sources(b: _Builder) -> list[tuple[str, str]]:
    """(model table node, warehouse object) for every table or query partition source."""
    sql_roots: list[tuple[str, str]] = []
    for t in b.lin.model_tables:
        b.check_time()
        refs = b.ws.sources(t)
        b.lin.sources[t] = refs
        for ref in refs:
            for w in ref.warnings:
                b.warn(f"'{t}': {w}")
            if ref.kind in ("table", "query"):
                sql_roots += [(f"t:{t}", obj) for obj in ref.objects]
            else:
                _other_source(b, t, ref)
    return sql_roots


def _other_source(b: _Builder, t: str, ref: SourceRef) -> None:
    """Unsupported connectors, calculated tables, calculation groups, inline data, unknowns."""
    if ref.kind == "unsupported":
        b.edge(f"t:{t}", b.node(f"u:{ref.detail}", "unsupported", ref.detail), "loaded from")
    elif ref.kind in ("calculated", "calculation_group", "inline"):
        table_obj = b.ws.table(t)
        for part in table_obj.partitions if table_obj else []:
            if ref.kind == "calculated" and part.kind == "calculated" and part.expression:
                b.lin.calculated.append(
                    CalculatedItem(
                        kind="calculated_table", name=f"'{t}'", expression=part.expression
                    )
                )
        b.edge(f"t:{t}", b.node(f"c:{t}:{ref.kind}", "source", ref.detail), "defined as")
    else:
        b.edge(f"t:{t}", b.node(f"x:{t}", "missing", ref.detail or "unknown source"), "source")


def _warehouse(b: _Builder, sql_roots: list[tuple[str, str]], max_sql_depth: int) -> None:
    index = b.ws.index
    if sql_roots and index is None:
        b.warn("no SQL folder given: lineage stops at the partition sources")
        for tid, obj in sql_roots:
            b.edge(tid, b.node(f"s:{obj}", "table", obj), "partition source")
    elif sql_roots:
        _walk_sql(b, index, sql_roots, max_sql_depth)


def _note_functions(lin: MeasureLineage, deps: DaxDeps) -> None:
    for target, uses in (
        (lin.relationships, deps.relationships),
        (lin.time_intelligence, deps.time_intelligence),
        (lin.filters, deps.filters),
    ):
        for use in uses:
            text = use.text()
            if text not in target:
                target.append(text)


def _obj_kind(obj: Any) -> str:
    return str(getattr(obj, "kind", "table") or "table").lower()


MAX_COLUMN_STEPS = 200


def _walk_sql(b: _Builder, index: Any, roots: list[tuple[str, str]], max_depth: int) -> None:
    """views -> tables (with or without DDL, `##` temps) -> their writers -> what those read."""
    lin = b.lin
    visited: set[str] = set()
    # (from node, object key, edge label, depth, the procedure that read it)
    queue: list[tuple[str, str, str, int, str | None]] = [
        (tid, obj, "partition source", 0, None) for tid, obj in roots
    ]
    procs: dict[str, ProcedureInfo] = {}
    visited_flows: set[tuple[str, str]] = set()
    while queue:
        b.check_time()
        parent, name, label, depth, reader = queue.pop(0)
        k = key(name)
        name = _show(index, name)
        if k.startswith("@"):
            continue  # a table-valued parameter: the index says so on the procedure
        local = k.startswith("#") and not k.startswith("##")
        obj = None if local else index.get(k)
        writers = _scoped_writers(index, k, reader) if local else index.writers_of(k)
        nid = f"s:{k}@{reader}" if local else f"s:{k}"
        if obj is None and not writers:
            if local:
                b.warn(
                    f"temp table {name} read by "
                    f"{_display(index, index.get(reader or ''), reader or '')} "
                    "is filled by no procedure it calls or is called by"
                )
                continue
            b.edge(parent, b.node(nid, "missing", f"{name} (not in SQL folder)"), label)
            if k not in visited:
                visited.add(k)
                lin.sql_objects.append(
                    SqlObjectInfo(name=name, kind="unknown", depth=depth, found=False)
                )
                if depth == 0:
                    b.warn(f"warehouse object {name} was not found in the SQL folder")
                else:
                    _never_written(b, name)
                b.trace.warning("object not found in SQL index", object=name, measure=lin.measure)
            continue
        if obj is not None:
            kind = _obj_kind(obj)
            display = _display(index, obj, name)
        else:  # written by the folder's procedures, defined elsewhere (or a temp table)
            kind = "table"
            display = name if k.startswith("#") else _show(index, name)
        label_text = (
            display
            if obj is not None
            else (
                f"{display} (temp table)"
                if k.startswith("#")
                else f"{display} (no DDL in SQL folder)"
            )
        )
        b.edge(
            parent,
            b.node(nid, kind, label_text, getattr(obj, "file", None), getattr(obj, "line", None)),
            label,
        )
        if nid in visited:
            continue
        visited.add(nid)
        lin.sql_objects.append(
            SqlObjectInfo(
                name=display,
                kind=kind if obj is not None else ("temp table" if k.startswith("#") else "table"),
                file=b.ws.display_path(getattr(obj, "file", None)),
                line=getattr(obj, "line", None),
                depth=depth,
                found=obj is not None or bool(writers),
            )
        )
        if obj is not None:
            _object_warnings(b, obj, display)
        if depth >= max_depth:
            lin.truncated = True
            b.warn(f"SQL lineage cut at depth {max_depth} (at {display})")
            b.trace.rejected("SQL lineage depth bound reached", object=display, depth=depth)
            continue
        if kind == "view":
            for src in index.view_sources(k) or []:
                queue.append((nid, src, "selects from", depth + 1, None))
        elif kind in ("table", "unknown"):
            if not writers:
                _never_written(b, display)
            for proc in writers:
                pk = key(proc.name)
                pid = f"s:{pk}"
                info = procs.get(pk)
                if info is None:
                    info = _procedure_info(b, index, proc)
                    procs[pk] = info
                    lin.procedures.append(info)
                    _object_warnings(b, proc, info.name)
                b.edge(nid, b.node(pid, "procedure", info.name, info.file, info.line), "loaded by")
                info.excerpts.extend(_excerpts(proc, k, info.name, info.file, display))
                if (pk, k) in visited_flows:
                    continue
                visited_flows.add((pk, k))
                for read in _flow_sources(proc, k, info):
                    queue.append((pid, read, "reads", depth + 1, proc.name))
                for ext in _external(proc, k):
                    b.edge(pid, b.node(f"x:{ext}", "unsupported", ext), "loads from")
        elif kind in ("function",):
            for src in getattr(obj, "reads", set()) or []:
                queue.append((nid, src, "reads", depth + 1, None))
    lin.procedures.sort(key=lambda p: (p.order if p.order is not None else 1 << 30, p.name.lower()))
    lin.order_notes = order_notes(index, list(procs))


def _procedure_info(b: _Builder, index: Any, proc: Any) -> ProcedureInfo:
    name = _display(index, proc, proc.name)
    if proc.name.startswith("script:"):
        name = f"script {b.ws.display_path(proc.file) or proc.file}"
    callers = []
    for caller in index.callers_of(proc.name):
        line = next(
            (
                ln
                for c, ln in caller.ordered_calls
                if key(c) == proc.name or index.resolve(c) == proc.name
            ),
            None,
        )
        where = _display(index, caller, caller.name)
        if caller.name.startswith("script:"):
            where = f"script {b.ws.display_path(caller.file) or caller.file}"
        callers.append(f"{where}" + (f" (line {line})" if line else ""))
    external = sorted({e for st in proc.statements for e in st.external})
    return ProcedureInfo(
        name=name,
        file=b.ws.display_path(proc.file),
        line=proc.line,
        writes=sorted((_show(index, w) for w in proc.writes), key=str.lower),
        reads=sorted((_show(index, r) for r in proc.reads), key=str.lower),
        partial=bool(proc.partial),
        dynamic_sql=bool(proc.dynamic_sql),
        order=index.order_of(proc.name),
        order_basis=order_basis(index, proc.name),
        called_by=callers,
        external=external,
    )


def _never_written(b: _Builder, display: str) -> None:
    text = (
        f"{display} is read but nothing in the SQL folder writes it "
        "(loaded from outside: an ETL package, a file or another database?)"
    )
    if text not in b.lin.never_written:
        b.lin.never_written.append(text)
    b.warn(text)


def _scoped_writers(index: Any, temp: str, reader: str | None) -> list[Any]:
    """Writers of a `#temp` among the modules related to its reader by calls.

    A local temp table is shared only down a call chain: filled by a callee for its caller,
    or created by a caller for its callee; two unrelated procedures using the same name
    never meet.
    """
    if reader is None:
        return []
    related = {reader, *index.callees_of(reader)}
    frontier = [reader]
    for _ in range(8):  # callers up the chain, each with everything they call
        nxt = []
        for name in frontier:
            for caller in index.callers_of(name):
                if caller.name not in related:
                    related.add(caller.name)
                    related.update(index.callees_of(caller.name))
                    nxt.append(caller.name)
        frontier = nxt
    return [w for w in index.writers_of(temp) if w.name in related and w.name != reader]


def _external(proc: Any, table_key: str) -> list[str]:
    return sorted(
        {
            e
            for st in proc.statements
            if table_key in {key(t) for t in st.targets}
            for e in st.external
        }
    )


def _column_steps(b: _Builder, index: Any) -> None:
    """Follow each mapped column back through the writes that fill it (bounded, cycle-safe)."""
    seen: set[tuple[str, str, str, int]] = set()
    for link in b.lin.column_links:
        if link.level != "column" or "." not in link.source:
            continue
        table, column = link.source.rsplit(".", 1)
        found = index.get(table)
        if found is not None and _obj_kind(found) == "view":
            continue  # its base columns are links of their own
        _follow_column(b, index, link.model_column, key(table), column, seen)


def _follow_column(
    b: _Builder, index: Any, model_column: str, table: str, column: str, seen: set[Any]
) -> None:
    """Breadth-first from `table.column` to the writes that fill it and their sources."""
    frontier: list[tuple[str, str, int, str | None]] = [(table, column, 0, None)]
    visited: set[tuple[str, str, str | None]] = set()
    while frontier and len(b.lin.column_steps) < MAX_COLUMN_STEPS:
        b.check_time()
        tkey, col, depth, reader = frontier.pop(0)
        if (tkey, col.lower(), reader) in visited or depth > MAX_SQL_DEPTH or col == "*":
            continue
        visited.add((tkey, col.lower(), reader))
        for writer, st, a in _assignments_of(index, tkey, col, reader):
            mark = (tkey, a.column.lower(), writer.name, a.line or st.line)
            if mark not in seen:
                seen.add(mark)
                b.lin.column_steps.append(_column_step(b, index, model_column, writer, st, a))
            for src in a.sources:
                stable, scol = src.rsplit(".", 1)
                frontier.append((key(stable), scol, depth + 1, writer.name))


def _assignments_of(index: Any, table: str, column: str, reader: str | None) -> list[Any]:
    """(writer, statement, assignment) for every write of `table.column` a reader can see."""
    out = []
    for writer in _column_writers(index, table, reader):
        for st in writer.statements:
            if table not in {key(t) for t in st.targets}:
                continue
            out += [
                (writer, st, a)
                for a in st.assignments
                if key(a.target) == table and a.column.lower() == column.lower()
            ]
    return out


def _column_step(
    b: _Builder, index: Any, model_column: str, writer: Any, st: Any, a: Any
) -> ColumnStep:
    return ColumnStep(
        model_column=model_column,
        target=_show(index, a.target),
        column=a.column,
        procedure=_procedure_name(b, index, writer),
        file=b.ws.display_path(writer.file),
        line=a.line or st.line,
        expression=a.expression,
        computed=not a.passthrough,
        sources=[_show_column(index, x) for x in a.sources],
        exact=a.exact,
        steps=list(a.steps),
    )


def _show_column(index: Any, name: str) -> str:
    table, column = name.rsplit(".", 1)
    return f"{_show(index, table)}.{column}"


def _column_writers(index: Any, table_key: str, reader: str | None) -> list[Any]:
    """Who fills `table_key`. A local `#temp` or `@table`: the reading procedure itself and,
    for a `#temp`, its call chain (a caller that creates it, a callee that fills or updates it)."""
    if table_key[:1] not in ("#", "@") or table_key.startswith("##"):
        return index.writers_of(table_key)
    own = index.get(reader) if reader else None
    if own is None and reader:
        own = next((s for s in index.scripts if s.name == reader), None)
    mine = (
        [own]
        if own is not None
        and any(table_key in {key(t) for t in st.targets} for st in own.statements)
        else []
    )
    if table_key.startswith("@"):
        return mine
    return mine + [w for w in _scoped_writers(index, table_key, reader) if w not in mine]


def _procedure_name(b: _Builder, index: Any, proc: Any) -> str:
    if proc.name.startswith("script:"):
        return f"script {b.ws.display_path(proc.file) or proc.file}"
    return _display(index, proc, proc.name)


def _flow_sources(proc: Any, table_key: str, info: ProcedureInfo) -> list[str]:
    """The tables whose rows reach `table_key` through this procedure.

    The index's `flows` is precise (temp tables collapsed); without it, every table the
    procedure reads and does not write is a candidate.
    """
    flows = getattr(proc, "flows", None) or {}
    for target, sources in flows.items():
        if key(target) == table_key:
            return sorted(key(x) for x in sources if key(x) != table_key)
    writes = {key(w) for w in info.writes}
    return [key(r) for r in info.reads if key(r) not in writes and key(r) != table_key]


def _s(value: Any) -> str | None:
    return str(value) if value is not None else None


def _object_warnings(b: _Builder, obj: Any, display: str) -> None:
    own = getattr(obj, "warnings", []) or []
    # the index's own warnings say the same with line numbers; the generic line only when they
    # do not
    if getattr(obj, "partial", False) and not any(
        "token scan" in w or w.startswith("dynamic SQL") for w in own
    ):
        b.warn(f"{display}: parsed partially (token scan); its reads/writes may be incomplete")
    if getattr(obj, "dynamic_sql", False) and not any(w.startswith("dynamic SQL") for w in own):
        b.warn(f"{display}: builds dynamic SQL; objects named only in that SQL are not traced")
    for w in own:
        b.warn(f"{display}: {w}")


def _display(index: Any, obj: Any, fallback: str) -> str:
    """An indexed object's name in the case its definition uses (`Fact.Sale`)."""
    if obj is None:
        return fallback
    return str(getattr(obj, "display", "") or getattr(obj, "name", "") or fallback)


def _show(index: Any, name: str) -> str:
    """Any warehouse name as the index knows it, else as given."""
    show = getattr(index, "display", None)
    return show(name) if callable(show) else name


def _excerpts(
    proc: Any, table_key: str, pname: str, file: str | None, target: str | None = None
) -> list[SqlExcerpt]:
    out: list[SqlExcerpt] = []
    for st in getattr(proc, "statements", []) or []:
        targets = {key(t) for t in getattr(st, "targets", []) or []}
        if table_key not in targets:
            continue
        sql = str(getattr(st, "sql", "") or "")
        lines = sql.splitlines()
        if len(lines) > EXCERPT_LINES:
            sql = "\n".join(
                [*lines[:EXCERPT_LINES], f"-- ... {len(lines) - EXCERPT_LINES} more lines"]
            )
        out.append(
            SqlExcerpt(
                procedure=pname,
                target=target or table_key,
                kind=str(getattr(st, "kind", "")),
                file=file,
                line=getattr(st, "line", None),
                sql=sql,
                parsed_by=_s(getattr(st, "parsed_by", None)),
            )
        )
    return out


def _column_links(b: _Builder, columns: set[tuple[str, str]]) -> None:
    ws, lin = b.ws, b.lin
    index = ws.index
    linked = 0
    data_cols = 0
    for table, column in sorted(columns):
        t = ws.table(table)
        col = t.column(column) if t else None
        if col is None or col.kind != "data":
            continue
        data_cols += 1
        src_col = (col.source_column or col.name).strip("[]")
        refs = [r for r in ws.sources(table) if r.kind in ("table", "query") and r.objects]
        got_column = False
        for ref in refs:
            mapped = ref.columns.get(
                src_col.lower(), src_col if (ref.kind == "table" or not ref.columns) else None
            )
            if len(ref.objects) != 1 or mapped is None:
                for obj in ref.objects:
                    lin.column_links.append(
                        ColumnLink(
                            model_column=col_ref(table, column),
                            source=_show(index, obj),
                            level="table",
                        )
                    )
                continue
            obj = ref.objects[0]
            lin.column_links.append(
                ColumnLink(
                    model_column=col_ref(table, column),
                    source=f"{_show(index, obj)}.{mapped}",
                    level="column",
                )
            )
            got_column = True
            if index is not None:
                found = index.get(obj)
                if found is not None and _obj_kind(found) == "view":
                    try:
                        deeper = ws.view_column_lineage(obj, mapped)
                    except Exception as exc:
                        b.trace.suppressed(
                            "view column lineage failed",
                            view=obj,
                            column=mapped,
                            error=str(exc)[:200],
                        )
                        deeper = None
                    if deeper:
                        for base_table, base_col in deeper:
                            lin.column_links.append(
                                ColumnLink(
                                    model_column=col_ref(table, column),
                                    source=f"{_show(index, base_table)}.{base_col}",
                                    level="column",
                                    via=[_show(index, obj)],
                                )
                            )
                    else:
                        lin.column_links.append(
                            ColumnLink(
                                model_column=col_ref(table, column),
                                source=_show(index, obj),
                                level="table",
                                via=[_show(index, obj)],
                            )
                        )
        if got_column:
            linked += 1
    if data_cols == 0:
        # COUNTROWS('T') and the like read no column but still come from T's warehouse objects
        lin.level = (
            "table"
            if lin.sql_objects
            or any(
                r.kind in ("table", "query") and r.objects
                for refs in lin.sources.values()
                for r in refs
            )
            else "none"
        )
    elif linked == data_cols and not any(cl.level == "table" for cl in lin.column_links):
        lin.level = "column"
    elif linked == 0:
        lin.level = "table"
    else:
        lin.level = "mixed"
