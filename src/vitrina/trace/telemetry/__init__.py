"""Telemetry: every run exported as OpenTelemetry spans, to Langfuse or a local file.

    export_run(run_id, thread_id, steps, result)   # never raises
    telemetry_target()                             # "langfuse" | "jsonl" | "off"

The target is chosen from the environment: VITRINA_TELEMETRY=off switches it off (and
=jsonl forces the file); LANGFUSE_PUBLIC_KEY + LANGFUSE_SECRET_KEY (+ LANGFUSE_HOST) send
spans to Langfuse over OTLP/HTTP; otherwise they are appended to
$VITRINA_HOME/telemetry/traces.jsonl. See docs/telemetry.md.

Telemetry is an observer: a failure (no SDK installed, Langfuse down, a full disk) is a
warning in the log, never an error in the run it describes.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from vitrina.trace.telemetry.records import StepRecord

log = logging.getLogger(__name__)

OFF_VALUES = {"off", "0", "false", "no", "none", "disabled"}
DEFAULT_TIMEOUT_S = 5.0

__all__ = ["StepRecord", "export_run", "jsonl_path", "telemetry_target"]


def telemetry_target(env: Mapping[str, str] | None = None) -> str:
    """Where `export_run` sends spans now: "off", "langfuse" or "jsonl"."""
    env = os.environ if env is None else env
    choice = env.get("VITRINA_TELEMETRY", "").strip().lower()
    if choice in OFF_VALUES:
        return "off"
    if choice == "jsonl":
        return "jsonl"
    if env.get("LANGFUSE_PUBLIC_KEY") and env.get("LANGFUSE_SECRET_KEY"):
        return "langfuse"
    return "jsonl"


def jsonl_path(env: Mapping[str, str] | None = None) -> Path:
    """$VITRINA_HOME/telemetry/traces.jsonl (VITRINA_TELEMETRY_FILE overrides it)."""
    env = os.environ if env is None else env
    if env.get("VITRINA_TELEMETRY_FILE"):
        return Path(env["VITRINA_TELEMETRY_FILE"]).expanduser()
    from vitrina.config import vitrina_home

    return vitrina_home() / "telemetry" / "traces.jsonl"


def _timeout(env: Mapping[str, str]) -> float:
    try:
        return float(env.get("VITRINA_TELEMETRY_TIMEOUT_S", DEFAULT_TIMEOUT_S))
    except ValueError:
        return DEFAULT_TIMEOUT_S


def export_run(
    run_id: str,
    thread_id: str,
    steps: Sequence[StepRecord],
    result: Mapping[str, Any],
    *,
    exporter: Any = None,
) -> None:
    """Export one finished run as spans (one per step, under one root). Never raises.

    `exporter` (an OpenTelemetry SpanExporter) overrides the target chosen from the
    environment; it is used as given and not shut down.
    """
    env = os.environ
    target = telemetry_target(env)
    if target == "off" and exporter is None:
        return
    try:
        from vitrina.trace.telemetry.exporters import JsonlSpanExporter, langfuse_exporter
        from vitrina.trace.telemetry.spans import build_spans

        spans = build_spans(run_id, thread_id, steps, result)
        own = exporter is None
        if own:
            exporter = (
                langfuse_exporter(env, _timeout(env))
                if target == "langfuse"
                else JsonlSpanExporter(jsonl_path(env))
            )
        try:
            outcome = exporter.export(spans)
        finally:
            if own:
                exporter.shutdown()
        if getattr(outcome, "name", "SUCCESS") != "SUCCESS":
            log.warning("telemetry: exporting run %s to %s failed", run_id, target)
    except Exception as exc:  # telemetry must never break the run it observes
        log.warning(
            "telemetry: run %s not exported (%s): %s: %s", run_id, target, type(exc).__name__, exc
        )
