"""The task job: plan -> approval -> steps with tools, each approved -> a summary.

    from vitrina.task import TaskService
    service = TaskService(settings)
    view = service.start("Сравни ... с прошлым годом по регионам")   # waits for the plan approval
    view = service.decide(view.task_id, {"action": "approve"})         # runs step 1, waits for its approval

Faces: `vitrina task` (commands.py), the web page (api.build_router), MCP (mcp_tool).
This package is task's public entry point: other packages import task only from here
(names imported on first use, so `vitrina --help` stays fast).
"""  # noqa: E501

from __future__ import annotations

from typing import TYPE_CHECKING

from vitrina.lazy import lazy_exports

_EXPORTS = {
    "InvalidDecision": "vitrina.task.service",
    "TASK_POOL_SIZE": "vitrina.task.service",
    "TaskService": "vitrina.task.service",
    "build_router": "vitrina.task.api",
    "start_task_tool": "vitrina.task.mcp_tool",
    "task_decision_tool": "vitrina.task.mcp_tool",
}

__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)


if TYPE_CHECKING:  # the lazy names, for type checkers and IDEs (tests/test_lazy_exports.py)
    from vitrina.task.api import build_router as build_router
    from vitrina.task.mcp_tool import start_task_tool as start_task_tool
    from vitrina.task.mcp_tool import task_decision_tool as task_decision_tool
    from vitrina.task.service import TASK_POOL_SIZE as TASK_POOL_SIZE
    from vitrina.task.service import InvalidDecision as InvalidDecision
    from vitrina.task.service import TaskService as TaskService
