"""The docs job's model slots, over vitrina.llm: the free-text measure list and the wording.

Both slots are optional (`vitrina docs --llm`); each has its rule result as the fallback:
the regex list parser, and the rules' explanation. Each call runs on its own turn budget,
and the client's breaker keeps a hanging endpoint from costing every measure its timeout.
The wording pass may not change names or numbers: a reworded text that drops a bracketed
name of the rules text, or brings a number the rules text does not hold, is rejected.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from vitrina.docs.measure_list import MeasureList
from vitrina.docs.writer.explain import Explainer, ExplainRequest
from vitrina.llm.client import LLMClient
from vitrina.llm.prompts import PromptLibrary

PROMPTS = PromptLibrary("vitrina.docs.prompts")
LANGUAGES = {"ru": "Russian", "en": "English"}
_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")
_NAME = re.compile(r"\[[^\]]+\]")


class SlotFailed(RuntimeError):
    """The model gave nothing usable; the caller's rule path answers (and traces why)."""


def measure_list_slot(client: LLMClient) -> Callable[[str], dict[str, Any]]:
    """text -> MeasureList as a dict; raises SlotFailed so measure_list_from_text uses the regex."""

    def parse(text: str) -> dict[str, Any]:
        reply = client.turn().structured(
            "docs_measure_list", PROMPTS.render("docs_measure_list", text=text), MeasureList
        )
        if reply.value is None:
            raise SlotFailed(reply.error or "no reply")
        return reply.value.model_dump()

    return parse


def explain_slot(client: LLMClient) -> Explainer:
    """ExplainRequest -> a reworded explanation, keeping the rules text's names and numbers."""

    def explain(request: ExplainRequest) -> str:
        prompt = PROMPTS.render(
            "docs_explain",
            measure=request.measure,
            rules_text=request.rules_text,
            language=LANGUAGES.get(request.lang, request.lang),
        )
        reply = client.turn().text("docs_explain", prompt)
        if not reply.ok or reply.cut:
            raise SlotFailed(reply.error or "the reworded text was cut at max_tokens")
        worded = reply.text.strip()
        missing = set(_NAME.findall(request.rules_text)) - set(_NAME.findall(worded))
        invented = set(_NUMBER.findall(worded)) - set(_NUMBER.findall(request.rules_text))
        if missing or invented:
            raise SlotFailed(
                f"the rewording changed facts (names lost: {sorted(missing)}, "
                f"numbers added: {sorted(invented)})"
            )
        return worded

    return explain
