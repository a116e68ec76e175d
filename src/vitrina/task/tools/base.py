"""A tool: a name, a description, an argument model (or a JSON schema) and a function.

Tools get a `ToolEnv` (the context, the plan, the current step, its output folder, the
trace) and return a `ToolOutput`; tables go to files, never into the model's context.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from vitrina.task.state import Step, ToolOutput
from vitrina.task.tables import preview, save_table
from vitrina.trace import Trace


class ToolError(Exception):
    """An expected failure the model or the user should read."""


@dataclass
class ToolEnv:
    ctx: Any  # TaskContext
    plan: list[Step]
    step: Step
    folder: Path  # this step's output folder
    lang: str
    trace: Trace
    seq: int = 1  # the call's number within the step (file names)

    def step_table(self, n: int) -> ToolOutput:
        """The table of an earlier step (by number), or a ToolError naming what exists."""
        found = next((s for s in self.plan if s.n == n), None)
        table = found.last_table() if found is not None else None
        if table is None:
            have = [s.n for s in self.plan if s.last_table() is not None]
            raise ToolError(f"step {n} has no table; steps with tables: {have or 'none'}")
        return table

    def table_output(
        self,
        tool: str,
        name: str,
        columns: list[str],
        rows: list[Any],
        summary: str,
        *,
        files: list[str] | None = None,
        meta: dict[str, Any] | None = None,
    ) -> ToolOutput:
        rows = list(rows)[: self.ctx.limits.data_rows]
        path = save_table(self.folder, f"{name}-{self.seq}", columns, rows)
        return ToolOutput(
            tool=tool,
            ok=True,
            summary=summary,
            data=str(path),
            columns=list(columns),
            row_count=len(rows),
            preview=preview(rows, self.ctx.limits.preview_rows),
            files=[str(path.with_suffix(".csv")), *(files or [])],
            meta=meta or {},
        )


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    run: Callable[[ToolEnv, Any], ToolOutput]
    args: type[BaseModel] | None = None
    schema: dict[str, Any] = field(default_factory=dict)  # for tools without a model (MCP)

    def spec(self) -> dict[str, Any]:
        """The OpenAI tool definition a chat model sees."""
        params = (
            self.args.model_json_schema()
            if self.args is not None
            else (self.schema or {"type": "object"})
        )
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": params},
        }

    def call(self, env: ToolEnv, raw: dict[str, Any]) -> ToolOutput:
        """Validate the arguments and run; expected failures become a failed ToolOutput."""
        try:
            args = self.args.model_validate(raw) if self.args is not None else dict(raw)
            return self.run(env, args)
        except ValidationError as exc:
            error = f"invalid arguments for {self.name}: {exc.errors(include_url=False)}"
        except ToolError as exc:
            error = str(exc)
        env.trace.error("tool failed", tool=self.name, error=error[:500])
        return ToolOutput(tool=self.name, ok=False, summary=error, error=error)
