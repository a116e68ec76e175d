"""How the rules read a question, without running it: `vitrina catalog check --questions`.

The same nodes as a turn of the ask graph, in the same order (period, topic, ambiguity,
tables), called as plain functions with no model and no warehouse connection: what a catalog
author sees here is what `vitrina ask` would plan, up to the SQL it would send.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any

from langgraph.runtime import Runtime

from vitrina.ask.context import AskContext
from vitrina.ask.nodes.check_ambiguity import check_ambiguity
from vitrina.ask.nodes.detect_topic import detect_topic
from vitrina.ask.nodes.normalise_period import normalise_period
from vitrina.ask.nodes.select_tables import select_tables
from vitrina.ask.nodes.start_turn import fresh_turn
from vitrina.catalog import Catalog
from vitrina.config import Settings
from vitrina.query.compiler import compile_plan
from vitrina.query.plan import QueryPlan
from vitrina.warehouse import Warehouse


@dataclass
class QuestionReading:
    """What the rules made of one question; `outcome` is answered | clarify | refuse."""

    question: str
    outcome: str
    topic: str | None = None
    metrics: list[str] = field(default_factory=list)
    dimensions: list[str] = field(default_factory=list)
    filters: list[str] = field(default_factory=list)
    period: str | None = None
    date: str | None = None
    unexplained: list[str] = field(default_factory=list)
    reason: str | None = None  # the refusal or clarification text
    sql: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _describe(plan: QueryPlan, catalog: Catalog, lang: str) -> dict[str, Any]:
    filters = [
        f"{f.table}.{f.column} {'NOT IN' if f.exclude else '='} {', '.join(f.values)}"
        for f in plan.filters
    ]
    filters += [
        f"share of: {f.table}.{f.column} = {', '.join(f.values)}" for f in plan.share_filters
    ]
    filters += [
        f"{c.table}.{c.column} {c.op} {c.value:g}" if c.kind == "column" else c.text(lang)
        for c in plan.comparisons
    ]
    if plan.day_kind:
        filters.append(plan.day_kind)
    metrics = list(plan.metrics)
    if plan.derived:
        metrics[0] = f"{metrics[0]} ({'share of total' if plan.derived == 'share' else 'per unit'})"
    return {
        "metrics": metrics,
        "dimensions": [f"{d.table}.{d.column}" for d in plan.dimensions]
        + ([f"grain: {plan.grain}"] if plan.grain else []),
        "filters": filters,
        "date": f"{plan.date_owner}.{plan.date_column}" if plan.date_column else None,
    }


def explain_question(
    question: str, catalog: Catalog, *, settings: Settings, today: date, dialect: str = "duckdb"
) -> QuestionReading:
    """Run the reading nodes of one turn and describe the outcome; nothing is executed."""
    warehouse = Warehouse("duckdb:///:memory:")  # never connected: no node here reads data
    ctx = AskContext(catalog=catalog, warehouse=warehouse, settings=settings, today=today)
    runtime = Runtime(context=ctx)
    state: dict[str, Any] = {**fresh_turn(question.strip()), "question": question, "chosen": {}}
    state.update(normalise_period(state, runtime))
    period = state.get("period")
    reading = QuestionReading(
        question=question, outcome="refuse", period=period.label(state["lang"]) if period else None
    )
    for node in (detect_topic, check_ambiguity, select_tables):
        state.update(node(state, runtime))
        reading.topic = state.get("topic")
        if state.get("status") == "refused":
            reading.reason = state.get("reason")
            reading.unexplained = list(state.get("unexplained") or [])
            return reading
        if state.get("clarification") or (node is detect_topic and state.get("candidates")):
            clarification = state.get("clarification") or {}
            reading.outcome = "clarify"
            options = clarification.get("options") or state.get("candidates") or []
            reading.reason = clarification.get("question") or ", ".join(map(str, options))
            return reading
    plan = state.get("plan")
    if plan is None:
        reading.reason = state.get("reason")
        return reading
    reading.outcome = "answered"
    for key, value in _describe(plan, catalog, state["lang"]).items():
        setattr(reading, key, value)
    if plan.compared is not None and reading.period:  # two periods: both named
        reading.period = f"{reading.period} vs {plan.compared.label(state['lang'])}"
    reading.sql = compile_plan(plan, catalog, dialect)
    return reading
