"""Column assignments of one parsed write: which expression fills which target column.

INSERT (column list or positional), SELECT ... INTO, UPDATE ... SET and MERGE's UPDATE SET
and INSERT VALUES are read; each expression's columns are resolved through table aliases
and, one derived table deep at a time, through `(SELECT ...) AS s` and CTE projections.

>>> import sqlglot
>>> sql = "UPDATE t SET t.Score = s.a * 2 FROM dw.F AS t JOIN ##S AS s ON s.k = t.k"
>>> tree = sqlglot.parse_one(sql, read="tsql")
>>> [(a.target, a.column, a.expression, a.sources) for a in column_assignments(tree)]
[('dw.f', 'Score', 's.a * 2', ['##s.a'])]
"""

from __future__ import annotations

from sqlglot import exp

from vitrina.docs.sqlindex.models import ColumnAssignment

MAX_EXPRESSION = 600  # characters of an expression kept for the document
MAX_DEPTH = 6  # derived tables followed when resolving a column


def _table_name(t: exp.Table) -> str:
    from vitrina.docs.sqlindex.extract import table_name

    return table_name(t)


def column_assignments(root: exp.Expr, text: str = "") -> list[ColumnAssignment]:
    """Assignments of every write inside `root` (an INSERT, UPDATE, MERGE or SELECT INTO).

    With the parsed `text`, each expression is quoted as written when its span can be
    found and re-parses to the same tree; otherwise sqlglot's T-SQL rendering is used.
    """
    written = [
        n.this.this if isinstance(n.this, exp.Schema) else n.this for n in root.find_all(exp.Insert)
    ]
    written += [
        n.args["into"].this
        for n in root.find_all(exp.Select)
        if isinstance(n.args.get("into"), exp.Into)
    ]
    scope = _Scope(root, exclude={id(t) for t in written})
    scope.text = text
    out: list[ColumnAssignment] = []
    for node in root.walk():
        if isinstance(node, exp.Insert) and not isinstance(node.parent, exp.When):
            target = node.this.this if isinstance(node.this, exp.Schema) else node.this
            if not isinstance(target, exp.Table):
                continue
            names = (
                [c.name for c in node.this.expressions] if isinstance(node.this, exp.Schema) else []
            )
            query = node.expression
            select = (
                query
                if isinstance(query, exp.Select)
                else (query.find(exp.Select) if isinstance(query, exp.SetOperation) else None)
            )
            if select is None:
                continue
            projections = select.expressions
            names = names or [p.alias_or_name for p in projections]
            for name, proj in zip(names, projections, strict=False):
                out.append(scope.assign(_table_name(target), name, _unalias(proj)))
        elif isinstance(node, exp.Select) and isinstance(node.args.get("into"), exp.Into):
            target = node.args["into"].this
            if isinstance(target, exp.Table):
                for proj in node.expressions:
                    if proj.alias_or_name and not isinstance(proj, exp.Star):
                        out.append(
                            scope.assign(_table_name(target), proj.alias_or_name, _unalias(proj))
                        )
        elif isinstance(node, exp.Update) and isinstance(node.this, exp.Table):
            target = scope.real_target(node.this)
            out.extend(
                scope.assign(target, eq.this.name, eq.expression)
                for eq in node.expressions
                if isinstance(eq, exp.EQ) and isinstance(eq.this, exp.Column)
            )
        elif isinstance(node, exp.Merge) and isinstance(node.this, exp.Table):
            target = _table_name(node.this)
            for when in node.find_all(exp.When):
                then = when.args.get("then")
                if isinstance(then, exp.Update):
                    out.extend(
                        scope.assign(target, eq.this.name, eq.expression)
                        for eq in then.expressions
                        if isinstance(eq, exp.EQ) and isinstance(eq.this, exp.Column)
                    )
                elif (
                    isinstance(then, exp.Insert)
                    and isinstance(then.this, exp.Tuple)
                    and isinstance(then.expression, exp.Tuple)
                ):
                    for col, value in zip(
                        then.this.expressions, then.expression.expressions, strict=False
                    ):
                        out.append(scope.assign(target, col.name, value))
    return [a for a in out if a.column and a.column != "*"]


def _unalias(proj: exp.Expr) -> exp.Expr:
    return proj.this if isinstance(proj, exp.Alias) else proj


class _Scope:
    """Aliases of one statement: alias -> table name, or alias -> derived table's SELECT."""

    def __init__(self, root: exp.Expr, exclude: set[int] | None = None) -> None:
        self.text = ""
        self.tables: dict[str, str] = {}
        self.derived: dict[str, exp.Select] = {}
        for cte in root.find_all(exp.CTE):
            select = cte.this if isinstance(cte.this, exp.Select) else cte.this.find(exp.Select)
            if select is not None:
                self.derived[cte.alias_or_name.lower()] = select
        for sub in root.find_all(exp.Subquery):
            if sub.alias and isinstance(sub.this, exp.Select):
                self.derived[sub.alias.lower()] = sub.this
        # aliased tables first: in `UPDATE t ... FROM dw.F AS t` the alias names the real table,
        # and the bare target `t` must not claim the name before it
        tables = sorted(root.find_all(exp.Table), key=lambda t: not t.alias)
        for t in tables:
            if not t.name or id(t) in (exclude or ()):
                continue
            key = (t.alias or t.name).lower()
            if key in self.derived and not t.alias:
                continue  # a CTE reference
            self.tables.setdefault(key, _table_name(t))
        self.only = (
            next(iter(set(self.tables.values()))) if len(set(self.tables.values())) == 1 else None
        )

    def real_target(self, table: exp.Table) -> str:
        """`UPDATE s SET ... FROM dw.F AS s`: the alias names the real table."""
        if not table.args.get("db") and table.name.lower() in self.tables:
            return self.tables[table.name.lower()]
        return _table_name(table)

    def assign(self, target: str, column: str, expression: exp.Expr) -> ColumnAssignment:
        text = original_text(expression, self.text) or expression.sql(dialect="tsql")
        if len(text) > MAX_EXPRESSION:
            text = text[:MAX_EXPRESSION] + " …"
        sources = list(dict.fromkeys(self.sources(expression, 0)))
        return ColumnAssignment(
            target=target,
            column=column,
            expression=text,
            sources=sources,
            passthrough=isinstance(expression, exp.Column),
        )

    def sources(self, expression: exp.Expr, depth: int) -> list[str]:
        out: list[str] = []
        for col in expression.find_all(exp.Column):
            if isinstance(col.this, exp.Star) or not col.name:
                continue
            qualifier = col.table.lower() if col.table else ""
            if qualifier and qualifier in self.derived and depth < MAX_DEPTH:
                out.extend(self._through(self.derived[qualifier], col.name, depth))
            elif qualifier and qualifier in self.tables:
                out.append(f"{self.tables[qualifier]}.{col.name}")
            elif not qualifier and self.only is not None:
                out.append(f"{self.only}.{col.name}")
            elif not qualifier and len(self.derived) == 1 and not self.tables and depth < MAX_DEPTH:
                out.extend(self._through(next(iter(self.derived.values())), col.name, depth))
        return out

    def _through(self, select: exp.Select, name: str, depth: int) -> list[str]:
        """The columns behind `name` of a derived table's projection list."""
        for proj in select.expressions:
            if proj.alias_or_name.lower() == name.lower():
                inner = _Scope(select)
                inner.derived = {**self.derived, **inner.derived}
                return inner.sources(_unalias(proj), depth + 1)
        return []


def original_text(expression: exp.Expr, text: str) -> str | None:
    """The expression as the SQL file writes it, or None when it cannot be found safely."""
    if not text:
        return None
    spans = [
        (n.meta["start"], n.meta["end"])
        for n in expression.walk()
        if "start" in n.meta and "end" in n.meta
    ]
    if not spans:
        return None
    lo, hi = min(a for a, _ in spans), max(b for _, b in spans) + 1
    if isinstance(expression, exp.Case):
        head = text.rfind("CASE", 0, lo) if "CASE" in text[:lo].upper() else -1
        head = max(text.upper().rfind("CASE", 0, lo), head)
        tail = text.upper().find("END", hi)
        if head < 0 or tail < 0:
            return None
        lo, hi = head, tail + 3
    for _ in range(50):  # widen to balanced parentheses
        inner = text[lo:hi]
        opened, closed = inner.count("("), inner.count(")")
        if opened > closed:
            nxt = text.find(")", hi)
            if nxt < 0:
                return None
            hi = nxt + 1
        elif closed > opened:
            prev = text.rfind("(", 0, lo)
            if prev < 0:
                return None
            lo = prev
            while lo > 0 and (text[lo - 1].isalnum() or text[lo - 1] in "_.@#"):
                lo -= 1  # the function name before its parenthesis
        else:
            break
    candidate = text[lo:hi].strip()
    try:
        import sqlglot

        same = (
            sqlglot.parse_one(f"SELECT {candidate}", read="tsql").expressions[0].sql(dialect="tsql")
        )
    except Exception:  # not an expression on its own: use sqlglot's rendering
        return None
    return candidate if same == expression.sql(dialect="tsql") else None
