"""The MCP tools as plain functions over one Toolbox (settings, catalog, warehouse, manual).

Every tool is read-only. ``run_sql`` goes through ``vitrina.query.run_checked``, the same
guard as the ask pipeline (one SELECT, catalog tables and columns only, the row cap, the
token's row policy) on a read-only connection. Expected
failures raise :class:`ToolFailure` with a message a model can act on.
"""

from __future__ import annotations

import difflib
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vitrina.config import Settings
from vitrina.query import RunOptions, run_checked
from vitrina.server.docs_source import DocsSource, find_docs_dir
from vitrina.warehouse import Warehouse, WarehouseError

MAX_ROWS = 500  # rows a tool returns to a model; the full result stays in Excel for `ask`
LOCAL = "local"  # the owner over stdio (the user who started the process)


class ToolFailure(Exception):
    """A failure the caller should read (bad SQL, unknown table, no manual)."""


@dataclass
class Toolbox:
    """What the tools share in one MCP server process; the ask service is built on first use."""

    settings: Settings
    docs_dir: Path | None = None
    live_docs: Any = None  # vitrina.docs.live.LiveDocs when started with --model/--sql
    _service: Any = field(default=None, repr=False)
    _warehouse: Warehouse | None = field(default=None, repr=False)
    _tasks: Any = field(default=None, repr=False)
    _store: Any = field(default=None, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def store(self) -> Any:
        """The server state store (tokens, dialog owners), shared with `vitrina serve`."""
        with self._lock:
            if self._store is None:
                from vitrina.server.store import Store

                self._store = Store.from_settings(self.settings)
            return self._store

    @property
    def service(self) -> Any:
        with self._lock:
            return self._service_unlocked()

    @property
    def catalog(self) -> Any:
        return self.service.catalog

    @property
    def warehouse(self) -> Warehouse:
        return self.service.warehouse

    def docs(self) -> DocsSource:
        root = find_docs_dir(self.docs_dir, self.settings.outputs_dir)
        if root is None:
            raise ToolFailure(
                "no measure manual found: run `vitrina docs --model PATH --sql DIR` first, "
                "or start `vitrina mcp --docs DIR` (env VITRINA_DOCS_DIR)"
            )
        return DocsSource(root)

    @property
    def tasks(self) -> Any:
        """The task job over this server's ask pipeline, built on first use."""
        with self._lock:
            if self._tasks is None:
                from vitrina.task import TaskService

                service = self._service_unlocked()

                def ask(question: str, policy: Any = None, **chosen: Any) -> Any:
                    return service.ask(question, policy=policy, **chosen)

                self._tasks = TaskService(
                    self.settings,
                    catalog=service.catalog,
                    warehouse=service.warehouse,
                    ask=ask,
                    run_plan=service.run_plan,
                    policy_of=self.policy_of,
                )
            return self._tasks

    def policy_of(self, owner: str) -> Any:
        """The row policy of a caller's token (`vitrina token create --policy`); None locally."""
        from vitrina.server.tokens import owner_policy

        return None if owner == LOCAL else owner_policy(self.store, owner)

    def _service_unlocked(self) -> Any:
        if self._service is None:
            from vitrina.ask import AskService

            self._service = AskService(self.settings, write_files=True)
        return self._service

    def close(self) -> None:
        if self._service is not None:
            self._service.close()
        if self._store is not None:
            self._store.close()


def start_task(
    box: Toolbox, request: str, approve_all: bool = False, owner: str = LOCAL
) -> dict[str, Any]:
    """Start a multi-step task: the plan waits for approval unless approve_all runs it to its
    summary."""
    from vitrina.task import start_task_tool

    return start_task_tool(request, approve_all=approve_all, service=box.tasks, owner=owner)


def task_decision(
    box: Toolbox,
    task_id: str,
    action: str,
    comment: str | None = None,
    steps: list[str] | None = None,
    owner: str = LOCAL,
    choice: str | None = None,
) -> dict[str, Any]:
    """Answer a waiting task of this owner: approve, edit (steps), replan or redo (comment),
    clarify (choice), skip, stop."""
    from vitrina.task import InvalidDecision, task_decision_tool

    try:
        return task_decision_tool(
            task_id, action, comment, steps, service=box.tasks, owner=owner, choice=choice
        )
    except KeyError:
        raise ToolFailure(f"no task {task_id!r}") from None
    except InvalidDecision as exc:
        raise ToolFailure(str(exc)) from None


def warehouse_message(exc: WarehouseError) -> str:
    """A warehouse failure for the model: a result over the byte cap (`too_large`) says so
    in the engine's own words (what the cap is, what to ask instead)."""
    return failure_message(exc.kind, str(exc))


def failure_message(kind: str, error: str) -> str:
    """`warehouse_message` from a failure's kind and text (what `run_checked` reports)."""
    return error if kind == "too_large" else f"warehouse {kind} error: {error}"


def _owned_dialog(box: Toolbox, thread_id: str, owner: str) -> None:
    """A dialog id someone else started is "no dialog"; an unknown id is allowed only locally."""
    record = box.store.thread(thread_id)
    if record is not None and record.owner == owner:
        return
    if record is None and owner == LOCAL:
        return
    raise ToolFailure(f"no dialog {thread_id!r}: call ask without thread_id to start one")


def ask(
    box: Toolbox,
    question: str,
    thread_id: str | None = None,
    segment: str = "auto",
    owner: str = LOCAL,
) -> dict[str, Any]:
    """Answer a business question from the warehouse; a clarification lists its options."""
    if thread_id is not None:
        _owned_dialog(box, thread_id, owner)
    try:
        segment = box.service.catalog.info.dialog_segment(segment)
    except ValueError as exc:
        raise ToolFailure(str(exc)) from None
    result = box.service.ask(
        question, thread_id=thread_id, segment=segment, policy=box.policy_of(owner)
    )
    if result.thread_id and box.store.thread(result.thread_id) is None:
        box.store.create_thread(result.thread_id, owner, segment, [])
    return {
        "status": result.status,
        "thread_id": result.thread_id,
        "run_id": result.run_id,
        "answer": result.answer,
        "rewritten_question": result.rewritten_question,
        "topic": result.topic,
        "sql": result.sql,
        "columns": result.columns,
        "rows": result.rows[:MAX_ROWS],
        "row_count": result.row_count,
        "rows_truncated": len(result.rows) > MAX_ROWS,
        "clarification": result.clarification,
        "excel": result.excel,
        "checks": result.checks,
    }


def run_sql(box: Toolbox, sql: str, max_rows: int = 100, owner: str = LOCAL) -> dict[str, Any]:
    """Run one guarded, read-only SELECT over the catalog's tables, through the caller's row
    policy when its token has one."""
    catalog = box.catalog
    policy = box.policy_of(owner)
    options = RunOptions(
        row_cap=box.settings.row_cap,
        policy=policy,
        explain=False,  # the engine's own error says what is wrong
        checks=False,  # a client's SQL has no asked period or grain to check against
        result_checks=False,  # the rows go back as they are; the reply bound cuts them
    )
    checked = run_checked(sql, catalog, box.warehouse, options)
    if checked.stage == "guard":
        raise ToolFailure(f"SQL rejected by the guard: {checked.error}")
    result = checked.result
    if result is None:
        raise ToolFailure(failure_message(checked.kind or "execute", checked.error or ""))
    limit = max(1, min(max_rows, MAX_ROWS))
    return {
        "sql": checked.sql,
        "columns": result.columns,
        "rows": [list(r) for r in result.rows[:limit]],
        "row_count": result.row_count,
        "rows_truncated": result.row_count > limit or result.truncated,
        "elapsed_ms": result.elapsed_ms,
        **({"row_policy": policy.describe()} if policy else {}),
    }


def _score(query: str, *texts: str | None) -> float:
    words = [w for w in query.casefold().split() if w]
    hay = " ".join(t for t in texts if t).casefold()
    if not words or not hay:
        return 0.0
    return sum(1.0 if w in hay else 0.0 for w in words) / len(words)


def search_catalog(box: Toolbox, query: str, limit: int = 20) -> list[dict[str, Any]]:
    """Topics, metrics, tables and columns whose names, labels or descriptions match the words."""
    catalog = box.catalog
    hits: list[tuple[float, dict[str, Any]]] = []
    for t in catalog.topics.values():
        s = _score(query, t.id, t.name_ru, t.name_en, t.description, " ".join(t.keywords))
        hits.append(
            (
                s,
                {
                    "kind": "topic",
                    "id": t.id,
                    "name": t.name_en,
                    "name_ru": t.name_ru,
                    "description": t.description,
                },
            )
        )
    for m in catalog.metrics.values():
        s = _score(query, m.id, m.name_ru, m.name_en, m.description, " ".join(m.synonyms))
        hits.append(
            (
                s,
                {
                    "kind": "metric",
                    "id": m.id,
                    "name": m.name_en,
                    "name_ru": m.name_ru,
                    "table": m.table,
                    "expression": m.expression,
                },
            )
        )
    for table in catalog.tables.values():
        s = _score(query, table.name, table.description, table.description_ru)
        hits.append((s, {"kind": "table", "id": table.name, "description": table.description}))
        for c in table.columns:
            s = _score(query, c.name, c.description, c.label_ru, c.label_en, " ".join(c.synonyms))
            hits.append(
                (
                    s * 0.9,
                    {
                        "kind": "column",
                        "id": f"{table.name}.{c.name}",
                        "type": c.type,
                        "description": c.description,
                        "label_ru": c.label_ru,
                    },
                )
            )
    ranked = sorted((h for h in hits if h[0] > 0), key=lambda h: -h[0])
    return [dict(item, score=round(score, 2)) for score, item in ranked[: max(1, limit)]]


def describe_table(box: Toolbox, table: str) -> dict[str, Any]:
    """A catalog table: description, columns (type, role, labels) and its relations."""
    catalog = box.catalog
    wanted = table.strip().lower()
    found = catalog.tables.get(wanted) or next(
        (t for name, t in catalog.tables.items() if name.split(".")[-1] == wanted), None
    )
    if found is None:
        close = difflib.get_close_matches(wanted, list(catalog.tables), n=3, cutoff=0.4)
        raise ToolFailure(
            f"table {table!r} is not in the catalog"
            + (
                f"; did you mean {', '.join(close)}?"
                if close
                else f"; tables: {', '.join(sorted(catalog.tables))}"
            )
        )
    relations = [
        {"left": r.left, "right": r.right, "kind": r.kind}
        for r in catalog.relations
        if found.name in (r.left.rsplit(".", 1)[0], r.right.rsplit(".", 1)[0])
    ]
    return {
        "name": found.name,
        "description": found.description,
        "description_ru": found.description_ru,
        "topics": found.topics,
        "default_date": found.default_date,
        "columns": [c.summary() for c in found.columns],
        "relations": relations,
    }


def _measure(box: Toolbox, measure: str) -> tuple[DocsSource, dict[str, Any]]:
    source = box.docs()
    entry = source.entry(measure)
    if entry is None:
        names = source.measure_names()
        close = difflib.get_close_matches(measure.strip("[] "), names, n=3, cutoff=0.5)
        hint = (
            f"; did you mean {', '.join(f'[{c}]' for c in close)}?"
            if close
            else f"; {len(names)} measures documented"
        )
        raise ToolFailure(f"measure {measure!r} is not in the manual at {source.root}{hint}")
    return source, entry


def _llm_client(box: Toolbox) -> Any:
    from vitrina.llm.factory import LLMSettingsError, build_client

    try:
        client = build_client(box.settings)
    except LLMSettingsError as exc:
        raise ToolFailure(f"llm=true: {exc}") from None
    if client is None:
        raise ToolFailure(
            "llm=true but no model is configured (see `vitrina config`); call again without llm"
        )
    return client


def _live(box: Toolbox, measure: str) -> Any:
    from vitrina.docs import DocsInputError, MeasureNotFound

    try:
        return box.live_docs.lineage(measure)
    except (MeasureNotFound, DocsInputError) as exc:
        raise ToolFailure(str(exc)) from None


def describe_measure(box: Toolbox, measure: str, llm: bool = False) -> dict[str, Any]:
    """A measure's document: formula, explanation, dependencies, lineage (Markdown).

    Straight from the model and SQL folder when the server has --model, else from the manual;
    `llm` rewords the explanation with the configured model, checked against the lineage.
    """
    client = _llm_client(box) if llm else None
    if box.live_docs is not None:
        from vitrina.docs import DocsInputError, MeasureNotFound

        try:
            doc = box.live_docs.document(measure, client=client)
        except (MeasureNotFound, DocsInputError) as exc:
            raise ToolFailure(str(exc)) from None
        lin = doc["lineage"]
        return {
            "measure": doc["measure"],
            "topic": None,
            "table": doc["table"],
            "expression": lin.expression,
            "direct_measures": lin.direct_measures,
            "columns": lin.columns,
            "level": lin.level,
            "markdown": doc["markdown"],
            "source": "model",
        }
    source, entry = _measure(box, measure)
    lineage = entry.get("lineage") or {}
    out = {
        "measure": entry["measure"],
        "topic": entry.get("topic"),
        "table": entry.get("table"),
        "expression": lineage.get("expression"),
        "direct_measures": lineage.get("direct_measures", []),
        "columns": lineage.get("columns", []),
        "level": lineage.get("level"),
        "markdown": source.measure_markdown(entry),
        "source": "manual",
    }
    if client is not None and lineage:
        from vitrina.docs import reword

        out["explanation"] = reword(lineage, source.index.get("lang") or "en", client)
    return out


def trace_lineage(box: Toolbox, measure: str) -> dict[str, Any]:
    """A measure's lineage graph: measures, model tables, views, tables and loading procedures."""
    if box.live_docs is not None:
        lin = _live(box, measure)[2].model_dump(mode="json")
        name = lin["measure"]
    else:
        _source, entry = _measure(box, measure)
        lin = entry.get("lineage") or {}
        name = entry["measure"]
    return {
        "measure": name,
        "level": lin.get("level"),
        "nodes": lin.get("nodes", []),
        "edges": lin.get("edges", []),
        "sql_objects": lin.get("sql_objects", []),
        "procedures": [
            {
                "name": p.get("name"),
                "file": p.get("file"),
                "line": p.get("line"),
                "order": p.get("order"),
                "order_basis": p.get("order_basis"),
                "called_by": p.get("called_by", []),
                "writes": p.get("writes", []),
                "reads": p.get("reads", []),
            }
            for p in lin.get("procedures", [])
        ],
        "column_steps": lin.get("column_steps", []),
        "order_notes": lin.get("order_notes", []),
        "warnings": lin.get("warnings", []),
        "unresolved": lin.get("unresolved", []),
    }
