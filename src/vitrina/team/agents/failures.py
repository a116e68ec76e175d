"""When a role's model fails: what counts as a failure, and how the team says so.

A role's model may time out, find its endpoint's breaker open, answer garbage or write
numbers it never read. In each case the rules' comment stands alone (nothing of the model's
text is published as notes), and the failure is not silent: the coordinator writes a comment
on the task naming the role and the reason, the audit log keeps it (action
``model_failure``), the CLI prints a line and ``vitrina build --json`` carries it in
``model_failures`` (decision 208).

The garbage check is a few bounded, deterministic measures of the text (letters, words,
repetition, the build's script); it catches a broken model or a proxy's error page, not a
weak argument: the reviewers judge the work, and the rules build it.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from decimal import Decimal
from typing import Any

from vitrina.present.numbers import numbers_in_text
from vitrina.team.context import BuildContext

WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
CYRILLIC = re.compile(r"[а-яёА-ЯЁ]")
LATIN = re.compile(r"[a-zA-Z]")
VOWELS = set("aeiouyаеёиоуыэюя")
SMALL = Decimal(12)  # list items and months: "1.", "3 графика" are not figures
CHECKED_CHARS = 20_000  # the checks read at most this much of a reply
KINDS_RU = {
    "timeout": "время ответа вышло",
    "breaker_open": "автомат конечной точки разомкнут",
    "unreachable": "конечная точка недоступна",
    "server_error": "ошибка сервера модели",
    "invalid_reply": "ответ не по протоколу",
    "budget_spent": "бюджет хода исчерпан",
    "garbage": "бессмысленный ответ",
    "rejected_words": "числа не из данных",
    "no_words": "модель ничего не написала",
    "error": "ошибка",
}
KINDS_EN = {
    "timeout": "timed out",
    "breaker_open": "the endpoint's breaker is open",
    "unreachable": "the endpoint is unreachable",
    "server_error": "the model's server failed",
    "invalid_reply": "a reply outside the protocol",
    "budget_spent": "the turn's budget was spent",
    "garbage": "a garbage reply",
    "rejected_words": "numbers not from the data",
    "no_words": "the model wrote nothing",
    "error": "an error",
}


@dataclass(frozen=True)
class ModelFailure:
    """One role's model that gave nothing publishable on one task."""

    role: str
    task_id: int
    kind: str  # vitrina.llm.budget.MISS_KINDS, or garbage, rejected_words, no_words
    detail: str

    def reason(self, lang: str) -> str:
        words = KINDS_RU if lang == "ru" else KINDS_EN
        return f"{words.get(self.kind, self.kind)} ({self.detail[:300]})"

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def garbage(text: str, lang: str, read: list[str] | None = None) -> str | None:
    """Why ``text`` is not words in the build's language, or None when it reads as words.

    Words quoted from ``read`` (what the model was given: tool results, the rules' comment)
    count as words whatever their script: a Russian note may quote an English tool reply.

    >>> garbage("Витрина собрана: три карточки и два графика по месяцам.", "ru")
    >>> garbage("xqzv kjhgf ##!! @@ 0x3f zzzz", "ru")
    'not in Russian: 0 of 15 letters are Cyrillic'
    >>> garbage("ok ok ok ok ok ok ok ok ok ok", "en")
    'one word repeated: 1 distinct of 10 words'
    """
    text = text[:CHECKED_CHARS]
    visible = [c for c in text if not c.isspace()]
    letters = [c for c in visible if c.isalpha()]
    if visible and len(letters) / len(visible) < 0.5:
        return f"mostly not letters: {len(letters)} of {len(visible)} characters"
    words = [w.lower() for w in WORD.findall(text)]
    if not words:  # a short note ("Замечаний нет.") is words; no word at all is not
        return "no word"
    if len(words) >= 8 and len(set(words)) / len(words) < 0.3:
        return f"one word repeated: {len(set(words))} distinct of {len(words)} words"
    known = {w.lower() for source in read or [] for w in WORD.findall(source[: CHECKED_CHARS * 5])}
    words = [w for w in words if w not in known]
    if not words:
        return None  # every word quoted from what it read
    letters = [c for w in words for c in w]
    script, name = (CYRILLIC, "Cyrillic") if lang == "ru" else (LATIN, "Latin")
    own = sum(1 for c in letters if script.match(c))
    if own / len(letters) < 0.3:
        language = "Russian" if lang == "ru" else "English"
        return f"not in {language}: {own} of {len(letters)} letters are {name}"
    long = [w for w in words if len(w) >= 4]
    voiceless = [w for w in long if not VOWELS & set(w)]
    if long and len(voiceless) / len(long) > 0.5:
        return f"not words: {len(voiceless)} of {len(long)} have no vowel"
    return None


def foreign_numbers(text: str, read: list[str], lang: str) -> list[Decimal]:
    """The numbers of ``text`` found in none of the texts the model was given (principle 2:
    numbers come only from data). Small whole numbers (list items, months) pass.

    >>> foreign_numbers("Выручка 1 234,5 за 2025 год, 3 графика", ["total 1234.5 in 2025"], "ru")
    []
    >>> foreign_numbers("Revenue 9,999 in 2025", ["2025"], "en")
    [Decimal('9999')]
    """
    seen: set[Decimal] = set()
    for source in read:
        for style in ("ru", "en"):
            seen.update(n.normalize() for n in numbers_in_text(source[: CHECKED_CHARS * 5], style))
    out: list[Decimal] = []
    for number in numbers_in_text(text[:CHECKED_CHARS], lang):
        small = number == number.to_integral_value() and abs(number) <= SMALL
        if not small and number.normalize() not in seen and number not in out:
            out.append(number)
    return out


def report(ctx: BuildContext, failures: list[ModelFailure], key: str) -> None:
    """The coordinator's comment on each failure's task, its audit entry and its event; once
    per comment key (a resumed build does not say it twice)."""
    for n, failure in enumerate(failures):
        task = ctx.store.get_task(failure.task_id)
        if task is None:  # pragma: no cover - the task the role just worked on
            continue
        body = (
            f"Модель роли {failure.role} не дала заметок: {failure.reason('ru')}. "
            "Работа сделана по правилам."
            if ctx.lang == "ru"
            else f"The model of {failure.role} gave no notes: {failure.reason('en')}. "
            "The work was done by the rules."
        )
        _, created = ctx.store.add_comment(
            task_id=task.id,
            key=f"model-failure:{key}:{n}",
            author="coordinator",
            text=body,
            round=task.round,
            handoff=None,
            verdict=None,
            problems=[],
        )
        if not created:
            continue
        ctx.store.audit(
            build_id=ctx.build.id,
            actor="coordinator",
            action="model_failure",
            outcome=failure.kind,
            task_id=task.id,
            role=failure.role,
            detail=failure.detail[:500],
        )
        ctx.emit(
            "model_failure",
            role=failure.role,
            task_id=task.id,
            failure=failure.kind,
            reason=failure.reason(ctx.lang),
        )


def failures_of(store: Any, build_id: int) -> list[dict[str, Any]]:
    """The build's model failures from its audit log: for `vitrina build --json` and the CLI."""
    return [
        {
            "role": e.detail.get("role"),
            "task_id": e.task_id,
            "kind": e.outcome,
            "detail": e.detail.get("detail", ""),
        }
        for e in store.audit_log(build_id)
        if e.action == "model_failure"
    ]
