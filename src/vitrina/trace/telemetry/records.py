"""The input of telemetry, kept free of OpenTelemetry imports so callers never need the SDK."""

from __future__ import annotations

from dataclasses import dataclass, field

from vitrina.trace.events import TraceEvent


@dataclass(frozen=True)
class StepRecord:
    """One graph step of a run: its node, when it started (epoch s), how long it took, its
    events."""

    step: str
    started_at: float
    ms: float
    trace: list[TraceEvent] = field(default_factory=list)
