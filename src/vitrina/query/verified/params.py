"""Placeholders in and out of SQL, through sqlglot's tree, never by pasting text.

* `bind`: an entry's SQL with the new question's values: each placeholder becomes a marker
  column, the SQL is parsed, each marker is replaced by a literal node (a date cast, a
  number, a string) and the tree is rendered for the dialect; a quote in a value stays a
  quote inside a string literal.
* `lift`: the reverse, for a SQL an analyst wrote (an import, an answer judged right): the
  literals that the question itself names (its period's bounds, its filter values, its top
  N) become placeholders; every other literal stays fixed, as the analyst wrote it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import TYPE_CHECKING

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError

from vitrina.query.verified.model import PLACEHOLDER, Param, ParamError, parse_params

if TYPE_CHECKING:
    from vitrina.catalog import Catalog
    from vitrina.language.periods import Period
    from vitrina.query.verified.match import QuestionParams

MARKER = "vitrina_param__"
_MARKER_TEXT = re.compile(rf"\b{MARKER}([a-z][a-z0-9_]*)\b", re.IGNORECASE)
Value = date | int | str


def _parse(sql: str, dialect: str) -> exp.Expr:
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except ParseError as exc:
        raise ParamError(
            f"the SQL does not parse ({str(exc).splitlines()[0]})",
            f"SQL не разбирается ({str(exc).splitlines()[0]})",
        ) from exc
    if tree is None:
        raise ParamError("the SQL is empty", "SQL пуст")
    return tree


def _literal(param: Param, value: Value) -> exp.Expr:
    if param.type == "date":
        if not isinstance(value, date):
            raise ParamError(f"{param.name}: {value!r} is not a date", f"{param.name}: не дата")
        return exp.cast(exp.Literal.string(value.isoformat()), "DATE")
    if param.type == "int":
        if not isinstance(value, int) or isinstance(value, bool):
            raise ParamError(
                f"{param.name}: {value!r} is not a whole number", f"{param.name}: не целое"
            )
        return exp.Literal.number(value)
    return exp.Literal.string(str(value))


def bind(sql: str, values: dict[str, Value], dialect: str) -> str:
    """The SQL with every placeholder replaced by its value as a literal of `dialect`."""
    params = {p.name: p for p in parse_params(sql)}
    missing = sorted(set(params) - set(values))
    if missing:
        raise ParamError(
            f"no value for {', '.join(missing)}", f"нет значения для {', '.join(missing)}"
        )
    marked = PLACEHOLDER.sub(lambda m: f"{MARKER}{m.group(1)}", sql)
    tree = _parse(marked, dialect)

    def swap(node: exp.Expr) -> exp.Expr:
        if isinstance(node, exp.Column) and not node.table and node.name.lower().startswith(MARKER):
            name = node.name.lower()[len(MARKER) :]
            if name in params:
                return _literal(params[name], values[name])
        return node

    bound = tree.transform(swap)
    out = bound.sql(dialect=dialect)
    if MARKER in out.lower():
        raise ParamError(
            "a placeholder stands inside quotes or a name: put it where a literal would be",
            "параметр стоит внутри кавычек или имени: поставьте его на место значения",
        )
    return out


def example_values(params: list[Param], catalog: Catalog) -> dict[str, Value]:
    """Values that make an entry's SQL compile (a check, never an answer)."""
    out: dict[str, Value] = {}
    for p in params:
        if p.type == "date":
            out[p.name] = date(2000, 1, 1) if p.name.endswith("start") else date(2000, 12, 31)
        elif p.type == "int":
            out[p.name] = 10
        else:
            dic = catalog.dictionaries.get(p.column or "")
            out[p.name] = dic.values[0].value if dic and dic.values else "x"
    return out


@dataclass
class Lifted:
    """A SQL with the question's own literals made placeholders, and what was left fixed."""

    sql: str
    params: list[Param] = field(default_factory=list)
    fixed: list[str] = field(default_factory=list)  # literals kept as written (for review)


def _date_literal(node: exp.Expr) -> date | None:
    """The date of a literal ('2023-01-01', CAST('2023-01-01' AS DATE), DATE '...')."""
    inner = node.this if isinstance(node, (exp.Cast, exp.TsOrDsToDate)) else node
    if isinstance(node, exp.Anonymous) and node.name.lower() == "date" and node.expressions:
        inner = node.expressions[0]
    if isinstance(inner, exp.Literal) and inner.is_string:
        text = inner.this[:10]
        try:
            return date.fromisoformat(text)
        except ValueError:
            return None
    return None


def _role(node: exp.Expr) -> str | None:
    """Which bound a date literal is by where it stands: start (>=, >, BETWEEN's low), until
    (<) or end (<=, BETWEEN's high), read from the comparison around it; None elsewhere."""
    parent = node.parent
    if isinstance(parent, exp.Between):
        return "start" if parent.args.get("low") is node else "end"
    right = parent is not None and parent.args.get("expression") is node
    if isinstance(parent, (exp.GTE, exp.GT)):
        return "start" if right else ("until" if isinstance(parent, exp.GT) else "end")
    if isinstance(parent, exp.LT):
        return "until" if right else "start"
    if isinstance(parent, exp.LTE):
        return "end" if right else "start"
    return None


def _bound_of(period: Period, role: str) -> date:
    if role == "start":
        return period.start
    return period.end if role == "end" else period.end + timedelta(days=1)


def _date_name(day: date, role: str | None, wanted: QuestionParams) -> str | None:
    """The placeholder a date literal is: the first of the question's periods whose bound
    of that role it equals (any role when its place says none)."""
    for role_ in (role,) if role else ("start", "until", "end"):
        for n, period in enumerate(wanted.periods[:2], start=1):
            if _bound_of(period, role_) == day:
                return f"{'period' if n == 1 else 'period2'}_{role_}"
    return None


def _value_param(node: exp.Literal, wanted: QuestionParams, used: set[str]) -> Param | None:
    for value in wanted.values:
        if value.value == node.this and value.column:
            base = value.column.rsplit(".", 1)[-1].lower()
            name = base if base not in used else f"{base}_{len(used) + 1}"
            return Param(name=re.sub(r"[^a-z0-9_]", "_", name), type="value", column=value.column)
    return None


def lift(sql: str, wanted: QuestionParams, dialect: str) -> Lifted:
    """Make the literals the question names placeholders (see the module's docstring)."""
    tree = _parse(sql, dialect)
    found: dict[str, Param] = {}
    fixed: list[str] = []

    def swap(node: exp.Expr) -> exp.Expr:
        day = (
            _date_literal(node)
            if isinstance(node, (exp.Literal, exp.Cast, exp.Anonymous))
            else None
        )
        if day is not None:
            name = _date_name(day, _role(node), wanted)
            if name is not None:
                found.setdefault(name, Param(name=name, type="date"))
                return exp.column(f"{MARKER}{name}")
            fixed.append(day.isoformat())
            return node
        if (
            isinstance(node, exp.Literal)
            and node.is_string
            and not isinstance(node.parent, exp.Cast)
        ):
            param = _value_param(node, wanted, set(found))
            if param is not None:
                found.setdefault(param.name, param)
                return exp.column(f"{MARKER}{param.name}")
        if isinstance(node, exp.Limit) and wanted.top_n is not None:
            n = node.expression
            if isinstance(n, exp.Literal) and n.this == str(wanted.top_n):
                found["top_n"] = Param(name="top_n", type="int")
                node.set("expression", exp.column(f"{MARKER}top_n"))
        return node

    lifted = tree.transform(swap).sql(dialect=dialect, pretty=True)

    def back(m: re.Match[str]) -> str:
        p = found[m.group(1).lower()]
        kind = f"value({p.column})" if p.type == "value" else p.type
        return "{{" + f"{p.name}:{kind}" + "}}"

    return Lifted(_MARKER_TEXT.sub(back, lifted), list(found.values()), fixed)
