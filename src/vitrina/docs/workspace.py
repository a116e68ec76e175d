"""Everything one docs run reads once: the model, the SQL index, and per-object caches.

Heavy objects live here, not in graph state, so checkpoints stay small; a resumed run
rebuilds the workspace from the same paths.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from vitrina.docs.dax.resolver import DaxDeps, ModelNames, resolve
from vitrina.docs.errors import DocsInputError
from vitrina.docs.model import Measure, Model, Table, load_model
from vitrina.docs.sources.partition import table_sources
from vitrina.docs.sources.types import SourceRef
from vitrina.trace import Trace


class Workspace:
    """A loaded model plus an optional SQL object index, with memoised lookups."""

    def __init__(
        self, model: Model, index: Any | None = None, *, trace: Trace | None = None
    ) -> None:
        self.model = model
        self.index = index
        self.trace = trace or Trace("docs.workspace")
        self.names = ModelNames(model)
        # Name maps built once: the model does not change during a run, and a scan of every
        # table per lookup made each measure cost O(model) (issue 15). First match wins, as in
        # Model.table / Model.measure.
        self._tables: dict[str, Table] = {}
        self._measures: dict[str, Measure] = {}
        self._table_measures: dict[str, dict[str, Measure]] = {}
        for t in model.tables:
            self._tables.setdefault(t.name.lower(), t)
            for m in t.measures:
                self._measures.setdefault(m.name.lower(), m)
        for low, t in self._tables.items():
            by_name: dict[str, Measure] = {}
            for m in t.measures:
                by_name.setdefault(m.name, m)
            self._table_measures[low] = by_name
        self._deps: dict[tuple[str, str], DaxDeps] = {}
        self._col_deps: dict[tuple[str, str], DaxDeps] = {}
        self._sources: dict[str, list[SourceRef]] = {}
        self.lineage_cache: dict[str, Any] = {}
        self._view_cols: dict[tuple[str, str], list[tuple[str, str]] | None] = {}
        self._sql_roots: list[Path] = []
        self._shown: dict[str, str] = {}

    @property
    def sql_roots(self) -> list[Path]:
        return self._sql_roots

    @sql_roots.setter
    def sql_roots(self, roots: list[Path]) -> None:
        self._sql_roots = roots
        self._shown = {}

    def display_path(self, path: str | None) -> str | None:
        """A SQL file shown relative to the --sql folder it came from
        (`dw-ssdt/Fact/Tables/Sale.sql`). Memoised: resolving walks the path with a syscall
        per part, and every measure names the same few files again."""
        if not path:
            return None
        shown = self._shown.get(path)
        if shown is None:
            shown = self._shown[path] = self._display_path(Path(path))
        return shown

    def _display_path(self, p: Path) -> str:
        for root in self._sql_roots:
            base = root if root.is_dir() else root.parent
            try:
                return f"{base.name}/{p.resolve().relative_to(base.resolve()).as_posix()}"
            except ValueError:
                continue
        return p.name

    @classmethod
    def load(
        cls,
        model_path: Path | str,
        sql_paths: Sequence[Path | str] = (),
        *,
        trace: Trace | None = None,
        progress: Callable[..., Any] | None = None,
        order: Path | str | None = None,
    ) -> Workspace:
        trace = trace or Trace("docs.workspace")
        model = load_model(model_path)
        index = (
            build_sql_index([Path(p) for p in sql_paths], trace=trace, progress=progress)
            if sql_paths
            else None
        )
        if not sql_paths:
            trace.branch("no SQL folder given: lineage stops at partition sources")
        elif order and index is not None:
            from vitrina.docs.order_file import apply_order_file

            apply_order_file(index, Path(order))
            trace.branch("load order taken from the order file", file=str(order))
        ws = cls(model, index, trace=trace)
        ws.sql_roots = [Path(p) for p in sql_paths]
        return ws

    def drop_memos(self) -> None:
        """Forget the per-measure memos (DAX dependencies, view column lineage, sources).

        They grow with every measure documented (the run grew from 474 to 722 MB over
        100,000 measures, issue 32, these among it) and the combine step reads none of
        them; a later lookup computes its entry again."""
        self._deps = {}
        self._col_deps = {}
        self._view_cols = {}
        self._sources = {}

    def table(self, name: str) -> Table | None:
        """The model table named `name` (case-insensitive)."""
        return self._tables.get(name.lower())

    def measure(self, table: str, name: str) -> Measure | None:
        """The measure `name` (exact spelling) of `table` (case-insensitive)."""
        return self._table_measures.get(table.lower(), {}).get(name)

    def measure_by_name(self, name: str) -> Measure | None:
        """The measure `name` anywhere in the model (case-insensitive, names are unique)."""
        return self._measures.get(name.lower())

    def deps(self, measure: Measure) -> DaxDeps:
        key = (measure.table, measure.name)
        if key not in self._deps:
            self._deps[key] = resolve(measure.expression, measure.table, self.names)
        return self._deps[key]

    def column_deps(self, table: str, column: str) -> DaxDeps | None:
        """Dependencies of a calculated column, None for a data column."""
        key = (table, column)
        if key not in self._col_deps:
            t = self.table(table)
            col = t.column(column) if t else None
            if col is None or not col.expression:
                return None
            self._col_deps[key] = resolve(col.expression, table, self.names)
        return self._col_deps[key]

    def view_column_lineage(self, view: str, column: str) -> list[tuple[str, str]] | None:
        """The index's column lineage of a view column, memoised (sqlglot lineage is costly)."""
        key = (view.lower(), column.lower())
        if key not in self._view_cols:
            self._view_cols[key] = (
                self.index.column_lineage(view, column) if self.index is not None else None
            )
        return self._view_cols[key]

    def sources(self, table: str) -> list[SourceRef]:
        if table not in self._sources:
            t = self.table(table)
            self._sources[table] = table_sources(t, self.model, trace=self.trace) if t else []
        return self._sources[table]


def build_sql_index(
    paths: Sequence[Path], *, trace: Trace | None = None, progress: Callable[..., Any] | None = None
) -> Any:
    """Build the SQL object index (vitrina.docs.sqlindex) over the given folders/files."""
    missing = [p for p in paths if not p.exists()]
    if missing:
        raise DocsInputError("SQL path does not exist", path=missing[0])
    from vitrina.docs.sqlindex import build_index

    return build_index(list(paths), trace=trace, progress=progress)
