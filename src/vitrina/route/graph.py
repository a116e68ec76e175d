"""The supervisor graph: classify -> one role (or analyst -> planner) -> the single `deliver`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from vitrina.route.context import RouteContext
from vitrina.route.nodes.analyst import analyst
from vitrina.route.nodes.ask import ask
from vitrina.route.nodes.classify import classify
from vitrina.route.nodes.deliver import deliver
from vitrina.route.nodes.docs import docs
from vitrina.route.nodes.execute_report import execute_report
from vitrina.route.nodes.general import general
from vitrina.route.nodes.onec_report import onec_report
from vitrina.route.nodes.plan_report import plan_report
from vitrina.route.nodes.task import task
from vitrina.route.routes import after_analyst, after_classify, after_plan
from vitrina.route.state import RouteState

RECURSION_LIMIT = (
    40  # global bound on steps per request, above MAX analyst steps plus the fixed path
)
TERMINAL = "deliver"


def build_graph(
    *, checkpointer: Any = None
) -> CompiledStateGraph[RouteState, RouteContext, RouteState, RouteState]:
    """Compile the supervisor; every role's edge leads to `deliver`, and only `deliver` to END."""
    builder = StateGraph(RouteState, context_schema=RouteContext)
    roles: list[tuple[str, Callable[..., Any]]] = [
        ("classify", classify),
        ("analyst", analyst),
        ("plan_report", plan_report),
        ("execute_report", execute_report),
        ("onec_report", onec_report),
        ("ask", ask),
        ("docs", docs),
        ("task", task),
        ("general", general),
        (TERMINAL, deliver),
    ]
    for name, node in roles:
        builder.add_node(name, node)
    builder.add_edge(START, "classify")
    builder.add_conditional_edges("classify", after_classify)
    builder.add_conditional_edges("analyst", after_analyst)
    builder.add_conditional_edges("plan_report", after_plan)
    for role in ("execute_report", "onec_report", "ask", "docs", "task", "general"):
        builder.add_edge(role, TERMINAL)
    builder.add_edge(TERMINAL, END)
    return builder.compile(checkpointer=checkpointer)
