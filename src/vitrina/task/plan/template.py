"""Rule templates: a plan with real tools from the request's wording, no model needed.

Recognised (Russian and English): a comparison with the period its words name ("с прошлым
годом", "к прошлому кварталу", "MoM", "vs last year": vitrina.language.periods.compare), a
drop ("где падение", "where it fell"), a forecast and its horizon ("прогноз на следующий
месяц", "на 3 месяца", "до конца года", "forecast next quarter": vitrina.task.horizon),
shares, deviations, growth. The data question is the request's first clause without the
analysis words; the ask pipeline answers it. Anything else: the request as one question,
then the files.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Any

from vitrina.language.detect import detect_lang
from vitrina.language.periods import Period
from vitrina.language.periods.compare import Comparison, find_comparison, strip_comparison
from vitrina.language.periods.pair import read_two_periods
from vitrina.query.request import plan_request
from vitrina.task.horizon import Horizon, read_horizon
from vitrina.task.state import Step
from vitrina.trace import Trace

VERBS = (
    r"найди|найти|определи|покажи|сделай|дай|построй|спрогнозируй|оцени|посчитай|выгрузи|сохрани|"
    r"рассчитай|find|show|make|build|forecast|estimate|save|export|compute|calculate|predict"
)
CLAUSE = re.compile(
    rf"[.;:!?]\s+|,\s*(?:а\s+|и\s+|and\s+|then\s+)?(?=(?:{VERBS})\b)|\s+(?:и|and|then)\s+(?=(?:{VERBS})\b)",
    re.I,
)
LEAD = re.compile(r"^\s*(?:сравни(?:те)?|сопоставь|compare)\s+", re.I)
# "сделай прогноз открытий кошельков на ...", "forecast wallet openings for ...": the verb and
# the noun
FORECAST_LEAD = re.compile(
    r"^\s*(?:(?:сделай|построй|дай|составь|подготовь|make|build|give)\s+(?:мне\s+|me\s+)?"
    r"(?:a\s+)?)?(?:прогноз\w*|спрогнозируй|forecast|predict)\s+(?:(?:of|for)\s+)?",
    re.I,
)
DECLINE = re.compile(r"паден|снижен|упал|просел|просад|сократил|\bdrop|declin|\bfall|\bfell", re.I)
# "где упали платежи ...", "where did payments fall ...": the question is about the payments
FELL_RU = r"(?:упал\w*|снизил\w*|просел\w*|сократил\w*|уменьшил\w*)"
DECLINE_LEAD = (
    re.compile(
        rf"^\s*(?:(?:найди|покажи|определи|выясни)\s*,?\s+)?(?:где|в\s+ч[её]м)\s+(?:\w+\s+)?"
        rf"{FELL_RU}\s+",
        re.I,
    ),
    re.compile(
        r"^\s*where\s+(?:did|have|has)\s+(?P<what>.+?)\s+(?:fall|fallen|drop\w*|declin\w*|"
        r"decrease\w*|go\s+down|gone\s+down)\b",
        re.I,
    ),
)
# "в каких регионах упали платежи ..." -> "платежи ... по регионам" (prepositional -> dative)
WHICH_FELL = re.compile(
    rf"^\s*в\s+как(?:их|ой|ом)\s+(?P<stem>[\wё]+?)(?P<end>ах|ях|е|и)(?P<rest>(?:\s+[\wё]+)?)\s+"
    rf"{FELL_RU}\s+(?P<what>.+?)\s*\??$",
    re.I,
)
DATIVE = {"ах": "ам", "ях": "ям", "е": "ам", "и": "ям"}
FORECAST = re.compile(r"прогноз|спрогнозир|forecast|predict", re.I)
SHARES = re.compile(r"\bдол[яиюе]|структур|\bshares?\b", re.I)
DEVIATION = re.compile(r"отклонен|аномал|выброс|deviat|anomal|outlier", re.I)
GROWTH = re.compile(r"\bрост|динамик|\bgrowth|\btrend", re.I)
SERIES_MONTHS = 24  # the history a forecast is fitted on


@dataclass(frozen=True)
class Words:
    comparison: Comparison | None
    decline: bool
    forecast: bool
    shares: bool
    deviation: bool
    growth: bool
    horizon: Horizon
    compared: Period | None = None  # a second period named outright: "за май 2026 и май 2025"

    @property
    def compare(self) -> bool:
        return self.comparison is not None or self.compared is not None


ANALYSIS_TAIL = re.compile(r",\s*(?:и\s+|and\s+)?(?:дол[яиюе]|структур|shares?\b).*$", re.I)


def _first_clause(request: str) -> str:
    """The data question: the first clause, without a trailing analysis word (", доли"), which
    is a step of its own and which the ask rules would otherwise have to read."""
    first = next((c for c in CLAUSE.split(request.strip()) if c and c.strip()), request)
    return ANALYSIS_TAIL.sub("", LEAD.sub("", first))


def named_pair(clause: str, today: date) -> tuple[str, Period] | None:
    """(the clause with one period, the period compared with) when the clause names two: the
    reading ask and route share (`language.periods.pair`), the later period asked."""
    two = read_two_periods(clause, today)
    if two is None or find_comparison(clause) is not None:
        return None
    return two.question, two.previous


def read_words(request: str, today: date | None = None) -> Words:
    today = today or date.today()
    comparison = find_comparison(request)
    pair = None if comparison else named_pair(_first_clause(request), today)
    return Words(
        comparison=comparison,
        decline=bool(DECLINE.search(request)),
        forecast=bool(FORECAST.search(request)),
        shares=bool(SHARES.search(request)),
        deviation=bool(DEVIATION.search(request)),
        growth=bool(GROWTH.search(request)),
        horizon=read_horizon(request, today),
        compared=pair[1] if pair else None,
    )


def base_question(request: str, today: date | None = None) -> str:
    """The data question: the first clause without "compare", the comparison's words, a
    second named period and the words that ask where something fell."""
    question = _first_clause(request)
    pair = None if find_comparison(question) else named_pair(question, today or date.today())
    if pair is not None:
        question = pair[0]
    which = WHICH_FELL.match(question)
    if which:
        by = which["stem"] + DATIVE[which["end"].lower()] + which["rest"]
        question = f"{which['what']} по {by}"
    question = DECLINE_LEAD[0].sub("", question)
    english = DECLINE_LEAD[1].match(question)
    if english:
        question = english.group("what") + question[english.end() :]
    if FORECAST_LEAD.match(question):  # the request is the forecast itself: its noun is the data
        horizon = read_horizon(question, date.today())
        question = FORECAST_LEAD.sub("", question)
        if horizon.words:
            question = re.sub(
                rf"\s*(?:\b(?:на|for|until|till|to)\s+)?(?:the\s+)?{re.escape(horizon.words)}",
                "",
                question,
                flags=re.I,
            )
    found = find_comparison(question)
    question = strip_comparison(question, found) if found else question
    question = re.sub(r"\s{2,}", " ", question).strip(" ,.")
    return question[:1].upper() + question[1:] if question else request.strip()


UNIT_WORDS = {
    "year": ("прошлого года", "last year"),
    "quarter": ("прошлого квартала", "the previous quarter"),
    "month": ("прошлого месяца", "the previous month"),
    "week": ("прошлой недели", "the previous week"),
    "day": ("предыдущего дня", "the previous day"),
    "period": ("предыдущего периода", "the previous period"),
}
T = {
    "data": ("Получить данные: {q}", "Get the data: {q}"),
    "last_year": (
        "Те же данные за соответствующий период {u}",
        "The same data for the matching period of {u}",
    ),
    "compare": (
        "Сравнить с периодом {u}: изменение и изменение в %",
        "Compare with {u}: change and change %",
    ),
    "named": ("Те же данные за {p}", "The same data for {p}"),
    "compare_named": (
        "Сравнить с периодом {p}: изменение и изменение в %",
        "Compare with {p}: change and change %",
    ),
    "decline": ("Найти, где падение", "Find where it fell"),
    "shares": ("Посчитать доли", "Compute the shares"),
    "deviation": ("Найти отклонения от среднего", "Find deviations from the mean"),
    "growth": ("Посчитать динамику от периода к периоду", "Compute period-over-period growth"),
    "series": (
        "Помесячный ряд для прогноза (полных месяцев: {m})",
        "A monthly series for the forecast ({m} whole months)",
    ),
    "forecast": (
        "Прогноз: {h} (после последнего полного месяца)",
        "Forecast: {h} (after the last whole month)",
    ),
    "files": ("Сохранить результаты (Excel, CSV)", "Save the results (Excel, CSV)"),
}


def template_plan(
    request: str, max_steps: int, lang: str | None = None, today: date | None = None
) -> list[Step]:
    """A plan of real tool calls from the request's wording."""
    lang = lang or detect_lang(request)
    li = 0 if lang == "ru" else 1
    words = read_words(request, today)
    question = base_question(request, today)
    specs: list[tuple[str, str | None, dict[str, Any]]] = [
        (T["data"][li].format(q=question), "ask", {"question": question})
    ]
    if words.compared is not None:
        label = words.compared.label_ru if lang == "ru" else words.compared.label_en
        specs.append(
            (
                T["named"][li].format(p=label),
                "ask",
                {
                    "shift_from_step": 1,
                    "start": words.compared.start.isoformat(),
                    "end": words.compared.end.isoformat(),
                },
            )
        )
        specs.append(
            (
                T["compare_named"][li].format(p=label),
                "analyze",
                {"kind": "compare", "step": 1, "other_step": 2},
            )
        )
        if words.decline:
            specs.append((T["decline"][li], "analyze", {"kind": "decline", "step": 3}))
    elif words.compare or words.decline:
        unit = (
            words.comparison.unit if words.comparison else "year"
        )  # a drop without words: against last year
        u = UNIT_WORDS[unit][li]
        specs.append((T["last_year"][li].format(u=u), "ask", {"shift_from_step": 1, "unit": unit}))
        specs.append(
            (
                T["compare"][li].format(u=u),
                "analyze",
                {"kind": "compare", "step": 1, "other_step": 2},
            )
        )
        if words.decline:
            specs.append((T["decline"][li], "analyze", {"kind": "decline", "step": 3}))
    elif words.growth and not words.forecast:
        specs.append((T["growth"][li], "analyze", {"kind": "growth", "step": 1}))
    if words.shares:
        specs.append((T["shares"][li], "analyze", {"kind": "shares", "step": 1}))
    if words.deviation:
        specs.append((T["deviation"][li], "analyze", {"kind": "deviation", "step": 1}))
    if words.forecast:
        specs.append(
            (
                T["series"][li].format(m=SERIES_MONTHS),
                "ask",
                {"series_from_step": 1, "months": SERIES_MONTHS},
            )
        )
        specs.append(
            (
                T["forecast"][li].format(h=words.horizon.label(lang)),
                "analyze",
                {
                    "kind": "forecast",
                    "step": len(specs),
                    "target": words.horizon.model_dump(mode="json"),
                },
            )
        )
    specs = specs[: max(1, max_steps - 1)]
    specs.append((T["files"][li], "write_file", {"format": "excel", "name": "results"}))
    return [
        Step(n=i, title=title, tool=tool, args=args)
        for i, (title, tool, args) in enumerate(specs, start=1)
    ]


def first_step_plan(
    steps: list[Step], request: str, catalog: Any, today: date, lang: str, trace: Trace
) -> list[Step]:
    """Step 1 as the request's plan read once (`vitrina.query.request`: metric, breakdowns,
    filters, segment, period; the comparison left to the derived steps), handed to ask as a
    plan like the derived steps; its question stays only as the step's displayed words.

    Where the rules cannot read the request into a plan (a forecast's or a drop's own
    wording, an exclusion, names nothing explains) step 1 keeps today's question and the
    trace says why."""
    if not steps or steps[0].tool != "ask" or catalog is None:
        return steps
    clause = _first_clause(request)
    if (
        FORECAST_LEAD.match(clause)
        or WHICH_FELL.match(clause)
        or any(lead.match(clause) for lead in DECLINE_LEAD)
    ):
        trace.branch("step 1 asked as its words: the request's own wording is a forecast or a drop")
        return steps
    found = plan_request(clause, catalog, today, lang, trace)
    if found.plan is None:
        trace.branch("step 1 asked as its words: the rules read no plan", reason=found.reason)
        return steps
    first = steps[0]
    args = {**first.args, "plan": found.plan.model_dump(mode="json")}
    trace.branch(
        "step 1 is the request's plan without its comparison",
        metrics=found.plan.metrics,
        breakdown=[d.column for d in found.plan.dimensions],
        filters=[f"{f.column}={','.join(f.values)}" for f in found.plan.filters],
        period=found.plan.period.label_en if found.plan.period else None,
    )
    return [first.model_copy(update={"args": args}), *steps[1:]]
