"""The brief's prose read at the gate for requirements its front matter lacks (issue 31 item 3,
docs/decisions/209): a corpus of briefs under tests/team/briefs/prose/ with one requirement
planted in the text at a time (RU and EN, on the demo catalog and the TPC-H-like one) and
good briefs whose text only repeats the front matter or gives context. Every plant is
caught with BRIEF-010, its line and its words; the good ones get no question at all; the
fix each question names, applied, leaves no question.
"""

from __future__ import annotations

import json
import re
from datetime import date
from pathlib import Path

import pytest
import yaml
from tests.conftest import cli_main

from vitrina.catalog import Catalog, load_catalog
from vitrina.team.data.brief import Brief, parse_brief
from vitrina.team.data.draft import kpi_mentions
from vitrina.team.data.prose import prose_lines, prose_questions
from vitrina.team.gate import check_brief

ROOT = Path(__file__).resolve().parents[2]
CORPUS = Path(__file__).parent / "briefs" / "prose"
DEMO_TODAY, TPCH_TODAY = date(2026, 11, 30), date(1998, 12, 1)
# file -> (line, the words quoted, words of the question) of the one planted requirement
PLANTS = {
    "plant-kpi-ru.md": (
        14,
        "сумму возвратов по регионам",
        "«- {name: Сумма возвратов, by: регион}»",
    ),
    "plant-by-ru.md": (15, "средний чек по типу карты", "разрез «тип карты»"),
    "plant-period-ru.md": (12, "за первое полугодие 2026 года", "«2025 год» (строка 4)"),
    "plant-audience-ru.md": (11, "для правления", "audience в front matter «аналитики»"),
    "plant-kpi-en.md": (13, "decline rate by channel", "the catalog metric «Decline rate»"),
    "plant-period-missing-en.md": (12, "Q3 2025", "add period: 2025-07-01..2025-09-30"),
    "plant-grain-en.md": (15, "by week", "«- {name: Payment volume, by: week}»"),
    "plant-audience-en.md": (11, "for the board", "the front matter has no audience"),
    "plant-tpch-kpi-en.md": (17, "average discount by ship mode", "(average_discount)"),
    "plant-tpch-by-en.md": (12, "revenue by region", "is by «month»"),
    "plant-tpch-ru.md": (14, "средняя стоимость заказа по странам", "(average_order_value)"),
    "plant-tpch-period-ru.md": (10, "за 1996 год", "«1997 год» (строка 5)"),
}
GOOD = sorted(p.name for p in CORPUS.glob("good-*.md"))
# lines of context, wishes, deadlines, negations and repeats: none is a requirement the
# front matter of CONTEXT_FRONT lacks
CONTEXT_FRONT = """---
title: Платежи 2024
audience: аналитики
period: 2024 год
kpis:
  - name: Сумма платежей
    by: месяц
  - Средний чек
---
"""
CONTEXT_LINES = [
    "Нужен дашборд к 1 декабря.",
    "Please have it ready by December 1.",
    "Нужно, чтобы цифры совпадали с отчётом финансов.",
    "Нужна разбивка как в прошлогоднем отчёте.",
    "Нужно сравнить с прошлым годом.",
    "Покажите платежи: сумму и средний чек.",
    "- клиенты B2B и B2C вместе;",
    "- без возвратов.",
    "Данные берём из витрины платежей, ежедневная загрузка.",
    "We need this for the analysts, who watch payments daily.",
    "We need it before the quarterly review.",
    "We don't need refunds here.",
    "Средний чек не нужен — его смотрят финансисты.",
    "В 2023 году платежи по картам выросли, правление хочет понять почему.",
    "Вопросы по данным — Ивану из отдела аналитики.",
    "Покажите сумму платежей в рублях, без копеек.",
    "- данные за 2024 год, помесячно.",
    "```\nпоказать возвраты по регионам за 2025 год\n```",
    "<!-- добавить позже: возвраты по регионам -->",
    "## Платежи 2024",
]


TPCH_FRONT = """---
title: Orders 1997
language: en
audience: operations
period: 1997
kpis:
  - name: Number of orders
    by: priority
---
"""
TPCH_CONTEXT_LINES = [
    "We need the dashboard for the sales managers before the planning meeting.",
    "Orders are counted by order date, as in the finance books.",
    "Please show the number of orders by priority.",
    "Revenue is not needed here: finance has its own report.",
    "In 1996 the sales team changed how priorities are set.",
]


def _catalog(name: str) -> tuple[Catalog, date]:
    if "tpch" in name:
        return load_catalog(ROOT / "suites" / "tpch_like"), TPCH_TODAY
    return load_catalog(None), DEMO_TODAY


def _lang(brief: Brief) -> str:
    return brief.language or ("ru" if re.search("[а-я]", brief.title.lower()) else "en")


@pytest.mark.parametrize("name", sorted(PLANTS))
def test_every_plant_is_asked_at_the_gate_with_its_line_and_words(name: str) -> None:
    brief = parse_brief((CORPUS / name).read_text(encoding="utf-8"), name)
    catalog, today = _catalog(name)
    line, words, says = PLANTS[name]
    gate = check_brief(brief, catalog, _lang(brief), today=today)
    assert len(gate.questions) == 1, gate.questions
    where = "строка" if _lang(brief) == "ru" else "line"
    assert gate.questions[0].startswith(f"[BRIEF-010] {where} {line}: ")
    assert f"«{words}»" in gate.questions[0] and says in gate.questions[0], gate.questions[0]


@pytest.mark.parametrize("name", GOOD)
def test_a_good_brief_whose_text_repeats_or_gives_context_passes_the_gate(name: str) -> None:
    brief = parse_brief((CORPUS / name).read_text(encoding="utf-8"), name)
    catalog, today = _catalog(name)
    assert brief.prose.strip()  # each good brief has text to read
    gate = check_brief(brief, catalog, _lang(brief), today=today)
    assert gate.questions == []


def test_the_corpus_is_the_size_the_issue_asks() -> None:
    plants = {p.name for p in CORPUS.glob("plant-*.md")}
    assert plants == set(PLANTS) and len(plants) >= 8 and len(GOOD) >= 6
    assert {n for n in plants if "tpch" in n} and {n for n in plants if n.endswith("-en.md")}


@pytest.mark.parametrize("line", CONTEXT_LINES)
def test_context_deadlines_negations_and_repeats_are_no_requirement(line: str) -> None:
    brief = parse_brief(CONTEXT_FRONT + line + "\n", "context.md")
    catalog, today = _catalog("demo")
    assert prose_questions(brief, catalog, today) == []


@pytest.mark.parametrize("line", TPCH_CONTEXT_LINES)
def test_context_on_the_tpch_catalog_is_no_requirement(line: str) -> None:
    brief = parse_brief(TPCH_FRONT + line + "\n", "context.md")
    catalog, today = _catalog("tpch")
    assert prose_questions(brief, catalog, today) == []


def _apply(text: str, question: str) -> str:
    """The brief with the fix its question names: a KPI entry under kpis, a period or an
    audience key."""
    front, body = text.split("\n---\n", 1)
    entry = re.search(r"«(- [^»]+)»", question)
    key = re.search(r"(?:add|добавьте|например,|e\.g\.) (period|audience): ([^\s,)]+)", question)
    if entry:
        front = front.replace("kpis:\n", f"kpis:\n  {entry.group(1)}\n", 1)
    elif key:
        front = re.sub(rf"^{key.group(1)}:.*\n?", "", front, flags=re.M)
        front += f"\n{key.group(1)}: {key.group(2)}"
    else:  # the audience contradicted: the value is the one the text names
        named = re.search(r"(?:аудитории|for) «([^»]+)»", question)
        assert named, question
        front = re.sub(r"^audience:.*$", f"audience: {named.group(1)}", front, flags=re.M)
    return f"{front}\n---\n{body}"


@pytest.mark.parametrize("name", sorted(PLANTS))
def test_the_fix_a_question_names_answers_it(name: str) -> None:
    text = (CORPUS / name).read_text(encoding="utf-8")
    catalog, today = _catalog(name)
    [question] = prose_questions(parse_brief(text, name), catalog, today)
    fixed = _apply(text, question.question(_lang(parse_brief(text, name))))
    assert yaml.safe_load(fixed.split("---\n")[1])  # still a front matter
    assert prose_questions(parse_brief(fixed, name), catalog, today) == [], fixed


def test_prose_lines_keep_the_brief_s_line_numbers_and_skip_what_is_no_text() -> None:
    text = (
        "---\ntitle: Платежи 2025\nkpis: [Средний чек]\n---\n"  # lines 1-4
        "# Платежи 2025\n\n"  # 5: the title again, 6: empty
        "```\nсумма возвратов\n```\n"  # 7-9: a code block
        "<!--\nкомиссии\n-->\n"  # 10-12: a comment
        "## Что показать\n- средний чек\n"  # 13, 14
    )
    brief = parse_brief(text, "b.md")
    assert brief.prose_line == 5
    assert prose_lines(brief) == [(13, "Что показать"), (14, "- средний чек")]
    assert parse_brief("title: t\nkpis: [Средний чек]\n", "b.yaml").prose == ""


def test_a_breakdown_s_words_are_no_kpi_for_the_draft_either() -> None:
    """The shared reader: "по типу карты" is the breakdown of the sum, not a cards KPI."""
    from vitrina.language.text import tokenize

    catalog, _today = _catalog("demo")
    found = kpi_mentions(tokenize("сумма платежей по типу карты и кошельки"), catalog)
    assert [(m.metric.id, m.by) for m in found] == [
        ("payment_amount", "типу карты"),
        ("wallets_opened", None),
    ]


def test_a_planted_brief_is_blocked_through_the_cli_and_a_good_one_builds(
    demo_db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    board = f"sqlite:///{tmp_path / 'board.sqlite'}"
    common = ["--db", f"duckdb:///{demo_db}", "--no-browser", "--board", board]
    code, out = cli_main(capsys, "build", str(CORPUS / "plant-kpi-ru.md"), *common)
    flat = " ".join(out.split())
    assert code == 2, flat[-2000:]
    assert "[BRIEF-010] строка 14" in flat and "«сумму возвратов по регионам»" in flat, flat
    good = ["--out", str(tmp_path / "out"), "--json"]
    code, out = cli_main(capsys, "build", str(CORPUS / "good-repeat-ru.md"), *common, *good)
    assert code == 0, out[-2000:]
    result = json.loads(out)
    assert result["status"] == "done" and not result["blocked"], result["blocked"]
