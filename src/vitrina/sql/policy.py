"""Row-level policies: the rows a token may read, as conditions on the catalog's columns.

A policy is a list of conditions ``table.column IN (values)`` (all must hold). It is checked
against the catalog when the token is created and again on every query (a column the catalog
no longer has refuses every query of the token: fail closed). `table_filters` turns it into
one filter per catalog table: the policed table by its own column, and every table that
reaches it through the catalog's many-to-one relations by a semi-join along that path
(payments -> clients -> regions). The SQL guard wraps each reference to such a table in a
derived table with its filter (`vitrina.sql.guard.policies`).

>>> from vitrina.catalog import load_catalog
>>> from vitrina.config import load_settings
>>> catalog = load_catalog(load_settings().catalog_dir)
>>> policy = RowPolicy(conditions=[parse_condition("dim_region.region_name=Москва", catalog)])
>>> policy.describe("en")
'dwh.dim_region.region_name = Москва'
>>> print(table_filters(policy, catalog)["dwh.fact_payment"].condition.sql(dialect="postgres"))
vp0.client_id IN (SELECT vp1.client_id FROM dwh.dim_client AS vp1 WHERE vp1.region_id IN \
(SELECT vp2.region_id FROM dwh.dim_region AS vp2 WHERE vp2.region_name IN ('Москва')))
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, cast

from pydantic import BaseModel, Field
from sqlglot import exp

from vitrina.sql.guard.policies import RowFilter

if TYPE_CHECKING:
    from vitrina.catalog import Catalog
    from vitrina.catalog.model import Relation

ALIAS = "vp"  # the filtered table is `vp0`; the tables of its semi-joins `vp1`, `vp2`, ...
MAX_VALUES = 200  # values in one condition
MAX_CONDITIONS = 20
NUMERIC_TYPES = ("int", "numeric", "decimal", "double", "float", "real", "bigint", "smallint")


class PolicyError(ValueError):
    """A policy that names what the catalog does not have; both languages, for the CLI."""

    def __init__(self, message_en: str, message_ru: str) -> None:
        super().__init__(f"{message_en} / {message_ru}")
        self.message_en = message_en
        self.message_ru = message_ru


class PolicyCondition(BaseModel):
    """``column`` (schema-qualified ``table.column``) is one of ``values``."""

    column: str
    values: list[str] = Field(min_length=1, max_length=MAX_VALUES)

    @property
    def table(self) -> str:
        return self.column.rsplit(".", 1)[0]

    @property
    def column_name(self) -> str:
        return self.column.rsplit(".", 1)[1]

    def describe(self) -> str:
        if len(self.values) == 1:
            return f"{self.column} = {self.values[0]}"
        return f"{self.column} IN ({', '.join(self.values)})"


class RowPolicy(BaseModel):
    """Every condition must hold for a row to be visible."""

    conditions: list[PolicyCondition] = Field(default_factory=list, max_length=MAX_CONDITIONS)

    def __bool__(self) -> bool:
        return bool(self.conditions)

    def describe(self, lang: str = "en") -> str:
        joiner = " и " if lang == "ru" else " and "
        return joiner.join(c.describe() for c in self.conditions)

    def filters(self, catalog: Catalog) -> dict[str, RowFilter]:
        """What the SQL guard adds to each table (`table_filters`), built once per loaded
        catalog and policy (the guard copies what it uses; a PolicyError is not kept)."""
        key = f"row_filters {self.dumps()}"
        if key not in catalog.cache:
            catalog.cache[key] = table_filters(self, catalog)
        return cast(dict[str, RowFilter], catalog.cache[key])

    def dumps(self) -> str:
        return json.dumps(self.model_dump()["conditions"], ensure_ascii=False)

    @classmethod
    def loads(cls, text: str | None) -> RowPolicy | None:
        """The stored form (a JSON list) back; None for no policy."""
        if not text:
            return None
        return cls(conditions=json.loads(text))


def parse_condition(text: str, catalog: Catalog) -> PolicyCondition:
    """``[schema.]table.column=value[,value...]`` checked against the catalog."""
    column, sep, raw = text.partition("=")
    values = [v.strip() for v in raw.split(",") if v.strip()]
    if not sep or not column.strip() or not values:
        raise PolicyError(
            f"policy {text!r}: write it as table.column=value[,value...], "
            "e.g. dim_region.region_name=Москва",
            f"политика {text!r}: запишите её как таблица.колонка=значение[,значение...], "
            "например dim_region.region_name=Москва",
        )
    condition = PolicyCondition(column=_qualified(column.strip().lower(), catalog), values=values)
    check_condition(condition, catalog)
    return condition


def _qualified(written: str, catalog: Catalog) -> str:
    table_part, _, column = written.rpartition(".")
    names = [t for t in catalog.tables if t == table_part or t.endswith(f".{table_part}")]
    if not table_part or len(names) != 1:
        known = ", ".join(sorted(catalog.tables))
        what = "is ambiguous" if len(names) > 1 else "is not a table of the catalog"
        what_ru = "неоднозначна" if len(names) > 1 else "не найдена в каталоге"
        raise PolicyError(
            f"policy column {written!r}: table {table_part!r} {what}; known tables: {known}",
            f"колонка политики {written!r}: таблица {table_part!r} {what_ru}; "
            f"таблицы каталога: {known}",
        )
    return f"{names[0]}.{column}"


def check_condition(condition: PolicyCondition, catalog: Catalog) -> None:
    """PolicyError unless the column is a catalog column and every value is in its
    dictionary (or, without one, fits the column's type)."""
    table = catalog.tables.get(condition.table)
    column = table.column(condition.column_name) if table is not None else None
    if table is None or column is None:
        known = ", ".join(c.name for c in table.columns) if table is not None else ""
        raise PolicyError(
            f"policy column {condition.column!r} is not a column of the catalog"
            + (f"; columns of {condition.table}: {known}" if known else ""),
            f"колонки политики {condition.column!r} нет в каталоге"
            + (f"; колонки {condition.table}: {known}" if known else ""),
        )
    dictionary = catalog.dictionary_for(condition.table, condition.column_name)
    if dictionary is not None:
        allowed = [v.value for v in dictionary.values]
        for value in condition.values:
            if value not in allowed:
                raise PolicyError(
                    f"policy value {value!r} is not in the dictionary of {condition.column}; "
                    f"known values: {', '.join(allowed)}",
                    f"значения {value!r} нет в словаре {condition.column}; "
                    f"известные значения: {', '.join(allowed)}",
                )
    elif _numeric(column.type):
        for value in condition.values:
            try:
                float(value)
            except ValueError:
                raise PolicyError(
                    f"policy value {value!r} is not a number, but {condition.column} is "
                    f"{column.type}",
                    f"значение политики {value!r} не число, а {condition.column} — {column.type}",
                ) from None


def _numeric(type_name: str) -> bool:
    return any(word in type_name.lower() for word in NUMERIC_TYPES)


def check_policy(policy: RowPolicy, catalog: Catalog) -> None:
    for condition in policy.conditions:
        check_condition(condition, catalog)


def table_filters(policy: RowPolicy, catalog: Catalog) -> dict[str, RowFilter]:
    """The filter of every catalog table the policy reaches, over the alias ``vp0``, with
    the table's catalog columns (what the filtered derived table exposes).

    A condition on table T filters T by its column, and every table with a many-to-one
    relation path to T by a semi-join along the shortest path (of several shortest, those
    whose last relation is the catalog's ``default``; still several: all of them, so a
    choice the catalog does not make never shows more rows). Conditions of a table are
    ANDed. Raises PolicyError when the catalog no longer has a policed column."""
    check_policy(policy, catalog)
    found: dict[str, list[exp.Expr]] = {}
    for condition in policy.conditions:
        column = catalog.column(condition.column)
        assert column is not None  # check_policy
        for table in catalog.tables:
            for path in _paths(catalog, table, condition.table):
                found.setdefault(table, []).append(_semi_join(table, path, condition, column.type))
    return {
        table: RowFilter(
            exp.and_(*conditions), tuple(c.name for c in catalog.tables[table].columns)
        )
        for table, conditions in found.items()
    }


def _paths(catalog: Catalog, start: str, goal: str) -> list[list[Relation]]:
    if start == goal:
        return [[]]
    paths = catalog.join_paths(start, goal)
    if not paths:
        return []
    shortest = [p for p in paths if len(p) == len(paths[0])]
    preferred = [p for p in shortest if p[-1].default]
    return preferred or shortest


def _semi_join(table: str, path: list[Relation], condition: PolicyCondition, kind: str) -> exp.Expr:
    """``vp0.fk IN (SELECT vp1.key FROM next AS vp1 WHERE ... vpN.column IN (values))``."""
    steps = []  # (column of the current table, next table, its column)
    current = table
    for rel in path:
        if rel.left_table == current:
            steps.append((rel.left_column, rel.right_table, rel.right_column))
            current = rel.right_table
        else:  # a one-to-one relation walked from its right side
            steps.append((rel.right_column, rel.left_table, rel.left_column))
            current = rel.left_table
    literal = exp.Literal.number if _numeric(kind) else exp.Literal.string
    depth = len(steps)
    condition_sql: exp.Expr = exp.column(condition.column_name, f"{ALIAS}{depth}").isin(
        *(literal(v) for v in condition.values)
    )
    for n in range(depth - 1, -1, -1):
        own_column, next_table, next_column = steps[n]
        inner = (
            exp.select(exp.column(next_column, f"{ALIAS}{n + 1}"))
            .from_(exp.to_table(next_table).as_(f"{ALIAS}{n + 1}"))
            .where(condition_sql)
        )
        condition_sql = exp.column(own_column, f"{ALIAS}{n}").isin(query=inner)
    return condition_sql
