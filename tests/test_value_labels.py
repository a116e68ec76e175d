"""Dictionary labels (label_ru/label_en) in every face of an answer: the text, the table, the
chart and the Excel file show words; only the SQL keeps the codes (issue 34, item 5)."""

from __future__ import annotations

from pathlib import Path

from openpyxl import load_workbook

from vitrina.catalog import DEMO_CATALOG, load_catalog
from vitrina.catalog.model import Dictionary, DictionaryValue
from vitrina.present.charts import decide_chart
from vitrina.present.columns import ColumnMeta, ColumnRole
from vitrina.present.infer_meta import infer_metas
from vitrina.present.numbers import format_value
from vitrina.warehouse import QueryResult

CHANNELS = "сумма платежей по каналам за 2025 год"
CATEGORIES = "сумма платежей по категориям мерчантов за 2025 год"


def test_dictionary_labels_keep_values_without_a_label_out() -> None:
    words = Dictionary(
        column="dwh.t.c",
        values=[
            DictionaryValue(value="pos", label_ru="POS-терминал", label_en="POS terminal"),
            DictionaryValue(value="web"),
        ],
    )
    assert words.labels("ru") == {"pos": "POS-терминал"}
    assert words.labels("en") == {"pos": "POS terminal"}
    meta = ColumnMeta(
        name="channel",
        role=ColumnRole.DIMENSION,
        label_ru="Канал",
        label_en="Channel",
        value_labels_ru=words.labels("ru"),
    )
    assert format_value("pos", meta, "ru") == "POS-терминал"
    assert format_value("web", meta, "ru") == "web"  # no label: as stored
    assert format_value("pos", meta, "en") == "pos"  # no English labels on this meta


def test_russian_answer_table_and_chart_show_words_not_codes(make_service) -> None:
    result = make_service().ask(CHANNELS)
    assert result.status == "answered"
    assert "'pos'" not in (result.sql or "") and "fp.channel" in (result.sql or "")
    cells = [row[0] for row in result.table["rows"]]
    assert "POS-терминал" in cells and "pos" not in cells
    assert "POS-терминал" in result.answer and " pos " not in f" {result.answer} "
    travel = make_service().ask(CATEGORIES)
    assert "путешествия" in travel.answer and "travel" not in travel.answer


def test_chart_and_model_sql_metas_use_the_dictionary() -> None:
    """SQL a model wrote (metas inferred from the catalog) gets the same words in its chart."""
    catalog = load_catalog(DEMO_CATALOG)
    result = QueryResult(
        columns=["channel", "amount_rub"],
        rows=[("pos", 10.0), ("qr", 5.0), ("app", 7.0)],
    )
    metas = infer_metas(result, catalog, ["dwh.fact_payment"], None)
    assert metas[0].value_labels_ru["pos"] == "POS-терминал"
    _spec, decision, _ = decide_chart(result, metas, "ru", decision=None)
    assert decision is not None and decision.prepared is not None
    labels = decision.prepared["data"]["labels"]
    assert "POS-терминал" in labels and "pos" not in labels


def test_english_answer_uses_label_en(make_service) -> None:
    result = make_service().ask("payment amount by channel in 2025")
    assert result.status == "answered"
    cells = [row[0] for row in result.table["rows"]]
    assert "POS terminal" in cells and "QR code" in cells


def test_excel_cells_are_words(make_service, tmp_path: Path) -> None:
    service = make_service(write_files=True)
    result = service.ask(CHANNELS)
    assert result.excel and Path(result.excel).is_file()
    sheet = load_workbook(result.excel).worksheets[0]
    column = [sheet.cell(row=r, column=1).value for r in range(2, sheet.max_row + 1)]
    assert "POS-терминал" in column and "pos" not in column


def test_catalog_init_drafts_labels_for_codes(tmp_path: Path, capsys) -> None:
    """`catalog init` drafts a code's labels to edit (English words, Russian empty); names
    that are already words get none. The draft stays a valid catalog."""
    import duckdb
    import yaml
    from tests.conftest import cli_main

    db = tmp_path / "shop.duckdb"
    with duckdb.connect(str(db)) as con:
        con.execute(
            "CREATE TABLE payments (id INTEGER PRIMARY KEY, paid_at DATE, channel VARCHAR, "
            "city VARCHAR, amount DOUBLE)"
        )
        con.execute(
            "INSERT INTO payments SELECT i, DATE '2025-01-01' + i::INTEGER, "
            "['app', 'pos', 'credit_card'][i % 3 + 1], ['Москва', 'Казань'][i % 2 + 1], i "
            "FROM range(60) t(i)"
        )
    out = tmp_path / "catalog"
    code, printed = cli_main(
        capsys, "catalog", "init", "--db", f"duckdb:///{db}", "--out", str(out)
    )
    assert code == 0, printed
    drafted = yaml.safe_load((out / "dictionaries.yaml").read_text(encoding="utf-8"))
    by_column = {d["column"].rsplit(".", 1)[1]: d["values"] for d in drafted["dictionaries"]}
    channel = {v["value"]: v for v in by_column["channel"]}
    assert channel["credit_card"]["label_en"] == "credit card"
    assert channel["pos"]["label_en"] == "pos" and channel["pos"]["label_ru"] is None
    assert all("label_en" not in v for v in by_column["city"])
    code, checked = cli_main(capsys, "catalog", "check", str(out), "--db", f"duckdb:///{db}")
    assert code == 0, checked


def test_dashboard_views_carry_words_to_html_charts_and_superset(tmp_path: Path) -> None:
    """A build's dataset view keeps its metas as JSON: the value labels survive the trip, the
    HTML dashboard's chart shows words, and Superset's dataset column is a CASE over the codes
    that runs on the warehouse."""
    import duckdb

    from vitrina.present.charts import build_chart_data, choose_chart
    from vitrina.present.charts.spec import chartjs_from_data
    from vitrina.team.publish import DashboardBundle, DatasetRef
    from vitrina.team.publish.superset_bundle import SupersetDatabase, dataset_yaml

    catalog = load_catalog(DEMO_CATALOG)
    result = QueryResult(columns=["channel", "amount_rub"], rows=[("pos", 10.0), ("qr", 5.0)])
    metas = infer_metas(result, catalog, ["dwh.fact_payment"], None)
    stored = [m.model_dump(mode="json") for m in metas]
    again = [ColumnMeta.model_validate(m) for m in stored]
    decision = choose_chart(result, again, "ru")
    spec = chartjs_from_data(build_chart_data(decision, result, again, "ru"))
    assert spec["data"]["labels"] == ["POS-терминал", "QR-код"]

    sql = "SELECT * FROM (VALUES ('pos', 10.0), ('web', 5.0), ('qr', 1.0)) t(channel, amount_rub)"
    view = DatasetRef(id="v", uuid="d", sql=sql, columns=stored)
    bundle = DashboardBundle(id="b", uuid="u", title="t", language="ru", datasets=[view])
    found = dataset_yaml(bundle, bundle.datasets[0], SupersetDatabase("w", "duckdb:///x"))
    column = next(c for c in found["columns"] if c["column_name"] == "channel")
    assert "'POS-терминал'" in column["expression"]
    assert (
        next(c for c in found["columns"] if c["column_name"] == "amount_rub")["expression"] is None
    )
    shown = duckdb.sql(
        f"SELECT {column['expression']} AS channel FROM ({sql}) AS virtual_table ORDER BY 1"
    ).fetchall()
    assert [r[0] for r in shown] == ["POS-терминал", "QR-код", "сайт"]
