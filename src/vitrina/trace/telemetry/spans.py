"""A finished run as OpenTelemetry spans: one root per run, one child per graph step.

Spans are built after the run from what the graph already recorded (each step's start,
duration and decision-trace events), so telemetry adds nothing to the nodes and cannot
change what they do. The facts people look for first (SQL, the model's explanation and
confidence, retries, validation errors, the answer) are lifted from the events' data
onto span attributes; every event is also attached whole as a span event.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from opentelemetry.sdk.resources import (
    OTELResourceDetector,
    Resource,
    ServiceInstanceIdResourceDetector,
)
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.version import __version__ as sdk_version
from opentelemetry.trace import Status, StatusCode, set_span_in_context

from vitrina.trace.events import EventKind, TraceEvent
from vitrina.trace.telemetry.records import StepRecord

MAX_TEXT = 8000  # longest attribute text kept (SQL, answers); longer is cut with a marker
ERROR_KEYS = ("validation_errors", "errors", "error")
RETRY_KEYS = ("retries", "attempt", "attempts")


def _ns(seconds: float) -> int:
    return int(seconds * 1_000_000_000)


def _text(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + "...[cut]"


def attribute_value(value: Any) -> Any:
    """An OTel-legal attribute value: scalars kept, lists of one scalar type kept, the rest JSON."""
    if isinstance(value, bool | int | float):
        return value
    if isinstance(value, str):
        return _text(value)
    if isinstance(value, list | tuple) and value:
        kinds = {type(v) for v in value}
        if len(kinds) == 1 and kinds <= {str, bool, int, float}:
            return [_text(v) if isinstance(v, str) else v for v in value]
    return _text(value)


def _events(raw: Iterable[Any]) -> list[TraceEvent]:
    return [e if isinstance(e, TraceEvent) else TraceEvent.model_validate(e) for e in raw]


def step_attributes(step: StepRecord) -> dict[str, Any]:
    """The span attributes of one step, lifted from its events' data."""
    attrs: dict[str, Any] = {"vitrina.node": step.step, "vitrina.duration_ms": round(step.ms, 3)}
    errors: list[str] = []
    failed = False
    for event in _events(step.trace):
        data = event.data
        failed |= event.kind is EventKind.ERROR
        for key, name in (
            ("sql", "vitrina.sql"),
            ("answer", "vitrina.answer"),
            ("explanation", "vitrina.llm.explanation"),
            ("confidence", "vitrina.llm.confidence"),
            ("model", "vitrina.llm.model"),
        ):
            if data.get(key) is not None:
                attrs[name] = attribute_value(data[key])
        for key in RETRY_KEYS:
            if isinstance(data.get(key), int):
                retries = data[key] - 1 if key != "retries" else data[key]
                attrs["vitrina.retries"] = max(attrs.get("vitrina.retries", 0), retries)
        for key in ERROR_KEYS:
            value = data.get(key)
            if value:
                errors += (
                    [str(v) for v in value] if isinstance(value, list | tuple) else [str(value)]
                )
    if errors:
        attrs["vitrina.validation_errors"] = [_text(e) for e in errors]
    attrs["vitrina.status"] = "error" if failed else "ok"
    if "vitrina.sql" in attrs or "vitrina.answer" in attrs:
        attrs["langfuse.observation.output"] = attrs.get("vitrina.sql") or attrs["vitrina.answer"]
    return attrs


def _event_attributes(event: TraceEvent) -> dict[str, Any]:
    attrs = {"vitrina.kind": event.kind.value, "vitrina.node": event.node}
    for key, value in event.data.items():
        if value is not None:
            attrs[f"data.{key}"] = attribute_value(value)
    return attrs


def run_attributes(run_id: str, thread_id: str, result: Mapping[str, Any]) -> dict[str, Any]:
    """Root-span attributes: ids, the question and answer, status; Langfuse's trace fields."""
    question = result.get("rewritten_question") or result.get("question") or ""
    attrs: dict[str, Any] = {
        "vitrina.run_id": run_id,
        "vitrina.thread_id": thread_id,
        "session.id": thread_id,
        "langfuse.session.id": thread_id,
        "langfuse.trace.name": "vitrina ask",
        "langfuse.trace.input": _text(question),
    }
    for key in ("status", "topic", "sql", "answer", "question", "rewritten_question", "row_count"):
        if result.get(key) is not None:
            attrs[f"vitrina.{key}"] = attribute_value(result[key])
    if result.get("answer") is not None:
        attrs["langfuse.trace.output"] = _text(result["answer"])
    if result.get("tags"):
        attrs["langfuse.trace.tags"] = attribute_value(list(result["tags"]))
    return attrs


def timeline(steps: Sequence[Any]) -> list[StepRecord]:
    """Steps with start times; steps that lack one are laid end to end, ending now."""
    records = [
        s
        if isinstance(s, StepRecord)
        else StepRecord(
            step=getattr(s, "step", "step"),
            started_at=getattr(s, "started_at", None) or 0.0,
            ms=float(getattr(s, "ms", 0.0)),
            trace=list(getattr(s, "trace", []) or []),
        )
        for s in steps
    ]
    if any(not r.started_at for r in records):
        clock = time.time() - sum(r.ms for r in records) / 1000
        fixed = []
        for r in records:
            fixed.append(StepRecord(r.step, r.started_at or clock, r.ms, r.trace))
            clock = (r.started_at or clock) + r.ms / 1000
        records = fixed
    return records


_PROVIDERS: dict[str, tuple[TracerProvider, InMemorySpanExporter]] = {}
_PROVIDER_LOCK = threading.Lock()  # one run's spans at a time through a provider's sink


def _resource(service: str) -> Resource:
    """What `Resource.create` gives by default (the SDK's attributes, a service instance id,
    then OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME, then ours), made without its
    detectors' thread pool: a library user's last run is exported while the interpreter
    exits, when no thread pool can start ("cannot schedule new futures after interpreter
    shutdown": that run was lost). A test compares the two."""
    resource = Resource(
        {
            "telemetry.sdk.language": "python",
            "telemetry.sdk.name": "opentelemetry",
            "telemetry.sdk.version": sdk_version,
        }
    )
    for detector in (ServiceInstanceIdResourceDetector(), OTELResourceDetector()):
        resource = resource.merge(detector.detect())
    return resource.merge(Resource({"service.name": service}))


def _provider(service: str) -> tuple[TracerProvider, InMemorySpanExporter]:
    """A tracer provider per service name, made once per process (its resource detection
    and set-up cost more than a run's spans); its in-memory sink collects one run at a time."""
    if service not in _PROVIDERS:
        sink = InMemorySpanExporter()
        provider = TracerProvider(resource=_resource(service))
        provider.add_span_processor(SimpleSpanProcessor(sink))
        _PROVIDERS[service] = provider, sink
    return _PROVIDERS[service]


def build_spans(
    run_id: str,
    thread_id: str,
    steps: Sequence[Any],
    result: Mapping[str, Any],
    *,
    service: str = "vitrina",
) -> list[ReadableSpan]:
    """The finished spans of one run (children first, root last, as an SDK would end them)."""
    records = timeline(steps)
    with _PROVIDER_LOCK:
        provider, sink = _provider(service)
        sink.clear()
        try:
            _record_run(
                provider.get_tracer("vitrina.trace.telemetry"), run_id, thread_id, records, result
            )
            return list(sink.get_finished_spans())
        finally:
            sink.clear()


def _record_run(
    tracer: Any,
    run_id: str,
    thread_id: str,
    records: list[StepRecord],
    result: Mapping[str, Any],
) -> None:
    start = min((r.started_at for r in records), default=time.time())
    end = max((r.started_at + r.ms / 1000 for r in records), default=start)
    root = tracer.start_span(
        "ask", start_time=_ns(start), attributes=run_attributes(run_id, thread_id, result)
    )
    parent = set_span_in_context(root)
    for record in records:
        attrs = step_attributes(record)
        span = tracer.start_span(
            record.step, context=parent, start_time=_ns(record.started_at), attributes=attrs
        )
        for event in _events(record.trace):
            span.add_event(
                event.message, attributes=_event_attributes(event), timestamp=_ns(event.ts)
            )
        if attrs["vitrina.status"] == "error":
            span.set_status(Status(StatusCode.ERROR, "the step recorded an error event"))
        span.end(end_time=_ns(record.started_at + record.ms / 1000))
    if result.get("status") == "failed":
        root.set_status(Status(StatusCode.ERROR, "the run failed"))
    root.end(end_time=_ns(end))
