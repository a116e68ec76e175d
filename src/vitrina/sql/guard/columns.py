"""Column rule: columns of known tables must exist in the catalog.

Columns are resolved by sqlglot's ``qualify`` on a copy of the query, with the known
tables as its schema. A column that cannot be pinned to one table with certainty is
skipped (a false "unknown column" would send a correct query back for repair), but a
query that ``qualify`` cannot analyse at all is refused: the guard fails closed.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Mapping

from sqlglot import exp
from sqlglot.optimizer.qualify import qualify
from sqlglot.optimizer.scope import Scope, traverse_scope

from vitrina.sql.guard.messages import listing, sql_fragment, violation
from vitrina.sql.guard.models import GuardViolation
from vitrina.sql.guard.nodes import Nodes
from vitrina.sql.guard.tables import TableIndex, TableRef, table_references

# Columns every row has without the catalog naming them.
PSEUDO_COLUMNS = frozenset({"rowid", "ctid", "xmin", "xmax", "cmin", "cmax", "tableoid", "oid"})


class ColumnList(frozenset[str]):
    """A table's allowed columns: lower-case names to test against, ``ordered`` to expand ``*``.

    ``ordered`` keeps the catalog's spelling and order (sorted when the caller gave a set).

    >>> columns = ColumnList(["Region_ID", "name"])
    >>> "region_id" in columns, columns.ordered
    (True, ('Region_ID', 'name'))
    """

    ordered: tuple[str, ...]

    def __new__(cls, names: Iterable[str]) -> ColumnList:
        ordered = tuple(dict.fromkeys(names))
        self = super().__new__(cls, (name.lower() for name in ordered))
        self.ordered = ordered
        return self


def resolve_columns(
    allowed_columns: Mapping[str, Collection[str]] | None, catalog: TableIndex | None
) -> dict[str, ColumnList]:
    """Key the catalog's columns by the full allowed table name (lower-case names to test)."""
    if not allowed_columns:
        return {}
    resolved = {}
    for table, names in allowed_columns.items():
        parts = tuple(table.lower().split("."))
        matches = catalog.resolve(parts) if catalog is not None else [".".join(parts)]
        if len(matches) == 1:
            ordered = sorted(names) if isinstance(names, set | frozenset) else names
            resolved[matches[0]] = ColumnList(ordered)
    return resolved


def allowed_columns(
    expression: exp.Expr,
    nodes: Nodes,
    tables: list[TableRef],
    catalog: TableIndex | None,
    columns: dict[str, ColumnList],
    dialect: str,
) -> Iterator[GuardViolation]:
    """Report unknown columns of tables whose columns the catalog lists."""
    if not columns:
        return
    index = catalog if catalog is not None else TableIndex(columns)
    aliases = _alias_names(nodes)
    try:
        qualified = _qualified_copy(expression, index, columns, dialect)
        scopes = traverse_scope(qualified) if qualified is not None else []
        found = [v for scope in scopes for v in _scope_violations(scope, columns, aliases, dialect)]
    except RecursionError:
        raise  # the guard refuses it as too_complex
    except Exception as error:  # fail closed: unanalysed SQL does not run
        yield violation("qualify_failed", None, error=f"{type(error).__name__}: {error}"[:200])
        return
    yield from found


def _qualified_copy(
    expression: exp.Expr, index: TableIndex, columns: dict[str, ColumnList], dialect: str
) -> exp.Expr | None:
    copy = expression.copy()
    schema: dict[str, object] = {}
    for ref in table_references(copy, dialect):
        matches = index.resolve(ref.parts)
        if len(matches) != 1 or matches[0] not in columns:
            continue
        *qualifiers, _ = matches[0].split(".")
        for key, part in zip(
            ("catalog", "db"), [*([None] * (2 - len(qualifiers))), *qualifiers], strict=True
        ):
            if part is not None:
                ref.node.set(key, exp.to_identifier(part))
        level = schema
        for part in qualifiers:
            level = level.setdefault(part, {})  # type: ignore[assignment]
        level[ref.parts[-1]] = dict.fromkeys(columns[matches[0]], "UNKNOWN")
    if not schema:
        return None
    return qualify(
        copy,
        dialect=dialect,
        schema=schema,
        expand_stars=False,
        validate_qualify_columns=False,
        allow_partial_qualification=True,
        quote_identifiers=False,
    )


def _source_name(source: exp.Table) -> str:
    return ".".join(
        part.name.lower()
        for part in (source.args.get("catalog"), source.args.get("db"), source.this)
        if isinstance(part, exp.Identifier)
    )


def _scope_violations(
    scope: Scope, columns: dict[str, ColumnList], aliases: set[str], dialect: str
) -> Iterator[GuardViolation]:
    sources = {
        alias: _source_name(source[1])
        for alias, source in scope.selected_sources.items()
        if isinstance(source, tuple) and isinstance(source[1], exp.Table)
    }
    for column in scope.columns:
        name = column.name
        if name.lower() in PSEUDO_COLUMNS or column.find_ancestor(exp.Lambda) is not None:
            continue
        if column.table:
            known = columns.get(sources.get(column.table, ""))
            if known is not None and name not in known and name.lower() not in known:
                table = sources[column.table]
                yield violation(
                    "allowed_columns",
                    sql_fragment(column, dialect),
                    column=name,
                    table=table,
                    known=listing(known),
                )
        elif _unresolved(name, scope, sources, columns, aliases):
            yield violation(
                "allowed_columns.unresolved",
                sql_fragment(column, dialect),
                column=name,
                tables=", ".join(sorted(set(sources.values()))),
            )


def _unresolved(
    name: str,
    scope: Scope,
    sources: dict[str, str],
    columns: dict[str, ColumnList],
    aliases: set[str],
) -> bool:
    """True only when every source of the scope is a known table and none has ``name``."""
    if scope.can_be_correlated:
        return False  # it may belong to an outer query
    if not sources or len(sources) != len(scope.selected_sources) or name.lower() in aliases:
        return False
    if any(table not in columns for table in sources.values()):
        return False
    return all(name not in columns[table] for table in sources.values())


def _alias_names(nodes: Nodes) -> set[str]:
    names = {alias.alias.lower() for alias in nodes.find_all(exp.Alias)}
    for table_alias in nodes.find_all(exp.TableAlias):
        names.update(column.name.lower() for column in table_alias.columns)
    return names


def sourceless_columns(nodes: Nodes, dialect: str) -> Iterator[GuardViolation]:
    """A column in a top-level SELECT without FROM has no table to come from.

    The engine may still resolve the bare name: PostgreSQL reads ``SELECT user`` and
    ``SELECT current_role`` as session facts. Subqueries are skipped (their columns may
    belong to the outer query), and so are the SELECT's own aliases (DuckDB reuses them).
    """
    for select in nodes.find_all(exp.Select):
        if select.args.get("from_") is not None or select.find_ancestor(exp.Select) is not None:
            continue
        aliases = {
            alias.alias.lower() for alias in select.expressions if isinstance(alias, exp.Alias)
        }
        for column in select.find_all(exp.Column):
            if column.find_ancestor(exp.Select) is not select or column.find_ancestor(exp.Lambda):
                continue
            if column.name.lower() not in aliases:
                yield violation(
                    "allowed_columns.unresolved",
                    sql_fragment(column, dialect),
                    column=column.name,
                    tables="-",
                )


# Bare words the engines read as session facts, not columns (PostgreSQL: SQL-standard
# "functions without parentheses"). Quoted, they are ordinary column names.
SESSION_KEYWORDS = frozenset(
    {"user", "current_user", "current_role", "session_user", "system_user"}
    | {"current_catalog", "current_schema"}
)


def session_keywords(nodes: Nodes, dialect: str) -> Iterator[GuardViolation]:
    """``SELECT user``, ``(SELECT current_role)``: a session fact, wherever the word stands."""
    for column in nodes.find_all(exp.Column):
        this = column.this
        if column.table or not isinstance(this, exp.Identifier) or this.quoted:
            continue
        if this.name.lower() in SESSION_KEYWORDS:
            yield violation(
                "allowed_columns.unresolved",
                sql_fragment(column, dialect),
                column=this.name,
                tables="-",
            )
