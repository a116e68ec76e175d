"""Isolated Python for analysis steps: no network, read-only filesystem, kernel limits."""

from vitrina.task.sandbox.runner import (
    SandboxLimits,
    SandboxResult,
    SandboxUnavailable,
    isolation,
    run_python,
)

__all__ = ["SandboxLimits", "SandboxResult", "SandboxUnavailable", "isolation", "run_python"]
