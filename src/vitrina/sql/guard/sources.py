"""The row sources of one SELECT (its FROM and JOIN items), as the star and row rules see them.

Each source says what a ``*`` over it would read: a catalog table's columns (known only
when the catalog lists them), the named outputs of a CTE, subquery or VALUES list (already
checked in their own scope), or something the guard cannot enumerate with certainty.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from sqlglot import exp

from vitrina.sql.guard.columns import ColumnList
from vitrina.sql.guard.nodes import Nodes
from vitrina.sql.guard.tables import TableIndex, TableRef, cte_definition, normalise

Kind = Literal["table", "derived", "other"]


@dataclass(frozen=True)
class Source:
    """One FROM or JOIN item of a SELECT."""

    name: str  # the name it is visible by (its alias, else its table name), normalised; "" if none
    node: exp.Expr
    kind: Kind  # a catalog table, a CTE / subquery / VALUES, or something else
    alias: exp.Identifier | None  # what qualifies an expanded column
    table: str | None = None  # the catalog table's full name
    columns: ColumnList | None = None  # the catalog's columns of it, when it lists them
    outputs: frozenset[str] | None = None  # a derived source's output names, when certain
    join: exp.Join | None = None  # the JOIN that brings it, None for the FROM item

    @property
    def listed(self) -> bool:
        return self.kind == "table" and self.columns is not None


class Relations:
    """Sources of the query's SELECTs, resolved against the catalog once per query."""

    def __init__(
        self,
        tables: list[TableRef],
        catalog: TableIndex | None,
        columns: dict[str, ColumnList],
        dialect: str,
    ) -> None:
        self.refs = {id(ref.node): ref for ref in tables}
        self.index = catalog if catalog is not None else TableIndex(columns)
        self.columns = columns
        self.dialect = dialect
        self._sources: dict[int, list[Source]] = {}

    def sources(self, select: exp.Select) -> list[Source]:
        """The FROM item, then each JOIN's item, in order."""
        if id(select) not in self._sources:
            self._sources[id(select)] = self._read_sources(select)
        return self._sources[id(select)]

    def _read_sources(self, select: exp.Select) -> list[Source]:
        found = []
        from_ = select.args.get("from_")
        if isinstance(from_, exp.From):
            found.append(self.source(from_.this, None))
        for join in select.args.get("joins") or []:
            found.append(self.source(join.this, join))
        return found

    def source(self, node: exp.Expr, join: exp.Join | None) -> Source:
        alias = _alias_identifier(node)
        name = normalise(alias, self.dialect) if alias is not None else ""
        if isinstance(node, exp.Lateral) and isinstance(node.this, exp.Subquery):
            inner = node.this
            return Source(name, node, "derived", alias, outputs=self._outputs(inner), join=join)
        if isinstance(node, exp.Table) and isinstance(node.this, exp.Identifier):
            reshaped = bool(node.args.get("joins") or node.args.get("pivots"))
            ref = self.refs.get(id(node))
            if ref is None:
                cte = cte_definition(node, self.dialect)
                outputs = self._outputs(cte) if cte is not None and not reshaped else None
                return Source(name, node, "derived", alias, outputs=outputs, join=join)
            matches = self.index.resolve(ref.parts)
            table = matches[0] if len(matches) == 1 else None
            listed = self.columns.get(table) if table is not None else None
            if reshaped and (listed is not None or self.has_listed(node)):
                return Source(name, node, "other", alias, table=table, join=join)
            return Source(name, node, "table", alias, table=table, columns=listed, join=join)
        if isinstance(node, exp.Subquery) and isinstance(node.this, exp.Query):
            return Source(name, node, "derived", alias, outputs=self._outputs(node), join=join)
        if isinstance(node, exp.Values):
            return Source(name, node, "derived", alias, outputs=self._outputs(node), join=join)
        return Source(name, node, "other", alias, join=join)

    def listed_table(self, table: exp.Table) -> str | None:
        """The catalog name of ``table`` when it is a catalog table with a column list."""
        ref = self.refs.get(id(table))
        matches = self.index.resolve(ref.parts) if ref is not None else []
        return matches[0] if len(matches) == 1 and matches[0] in self.columns else None

    def has_listed(self, node: exp.Expr) -> bool:
        """Whether a catalog table with a column list is read anywhere under ``node``."""
        return any(self.listed_table(table) is not None for table in node.find_all(exp.Table))

    def _outputs(self, node: exp.Expr) -> frozenset[str] | None:
        """The column names a CTE, subquery or VALUES exposes; None where a star hides them."""
        alias = node.args.get("alias")
        renamed = [
            normalise(c, self.dialect)
            for c in (alias.columns if isinstance(alias, exp.TableAlias) else [])
            if isinstance(c, exp.Identifier)
        ]
        query = node.this if isinstance(node, exp.Subquery | exp.CTE) else None
        if isinstance(node, exp.Values):
            return frozenset(renamed)
        while isinstance(query, exp.SetOperation):
            query = query.this  # the first branch names the columns
        if isinstance(query, exp.Subquery):
            return self._outputs(query)
        if not isinstance(query, exp.Select):
            return None
        names = []
        for projection in query.expressions:
            if isinstance(projection, exp.Star) or (
                isinstance(projection, exp.Column) and isinstance(projection.this, exp.Star)
            ):
                return None
            identifier = _output_identifier(projection)
            names.append(normalise(identifier, self.dialect) if identifier is not None else "")
        names[: len(renamed)] = renamed
        return frozenset(name for name in names if name)


def _alias_identifier(node: exp.Expr) -> exp.Identifier | None:
    alias = node.args.get("alias")
    if isinstance(alias, exp.TableAlias) and isinstance(alias.this, exp.Identifier):
        return alias.this
    if isinstance(node, exp.Table) and isinstance(node.this, exp.Identifier):
        return node.this
    return None


def _output_identifier(projection: exp.Expr) -> exp.Identifier | None:
    alias = projection.args.get("alias")
    if isinstance(projection, exp.Alias) and isinstance(alias, exp.Identifier):
        return alias
    if isinstance(projection, exp.Column) and isinstance(projection.this, exp.Identifier):
        return projection.this
    return None


class Enclosing:
    """The nearest SELECT and lambda around every node, from one pass over the walked nodes.

    ``find_ancestor`` per column walks up the tree each time: quadratic on a long OR chain.
    """

    def __init__(self, nodes: Nodes) -> None:
        self._select: dict[int, exp.Select | None] = {}
        self._lambda: dict[int, exp.Lambda | None] = {}
        for node in nodes.all:  # breadth-first: a parent comes before its children
            parent = node.parent
            if parent is None:
                self._select[id(node)], self._lambda[id(node)] = None, None
                continue
            up = id(parent)
            self._select[id(node)] = (
                parent if isinstance(parent, exp.Select) else self._select.get(up)
            )
            self._lambda[id(node)] = (
                parent if isinstance(parent, exp.Lambda) else self._lambda.get(up)
            )

    def select(self, node: exp.Expr) -> exp.Select | None:
        """The innermost SELECT that contains ``node``."""
        if id(node) in self._select:
            return self._select[id(node)]
        return node.find_ancestor(exp.Select)

    def lambda_(self, node: exp.Expr) -> exp.Lambda | None:
        """The innermost lambda that contains ``node``."""
        if id(node) in self._lambda:
            return self._lambda[id(node)]
        return node.find_ancestor(exp.Lambda)


def source_names(relations: Relations, select: exp.Select | None) -> set[str]:
    """Names of the relations visible in ``select``: its own sources and those of outer SELECTs."""
    names: set[str] = set()
    while select is not None:
        names.update(source.name for source in relations.sources(select) if source.name)
        select = select.find_ancestor(exp.Select)
    return names
