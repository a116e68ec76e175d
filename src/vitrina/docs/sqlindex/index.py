"""The SQL object index and its questions: who writes a table, what a view reads, column lineage."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, PrivateAttr
from sqlglot import exp
from sqlglot.lineage import lineage

from vitrina.docs.sqlindex.models import SqlError, SqlObject
from vitrina.docs.sqlindex.names import DEFAULT_SCHEMA, normalize_name, short

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

    def get(self, name: str) -> SqlObject | None:
        """Look up "[Fact].[Sale]", "Fact.Sale", "fact.sale"; unqualified -> dbo, else a unique match.

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
        return (obj.display or obj.name) if obj is not None else name

    def writers_of(self, table: str) -> list[SqlObject]:
        """Procedures, functions and triggers that write `table` (INSERT/UPDATE/DELETE/MERGE/...)."""
        key = self.resolve(table)
        return sorted(
            (o for o in self.objects.values()
             if o.kind in _WRITER_KINDS and any(self.resolve(w) == key for w in o.writes)),
            key=lambda o: o.name,
        )

    def callers_of(self, name: str) -> list[SqlObject]:
        """Modules that EXEC the procedure (or call the function) `name`."""
        key = self.resolve(name)
        return sorted(
            (o for o in self.objects.values() if any(self.resolve(c) == key for c in o.calls)),
            key=lambda o: o.name,
        )

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
            node = lineage(column, obj.query, schema=self._schema(), sources=sources or None, dialect="tsql")
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

    def _schema(self) -> dict[str, Any]:
        schema: dict[str, dict[str, dict[str, str]]] = {}
        for obj in self.objects.values():
            if obj.kind == "table" and obj.columns and obj.name.count(".") == 1:
                db, name = obj.name.split(".")
                schema.setdefault(db, {})[name] = {c.lower(): "VARCHAR" for c in obj.columns}
        return schema

    def _base_index(self) -> dict[str, list[str]]:
        if self._by_base is None or sum(map(len, self._by_base.values())) != len(self.objects):
            by_base: dict[str, list[str]] = {}
            for key in self.objects:
                by_base.setdefault(key.rsplit(".", 1)[-1], []).append(key)
            self._by_base = by_base
        return self._by_base
