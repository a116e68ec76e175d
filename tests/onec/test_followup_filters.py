"""1C chat follow-ups keep the previous turn's filters and groupings as well as its object, kind
and period (issue 33, item 1): a new filter is added, "без отбора" / "without the filter" drops
the kept ones. Through `vitrina chat --onec` (vitrina.cli.main) on the shop configuration."""

from __future__ import annotations

import io
import re
from datetime import date
from pathlib import Path

from vitrina.onec import OneCSource
from vitrina.route import RouteService
from vitrina.route.plans.onec_followup import drops_filters

SHOP = Path(__file__).parent / "fixtures" / "shop-designer"
DEFECTS = "Склад = ЗНАЧЕНИЕ(Справочник.Склады.СкладБрака)"
BALANCES = "РегистрНакопления.ТоварыНаСкладах.Остатки"


def _answers(out: str) -> list[str]:
    """Each turn's answer: from one "Запрос 1С" to the next."""
    flat = " ".join(out.split())  # the console wraps long lines
    return [part for part in flat.split("Запрос 1С для отчёта")[1:]]


def _grouped(answer: str) -> list[str]:
    found = re.search(r"СГРУППИРОВАТЬ ПО (.*?) УПОРЯДОЧИТЬ", answer)
    assert found, answer
    return [f.strip().rsplit(".", 1)[-1] for f in found.group(1).split(",")]


def test_chat_follow_ups_keep_filters_and_groupings(capsys, monkeypatch):
    from tests.conftest import cli_main

    turns = [
        "остатки товаров на складах по номенклатуре на 30.11.2025",
        "только склад брака",  # a filter added, the grouping kept
        "а на 31.10.2025?",  # the filter and the grouping kept, the date changed
        "без отбора",  # the filter dropped, the grouping kept
    ]
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(turns) + "\n\n"))
    code, out = cli_main(capsys, "chat", "--onec", str(SHOP), "--no-llm")
    assert code == 0, out
    answers = _answers(out)
    assert len(answers) == 4, out
    assert all(BALANCES in a for a in answers), out
    assert [DEFECTS in a for a in answers] == [False, True, True, False], out
    # "на складах по номенклатуре" groups by both; a warehouse fixed by the filter is no
    # grouping while the filter holds, and the grouping by it is back once it is dropped
    both, items = ["Номенклатура", "Склад"], ["Номенклатура"]
    assert [_grouped(a) for a in answers] == [both, items, items, both], out
    assert "&Период = 2025-10-31T23:59:59" in answers[2]
    assert "&Период = 2025-10-31T23:59:59" in answers[3]  # the date is kept with no filter


def test_a_grouping_fixed_by_a_kept_filter_comes_back_without_it():
    """Grouped by warehouse, then one warehouse asked: a fixed field is no grouping; with the
    filter dropped ("without the filter") the thread's grouping by warehouse is back."""
    shop = RouteService(onec=OneCSource.load(SHOP), today=date(2025, 12, 15), write_files=False)
    first = shop.handle("остатки товаров на складах по складам на 30.11.2025", thread_id="g")
    assert "ТоварыНаСкладахОстатки.Склад КАК Склад" in first.report["query"]
    narrowed = shop.handle("только склад брака", thread_id="g").report["query"]
    assert DEFECTS in narrowed and "ТоварыНаСкладахОстатки.Склад КАК Склад" not in narrowed
    kept = shop.handle("а на 31.10.2025?", thread_id="g").report["query"]
    assert DEFECTS in kept
    back = shop.handle("without the filter", thread_id="g").report["query"]
    assert DEFECTS not in back and "ТоварыНаСкладахОстатки.Склад КАК Склад" in back


def test_the_words_that_drop_the_filters():
    for words in (
        "без отбора",
        "сними фильтр",
        "по всем складам",
        "without the filter",
        "no filters",
    ):
        assert drops_filters(words), words
    for words in ("только склад брака", "а на 31.10.2025?", "без разбивки"):
        assert not drops_filters(words), words


def test_a_filter_on_the_same_field_replaces_the_kept_one():
    shop = RouteService(onec=OneCSource.load(SHOP), today=date(2025, 12, 15), write_files=False)
    shop.handle("остатки товаров на складах на 30.11.2025", thread_id="r")
    main = shop.handle("только основной склад", thread_id="r").report["query"]
    assert "Склад = ЗНАЧЕНИЕ(Справочник.Склады.ОсновнойСклад)" in main
    other = shop.handle("только склад брака", thread_id="r").report["query"]
    assert DEFECTS in other and "ОсновнойСклад" not in other
