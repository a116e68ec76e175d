"""What a report request asks for, read by the ask job's rules (and the analyst's findings)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from vitrina.catalog import Catalog
from vitrina.language.detect import detect_lang
from vitrina.language.periods import extract_period, period_offsets
from vitrina.language.periods.compare import Comparison, Unit, find_comparison, strip_comparison
from vitrina.language.periods.pair import read_two_periods
from vitrina.query import PeriodRef, Reading, read_question

PREFIX = re.compile(
    r"^\s*(?:(?:построй|сформируй|сделай|покажи|build|make|create|show)\s+(?:мне\s+|me\s+)?)?"
    r"(?:(?:a|the)\s+)?(?:отч[её]т\w*|report)\s*(?:[:\-—]|(?:по|о|об|on|of|about|for)\b)?\s*",
    re.IGNORECASE,
)
# a comparison without its unit ("сравни", "vs"): with the previous period of the asked length
COMPARE = re.compile(r"сравн|compar|\bvs\b|versus", re.IGNORECASE)


def clean_question(request: str) -> str:
    """The data question inside a report request: 'Отчёт: сумма ...' -> 'сумма ...'.

    >>> clean_question("отчёт: сумма платежей по регионам за 2025 год")
    'сумма платежей по регионам за 2025 год'
    >>> clean_question("Build a report of cards issued by month")
    'cards issued by month'
    >>> clean_question("отчет остатки товаров")  # "о" is a word of its own, not a first letter
    'остатки товаров'
    """
    cleaned = PREFIX.sub("", request, count=1).strip()
    return cleaned or request.strip()


@dataclass
class ReportRequest:
    question: str
    lang: str
    reading: Reading
    period: PeriodRef | None
    topic: str | None
    comparison: Comparison | None  # "к прошлому году": the unit back to the compared period
    compare_words: bool = False  # "сравни", "vs" with no unit named
    compared: PeriodRef | None = None  # the second period named ("за 2024 и 2025 годы")
    notes: list[str] = field(default_factory=list)

    @property
    def compare(self) -> bool:
        return self.comparison is not None or self.compare_words

    @property
    def compare_unit(self) -> Unit | None:
        """How far back the compared period is: the unit named, else the asked period's own."""
        if self.comparison is not None:
            return self.comparison.unit
        return "period" if self.compare_words else None


def read_request(
    request: str, catalog: Catalog, today: date, facts: dict[str, Any] | None = None
) -> ReportRequest:
    """Period, reading and topic of a report request; the analyst's findings fill what rules
    miss."""
    question = clean_question(request)
    comparison = find_comparison(question)
    # two periods named ("сравни выручку за 2024 и 2025 годы", "2025 vs 2024"): the later is
    # asked, the earlier compared with, as ask reads them (language.periods.pair)
    two = None if comparison else read_two_periods(question, today)
    if two is not None:
        question = two.question
    # the comparison's words name the offset, not the period: "за III кв. 2026 к прошлому году"
    found = extract_period(
        strip_comparison(question, comparison) if comparison else question, today
    )
    period = PeriodRef.of(found) if found is not None else None
    reading = read_question(
        question, catalog, period_span=period_offsets(question, period.span if period else None)
    )
    topic = None
    if reading.topic_scores:
        ranked = sorted(reading.topic_scores.items(), key=lambda kv: -kv[1])
        tied = [t for t, s in ranked if s == ranked[0][1]]
        lead = catalog.metrics[reading.metrics[0].phrase.target].topic if reading.metrics else None
        topic = lead if lead in tied else tied[0]
    notes = []
    facts = facts or {}
    if topic is None:
        for metric_id in facts.get("metrics", []):
            if metric_id in catalog.metrics and catalog.metrics[metric_id].topic:
                topic = catalog.metrics[metric_id].topic
                notes.append(f"topic from the analyst's metric {metric_id}")
                break
    if topic is None:
        for table in facts.get("tables", []):
            if table in catalog.tables and catalog.tables[table].topics:
                topic = catalog.tables[table].topics[0]
                notes.append(f"topic from the analyst's table {table}")
                break
    return ReportRequest(
        question=question,
        lang=detect_lang(question),
        reading=reading,
        period=period,
        topic=topic,
        comparison=comparison,
        compare_words=bool(COMPARE.search(question)) or two is not None,
        compared=PeriodRef.of(two.previous) if two is not None else None,
        notes=notes,
    )
