"""Isolated Python for analysis steps (bubblewrap): sees only the interpreter, its libraries and
its inputs; no network, a disk quota, kernel limits."""

from vitrina.task.sandbox.runner import (
    SandboxLimits,
    SandboxResult,
    SandboxUnavailable,
    isolation,
    run_python,
)

__all__ = ["SandboxLimits", "SandboxResult", "SandboxUnavailable", "isolation", "run_python"]
