"""Rule templates: a plan with real tools from the request's wording, no model needed.

Recognised (Russian and English): a comparison with last year ("сравни ... с прошлым
годом", "год к году", "vs last year"), a drop ("где падение", "where it fell"), a forecast
("прогноз на следующий квартал", "forecast next month"), shares, deviations, growth. The
data question is the request's first clause without the analysis words; the ask pipeline
answers it. Anything else: the request as one question, then the files.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from vitrina.language.detect import detect_lang
from vitrina.task.state import Step

VERBS = (r"найди|найти|определи|покажи|сделай|дай|построй|спрогнозируй|оцени|посчитай|выгрузи|сохрани|"
         r"рассчитай|find|show|make|build|forecast|estimate|save|export|compute|calculate|predict")
CLAUSE = re.compile(rf"[.;!?]\s+|,\s*(?:а\s+|и\s+|and\s+|then\s+)?(?=(?:{VERBS})\b)|\s+(?:и|and|then)\s+(?=(?:{VERBS})\b)",
                    re.I)
LEAD = re.compile(r"^\s*(?:сравни(?:те)?|сопоставь|compare)\s+", re.I)
LAST_YEAR = re.compile(r"\s*(?:\bс\s+(?:прошл|предыдущ)\w*\s+год\w*|\bгод\s+к\s+году|"
                       r"\b(?:with|to|against|vs\.?|versus)\s+(?:the\s+)?(?:last|previous|prior)\s+year|"
                       r"\byear[- ]over[- ]year|\byoy)\b", re.I)
DECLINE = re.compile(r"паден|снижен|упал|просел|просад|сократил|\bdrop|declin|\bfall|\bfell", re.I)
FORECAST = re.compile(r"прогноз|спрогнозир|forecast|predict", re.I)
SHARES = re.compile(r"\bдол[яиюе]|структур|\bshares?\b", re.I)
DEVIATION = re.compile(r"отклонен|аномал|выброс|deviat|anomal|outlier", re.I)
GROWTH = re.compile(r"\bрост|динамик|\bgrowth|\btrend", re.I)
HORIZONS = ((re.compile(r"месяц|month", re.I), 1), (re.compile(r"полугод|half", re.I), 6),
            (re.compile(r"\bгод|\byear", re.I), 12), (re.compile(r"квартал|quarter", re.I), 3))
FORECAST_TAIL = re.compile(r"(?:прогноз\w*|forecast\w*)\s+(?:на|for)?\s*(?:the\s+)?(?:следующ\w+|next)\s+(\w+)", re.I)


@dataclass(frozen=True)
class Words:
    compare: bool
    decline: bool
    forecast: bool
    shares: bool
    deviation: bool
    growth: bool
    horizon: int


def _horizon(text: str) -> int:
    tail = FORECAST_TAIL.search(text)
    if tail:
        for pattern, months in HORIZONS:
            if pattern.search(tail.group(1)):
                return months
    return 3


def read_words(request: str) -> Words:
    return Words(compare=bool(LAST_YEAR.search(request)), decline=bool(DECLINE.search(request)),
                 forecast=bool(FORECAST.search(request)), shares=bool(SHARES.search(request)),
                 deviation=bool(DEVIATION.search(request)), growth=bool(GROWTH.search(request)),
                 horizon=_horizon(request))


def base_question(request: str) -> str:
    """The data question: the first clause without "compare" and "with last year"."""
    first = next((c for c in CLAUSE.split(request.strip()) if c and c.strip()), request)
    question = LAST_YEAR.sub("", LEAD.sub("", first)).strip(" ,.")
    question = re.sub(r"\s{2,}", " ", question)
    return question[:1].upper() + question[1:] if question else request.strip()


T = {
    "data": ("Получить данные: {q}", "Get the data: {q}"),
    "last_year": ("Те же данные за тот же период прошлого года", "The same data for the same period last year"),
    "compare": ("Сравнить с прошлым годом: изменение и изменение в %", "Compare with last year: change and change %"),
    "decline": ("Найти, где падение", "Find where it fell"),
    "shares": ("Посчитать доли", "Compute the shares"),
    "deviation": ("Найти отклонения от среднего", "Find deviations from the mean"),
    "growth": ("Посчитать динамику от периода к периоду", "Compute period-over-period growth"),
    "series": ("Помесячный ряд за 24 месяца для прогноза", "A 24-month monthly series for the forecast"),
    "forecast": ("Прогноз на {h} мес. вперёд", "Forecast {h} months ahead"),
    "files": ("Сохранить результаты (Excel, CSV)", "Save the results (Excel, CSV)"),
}


def template_plan(request: str, max_steps: int, lang: str | None = None) -> list[Step]:
    """A plan of real tool calls from the request's wording."""
    lang = lang or detect_lang(request)
    li = 0 if lang == "ru" else 1
    words = read_words(request)
    question = base_question(request)
    specs: list[tuple[str, str | None, dict[str, Any]]] = [
        (T["data"][li].format(q=question), "ask", {"question": question})]
    if words.compare or words.decline:
        specs.append((T["last_year"][li], "ask", {"shift_from_step": 1, "years": 1}))
        specs.append((T["compare"][li], "analyze", {"kind": "compare", "step": 1, "other_step": 2}))
        if words.decline:
            specs.append((T["decline"][li], "analyze", {"kind": "decline", "step": 3}))
    elif words.growth and not words.forecast:
        specs.append((T["growth"][li], "analyze", {"kind": "growth", "step": 1}))
    if words.shares:
        specs.append((T["shares"][li], "analyze", {"kind": "shares", "step": 1}))
    if words.deviation:
        specs.append((T["deviation"][li], "analyze", {"kind": "deviation", "step": 1}))
    if words.forecast:
        specs.append((T["series"][li], "ask", {"series_from_step": 1, "months": 24}))
        specs.append((T["forecast"][li].format(h=words.horizon), "analyze",
                      {"kind": "forecast", "step": len(specs), "horizon": words.horizon}))
    specs = specs[: max(1, max_steps - 1)]
    specs.append((T["files"][li], "write_file", {"format": "excel", "name": "results"}))
    return [Step(n=i, title=title, tool=tool, args=args) for i, (title, tool, args) in enumerate(specs, start=1)]
