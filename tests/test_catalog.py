"""Catalog loading: the demo catalog is valid; every broken input names its file and line."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from vitrina.catalog import DEMO_CATALOG, CatalogError, load_catalog


@pytest.fixture
def catalog_copy(tmp_path: Path) -> Path:
    target = tmp_path / "catalog"
    shutil.copytree(DEMO_CATALOG, target)
    return target


def test_demo_catalog_is_complete() -> None:
    catalog = load_catalog(strict=True)
    assert set(catalog.topics) == {"payments", "wallets", "cards", "clients"}
    assert len(catalog.tables) == 9 and len(catalog.metrics) >= 10
    assert catalog.info.segment_column == "dwh.dim_client.segment"
    for metric in catalog.metrics.values():
        assert catalog.metric_date_column(metric), metric.id
    for dictionary in catalog.dictionaries.values():
        assert dictionary.values


def test_join_path_is_many_to_one_and_shortest() -> None:
    catalog = load_catalog()
    path = catalog.join_path("dwh.fact_payment", "dwh.dim_region")
    assert [(r.left, r.right) for r in path] == [
        ("dwh.fact_payment.client_id", "dwh.dim_client.client_id"),
        ("dwh.dim_client.region_id", "dwh.dim_region.region_id"),
    ]
    assert catalog.join_path("dwh.dim_region", "dwh.fact_payment") is None  # would multiply rows


def test_instructions_are_filtered_by_tags() -> None:
    catalog = load_catalog()
    ids = {i.id for i in catalog.instructions_for({"wallets"})}
    assert "wallet-openings" in ids and "success-only" not in ids


def test_invalid_yaml_names_file_and_line(catalog_copy: Path) -> None:
    bad = catalog_copy / "topics.yaml"
    bad.write_text("topics:\n  - id: x\n    name_ru: [unclosed\n", encoding="utf-8")
    with pytest.raises(CatalogError) as info:
        load_catalog(catalog_copy, strict=True)
    first = str(info.value.problems[0])
    assert first.startswith(f"{bad}:") and "invalid YAML" in first


def test_unknown_key_names_file_line_and_path(catalog_copy: Path) -> None:
    path = catalog_copy / "tables" / "dim_region.yaml"
    text = path.read_text(encoding="utf-8").replace("role: key,", "role: key, colour: red,", 1)
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CatalogError) as info:
        load_catalog(catalog_copy, strict=True)
    problem = info.value.problems[0]
    assert problem.file == path and problem.line == 7  # the line of region_id
    assert problem.where == "tables[0].columns[0].colour" and "Extra inputs" in problem.message


def test_bad_role_is_reported_and_the_rest_loads(catalog_copy: Path) -> None:
    path = catalog_copy / "tables" / "dim_merchant.yaml"
    path.write_text(
        path.read_text(encoding="utf-8").replace("role: dimension", "role: dimensions", 1),
        encoding="utf-8",
    )
    catalog = load_catalog(catalog_copy)  # not strict: one bad table is skipped and reported
    assert "dwh.dim_merchant" not in catalog.tables and "dwh.fact_payment" in catalog.tables
    assert any(p.file == path and "role" in p.where for p in catalog.problems)


def test_broken_reference_is_reported(catalog_copy: Path) -> None:
    path = catalog_copy / "metrics.yaml"
    path.write_text(
        path.read_text(encoding="utf-8").replace("table: dwh.fact_card_issue", "table: dwh.cards"),
        encoding="utf-8",
    )
    with pytest.raises(CatalogError) as info:
        load_catalog(catalog_copy, strict=True)
    assert any(
        "cards_issued" in p.where and "unknown table 'dwh.cards'" in p.message and p.line
        for p in info.value.problems
    )


def test_missing_folder_says_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(CatalogError, match="vitrina catalog init"):
        load_catalog(tmp_path / "nope")


def test_unknown_section(catalog_copy: Path) -> None:
    (catalog_copy / "extra.yaml").write_text("metricz: []\n", encoding="utf-8")
    with pytest.raises(CatalogError, match="unknown section 'metricz'"):
        load_catalog(catalog_copy, strict=True)


def test_metric_naming_a_missing_column_is_reported(catalog_copy: Path) -> None:
    path = catalog_copy / "metrics.yaml"
    text = path.read_text(encoding="utf-8").replace(
        "expression: SUM(fee_rub)", "expression: SUM(fee_usd)", 1
    )
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CatalogError) as info:
        load_catalog(catalog_copy, strict=True)
    problem = str(info.value.problems[0])
    assert problem.startswith(f"{path}:") and "fee_income" in problem and "['fee_usd']" in problem


def test_date_through_a_relation_and_named_dates(catalog_copy: Path) -> None:
    """`date_column: table.column` of a joined table is accepted; one no relation reaches is not."""
    path = catalog_copy / "metrics.yaml"
    text = path.read_text(encoding="utf-8")
    text = text.replace(
        "    topic: payments\n    synonyms: [комисси,",
        "    topic: payments\n    dates: {paid: payment_date, registered: "
        "dim_client.registered_date}\n    default_date: paid\n    synonyms: [комисси,",
        1,
    )
    text = text.replace(
        "    topic: wallets\n", "    topic: wallets\n    date_column: dim_merchant.merchant_id\n", 1
    )
    path.write_text(text, encoding="utf-8")
    catalog = load_catalog(catalog_copy)
    dates = catalog.metric_dates(catalog.metrics["fee_income"])
    assert [(d.name, d.table, d.column) for d in dates] == [
        ("paid", "dwh.fact_payment", "payment_date"),
        ("registered", "dwh.dim_client", "registered_date"),
    ]
    assert "wallets_opened" not in catalog.metrics
    assert any("no many-to-one relation path" in p.message for p in catalog.problems)


def test_segments_are_the_catalogs_own(catalog_copy: Path) -> None:
    """Any dimension can scope a dialog: segment ids come from segment_values, and every
    mention of a segment id elsewhere must name one of them."""
    path = catalog_copy / "catalog.yaml"
    text = path.read_text(encoding="utf-8")
    renamed = (
        text.replace("{b2b: B2B, b2c: B2C}", "{corp: B2B, retail: B2C}")
        .replace("    b2b: [", "    corp: [")
        .replace("    b2c: [", "    retail: [")
    )
    path.write_text(renamed, encoding="utf-8")
    topics_file = catalog_copy / "topics.yaml"
    topics_file.write_text(
        topics_file.read_text(encoding="utf-8").replace("segment: any", "segment: b2b", 1),
        encoding="utf-8",
    )
    catalog = load_catalog(catalog_copy)
    assert catalog.info.segment_ids() == ["corp", "retail"]
    assert catalog.info.dialog_segment("RETAIL") == "retail"
    with pytest.raises(ValueError, match="this catalog has auto, corp, retail"):
        catalog.info.dialog_segment("b2b")
    # a topic still saying b2b is reported by file and line, and read as 'any'
    topics = [p for p in catalog.problems if p.where.startswith("topics")]
    assert len(topics) == 1 and "unknown segment 'b2b'" in topics[0].message
    assert topics[0].file == topics_file and topics[0].line
    assert all(t.segment in ("any", "corp", "retail") for t in catalog.topics.values())

    path.write_text(text.replace("    b2c: [", "    vip: [", 1), encoding="utf-8")
    with pytest.raises(CatalogError) as info:
        load_catalog(catalog_copy, strict=True)
    assert any("segment_keywords name segments ['vip']" in p.message for p in info.value.problems)
