"""The keys a brief may use, checked with the brief's own lines before the model sees them.

A misspelt key (``kpi:`` for ``kpis:``) is answered with its line and the nearest key,
and a missing required key with what to write, in the brief's language, instead of the
model's "Extra inputs are not permitted" or "Field required".

>>> nearest("kpi", BRIEF_KEYS)
'kpis'
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

import yaml

BRIEF_KEYS = ("title", "audience", "language", "period", "by", "kpis", "filters", "notes")
KPI_KEYS = ("name", "metric", "by", "title", "description")
FILTER_KEYS = ("dimension", "values")
# words requesters write for a key, when the spelling is not close (checked first)
ALIASES = {
    "breakdown": "by",
    "group_by": "by",
    "groupby": "by",
    "разрез": "by",
    "metrics": "kpis",
    "measures": "kpis",
    "показатели": "kpis",
    "lang": "language",
    "язык": "language",
    "dates": "period",
    "date_range": "period",
    "период": "period",
    "column": "dimension",
    "value": "values",
    "name_ru": "title",
    "заголовок": "title",
}


@dataclass(frozen=True)
class KeyProblem:
    line: int
    ru: str
    en: str

    def text(self, lang: str) -> str:
        return self.ru if lang == "ru" else self.en


def nearest(key: str, known: tuple[str, ...]) -> str | None:
    """The known key closest to ``key`` (a typo, a plural, a prefix), or None."""
    folded = key.strip().lower()
    if ALIASES.get(folded) in known:
        return ALIASES[folded]
    close = difflib.get_close_matches(folded, known, n=1, cutoff=0.6)
    if close:
        return close[0]
    prefixed = [k for k in known if k.startswith(folded) or folded.startswith(k)]
    return prefixed[0] if len(folded) >= 2 and prefixed else None


def _unknown(key: str, line: int, known: tuple[str, ...], where_ru: str, where_en: str):
    guess = nearest(key, known)
    listed = ", ".join(known)
    if guess:
        return KeyProblem(
            line,
            f"строка {line}: неизвестный ключ '{key}'{where_ru} — возможно, '{guess}'?",
            f"line {line}: unknown key '{key}'{where_en} — did you mean '{guess}'?",
        )
    return KeyProblem(
        line,
        f"строка {line}: неизвестный ключ '{key}'{where_ru}; допустимые ключи: {listed}",
        f"line {line}: unknown key '{key}'{where_en}; the keys are: {listed}",
    )


def _mapping_keys(node: yaml.Node | None, offset: int) -> list[tuple[str, int, yaml.Node]]:
    if not isinstance(node, yaml.MappingNode):
        return []
    return [(str(k.value), k.start_mark.line + 1 + offset, v) for k, v in node.value]


def _items(node: yaml.Node | None) -> list[yaml.Node]:
    return list(node.value) if isinstance(node, yaml.SequenceNode) else []


def _nested(
    value: yaml.Node | None, offset: int, known: tuple[str, ...], ru: str, en: str
) -> list[KeyProblem]:
    found = []
    for item in _items(value):
        for key, line, _v in _mapping_keys(item, offset):
            if key not in known:
                found.append(_unknown(key, line, known, f" в {ru}", f" in {en}"))
    return found


def key_problems(node: yaml.Node | None, offset: int) -> list[KeyProblem]:
    """Every unknown key of the brief, its KPIs and its filters, with its line."""
    found: list[KeyProblem] = []
    for key, line, value in _mapping_keys(node, offset):
        if key not in BRIEF_KEYS:
            found.append(_unknown(key, line, BRIEF_KEYS, "", ""))
        elif key == "kpis":
            found += _nested(value, offset, KPI_KEYS, "KPI", "a KPI")
        elif key == "filters":
            found += _nested(value, offset, FILTER_KEYS, "фильтре", "a filter")
    return found


def missing_title(data: dict, lang: str) -> str | None:
    """The required ``title``, when absent: where and what to write."""
    if data.get("title"):
        return None
    if lang == "ru":
        return (
            "строка 1: нет ключа 'title' — напишите первой строкой заголовок дашборда, "
            "например: title: Платежи 2025 — обзор для правления"
        )
    return (
        "line 1: no 'title' key — write the dashboard's title as the first line, "
        "e.g. title: Payments 2025 — board review"
    )
