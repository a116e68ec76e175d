"""The task job's entry point: start a task, answer its approvals, resume it, read it.

One TaskService per process; a task is a LangGraph thread (its id is the task id) in a
checkpointer (SQLite under VITRINA_HOME by default), so a task survives a crash and resumes
from its last finished node without doing finished steps again.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import uuid
from collections.abc import Callable, Iterator
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from langgraph.types import Command
from pydantic import BaseModel, Field

from vitrina.advisory import AdvisoryLocks, Held, LocksExhausted, pool_locks
from vitrina.checkpoint import register_state_types, sqlite_checkpointer
from vitrina.config import Settings, load_settings
from vitrina.language.detect import detect_lang
from vitrina.llm import ModelClient
from vitrina.llm.budget import within
from vitrina.task import claims
from vitrina.task.context import TaskContext
from vitrina.task.graph import build_graph, recursion_limit
from vitrina.task.limits import TaskConfig, load_task_config
from vitrina.task.prompts import PromptStore
from vitrina.task.state import PLAN_ACTIONS, STEP_ACTIONS, Mode, Step, ToolOutput
from vitrina.task.tools import default_tools
from vitrina.trace import Trace, TraceEvent
from vitrina.trace.events import EventKind

if TYPE_CHECKING:
    from langchain_core.runnables import RunnableConfig

log = logging.getLogger(__name__)

register_state_types([Step, ToolOutput, TraceEvent, EventKind])
LOCAL_OWNER = "local"


class InvalidDecision(ValueError):
    """A decision the waiting task does not accept (wrong action, nothing pending)."""


class TaskBusy(RuntimeError):
    """The task runs in another process over the same PostgreSQL state (its lock is held)."""


class TaskView(BaseModel):
    """A task as every face shows it (CLI, web, MCP): plan, what it waits for, results."""

    task_id: str
    status: str
    owner: str = LOCAL_OWNER  # the API token id that created the task ("local": CLI, stdio MCP)
    request: str = ""
    mode: str = "semi"
    lang: str = "ru"
    plan: list[Step] = Field(default_factory=list)
    plan_source: str | None = None
    pending: dict[str, Any] | None = None  # the interrupt payload: kind plan | step, options
    summary: str | None = None
    files: list[str] = Field(default_factory=list)
    out_dir: str | None = None
    history: list[dict[str, Any]] = Field(default_factory=list)
    prompts: list[dict[str, Any]] = Field(default_factory=list)
    llm_usage: dict[str, Any] = Field(
        default_factory=dict
    )  # the last turn's model use (this process)
    trace: list[TraceEvent] = Field(default_factory=list)


MAX_SCANNED = 10_000  # task ids looked at when a server starts and resumes interrupted tasks
# runs (resumes waiting for a worker included) one process holds the lock of at once on a
# PostgreSQL state; each holds a connection of the checkpointer's pool (`TASK_POOL_SIZE`)
MAX_TASK_LOCKS = 8
TASK_POOL_SIZE = 4 + MAX_TASK_LOCKS  # the checkpointer's own 4, and one per held lock


def task_locks(checkpointer: Any) -> AdvisoryLocks | None:
    """Advisory locks on the task checkpointer's PostgreSQL pool; None for a SQLite or an
    in-process checkpointer (claims there: `vitrina.task.claims`, or one process only)."""
    if getattr(checkpointer, "cursor", None) is not None:
        return None
    pool = getattr(checkpointer, "conn", None)
    if not callable(getattr(pool, "getconn", None)):
        return None
    return pool_locks(pool, limit=MAX_TASK_LOCKS)


class TaskService:
    def __init__(
        self,
        settings: Settings | None = None,
        *,
        catalog: Any = None,
        warehouse: Any = None,
        ask: Callable[[str], Any] | None = None,
        run_plan: Callable[..., Any] | None = None,
        llm: Any = None,
        use_llm: bool = True,
        today: date | None = None,
        checkpointer: Any = None,
        config: TaskConfig | None = None,
        tools: dict[str, Any] | None = None,
        prompts: PromptStore | None = None,
        policy_of: Callable[[str], Any] | None = None,
    ) -> None:
        self.settings = settings or load_settings()
        # owner id -> its row policy (`vitrina.sql.policy.RowPolicy`) or None: every query
        # of a task reads through its owner's policy, looked up again on every run
        self.policy_of = policy_of
        self.config = config or load_task_config(self.settings)
        self.today = today or date.today()
        self.llm = (llm if llm is not None else self._configured_llm()) if use_llm else None
        self._ask_service: Any = None
        if ask is None:
            ask, run_plan, catalog, warehouse = self._ask_pipeline(catalog, warehouse)
        self.setup_trace = Trace("task_setup")
        self.tools = tools if tools is not None else default_tools(self._mcp_tools())
        self.context = TaskContext(
            settings=self.settings,
            config=self.config,
            prompts=prompts or PromptStore.from_env(label=self.config.prompt_label),
            tools=self.tools,
            catalog=catalog,
            warehouse=warehouse,
            ask=ask,
            run_plan=run_plan,
            llm=self.llm,
            today=self.today,
        )
        self.turns: dict[
            str, Any
        ] = {}  # task id -> its last ModelTurn in this process, for llm_usage
        self.checkpointer = checkpointer or sqlite_checkpointer(self.settings.home / "tasks.sqlite")
        self.graph = build_graph(checkpointer=self.checkpointer)
        # on a PostgreSQL state: every run holds its task's advisory lock (decision 168);
        # a resume claimed at a start keeps its lock here until its run takes it over
        self.locks = task_locks(self.checkpointer)
        self._claimed: dict[str, Held] = {}
        self._claimed_lock = threading.Lock()

    # --- wiring -------------------------------------------------------------------------

    def _configured_llm(self) -> Any:
        from vitrina.llm.factory import LLMSettingsError, build_client

        try:
            return build_client(self.settings)
        except LLMSettingsError as exc:
            log.warning("LLM settings ignored, rules only: %s", exc)
            return None

    def _ask_pipeline(
        self, catalog: Any, warehouse: Any
    ) -> tuple[Callable[[str], Any], Callable[..., Any], Any, Any]:
        from vitrina.ask import AskService

        self._ask_service = AskService(
            self.settings,
            catalog=catalog,
            warehouse=warehouse,
            today=self.today,
            write_files=True,
            llm=self.llm,
            use_llm=self.llm is not None,
        )
        service = self._ask_service
        return (
            (lambda q, policy=None, **chosen: service.ask(q, policy=policy, **chosen)),
            service.run_plan,
            service.catalog,
            service.warehouse,
        )

    def _mcp_tools(self) -> list[Any]:
        if not self.config.mcp_servers:
            return []
        from vitrina.task.tools.mcp import load_mcp_tools

        return load_mcp_tools(
            self.config.mcp_servers, timeout_s=self.config.mcp_timeout_s, trace=self.setup_trace
        )

    def _config(self, task_id: str) -> RunnableConfig:
        return {
            "configurable": {"thread_id": task_id},
            "recursion_limit": recursion_limit(self.config.limits),
        }

    # --- running ------------------------------------------------------------------------

    def stream(self, payload: Any, task_id: str) -> Iterator[dict[str, Any]]:
        """Drive the graph until it waits or ends, yielding one event per finished node.

        One model budget per call (a turn: planning, or the steps up to the next approval);
        its use is kept for the task's `llm_usage`. On a PostgreSQL state the task's lock is
        held for the whole run (TaskBusy when another process runs it)."""
        held = self._hold(task_id)
        try:
            yield from self._stream(payload, task_id)
        finally:
            if held is not None:
                held.release()

    def _hold(self, task_id: str) -> Held | None:
        """The task's lock for a run: the one a resume claim took, else a new one."""
        if self.locks is None:
            return None
        with self._claimed_lock:
            held = self._claimed.pop(task_id, None)
        if held is not None:
            return held
        held = self.locks.try_hold("task", task_id)
        if held is None:
            raise TaskBusy(
                f"task {task_id} runs on another server process; wait for it to ask / "
                f"задача {task_id} выполняется другим процессом сервера; дождитесь её вопроса"
            )
        return held

    def _stream(self, payload: Any, task_id: str) -> Iterator[dict[str, Any]]:
        turn = self.llm.turn() if isinstance(self.llm, ModelClient) else self.llm
        context = dataclasses.replace(self.context, llm=turn, policy=self._policy(payload, task_id))
        if hasattr(turn, "usage"):
            self.turns[task_id] = turn
        stream = self.graph.stream(
            payload,
            self._config(task_id),
            context=context,
            stream_mode="updates",
            durability="sync",
        )
        # the steps' nested asks draw on this call's budget (decision 175)
        for update in within(getattr(turn, "budget", None), stream):
            for node, values in update.items():
                if node.startswith("__") or not isinstance(values, dict):
                    continue
                yield node_event(node, values)

    def _policy(self, payload: Any, task_id: str) -> Any:
        """The row policy of the task's owner (from a start's payload, else the checkpoint)."""
        if self.policy_of is None:
            return None
        if isinstance(payload, dict) and "owner" in payload:
            owner = payload["owner"]
        else:
            owner = (self.graph.get_state(self._config(task_id)).values or {}).get("owner")
        return self.policy_of(owner or LOCAL_OWNER)

    def start_payload(
        self,
        request: str,
        *,
        mode: Mode = "semi",
        task_id: str | None = None,
        lang: str | None = None,
        owner: str = LOCAL_OWNER,
    ) -> tuple[str, dict[str, Any]]:
        if mode not in ("semi", "auto"):
            raise ValueError(f"mode must be semi or auto, got {mode!r}")
        task_id = task_id or uuid.uuid4().hex[:12]
        out_dir = self.settings.outputs_dir / f"task-{task_id}"
        state = {
            "task_id": task_id,
            "owner": owner,
            "request": request.strip(),
            "lang": lang or detect_lang(request),
            "mode": mode,
            "out_dir": str(out_dir),
            "status": "planning",
            "total_iterations": 0,
            "plan_rounds": 0,
            "trace": list(self.setup_trace.events),
        }
        return task_id, state

    def start(
        self,
        request: str,
        *,
        mode: Mode = "semi",
        task_id: str | None = None,
        lang: str | None = None,
        on_event: Callable[[dict[str, Any]], None] | None = None,
        owner: str = LOCAL_OWNER,
    ) -> TaskView:
        """Plan the task and run it until the first approval (or to the end in autonomous mode)."""
        task_id, state = self.start_payload(
            request, mode=mode, task_id=task_id, lang=lang, owner=owner
        )
        for event in self.stream(state, task_id):
            if on_event is not None:
                on_event(event)
        return self.view(task_id)

    def check_decision(self, task_id: str, decision: dict[str, Any]) -> None:
        pending = self.view(task_id).pending
        if pending is None:
            raise InvalidDecision(f"task {task_id} is not waiting for a decision")
        action = decision.get("action")
        known = PLAN_ACTIONS if pending["kind"] == "plan" else STEP_ACTIONS
        if action not in known or action not in pending["options"]:
            raise InvalidDecision(
                f"{action!r} is not possible now; choose one of {', '.join(pending['options'])}"
            )

    def decide(
        self,
        task_id: str,
        decision: dict[str, Any],
        on_event: Callable[[dict[str, Any]], None] | None = None,
    ) -> TaskView:
        """Answer the pending approval and run on to the next one (or the end)."""
        self.check_decision(task_id, decision)
        for event in self.stream(Command(resume=decision), task_id):
            if on_event is not None:
                on_event(event)
        return self.view(task_id)

    def resume(
        self, task_id: str, on_event: Callable[[dict[str, Any]], None] | None = None
    ) -> TaskView:
        """Continue a task interrupted by a crash from its last checkpoint."""
        for event in self.stream(None, task_id):
            if on_event is not None:
                on_event(event)
        return self.view(task_id)

    def run(
        self,
        request: str,
        *,
        mode: Mode = "semi",
        approve_all: bool = True,
        task_id: str | None = None,
        on_event: Callable[[dict[str, Any]], None] | None = None,
        owner: str = LOCAL_OWNER,
    ) -> TaskView:
        """Start and answer every approval by policy: plans approved; steps approved, failed ones
        skipped."""
        view = self.start(request, mode=mode, task_id=task_id, on_event=on_event, owner=owner)
        for _ in range(self.config.limits.max_decisions):
            if view.pending is None or not approve_all:
                return view
            view = self.decide(view.task_id, auto_decision(view.pending), on_event=on_event)
        return view

    # --- after a crash --------------------------------------------------------------------

    def interrupted(self, limit: int = MAX_SCANNED) -> list[str]:
        """Tasks a crash left `running`: a node still to run and no approval pending. Only
        meaningful where no run of this checkpointer is in flight (a server starting)."""
        out = []
        for task_id in self._task_ids(limit):
            try:
                if self.view(task_id).status == "running":
                    out.append(task_id)
            except KeyError:
                continue
        return out

    def _task_ids(self, limit: int) -> list[str]:
        """Every task id the checkpointer holds (at most `limit`)."""
        cursor = getattr(self.checkpointer, "cursor", None)
        if cursor is not None:  # the SQLite checkpointer: one query
            with cursor() as cur:
                cur.execute("SELECT DISTINCT thread_id FROM checkpoints LIMIT ?", (limit,))
                return [row[0] for row in cur.fetchall()]
        ids: dict[str, None] = {}
        for item in self.checkpointer.list(None, limit=limit * 50):
            ids[item.config["configurable"]["thread_id"]] = None
            if len(ids) >= limit:
                break
        return list(ids)

    def checkpoint_of(self, task_id: str) -> str:
        """The id of the task's current checkpoint (what a resume claims)."""
        checkpoint = self.graph.get_state(self._config(task_id)).config["configurable"]
        return str(checkpoint.get("checkpoint_id") or "")

    def claim_resume(self, task_id: str, checkpoint_id: str | None = None) -> bool:
        """Whether this process is the one to resume `task_id` from its current checkpoint
        (or from `checkpoint_id`): one claim per checkpoint in the task store, so two server
        processes starting together never run the same step twice; a claim whose process
        died (a resumed run that crashed again before its next checkpoint) is taken over
        (`vitrina.task.claims`). On a PostgreSQL state (shared by processes on several
        machines) the task's advisory lock answers instead, and is held until the run ends."""
        if self.locks is not None:
            return self._claim_locked(task_id, checkpoint_id)
        key = self.checkpoint_of(task_id) if checkpoint_id is None else checkpoint_id
        cursor = getattr(self.checkpointer, "cursor", None)
        if cursor is None:  # an in-process checkpointer: this process is the only one
            return True
        with cursor() as cur:
            return claims.claim(cur, task_id, key)

    def _claim_locked(self, task_id: str, checkpoint_id: str | None) -> bool:
        """On a PostgreSQL state: the task's advisory lock, then (under it) whether the task is
        still interrupted where it was seen. A lock held elsewhere is a run of a live process
        (a dead one's session, and its lock, ended with it); a task no longer `running`, or
        moved past `checkpoint_id`, was resumed meanwhile. The lock is kept for the run."""
        assert self.locks is not None
        try:
            held = self.locks.try_hold("task", task_id)
        except LocksExhausted:
            log.warning(
                "task %s not resumed now: %d runs hold their locks in this process; it "
                'resumes at the next start, or with `vitrina task "" --task %s`',
                task_id,
                MAX_TASK_LOCKS,
                task_id,
            )
            return False
        if held is None:
            log.info("task %s runs on another server process: not resumed here", task_id)
            return False
        try:
            still = self.view(task_id).status == "running" and (
                checkpoint_id is None or self.checkpoint_of(task_id) == checkpoint_id
            )
        except BaseException:
            held.release()
            raise
        if not still:
            held.release()
            log.info("task %s was resumed by another server process meanwhile", task_id)
            return False
        with self._claimed_lock:
            earlier = self._claimed.pop(task_id, None)
            self._claimed[task_id] = held
        if earlier is not None:  # claimed twice here without a run between: one lock is enough
            earlier.release()
        return True

    def release_claim(self, task_id: str) -> None:
        """Give up a resume claimed but not run (its run could not be submitted)."""
        with self._claimed_lock:
            held = self._claimed.pop(task_id, None)
        if held is not None:
            held.release()

    def force_stop(self, task_id: str, *, reason: str) -> None:
        """Mark a task stopped whatever it was doing: the graph ends (as if `finalize` ran) and a
        trace event says why. For a run that was interrupted, or a task left without an approval."""
        event = TraceEvent(node="stop", kind=EventKind.BRANCH, message=reason)
        self.graph.update_state(
            self._config(task_id),
            {"status": "stopped", "halt": "stopped", "trace": [event]},
            as_node="finalize",
        )

    # --- reading ------------------------------------------------------------------------

    def view(self, task_id: str, owner: str | None = None) -> TaskView:
        """The task; KeyError when there is none or (with `owner`) it belongs to someone else."""
        snapshot = self.graph.get_state(self._config(task_id))
        values = snapshot.values or {}
        if not values or (owner is not None and (values.get("owner") or LOCAL_OWNER) != owner):
            raise KeyError(f"no task {task_id}")
        pending = next((i.value for t in snapshot.tasks for i in t.interrupts), None)
        status = values.get("status", "planning")
        if pending is not None:
            status = "awaiting_plan" if pending.get("kind") == "plan" else "awaiting_step"
        elif snapshot.next and status not in ("done", "stopped", "failed"):
            status = "running"
        return TaskView(
            task_id=task_id,
            status=status,
            owner=values.get("owner") or LOCAL_OWNER,
            request=values.get("request", ""),
            mode=values.get("mode", "semi"),
            lang=values.get("lang", "ru"),
            plan=values.get("plan") or [],
            plan_source=values.get("plan_source"),
            pending=pending,
            summary=values.get("summary"),
            files=sorted(set(values.get("files") or [])),
            out_dir=values.get("out_dir"),
            history=values.get("history") or [],
            prompts=values.get("prompts") or [],
            llm_usage=self.turns[task_id].usage() if task_id in self.turns else {},
            trace=values.get("trace") or [],
        )

    def close(self) -> None:
        with self._claimed_lock:
            claimed, self._claimed = list(self._claimed.values()), {}
        for held in claimed:
            held.release()
        if self._ask_service is not None:
            self._ask_service.close()


def auto_decision(pending: dict[str, Any]) -> dict[str, Any]:
    """The `--yes` policy: approve plans and good steps; skip a failed step."""
    if pending.get("kind") == "plan":
        return {"action": "approve"}
    return {"action": "approve" if "approve" in pending.get("options", []) else "skip"}


def node_event(node: str, values: dict[str, Any]) -> dict[str, Any]:
    """A node's update as a small JSON-ready event (CLI progress, SSE)."""
    event: dict[str, Any] = {"node": node}
    if "status" in values:
        event["status"] = values["status"]
    current = values.get("current")
    plan = values.get("plan")
    if plan is not None:
        running = next((s for s in plan if s.status == "in_progress"), None)
        if running is not None:
            event["step"] = {
                "n": running.n,
                "title": running.title,
                "report": running.report,
                "error": running.error,
                "outputs": [
                    o.model_dump(mode="json", exclude={"preview"}) for o in running.outputs
                ],
            }
    if current is not None:
        event["current"] = current
    event["trace"] = [e.model_dump(mode="json") for e in values.get("trace") or []]
    return event


def task_outputs_dir(settings: Settings, task_id: str) -> Path:
    return settings.outputs_dir / f"task-{task_id}"
