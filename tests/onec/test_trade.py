"""A trade configuration Vitrina has never seen (tests/onec/fixtures/trade-designer, Designer
XML), tried as a new user would: the analyst finds the right registers for Russian requests,
the planner writes queries the SDBL parser accepts, with the right virtual table."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from datetime import date
from pathlib import Path

import pytest

from vitrina.onec import OneCQuery, OneCSource, check_query, write_dcs, write_query
from vitrina.route import RouteService

TRADE = Path(__file__).parent / "fixtures" / "trade-designer"


@pytest.fixture(scope="module")
def source() -> OneCSource:
    return OneCSource.load(TRADE)


@pytest.fixture(scope="module")
def route(source) -> RouteService:
    return RouteService(onec=source, today=date(2026, 11, 30), write_files=False)


def test_trade_configuration_read(source):
    cfg = source.config
    assert [w.name for w in cfg.warnings] == ["Report.ВаловаяПрибыль"]
    assert cfg.recorders("AccumulationRegister.ТоварыНаСкладах") == [
        "Document.ПриходнаяНакладная",
        "Document.РеализацияТоваровУслуг",
    ]
    assert cfg.get("РегистрСведений.ЦеныНоменклатуры").periodicity == "Day"
    assert cfg.get("Catalog.Номенклатура").synonyms == {"ru": "Номенклатура", "en": "Products"}
    cat = source.catalog
    assert cat.join_path("регистрнакопления.товарынаскладах", "справочник.склады") is not None
    assert cat.dictionary_for("справочник.номенклатура", "видноменклатуры") is not None


@pytest.mark.parametrize(
    "request_text, register, virtual_table, dimension",
    [
        ("остатки товаров на складах", "РегистрНакопления.ТоварыНаСкладах", "Остатки", "Склад"),
        (
            "продажи по номенклатуре за месяц",
            "РегистрНакопления.Продажи",
            "Обороты",
            "Номенклатура",
        ),
        (
            "Сформируй отчёт: продажи по номенклатуре по месяцам за 2025 год",
            "РегистрНакопления.Продажи",
            "Обороты",
            "Номенклатура",
        ),
    ],
)
def test_requests_find_the_register_and_write_a_parsed_query(
    route, request_text, register, virtual_table, dimension
):
    result = route.handle(request_text)
    assert (
        result.nodes[-3:] == ["plan_report", "onec_report", "deliver"] and "analyst" in result.nodes
    )
    assert result.steps[0]["observation"].startswith(register.lower())
    report = result.report
    assert report["register"] == register and report["virtual_table"] == virtual_table
    check = check_query(report["query"])
    assert check.checked and check.ok, check.errors
    assert check.virtual_tables == [f"{register}.{virtual_table}"]  # read back from the parse tree
    assert f"ПРЕДСТАВЛЕНИЕ({register.split('.')[1]}{virtual_table}.{dimension})" in report["query"]
    assert (
        "ИТОГИ" not in report["query"]
    )  # the schema totals its resources; the platform's schemas carry none
    assert report["links"][0] == f"e1cib/list/{register}" and report["links"][1].startswith(
        "e1cib/app/Отчет."
    )
    schema = ET.fromstring(report["dcs"])
    ns = {"s": "http://v8.1c.ru/8.1/data-composition-system/schema"}
    assert schema.find("s:dataSet/s:query", ns).text == report["query"]
    assert schema.findall("s:totalField", ns) and schema.findall("s:parameter", ns)
    assert schema.find("s:settingsVariant", ns) is not None
    com = "{http://v8.1c.ru/8.1/data-composition-system/common}"
    roles = {
        f.find("s:dataPath", ns).text: [r.tag.replace(com, "") for r in f.find("s:role", ns) or []]
        for f in schema.findall("s:dataSet/s:field", ns)
    }
    assert roles[dimension] == ["dimension"]


def test_month_grain_and_period_parameters(route):
    result = route.handle("продажи по номенклатуре по месяцам за 2025 год")
    assert "Обороты(&НачалоПериода, &КонецПериода, Месяц, )" in result.report["query"]
    assert result.report["parameters"]["НачалоПериода"]["value"] == "2025-01-01T00:00:00"
    assert (
        result.report["parameters"]["КонецПериода"]["value"] == "2025-12-31T23:59:59"
    )  # the last day kept


def test_balance_candidates_rank_ostatki_first(route):
    result = route.handle("остатки товаров на складах")
    ids = [c["id"] for c in result.candidates]
    assert ids[0] == "РегистрНакопления.ТоварыНаСкладах.Остатки" == result.chosen["id"]
    assert "РегистрНакопления.ТоварыНаСкладах.Обороты" in ids
    assert all(c["check"]["ok"] for c in result.candidates)


def test_metadata_search_in_1c(route):
    result = route.handle("Где хранятся цены номенклатуры?")
    assert result.intent == "metadata" and result.status == "found"
    assert result.steps[0]["observation"].startswith("регистрсведений.ценыноменклатуры")
    assert result.nodes[-1] == "deliver" and "plan_report" not in result.nodes


def test_query_writer_for_each_virtual_table(source):
    prices = write_query(
        OneCQuery(
            source.config.get("РегистрСведений.ЦеныНоменклатуры"),
            "СрезПоследних",
            ["Номенклатура"],
            ["Цена"],
        )
    )
    assert "СрезПоследних(&Период, )" in prices.text and "СУММА" not in prices.text
    both = write_query(
        OneCQuery(
            source.config.get("РегистрНакопления.ТоварыНаСкладах"),
            "ОстаткиИОбороты",
            ["Склад"],
            ["Количество"],
        )
    )
    assert "КоличествоКонечныйОстаток" in both.text
    for q in (prices, both):
        assert check_query(q.text).ok
        ET.fromstring(write_dcs(q))


ORDER = [
    "dataSource",
    "dataSet",
    "dataSetLink",
    "calculatedField",
    "totalField",
    "parameter",
    "template",
    "groupTemplate",
    "settingsVariant",
]


def _shape(xml_text: str) -> tuple[list[str], list[str], list[str]]:
    root = ET.fromstring(xml_text.lstrip("\ufeff").encode())
    local = [c.tag.rpartition("}")[2] for c in root]
    data_set = root.find("{http://v8.1c.ru/8.1/data-composition-system/schema}dataSet")
    variant = root.find("{http://v8.1c.ru/8.1/data-composition-system/schema}settingsVariant")
    return local, [c.tag.rpartition("}")[2] for c in data_set], [c.tag for c in variant]


@pytest.mark.fixtures
def test_schema_has_the_shape_of_the_platform_schemas(route, shared_fixtures):
    """Element order, data set and settings variant as in the real schemas of the shared
    fixtures."""
    ours = _shape(route.handle("продажи по номенклатуре за ноябрь 2025").report["dcs"])
    for path in (shared_fixtures / "onec").rglob("Template.*"):
        theirs = _shape(path.read_text(encoding="utf-8-sig"))
        assert theirs[2][:2] == ours[2][:2]  # dcsset:name and dcsset:presentation first
        assert set(theirs[1]) - {"field"} <= set(ours[1]) | {"field"}  # name, dataSource, query
    assert ours[0] == sorted(ours[0], key=ORDER.index) and ours[0][:2] == ["dataSource", "dataSet"]
    assert ours[1][0] == "name" and ours[1][-3:] == ["dataSource", "query", "autoFillFields"]
