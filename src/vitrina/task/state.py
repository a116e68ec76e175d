"""The task's state: a TypedDict with reducers; the plan is typed data owned by code.

Nodes return partial updates and never mutate what they are given: a plan change is a new
list of new `Step` objects (`replace_step`). Messages of the running step live in `scratch`
and are dropped by the compressor; the plan and the compressed `history` are never dropped.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, Literal, TypedDict

from pydantic import BaseModel, Field

from vitrina.trace import TraceEvent

StepStatus = Literal["pending", "in_progress", "done", "skipped"]
TaskStatus = Literal[
    "planning", "awaiting_plan", "running", "awaiting_step", "done", "stopped", "failed"
]
Mode = Literal["semi", "auto"]
PlanAction = Literal["approve", "edit", "replan", "stop"]
StepAction = Literal["approve", "clarify", "redo", "skip", "stop"]
PLAN_ACTIONS: tuple[str, ...] = ("approve", "edit", "replan", "stop")
# clarify: one of the options of a clarification the step's question waits for ({"choice": id})
STEP_ACTIONS: tuple[str, ...] = ("approve", "clarify", "redo", "skip", "stop")


class ToolOutput(BaseModel):
    """One tool call's result as later steps and the summary see it (data stays in files)."""

    tool: str
    ok: bool
    summary: str = ""
    data: str | None = None  # a table file (JSON: columns and rows) for later steps
    columns: list[str] = Field(default_factory=list)
    row_count: int = 0
    preview: list[list[Any]] = Field(default_factory=list)
    files: list[str] = Field(default_factory=list)
    error: str | None = None
    meta: dict[str, Any] = Field(default_factory=dict)


class Step(BaseModel):
    """One plan step: what to do, the suggested tool, its status and what it produced."""

    n: int
    title: str
    tool: str | None = None  # a suggestion for the model; what the rules executor runs
    args: dict[str, Any] = Field(default_factory=dict)
    status: StepStatus = "pending"
    attempts: int = 0  # redo count
    comment: str | None = None  # the user's (or evaluator's) comment for a redo
    note: str | None = None  # what a redo comment changed ("Повтор с изменениями: ...")
    outputs: list[ToolOutput] = Field(default_factory=list)
    report: str | None = None
    error: str | None = None

    def last_table(self) -> ToolOutput | None:
        """The step's last successful output that holds a table."""
        return next((o for o in reversed(self.outputs) if o.ok and o.data), None)


class DraftStep(BaseModel):
    title: str = Field(min_length=2, max_length=300)
    tool: str | None = None
    args: dict[str, Any] = Field(default_factory=dict)


class PlanDraft(BaseModel):
    """What the planner model must return: short steps, each one action."""

    steps: list[DraftStep] = Field(min_length=1)


class TaskState(TypedDict, total=False):
    # input
    task_id: str
    owner: str  # the API token id that created it; others never see the task
    request: str
    lang: str
    mode: Mode
    out_dir: str
    # plan (owned by code)
    plan: list[Step]
    plan_source: str  # llm | llm_repaired | fallback | template | user
    plan_rounds: int  # replans and edits so far
    plan_comment: str | None  # the user's replan comment
    # the running step
    current: int | None  # index into plan
    scratch: list[Any]  # the executor's messages for this step only
    iterations: int  # executor iterations for this step
    corrections: int  # corrective messages sent for this step
    step_done: bool
    decision: dict[str, Any] | None
    total_iterations: int  # counted against the global bound
    halt: str | None  # "global_bound" once the whole task's iteration bound is reached
    # results
    history: Annotated[list[dict[str, Any]], operator.add]  # compressed step records
    summary: str | None
    status: TaskStatus
    files: Annotated[list[str], operator.add]
    prompts: Annotated[list[dict[str, Any]], operator.add]  # every prompt version that ran
    trace: Annotated[list[TraceEvent], operator.add]


def replace_step(plan: list[Step], index: int, **changes: Any) -> list[Step]:
    """A new plan with step `index` changed (copies; the old plan is untouched)."""
    return [
        s.model_copy(update=changes, deep=True) if i == index else s for i, s in enumerate(plan)
    ]


def renumber(steps: list[Step]) -> list[Step]:
    return [s.model_copy(update={"n": i}) for i, s in enumerate(steps, start=1)]
