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
from vitrina.docs.model import Measure
from vitrina.docs.sources.types import SourceRef
from vitrina.docs.workspace import Workspace
from vitrina.trace import Trace

MAX_MEASURE_DEPTH = 50
MAX_SQL_DEPTH = 8
EXCERPT_LINES = 40


class MeasureTimeout(Exception):
    """The per-measure time limit ran out."""


class LineageNode(BaseModel):
    id: str
    kind: str  # measure, model_table, source, view, table, procedure, function, missing, unsupported
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
    parts = [p.strip().strip("[]\"`").strip() for p in _split_dotted(name)]
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
    def __init__(self, ws: Workspace, measure: Measure, deadline: float | None, trace: Trace) -> None:
        self.ws = ws
        self.trace = trace
        self.deadline = deadline
        self.lin = MeasureLineage(measure=measure.name, table=measure.table, expression=measure.expression)
        self._nodes: dict[str, LineageNode] = {}
        self._edges: set[tuple[str, str, str]] = set()

    def check_time(self) -> None:
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise MeasureTimeout(self.lin.measure)

    def node(self, id_: str, kind: str, label: str, file: str | None = None, line: int | None = None) -> str:
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
        self.lin.edges = [LineageEdge(source=a, target=b, label=lab) for a, b, lab in sorted(self._edges)]
        return self.lin


def build_lineage(
    ws: Workspace, measure: Measure, *, deadline: float | None = None, trace: Trace | None = None,
    max_sql_depth: int = MAX_SQL_DEPTH,
) -> MeasureLineage:
    """Trace one measure. Raises MeasureTimeout when `deadline` (monotonic) passes."""
    trace = trace or Trace("docs.lineage")
    b = _Builder(ws, measure, deadline, trace)
    lin = b.lin
    root = b.node(f"m:{measure.name}", "measure", f"[{measure.name}]")
    deps = ws.deps(measure)
    lin.direct_measures = sorted(deps.measures)
    lin.variables = list(deps.variables)
    _note_functions(lin, deps)

    # 1. measures, transitively (cycle-safe)
    closure: list[Measure] = [measure]
    seen = {measure.name.lower()}
    frontier = [(measure, 0)]
    while frontier:
        b.check_time()
        current, depth = frontier.pop(0)
        cur_deps = ws.deps(current)
        for name in sorted(cur_deps.measures):
            target = ws.model.measure(name)
            if target is None:
                continue
            b.edge(f"m:{current.name}", b.node(f"m:{target.name}", "measure", f"[{target.name}]"), "uses")
            if target.name.lower() in seen:
                continue
            if depth + 1 > MAX_MEASURE_DEPTH:
                lin.truncated = True
                b.warn(f"measure dependencies deeper than {MAX_MEASURE_DEPTH} levels were not followed")
                continue
            seen.add(target.name.lower())
            closure.append(target)
            frontier.append((target, depth + 1))
    lin.all_measures = [m.name for m in closure[1:]]

    # 2. model columns and tables (calculated columns followed to what they use)
    columns: set[tuple[str, str]] = set()
    tables_by_measure: dict[str, set[str]] = {}
    for m in closure:
        d = ws.deps(m)
        if m is not measure:
            _note_functions(lin, d)
        for u in d.unresolved:
            text = f"unresolved reference {u} in [{m.name}]"
            if text not in lin.unresolved:
                lin.unresolved.append(text)
        tabs = set(d.tables) | {t for t, _ in d.columns}
        tables_by_measure[m.name] = tabs
        columns |= d.columns
    pending = sorted(columns)
    done_cols: set[tuple[str, str]] = set()
    while pending:
        col = pending.pop()
        if col in done_cols:
            continue
        done_cols.add(col)
        cd = ws.column_deps(*col)
        if cd is not None:
            for c in sorted(cd.columns):
                if c not in columns:
                    columns.add(c)
                    pending.append(c)
            tables_by_measure.setdefault(measure.name, set()).update(cd.tables)
    lin.columns = sorted(col_ref(t, c) for t, c in columns)
    model_tables: set[str] = set()
    for mname, tabs in tables_by_measure.items():
        for t in sorted(tabs):  # sorted: node order (and so the content hash) must not depend on set order
            model_tables.add(t)
            b.edge(f"m:{mname}", b.node(f"t:{t}", "model_table", f"'{t}'"), "reads")
    for t, _ in columns:
        model_tables.add(t)
    lin.model_tables = sorted(model_tables)
    if not model_tables:
        b.warn("the measure reads no model column or table (a constant or a parameter)")

    # 3. partition sources
    sql_roots: list[tuple[str, str]] = []  # (node id of model table, warehouse object key)
    for t in lin.model_tables:
        b.check_time()
        refs = ws.sources(t)
        lin.sources[t] = refs
        for ref in refs:
            for w in ref.warnings:
                b.warn(f"'{t}': {w}")
            if ref.kind in ("table", "query"):
                for obj in ref.objects:
                    sql_roots.append((f"t:{t}", obj))
            elif ref.kind == "unsupported":
                b.edge(f"t:{t}", b.node(f"u:{ref.detail}", "unsupported", ref.detail), "loaded from")
            elif ref.kind in ("calculated", "calculation_group", "inline"):
                b.edge(f"t:{t}", b.node(f"c:{t}:{ref.kind}", "source", ref.detail), "defined as")
            else:
                b.edge(f"t:{t}", b.node(f"x:{t}", "missing", ref.detail or "unknown source"), "source")

    # 4. the warehouse: views, tables, loaders, staging
    index = ws.index
    if sql_roots and index is None:
        b.warn("no SQL folder given: lineage stops at the partition sources")
        for tid, obj in sql_roots:
            b.edge(tid, b.node(f"s:{obj}", "table", obj), "partition source")
    elif sql_roots:
        _walk_sql(b, index, sql_roots, max_sql_depth)

    # 5. column-level links
    _column_links(b, columns)
    b.trace.measurement("lineage built", measure=measure.name, root=root, nodes=len(b._nodes))
    return b.finish()


def _note_functions(lin: MeasureLineage, deps: DaxDeps) -> None:
    for target, uses in ((lin.relationships, deps.relationships), (lin.time_intelligence, deps.time_intelligence),
                         (lin.filters, deps.filters)):
        for use in uses:
            text = use.text()
            if text not in target:
                target.append(text)


def _obj_kind(obj: Any) -> str:
    return str(getattr(obj, "kind", "table") or "table").lower()


def _walk_sql(b: _Builder, index: Any, roots: list[tuple[str, str]], max_depth: int) -> None:
    lin = b.lin
    visited: set[str] = set()
    queue: list[tuple[str, str, str, int]] = []  # (from node, object key, edge label, depth)
    for tid, obj in roots:
        queue.append((tid, obj, "partition source", 0))
    procs: dict[str, ProcedureInfo] = {}
    visited_flows: set[tuple[str, str]] = set()
    while queue:
        b.check_time()
        parent, name, label, depth = queue.pop(0)
        k = key(name)
        if k.startswith("#") or k.startswith("@"):
            continue
        obj = index.get(k)
        display = _display(index, obj, name)
        nid = f"s:{k}"
        if obj is None:
            b.edge(parent, b.node(nid, "missing", f"{name} (not in SQL folder)"), label)
            if k not in visited:
                visited.add(k)
                lin.sql_objects.append(SqlObjectInfo(name=name, kind="unknown", depth=depth, found=False))
                if depth == 0:
                    b.warn(f"warehouse object {name} was not found in the SQL folder")
                b.trace.warning("object not found in SQL index", object=name, measure=lin.measure)
            continue
        kind = _obj_kind(obj)
        b.edge(parent, b.node(nid, kind, display, getattr(obj, "file", None), getattr(obj, "line", None)), label)
        if k in visited:
            continue
        visited.add(k)
        lin.sql_objects.append(SqlObjectInfo(
            name=display, kind=kind, file=b.ws.display_path(getattr(obj, "file", None)), line=getattr(obj, "line", None), depth=depth,
        ))
        _object_warnings(b, obj, display)
        if depth >= max_depth:
            lin.truncated = True
            b.warn(f"SQL lineage cut at depth {max_depth} (at {display})")
            b.trace.rejected("SQL lineage depth bound reached", object=display, depth=depth)
            continue
        if kind == "view":
            for src in index.view_sources(k) or []:
                queue.append((nid, src, "selects from", depth + 1))
        elif kind in ("table", "unknown"):
            for proc in index.writers_of(k) or []:
                pname = _display(index, proc, str(proc))
                pk = key(getattr(proc, "name", pname))
                pid = f"s:{pk}"
                b.edge(nid, b.node(pid, "procedure", pname, b.ws.display_path(getattr(proc, "file", None)), getattr(proc, "line", None)), "loaded by")
                info = procs.get(pk)
                if info is None:
                    info = ProcedureInfo(
                        name=pname, file=b.ws.display_path(getattr(proc, "file", None)), line=getattr(proc, "line", None),
                        writes=sorted((_show(index, w) for w in getattr(proc, "writes", set()) or []), key=str.lower),
                        reads=sorted((_show(index, r) for r in getattr(proc, "reads", set()) or []), key=str.lower),
                        partial=bool(getattr(proc, "partial", False)), dynamic_sql=bool(getattr(proc, "dynamic_sql", False)),
                    )
                    procs[pk] = info
                    lin.procedures.append(info)
                    _object_warnings(b, proc, pname)
                info.excerpts.extend(_excerpts(proc, k, pname, info.file, display))
                if (pk, k) in visited_flows:
                    continue
                visited_flows.add((pk, k))
                for read in _flow_sources(proc, k, info):
                    queue.append((pid, read, "reads", depth + 1))
        elif kind in ("function",):
            for src in getattr(obj, "reads", set()) or []:
                queue.append((nid, src, "reads", depth + 1))


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
    # the index's own warnings say the same with line numbers; the generic line only when they do not
    if getattr(obj, "partial", False) and not any("token scan" in w or w.startswith("dynamic SQL") for w in own):
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


def _excerpts(proc: Any, table_key: str, pname: str, file: str | None, target: str | None = None) -> list[SqlExcerpt]:
    out: list[SqlExcerpt] = []
    for st in getattr(proc, "statements", []) or []:
        targets = {key(t) for t in getattr(st, "targets", []) or []}
        if table_key not in targets:
            continue
        sql = str(getattr(st, "sql", "") or "")
        lines = sql.splitlines()
        if len(lines) > EXCERPT_LINES:
            sql = "\n".join([*lines[:EXCERPT_LINES], f"-- ... {len(lines) - EXCERPT_LINES} more lines"])
        out.append(SqlExcerpt(
            procedure=pname, target=target or table_key, kind=str(getattr(st, "kind", "")), file=file,
            line=getattr(st, "line", None), sql=sql, parsed_by=_s(getattr(st, "parsed_by", None)),
        ))
    return out


def _column_links(b: _Builder, columns: set[tuple[str, str]]) -> None:
    ws, lin = b.ws, b.lin
    index = ws.index
    linked = 0
    data_cols = 0
    for table, column in sorted(columns):
        t = ws.model.table(table)
        col = t.column(column) if t else None
        if col is None or col.kind != "data":
            continue
        data_cols += 1
        src_col = (col.source_column or col.name).strip("[]")
        refs = [r for r in ws.sources(table) if r.kind in ("table", "query") and r.objects]
        got_column = False
        for ref in refs:
            mapped = ref.columns.get(src_col.lower(), src_col if (ref.kind == "table" or not ref.columns) else None)
            if len(ref.objects) != 1 or mapped is None:
                for obj in ref.objects:
                    lin.column_links.append(ColumnLink(model_column=col_ref(table, column), source=_show(index, obj), level="table"))
                continue
            obj = ref.objects[0]
            lin.column_links.append(ColumnLink(
                model_column=col_ref(table, column), source=f"{_show(index, obj)}.{mapped}", level="column"))
            got_column = True
            if index is not None:
                found = index.get(obj)
                if found is not None and _obj_kind(found) == "view":
                    try:
                        deeper = ws.view_column_lineage(obj, mapped)
                    except Exception as exc:
                        b.trace.suppressed("view column lineage failed", view=obj, column=mapped, error=str(exc)[:200])
                        deeper = None
                    if deeper:
                        for base_table, base_col in deeper:
                            lin.column_links.append(ColumnLink(
                                model_column=col_ref(table, column), source=f"{_show(index, base_table)}.{base_col}",
                                level="column", via=[_show(index, obj)],
                            ))
                    else:
                        lin.column_links.append(ColumnLink(
                            model_column=col_ref(table, column), source=_show(index, obj), level="table", via=[_show(index, obj)],
                        ))
        if got_column:
            linked += 1
    if data_cols == 0:
        # COUNTROWS('T') and the like read no column but still come from T's warehouse objects
        lin.level = "table" if lin.sql_objects or any(
            r.kind in ("table", "query") and r.objects for refs in lin.sources.values() for r in refs) else "none"
    elif linked == data_cols and not any(cl.level == "table" for cl in lin.column_links):
        lin.level = "column"
    elif linked == 0:
        lin.level = "table"
    else:
        lin.level = "mixed"
