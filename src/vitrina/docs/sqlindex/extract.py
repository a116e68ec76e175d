"""Reads and writes of one statement parsed by sqlglot.

Writes are the targets of INSERT, UPDATE, DELETE, MERGE, TRUNCATE, SELECT INTO,
OUTPUT INTO and CREATE TABLE; an UPDATE or DELETE that names an alias (`UPDATE s ...
FROM Integration.Sale_Staging AS s`) writes the aliased table. Reads are every other
table reference except CTE names and the written table itself. EXEC of a procedure is a
call, not a read; EXEC(@sql) and sp_executesql are dynamic SQL.

>>> import sqlglot
>>> sql = "UPDATE s SET a = d.a FROM Stage.T AS s JOIN dbo.D d ON d.k = s.k"
>>> x = extract([sqlglot.parse_one(sql, read="tsql")])
>>> x.kind, x.targets, x.sources
('update', ['stage.t'], ['dbo.d'])
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlglot import exp

from vitrina.docs.sqlindex.models import ColumnAssignment
from vitrina.docs.sqlindex.names import from_parts


@dataclass(slots=True)
class Extraction:
    """What one statement does to data; names are normalised (see names.py)."""

    kind: str = "other"
    targets: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    calls: list[str] = field(default_factory=list)
    dynamic: bool = False
    dynamic_literals: list[str] = field(default_factory=list)
    columns: list[str] = field(default_factory=list)
    assignments: list[ColumnAssignment] = field(default_factory=list)
    external: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what was not understood, for the trace


_ROWSETS = frozenset({"OPENROWSET", "OPENQUERY", "OPENDATASOURCE"})


class Unparsed(Exception):
    """sqlglot fell back to a raw Command: the statement was not really parsed."""


def table_name(table: exp.Table) -> str:
    """Normal name of a table reference: temp tables keep `#`, table variables `@`."""
    this = table.this
    if isinstance(this, exp.Parameter):
        return "@" + this.name.lower()
    if isinstance(this, exp.Func):
        fn = this.name if isinstance(this, exp.Anonymous) else this.sql_name()
        return from_parts(
            [p.name for p in (table.args.get("catalog"), table.args.get("db")) if p] + [fn]
        )
    parts: list[str] = []
    for part in table.parts:
        name = part.name
        if isinstance(part, exp.Identifier):
            if part.args.get("global_"):
                name = "##" + name
            elif part.args.get("temporary"):
                name = "#" + name
        parts.append(name)
    return from_parts(parts)


def statement_kind(expression: exp.Expr) -> str:
    """The kind of a parsed statement (one of SqlStatementInfo.kind)."""
    if isinstance(expression, exp.Insert):
        return "insert"
    if isinstance(expression, exp.Update):
        return "update"
    if isinstance(expression, exp.Delete):
        return "delete"
    if isinstance(expression, exp.Merge):
        return "merge"
    if isinstance(expression, exp.TruncateTable):
        return "truncate"
    if isinstance(expression, exp.ExecuteSql):
        return "dynamic"
    if isinstance(expression, exp.Execute):
        this = expression.this
        if isinstance(this, exp.Table) and isinstance(this.this, exp.Identifier):
            return "dynamic" if this.name.lower() == "sp_executesql" else "exec"
        return "dynamic"
    if isinstance(expression, exp.Create):
        kind = str(expression.args.get("kind") or "").upper()
        return {"TABLE": "create_table", "VIEW": "create_view"}.get(kind, "other")
    if isinstance(expression, (exp.Select, exp.SetOperation, exp.Subquery)):
        if expression.args.get("into") is not None:
            return "select_into"
        return "select"
    return "other"


def extract(expressions: list[exp.Expr], text: str = "") -> Extraction:
    """Reads and writes of parsed statements; raises Unparsed on a sqlglot Command."""
    out = Extraction()
    for expression in expressions:
        if expression is None:
            continue
        if out.kind == "other":
            out.kind = statement_kind(expression)
        _extract_one(expression, out)
        if out.kind in ("insert", "update", "merge", "select_into"):
            out.assignments.extend(_safe_assignments(expression, out.notes, text))
    if out.kind in ("select", "create_view"):
        out.columns = _output_columns(expressions)
    out.targets = _unique(out.targets)
    out.sources = _unique(out.sources)
    out.calls = _unique(out.calls)
    return out


def _safe_assignments(expression: exp.Expr, notes: list[str], text: str) -> list[ColumnAssignment]:
    """Column assignments, or none when an unusual tree defeats the reader (lineage stays
    table-level)."""
    from vitrina.docs.sqlindex.assignments import column_assignments

    try:
        return column_assignments(expression, text)
    except (
        Exception
    ) as exc:  # an unexpected tree shape: the statement keeps its table-level lineage
        notes.append(f"column assignments not read: {type(exc).__name__}: {exc}"[:200])
        return []


def _extract_one(root: exp.Expr, out: Extraction) -> None:
    nodes = list(root.walk())  # one walk; the passes below reuse it
    tables, ctes = _tables_and_ctes(nodes)
    names = _Names(tables)
    for node in nodes:
        _writes_of(node, names, out)
    _reads_of(tables, ctes, names.skip, out)


def _tables_and_ctes(nodes: list[exp.Expr]) -> tuple[list[exp.Table], set[str]]:
    """Table references and CTE names of a statement; a raw Command means "not parsed"."""
    ctes: set[str] = set()
    tables: list[exp.Table] = []
    for node in nodes:
        if isinstance(node, exp.Table):
            tables.append(node)
        elif isinstance(node, exp.CTE):
            ctes.add(node.alias_or_name.lower())
        elif isinstance(node, exp.Command):
            raise Unparsed(node.sql(dialect="tsql")[:80])
    return tables, ctes


class _Names:
    """Aliases of a statement and the table references already used as targets (not reads)."""

    def __init__(self, tables: list[exp.Table]) -> None:
        self.aliases: dict[str, exp.Table] = {}
        for t in tables:
            if t.alias:
                self.aliases.setdefault(t.alias.lower(), t)
        self.skip: set[int] = set()

    def target(self, t: exp.Table) -> str:
        """A written table: `UPDATE s ... FROM T AS s` writes T; neither reference is a read."""
        self.skip.add(id(t))
        if not t.args.get("db") and isinstance(t.this, exp.Identifier) and not t.alias:
            real = self.aliases.get(t.name.lower())
            if real is not None and real is not t:
                self.skip.add(id(real))
                return table_name(real)
        return table_name(t)

    def ignore(self, node: exp.Expr) -> None:
        self.skip.update(id(t) for t in node.find_all(exp.Table))


def _writes_of(node: exp.Expr, names: _Names, out: Extraction) -> None:
    """Targets, calls and dynamic SQL of one node of the statement tree."""
    if isinstance(node, exp.Insert):
        target = node.this.this if isinstance(node.this, exp.Schema) else node.this
        if isinstance(target, exp.Table):
            out.targets.append(names.target(target))
    elif isinstance(node, exp.Update) and isinstance(node.this, exp.Table):
        target = names.target(node.this)
        out.targets.append(target)
        _skip_same(node, target, names.skip)
    elif isinstance(node, exp.Delete):
        named = node.args.get("tables") or ([node.this] if node.this is not None else [])
        out.targets.extend(names.target(t) for t in named if isinstance(t, exp.Table))
    elif isinstance(node, (exp.Merge, exp.Into)) and isinstance(node.this, exp.Table):
        out.targets.append(names.target(node.this))
    elif isinstance(node, exp.TruncateTable):
        out.targets.extend(names.target(t) for t in node.expressions if isinstance(t, exp.Table))
    elif isinstance(node, (exp.Create, exp.Drop, exp.Alter)):
        _ddl(node, names, out)
    elif isinstance(node, exp.Execute):
        _execute(node, out, names.skip)
    elif isinstance(node, exp.Dot):
        _function_call(node, out)


def _function_call(node: exp.Dot, out: Extraction) -> None:
    """`schema.fn(...)`: a call of a user function."""
    if isinstance(node.expression, exp.Anonymous) and isinstance(node.this, exp.Identifier):
        out.calls.append(from_parts([node.this.name, node.expression.name]))


def _ddl(node: exp.Expr, names: _Names, out: Extraction) -> None:
    """CREATE TABLE/VIEW writes its table; CREATE INDEX, DROP and ALTER touch no data."""
    kind = str(node.args.get("kind") or "").upper() if isinstance(node, exp.Create) else ""
    target = node.this.this if isinstance(node.this, exp.Schema) else node.this
    if kind in ("TABLE", "VIEW") and isinstance(target, exp.Table):
        out.targets.append(names.target(target))
    elif kind not in ("TABLE", "VIEW"):  # CREATE INDEX ... ON t, DROP, ALTER: no data
        names.ignore(node)


def _reads_of(tables: list[exp.Table], ctes: set[str], skip: set[int], out: Extraction) -> None:
    """Every table reference not written, not a CTE: a read (rowset functions: external)."""
    for t in tables:
        if id(t) in skip:
            continue
        if _is_rowset(t):
            out.external.append(t.this.sql(dialect="tsql")[:200])
            continue
        if not t.args.get("db") and isinstance(t.this, exp.Identifier) and t.name.lower() in ctes:
            continue
        name = table_name(t)
        if name:
            out.sources.append(name)


def _is_rowset(t: exp.Table) -> bool:
    """OPENROWSET, OPENQUERY, OPENDATASOURCE: rows from outside the database."""
    this = t.this
    if not isinstance(this, exp.Func) or this.sql_name().upper() not in _ROWSETS | {"ANONYMOUS"}:
        return False
    name = this.name if isinstance(this, exp.Anonymous) else this.sql_name()
    return name.upper() in _ROWSETS


def _skip_same(node: exp.Update, target: str, skip: set[int]) -> None:
    """`UPDATE t SET ... FROM t`: the FROM names the row set being updated, not a read."""
    from_ = node.args.get("from_") or node.args.get("from")
    candidates = [from_.this] if from_ is not None else []
    candidates += [j.this for j in node.args.get("joins") or []]
    for t in candidates:
        if isinstance(t, exp.Table) and table_name(t) == target:
            skip.add(id(t))


def _execute(node: exp.Execute, out: Extraction, skip: set[int]) -> None:
    this = node.this
    skip.update(id(t) for t in node.find_all(exp.Table))
    is_proc = isinstance(this, exp.Table) and isinstance(this.this, exp.Identifier)
    if is_proc and this.name.lower() != "sp_executesql" and not isinstance(node, exp.ExecuteSql):
        out.calls.append(table_name(this))
        return
    out.dynamic = True
    for lit in node.find_all(exp.Literal, exp.National):
        if isinstance(lit, exp.National) or lit.is_string:
            out.dynamic_literals.append(lit.name)


def _output_columns(expressions: list[exp.Expr]) -> list[str]:
    for expression in expressions:
        query = expression.expression if isinstance(expression, exp.Create) else expression
        if isinstance(query, exp.Query):
            return [c for c in query.named_selects if c]
    return []


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(i for i in items if i))
