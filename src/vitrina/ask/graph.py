"""The ask graph: built in a function, nodes in `nodes/`, routers in `routes.py`."""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from vitrina.ask.bounded import bounded
from vitrina.ask.context import AskContext
from vitrina.ask.nodes.adapt_verified import adapt_verified
from vitrina.ask.nodes.answer import answer
from vitrina.ask.nodes.check_ambiguity import check_ambiguity
from vitrina.ask.nodes.check_feasibility import check_feasibility
from vitrina.ask.nodes.check_result import check_result
from vitrina.ask.nodes.check_sql import check_sql
from vitrina.ask.nodes.choose_tables_llm import choose_tables_llm
from vitrina.ask.nodes.clarify import clarify
from vitrina.ask.nodes.detect_topic import detect_topic
from vitrina.ask.nodes.execute import execute
from vitrina.ask.nodes.fail import fail
from vitrina.ask.nodes.generate_sql import generate_sql
from vitrina.ask.nodes.guard_sql import guard_sql
from vitrina.ask.nodes.normalise_period import normalise_period
from vitrina.ask.nodes.prune_context import prune_context
from vitrina.ask.nodes.refuse import refuse
from vitrina.ask.nodes.resolve_context import resolve_context
from vitrina.ask.nodes.select_tables import select_tables
from vitrina.ask.nodes.semantic_check import semantic_check
from vitrina.ask.nodes.start_turn import start_plan, start_turn
from vitrina.ask.nodes.summarize_dialog import summarize_dialog
from vitrina.ask.nodes.verified import verified
from vitrina.ask.routes import (
    after_adapt,
    after_ambiguity,
    after_answer,
    after_context,
    after_feasibility,
    after_generate,
    after_select,
    after_start_plan,
    after_topic,
    after_verified,
    entry,
    make_sql_routes,
)
from vitrina.ask.state import AskState

RECURSION_LIMIT = 60  # global bound on steps per turn, above every per-loop bound


def build_graph(
    *, max_sql_attempts: int = 3, checkpointer: Any = None
) -> CompiledStateGraph[AskState, AskContext, AskState, AskState]:
    """Compile the ask graph; `checkpointer` keeps dialogs (SQLite by default in the service)."""
    builder = StateGraph(AskState, context_schema=AskContext)
    nodes: list[tuple[str, Any]] = [
        ("start_turn", start_turn),
        ("resolve_context", resolve_context),
        ("normalise_period", normalise_period),
        ("detect_topic", detect_topic),
        ("check_ambiguity", check_ambiguity),
        ("clarify", clarify),
        ("select_tables", select_tables),
        ("prune_context", prune_context),
        ("generate_sql", generate_sql),
        ("guard_sql", guard_sql),
        ("check_sql", check_sql),
        ("execute", execute),
        ("check_result", check_result),
        ("answer", bounded(answer)),  # the last reader of the result: the state is capped
        ("refuse", refuse),
        ("fail", fail),
        ("choose_tables_llm", choose_tables_llm),
        ("check_feasibility", check_feasibility),
        ("semantic_check", semantic_check),
        ("summarize_dialog", summarize_dialog),
        ("start_plan", start_plan),
        ("verified", verified),
        ("adapt_verified", adapt_verified),
    ]
    for name, node in nodes:
        builder.add_node(name, node)
    after_guard, after_checks, after_semantic, after_execute = make_sql_routes(max_sql_attempts)
    builder.add_conditional_edges(START, entry)
    builder.add_conditional_edges("start_plan", after_start_plan)
    builder.add_edge("start_turn", "resolve_context")
    builder.add_conditional_edges("resolve_context", after_context)
    builder.add_edge("normalise_period", "detect_topic")
    builder.add_conditional_edges("detect_topic", after_topic)
    builder.add_conditional_edges("check_ambiguity", after_ambiguity)
    builder.add_edge("clarify", "normalise_period")
    builder.add_conditional_edges("select_tables", after_select)
    builder.add_conditional_edges("verified", after_verified)
    builder.add_conditional_edges("adapt_verified", after_adapt)
    builder.add_edge("choose_tables_llm", "check_feasibility")
    builder.add_conditional_edges("check_feasibility", after_feasibility)
    builder.add_edge("prune_context", "generate_sql")
    builder.add_conditional_edges("generate_sql", after_generate)
    builder.add_conditional_edges("guard_sql", after_guard)
    builder.add_conditional_edges("check_sql", after_checks)
    builder.add_conditional_edges("semantic_check", after_semantic)
    builder.add_conditional_edges("execute", after_execute)
    builder.add_edge("check_result", "answer")
    builder.add_conditional_edges("answer", after_answer)
    builder.add_edge("summarize_dialog", END)
    builder.add_edge("refuse", END)
    builder.add_edge("fail", END)
    return builder.compile(checkpointer=checkpointer)
