"""A second look at a measure's lineage with what the SQL index knows about failures.

The walk (`vitrina.docs.lineage`) follows every writer it finds. Two of them must not be
told to a reader as loaders:

- a procedure whose definition failed to parse (a broken header, an unterminated string
  or comment) would not even be created on the server: it is a run-level error, never a
  loader or a step of the load order;
- a table that the folder's procedures only UPDATE, DELETE or TRUNCATE gets its rows from
  outside, like a staging table nobody writes: it is warned the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from vitrina.docs.lineage import MeasureLineage, key
from vitrina.docs.workspace import Workspace

_CACHE = "failed_modules"
_MODULE_KINDS = frozenset({"procedure", "function", "other"})
ROW_REMOVERS = frozenset({"update", "delete", "truncate"})  # they change rows, never add them


@dataclass(frozen=True)
class FailedModule:
    """A module of the SQL folder that failed to parse, and where."""

    name: str  # as the definition writes it
    file: str
    line: int
    message: str

    def error(self) -> str:
        """The run summary's line for it."""
        return (
            f"{self.file}:{self.line}: procedure {self.name} failed to parse ({self.message}); "
            "it is not listed as a loader: fix the file and run again"
        )


def failed_modules(ws: Workspace) -> dict[str, FailedModule]:
    """Modules with a parse error inside their definition, by index key (computed once)."""
    cached = ws.lineage_cache.get(_CACHE)
    if cached is None:
        cached = ws.lineage_cache[_CACHE] = _find_failed(ws)
    return cached


def _find_failed(ws: Workspace) -> dict[str, FailedModule]:
    index = ws.index
    if index is None or not index.errors:
        return {}
    by_file: dict[str, list[tuple[int, str]]] = {}
    for err in index.errors:
        if err.get("line"):
            by_file.setdefault(err["file"], []).append((err["line"], err["message"]))
    found: dict[str, FailedModule] = {}
    for obj in index.objects.values():
        if obj.kind not in _MODULE_KINDS or obj.file not in by_file:
            continue
        end = obj.end_line or obj.line
        for line, message in by_file[obj.file]:
            if obj.line <= line <= end:
                shown = ws.display_path(obj.file) or obj.file
                found[obj.name] = FailedModule(obj.display or obj.name, shown, line, message)
                break
    return found


def failed_errors(ws: Workspace) -> list[str]:
    """The run summary's errors: one line per module that failed to parse."""
    return [f.error() for f in sorted(failed_modules(ws).values(), key=lambda f: f.error())]


def screen_lineage(ws: Workspace, lin: MeasureLineage) -> MeasureLineage:
    """`lin` without failed procedures as loaders, and with only-updated tables warned."""
    failed = failed_modules(ws)
    if failed:
        _drop_failed(lin, failed)
    if ws.index is not None:
        _warn_only_updated(ws, lin)
    return lin


def _drop_failed(lin: MeasureLineage, failed: dict[str, FailedModule]) -> None:
    for proc in lin.procedures:  # a failed caller orchestrates nothing
        proc.called_by = [c for c in proc.called_by if key(c.split(" (line ")[0]) not in failed]
    dropped = [p for p in lin.procedures if key(p.name) in failed]
    if not dropped:
        return
    names = {p.name for p in dropped}
    own = tuple(f"{name}: " for name in names)  # its own parse notes: the line below says it
    lin.warnings = [w for w in lin.warnings if not w.startswith(own)]
    for p in dropped:
        f = failed[key(p.name)]
        writes = ", ".join(p.writes) or "nothing"
        text = (
            f"procedure {p.name} (writes {writes}) failed to parse at {f.file}:{f.line} "
            f"({f.message}): it is not listed as a loader"
        )
        if text not in lin.warnings:
            lin.warnings.append(text)
    lin.procedures = [p for p in lin.procedures if p.name not in names]
    lin.column_steps = [s for s in lin.column_steps if s.procedure not in names]
    gone = {f"s:{key(p.name)}" for p in dropped}
    lin.edges = [e for e in lin.edges if e.source not in gone and e.target not in gone]
    reached = _reachable(f"m:{lin.measure}", lin.edges)
    lin.nodes = [n for n in lin.nodes if n.id in reached]
    lin.sql_objects = [o for o in lin.sql_objects if _still_shown(o.name, reached)]


def _reachable(root: str, edges: list[Any]) -> set[str]:
    out: dict[str, list[str]] = {}
    for e in edges:
        out.setdefault(e.source, []).append(e.target)
    seen = {root}
    frontier = [root]
    while frontier:  # bounded: each node enters the frontier once
        for target in out.get(frontier.pop(), []):
            if target not in seen:
                seen.add(target)
                frontier.append(target)
    return seen


def _still_shown(name: str, reached: set[str]) -> bool:
    k = key(name)
    return f"s:{k}" in reached or any(n.startswith(f"s:{k}@") for n in reached)


def _warn_only_updated(ws: Workspace, lin: MeasureLineage) -> None:
    """A table whose writers here only change rows is loaded from outside: say so."""
    for obj in lin.sql_objects:
        k = key(obj.name)
        if obj.kind != "table" or k.startswith("#"):
            continue
        names = _only_updated_by(ws, k)
        if not names:
            continue
        text = (
            f"{obj.name} is read but the SQL folder only updates or deletes its rows "
            f"({names}); its rows are loaded from outside: an ETL package, a file or "
            "another database?"
        )
        if text not in lin.never_written:
            lin.never_written.append(text)
        if text not in lin.warnings:
            lin.warnings.append(text)


def _only_updated_by(ws: Workspace, table: str) -> str:
    """The writers of `table` when none of them adds rows ("" otherwise), once per table."""
    cache: dict[str, str] = ws.lineage_cache.setdefault("only_updated", {})
    if table not in cache:
        index = ws.index
        writers = index.writers_of(table) if index is not None else []
        only = bool(writers) and not any(_adds_rows(index, w, table) for w in writers)
        cache[table] = ", ".join(sorted(w.display or w.name for w in writers)) if only else ""
    return cache[table]


def _adds_rows(index: Any, writer: Any, table: str) -> bool:
    """Whether any statement of `writer` that writes `table` can add rows to it (when no
    statement names it, as after a temp-table collapse, the answer is yes: never a false
    warning)."""
    target = index.resolve(table)
    kinds = [
        st.kind for st in writer.statements if any(index.resolve(t) == target for t in st.targets)
    ]
    return not kinds or any(k not in ROW_REMOVERS for k in kinds)
