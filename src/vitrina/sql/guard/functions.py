"""Function rules: an allow-list everywhere in the tree, a deny-list on top, no table functions.

The allow-list (:mod:`vitrina.sql.guard.allowed_functions`) decides; the deny-list of
:mod:`vitrina.sql.guard.dialects` only names the worst functions in a clearer message
(``dangerous_functions``) and can never let anything through.
"""

from __future__ import annotations

from collections.abc import Iterator

from sqlglot import exp

from vitrina.sql.guard.allowed_functions import TABLE_FUNCTIONS, is_allowed_function
from vitrina.sql.guard.dialects import deny_list
from vitrina.sql.guard.messages import sql_fragment, violation
from vitrina.sql.guard.models import GuardViolation
from vitrina.sql.guard.nodes import Nodes
from vitrina.sql.guard.tables import function_name

# Relation positions that may hold a row source: FROM, every JOIN, LATERAL.
RELATION_PARENTS: tuple[type[exp.Expr], ...] = (exp.From, exp.Join, exp.Lateral)


def dangerous_functions(nodes: Nodes, dialect: str) -> Iterator[GuardViolation]:
    """Name the file/network readers, sleeps, shells, lock or setting functions, wherever they hide.

    Names are compared case-insensitively and without their schema, so ``PG_SLEEP(1)``,
    ``"pg_sleep"(1)`` and ``pg_catalog.pg_sleep(1)`` are all caught.
    """
    denied = deny_list(dialect)
    for func in nodes.find_all(exp.Func):
        name = function_name(func)
        if denied.denies(name):
            yield violation("dangerous_functions", sql_fragment(func, dialect), name=name)


def allowed_functions(nodes: Nodes, dialect: str) -> Iterator[GuardViolation]:
    """Every function call must be on the dialect's allow-list, called by its bare name."""
    denied = deny_list(dialect)
    for func in nodes.find_all(exp.Func):
        name = function_name(func)
        if _is_qualified(func):
            yield violation(
                "allowed_functions.qualified", sql_fragment(func.parent or func, dialect), name=name
            )
        elif denied.denies(name) or _is_table_function(func):
            continue  # reported by dangerous_functions / table_functions
        elif not is_allowed_function(type(func).__name__, _anonymous_name(func), dialect):
            yield violation("allowed_functions", sql_fragment(func, dialect), name=name)


def table_functions(nodes: Nodes, dialect: str) -> Iterator[GuardViolation]:
    """No function is a row source unless the dialect's list names it (none by default).

    A table function reads outside the allowed tables (DuckDB's ``query('...')``,
    ``enable_logging(...)``, PostgreSQL's ``dblink``, a foreign scanner, a user function).
    """
    allowed = TABLE_FUNCTIONS.get(dialect, frozenset())
    denied = deny_list(dialect)
    for func in nodes.find_all(exp.Func):
        if not _is_table_function(func):
            continue
        name = function_name(func)
        if name in allowed or denied.denies(name):
            continue  # allowed, or reported by dangerous_functions
        yield violation("table_functions", sql_fragment(func, dialect), name=name)


def relations(nodes: Nodes, dialect: str) -> Iterator[GuardViolation]:
    """Every FROM, JOIN and LATERAL holds a named table, a subquery or VALUES, at any depth."""
    for node in nodes.find_all(*RELATION_PARENTS):
        source = node.this
        if isinstance(node, exp.Lateral):
            ok = isinstance(source, exp.Subquery) or _is_table_function(source)
        else:
            ok = isinstance(source, exp.Table | exp.Subquery | exp.Values | exp.Lateral)
            ok = ok or _is_table_function(source)  # reported by table_functions
        if isinstance(source, exp.Table) and not isinstance(source.this, exp.Identifier | exp.Func):
            ok = False
        if not ok:
            yield violation("relations", sql_fragment(source, dialect))


def parameters(nodes: Nodes, dialect: str) -> Iterator[GuardViolation]:
    """No bind parameters or session variables (``$1``, ``:x``, ``@@version``)."""
    for node in nodes.find_all(exp.Placeholder, exp.Parameter, exp.SessionParameter):
        yield violation("parameters", sql_fragment(node, dialect))


def _is_table_function(node: exp.Expr | None) -> bool:
    """A function in relation position: ``FROM f(...)``, ``JOIN f(...)``, ``LATERAL f(...)``."""
    if not isinstance(node, exp.Func):
        return False
    parent = node.parent
    if isinstance(parent, exp.Table) and node.arg_key == "this":
        return True
    if isinstance(parent, RELATION_PARENTS) and node.arg_key == "this":
        return True
    return isinstance(node, exp.Unnest) and isinstance(parent, exp.Join | exp.From)


def _is_qualified(func: exp.Func) -> bool:
    """``pg_catalog.set_config(...)``, ``public.lower(x)``: a schema picks the function."""
    return isinstance(func.parent, exp.Dot) and func.arg_key == "expression"


def _anonymous_name(func: exp.Func) -> str | None:
    """The written name of an exp.Anonymous; None when quoted in another case (a user function)."""
    if not isinstance(func, exp.Anonymous | exp.AnonymousAggFunc):  # uniqExact(x): ClickHouse
        return None
    this = func.this
    if isinstance(this, exp.Identifier) and this.quoted and this.name != this.name.lower():
        return None
    return func.name


# Types whose input function looks up server objects or parses documents: a cast to them is
# a catalog probe (``'pg_authid'::regclass``) or an XML parser (external entities).
DANGEROUS_TYPES = frozenset({exp.DataType.Type.XML})


def dangerous_casts(nodes: Nodes, dialect: str) -> Iterator[GuardViolation]:
    """No casts to XML or to PostgreSQL's object-identifier types (regclass, regrole, ...)."""
    for node in nodes.find_all(exp.DataType, exp.ObjectIdentifier):
        if isinstance(node, exp.ObjectIdentifier) or node.this in DANGEROUS_TYPES:
            yield violation("dangerous_casts", sql_fragment(node, dialect))
