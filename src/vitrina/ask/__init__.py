"""The ask job: questions in Russian or English answered from the warehouse, rules first.

This package is ask's one public entry point: route, task, eval, mcp and server import
ask only from here (tests/test_architecture.py checks it). The names are imported on
first use (`vitrina.lazy`), so `vitrina --help` does not load the graph.

    from vitrina.ask import AskService
    result = AskService(settings).ask("Сколько карт выпустили в мае 2025?")

* the service: `AskService`, `AskResult`, `AskOptions`, `pending_of`, `result_from_state`,
  `register_state` (the checkpoint types);
* the query plan and its parts: `QueryPlan`, `PeriodRef`, `Filter`, `Dimension`, `Join`;
* the rules that read, plan and compile: `read_question` / `Reading`, `build_plan`,
  `compile_plan`, `column_metas`;
* the terminal: `render_result`, `ensure_demo`.
"""

from __future__ import annotations

from vitrina.lazy import lazy_exports

_EXPORTS = {
    "AskOptions": "vitrina.ask.context",
    "AskResult": "vitrina.ask.service",
    "AskService": "vitrina.ask.service",
    "pending_of": "vitrina.ask.service",
    "register_state": "vitrina.ask.service",
    "result_from_state": "vitrina.ask.service",
    "Dimension": "vitrina.ask.plan",
    "Filter": "vitrina.ask.plan",
    "Join": "vitrina.ask.plan",
    "PeriodRef": "vitrina.ask.plan",
    "QueryPlan": "vitrina.ask.plan",
    "Reading": "vitrina.ask.understand",
    "read_question": "vitrina.ask.understand",
    "build_plan": "vitrina.ask.planner",
    "column_metas": "vitrina.ask.compiler",
    "compile_plan": "vitrina.ask.compiler",
    "ensure_demo": "vitrina.ask.commands",
    "last_day_reader": "vitrina.ask.partial_period",
    "partial_checks": "vitrina.ask.partial_period",
    "render_result": "vitrina.ask.render",
}

__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)
