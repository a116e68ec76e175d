"""Table rules: which named tables a query reads, and whether it may read them.

A CTE name is not a table, but only where SQL scoping makes it visible: inside the
query that owns the WITH (and its subqueries), and inside a later CTE of the same WITH
(any CTE of a WITH RECURSIVE). Elsewhere the same name reaches a real table.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect

from vitrina.sql.guard.dialects import (
    SYSTEM_CATALOGS,
    SYSTEM_NAME_PREFIXES,
    SYSTEM_SCHEMA_PREFIXES,
    SYSTEM_SCHEMAS,
)
from vitrina.sql.guard.messages import listing, sql_fragment, violation
from vitrina.sql.guard.models import GuardViolation
from vitrina.sql.guard.nodes import Nodes, nodes_of

# Characters no warehouse table name has, but file paths, globs and URLs do.
FILE_NAME_CHARS = frozenset("./\\:*?~")


@dataclass(frozen=True)
class TableRef:
    """One named table in the query: the node and its parts, normalised for the dialect."""

    node: exp.Table
    parts: tuple[str, ...]  # (catalog, db, name) without the missing ones

    @property
    def name(self) -> str:
        return ".".join(self.parts)


class TableIndex:
    """Allowed tables by full name and by each shorter suffix, to resolve partial names.

    >>> index = TableIndex({"dwh.fact_payment", "stage.fact_payment", "dwh.dim_client"})
    >>> index.resolve(("dim_client",)), index.resolve(("fact_payment",))
    (['dwh.dim_client'], ['dwh.fact_payment', 'stage.fact_payment'])
    """

    def __init__(self, names: Iterable[str]) -> None:
        self.names = {name.lower() for name in names}
        self._by_suffix: dict[tuple[str, ...], list[str]] = {}
        for name in sorted(self.names):
            parts = tuple(name.split("."))
            for start in range(len(parts)):
                self._by_suffix.setdefault(parts[start:], []).append(name)

    def resolve(self, parts: tuple[str, ...]) -> list[str]:
        """Allowed names that ``parts`` can mean: one is a match, several are ambiguous."""
        return self._by_suffix.get(parts, [])


def normalise(identifier: exp.Identifier, dialect: str) -> str:
    """The name as the dialect resolves it (unquoted lower-cased; quoted kept in PostgreSQL)."""
    return Dialect.get_or_raise(dialect).normalize_identifier(identifier.copy()).name


def table_references(source: exp.Expr | Nodes, dialect: str) -> list[TableRef]:
    """Every named table the query reads, CTE references excluded (table functions too)."""
    refs = []
    for table in nodes_of(source).find_all(exp.Table):
        if not isinstance(table.this, exp.Identifier) or _is_cte_reference(table, dialect):
            continue
        if table.find_ancestor(exp.Into) is not None:
            continue  # the target of SELECT ... INTO is not read (select_into rejects it)
        parts = tuple(
            normalise(part, dialect)
            for part in (table.args.get("catalog"), table.args.get("db"), table.this)
            if isinstance(part, exp.Identifier)
        )
        refs.append(TableRef(table, parts))
    return refs


def _ctes_named(ctes: Iterable[exp.Expr], name: str, dialect: str) -> exp.CTE | None:
    for cte in ctes:
        alias = cte.args.get("alias")
        if (
            isinstance(cte, exp.CTE)
            and isinstance(alias, exp.TableAlias)
            and isinstance(alias.this, exp.Identifier)
            and normalise(alias.this, dialect) == name
        ):
            return cte
    return None


def cte_definition(table: exp.Table, dialect: str) -> exp.CTE | None:
    """The CTE that ``table`` names where it stands, or None when it reaches a real table."""
    if (
        table.args.get("db")
        or table.args.get("catalog")
        or not isinstance(table.this, exp.Identifier)
    ):
        return None
    name = normalise(table.this, dialect)
    node: exp.Expr = table
    while node.parent is not None:
        parent = node.parent
        if isinstance(parent, exp.With):
            # ``node`` is one CTE: it sees the earlier ones (all of them when RECURSIVE).
            ctes = parent.expressions
            position = next(i for i, cte in enumerate(ctes) if cte is node)
            visible = ctes if parent.args.get("recursive") else ctes[:position]
            found = _ctes_named(visible, name, dialect)
            if found is not None:
                return found
            node = parent.parent or parent  # skip the owning query's own WITH
            if node is parent:
                break
            continue
        with_ = parent.args.get("with_") if isinstance(parent, exp.Query) else None
        if isinstance(with_, exp.With):
            found = _ctes_named(with_.expressions, name, dialect)
            if found is not None:
                return found
        node = parent
    return None


def _is_cte_reference(table: exp.Table, dialect: str) -> bool:
    return cte_definition(table, dialect) is not None


def is_file_reference(ref: TableRef) -> bool:
    """``FROM 'data.csv'`` (DuckDB's replacement scan) parses as a table named ``data.csv``."""
    return bool(FILE_NAME_CHARS & set(ref.parts[-1]))


def is_system_table(ref: TableRef) -> bool:
    """information_schema, pg_catalog, DuckDB's system catalog, and unqualified pg_*/duckdb_*."""
    *qualifiers, name = ref.parts
    if len(qualifiers) == 2 and qualifiers[0] in SYSTEM_CATALOGS:
        return True
    if qualifiers:
        schema = qualifiers[-1]
        return schema in SYSTEM_SCHEMAS or schema.startswith(SYSTEM_SCHEMA_PREFIXES)
    return name.startswith(SYSTEM_NAME_PREFIXES) or name in {"sqlite_master", "sqlite_schema"}


def file_references(tables: list[TableRef], dialect: str) -> Iterator[GuardViolation]:
    """No file paths, globs or URLs in table position (DuckDB reads them as tables)."""
    for ref in tables:
        if is_file_reference(ref):
            yield violation("file_references", sql_fragment(ref.node.this, dialect))


def system_catalogs(nodes: Nodes, tables: list[TableRef], dialect: str) -> Iterator[GuardViolation]:
    """No system catalog tables or system table functions (``duckdb_tables()``, ``pragma_*``)."""
    for ref in tables:
        if not is_file_reference(ref) and is_system_table(ref):
            yield violation("system_catalogs", ".".join(ref.parts))
    for table in nodes.find_all(exp.Table):
        if isinstance(table.this, exp.Func) and is_system_function(function_name(table.this)):
            yield violation("system_catalogs", sql_fragment(table.this, dialect))


def allowed_tables(tables: list[TableRef], catalog: TableIndex | None) -> Iterator[GuardViolation]:
    """Every table must be one of the allowed ones; a partial name must match exactly one."""
    if catalog is None:
        return
    for ref in tables:
        if is_file_reference(ref) or is_system_table(ref):
            continue  # reported by their own rules
        matches = catalog.resolve(ref.parts)
        if not matches:
            yield violation("allowed_tables", ref.name, known=listing(catalog.names))
        elif len(matches) > 1:
            yield violation("allowed_tables.ambiguous", ref.name, candidates=", ".join(matches))


def function_name(func: exp.Expr) -> str:
    """Lower-case name of a function node: as written for unknown ones, sqlglot's for known."""
    if isinstance(func, exp.Anonymous):
        return func.name.lower()
    if isinstance(func, exp.Func):
        return func.sql_names()[0].lower()
    return func.key


def is_system_function(name: str) -> bool:
    return name.startswith(("duckdb_", "pragma_")) or name in {"pg_options_to_table"}
