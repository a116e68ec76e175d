"""The brief and the scoping rules, table-driven: what is resolved, what is flagged, where."""

from __future__ import annotations

from datetime import date

import pytest

from vitrina.catalog import load_catalog
from vitrina.team.data.brief import parse_brief
from vitrina.team.data.scope import resolve_scope
from vitrina.team.errors import BriefError

CATALOG = load_catalog(None)
TODAY = date(2026, 11, 30)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("- a list", "a brief is a YAML mapping"),
        ("title: x\nkpis: [1, [2]]", "a KPI is a name or a mapping"),
        (
            "title: x\nkpis:\n  - name: a\n    colour: red\n",
            "line 4: unknown key 'colour' in a KPI",
        ),
        ("kpis: [a]", "line 1: no 'title' key"),
        ("title: x\nfilters:\n  - values: [a]\n", "a filter is a mapping"),
        ("title: x\nlanguage: de\n", "field 'language'"),
        ("title: x\nkpis:\n" + "".join(f"  - k{i}\n" for i in range(30)), "at most 24"),
    ],
)
def test_bad_briefs_say_what_to_fix(text: str, message: str) -> None:
    with pytest.raises(BriefError, match=message):
        parse_brief(text, "b.yaml")


def test_markdown_front_matter_keeps_the_notes() -> None:
    brief = parse_brief("---\ntitle: t\nkpis: [Средний чек]\n---\nFor the board.\n", "b.md")
    assert (
        brief.kpis[0].name == "Средний чек"
        and brief.kpis[0].line == 3
        and brief.notes == "For the board."
    )


def scope(text: str):
    return resolve_scope(parse_brief(text), CATALOG, today=TODAY)


@pytest.mark.parametrize(
    ("kpi", "metric"),
    [
        ("Сумма платежей", "payment_amount"),
        ("payment volume", "payment_amount"),
        ("средний чек", "average_ticket"),
        ("Average ticket", "average_ticket"),
        ("paying_clients", "paying_clients"),
        ("Выпущено карт", "cards_issued"),
        ("комиссионный доход", "fee_income"),
        ("Доля отклонённых платежей", "decline_rate"),
    ],
)
def test_kpis_are_catalog_metrics(kpi: str, metric: str) -> None:
    s = scope(f"title: t\nperiod: 2025\nkpis: [{kpi!r}]\n".replace("'", '"'))
    assert [k.metric for k in s.kpis] == [metric] and not s.blocking


@pytest.mark.parametrize(
    ("by", "kind", "value"),
    [
        ("месяц", "grain", "month"),
        ("по неделям", "grain", "week"),
        ("quarterly", "grain", "quarter"),
        ("регион", "dimension", "dwh.dim_region.region_name"),
        ("region", "dimension", "dwh.dim_region.region_name"),
        ("канал", "dimension", "dwh.fact_payment.channel"),
    ],
)
def test_breakdowns(by: str, kind: str, value: str) -> None:
    [kpi] = scope(f"title: t\nperiod: 2025\nkpis:\n  - name: Сумма платежей\n    by: {by}\n").kpis
    assert kpi.by.kind == kind and (kpi.by.grain or kpi.by.column) == value


def test_what_is_missing_is_flagged_with_its_line() -> None:
    s = scope(
        "title: Платежи\nkpis:\n  - Сумма платежей\n  - name: Выручка по галактикам\n"
        "  - name: Средний чек\n    by: цвет глаз\nfilters:\n  - dimension: канал\n    "
        "values: [телепатия]\n"
    )
    codes = {(f.code, f.severity, f.line) for f in s.flags}
    assert ("BRIEF-001", "blocking", 4) in codes  # the unknown KPI, at its line
    assert ("BRIEF-002", "blocking", 5) in codes  # a breakdown nobody can reach
    assert ("BRIEF-005", "blocking", 8) in codes  # a filter value that is not in the dictionary
    assert ("BRIEF-003", "warning", 0) in codes  # no period: the default is stated
    assert (
        s.period.start == date(2025, 11, 1)
        and s.period.end == date(2026, 10, 31)
        and s.period.source == "default"
    )


def test_a_filter_applies_only_where_it_reaches() -> None:
    s = scope(
        "title: t\nperiod: 2025\nkpis: [Сумма платежей, Выпущено карт]\n"
        "filters:\n  - dimension: канал\n    values: [app]\n"
    )
    payments, cards = s.kpis
    assert payments.filters == ["dwh.fact_payment.channel"] and cards.filters == []
    assert any(
        f.code == "BRIEF-005" and f.severity == "warning" and "Выпущено карт" in f.message
        for f in s.flags
    )


def test_a_kpi_listed_twice_is_kept_once() -> None:
    s = scope("title: t\nperiod: 2025\nkpis: [Средний чек, average ticket]\n")
    assert len(s.kpis) == 1 and s.flags[-1].code == "BRIEF-006"
