"""Decision-trace events and the collector that nodes write them to.

A trace is a plain list of typed events so it can live in graph state, be printed
by the CLI, serialised to JSON and exported to telemetry later.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, Field


class EventKind(StrEnum):
    """What kind of decision an event records."""

    BRANCH = "branch"  # a branch taken (route, rule chosen)
    SUPPRESSED = "suppressed"  # an error caught and handled without failing the run
    REJECTED = "rejected"  # a row, column, value or item dropped
    MEASUREMENT = "measurement"  # a figure: rows, milliseconds, counts
    WARNING = "warning"  # something a user should know about the result
    ERROR = "error"  # a failure that ended a step


class TraceEvent(BaseModel):
    """One decision made by one node."""

    node: str
    kind: EventKind
    message: str
    data: dict[str, Any] = Field(default_factory=dict)
    ts: float = Field(default_factory=time.time)


class Trace:
    """Collects events for one node or one run; `events` is what goes into state."""

    def __init__(self, node: str) -> None:
        self.node = node
        self.events: list[TraceEvent] = []

    def add(self, kind: EventKind, message: str, /, **data: Any) -> TraceEvent:
        event = TraceEvent(node=self.node, kind=kind, message=message, data=data)
        self.events.append(event)
        return event

    def branch(self, message: str, /, **data: Any) -> TraceEvent:
        return self.add(EventKind.BRANCH, message, **data)

    def suppressed(self, message: str, /, **data: Any) -> TraceEvent:
        return self.add(EventKind.SUPPRESSED, message, **data)

    def rejected(self, message: str, /, **data: Any) -> TraceEvent:
        return self.add(EventKind.REJECTED, message, **data)

    def measurement(self, message: str, /, **data: Any) -> TraceEvent:
        return self.add(EventKind.MEASUREMENT, message, **data)

    def warning(self, message: str, /, **data: Any) -> TraceEvent:
        return self.add(EventKind.WARNING, message, **data)

    def error(self, message: str, /, **data: Any) -> TraceEvent:
        return self.add(EventKind.ERROR, message, **data)

    @contextmanager
    def timed(self, message: str, /, **data: Any) -> Iterator[dict[str, Any]]:
        """Record the wall time of a block as a measurement event (ms)."""
        extra: dict[str, Any] = {}
        start = time.perf_counter()
        try:
            yield extra
        finally:
            ms = round((time.perf_counter() - start) * 1000, 3)
            self.measurement(message, ms=ms, **data, **extra)


def has_suppressed(events: list[TraceEvent]) -> bool:
    """True when a run succeeded only by suppressing an error somewhere."""
    return any(e.kind is EventKind.SUPPRESSED for e in events)
