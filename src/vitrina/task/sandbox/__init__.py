"""Isolated Python for analysis steps (bubblewrap): sees only the interpreter, the analysis
packages and its inputs, wherever Vitrina is installed; no network, no nested namespaces, a
disk quota, kernel limits."""

from vitrina.task.sandbox.runner import (
    SandboxLimits,
    SandboxResult,
    SandboxUnavailable,
    isolation,
    run_python,
)

__all__ = ["SandboxLimits", "SandboxResult", "SandboxUnavailable", "isolation", "run_python"]
