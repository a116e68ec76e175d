"""A tool: a name, a description, an argument model (or a JSON schema) and a function.

Tools get a `ToolEnv` (the context, the plan, the current step, its output folder, the
trace) and return a `ToolOutput`; tables go to files, never into the model's context.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from vitrina.task.quota import FolderQuota, QuotaExceeded, Snapshot
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

    @property
    def quota(self) -> FolderQuota:
        """The task's folder (the parent of every step's folder) and its byte quota."""
        return FolderQuota(self.folder.parent, self.ctx.settings.task_folder_max_bytes, self.lang)

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
        rows: Sequence[Any],
        summary: str,
        *,
        files: list[str] | None = None,
        meta: dict[str, Any] | None = None,
    ) -> ToolOutput:
        rows = list(rows[: self.ctx.limits.data_rows])  # a slice: a columnar result stays Arrow
        path = save_table(self.folder, f"{name}-{self.seq}", columns, rows, self.quota)
        return ToolOutput(
            tool=tool,
            ok=True,
            summary=summary,
            data=str(path),
            columns=list(columns),
            row_count=len(rows),
            preview=preview(
                rows, self.ctx.limits.preview_rows, self.ctx.settings.result_cell_max_chars
            ),
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
        """Validate the arguments and run; expected failures become a failed ToolOutput.

        What the call writes counts against the task folder's quota: a call that would go
        over it (or did) fails and leaves nothing it wrote behind."""
        quota = env.quota
        before = quota.snapshot()
        if _total(before) >= quota.max_bytes:
            return self._failed(env, str(quota.refusal(self.name)))
        try:
            args = self.args.model_validate(raw) if self.args is not None else dict(raw)
            out = self.run(env, args)
        except ValidationError as exc:
            return self._failed(
                env, f"invalid arguments for {self.name}: {exc.errors(include_url=False)}"
            )
        except ToolError as exc:
            return self._failed(env, str(exc))
        except QuotaExceeded as exc:
            self._undo(env, quota, before)
            return self._failed(env, str(exc))
        wrote = _total(quota.snapshot()) - _total(before)
        if _total(before) + wrote <= quota.max_bytes:
            return out
        self._undo(env, quota, before)
        return self._failed(env, str(quota.refusal(self.name, wrote)))

    def _undo(self, env: ToolEnv, quota: FolderQuota, before: Snapshot) -> None:
        removed = quota.undo(before)
        env.trace.rejected(
            "task folder quota: the call's files removed",
            tool=self.name,
            files=removed[:20],
            count=len(removed),
        )

    def _failed(self, env: ToolEnv, error: str) -> ToolOutput:
        env.trace.error("tool failed", tool=self.name, error=error[:500])
        return ToolOutput(tool=self.name, ok=False, summary=error, error=error)


def _total(snapshot: Snapshot) -> int:
    return sum(size for size, _ in snapshot.values())
