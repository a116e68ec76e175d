"""Column assignments of one parsed write: which expression fills which target column.

INSERT (column list or positional), SELECT ... INTO, UPDATE ... SET and MERGE's UPDATE SET
and INSERT VALUES are read; each expression is quoted from the file (quote.py) and its
columns are resolved through aliases, CTEs, derived tables and subqueries (colscope.py).

>>> import sqlglot
>>> sql = "UPDATE t SET t.Score = s.a * 2 FROM dw.F AS t JOIN ##S AS s ON s.k = t.k"
>>> tree = sqlglot.parse_one(sql, read="tsql")
>>> [(a.target, a.column, a.expression, a.sources) for a in column_assignments(tree, sql)]
[('dw.f', 'Score', 's.a * 2', ['##s.a'])]
"""

from __future__ import annotations

from collections.abc import Iterator

from sqlglot import exp

from vitrina.docs.sqlindex.colscope import from_items, resolve
from vitrina.docs.sqlindex.models import ColumnAssignment
from vitrina.docs.sqlindex.quote import quote

MAX_EXPRESSION = 600  # characters of an expression kept for the document


def _table_name(t: exp.Table) -> str:
    from vitrina.docs.sqlindex.extract import table_name

    return table_name(t)


def column_assignments(root: exp.Expr, text: str = "") -> list[ColumnAssignment]:
    """Assignments of every write inside `root` (an INSERT, UPDATE, MERGE or SELECT INTO).

    `text` is the parsed statement as written: expressions are quoted from it; without it
    (or where it cannot be sliced) they are sqlglot's rendering, marked not exact.
    """
    out = [
        _assign(target, column, value, text)
        for target, column, value in _writes(root)
        if column and column != "*"
    ]
    return out


def _writes(root: exp.Expr) -> Iterator[tuple[str, str, exp.Expr]]:
    """(target table, column, value expression) of every write in the statement."""
    for node in root.walk():
        if isinstance(node, exp.Insert) and not isinstance(node.parent, exp.When):
            yield from _insert(node)
        elif isinstance(node, exp.Select) and isinstance(node.args.get("into"), exp.Into):
            yield from _select_into(node)
        elif isinstance(node, exp.Update) and isinstance(node.this, exp.Table):
            target = _update_target(node)
            yield from ((target, c, v) for c, v in _set_items(node))
        elif isinstance(node, exp.Merge) and isinstance(node.this, exp.Table):
            yield from _merge(node)


def _insert(node: exp.Insert) -> Iterator[tuple[str, str, exp.Expr]]:
    target = node.this.this if isinstance(node.this, exp.Schema) else node.this
    if not isinstance(target, exp.Table):
        return
    names = [c.name for c in node.this.expressions] if isinstance(node.this, exp.Schema) else []
    query = node.expression
    select = (
        query
        if isinstance(query, exp.Select)
        else (query.find(exp.Select) if isinstance(query, exp.SetOperation) else None)
    )
    if select is None:
        return
    projections = select.expressions
    names = names or [p.alias_or_name for p in projections]
    for name, proj in zip(names, projections, strict=False):
        yield _table_name(target), name, _unalias(proj)


def _select_into(node: exp.Select) -> Iterator[tuple[str, str, exp.Expr]]:
    target = node.args["into"].this
    if not isinstance(target, exp.Table):
        return
    for proj in node.expressions:
        if proj.alias_or_name and not isinstance(proj, exp.Star):
            yield _table_name(target), proj.alias_or_name, _unalias(proj)


def _update_target(node: exp.Update) -> str:
    """`UPDATE s SET ... FROM dw.F AS s`: the alias names the real table."""
    table = node.this
    if not table.args.get("db") and not table.alias:
        for t in from_items(node):
            if isinstance(t, exp.Table) and (t.alias or "").lower() == table.name.lower():
                return _table_name(t)
    return _table_name(table)


def _set_items(node: exp.Expr) -> Iterator[tuple[str, exp.Expr]]:
    for eq in node.expressions:
        if isinstance(eq, exp.EQ) and isinstance(eq.this, exp.Column):
            yield eq.this.name, eq.expression


def _merge(node: exp.Merge) -> Iterator[tuple[str, str, exp.Expr]]:
    target = _table_name(node.this)
    for when in node.find_all(exp.When):
        then = when.args.get("then")
        if isinstance(then, exp.Update):
            yield from ((target, c, v) for c, v in _set_items(then))
        elif (
            isinstance(then, exp.Insert)
            and isinstance(then.this, exp.Tuple)
            and isinstance(then.expression, exp.Tuple)
        ):
            for col, value in zip(then.this.expressions, then.expression.expressions, strict=False):
                yield target, col.name, value


def _unalias(proj: exp.Expr) -> exp.Expr:
    return proj.this if isinstance(proj, exp.Alias) else proj


def _assign(target: str, column: str, value: exp.Expr, text: str) -> ColumnAssignment:
    q = quote(value, text)
    found = resolve(value, text)
    return ColumnAssignment(
        target=target,
        column=column,
        expression=_cut(q.text),
        sources=found.sources,
        passthrough=isinstance(value, exp.Column) and found.copied,
        line=q.line,
        exact=q.exact,
        steps=[s.model_copy(update={"expression": _cut(s.expression)}) for s in found.steps],
    )


def _cut(text: str) -> str:
    return text if len(text) <= MAX_EXPRESSION else text[:MAX_EXPRESSION] + " …"
