"""Where spans go: a local JSON-lines file, or Langfuse's OTLP HTTP endpoint.

The JSON-lines exporter is ours (a dozen lines) so the default needs no collector and
the file can be read with `jq` or loaded into DuckDB. Langfuse receives standard OTLP
(protobuf over HTTP) with basic auth, as its OpenTelemetry docs describe.
"""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

DEFAULT_LANGFUSE_HOST = "https://cloud.langfuse.com"
LANGFUSE_PATH = "/api/public/otel/v1/traces"


def _hex(value: int, width: int) -> str:
    return format(value, f"0{width}x")


def span_to_dict(span: ReadableSpan) -> dict[str, Any]:
    """One span as plain JSON: ids in hex, times in ns and ms, attributes and events."""
    ctx = span.get_span_context()
    start, end = span.start_time or 0, span.end_time or 0
    return {
        "trace_id": _hex(ctx.trace_id, 32) if ctx else None,
        "span_id": _hex(ctx.span_id, 16) if ctx else None,
        "parent_id": _hex(span.parent.span_id, 16) if span.parent else None,
        "name": span.name,
        "start_ns": start,
        "end_ns": end,
        "duration_ms": round((end - start) / 1e6, 3),
        "status": span.status.status_code.name.lower(),
        "attributes": dict(span.attributes or {}),
        "events": [
            {"name": e.name, "ts_ns": e.timestamp, "attributes": dict(e.attributes or {})}
            for e in span.events
        ],
    }


class JsonlSpanExporter(SpanExporter):
    """Appends one JSON object per span to a file (UTF-8, Cyrillic kept readable)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        lines = "".join(
            json.dumps(span_to_dict(s), ensure_ascii=False, default=str) + "\n" for s in spans
        )
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as fh:
                fh.write(lines)
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        return None

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True


def langfuse_endpoint(env: Mapping[str, str]) -> str:
    host = (
        env.get("LANGFUSE_HOST") or env.get("LANGFUSE_BASE_URL") or DEFAULT_LANGFUSE_HOST
    ).rstrip("/")
    return host + LANGFUSE_PATH


def langfuse_headers(env: Mapping[str, str]) -> dict[str, str]:
    """Basic auth with the public key as user and the secret key as password."""
    token = base64.b64encode(
        f"{env['LANGFUSE_PUBLIC_KEY']}:{env['LANGFUSE_SECRET_KEY']}".encode()
    ).decode()
    return {"Authorization": f"Basic {token}", "x-langfuse-ingestion-version": "4"}


def langfuse_exporter(env: Mapping[str, str], timeout_s: float) -> SpanExporter:
    """An OTLP/HTTP exporter aimed at Langfuse (imported lazily: only this path needs it)."""
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    return OTLPSpanExporter(
        endpoint=langfuse_endpoint(env), headers=langfuse_headers(env), timeout=timeout_s
    )
