"""The task graph: planner -> approve_plan -> inject_step -> execute (loop) -> approve_step or
evaluate -> compress -> next step or finalize. Every loop is bounded in code (plan rounds,
step iterations, redos, the global iteration bound) and by the recursion limit."""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from vitrina.task.bounded import bounded
from vitrina.task.context import TaskContext
from vitrina.task.limits import TaskLimits
from vitrina.task.nodes.approve_plan import approve_plan
from vitrina.task.nodes.approve_step import approve_step
from vitrina.task.nodes.compress import compress
from vitrina.task.nodes.evaluate import evaluate
from vitrina.task.nodes.execute import execute
from vitrina.task.nodes.finalize import finalize
from vitrina.task.nodes.inject_step import inject_step
from vitrina.task.nodes.planner import planner
from vitrina.task.routes import after_compress, after_execute, after_inject, after_plan_approval
from vitrina.task.state import TaskState


def recursion_limit(limits: TaskLimits) -> int:
    """A backstop above every bound in code: plan rounds, and per step its iterations and redos."""
    per_step = (limits.max_step_iterations + 4) * (limits.max_redos + 1)
    return (
        10
        + 3 * (limits.max_plan_rounds + 1)
        + limits.max_plan_steps * per_step
        + limits.max_total_iterations
    )


def build_graph(
    *, checkpointer: Any = None
) -> CompiledStateGraph[TaskState, TaskContext, TaskState, TaskState]:
    builder = StateGraph(TaskState, context_schema=TaskContext)
    for name, node in [
        ("planner", planner),
        ("approve_plan", approve_plan),
        ("inject_step", inject_step),
        ("execute", execute),
        ("approve_step", approve_step),
        ("evaluate", evaluate),
        ("compress", compress),
        ("finalize", finalize),
    ]:
        builder.add_node(name, bounded(node))  # no value in state above MAX_VALUE_CHARS
    builder.add_edge(START, "planner")
    builder.add_edge("planner", "approve_plan")
    builder.add_conditional_edges("approve_plan", after_plan_approval)
    builder.add_conditional_edges("inject_step", after_inject)
    builder.add_conditional_edges("execute", after_execute)
    builder.add_edge("approve_step", "compress")
    builder.add_edge("evaluate", "compress")
    builder.add_conditional_edges("compress", after_compress)
    builder.add_edge("finalize", END)
    return builder.compile(checkpointer=checkpointer)
