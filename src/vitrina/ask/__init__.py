"""The ask job: questions in Russian or English answered from the warehouse, rules first.

This package is ask's one public entry point: route, task, eval, mcp and server import
ask only from here (tests/test_architecture.py checks it). The names are imported on
first use (`vitrina.lazy`), so `vitrina --help` does not load the graph.

    from vitrina.ask import AskService
    result = AskService(settings).ask("Сколько карт выпустили в мае 2025?")

* the service: `AskService`, `AskResult`, `AskOptions`, `pending_of`, `result_from_state`,
  `register_state` (the checkpoint types);
* the terminal: `render_result`, `ensure_demo`.

The graph's nodes read, plan, compile and run through the core package `vitrina.query`;
other jobs import the plan and the planner from there, never from here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from vitrina.lazy import lazy_exports

_EXPORTS = {
    "AskOptions": "vitrina.ask.context",
    "AskResult": "vitrina.ask.service",
    "AskService": "vitrina.ask.service",
    "pending_of": "vitrina.ask.service",
    "register_state": "vitrina.ask.service",
    "result_from_state": "vitrina.ask.service",
    "ensure_demo": "vitrina.ask.commands",
    "render_result": "vitrina.ask.render",
}

__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)


if TYPE_CHECKING:  # the lazy names, for type checkers and IDEs (tests/test_lazy_exports.py)
    from vitrina.ask.commands import ensure_demo as ensure_demo
    from vitrina.ask.context import AskOptions as AskOptions
    from vitrina.ask.render import render_result as render_result
    from vitrina.ask.service import AskResult as AskResult
    from vitrina.ask.service import AskService as AskService
    from vitrina.ask.service import pending_of as pending_of
    from vitrina.ask.service import register_state as register_state
    from vitrina.ask.service import result_from_state as result_from_state
