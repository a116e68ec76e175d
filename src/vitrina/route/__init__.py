"""The route job: a supervisor that reads a request's intent and sends it to one role.

Roles: the metadata analyst (ReAct, bounded), the report planner (Tree of Thoughts,
warehouse or 1C), ask, docs, task (not available yet) and a general answer; every branch
ends in the one `deliver` node. Public entry points: `RouteService`, `build_graph`,
`classify` (intent rules), `vitrina.route.commands.register` (the CLI).
"""

from vitrina.route.graph import build_graph
from vitrina.route.intent import classify
from vitrina.route.service import RouteResult, RouteService

__all__ = ["RouteResult", "RouteService", "build_graph", "classify"]
