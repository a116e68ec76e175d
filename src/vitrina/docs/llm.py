"""The docs job's two model slots, wired to any OpenAI-compatible model through vitrina.llm.

- the measure-list parser: free text -> topics and measures (names must occur in the text);
- the wording pass: the rules explanation reworded, then checked by `check_wording` so it
  adds no object name or number the lineage does not hold; a rejected wording keeps the
  rules text and writes a trace event (see `writer.explain.explanation`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from vitrina.docs.measure_list import MeasureList
from vitrina.docs.writer.explain import Explainer, ExplainRequest
from vitrina.llm.prompts import PromptLibrary

PROMPTS = PromptLibrary("vitrina.docs.prompts")


def build_docs_client(settings: Any) -> Any | None:
    """The configured model's client, or None when no model is configured."""
    from vitrina.llm.factory import build_client

    return build_client(settings)


def wording_explainer(client: Any) -> Explainer:
    """The explain slot over `client` (an LLMClient, or a ModelTurn whose budget bounds a
    whole run): one text request per measure."""

    def explain(request: ExplainRequest) -> str:
        prompt = PROMPTS.render(
            "docs_explain",
            lang=request.lang,
            measure=request.measure,
            expression=request.expression,
            rules_text=request.rules_text,
        )
        reply = client.text("docs_explain", prompt)
        if not reply.ok:
            raise RuntimeError(reply.error or "the model gave no text")
        return reply.text

    return explain


def measure_list_llm(client: Any) -> Callable[[str], Any]:
    """The measure-list slot over `client`: a typed MeasureList, or an error the parser falls
    back on."""

    def parse(text: str) -> MeasureList:
        reply = client.structured(
            "docs_measure_list", PROMPTS.render("docs_measure_list", text=text), MeasureList
        )
        if reply.value is None:
            raise ValueError(reply.error or "the model gave no measure list")
        return reply.value

    return parse


_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*(?![\w])")
_NAMES = [
    re.compile(r"\[(?:[^\]]|\]\])+\]"),  # [Measure] or [Column]
    re.compile(r"'(?:[^']|'')+'"),  # 'Table'
    re.compile(r"`[^`]+`"),  # quoted code
    re.compile(r"#{1,2}\w+"),  # temp tables
    re.compile(r"\b\w+(?:\.\w+)+\b"),  # schema.object(.column)
    re.compile(r"\b[A-Za-z]+_\w+\b|\b[a-z]+[A-Z]\w*\b|\b[A-Z][a-z0-9]+[A-Z]\w*\b"),  # identifiers
]


def _facts(text: str) -> list[str]:
    """Object names and numbers in `text`, in order, each once (`e.g`, `т.е` are words)."""
    found: list[str] = []
    for pattern in (*_NAMES, _NUMBER):
        for m in pattern.finditer(text):
            token = m.group(0)
            if token not in found and not _abbreviation(token):
                found.append(token)
    return found


def _abbreviation(token: str) -> bool:
    parts = token.split(".")
    return len(parts) > 1 and all(len(p) <= 1 for p in parts)


def _holds(hay: str, token: str) -> bool:
    if token[:1].isdigit():  # a number holds only as a whole number: 37 is not in 137 or 3.7
        return any(
            re.search(rf"(?<![\w.,]){re.escape(form)}(?![\w]|[.,]\d)", hay)
            for form in {token, token.replace(",", ".")}
        )
    folded = hay.casefold()
    bare = token.strip("`'[]")
    return token.casefold() in folded or (bool(bare) and bare.casefold() in folded)


def check_wording(text: str, facts: str) -> list[str]:
    """Names and numbers in `text` that `facts` does not contain (empty: the wording is safe).

    >>> check_wording("[Sales] sums dw.Fact.Amount over 12 months", "[Sales] = SUM(dw.Fact.Amount)")
    ['12']
    """
    return [token for token in _facts(text) if not _holds(facts, token)]


def dropped_facts(text: str, expression: str) -> list[str]:
    """Names and numbers of the measure's formula that the reworded `text` lost.

    A wording that keeps none of the formula is as wrong as one that invents some; the
    lineage sections of the document stay as the rules wrote them.

    >>> dropped_facts("It adds up the money.", "SUM(dw.Fact.Amount) + [Sales]")
    ['[Sales]', 'dw.Fact.Amount']
    """
    return [token for token in _facts(expression) if not _holds(text, token)]


# what a wording may say of the formula's arithmetic and comparisons, and what the formula
# must then hold: "multiplies" over a division changes the measure as much as a wrong name
_OPERATOR_WORDS: list[tuple[str, re.Pattern[str], re.Pattern[str]]] = [
    (
        "division",
        re.compile(r"\b(divid\w*|division|quotient|дел[ие]\w*|частн\w*|разделен\w*)", re.I),
        re.compile(r"/|\bDIVIDE\s*\(", re.I),
    ),
    (
        "multiplication",
        re.compile(r"\b(multipl\w*|product of|умнож\w*|произведени\w*)", re.I),
        re.compile(r"\*"),
    ),
    (
        "subtraction",
        re.compile(r"\b(subtract\w*|minus|difference|вычит\w*|вычест\w*|разност\w*|минус)", re.I),
        re.compile(r"-"),
    ),
    (
        "addition",
        re.compile(r"\b(plus|added to|плюс|прибав\w*|сложени\w*)", re.I),
        re.compile(r"\+"),
    ),
    (
        "greater than",
        re.compile(r"\b(greater than|more than|larger than|exceed\w*|больше|превыша\w*)", re.I),
        re.compile(r">"),
    ),
    (
        "less than",
        re.compile(r"\b(less than|fewer than|smaller than|меньше)", re.I),
        re.compile(r"<(?!>)"),
    ),
]
_QUOTED = re.compile(r"\[(?:[^\]]|\]\])+\]|'(?:[^']|'')+'|\"[^\"]*\"|`[^`]+`|--[^\n]*")


def changed_operators(text: str, expression: str) -> list[str]:
    """Operators and comparisons the wording names that the formula does not hold.

    Names ([Measure], 'Table', quoted text) are left out on both sides: "[Sales per Day]"
    says nothing of a division.

    >>> changed_operators("It multiplies [Revenue] by [Orders].", "DIVIDE([Revenue], [Orders])")
    ['multiplication']
    >>> changed_operators("Revenue divided by orders.", "DIVIDE([Revenue], [Orders])")
    []
    """
    words = _QUOTED.sub(" ", text)
    formula = _QUOTED.sub(" ", expression)
    return [
        name
        for name, said, held in _OPERATOR_WORDS
        if said.search(words) and not held.search(formula)
    ]
