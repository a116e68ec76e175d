"""Intent by rules: which role a request goes to. Ask when unsure.

Rules are ordered regexes over the normalised text; the first group that matches wins.
A model (when configured) is asked only when no rule matched, and its answer is parsed
into the same Literal; on any failure the rule answer ("ask") stands.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pydantic import BaseModel

from vitrina.language.text import normalize
from vitrina.route.state import INTENTS, Intent
from vitrina.trace import Trace

if TYPE_CHECKING:
    from vitrina.llm import ModelSlots

RULES: tuple[tuple[Intent, str, tuple[str, ...]], ...] = (
    (
        "docs",
        "documentation of a measure",
        (
            r"\bдокументац\w*\b.*\b(мер[аыеу]?|measure)",
            r"\bзадокументир\w*",
            r"\blineage\b",
            r"\bлинидж\w*",
            r"\bdocument(ation)?\b.*\bmeasures?\b",
            r"\bdocs? for\b.*\[",
            r"\bчто считает мера\b",
            r"\bформул\w* мер\w*",
            r"\bdax\b",
        ),
    ),
    (
        "task",
        "a multi-step task",
        (
            r"^(задача|task)\s*:",
            r"\bпо шагам\b",
            r"\bпошагов\w*",
            r"\bмногошагов\w*",
            r"\bstep[- ]by[- ]step\b",
            r"\bmulti-?step\b",
            r"\bсоставь план\b",
            r"\bплан анализа\b",
            r"\bmake a plan\b",
            r"\bplan (an|the) analysis\b",
            # analysis past one query: a forecast, finding where a change happened, chained actions
            r"\bпрогноз\w*",
            r"\bforecast\w*",
            r"\bнайди,? где\b",
            r"\bfind (out )?where\b",
            r"\bпроанализируй\b",
            r"\banaly[sz]e\b.*\band\b",
            r"\bсравни\b.*\b(и|затем|потом)\b.*\b(найди|посчитай|сделай)\b",
            r"\bcompare\b.*\b(and|then)\b.*\b(find|compute|make)\b",
        ),
    ),
    (
        "general",
        "help or small talk",
        (
            r"^(привет|здравствуй\w*|добрый (день|вечер)|hi|hello|hey)\b[\s!.,?]*$",
            r"\bчто ты умеешь\b",
            r"\bкто ты\b",
            r"^(помощь|справка|help)\b",
            r"\bwhat can you do\b",
            r"\bwho are you\b",
            r"\bкак тобой пользоваться\b",
            r"\bhow do i use\b",
            r"^спасибо\b",
            r"^thanks?\b",
        ),
    ),
    (
        "metadata",
        "a metadata search",
        (
            r"\bнайди\b.*\b(таблиц|регистр|пол[еяю]|пол[еь]|данн|метаданн|справочник|документ|мер[уы])",
            r"\bметаданн\w*",
            r"\bгде (хранится|хранятся|лежит|лежат|находится|находятся|искать)\b",
            r"\bв как(ой|их) (таблиц|регистр)\w*",
            r"\bкаки[ея] (таблиц|регистр|пол|пол[ея]|данные|измерени|справочник|документ|меры)\w*",
            r"\bкакой регистр\b",
            r"\bwhere (is|are)\b.*\b(stored|kept|held)\b",
            r"\bwhich (tables?|registers?|columns?|fields?)\b",
            r"\bwhat (tables|registers|columns|fields|data)\b",
            r"\bfind (the )?(tables?|registers?|columns?|metadata|fields?)\b",
            r"\bmetadata\b",
            r"\bsearch the catalog\b",
        ),
    ),
    (
        "report",
        "a report request",
        (
            r"\bотч[её]т\w*",
            r"\breport\b",
            r"\bсформируй\b",
            r"\bпострой\b",
            r"\bbuild (me )?a\b",
            r"\bсделай выгрузк\w*",
        ),
    ),
)
HANDOFF = re.compile(r"\b(отч[её]т\w*|report|построй|сформируй|запрос 1с|1c query)\b")


@dataclass
class IntentDecision:
    intent: Intent
    reason: str
    source: str  # rules | model | default
    handoff: bool = False  # a metadata search that also asks for a report


class IntentChoice(BaseModel):
    """What a model may answer when rules are unsure."""

    intent: Intent
    reason: str = ""


def classify_rules(request: str) -> IntentDecision | None:
    norm = normalize(request).strip()
    for intent, reason, patterns in RULES:
        for pattern in patterns:
            if re.search(pattern, norm):
                handoff = intent == "metadata" and bool(HANDOFF.search(norm))
                return IntentDecision(intent, f"{reason}: /{pattern}/", "rules", handoff)
    return None


def classify(
    request: str, *, llm: ModelSlots | None = None, trace: Trace | None = None
) -> IntentDecision:
    """Rules first; a model slot when no rule matched; "ask" when still unsure."""
    trace = trace or Trace("classify")
    decided = classify_rules(request)
    if decided is not None:
        return decided
    if llm is not None:
        reply = llm.structured(
            "route_intent",
            [
                {
                    "role": "system",
                    "content": "Classify the analytics request into one of: " + ", ".join(INTENTS),
                },
                {"role": "user", "content": request},
            ],
            IntentChoice,
            trace=trace,
        )
        if reply.value is not None:  # IntentChoice validates the Literal: only known intents pass
            return IntentDecision(reply.value.intent, reply.value.reason or "model", "model")
        trace.suppressed("model intent classification failed: the rule default", error=reply.error)
    return IntentDecision("ask", "no rule matched: a data question by default", "default")
