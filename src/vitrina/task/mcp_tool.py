"""The MCP face: start a task (and answer its approvals) from an MCP client.

    from vitrina.task.mcp_tool import start_task_tool, task_decision_tool

An MCP client cannot click buttons, so `approve_all=True` (the default) runs the task to its
end with the `--yes` policy (plans approved, failed steps skipped); with `approve_all=False`
the plan comes back for approval and `task_decision_tool` answers it, step by step.
"""

from __future__ import annotations

import threading
from typing import Any

from vitrina.task.service import LOCAL_OWNER, TaskService, TaskView

_lock = threading.Lock()
_services: dict[int, TaskService] = {}


def _service(settings: Any = None) -> TaskService:
    key = id(settings)
    with _lock:
        if key not in _services:
            _services[key] = TaskService(settings)
        return _services[key]


def _result(view: TaskView) -> dict[str, Any]:
    return {
        "task_id": view.task_id,
        "status": view.status,
        "plan_source": view.plan_source,
        "plan": [
            {
                "n": s.n,
                "title": s.title,
                "tool": s.tool,
                "status": s.status,
                "report": s.report,
                "error": s.error,
            }
            for s in view.plan
        ],
        "pending": view.pending,
        "summary": view.summary,
        "answer": view.summary,
        "files": view.files,
        "out_dir": view.out_dir,
    }


def start_task_tool(
    request: str,
    mode: str = "semi",
    approve_all: bool = True,
    *,
    service: TaskService | None = None,
    settings: Any = None,
    owner: str = LOCAL_OWNER,
) -> dict[str, Any]:
    """Start a multi-step analytical task; with approve_all the whole task runs and its summary
    returns."""
    svc = service or _service(settings)
    if approve_all:
        return _result(svc.run(request, mode="auto" if mode == "auto" else "semi", owner=owner))
    return _result(svc.start(request, mode="auto" if mode == "auto" else "semi", owner=owner))


def task_decision_tool(
    task_id: str,
    action: str,
    comment: str | None = None,
    steps: list[str] | None = None,
    *,
    service: TaskService | None = None,
    settings: Any = None,
    owner: str = LOCAL_OWNER,
    choice: str | None = None,
) -> dict[str, Any]:
    """Answer a waiting task: plan (approve, edit with steps, replan with comment, stop) or step
    (approve, clarify with the chosen option's id, redo with comment, skip, stop). Another
    owner's task is "no task" (KeyError)."""
    svc = service or _service(settings)
    svc.view(task_id, owner=owner)
    decision: dict[str, Any] = {"action": action}
    if comment:
        decision["comment"] = comment
    if steps:
        decision["steps"] = steps
    if choice:
        decision["choice"] = choice
    return _result(svc.decide(task_id, decision))
