"""The board's monitor while the server runs (issue 31 item 7): the real app's lifespan
starts a bounded loop that scans every open build each `monitor_interval_s`, raises each
stale-task signal once (a board comment, an audit entry, one notification to a real local
webhook) however many passes see it, and stops with the server."""

from __future__ import annotations

import json
import os
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

from fastapi.testclient import TestClient

from vitrina.server import ServeOptions, create_app
from vitrina.team import board_url

from .conftest import make_env
from .test_people import blocked_task


def _webhook() -> tuple[HTTPServer, list[dict]]:
    got: list[dict] = []

    class Hook(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            got.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            return

    server = HTTPServer(("127.0.0.1", 0), Hook)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, got


def _monitor_comments(env, task_id: int) -> list[str]:
    return [c.text for c in env.store.comments(task_id) if c.text.startswith("[monitor]")]


def test_the_served_app_raises_each_stale_signal_once_and_stops_with_the_server(
    make_service, tmp_path: Path
) -> None:
    home = Path(os.environ["VITRINA_HOME"])
    env = make_env(board_url(None, home), tmp_path)
    task, _blocker = blocked_task(env)
    done = make_env(board_url(None, home), tmp_path, key="finished")  # a closed build: not scanned
    old, _ = blocked_task(done)
    done.store.update_build(done.build.id, status="done", result={})
    hook, got = _webhook()
    service = make_service(
        monitor_interval_s=0.1,
        monitor_blocked_s=0.0,
        monitor_review_s=3600.0,
        monitor_idle_s=3600.0,
        notify_webhook_url=f"http://127.0.0.1:{hook.server_port}/hook",
    )
    app = create_app(service.settings, ServeOptions(), service=service)
    try:
        with TestClient(app) as client:
            assert client.get("/healthz").status_code == 200
            monitor = app.state.monitor
            deadline = time.monotonic() + 20
            while not _monitor_comments(env, task) and time.monotonic() < deadline:
                time.sleep(0.05)
            passes = monitor.passes
            while monitor.passes < passes + 5 and time.monotonic() < deadline:
                time.sleep(0.05)  # several more passes over the same board
            assert monitor.passes >= passes + 5
        assert monitor._task is None  # stopped with the server
        stopped_at = monitor.passes
        time.sleep(0.3)
        assert monitor.passes == stopped_at
    finally:
        hook.shutdown()
    [comment] = _monitor_comments(env, task)
    assert "has been blocked" in comment
    signals = [a for a in env.store.audit_log(env.build.id) if a.action == "signal:blocked"]
    assert [a.task_id for a in signals] == [task]  # once, though every pass saw it
    assert _monitor_comments(done, old) == []
    assert [n["event"] for n in got] == ["signal"], got
    assert got[0]["build_id"] == env.build.id
    env.store.close()
    done.store.close()


def test_an_interval_of_zero_turns_the_monitor_off(make_service) -> None:
    service = make_service(monitor_interval_s=0)
    app = create_app(service.settings, ServeOptions(), service=service)
    with TestClient(app) as client:
        assert client.get("/healthz").status_code == 200
        time.sleep(0.2)
        assert app.state.monitor.passes == 0


def test_board_report_reads_the_same_thresholds_from_the_settings(
    tmp_path: Path, capsys, monkeypatch
) -> None:
    from tests.conftest import cli_main

    url = f"sqlite:///{tmp_path / 'board.sqlite'}"
    env = make_env(url, tmp_path)
    blocked_task(env)
    code, out = cli_main(capsys, "board", "report", "--board", url)
    assert code == 0 and "signal" not in out  # blocked for a moment, under 4 h
    monkeypatch.setenv("VITRINA_MONITOR_BLOCKED_S", "0")
    code, out = cli_main(capsys, "board", "report", "--board", url)
    assert code == 0 and "signal blocked" in out, out
    env.store.close()
