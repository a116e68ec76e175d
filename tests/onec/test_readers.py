"""Both dump formats on the real fixtures: every object, attribute, dimension, resource, enum
value and recorder link read (counted here independently, with regular expressions over the
files), and the objects Configuration.xml names without a file reported, not fatal."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from tests.conftest import writable_copy

from vitrina.onec import read_configuration, to_catalog

# Designer folders of the object kinds the reader reads, written out here on purpose
DESIGNER_FOLDERS = {
    "Catalog": "Catalogs",
    "Document": "Documents",
    "Enum": "Enums",
    "Report": "Reports",
    "DataProcessor": "DataProcessors",
    "InformationRegister": "InformationRegisters",
    "AccumulationRegister": "AccumulationRegisters",
    "AccountingRegister": "AccountingRegisters",
    "CalculationRegister": "CalculationRegisters",
    "ChartOfAccounts": "ChartsOfAccounts",
    "ChartOfCharacteristicTypes": "ChartsOfCharacteristicTypes",
    "ChartOfCalculationTypes": "ChartsOfCalculationTypes",
    "ExchangePlan": "ExchangePlans",
    "BusinessProcess": "BusinessProcesses",
    "Task": "Tasks",
    "Constant": "Constants",
    "DocumentJournal": "DocumentJournals",
}


def _count(text: str, tag: str) -> int:
    return len(re.findall(rf"<{tag} uuid=", text))


def _read_counts(config) -> dict[str, int]:
    objs = config.objects.values()
    return {
        "attributes": sum(
            len(o.attributes) + sum(len(t.attributes) for t in o.tabular_sections) for o in objs
        ),
        "tabular_sections": sum(len(o.tabular_sections) for o in objs),
        "dimensions": sum(len(o.dimensions) for o in objs),
        "resources": sum(len(o.resources) for o in objs),
        "enum_values": sum(len(o.enum_values) for o in objs),
        "recorder_links": sum(len(o.register_records) for o in objs),
    }


@pytest.mark.fixtures
def test_designer_fixture_every_item_read(shared_fixtures):
    root = shared_fixtures / "onec" / "designer-mdclasses"
    config = read_configuration(root)
    files = [
        p
        for p in root.rglob("*.xml")
        if p.name != "Configuration.xml" and "Templates" not in p.parts
    ]
    texts = [p.read_text(encoding="utf-8-sig") for p in files]
    assert len(config.objects) == len(files) == 12
    expected = {
        "attributes": sum(_count(t, "Attribute") for t in texts),
        "tabular_sections": sum(_count(t, "TabularSection") for t in texts),
        "dimensions": sum(_count(t, "Dimension") for t in texts),
        "resources": sum(_count(t, "Resource") for t in texts),
        "enum_values": sum(_count(t, "EnumValue") for t in texts),
        "recorder_links": sum(
            len(re.findall(r'<xr:Item xsi:type="xr:MDObjectRef">', t)) for t in texts
        ),
    }
    assert _read_counts(config) == expected
    assert expected["recorder_links"] == 6 and expected["dimensions"] == 8
    doc = config.get("Документ.Документ1")
    assert doc.register_records == [
        "InformationRegister.РегистрСведений2",
        "AccumulationRegister.РегистрНакопления2",
        "CalculationRegister.РегистрРасчета1",
    ]
    assert [t.name for t in doc.tabular_sections] == ["ТабличнаяЧасть1", "ТабличнаяЧасть2"]
    assert config.get("AccumulationRegister.РегистрНакопления1").register_type == "Balance"
    assert config.get("AccumulationRegister.РегистрНакопления2").register_type == "Turnovers"
    assert config.get("InformationRegister.РегистрСведений1").periodicity == "Nonperiodical"
    assert config.get("Catalog.Справочник1").synonyms == {"ru": "Справочник1"}
    assert config.recorders("AccumulationRegister.РегистрНакопления1") == ["Document.Документ2"]


@pytest.mark.fixtures
def test_designer_missing_object_files_are_warnings(shared_fixtures):
    root = shared_fixtures / "onec" / "designer-mdclasses"
    listed = re.findall(
        r"<(\w+)>([^<]+)</\1>",
        (root / "Configuration.xml").read_text(encoding="utf-8-sig").split("<ChildObjects>")[1],
    )
    expected = sorted(
        f"{k}.{n}"
        for k, n in listed
        if k in DESIGNER_FOLDERS and not (root / DESIGNER_FOLDERS[k] / f"{n}.xml").exists()
    )
    config = read_configuration(root)
    missing = sorted(w.name for w in config.warnings if w.code == "missing_file")
    assert missing == expected and "ChartOfAccounts.ПланСчетов1" in missing and len(missing) == 15
    assert all(w.name in w.message for w in config.warnings)
    unknown = [w for w in config.warnings if w.code == "unknown_reference"]
    assert {w.name for w in unknown} == {"CalculationRegister.РегистрРасчета1"}


@pytest.mark.fixtures
def test_edt_fixture_every_item_read(shared_fixtures):
    root = shared_fixtures / "onec" / "edt-qlfulldemo"
    config = read_configuration(root)
    files = [p for p in root.rglob("*.mdo") if p.parent.name != "Configuration"]
    texts = [p.read_text(encoding="utf-8") for p in files]
    assert len(config.objects) == len(files) == 6 and not config.warnings
    expected = {
        "attributes": sum(_count(t, "attributes") for t in texts),
        "tabular_sections": sum(_count(t, "tabularSections") for t in texts),
        "dimensions": sum(_count(t, "dimensions") for t in texts),
        "resources": sum(_count(t, "resources") for t in texts),
        "enum_values": sum(_count(t, "enumValues") for t in texts),
        "recorder_links": sum(len(re.findall(r"<registerRecords>", t)) for t in texts),
    }
    assert _read_counts(config) == expected
    stocks = config.get("AccumulationRegister.Stocks")
    assert stocks.register_type == "Balance" and [d.name for d in stocks.dimensions] == [
        "Product",
        "Warehouse",
    ]
    assert config.get("InformationRegister.Prices").periodicity == "Second"
    assert config.recorders("AccumulationRegister.Stocks") == ["Document.ProductArraival"]
    assert config.get("Enum.ProductType").synonyms == {"en": "Product type"}


@pytest.mark.fixtures
def test_edt_missing_object_file_is_a_warning(shared_fixtures, tmp_path):
    import shutil

    root = tmp_path / "edt"
    writable_copy(shared_fixtures / "onec" / "edt-qlfulldemo", root)
    shutil.rmtree(root / "Enums")
    config = read_configuration(root)
    assert [w.name for w in config.warnings] == ["Enum.ProductType"] and len(config.objects) == 5
    catalog = to_catalog(
        config
    )  # the reference to the missing enum becomes no relation, not an error
    assert "справочник.products" in catalog.tables and not catalog.problems


@pytest.mark.fixtures
@pytest.mark.parametrize("name", ["designer-mdclasses", "edt-qlfulldemo"])
def test_fixture_catalogs_build_clean(shared_fixtures, name):
    catalog = to_catalog(read_configuration(shared_fixtures / "onec" / name))
    assert catalog.tables and catalog.metrics and not catalog.problems


def test_not_a_dump_is_an_input_error(tmp_path: Path):
    from vitrina.onec import OneCInputError

    with pytest.raises(OneCInputError, match=r"Configuration\.xml"):
        read_configuration(tmp_path)
