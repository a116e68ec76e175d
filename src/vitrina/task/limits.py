"""Every bound of the task job in one place, read from `[task]` in vitrina.toml and
VITRINA_TASK_*."""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from vitrina.task.sandbox import SandboxLimits


@dataclass(frozen=True)
class TaskLimits:
    max_plan_steps: int = 8  # plans are capped: a longer plan is cut, with a trace event
    max_plan_rounds: int = 5  # replans and edits before only approve/stop remain
    max_step_iterations: int = 6  # executor iterations per step (the loop guard)
    max_total_iterations: int = 60  # executor iterations for the whole task
    max_tool_calls_per_reply: int = 4
    max_corrections: int = 1  # corrective messages for "tool calls announced, none sent"
    max_redos: int = 3  # redos of one step
    max_decisions: int = 200  # approvals in one `run` loop (CLI --yes, MCP)
    preview_rows: int = 10
    data_rows: int = 100_000  # rows kept in a step's table file


@dataclass(frozen=True)
class TaskConfig:
    """The task job's settings: bounds, sandbox limits, prompt label, MCP servers."""

    limits: TaskLimits = field(default_factory=TaskLimits)
    sandbox: SandboxLimits = field(default_factory=SandboxLimits)
    prompt_label: str = "production"
    mcp_servers: dict[str, dict[str, Any]] = field(
        default_factory=dict
    )  # name -> {command, args, env}
    mcp_timeout_s: float = 20.0


def _typed(cls: type, values: dict[str, Any]) -> Any:
    known = {f.name: f.type for f in fields(cls)}
    kwargs = {}
    for key, value in values.items():
        if key in known:
            kind = str(known[key])
            kwargs[key] = (
                float(value) if kind == "float" else int(value) if kind == "int" else value
            )
    return cls(**kwargs)


def _toml(home: Path) -> dict[str, Any]:
    for candidate in (Path.cwd() / "vitrina.toml", home / "vitrina.toml"):
        if candidate.is_file():
            with candidate.open("rb") as fh:
                data = tomllib.load(fh)
            return dict(data.get("task") or {})
    return {}


def load_task_config(settings: Any) -> TaskConfig:
    """`[task]` (with `[task.sandbox]`, `[task.mcp_servers.NAME]`), then VITRINA_TASK_* env,
    then `settings.extra["task"]` (a dict of the same shape) for programmatic use."""
    raw = _toml(settings.home)
    raw.update((getattr(settings, "extra", None) or {}).get("task") or {})
    limits = {k: v for k, v in raw.items() if k in {f.name for f in fields(TaskLimits)}}
    sandbox = dict(raw.get("sandbox") or {})
    for f in fields(TaskLimits):
        env = os.environ.get(f"VITRINA_TASK_{f.name.upper()}")
        if env is not None:
            limits[f.name] = env
    for f in fields(SandboxLimits):
        env = os.environ.get(f"VITRINA_TASK_SANDBOX_{f.name.upper()}")
        if env is not None:
            sandbox[f.name] = env
    label = os.environ.get("VITRINA_TASK_PROMPT_LABEL") or raw.get("prompt_label") or "production"
    return TaskConfig(
        limits=_typed(TaskLimits, limits),
        sandbox=_typed(SandboxLimits, sandbox),
        prompt_label=str(label),
        mcp_servers=dict(raw.get("mcp_servers") or {}),
        mcp_timeout_s=float(raw.get("mcp_timeout_s", 20.0)),
    )
