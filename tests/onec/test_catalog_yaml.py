"""The catalog built from a configuration round-trips through YAML and `load_catalog`."""

from __future__ import annotations

from pathlib import Path

from vitrina.catalog import load_catalog
from vitrina.onec import OneCSource, write_catalog_yaml

TRADE = Path(__file__).parent / "fixtures" / "trade-designer"


def test_yaml_draft_loads_back_without_problems(tmp_path):
    source = OneCSource.load(TRADE)
    path = write_catalog_yaml(source.catalog, tmp_path)
    loaded = load_catalog(path.parent)
    assert not loaded.problems
    assert set(loaded.tables) == set(source.catalog.tables) and set(loaded.metrics) == set(
        source.catalog.metrics
    )
    sales = loaded.tables["регистрнакопления.продажи"]
    assert (
        sales.default_date == "период" and sales.column("номенклатура").label_ru == "Номенклатура"
    )
    assert "обороты" in sales.description_ru and "РеализацияТоваровУслуг" in sales.description_ru
