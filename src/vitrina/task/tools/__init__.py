"""The task's tools: read-only SQL, the ask pipeline, sandboxed analysis, result files, MCP."""

from __future__ import annotations

from vitrina.task.tools.analysis import ANALYZE, PYTHON
from vitrina.task.tools.ask import TOOL as ASK
from vitrina.task.tools.base import Tool, ToolEnv, ToolError
from vitrina.task.tools.files import TOOL as WRITE_FILE
from vitrina.task.tools.sql import TOOL as RUN_SQL

BUILTIN: tuple[Tool, ...] = (ASK, RUN_SQL, ANALYZE, PYTHON, WRITE_FILE)


def default_tools(extra: list[Tool] | None = None) -> dict[str, Tool]:
    """Built-in tools by name, then any extra (MCP) tools."""
    return {t.name: t for t in (*BUILTIN, *(extra or []))}


__all__ = ["BUILTIN", "Tool", "ToolEnv", "ToolError", "default_tools"]
