"""A scripted model behind a real OpenAI-compatible HTTP server: it answers every task of
the ask model path like an uncritical model would, and writes the SQL it is given.

The server is tests/llm/openai_server.py (standard library, streaming and JSON mode like a
real endpoint); this module only decides each reply. The task of a request is recognised
by the first line of its prompt template (vitrina/ask/llm/prompts/*.md), as a real model
sees nothing else. Replies: the first topic offered, "not ambiguous", "feasible", the tables
of the prompt's list that the SQL reads, the given SQL, "answers the question", a wording
without numbers, no chart.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

from llm.openai_server import OpenAIServer, ServerState, serve  # noqa: E402

PROMPTS = ROOT / "src" / "vitrina" / "ask" / "llm" / "prompts"
LISTED = re.compile(r"^- ([\w.\"`]+):", re.MULTILINE)

__all__ = ["ModelAnswering", "OpenAIServer", "scripted_server_state", "serve"]


def _first_lines() -> dict[str, str]:
    """Task -> the first line of its prompt (what identifies it in a request)."""
    marks = {}
    for path in sorted(PROMPTS.glob("*.md")):
        line = next(
            (s.strip() for s in path.read_text(encoding="utf-8").splitlines() if s.strip()), ""
        )
        marks[path.stem] = line.split("{{")[0].strip()[:60]
    return marks


class ModelAnswering:
    """Stands where ServerState.replies is: each pop reads the request being answered."""

    def __init__(self, state: ServerState) -> None:
        self.state = state
        self.sql = ""
        self.marks = _first_lines()

    def __bool__(self) -> bool:
        return True

    def task(self, text: str) -> str | None:
        return next((task for task, mark in self.marks.items() if mark and mark in text), None)

    def popleft(self) -> str:
        body = self.state.requests[-1].body or {}
        text = "\n".join(str(m.get("content") or "") for m in body.get("messages", []))
        return json.dumps(self.reply(self.task(text), text), ensure_ascii=False)

    def reply(self, task: str | None, text: str) -> dict[str, Any]:
        listed = LISTED.findall(text)
        if task == "topic":
            return {"topic": listed[0] if listed else "", "confidence": 0.9}
        if task == "tables":
            sql = self.sql.lower()
            tables = [t for t in listed if t.rsplit(".", 1)[-1].lower() in sql]
            return {"tables": tables or listed[:1], "reason": "the tables the query reads"}
        if task == "sql_generation":
            return {"sql": self.sql, "explanation": "as asked", "confidence": 0.9}
        return {
            "ambiguity": {"ambiguous": False},
            "feasibility": {"feasible": True},
            "semantic_check": {"answers_question": True},
            "period": {"span": None},
            "answer": {"text": "The answer is in the table."},
            "chart": {"kind": "none"},
            "dialog_summary": {"summary": "analytics questions"},
        }.get(task or "", {"answers_question": True})


def scripted_server_state() -> tuple[ServerState, ModelAnswering]:
    state = ServerState(models=["scripted"], single_model=True)
    answering = ModelAnswering(state)
    state.replies = answering  # type: ignore[assignment]
    return state, answering
