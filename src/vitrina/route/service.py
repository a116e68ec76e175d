"""The route job's public entry point: one object per process, one call per request."""

from __future__ import annotations

import dataclasses
import functools
import logging
import uuid
from collections import OrderedDict
from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from vitrina.catalog import Catalog, load_catalog
from vitrina.config import Settings, load_settings
from vitrina.llm import ModelClient
from vitrina.llm.budget import within
from vitrina.route.context import MAX_STEPS, RouteContext
from vitrina.route.graph import RECURSION_LIMIT, build_graph
from vitrina.route.messages import text
from vitrina.route.state import Face, RouteState
from vitrina.trace import TraceEvent

if TYPE_CHECKING:
    from langchain_core.runnables import RunnableConfig

    from vitrina.llm import LLMClient, ModelSlots

log = logging.getLogger(__name__)
MAX_ONEC_THREADS = 256  # dialogs whose last 1C plan is kept for follow-ups (oldest dropped)


class RouteResult(BaseModel):
    """What a face gets back: the reply shaped for it, and the structured parts."""

    thread_id: str
    intent: str
    role: str
    status: str
    answer: str | None = None
    reply: dict[str, Any] = Field(default_factory=dict)
    steps: list[dict[str, Any]] = Field(default_factory=list)
    candidates: list[dict[str, Any]] = Field(default_factory=list)
    chosen: dict[str, Any] | None = None
    report: dict[str, Any] | None = None
    ask: dict[str, Any] | None = None
    docs: dict[str, Any] | None = None
    trace: list[TraceEvent] = Field(default_factory=list)
    nodes: list[str] = Field(default_factory=list)  # the nodes that ran, in order
    llm_usage: dict[str, Any] = Field(
        default_factory=dict
    )  # the supervisor's own model use this turn


class RouteService:
    """Holds the catalog, the roles' services and the compiled supervisor graph.

    For a warehouse target, pass (or let it build) an AskService; its catalog and warehouse
    serve the report planner too. For a 1C target pass `onec=OneCSource.load(path)`.
    The model slots (intent, plan scores) use `llm`, else the configured model (the ask
    service's, or one built from the settings); `use_llm=False` (`--no-llm`) means rules only.
    """

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        ask_service: Any = None,
        catalog: Catalog | None = None,
        warehouse: Any = None,
        onec: Any = None,
        docs_model: Path | str | None = None,
        docs_sql: Sequence[Path | str] = (),
        docs_index: Path | str | None = None,
        llm: ModelSlots | None = None,
        task_runner: Any = None,
        today: date | None = None,
        write_files: bool = True,
        max_steps: int = MAX_STEPS,
        use_llm: bool = True,
    ) -> None:
        self.settings = settings or (
            ask_service.settings if ask_service is not None else load_settings()
        )
        if onec is None and ask_service is None and warehouse is None:
            from vitrina.ask import AskService

            ask_service = AskService(
                self.settings,
                catalog=catalog,
                today=today,
                write_files=write_files,
                use_llm=use_llm,
            )
        self.ask_service = ask_service
        if onec is not None:
            catalog = onec.catalog
        elif catalog is None:
            catalog = (
                ask_service.catalog
                if ask_service is not None
                else load_catalog(self.settings.catalog_dir)
            )
        if warehouse is None and ask_service is not None:
            warehouse = ask_service.warehouse
        if llm is None and use_llm:  # the configured model (None when none is set)
            llm = ask_service.llm if ask_service is not None else configured_llm(self.settings)
        self.llm: ModelSlots | None = llm if use_llm else None
        if task_runner is None and onec is None and ask_service is not None:
            task_runner = self._task
        self._task_service: Any = None
        self.context = RouteContext(
            settings=self.settings,
            catalog=catalog,
            warehouse=warehouse,
            onec=onec,
            ask=self._ask if ask_service is not None else None,
            run_plan=ask_service.run_plan if ask_service is not None else None,
            docs_model=Path(docs_model) if docs_model else None,
            docs_sql=[Path(p) for p in docs_sql],
            docs_index=Path(docs_index) if docs_index else None,
            llm=self.llm,
            task_runner=task_runner,
            today=today or date.today(),
            write_files=write_files,
            max_steps=max_steps,
        )
        self.graph = build_graph()
        self._onec_threads: OrderedDict[str, dict[str, Any]] = OrderedDict()

    def _ask(self, question: str, thread_id: str | None) -> Any:
        return self.ask_service.ask(question, thread_id=thread_id)

    def _task(self, request: str) -> dict[str, Any]:
        """The task job behind the supervisor: the plan is proposed here; the plan and every
        step are then approved in `vitrina task --task ID` or on the web task page."""
        from vitrina.language.detect import detect_lang
        from vitrina.task import TaskService, start_task_tool

        if self._task_service is None:
            ask_service = self.ask_service
            self._task_service = TaskService(
                self.settings,
                catalog=ask_service.catalog,
                warehouse=ask_service.warehouse,
                llm=self.llm,
                use_llm=self.llm is not None,
                ask=lambda question, **chosen: ask_service.ask(question, **chosen),
                run_plan=ask_service.run_plan,
                today=self.context.today,  # relative periods read as the route reads them
            )
        result = start_task_tool(request, approve_all=False, service=self._task_service)
        plan = "\n".join(f"{step['n']}. {step['title']}" for step in result["plan"])
        result["answer"] = text(
            "task_started", detect_lang(request), task_id=result["task_id"], plan=plan
        )
        return result

    def handle(
        self,
        request: str,
        *,
        face: Face = "cli",
        thread_id: str | None = None,
        policy: Any = None,
        ask_thread: str | None = None,
    ) -> RouteResult:
        """Route one request to its role and return the delivered reply. `policy` (the token's
        row policy, `vitrina.sql.policy.RowPolicy`) goes with every query the request
        runs; such a request starts no task (a task would run as the local user).
        `ask_thread`: the ask dialog a report's run is kept in (the web chat passes its own,
        so the report's files, paging and follow-ups work as an answer's do)."""
        thread_id = thread_id or uuid.uuid4().hex[:12]
        nodes: list[str] = []
        state: dict[str, Any] = {}
        config: RunnableConfig = {
            "recursion_limit": max(RECURSION_LIMIT, self.context.max_steps + 10)
        }
        # one model budget per request, shared with the jobs it runs (ask, a task's plan):
        # decision 175
        turn = self.llm.turn() if isinstance(self.llm, ModelClient) else self.llm
        context = dataclasses.replace(self.context, llm=turn)
        if policy:
            context = self._policed(context, policy)
        first: RouteState = {
            "request": request,
            "face": face,
            "thread_id": thread_id,
            "ask_thread": ask_thread,
        }
        if self.context.onec is not None:
            first["onec_context"] = self._onec_threads.get(thread_id)
        stream = self.graph.stream(
            first,
            config,
            context=context,
            stream_mode=["updates", "values"],
        )
        for update in within(getattr(turn, "budget", None), stream):
            mode, data = update
            if mode == "updates":
                nodes += [n for n in data if not n.startswith("__")]
            elif isinstance(data, dict):
                state = data
        self._remember_onec(thread_id, state)
        return RouteResult(
            thread_id=thread_id,
            intent=state.get("intent", "ask"),
            role=state.get("role", ""),
            status=state.get("status", "failed"),
            answer=state.get("answer"),
            reply=state.get("reply") or {},
            steps=state.get("steps") or [],
            candidates=state.get("candidates") or [],
            chosen=state.get("chosen"),
            report=state.get("report"),
            ask=state.get("ask"),
            docs=state.get("docs"),
            trace=state.get("trace") or [],
            nodes=nodes,
            llm_usage=usage() if (usage := getattr(turn, "usage", None)) else {},
        )

    def _remember_onec(self, thread_id: str, state: dict[str, Any]) -> None:
        """Keep the thread's last 1C plan (object, kind, period, filters, groupings) for its
        follow-ups; the oldest thread is forgotten past MAX_ONEC_THREADS."""
        report, chosen = state.get("report") or {}, state.get("chosen") or {}
        if self.context.onec is None or not report.get("register") or not chosen:
            return
        asked = chosen.get("asked") or {}
        period = asked.get("period")
        row: dict[str, Any] = next(
            (r for r in state.get("candidates") or [] if r["id"] == chosen.get("id")), {}
        )
        self._onec_threads[thread_id] = {
            "object": row.get("register"),
            "ask": asked.get("ask", ""),
            "period": _period_of(period, state.get("request", "")) if period else None,
            "conditions": row.get("conditions") or [],  # filters placed: a follow-up keeps them
            "dimensions": row.get("named_dimensions") or [],  # groupings named, likewise
        }
        self._onec_threads.move_to_end(thread_id)
        while len(self._onec_threads) > MAX_ONEC_THREADS:
            self._onec_threads.popitem(last=False)

    def _policed(self, context: RouteContext, policy: Any) -> RouteContext:
        """The context whose every query reads through `policy`; nothing runs without it."""
        service = self.ask_service
        return dataclasses.replace(
            context,
            ask=(lambda q, t: service.ask(q, thread_id=t, policy=policy)) if service else None,
            run_plan=functools.partial(service.run_plan, policy=policy) if service else None,
            task_runner=_policed_task,
        )

    def close(self) -> None:
        if self.ask_service is not None:
            self.ask_service.close()
        elif self.context.warehouse is not None:
            self.context.warehouse.close()


def _period_of(bounds: list[str], request: str) -> dict[str, Any]:
    """The period a 1C plan read, as a Period a follow-up can take over."""
    from vitrina.language.periods import Period

    start, end = bounds
    label = f"{start} – {end}"
    return Period(
        start=date.fromisoformat(start),
        end=date.fromisoformat(end),
        label_ru=label,
        label_en=label,
        span=request,
    ).model_dump(mode="json")


def _policed_task(request: str) -> dict[str, Any]:
    """The route's task runner for a request under a row policy: it starts nothing."""
    from vitrina.language.detect import detect_lang

    return {"status": "refused", "answer": text("task_policed", detect_lang(request))}


def configured_llm(settings: Settings) -> LLMClient | None:
    """The model from the settings, or None; bad LLM settings mean rules, with a warning."""
    from vitrina.llm.factory import LLMSettingsError, build_client

    try:
        return build_client(settings)
    except LLMSettingsError as exc:
        log.warning("LLM settings ignored, rules only: %s", exc)
        return None
