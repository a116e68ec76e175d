"""The OData path: a plan read from a (fake, local) infobase through the standard interface."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from tests.onec.odata_server import FakeInfobase

from vitrina.config import load_settings
from vitrina.onec import OneCQuery, OneCSource, write_query
from vitrina.onec.odata import ODataClient, ODataError
from vitrina.onec.query import Condition
from vitrina.route import RouteService

SHOP = Path(__file__).parent / "fixtures" / "shop-designer"


@pytest.fixture(scope="module")
def source() -> OneCSource:
    return OneCSource.load(SHOP)


def test_route_reads_rows_when_an_infobase_url_is_configured(source, tmp_path):
    with FakeInfobase() as infobase:
        settings = load_settings(onec_url=infobase.url, onec_user="reader", onec_password="x")
        route = RouteService(settings, onec=source, today=date(2025, 12, 15), write_files=False)
        result = route.handle("остатки товаров на основном складе на 30.11.2025")
    report = result.report
    assert report["object"] == "РегистрНакопления.ТоварыНаСкладах" and "odata_error" not in report
    assert report["rows"] == [
        {"Номенклатура": "Гвозди", "КоличествоОстаток": 120},
        {"Номенклатура": "Шурупы", "КоличествоОстаток": 35.5},
    ]
    path, query = infobase.requests[-1]
    assert path.startswith(
        "/trade/odata/standard.odata/AccumulationRegister_ТоварыНаСкладах/Balance("
    )
    assert "Period=datetime'2025-11-30T23:59:59'" in path
    assert (
        "Condition='Склад_Key eq guid''11111111-2222-3333-4444-555555555555'''" in path
    )  # quotes in a literal are doubled
    assert query["$expand"] == ["Номенклатура"]
    lookup_path, lookup = infobase.requests[0]  # the predefined item was resolved to its key first
    assert lookup_path.endswith("/Catalog_Склады") and lookup["$filter"] == [
        "PredefinedDataName eq 'ОсновнойСклад'"
    ]


def test_an_infobase_error_is_reported_not_raised(source, tmp_path):
    with FakeInfobase() as infobase:
        settings = load_settings(onec_url=infobase.url)
        route = RouteService(settings, onec=source, today=date(2025, 12, 15), write_files=False)
        result = route.handle("продажи по покупателям за ноябрь 2025")
    assert result.status == "planned" and result.report["query"]  # the query is still delivered
    assert "AccumulationRegister_Продажи/Turnovers" in result.report["odata_error"]
    assert "HTTP 404" in result.report["odata_error"]
    rejected = [e.data.get("error") for e in result.trace if e.kind.value == "rejected"]
    assert result.report["odata_error"] in rejected


def test_request_shapes(source):
    client = ODataClient("http://127.0.0.1:9/trade")
    sales = write_query(
        OneCQuery(
            source.config.get("РегистрНакопления.Продажи"), "Обороты", ["Покупатель"], ["Выручка"]
        )
    )
    path, params = client.request_for(
        sales, {"НачалоПериода": "2025-11-01T00:00:00", "КонецПериода": "2025-11-30T23:59:59"}
    )
    assert path == (
        "AccumulationRegister_%D0%9F%D1%80%D0%BE%D0%B4%D0%B0%D0%B6%D0%B8/Turnovers(StartPeriod="
        "datetime'2025-11-01T00:00:00',EndPeriod=datetime'2025-11-30T23:59:59',Dimensions='Покупатель')"
    )
    orders = write_query(
        OneCQuery(
            source.config.get("Документ.ЗаказПокупателя"),
            "",
            ["Покупатель"],
            [],
            conditions=[Condition("Статус", "ЗНАЧЕНИЕ(Перечисление.СтатусыЗаказов.ВРаботе)")],
        )
    )
    path, params = client.request_for(orders, {})
    assert params["$filter"] == "Статус eq 'ВРаботе'" and path.startswith("Document_")
    by_name = Condition(
        "Покупатель.Наименование",
        "&Покупатель",
        parameter="Покупатель",
        parameter_type="Строка",
        parameter_value="Ромашка",
        where=True,
    )
    sales.conditions = [by_name]
    path, params = client.request_for(sales, {"НачалоПериода": "2025-11-01T00:00:00"})
    assert "Condition" not in path and params["$filter"] == "Покупатель/Description eq 'Ромашка'"
    records = write_query(
        OneCQuery(
            source.config.get("РегистрНакопления.Продажи"), "", ["Покупатель"], [], dated=True
        )
    )
    period = {"НачалоПериода": "2025-11-01T00:00:00", "КонецПериода": "2025-11-30T23:59:59"}
    path, params = client.request_for(records, period)
    assert path.endswith("_RecordType") and params["$filter"].startswith(
        "Period ge datetime'2025-11-01T00:00:00'"
    )
    client.close()


@pytest.mark.parametrize("url", ["ftp://server/base", "server/base", "file:///etc/passwd"])
def test_only_http_urls(url):
    with pytest.raises(ODataError, match="http"):
        ODataClient(url)


def test_unreachable_infobase_is_an_odata_error(source):
    client = ODataClient("http://127.0.0.1:9/trade", timeout_s=2)
    q = write_query(
        OneCQuery(
            source.config.get("РегистрНакопления.ТоварыНаСкладах"), "Остатки", [], ["Количество"]
        )
    )
    with pytest.raises(ODataError, match=r"127\.0\.0\.1:9"):
        client.fetch(q, {"Период": "2025-11-30T23:59:59"})
    client.close()
