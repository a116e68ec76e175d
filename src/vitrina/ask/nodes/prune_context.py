"""Context pruning: only the planned columns and relevant instructions reach a generator,
but date columns and join keys are always kept (a generator needs them to filter and join)."""

from __future__ import annotations

from langgraph.runtime import Runtime

from vitrina.ask.context import AskContext
from vitrina.ask.state import AskState
from vitrina.catalog.model import ColumnRole
from vitrina.trace import Trace


def prune_context(state: AskState, runtime: Runtime[AskContext]) -> dict:
    trace = Trace("prune_context")
    catalog = runtime.context.catalog
    plan = state["plan"]
    assert plan is not None
    wanted: dict[str, set[str]] = {t: set() for t in plan.tables}
    for join in plan.joins:
        wanted[join.left_table].add(join.left_column)
        wanted[join.right_table].add(join.right_column)
    for dim in plan.dimensions:
        wanted[dim.table] |= {dim.column, dim.select_column} | (
            {dim.key_column} if dim.key_column else set()
        )
    for flt in plan.filters:
        wanted[flt.table].add(flt.column)
    for metric_id in plan.metrics:
        metric = catalog.metrics[metric_id]
        text = f"{metric.expression} {metric.filter or ''}".lower()
        wanted[metric.table] |= {
            c.name for c in catalog.tables[metric.table].columns if c.name in text
        }
    schema: dict[str, list[dict[str, str]]] = {}
    dropped = 0
    for table_name, cols in wanted.items():
        table = catalog.tables[table_name]
        kept = [
            c
            for c in table.columns
            if c.name in cols or c.role in (ColumnRole.DATE, ColumnRole.KEY)
        ]
        dropped += len(table.columns) - len(kept)
        schema[table_name] = [
            {"name": c.name, "type": c.type, "role": c.role.value, "description": c.description}
            for c in kept
        ]
    tags = {plan.topic, *plan.tables, *plan.metrics}
    options = runtime.context.options
    instructions = catalog.instructions_for(tags) if options.instructions else []
    trace.measurement(
        "context pruned",
        tables=len(schema),
        columns_dropped=dropped,
        instructions=[i.id for i in instructions],
    )
    context = {
        "schema": schema,
        "instructions": [i.text for i in instructions],
        "examples": [e.model_dump() for e in catalog.examples if e.topic == plan.topic][:3]
        if options.examples
        else [],
    }
    return {"context": context, "trace": trace.events}
