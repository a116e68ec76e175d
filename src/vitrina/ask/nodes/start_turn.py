"""Start of a turn: a fresh trace, a run id, the question's language."""

from __future__ import annotations

import uuid

from vitrina.ask.state import TRACE_RESET, AskState
from vitrina.language.detect import detect_lang


def start_turn(state: AskState) -> dict:
    question = (state.get("question") or "").strip()
    return {
        "trace": TRACE_RESET,
        "run_id": uuid.uuid4().hex[:12],
        "lang": detect_lang(question),
        "rewritten": question,
        "follow_up": False,
        "topic": None,
        "period": None,
        "grain": None,
        "plan": None,
        "mode": "rules",
        "llm_tables": [],
        "table_notes": None,
        "feasibility_attempts": 0,
        "semantic_attempts": 0,
        "sql_explanation": None,
        "sql_confidence": None,
        "context": {},
        "sql": None,
        "sql_attempts": 0,
        "sql_error": None,
        "sql_source": "rules",
        "result": None,
        "columns_meta": [],
        "checks": [],
        "answer": None,
        "table": None,
        "chart": None,
        "chart_png": None,
        "excel": None,
        "clarification": None,
        "chosen": {},
        "clarifications_in_row": 0,
        "reason": None,
        "status": "failed",
    }
