"""Decision trace: every point where a result can silently change writes an event here."""

from vitrina.trace.events import EventKind, Trace, TraceEvent

__all__ = ["EventKind", "Trace", "TraceEvent"]
