"""Whole rows: no query may read a row as one value, or a column the SQL does not name.

DuckDB and PostgreSQL both read a relation's name used as a value as its whole row:
``SELECT t FROM t``, ``to_json(t)``, ``t::text``, ``hash(t)``, ``ROW(t.*)``, ``(t).x``,
DuckDB's ``dwh.t``; and a star in an expression (``struct_pack(*)``, ``* LIKE 'a%'``),
``COLUMNS(...)`` and ``#2`` pick columns the query never names. Each reads the columns
the catalog leaves out, so each is refused, whatever the catalog lists. A NATURAL JOIN
(it joins on every column of the same name) and column aliases on a catalog table
(``AS x(a, b)`` renames columns by their place in the table) are refused where the
catalog lists the table's columns, and so is a SELECT alias where the engine reads a
column of that name first (``SELECT 1 AS secret, secret``; ``WHERE secret = ...``); a
GROUP BY key that is such an alias runs as the alias's position instead (``GROUP BY 1``).
"""

from __future__ import annotations

from collections.abc import Iterator

from sqlglot import exp

from vitrina.sql.guard.columns import ColumnList
from vitrina.sql.guard.messages import sql_fragment, violation
from vitrina.sql.guard.models import GuardViolation
from vitrina.sql.guard.nodes import Nodes
from vitrina.sql.guard.sources import Enclosing, Relations, Source, source_names
from vitrina.sql.guard.tables import TableIndex, TableRef, normalise


def whole_rows(
    nodes: Nodes,
    tables: list[TableRef],
    catalog: TableIndex | None,
    columns: dict[str, ColumnList],
    dialect: str,
) -> Iterator[GuardViolation]:
    """Refuse whole-row references, stars inside expressions, COLUMNS(...) and ``#n``."""
    relations = Relations(tables, catalog, columns, dialect)
    enclosing = Enclosing(nodes)
    names: dict[int, set[str]] = {}  # visible relation names per SELECT
    for node in nodes.find_all(exp.Star, exp.Columns, exp.PositionalColumn, exp.Column):
        if isinstance(node, exp.Columns):
            yield violation("whole_rows.columns", sql_fragment(node, dialect))
        elif isinstance(node, exp.PositionalColumn):
            yield violation("whole_rows.positional", sql_fragment(node, dialect))
        elif isinstance(node, exp.Star):
            yield from _star(node, dialect)
        elif isinstance(node, exp.Column) and isinstance(node.this, exp.Identifier):
            if _lambda_parameter(node, enclosing, dialect):
                continue
            select = enclosing.select(node)
            if id(select) not in names:
                names[id(select)] = source_names(relations, select)
            yield from _relation_as_value(node, select, names[id(select)], relations, dialect)
    yield from _pivots(nodes, relations, dialect)
    if columns:
        yield from _natural_joins(nodes, relations, dialect)
        yield from _column_aliases(tables, relations, dialect)


def _pivots(nodes: Nodes, relations: Relations, dialect: str) -> Iterator[GuardViolation]:
    """PIVOT / UNPIVOT keep every column they do not name, hidden ones too (DuckDB); in
    PostgreSQL, which has neither, sqlglot's SQL would drop the clause without a word."""
    for pivot in nodes.find_all(exp.Pivot):
        source = pivot.parent
        if dialect == "duckdb":
            if not isinstance(source, exp.Table) or id(source) not in relations.refs:
                continue  # a pivot of a CTE or subquery reads only what that query selects
            if relations.listed_table(source) is None:
                continue
        name = source.name if isinstance(source, exp.Table) else "-"
        shown = sql_fragment(pivot, "duckdb").strip()  # PostgreSQL's generator drops it
        yield violation("whole_rows.pivot", shown, table=name)


def _star(star: exp.Star, dialect: str) -> Iterator[GuardViolation]:
    """A star stands alone in a SELECT list, or in COUNT(*); anywhere else it is a whole row."""
    node: exp.Expr = star
    if isinstance(star.parent, exp.Column) and star.arg_key == "this":
        node = star.parent
    parent = node.parent
    if isinstance(parent, exp.Columns):
        return  # reported as COLUMNS(...)
    if isinstance(parent, exp.Select) and node.arg_key == "expressions":
        return
    if node is star and isinstance(parent, exp.Count) and star.arg_key == "this":
        return
    shown = parent if parent is not None and not isinstance(parent, exp.Select) else node
    table = node.args.get("table") if isinstance(node, exp.Column) else None
    name = table.name if isinstance(table, exp.Identifier) else "*"
    yield violation("whole_rows.star", sql_fragment(shown, dialect), table=name)


def _relation_as_value(
    column: exp.Column,
    select: exp.Select | None,
    visible: set[str],
    relations: Relations,
    dialect: str,
) -> Iterator[GuardViolation]:
    """``t`` where ``t`` is a relation of the query; ``dwh.t``, ``x.y`` where ``x`` is not one.
    ``visible``: the relation names of ``select`` (the column's SELECT) and its outer ones."""
    qualifier = column.args.get("table")
    if isinstance(qualifier, exp.Identifier):
        name = normalise(qualifier, dialect)
        if name not in visible:
            shown = _shown(column, dialect)
            yield violation("whole_rows.qualifier", shown, qualifier=qualifier.name)
        return
    name = normalise(column.this, dialect)
    if name not in visible:
        return
    sources = relations.sources(select) if select is not None else []
    if _is_column_of(name, sources) or _order_key_alias(column, name, select, dialect):
        return
    yield violation("whole_rows", _shown(column, dialect), table=column.this.name)


def _shown(column: exp.Column, dialect: str) -> str:
    """The column with what wraps it (``to_json(t)``, ``CAST(t AS TEXT)``) when there is one."""
    parent = column.parent
    if parent is None or isinstance(parent, exp.Select | exp.Where | exp.Group | exp.Order):
        return sql_fragment(column, dialect)
    return sql_fragment(parent, dialect)


def _is_column_of(name: str, sources: list[Source]) -> bool:
    """Whether ``name`` is a column of one of the sources, as far as the catalog tells."""
    for source in sources:
        if source.listed and source.columns is not None and name.lower() in source.columns:
            return True
        if source.kind == "derived" and source.outputs is not None and name in source.outputs:
            return True
    return False


def _order_key_alias(
    column: exp.Column, name: str, select: exp.Select | None, dialect: str
) -> bool:
    """``ORDER BY total``: a bare ORDER BY key names the SELECT's output column first."""
    ordered = column.parent
    if select is None or not isinstance(ordered, exp.Ordered) or column.arg_key != "this":
        return False
    if ordered.parent is not select.args.get("order"):
        return False
    return name in _output_aliases(select, dialect)


def _output_aliases(select: exp.Select, dialect: str) -> set[str]:
    return {
        normalise(p.args["alias"], dialect)
        for p in select.expressions
        if isinstance(p, exp.Alias) and isinstance(p.args.get("alias"), exp.Identifier)
    }


def _lambda_parameter(column: exp.Column, enclosing: Enclosing, dialect: str) -> bool:
    """``x -> x.a + 1``: names that are parameters of an enclosing lambda are not relations."""
    node = enclosing.lambda_(column)
    if node is None:
        return False
    first = column.parts[0] if column.parts else column.this
    name = normalise(first, dialect) if isinstance(first, exp.Identifier) else ""
    while node is not None:
        parameters = {
            normalise(p, dialect) for p in node.expressions if isinstance(p, exp.Identifier)
        }
        if name in parameters:
            return True
        node = node.find_ancestor(exp.Lambda)
    return False


def _natural_joins(nodes: Nodes, relations: Relations, dialect: str) -> Iterator[GuardViolation]:
    """NATURAL JOIN matches every column of the same name, the ones the catalog leaves out too."""
    for join in nodes.find_all(exp.Join):
        select = join.parent
        if join.method != "NATURAL" or not isinstance(select, exp.Select):
            continue
        for source in relations.sources(select):
            if source.listed or (source.kind == "other" and relations.has_listed(source.node)):
                yield violation(
                    "whole_rows.natural",
                    sql_fragment(join, dialect).strip(),
                    table=source.table or source.name,
                )
                break


def _column_aliases(
    tables: list[TableRef], relations: Relations, dialect: str
) -> Iterator[GuardViolation]:
    """``dwh.t AS x(a, b)`` renames the table's first columns, whichever they are."""
    for ref in tables:
        alias = ref.node.args.get("alias")
        if not isinstance(alias, exp.TableAlias) or not alias.columns:
            continue
        source = relations.source(ref.node, None)
        if source.listed:
            yield violation(
                "whole_rows.column_aliases",
                sql_fragment(ref.node, dialect),
                table=source.table,
            )


def alias_references(
    nodes: Nodes,
    tables: list[TableRef],
    catalog: TableIndex | None,
    columns: dict[str, ColumnList],
    dialect: str,
) -> Iterator[GuardViolation]:
    """A SELECT alias used where the engine binds a table column of that name first.

    ``SELECT 1 AS secret, secret`` (DuckDB) and ``... WHERE secret = 'x'`` read the
    table's own ``secret`` when it has one, even one the catalog leaves out, while the
    column check, which resolves the name as the alias, saw nothing. A bare ORDER BY key
    is safe (both engines name the output column first) and a bare GROUP BY key is
    rewritten to the alias's position (:func:`group_by_positions`); elsewhere, when a
    catalog table of the SELECT does not list the name, the alias is refused.
    """
    for column, select, table in _shadowed_aliases(nodes, tables, catalog, columns, dialect):
        if _group_alias_position(column, select, dialect) is None:
            yield violation(
                "alias_references",
                sql_fragment(column, dialect),
                column=column.name,
                table=table,
            )


def group_by_positions(
    nodes: Nodes,
    tables: list[TableRef],
    catalog: TableIndex | None,
    columns: dict[str, ColumnList],
    dialect: str,
) -> None:
    """``GROUP BY month`` (an alias a listed table might shadow) -> ``GROUP BY 1``.

    Run on an accepted query, after the stars are expanded (positions count the expanded
    columns). The position means what the writer meant by the alias; the name alone would
    group by a hidden column of that name if the table had one.
    """
    found = list(_shadowed_aliases(nodes, tables, catalog, columns, dialect))
    for column, select, _ in found:
        position = _group_alias_position(column, select, dialect)
        if position is not None:
            column.replace(exp.Literal.number(position))


def _shadowed_aliases(
    nodes: Nodes,
    tables: list[TableRef],
    catalog: TableIndex | None,
    columns: dict[str, ColumnList],
    dialect: str,
) -> Iterator[tuple[exp.Column, exp.Select, str]]:
    """Bare names that are aliases, in a SELECT whose listed tables may have such a column."""
    if not columns:
        return
    aliases = {
        normalise(node.args["alias"], dialect)
        for node in nodes.find_all(exp.Alias)
        if isinstance(node.args.get("alias"), exp.Identifier)
    }
    if not aliases:
        return
    relations = Relations(tables, catalog, columns, dialect)
    enclosing = Enclosing(nodes)
    for column in nodes.find_all(exp.Column):
        if column.table or not isinstance(column.this, exp.Identifier):
            continue
        name = normalise(column.this, dialect)
        if name not in aliases:
            continue
        select = enclosing.select(column)
        if select is None or _lambda_parameter(column, enclosing, dialect):
            continue
        sources = relations.sources(select)
        if _is_column_of(name, sources) or _order_key_alias(column, name, select, dialect):
            continue
        listed = [s for s in sources if s.listed]
        if listed:
            yield column, select, listed[0].table or listed[0].name


def _group_alias_position(column: exp.Column, select: exp.Select, dialect: str) -> int | None:
    """The 1-based position of the output alias a bare GROUP BY key names, else None."""
    group = column.parent
    if not isinstance(group, exp.Group) or group is not select.args.get("group"):
        return None
    if column.arg_key != "expressions":
        return None
    name = normalise(column.this, dialect)
    for position, projection in enumerate(select.expressions, start=1):
        alias = projection.args.get("alias") if isinstance(projection, exp.Alias) else None
        if isinstance(alias, exp.Identifier) and normalise(alias, dialect) == name:
            return position
    return None
