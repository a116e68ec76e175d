"""Helpers of the eval tests: a scripted model for the LLM configurations."""

from __future__ import annotations

from typing import Any


def ambiguity(messages: list[Any]) -> dict[str, Any]:
    """The scripted ambiguity detector: "May 2025 revenue" could be payments or wallets."""
    text = "\n".join(str(m.content) for m in messages)
    if "выручка за май 2025" in text.lower():
        return {
            "ambiguous": True,
            "question": "Что посчитать? / What to count?",
            "options": ["payments", "wallets"],
        }
    return {"ambiguous": False}


def scripted_model(extra: dict[str, list[Any]] | None = None, copies: int = 40) -> Any:
    """A ScriptedChatModel that answers every ask task the rule-covered cases reach."""
    from vitrina.llm.fake import ScriptedChatModel

    defaults: dict[str, Any] = {
        "ambiguity": ambiguity,
        "answer": {"text": "Ответ готов. / Done."},
        "semantic_check": {"answers_question": True},
        "topic": {"topic": "payments", "confidence": 0.9},
        "period": {"span": None},
        "chart": {"kind": "none"},
        "rewrite": {"question": ""},
    }
    scripts = {task: [reply] * copies for task, reply in defaults.items()}
    scripts.update(extra or {})
    return ScriptedChatModel(scripts)
