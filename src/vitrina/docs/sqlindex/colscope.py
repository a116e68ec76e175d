"""Where the columns of an expression come from: through CTEs, derived tables and subqueries.

A column is resolved in the innermost SELECT that holds it (then the enclosing ones, for
correlated subqueries): its qualifier names a table, a derived table `(SELECT ...) AS s`
or a CTE. A CTE or derived table is never a source: its projection of that column is
followed instead, quoted as a derivation step when it computes something, down to real
tables (`#temp`, `##global` and `@table` variables included). A value is "copied" only
when every step on the way is a bare column.

>>> import sqlglot
>>> sql = ("WITH a AS (SELECT k, COUNT(*) AS n FROM dbo.s GROUP BY k) "
...        "INSERT INTO dbo.t (k, n) SELECT k, n FROM a")
>>> tree = sqlglot.parse_one(sql, read="tsql")
>>> r = resolve(tree.expression.expressions[1], sql)
>>> r.sources, r.copied, [(s.where, s.expression) for s in r.steps]
(['dbo.s.*'], False, [('CTE a', 'COUNT(*)')])
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlglot import exp

from vitrina.docs.sqlindex.models import ColumnDerivation
from vitrina.docs.sqlindex.quote import quote

MAX_DEPTH = 16  # derived tables followed from one expression
MAX_COLUMNS = 400  # columns resolved for one expression


@dataclass(slots=True)
class Resolution:
    """Real `table.column` sources, the computing steps on the way, and whether it is a copy."""

    sources: list[str] = field(default_factory=list)
    steps: list[ColumnDerivation] = field(default_factory=list)
    copied: bool = True


@dataclass(slots=True)
class _Source:
    table: str = ""  # a real table's normal name
    query: exp.Expr | None = None  # a CTE's or derived table's query
    label: str = ""  # "CTE a", "derived table s"


def resolve(expression: exp.Expr, text: str = "") -> Resolution:
    """Sources and derivation steps of `expression` (a node of a parsed statement)."""
    out = Resolution(copied=isinstance(expression, exp.Column))
    _Walk(text, out).expression(expression, 0)
    out.sources = list(dict.fromkeys(out.sources))
    return out


class _Walk:
    def __init__(self, text: str, out: Resolution) -> None:
        self.text = text
        self.out = out
        self.seen: set[tuple[int, str]] = set()
        self.count = 0

    def expression(self, expression: exp.Expr, depth: int) -> None:
        for count in expression.find_all(exp.Count):
            if isinstance(count.this, exp.Star):
                self._star(_context(count), depth)
        for col in list(expression.find_all(exp.Column)):
            self.count += 1
            if self.count > MAX_COLUMNS or isinstance(col.this, exp.Star) or not col.name:
                continue
            self.column(col, depth)

    def _star(self, scope: exp.Expr, depth: int) -> None:
        """COUNT(*) counts rows of the tables in its SELECT: name them as `table.*`."""
        for src in _sources(scope).values():
            if src.table:
                self.out.sources.append(f"{src.table}.*")
            elif src.query is not None and depth < MAX_DEPTH:
                for sel in _selects(src.query):
                    self._star(sel, depth + 1)

    def column(self, col: exp.Column, depth: int) -> None:
        src = _find(col)
        if src is None:
            return  # not resolvable (an outer query's alias sqlglot did not place): no source
        if src.table:
            self.out.sources.append(f"{src.table}.{col.name}")
            return
        if src.query is None or depth >= MAX_DEPTH:
            return
        self.through(src, col.name, depth)

    def through(self, src: _Source, name: str, depth: int) -> None:
        """Follow `name` into a CTE or derived table's projection (each branch of a UNION)."""
        mark = (id(src.query), name.lower())
        if mark in self.seen:
            return  # a recursive CTE
        self.seen.add(mark)
        for select in _selects(src.query):
            proj = _projection(select, name)
            if proj is None:
                continue
            inner = proj.this if isinstance(proj, exp.Alias) else proj
            if isinstance(inner, exp.Star):
                self.column(exp.Column(this=exp.to_identifier(name)).copy(), depth + 1)
                continue
            if not isinstance(inner, exp.Column):
                self.out.copied = False
                q = quote(inner, self.text)
                self.out.steps.append(
                    ColumnDerivation(
                        where=src.label, column=name, expression=q.text, line=q.line, exact=q.exact
                    )
                )
            self.expression(inner, depth + 1)


def _projection(select: exp.Select, name: str) -> exp.Expr | None:
    low = name.lower()
    for proj in select.expressions:
        if proj.alias_or_name.lower() == low:
            return proj
    stars = [p for p in select.expressions if isinstance(p, exp.Star)]
    return stars[0] if stars else None


def _selects(query: exp.Expr | None) -> list[exp.Select]:
    if isinstance(query, exp.Select):
        return [query]
    if isinstance(query, exp.SetOperation):
        return _selects(query.this) + _selects(query.expression)
    if isinstance(query, exp.Subquery):
        return _selects(query.this)
    return []


def _context(node: exp.Expr) -> exp.Expr:
    """The innermost SELECT, UPDATE, DELETE or MERGE holding `node`."""
    cur = node.parent
    while cur is not None and not isinstance(cur, (exp.Select, exp.Update, exp.Delete, exp.Merge)):
        cur = cur.parent
    return cur if cur is not None else node.root()


def _find(col: exp.Column) -> _Source | None:
    """The source a column's qualifier (or, unqualified, its only candidate) names."""
    scope = _context(col)
    qualifier = col.table.lower()
    for _ in range(MAX_DEPTH):
        sources = _sources(scope)
        if qualifier and qualifier in sources:
            return sources[qualifier]
        if not qualifier:
            found = _unqualified(sources, col.name)
            if found is not None:
                return found
        if scope.parent is None:
            break
        scope = _context(scope)
    return None


def _unqualified(sources: dict[str, _Source], name: str) -> _Source | None:
    distinct = {(s.table, id(s.query)): s for s in sources.values()}
    if len(distinct) == 1:
        return next(iter(distinct.values()))
    derived = [
        s
        for s in distinct.values()
        if s.query is not None
        and any(_projection(sel, name) is not None for sel in _selects(s.query))
    ]
    if len(derived) == 1:
        return derived[0]
    tables = [s for s in distinct.values() if s.table]
    return tables[0] if len(tables) == 1 and not derived else None


def _sources(scope: exp.Expr) -> dict[str, _Source]:
    """alias -> source for the FROM, JOINs, USING and DML target of one SELECT or statement."""
    items = from_items(scope)
    if isinstance(scope, (exp.Update, exp.Merge, exp.Delete)) and scope.this is not None:
        items.append(scope.this)  # last: `UPDATE t ... FROM dw.F AS t` names dw.F
    ctes = _visible_ctes(scope)
    out: dict[str, _Source] = {}
    for item in items:
        _add(out, item, ctes)
    return out


def from_items(scope: exp.Expr) -> list[exp.Expr]:
    """The FROM item, USING source and JOINed items of a SELECT, UPDATE, DELETE or MERGE
    (sqlglot hangs an UPDATE's joins on its FROM table)."""
    items: list[exp.Expr] = []
    for key in ("from_", "from", "using"):
        node = scope.args.get(key)
        if isinstance(node, exp.From):
            items.append(node.this)
            items += [j.this for j in node.this.args.get("joins") or []]
        elif node is not None:
            items.append(node)
    items += [j.this for j in scope.args.get("joins") or []]
    return items


def _add(out: dict[str, _Source], item: exp.Expr, ctes: dict[str, exp.Expr]) -> None:
    from vitrina.docs.sqlindex.extract import table_name

    if isinstance(item, exp.Table) and item.name:
        bare = not item.args.get("db") and isinstance(item.this, exp.Identifier)
        key = (item.alias or item.name).lower()
        if bare and item.name.lower() in ctes:
            out.setdefault(key, _Source(query=ctes[item.name.lower()], label=f"CTE {item.name}"))
        else:
            out.setdefault(key, _Source(table=table_name(item)))
    elif isinstance(item, (exp.Subquery, exp.Lateral)) and item.alias:
        query = item.this
        out.setdefault(
            item.alias.lower(), _Source(query=query, label=f"derived table {item.alias}")
        )


def _visible_ctes(scope: exp.Expr) -> dict[str, exp.Expr]:
    out: dict[str, exp.Expr] = {}
    cur: exp.Expr | None = scope
    while cur is not None:
        with_ = cur.args.get("with_") or cur.args.get("with")
        if isinstance(with_, exp.With):
            for cte in with_.expressions:
                out.setdefault(cte.alias_or_name.lower(), cte.this)
        cur = cur.parent
    return out
