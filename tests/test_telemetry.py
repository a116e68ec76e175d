"""Telemetry: spans per step to a JSON-lines file, to Langfuse over real OTLP/HTTP, or off."""

from __future__ import annotations

import base64
import json
import logging
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest

from vitrina.trace import Trace
from vitrina.trace.telemetry import StepRecord, export_run, jsonl_path, telemetry_target

SQL = "SELECT COUNT(*) FROM dwh.fact_wallet_opening"


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in (
        "LANGFUSE_PUBLIC_KEY",
        "LANGFUSE_SECRET_KEY",
        "LANGFUSE_HOST",
        "VITRINA_TELEMETRY",
        "VITRINA_TELEMETRY_FILE",
    ):
        monkeypatch.delenv(key, raising=False)


def _steps() -> list[StepRecord]:
    t0 = time.time() - 1
    topic = Trace("detect_topic")
    topic.branch("topic chosen", topic="wallets", score=4.0)
    gen = Trace("generate_sql")
    gen.error("compile error", attempt=1, errors=["column open_dt does not exist"])
    gen.measurement(
        "sql generated",
        attempt=2,
        sql=SQL,
        explanation="count the openings",
        confidence=0.8,
        model="qwen2.5:7b",
    )
    answer = Trace("answer")
    answer.branch("answer written", answer="Открыто 1 234 кошелька.", columns=["wallets_opened"])
    return [
        StepRecord("detect_topic", t0, 2.5, topic.events),
        StepRecord("generate_sql", t0 + 0.01, 120.0, gen.events),
        StepRecord("answer", t0 + 0.2, 3.0, answer.events),
    ]


RESULT = {
    "question": "Сколько кошельков открыли?",
    "status": "answered",
    "sql": SQL,
    "answer": "Открыто 1 234 кошелька.",
    "topic": "wallets",
    "tags": ["suppressed_errors"],
}


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({}, "jsonl"),
        ({"LANGFUSE_PUBLIC_KEY": "pk"}, "jsonl"),
        ({"LANGFUSE_PUBLIC_KEY": "pk", "LANGFUSE_SECRET_KEY": "sk"}, "langfuse"),
        (
            {
                "LANGFUSE_PUBLIC_KEY": "pk",
                "LANGFUSE_SECRET_KEY": "sk",
                "VITRINA_TELEMETRY": "jsonl",
            },
            "jsonl",
        ),
        (
            {"LANGFUSE_PUBLIC_KEY": "pk", "LANGFUSE_SECRET_KEY": "sk", "VITRINA_TELEMETRY": "off"},
            "off",
        ),
        ({"VITRINA_TELEMETRY": "OFF"}, "off"),
    ],
)
def test_telemetry_target(env: dict[str, str], expected: str) -> None:
    assert telemetry_target(env) == expected


def test_jsonl_one_line_per_span_with_events(_isolated_home: Path) -> None:
    assert telemetry_target() == "jsonl"
    export_run("run1", "thread1", _steps(), RESULT)
    path = _isolated_home / "telemetry" / "traces.jsonl"
    assert jsonl_path() == path
    spans = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert [s["name"] for s in spans] == ["detect_topic", "generate_sql", "answer", "ask"]
    root = spans[-1]
    assert root["parent_id"] is None and all(s["parent_id"] == root["span_id"] for s in spans[:-1])
    assert len({s["trace_id"] for s in spans}) == 1
    assert (
        root["attributes"]["session.id"] == "thread1"
        and root["attributes"]["vitrina.run_id"] == "run1"
    )
    assert root["attributes"]["langfuse.trace.output"] == "Открыто 1 234 кошелька."
    gen = spans[1]
    assert gen["attributes"]["vitrina.sql"] == SQL
    assert gen["attributes"]["vitrina.llm.explanation"] == "count the openings"
    assert gen["attributes"]["vitrina.llm.confidence"] == 0.8
    assert gen["attributes"]["vitrina.retries"] == 1
    assert gen["attributes"]["vitrina.validation_errors"] == ["column open_dt does not exist"]
    assert gen["attributes"]["vitrina.status"] == "error" and gen["status"] == "error"
    assert gen["duration_ms"] == pytest.approx(120.0, abs=0.01)
    assert [e["name"] for e in gen["events"]] == ["compile error", "sql generated"]
    assert gen["events"][0]["attributes"]["vitrina.kind"] == "error"
    assert gen["events"][0]["attributes"]["data.errors"] == ["column open_dt does not exist"]
    assert spans[0]["attributes"]["vitrina.status"] == "ok"
    assert spans[2]["attributes"]["vitrina.answer"] == "Открыто 1 234 кошелька."
    export_run("run2", "thread1", _steps(), RESULT)
    assert len(path.read_text(encoding="utf-8").splitlines()) == 8  # appended, never rewritten


def test_steps_without_start_times_and_events_as_dicts(tmp_path: Path, monkeypatch) -> None:
    """AskService.stream's StepEvent has no start time; checkpointed events may be plain dicts."""
    monkeypatch.setenv("VITRINA_TELEMETRY_FILE", str(tmp_path / "t.jsonl"))

    class StepEvent:
        def __init__(self, step: str, ms: float, trace: list) -> None:
            self.step, self.ms, self.trace = step, ms, trace

    events = [e.model_dump(mode="json") for e in _steps()[1].trace]
    export_run(
        "r", "t", [StepEvent("start_turn", 1.0, []), StepEvent("generate_sql", 5.0, events)], {}
    )
    spans = [json.loads(x) for x in (tmp_path / "t.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [s["name"] for s in spans] == ["start_turn", "generate_sql", "ask"]
    assert spans[0]["end_ns"] <= spans[1]["start_ns"]


class _Collector(BaseHTTPRequestHandler):
    requests: ClassVar[list[tuple[str, dict[str, str], bytes]]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        type(self).requests.append((self.path, dict(self.headers), body))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args) -> None:
        return None


@pytest.fixture
def otlp_server():
    _Collector.requests = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Collector)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", _Collector.requests
    server.shutdown()
    server.server_close()


def test_langfuse_gets_otlp_with_basic_auth(otlp_server, monkeypatch, _isolated_home: Path) -> None:
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    host, requests = otlp_server
    monkeypatch.setenv("LANGFUSE_PUBLIC_KEY", "pk-lf-test")
    monkeypatch.setenv("LANGFUSE_SECRET_KEY", "sk-lf-test")
    monkeypatch.setenv("LANGFUSE_HOST", host + "/")
    assert telemetry_target() == "langfuse"
    export_run("run1", "thread1", _steps(), RESULT)
    assert len(requests) == 1  # one request per run, not one per span
    path, headers, body = requests[0]
    headers = {k.lower(): v for k, v in headers.items()}
    assert path == "/api/public/otel/v1/traces"
    assert (
        headers["authorization"] == "Basic " + base64.b64encode(b"pk-lf-test:sk-lf-test").decode()
    )
    assert headers["content-type"] == "application/x-protobuf"
    assert headers["x-langfuse-ingestion-version"] == "4"
    request = ExportTraceServiceRequest()
    request.ParseFromString(body)
    spans = [s for rs in request.resource_spans for ss in rs.scope_spans for s in ss.spans]
    assert sorted(s.name for s in spans) == ["answer", "ask", "detect_topic", "generate_sql"]
    gen = next(s for s in spans if s.name == "generate_sql")
    assert [e.name for e in gen.events] == ["compile error", "sql generated"]
    attrs = {a.key: a.value.string_value for a in gen.attributes}
    assert attrs["vitrina.sql"] == SQL
    assert not (_isolated_home / "telemetry" / "traces.jsonl").exists()


def test_langfuse_down_is_a_warning_not_an_error(monkeypatch, caplog) -> None:
    import socket

    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("LANGFUSE_PUBLIC_KEY", "pk")
    monkeypatch.setenv("LANGFUSE_SECRET_KEY", "sk")
    monkeypatch.setenv("LANGFUSE_HOST", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("VITRINA_TELEMETRY_TIMEOUT_S", "1")
    with caplog.at_level(logging.WARNING):
        export_run("run1", "thread1", _steps(), RESULT)  # must not raise
    assert any("telemetry" in r.getMessage() and "run1" in r.getMessage() for r in caplog.records)


def test_broken_input_is_a_warning_not_an_error(caplog) -> None:
    with caplog.at_level(logging.WARNING):
        export_run(
            "run1", "thread1", [StepRecord("x", time.time(), 1.0, [{"nonsense": True}])], RESULT
        )
    assert any("not exported" in r.getMessage() for r in caplog.records)


def test_off_switch_writes_and_sends_nothing(
    otlp_server, monkeypatch, _isolated_home: Path
) -> None:
    host, requests = otlp_server
    monkeypatch.setenv("VITRINA_TELEMETRY", "off")
    export_run("run1", "thread1", _steps(), RESULT)
    monkeypatch.setenv("LANGFUSE_PUBLIC_KEY", "pk")
    monkeypatch.setenv("LANGFUSE_SECRET_KEY", "sk")
    monkeypatch.setenv("LANGFUSE_HOST", host)
    export_run("run2", "thread1", _steps(), RESULT)
    assert requests == []
    assert not (_isolated_home / "telemetry").exists()


def test_resource_is_what_resource_create_gives(monkeypatch) -> None:
    """The resource made without Resource.create's thread pool has its attributes."""
    from opentelemetry.sdk.resources import Resource

    from vitrina.trace.telemetry.spans import _resource

    monkeypatch.setenv("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment=prod,team=bi")
    expected = Resource.create({"service.name": "vitrina-ask"}).attributes
    assert dict(_resource("vitrina-ask").attributes) == dict(expected)


def test_a_run_exported_while_the_interpreter_exits_is_kept(tmp_path: Path, demo_db) -> None:
    """A library user who never closes the service: the last run is exported at exit (it
    was lost with "cannot schedule new futures after interpreter shutdown")."""
    import os
    import subprocess
    import sys

    target = tmp_path / "runs.jsonl"
    script = (
        "from datetime import date\n"
        "from vitrina.ask import AskService\n"
        "from vitrina.config import load_settings\n"
        f"s = load_settings(db_url='duckdb:///{demo_db}')\n"
        "service = AskService(s, use_llm=False, write_files=False, today=date(2026, 11, 30))\n"
        "print(service.ask('Сколько кошельков открыли в мае 2025?').run_id)\n"
    )
    env = {**os.environ, "VITRINA_HOME": str(tmp_path / "home")}
    env.update(VITRINA_TELEMETRY="jsonl", VITRINA_TELEMETRY_FILE=str(target))
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "not exported" not in done.stderr, done.stderr
    run_id = done.stdout.split()[-1]
    spans = [json.loads(line) for line in target.read_text(encoding="utf-8").splitlines()]
    assert spans and run_id in json.dumps(spans)
