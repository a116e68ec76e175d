"""The SDBL check: real errors caught, each known false alarm of tree-sitter-hbk forgiven by its
rule or rewritten away, a corpus of valid and invalid texts, and every query text of the shared
fixtures (schemas and modules) and of the test configurations accepted."""

from __future__ import annotations

from pathlib import Path

import pytest

from vitrina.onec import OneCSource, check_query
from vitrina.onec.query_texts import configuration_queries
from vitrina.onec.sdbl import check_sources
from vitrina.trace import Trace

QUERIES = Path(__file__).parent / "fixtures" / "queries"
CONFIGS = Path(__file__).parent / "fixtures"


def _corpus(name: str) -> list[str]:
    return (QUERIES / name).read_text(encoding="utf-8").split("\n-----\n")


CASES = [
    # (query, ok, forgiving rule or rewrite, or None)
    (
        "ВЫБРАТЬ Т.А ИЗ РегистрНакопления.П.Обороты(&Н, &К, , Склад = &С) КАК Т",
        True,
        "empty_virtual_table_parameter",
    ),
    (
        "ВЫБРАТЬ Т.А ИЗ РегистрНакопления.П.Обороты(&Н, &К, Месяц, ) КАК Т",
        True,
        "empty_virtual_table_parameter",
    ),
    ("ВЫБРАТЬ Т.А КАК А ИЗ Справочник.Х КАК Т ИТОГИ СУММА(А) ПО ОБЩИЕ, Б", True, "overall_first"),
    (
        "ВЫБРАТЬ Т.А КАК А ИЗ Справочник.Х КАК Т ИТОГИ СУММА(А) ПО ОБЩИЕ, Покупатель",
        True,
        "overall_first",
    ),
    (
        "ВЫБРАТЬ Т.А КАК А ИЗ Справочник.Х КАК Т ИТОГИ СУММА(А) ПО ОБЩИЕ, Поставщик, ВидЦен",
        True,
        "overall_first",
    ),
    ("SELECT T.A AS A FROM Catalog.X AS T TOTALS SUM(A) BY OVERALL, B", True, "overall_first"),
    ("ВЫБРАТЬ Т.А КАК А {ВЫБРАТЬ А} ИЗ Справочник.Х КАК Т {ГДЕ Т.А.*}", True, "composition_block"),
    ("ВЫБРАТЬ Т.А ИЗ РегистрНакопления.П.Остатки(&П, ) КАК Т", True, None),
    ("ВЫБРАТЬ Т.А КАК ИЗ Справочник.Х КАК Т", False, None),
    ("ВЫБРАТЬ ИЗ ГДЕ", False, None),
    ("ВЫБРАТЬ Т.А ИЗ РегистрНакопления.П.Обороты(&Н, &К,, ,) КАК Т ГДЕ", False, None),
    ("ВЫБРАТЬ Т.А КАК А ИЗ Справочник.Х КАК Т ИТОГИ СУММА(А) ПО ОБЩИЕ,", False, None),
]


@pytest.mark.parametrize("query, ok, rule", CASES, ids=[c[0][-60:] for c in CASES])
def test_known_false_alarms_and_real_errors(query, ok, rule):
    trace = Trace("check")
    result = check_query(query, trace=trace)
    assert result.checked and result.ok is ok, (result.errors, result.forgiven)
    if rule and ok:
        assert rule in [f.rule for f in result.forgiven] + result.rewrites
        assert any(
            e.kind.value == "suppressed" and e.data.get("rule") == rule for e in trace.events
        )


def test_error_says_where_in_characters():
    result = check_query("ВЫБРАТЬ\n\tТ.А КАК\nИЗ Справочник.Х КАК Т")
    assert not result.ok and result.errors[0].line == 2 and "line 2" in str(result.errors[0])
    # tree-sitter counts bytes; the column is in characters of the user's text
    result = check_query("ВЫБРАТЬ Т.Валюта КАК Валюта ИЗ")
    assert (result.errors[0].line, result.errors[0].column) == (1, 29) and result.errors[
        0
    ].text.startswith("ИЗ")


@pytest.mark.parametrize("index", range(len(_corpus("valid.sdbl"))))
def test_valid_corpus_passes(index):
    query = _corpus("valid.sdbl")[index]
    result = check_query(query)
    assert result.ok, (result.errors, query)


@pytest.mark.parametrize("index", range(len(_corpus("invalid.sdbl"))))
def test_invalid_corpus_is_rejected(index):
    query = _corpus("invalid.sdbl")[index]
    result = check_query(query)
    assert not result.ok and result.errors, query
    assert all(e.line >= 1 and e.column >= 1 for e in result.errors)


def test_names_that_start_like_keywords_in_fields_and_totals():
    names = [
        "Покупатель",
        "Поставщик",
        "Получатель",
        "Валюта",
        "ВидЦен",
        "ВидОперации",
        "Выручка",
        "Итог",
        "Изделие",
        "Иерархический",
        "Количество",
        "Сумма",
        "Недостача",
        "Первый",
        "Различие",
        "Общий",
    ]
    fields = ",\n".join(f"\tТ.{n} КАК {n}" for n in names)
    for head in ("", "ОБЩИЕ, "):
        query = (
            f"ВЫБРАТЬ\n{fields}\nИЗ\n\tРегистрНакопления.Продажи КАК "
            f"Т\nИТОГИ\n\tСУММА(Сумма)\nПО\n\t{head}" + (",\n\t".join(names))
        )
        result = check_query(query)
        assert result.ok, result.errors


@pytest.mark.fixtures
@pytest.mark.parametrize("name", ["designer-mdclasses", "edt-qlfulldemo"])
def test_every_query_text_of_the_shared_fixtures_passes(shared_fixtures, name):
    root = shared_fixtures / "onec" / name
    texts = configuration_queries(root)
    schemas = [
        p for p in root.rglob("Template.*") if b"DataCompositionSchema" in p.read_bytes()[:2000]
    ]
    assert schemas  # each fixture has a report schema; its non-empty query texts are all checked
    for q in texts:
        result = check_query(q.text)
        assert result.ok, (q.file, q.where, result.errors)
    config = OneCSource.load(root).config
    assert all(not check_sources(q.text, config) for q in texts)


@pytest.mark.parametrize("name", ["shop-designer", "trade-designer"])
def test_every_query_text_of_the_test_configurations_passes(name):
    root = CONFIGS / name
    texts = configuration_queries(root)
    config = OneCSource.load(root).config
    for q in texts:
        result = check_query(q.text)
        assert result.ok, (q.file, q.where, result.errors)
        assert not check_sources(q.text, config), (q.file, q.where)
    if name == "shop-designer":  # three report schemas and two document modules
        assert len(texts) == 5 and sum(q.file.endswith(".bsl") for q in texts) == 2


def test_sources_the_configuration_lacks_are_errors():
    config = OneCSource.load(CONFIGS / "shop-designer").config
    cases = {
        "ВЫБРАТЬ Т.А ИЗ РегистрНакопления.Продажи.Остатки(&П, ) КАК Т": "has no virtual table "
        "Остатки",
        "ВЫБРАТЬ Т.А ИЗ РегистрНакопления.Нет КАК Т": "is not in the configuration",
        "ВЫБРАТЬ Т.А ИЗ Документ.РеализацияТоваров.Услуги КАК Т": "has no tabular section Услуги",
        (
            "ВЫБРАТЬ Т.А ИЗ РегистрСведений.КонтактныеЛица.СрезПоследних(&П, ) КАК Т"
        ): "has no virtual table",
    }
    for query, problem in cases.items():
        issues = check_sources(query, config)
        assert issues and problem in str(issues[0]), query
    ok = (
        "ВЫБРАТЬ Т.А ИЗ РегистрНакопления.ТоварыНаСкладах.ОстаткиИОбороты(&Н, &К, , , ) КАК Т "
        "ЛЕВОЕ СОЕДИНЕНИЕ ВТ КАК В ПО ИСТИНА"
    )
    assert not check_sources(ok, config)
