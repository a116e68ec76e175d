"""The Superset import ZIP, read back as Superset's importer reads it (no Superset needed here;
tests/superset_real imports it into a real one)."""

from __future__ import annotations

import io
import json
import zipfile

import pytest
import yaml

from vitrina.team.publish import DashboardBundle, DashboardElement, DatasetRef
from vitrina.team.publish.bundle import stable_uuid
from vitrina.team.publish.superset_bundle import (
    MASK,
    SupersetDatabase,
    import_zip,
    superset_name,
)

KEY = "test-build"
DB = SupersetDatabase("Vitrina warehouse", "postgresql://reader:s3cret@127.0.0.1:5432/dwh")


def _bundle() -> DashboardBundle:
    month = {
        "name": "month",
        "role": "period",
        "grain": "month",
        "label_ru": "Месяц",
        "label_en": "Month",
    }
    amount = {
        "name": "amount",
        "role": "metric",
        "fmt": "money",
        "label_ru": "Сумма",
        "label_en": "Amount",
    }
    clients = {**amount, "name": "clients", "fmt": "count", "additive": False}
    datasets = [
        DatasetRef(
            id="amount__card",
            uuid=stable_uuid(KEY, "dataset", "a"),
            sql="SELECT 1 AS amount;",
            columns=[amount],
        ),
        DatasetRef(
            id="amount__breakdown",
            uuid=stable_uuid(KEY, "dataset", "b"),
            sql="SELECT month, amount FROM v",
            columns=[month, amount],
        ),
        DatasetRef(
            id="clients__card",
            uuid=stable_uuid(KEY, "dataset", "c"),
            sql="SELECT 2 AS clients",
            columns=[clients],
        ),
    ]

    def element(
        id_: str, kind: str, view: str, chart_kind: str, x: int, y: int, w: int
    ) -> DashboardElement:
        return DashboardElement(
            id=id_,
            uuid=stable_uuid(KEY, "element", id_),
            kind=kind,
            kpi="amount",
            view=view,
            title=id_,
            chart_kind=chart_kind,
            spec={},
            x=x,
            y=y,
            w=w,
            h=1 if kind == "card" else 4,
        )

    return DashboardBundle(
        id="build-3",
        uuid=stable_uuid(KEY, "dashboard"),
        title="Платежи",
        language="ru",
        datasets=datasets,
        elements=[
            element("amount__card", "card", "amount__card", "kpi", 0, 0, 3),
            element("clients__card", "card", "clients__card", "kpi", 3, 0, 3),
            element("amount__chart", "chart", "amount__breakdown", "line", 0, 1, 12),
        ],
    )


def _read(archive: bytes) -> dict[str, dict]:
    with zipfile.ZipFile(io.BytesIO(archive)) as z:
        return {
            name.split("/", 1)[1]: yaml.safe_load(z.read(name).decode("utf-8"))
            for name in z.namelist()
        }


def test_the_dashboard_zip_has_every_object_keyed_by_the_bundle_uuids() -> None:
    bundle = _bundle()
    files = _read(
        import_zip(bundle, DB, dataset_ids={d.uuid: 10 + i for i, d in enumerate(bundle.datasets)})
    )
    assert files["metadata.yaml"]["type"] == "Dashboard"
    datasets = {f["uuid"]: f for p, f in files.items() if p.startswith("datasets/")}
    charts = {f["uuid"]: f for p, f in files.items() if p.startswith("charts/")}
    (dashboard,) = [f for p, f in files.items() if p.startswith("dashboards/")]
    assert set(datasets) == {d.uuid for d in bundle.datasets}
    assert set(charts) == {e.uuid for e in bundle.elements}
    assert dashboard["uuid"] == bundle.uuid
    # every chart is in the position, by UUID: that is what links it on import
    in_layout = {
        v["meta"]["uuid"]
        for v in dashboard["position"].values()
        if isinstance(v, dict) and v.get("type") == "CHART"
    }
    assert in_layout == set(charts)
    for chart in charts.values():  # a chart without a query_context fails its data calls
        context = json.loads(chart["query_context"])
        dataset_id = context["datasource"]["id"]
        assert datasets[chart["dataset_uuid"]] and dataset_id >= 10
        assert chart["params"]["datasource"] == f"{dataset_id}__table"
        assert context["queries"][0]["metrics"]


def test_metrics_are_the_view_metric_columns_and_never_sum_a_distinct_count() -> None:
    files = _read(import_zip(_bundle(), DB, kind="SqlaTable"))
    assert not any(p.startswith(("charts/", "dashboards/")) for p in files)
    by_name = {f["table_name"]: f for p, f in files.items() if p.startswith("datasets/")}
    clients = by_name[superset_name("build-3", "clients__card", _bundle().uuid)]
    assert [m["expression"] for m in clients["metrics"]] == ["MAX(clients)"]
    amount = by_name[superset_name("build-3", "amount__breakdown", _bundle().uuid)]
    assert [m["expression"] for m in amount["metrics"]] == ["SUM(amount)"]
    assert amount["main_dttm_col"] == "month" and amount["sql"] == "SELECT month, amount FROM v"
    card = by_name[superset_name("build-3", "amount__card", _bundle().uuid)]
    assert card["sql"] == "SELECT 1 AS amount"  # no trailing semicolon inside Superset's subquery


def test_the_database_password_never_goes_into_the_zip() -> None:
    archive = import_zip(_bundle(), DB, kind="SqlaTable")
    assert b"s3cret" not in archive
    files = _read(archive)
    database = next(f for p, f in files.items() if p.startswith("databases/"))
    assert database["sqlalchemy_uri"] == f"postgresql://reader:{MASK}@127.0.0.1:5432/dwh"
    assert DB.masked()[1] == "s3cret"


def test_names_carry_the_bundle_uuid_so_two_homes_build_1_do_not_collide() -> None:
    a = superset_name("build-1", "v", stable_uuid("home-a", "dashboard"))
    b = superset_name("build-1", "v", stable_uuid("home-b", "dashboard"))
    assert a != b and a.startswith("vitrina_build_1_")


def test_a_chart_names_the_metrics_it_was_given() -> None:
    bundle = _bundle()
    bundle.elements[2].metrics = ["no_such_metric"]  # imports silently: the publisher verifies
    files = _read(import_zip(bundle, DB))
    chart = next(f for p, f in files.items() if p.startswith("charts/amount__chart"))
    assert chart["params"]["metrics"] == ["no_such_metric"]
    assert chart["params"]["time_grain_sqla"] == "P1M"


def test_an_element_whose_view_is_not_in_the_bundle_is_refused() -> None:
    bundle = _bundle()
    bundle.elements[0].view = "nowhere"
    with pytest.raises(ValueError, match="amount__card: its view nowhere"):
        import_zip(bundle, DB)


def _formatted(lang: str, card_value: str) -> dict[str, dict]:
    bundle = _bundle()
    bundle.language = lang
    for dataset in bundle.datasets:
        for column in dataset.columns:
            if column["name"] == "amount":
                column["unit"] = "RUB"
    share = {"name": "share", "role": "metric", "fmt": "percent", "label_ru": "Доля"}
    bundle.datasets[1].columns.append(share)
    bundle.elements[0].spec = {"data": {"items": [{"raw": 1234.5, "value": card_value}]}}
    return _read(import_zip(bundle, DB))


def test_superset_numbers_are_formatted_as_on_the_html_page() -> None:
    """The page writes an amount with kopecks, a board-level card in whole roubles (polish.py),
    a share in percent points: Superset's formats and currency say the same."""
    from vitrina.present.numbers import format_money, format_number

    ru = _formatted("ru", format_money(1234.5, "ru", "RUB"))
    card = next(f for p, f in ru.items() if p.startswith("charts/amount__card"))
    assert card["params"]["y_axis_format"] == ",.2f"
    assert card["params"]["currency_format"] == {"symbol": "RUB", "symbolPosition": "suffix"}
    board = _formatted("ru", f"{format_number(1234.5, 0, 'ru')}\xa0₽")
    card = next(f for p, f in board.items() if p.startswith("charts/amount__card"))
    assert card["params"]["y_axis_format"] == ",.0f"  # no kopecks on a board card
    chart = next(f for p, f in ru.items() if p.startswith("charts/amount__chart"))
    assert chart["params"]["y_axis_format"] == ",.2f" and chart["params"]["currency_format"]
    datasets = [f for p, f in ru.items() if p.startswith("datasets/")]
    metrics = {m["metric_name"]: m for d in datasets for m in d["metrics"]}
    assert json.loads(metrics["amount"]["currency"])["symbol"] == "RUB"
    assert metrics["share"]["d3format"] == ",.1f" and metrics["share"]["verbose_name"] == "Доля, %"
    assert metrics["clients"]["d3format"] == ",d" and metrics["clients"]["currency"] is None
    en = _formatted("en", "RUB\xa01,235")  # the comma groups thousands in English
    card = next(f for p, f in en.items() if p.startswith("charts/amount__card"))
    assert card["params"]["y_axis_format"] == ",.0f"
    assert card["params"]["currency_format"]["symbolPosition"] == "prefix"
