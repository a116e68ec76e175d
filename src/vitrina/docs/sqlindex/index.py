"""The SQL object index and its questions: who writes a table, what a view reads, column lineage."""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, Field, PrivateAttr
from sqlglot import exp
from sqlglot.lineage import lineage
from sqlglot.schema import MappingSchema

from vitrina.docs.sqlindex.models import SqlError, SqlObject
from vitrina.docs.sqlindex.names import DEFAULT_SCHEMA, normalize_name, short
from vitrina.docs.sqlindex.order import OrderPlan, plan_order

_REFERENCES = re.compile(
    r"\bREFERENCES\s+((?:\[[^\]]+\]|\w+)(?:\s*\.\s*(?:\[[^\]]+\]|\w+))*)", re.IGNORECASE
)
_WRITER_KINDS = frozenset({"procedure", "function", "other"})


class SqlIndex(BaseModel):
    """Every object found in a set of .sql files, keyed by normal name ("schema.name").

    `scripts` holds statements outside any definition (one pseudo object per file, named
    "script:<file>"), e.g. post-deployment inserts or BULK INSERT loads.
    """

    objects: dict[str, SqlObject] = Field(default_factory=dict)
    files: list[str] = Field(default_factory=list)
    errors: list[SqlError] = Field(default_factory=list)
    scripts: list[SqlObject] = Field(default_factory=list)
    _by_base: dict[str, list[str]] | None = PrivateAttr(default=None)
    names: dict[str, str] = Field(
        default_factory=dict
    )  # normal name -> as first written, for undefined objects
    _cache: tuple[tuple[int, int], dict[str, Any]] | None = PrivateAttr(default=None)
    _schema_cache: tuple[int, MappingSchema] | None = PrivateAttr(default=None)
    _by_base_count: int = PrivateAttr(default=-1)
    explicit_order: list[str] = Field(default_factory=list)  # an order file's module names

    def get(self, name: str) -> SqlObject | None:
        """Look up "[Fact].[Sale]", "Fact.Sale", "fact.sale"; unqualified -> dbo, else a unique
        match.

        A 3- or 4-part name (db.schema.name) falls back to its schema.name.
        """
        key = normalize_name(name)
        if not key:
            return None
        found = self.objects.get(key)
        if found is not None:
            return found
        if key.count(".") >= 2:
            return self.objects.get(short(key))
        bare = name.strip()
        if "." not in bare.replace("[.]", "") and key.startswith(f"{DEFAULT_SCHEMA}."):
            matches = self._base_index().get(key.split(".", 1)[1], [])
            if len(matches) == 1:
                return self.objects[matches[0]]
        return None

    def resolve(self, name: str) -> str:
        """The indexed name for `name`, or its normal form when it is not indexed."""
        obj = self.get(name)
        return obj.name if obj is not None else normalize_name(name)

    def display(self, name: str) -> str:
        """`name` as its definition writes it (`Fact.Sale`) when indexed, else as given."""
        obj = self.get(name)
        if obj is not None:
            return obj.display or obj.name
        return self.names.get(normalize_name(name), name)

    def writers_of(self, table: str) -> list[SqlObject]:
        """Procedures, functions, triggers and scripts that write `table`, in execution order.

        Found from the statements themselves, so a table whose CREATE TABLE is not in the
        folder (or a `##global` temp table) still has its loaders.
        """
        return list(self._maps()["writers"].get(self.resolve(table), []))

    def callers_of(self, name: str) -> list[SqlObject]:
        """Modules and scripts that EXEC the procedure (or call the function) `name`."""
        return list(self._maps()["callers"].get(self.resolve(name), []))

    def callees_of(self, name: str) -> list[str]:
        """Modules `name` calls, directly or through its callees (bounded, cycle-safe)."""
        out: list[str] = []
        stack = [self.resolve(name)]
        seen: set[str] = set()
        while stack and len(seen) < 10_000:
            current = stack.pop()
            if current in seen:
                continue
            seen.add(current)
            obj = self.objects.get(current) or self._maps()["scripts"].get(current)
            for callee, _line in obj.ordered_calls if obj is not None else []:
                key = self.resolve(callee)
                if key not in seen:
                    out.append(key)
                    stack.append(key)
        return out

    def order_of(self, name: str) -> int | None:
        """The place of a module in the load's execution order (see `execution_order`)."""
        order = self._maps()["order"]
        return order.get(name, order.get(self.resolve(name)))

    def execution_order(self) -> list[str]:
        """Modules in the order a load runs them.

        An order file, SQL Agent job steps and scripts, and each orchestrator's EXEC order
        are followed; everything else is ordered by data flow (a table's creator before its
        modifiers, writers before readers). See `order.py`.
        """
        return list(self._maps()["order_list"])

    def order_plan(self) -> OrderPlan:
        """How the order was found: each module's basis, the cycles broken, the conflicts."""
        return self._maps()["plan"]

    def set_explicit_order(self, names: list[str]) -> None:
        """An order file (`--order`): these modules run in this order, whatever data says."""
        self.explicit_order = list(names)
        self._cache = None

    def _maps(self) -> dict[str, Any]:
        stamp = (len(self.objects), len(self.scripts))
        if self._cache is not None and self._cache[0] == stamp:
            return self._cache[1]
        modules = [o for o in self.objects.values() if o.kind in _WRITER_KINDS] + list(self.scripts)
        scripts = {o.name: o for o in self.scripts}
        callers: dict[str, list[SqlObject]] = {}
        for o in modules:
            for c in sorted(o.calls):
                callers.setdefault(self.resolve(c), []).append(o)
        plan = plan_order(
            modules,
            resolve=self.resolve,
            explicit=self.explicit_order,
            references=self._references(),
        )
        order_list = plan.order
        order = {name: k for k, name in enumerate(order_list)}
        writers: dict[str, list[SqlObject]] = {}
        for o in modules:
            for w in o.writes:
                writers.setdefault(self.resolve(w), []).append(o)
        for found in writers.values():
            found.sort(key=lambda o: (order.get(o.name, len(order)), o.name))
        maps = {
            "writers": writers,
            "callers": callers,
            "order": order,
            "order_list": order_list,
            "scripts": scripts,
            "plan": plan,
        }
        self._cache = (stamp, maps)
        return maps

    def _references(self) -> dict[str, set[str]]:
        """Table -> tables its foreign keys reference (REFERENCES in the CREATE TABLE)."""
        out: dict[str, set[str]] = {}
        for obj in self.objects.values():
            if obj.kind == "table" and "REFERENCES" in obj.definition.upper():
                found = {self.resolve(m) for m in _REFERENCES.findall(obj.definition)}
                out[obj.name] = found - {obj.name}
        return out

    def view_sources(self, view: str) -> list[str]:
        """Direct sources of a view (tables, views or functions), resolved to indexed names."""
        obj = self.get(view)
        if obj is None:
            return []
        return sorted({self.resolve(r) for r in obj.reads})

    def base_tables(self, name: str) -> list[str]:
        """Tables under a view, following views on views down to the tables (cycle-safe)."""
        out: set[str] = set()
        seen: set[str] = set()
        stack = [self.resolve(name)]
        while stack:
            current = stack.pop()
            if current in seen:
                continue
            seen.add(current)
            obj = self.objects.get(current)
            if obj is None:
                out.add(current)  # not indexed: reported as is
            elif obj.kind == "view":
                stack.extend(self.resolve(r) for r in obj.reads)
            elif obj.kind in ("table", "function") or current != self.resolve(name):
                out.add(current)
        return sorted(out)

    def column_lineage(self, view: str, column: str) -> list[tuple[str, str]] | None:
        """(table, column) pairs a view column comes from, through views on views.

        Uses sqlglot.lineage with the indexed table columns as schema and the indexed views
        as sources; None when the view is unknown or its SQL cannot be resolved.
        """
        obj = self.get(view)
        if obj is None or obj.kind != "view" or not obj.query:
            return None
        sources: dict[str, str] = {}
        stack = [self.resolve(r) for r in obj.reads]
        while stack:
            name = stack.pop()
            dep = self.objects.get(name)
            if dep is None or name in sources or dep.kind != "view" or not dep.query:
                continue
            sources[name] = dep.query
            stack.extend(self.resolve(r) for r in dep.reads)
        try:
            node = lineage(
                column,
                obj.query,
                schema=self._mapping_schema(),
                sources=sources or None,
                dialect="tsql",
            )
        except Exception:  # any failure means "not resolvable": the caller says so
            return None
        pairs: list[tuple[str, str]] = []
        for n in node.walk():
            if n.downstream or not isinstance(n.expression, exp.Table):
                continue
            table = self._table_of(n.expression)
            col = n.name.rsplit(".", 1)[-1].strip('"[]')
            obj_t = self.objects.get(table)
            if obj_t is not None:
                col = next((c for c in obj_t.columns if c.lower() == col.lower()), col)
            pairs.append((table, col))
        return list(dict.fromkeys(pairs)) or None

    def _table_of(self, table: exp.Table) -> str:
        parts = [p.name for p in table.parts]
        return self.resolve(".".join(f"[{p}]" for p in parts))

    def _mapping_schema(self) -> MappingSchema:
        """The table columns as one sqlglot schema, normalised once per index, not per column:
        sqlglot only reads it, and rebuilding it made each lookup cost O(tables) (issue 15)."""
        stamp = len(self.objects)
        if self._schema_cache is None or self._schema_cache[0] != stamp:
            self._schema_cache = (stamp, MappingSchema(self._schema(), dialect="tsql"))
        return self._schema_cache[1]

    def _schema(self) -> dict[str, Any]:
        schema: dict[str, dict[str, dict[str, str]]] = {}
        for obj in self.objects.values():
            if obj.kind == "table" and obj.columns and obj.name.count(".") == 1:
                db, name = obj.name.split(".")
                schema.setdefault(db, {})[name] = {c.lower(): "VARCHAR" for c in obj.columns}
        return schema

    def _base_index(self) -> dict[str, list[str]]:
        if self._by_base is None or self._by_base_count != len(self.objects):
            by_base: dict[str, list[str]] = {}
            for key in self.objects:
                by_base.setdefault(key.rsplit(".", 1)[-1], []).append(key)
            self._by_base = by_base
            self._by_base_count = len(self.objects)
        return self._by_base
