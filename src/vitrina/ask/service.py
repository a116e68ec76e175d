"""The ask job's public entry point: one object per process, many dialogs (threads).

`AskService.ask()` runs one turn: a new question, a follow-up, or the answer to a pending
clarification (the graph is resumed from its interrupt on the same thread).
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import date
from typing import TYPE_CHECKING, Any

from langgraph.types import Command
from pydantic import BaseModel, Field

from vitrina.ask.context import AskContext, AskOptions
from vitrina.ask.graph import RECURSION_LIMIT, build_graph
from vitrina.ask.outputs import Kind, RunFiles, write_run_files
from vitrina.ask.suggest import suggestions
from vitrina.catalog import Catalog, load_catalog
from vitrina.checkpoint import register_state_types, sqlite_checkpointer
from vitrina.config import Settings, load_settings
from vitrina.language import lemma_cache
from vitrina.present.columns import ColumnMeta, ColumnRole, Grain, ValueFormat
from vitrina.query.messages import TEXTS, text
from vitrina.query.plan import Dimension, Filter, Join, PeriodRef, QueryPlan
from vitrina.trace import TraceEvent
from vitrina.trace.events import EventKind, has_suppressed
from vitrina.trace.telemetry import StepRecord, export_run
from vitrina.warehouse import QueryResult, Warehouse
from vitrina.warehouse.columnar import release_memory

if TYPE_CHECKING:  # the model client loads only when a model is configured (decision 092)
    from langchain_core.runnables import RunnableConfig

    from vitrina.ask.state import AskState
    from vitrina.llm.client import LLMClient, ModelTurn
    from vitrina.sql.policy import RowPolicy

log = logging.getLogger(__name__)
MAX_HISTORY = 5000  # checkpoints walked back to find an older run of a dialog
# rows of a live answer: past them it carries the checkpoint's sample and the full count, and
# every row is in the run's stored result and its CSV / Parquet / Excel downloads (decision 167)
LIVE_ROWS = 100_000
# the nodes that return a query's result: the warehouse's execution, and the bank of verified
# queries (decisions 196, 197), which runs its query itself
RESULT_NODES = ("execute", "verified", "adapt_verified")

STATE_TYPES = (
    QueryResult,
    QueryPlan,
    PeriodRef,
    Filter,
    Dimension,
    Join,
    ColumnMeta,
    ColumnRole,
    Grain,
    ValueFormat,
    TraceEvent,
    EventKind,
)


def register_state() -> None:
    """Allow the ask graph's state types in checkpoints (done on import; idempotent)."""
    register_state_types(STATE_TYPES)


register_state()


class AskResult(BaseModel):
    """The stable, machine-readable result of one turn (`vitrina ask --json`)."""

    thread_id: str
    run_id: str | None = None
    # the checkpoint the turn ended at: its place in the dialog's history (`thread_turns`)
    checkpoint_id: str | None = None
    status: str
    question: str
    rewritten_question: str | None = None
    topic: str | None = None
    period: dict[str, Any] | None = None
    sql: str | None = None
    columns: list[str] = Field(default_factory=list)
    rows: list[list[Any]] = Field(default_factory=list)
    row_count: int = 0
    answer: str | None = None
    table: dict[str, Any] | None = None
    chart: dict[str, Any] | None = None
    chart_png: str | None = None
    excel: str | None = None
    clarification: dict[str, Any] | None = None
    sql_source: str | None = None  # rules | llm | verified | adapted (bank; decisions 196, 197)
    sql_explanation: str | None = None  # the model's account of its SQL
    sql_confidence: float | None = None
    llm_usage: dict[str, Any] = Field(
        default_factory=dict
    )  # this turn: calls, tokens, latency per task
    # set when the model was configured but unavailable this turn (outage, open breaker):
    # {"reason": why, "notice": the user-facing sentence also appended to `answer`}
    model_unavailable: dict[str, str] | None = None
    suggestions: list[str] = Field(default_factory=list)  # follow-up questions from the catalog
    # text cells of `rows` and `table` cut to result_cell_max_chars in this reply (decision 146)
    cells_cut: int = 0
    # the rule plan the answer ran (None when a model wrote the SQL): a job that goes on from
    # this answer (a task's next step) changes the plan, never the question's words
    plan: dict[str, Any] | None = None
    checks: list[dict[str, str]] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    trace: list[TraceEvent] = Field(default_factory=list)


class StepEvent(BaseModel):
    """One graph step of a running turn, for progress display (CLI, SSE)."""

    step: str
    ms: float
    trace: list[TraceEvent] = Field(default_factory=list)


def _plan_payload(question: str, plan: QueryPlan, lang: str | None) -> AskState:
    """A turn that starts from a plan made elsewhere; without `lang` the question's own."""
    payload: AskState = {"question": question, "given_plan": plan}
    if lang:
        payload["lang"] = lang
    return payload


class AskService:
    """Holds the catalog, the warehouse connection and the compiled graph for a process."""

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        catalog: Catalog | None = None,
        warehouse: Warehouse | None = None,
        today: date | None = None,
        checkpointer: Any = None,
        write_files: bool = True,
        llm: LLMClient | None = None,
        use_llm: bool = True,
        options: AskOptions | None = None,
    ) -> None:
        self.settings = settings or load_settings()
        lemma_cache.use(self.settings.home / "cache")  # a later process skips the analyser
        self.catalog = catalog or load_catalog(self.settings.catalog_dir)
        self.warehouse = warehouse or Warehouse(
            self.settings.warehouse_url,
            timeout_s=self.settings.statement_timeout_s,
            row_cap=self.settings.row_cap,
            allow_privileged=self.settings.allow_privileged_warehouse,
            duckdb_threads=self.settings.duckdb_threads,
            result_max_bytes=self.settings.result_max_bytes,
            duckdb_memory_limit=self.settings.duckdb_memory_limit,
            duckdb_temp_dir=self.settings.home / "duckdb-tmp",
        )
        self.checkpointer = checkpointer or sqlite_checkpointer(self.settings.state_path)
        self.graph = build_graph(
            max_sql_attempts=self.settings.max_sql_attempts, checkpointer=self.checkpointer
        )
        self.today = today
        self.write_files = write_files
        self.options = options or AskOptions()
        self.llm = (llm or self._configured_llm()) if use_llm else None
        self._telemetry = ThreadPoolExecutor(max_workers=1, thread_name_prefix="vitrina-telemetry")

    def _configured_llm(self) -> LLMClient | None:
        """The configured model, or None; bad LLM settings fall back to rules with a warning."""
        from vitrina.llm.factory import LLMSettingsError, build_client

        try:
            return build_client(self.settings)
        except LLMSettingsError as exc:
            log.warning("LLM settings ignored, rules only: %s", exc)
            return None

    def context(self, turn: ModelTurn | None = None, policy: RowPolicy | None = None) -> AskContext:
        """The run context of one turn; `turn` carries the turn's model budget, `policy` the
        asking token's row policy."""
        if turn is None and self.llm is not None:
            turn = self.llm.turn()
        return AskContext(
            catalog=self.catalog,
            warehouse=self.warehouse,
            settings=self.settings,
            today=self.today or date.today(),
            write_files=self.write_files,
            llm=turn,
            options=self.options,
            policy=policy or None,
        )

    def pending_clarification(self, thread_id: str) -> dict[str, Any] | None:
        """The clarification a thread is waiting for, if any."""
        snapshot = self.graph.get_state({"configurable": {"thread_id": thread_id}})
        for task in snapshot.tasks:
            for intr in task.interrupts:
                value: dict[str, Any] = intr.value
                return value
        return None

    def _payload(
        self,
        question: str,
        thread_id: str,
        segment: str | None,
        topics: list[str] | None,
        waiting: bool | None,
    ) -> AskState | Command[Any]:
        """A new turn, or the reply to the clarification this thread is waiting for
        (`waiting`: already known to the caller, else read from the checkpoint)."""
        if waiting is None:
            waiting = self.pending_clarification(thread_id) is not None
        if waiting:
            return Command(resume={"text": question})
        return {
            "question": question,
            "segment": (segment or self.settings.segment or "auto").lower(),
            "explicit_topics": topics or [],
        }

    def ask(
        self,
        question: str,
        *,
        thread_id: str | None = None,
        segment: str | None = None,
        topics: list[str] | None = None,
        policy: RowPolicy | None = None,
    ) -> AskResult:
        """Run one turn to its end (answer, clarification, refusal or failure); `policy`: the
        asking token's row policy (every query of the turn reads only its rows)."""
        result = None
        for item in self.stream(
            question, thread_id=thread_id, segment=segment, topics=topics, policy=policy
        ):
            result = item
        assert isinstance(result, AskResult)
        return result

    def run_plan(
        self,
        plan: QueryPlan,
        *,
        question: str = "",
        lang: str | None = None,
        thread_id: str | None = None,
        policy: RowPolicy | None = None,
    ) -> AskResult:
        """Run a plan made elsewhere (route's report planner) through ask's own tail: compile,
        guard and EXPLAIN, deterministic checks, execution, result checks, the answer and its
        files. `question` words the answer and the Excel sheet; `lang` defaults to its language."""
        result = None
        for item in self.stream(question, thread_id=thread_id, plan=plan, lang=lang, policy=policy):
            result = item
        assert isinstance(result, AskResult)
        return result

    def stream(
        self,
        question: str,
        *,
        thread_id: str | None = None,
        segment: str | None = None,
        topics: list[str] | None = None,
        plan: QueryPlan | None = None,
        lang: str | None = None,
        waiting: bool | None = None,
        policy: RowPolicy | None = None,
    ) -> Iterator[StepEvent | AskResult]:
        """Run one turn, yielding a StepEvent after every graph node, then the AskResult.
        The finished turn is exported as telemetry spans in the background. With `plan`
        (see `run_plan`) the turn starts at SQL generation. `waiting`: whether the thread
        waits for a clarification's reply, when the caller has just read its checkpoint
        (None: read here). `policy`: the asking token's row policy."""
        thread_id = thread_id or uuid.uuid4().hex[:12]
        payload: AskState | Command[Any] = (
            self._payload(question, thread_id, segment, topics, waiting)
            if plan is None
            else _plan_payload(question, plan, lang)
        )
        config: RunnableConfig = {
            "configurable": {"thread_id": thread_id},
            "recursion_limit": RECURSION_LIMIT,
        }
        turn = self.llm.turn() if self.llm is not None else None
        steps: list[StepRecord] = []
        executed: Any = None
        last, last_wall = time.perf_counter(), time.time()
        # durability "exit": a turn's state is checkpointed once, when the graph stops (an
        # answer, a clarification's interrupt or a failure), not after each of its ~15 steps;
        # a turn is tens of milliseconds, and a crash inside one loses only that turn, which
        # the user asks again. This was ~20% of a rules turn's CPU (decision 132).
        for update in self.graph.stream(
            payload,
            config,
            context=self.context(turn, policy),
            stream_mode="updates",
            durability="exit",
        ):
            now = time.perf_counter()
            for node, values in update.items():
                if node.startswith("__"):
                    continue
                if node in RESULT_NODES and isinstance(values, dict) and values.get("result"):
                    executed = values.get("result")  # every row: the checkpoint keeps a sample
                events = values.get("trace") if isinstance(values, dict) else None
                event = StepEvent(
                    step=node,
                    ms=round((now - last) * 1000, 2),
                    trace=events if isinstance(events, list) else [],
                )
                steps.append(
                    StepRecord(
                        step=event.step, started_at=last_wall, ms=event.ms, trace=event.trace
                    )
                )
                yield event
            last, last_wall = now, time.time()
        result = self.result(thread_id, question, turn)
        if (
            isinstance(executed, QueryResult)
            and result.status == "answered"
            and len(result.rows) < result.row_count == executed.row_count <= LIVE_ROWS
        ):  # the checkpoint kept a sample (vitrina.ask.bounded): this answer has every row
            result = result.model_copy(update={"rows": [list(r) for r in executed.rows]})
        columnar = isinstance(executed, QueryResult) and executed.arrow is not None
        del executed  # past LIVE_ROWS the sample: every row is in the stored result
        if columnar:  # a large result's memory back to the system before the next turn
            release_memory()
        if self.write_files and result.status == "answered" and result.run_id:
            result = self.with_files(result)
        self._telemetry.submit(
            export_run,
            result.run_id or "",
            thread_id,
            steps,
            result.model_dump(mode="json", exclude={"rows", "trace", "table", "chart"}),
        )
        yield result

    def result(self, thread_id: str, question: str, turn: ModelTurn | None = None) -> AskResult:
        """The result of the thread's latest turn (`turn`: its model use, for llm_usage)."""
        state = self.graph.get_state({"configurable": {"thread_id": thread_id}})
        usage = turn.usage() if turn is not None else {}
        result = result_from_state(
            thread_id,
            state.values,
            pending_of(state),
            question=question,
            usage=usage,
            checkpoint_id=(state.config or {}).get("configurable", {}).get("checkpoint_id"),
        )
        lang = state.values.get("lang") or "en"
        if result.status == "answered":
            result = result.model_copy(
                update={
                    "suggestions": suggestions(
                        state.values.get("plan"), self.catalog, lang, self.today or date.today()
                    )
                }
            )
        unused = model_unused(turn, state.values, result)
        return with_model_notice(result, unused, lang) if unused else result

    def with_files(
        self, result: AskResult, kinds: tuple[Kind, ...] = ("excel", "chart")
    ) -> AskResult:
        """The result with its Excel file and chart PNG written (once per run id; see outputs)."""
        if not result.run_id:
            return result
        files = self.run_files(result.thread_id, result.run_id, kinds)
        if files is None:
            return result
        trace = [*result.trace, *files.trace]
        return result.model_copy(
            update={
                "excel": files.excel or result.excel,
                "chart_png": files.chart_png or result.chart_png,
                "trace": trace,
                "tags": result_tags(trace, result.checks, result.sql_source),
            }
        )

    def run_files(
        self, thread_id: str, run_id: str, kinds: tuple[Kind, ...] = ("excel", "chart")
    ) -> RunFiles | None:
        """Write (or reuse) the files of one run of a thread; None when the run is not there."""
        values = self.run_values(thread_id, run_id)
        if values is None:
            return None
        return write_run_files(values, self.settings.outputs_dir, kinds)

    def run_values(self, thread_id: str, run_id: str) -> dict[str, Any] | None:
        """The state at the end of a run: the thread's latest checkpoint, else a bounded walk
        back through its history (an older turn of the dialog)."""
        config: RunnableConfig = {"configurable": {"thread_id": thread_id}}
        latest = self.graph.get_state(config).values
        if latest.get("run_id") == run_id:
            return latest
        for n, snapshot in enumerate(self.graph.get_state_history(config)):
            if n >= MAX_HISTORY:
                return None
            if snapshot.values.get("run_id") == run_id and not snapshot.next:
                return snapshot.values
        return None

    def flush_telemetry(self) -> None:
        """Wait until the turns finished so far are exported (the export runs in the
        background, after the answer): a turn's cost measured to here includes it."""
        self._telemetry.submit(lambda: None).result()

    def close(self) -> None:
        self._telemetry.shutdown(wait=True)
        self.warehouse.close()


def model_unused(
    turn: ModelTurn | None, values: dict[str, Any], result: AskResult
) -> tuple[str, str] | None:
    """(kind, detail) when the turn wanted the model and it failed: the budget says so, or
    the model was to plan the SQL (mode llm) and a slot failed so that it did not."""
    if turn is None:
        return None
    unused = turn.budget.unused()
    if unused is None and turn.budget.missed and values.get("mode") == "llm":
        unused = turn.budget.missed[-1] if result.sql_source != "llm" else None
    return unused


def model_notice(kind: str, answered: bool, lang: str) -> str:
    """ "The model was not used: <why>." and who answered instead, in the question's language."""
    why = text(f"model_why_{kind}" if f"model_why_{kind}" in TEXTS else "model_why_error", lang)
    who = text("model_down_answered" if answered else "model_down_other", lang)
    return f"{text('model_not_used', lang, why=why)} {who}"


def with_model_notice(result: AskResult, unused: tuple[str, str], lang: str) -> AskResult:
    """The result that says the model was wanted and failed (why, `unused`: the kind and the
    detail of `TurnBudget.unused`) and who answered instead (decision 175)."""
    kind, reason = unused
    notice = model_notice(kind, result.status == "answered", lang)
    answer = f"{result.answer}\n\n{notice}" if result.answer else notice
    return result.model_copy(
        update={"answer": answer, "model_unavailable": {"reason": reason, "notice": notice}}
    )


def result_tags(
    trace: list[TraceEvent], checks: list[dict[str, str]], source: str | None = None
) -> list[str]:
    """What a reader should know of an answer at a glance: errors were suppressed on the
    way, a row policy filtered what it read, the SQL came from the bank of verified queries
    (`verified`) or was adapted from it by a model and awaits review (`adapted`)."""
    tags = ["suppressed_errors"] if has_suppressed(trace) else []
    if any(c.get("check") == "row_policy" for c in checks):
        tags.append("row_policy")
    if source in ("verified", "adapted"):
        tags.append(source)
    return tags


def pending_of(snapshot: Any) -> dict[str, Any] | None:
    """The clarification a checkpoint is waiting on, if any."""
    return next((i.value for t in snapshot.tasks for i in t.interrupts), None)


def _ran_plan(values: dict[str, Any]) -> dict[str, Any] | None:
    """The rule plan whose SQL ran, as JSON; None when the model wrote the SQL."""
    plan = values.get("plan")
    if plan is None or values.get("sql_source") == "llm":
        return None
    return plan.model_dump(mode="json") if hasattr(plan, "model_dump") else dict(plan)


def result_from_state(
    thread_id: str,
    values: dict[str, Any],
    pending: dict[str, Any] | None,
    *,
    question: str = "",
    usage: dict[str, Any] | None = None,
    checkpoint_id: str | None = None,
) -> AskResult:
    """One turn's public result from the graph state at its end (used live and for history)."""
    result: QueryResult | None = values.get("result")
    trace = values.get("trace") or []
    period: PeriodRef | None = values.get("period")
    status = "clarification" if pending else values.get("status", "failed")
    answered = status == "answered"
    answer = values.get("answer")
    if pending:
        options = "\n".join(f"{n}. {o['label']}" for n, o in enumerate(pending["options"], start=1))
        answer = f"{pending['question']}\n{options}"
    return AskResult(
        thread_id=thread_id,
        run_id=values.get("run_id"),
        checkpoint_id=checkpoint_id,
        status=status,
        question=values.get("question", question),
        rewritten_question=values.get("rewritten"),
        topic=values.get("topic"),
        period=period.model_dump(mode="json") if period else None,
        sql=values.get("sql") if answered or values.get("sql") else None,
        columns=result.columns if result and answered else [],
        rows=[list(r) for r in result.rows] if result and answered else [],
        row_count=(values.get("result_rows") or result.row_count) if result and answered else 0,
        answer=answer,
        table=values.get("table") if answered else None,
        chart=values.get("chart") if answered else None,
        chart_png=values.get("chart_png") if answered else None,
        excel=values.get("excel") if answered else None,
        clarification=pending,
        checks=values.get("checks") or [],
        sql_source=values.get("sql_source") if values.get("sql") else None,
        sql_explanation=values.get("sql_explanation"),
        sql_confidence=values.get("sql_confidence"),
        plan=_ran_plan(values) if answered else None,
        llm_usage=usage or {},
        tags=result_tags(
            trace,
            values.get("checks") or [],
            values.get("sql_source") if values.get("sql") else None,
        ),
        trace=trace,
    )
