"""The LLM judge: asked only about disputed cases (both sides answered, results differ).

Its reply is typed (`JudgeVerdict`); a judge that fails gives None and the case keeps the
automatic verdict. Where the judge says "equivalent" the case enters the review queue.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, Field

from vitrina.llm.client import LLMClient
from vitrina.llm.prompts import PromptLibrary

PROMPTS = PromptLibrary("vitrina.eval.prompts")
TASK = "eval_judge"
ROWS_SHOWN = 20


class JudgeVerdict(BaseModel):
    equivalent: bool = Field(
        description="true when the assistant's result answers the question as the reference does"
    )
    reason: str = Field(description="one or two sentences")


def _rows(rows: list[list[Any]]) -> str:
    return (
        "\n".join(json.dumps(r, ensure_ascii=False, default=str) for r in rows[:ROWS_SHOWN])
        or "(no rows)"
    )


def judge(
    client: LLMClient,
    *,
    question: str,
    expected: list[list[Any]],
    got: list[list[Any]],
    columns: list[str],
    sql: str | None,
    diff: str,
    expected_count: int,
    got_count: int,
) -> JudgeVerdict | None:
    """The judge's verdict on one disputed case, or None when the model gave no usable reply."""
    prompt = PROMPTS.render(
        "judge",
        question=question,
        expected=_rows(expected),
        got=_rows(got),
        columns=", ".join(columns),
        sql=sql or "(none)",
        diff=diff or "(none)",
        expected_count=expected_count,
        got_count=got_count,
        rows_shown=ROWS_SHOWN,
    )
    return client.structured(TASK, prompt, JudgeVerdict).value
