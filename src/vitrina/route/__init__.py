"""The route job: a supervisor that reads a request's intent and sends it to one role.

Roles: the metadata analyst (ReAct, bounded), the report planner (Tree of Thoughts,
warehouse or 1C), ask, docs, task (not available yet) and a general answer; every branch
ends in the one `deliver` node. Public entry points: `RouteService`, `build_graph`,
`classify` (intent rules), `report_note` / `render_report` (a report as an answer),
`strip_prefix` (the supervisor's own "Задача:" prefixes),
`vitrina.route.commands.register` (the CLI). They are imported
on first use, so the CLI starts fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from vitrina.lazy import lazy_exports

_EXPORTS = {
    "build_graph": "vitrina.route.graph",
    "classify": "vitrina.route.intent",
    "RouteResult": "vitrina.route.service",
    "RouteService": "vitrina.route.service",
    "render_report": "vitrina.route.report_view",
    "report_note": "vitrina.route.report_view",
    "strip_prefix": "vitrina.route.prefix",
}

__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)


if TYPE_CHECKING:  # the lazy names, for type checkers and IDEs (tests/test_lazy_exports.py)
    from vitrina.route.graph import build_graph as build_graph
    from vitrina.route.intent import classify as classify
    from vitrina.route.prefix import strip_prefix as strip_prefix
    from vitrina.route.report_view import render_report as render_report
    from vitrina.route.report_view import report_note as report_note
    from vitrina.route.service import RouteResult as RouteResult
    from vitrina.route.service import RouteService as RouteService
