"""The ask graph's state: a TypedDict with reducers; nodes return partial updates."""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypedDict

from vitrina.present.columns import ColumnMeta
from vitrina.query.plan import QueryPlan
from vitrina.trace import TraceEvent
from vitrina.warehouse.result import QueryResult

Status = Literal["answered", "clarification", "refused", "failed"]
TRACE_RESET = "__reset__"


def merge_trace(
    old: list[TraceEvent] | None, new: list[TraceEvent] | str | None
) -> list[TraceEvent]:
    """Append a node's events; the start of a turn sends TRACE_RESET to begin a fresh trace."""
    if new == TRACE_RESET:
        return []
    return [*(old or []), *(new or [])]  # type: ignore[list-item]


def append_history(
    old: list[dict[str, Any]] | None, new: list[dict[str, Any]] | None
) -> list[dict[str, Any]]:
    """Keep the last answered turns (bounded) as snapshots for follow-up questions."""
    return [*(old or []), *(new or [])][-20:]


class Clarification(TypedDict):
    kind: Literal["topic", "segment", "entity", "join"]
    question: str
    options: list[dict[str, str]]  # [{"id": ..., "label": ...}]


class AskState(TypedDict, total=False):
    # input of a turn
    question: str
    segment: str  # dialog setting: auto | b2b | b2c
    explicit_topics: list[str]
    given_plan: QueryPlan | None  # a plan made elsewhere (run_plan): straight to SQL, ask's checks
    # understanding
    lang: str
    rewritten: str
    follow_up: bool
    topic: str | None
    candidates: list[str]  # topics still in play when rules could not decide
    rules_certain: bool  # every word read and one topic decided by the rules alone (decision 174)
    resolved_segment: str | None  # b2b | b2c | None
    period: Any  # PeriodRef | None
    compared: Any  # PeriodRef | None: the second period of a two-period question
    compare_question: str | None  # the question with one period, the comparison's words gone
    compare_span: str | None  # the words of the question naming both periods (for follow-ups)
    grain: str | None
    clarification: Clarification | None
    clarifications_in_row: int
    chosen: dict[str, str]  # answers to clarifications in this turn: kind -> option id
    # planning and SQL
    mode: Literal["rules", "llm"]  # who plans the SQL this turn
    unexplained: list[str]  # content words no rule explains (the model's to read, else no answer)
    llm_tables: list[str]  # tables a model chose (code added the joins)
    table_notes: str | None  # why the previous table choice could not answer (feasibility)
    feasibility_attempts: int
    semantic_attempts: int
    sql_explanation: str | None  # the model's explanation of its SQL
    sql_confidence: float | None
    dialog_summary: str | None  # second-level memory: accumulated filters and entities
    plan: QueryPlan | None
    # the rules' reading (whole or partial) that SQL a model writes is held to (query/meaning)
    reading_plan: QueryPlan | None
    context: dict[str, Any]  # pruned schema and instructions (what a generator may see)
    sql: str | None
    sql_attempts: int
    sql_error: str | None
    sql_source: str  # rules | llm | verified | adapted (decisions 195, 196)
    verified: dict[str, Any] | None  # the bank query that answered: entry, who, the lead text
    bank_close: list[str]  # verified entries close to the question, for a model to adapt
    # result and outputs
    result: QueryResult | None  # at the end of a turn: a sample of it (vitrina.ask.bounded)
    result_rows: int | None  # the full result's rows when the state keeps a sample
    result_file: str | None  # then: the stored result's name in outputs_dir/<run_id>/
    columns_meta: list[ColumnMeta]
    checks: list[dict[str, str]]
    answer: str | None
    table: dict[str, Any] | None
    chart: dict[str, Any] | None
    chart_png: str | None  # set by checkpoints written before files were made on request
    excel: str | None
    outputs: (
        dict[str, Any] | None
    )  # what the files need; vitrina.ask.outputs writes them on request
    status: Status
    reason: str | None  # refusal or failure, in the question's language
    previous_status: Status | None  # how the dialog's previous turn ended (None: first turn)
    run_id: str
    history: Annotated[list[dict[str, Any]], append_history]
    trace: Annotated[list[TraceEvent], merge_trace]
