"""Versioned prompt files with labels, and Langfuse through its SDK (a local stub server)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import ClassVar

import pytest

from vitrina.task.prompts import LangfuseClient, PromptError, PromptStore
from vitrina.trace import Trace


def write(
    root: Path, name: str, version: int, labels: list[str], body: str = "Hello {{ who }}"
) -> None:
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"v{version}.md").write_text(
        f"---\nversion: {version}\nlabels: {json.dumps(labels)}\n"
        f"model:\n  temperature: 0.2\n---\n{body}\n",
        encoding="utf-8",
    )


def test_active_label_picks_the_version(tmp_path: Path):
    write(tmp_path, "p", 1, ["production"])
    write(tmp_path, "p", 2, ["staging"], "Hi {{ who }}")
    assert PromptStore(tmp_path, label="production").get("p").version == 1
    staged = PromptStore(tmp_path, label="staging").get("p")
    assert staged.version == 2 and staged.render(who="you").strip() == "Hi you"
    assert staged.config == {"temperature": 0.2}
    trace = Trace("t")
    assert PromptStore(tmp_path, label="nope").get("p", trace).version == 2
    assert [e.kind for e in trace.events] == ["warning", "branch"]


def test_bad_front_matter_names_the_file(tmp_path: Path):
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "v3.md").write_text("---\nversion: 2\n---\nx", encoding="utf-8")
    with pytest.raises(PromptError, match=r"v3\.md"):
        PromptStore(tmp_path).get("p")


def test_shipped_prompts_parse():
    store = PromptStore()
    for name in ("planner", "executor", "evaluator"):
        assert "production" in store.get(name).labels


class _Stub(BaseHTTPRequestHandler):
    """Langfuse's prompt endpoint: the v2 prompt body, or 404 for an unknown prompt."""

    seen: ClassVar[list[tuple[str, str | None]]] = []

    def do_GET(self):
        _Stub.seen.append((self.path, self.headers.get("Authorization")))
        known = self.path.startswith("/api/public/v2/prompts/planner?")
        body = {
            "name": "planner",
            "version": 7,
            "prompt": "Remote {{ who }}",
            "labels": ["production"],
            "config": {"temperature": 0},
            "type": "text",
            "tags": [],
        }
        self.send_response(200 if known else 404)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(json.dumps(body if known else {"message": "Prompt not found"}).encode())

    def log_message(self, *args):
        pass


@pytest.fixture
def langfuse():
    server = HTTPServer(("127.0.0.1", 0), _Stub)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _Stub.seen = []
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def client(url: str) -> LangfuseClient:
    """A client with keys of its own: the SDK shares one prompt cache per public key."""
    return LangfuseClient(url, f"pk-{url.rsplit(':', 1)[-1]}", "sk")


def test_langfuse_prompt_first(langfuse, tmp_path: Path):
    write(tmp_path, "planner", 1, ["production"])
    store = PromptStore(tmp_path, langfuse=client(langfuse))
    trace = Trace("t")
    prompt = store.get("planner", trace)
    assert (prompt.version, prompt.source, prompt.render(who="x")) == (7, "langfuse", "Remote x")
    assert prompt.config == {"temperature": 0} and prompt.labels == ("production",)
    path, auth = _Stub.seen[0]
    assert path == "/api/public/v2/prompts/planner?label=production" and auth.startswith("Basic ")
    assert trace.events[-1].data["version"] == 7
    assert store.get("planner").version == 7 and len(_Stub.seen) == 1  # the SDK's cache


def test_unknown_langfuse_prompt_falls_back_to_the_file(langfuse, tmp_path: Path):
    write(tmp_path, "executor", 1, ["production"])
    trace = Trace("t")
    prompt = PromptStore(tmp_path, langfuse=client(langfuse)).get("executor", trace)
    assert (prompt.version, prompt.source) == (1, "file")
    assert trace.events[0].kind == "suppressed" and "NotFoundError" in trace.events[0].data["error"]


def test_unreachable_langfuse_falls_back_to_the_file(tmp_path: Path):
    write(tmp_path, "planner", 2, ["production"])
    trace = Trace("t")
    prompt = PromptStore(tmp_path, langfuse=client("http://127.0.0.1:9")).get("planner", trace)
    assert (prompt.version, prompt.source) == (2, "file")
    assert trace.events[0].kind == "suppressed" and "ConnectError" in trace.events[0].data["error"]


def test_langfuse_from_env(monkeypatch):
    monkeypatch.delenv("LANGFUSE_PUBLIC_KEY", raising=False)
    assert LangfuseClient.from_env() is None
    monkeypatch.setenv("LANGFUSE_PUBLIC_KEY", "pk")
    monkeypatch.setenv("LANGFUSE_SECRET_KEY", "sk")
    monkeypatch.setenv("LANGFUSE_HOST", "http://lf.local/")
    assert LangfuseClient.from_env().host == "http://lf.local"


def test_the_sdk_loads_only_when_a_prompt_is_fetched():
    """Configured Langfuse costs nothing at start: the CLI and the store import no SDK."""
    code = (
        "import sys, vitrina.cli; from vitrina.task.prompts import PromptStore; "
        "store = PromptStore.from_env(); assert store.langfuse is not None; "
        "print('langfuse' in sys.modules)"
    )
    env = {
        "LANGFUSE_PUBLIC_KEY": "pk",
        "LANGFUSE_SECRET_KEY": "sk",
        "LANGFUSE_HOST": "http://127.0.0.1:9",
        "PATH": "",
    }
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "False"
