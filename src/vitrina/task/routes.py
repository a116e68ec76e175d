"""Routers: plain functions of the state with Literal returns, so the drawn graph is the real
one."""

from __future__ import annotations

from typing import Literal

from vitrina.task.state import TaskState


def after_plan_approval(
    state: TaskState,
) -> Literal["planner", "approve_plan", "inject_step", "finalize"]:
    action = (state.get("decision") or {}).get("action")
    if action == "replan":
        return "planner"
    if action == "edit":
        return "approve_plan"
    if action == "approve" and any(s.status == "pending" for s in state.get("plan") or []):
        return "inject_step"
    return "finalize"


def after_inject(state: TaskState) -> Literal["execute", "finalize"]:
    return "execute" if state.get("current") is not None and not state.get("halt") else "finalize"


def after_execute(state: TaskState) -> Literal["execute", "approve_step", "evaluate", "finalize"]:
    if state.get("halt"):
        return "finalize"
    if not state.get("step_done"):
        return "execute"
    return "evaluate" if state.get("mode") == "auto" else "approve_step"


def after_compress(state: TaskState) -> Literal["inject_step", "finalize"]:
    if state.get("status") == "stopped" or state.get("halt"):
        return "finalize"
    return (
        "inject_step" if any(s.status == "pending" for s in state.get("plan") or []) else "finalize"
    )
