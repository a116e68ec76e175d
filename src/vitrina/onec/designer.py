"""Reader of the Designer XML dump (`MetaDataObject`, UTF-8 with BOM).

Layout: Configuration.xml lists objects in ChildObjects (`<Catalog>Name</Catalog>`); each
object lives in `<Folder>/<Name>.xml` with Properties and ChildObjects.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from vitrina.onec.kinds import KINDS
from vitrina.onec.model import Configuration, MetaField, MetaObject, OneCWarning, TabularSection
from vitrina.onec.query_texts import configuration_queries
from vitrina.onec.xmlutil import child, children, local, parse_file, text

FIELD_TAGS = {
    "Attribute": "attribute",
    "Dimension": "dimension",
    "Resource": "resource",
    "EnumValue": "enum_value",
}


def synonyms(props: ET.Element | None) -> dict[str, str]:
    """`<Synonym><v8:item><v8:lang>ru</v8:lang><v8:content>...` -> {'ru': ...}."""
    out: dict[str, str] = {}
    for item in children(child(props, "Synonym"), "item"):
        lang, content = text(item, "lang"), text(item, "content")
        if lang and content:
            out[lang] = content
    return out


def _field(node: ET.Element, role: str) -> MetaField:
    props = child(node, "Properties")
    types = [(t.text or "").strip() for t in children(child(props, "Type"), "Type") if t.text]
    return MetaField(name=text(props, "Name"), role=role, synonyms=synonyms(props), types=types)  # type: ignore[arg-type]


def read_object(path: Path) -> MetaObject:
    root = parse_file(path)
    node = next(iter(root))
    props = child(node, "Properties")
    obj = MetaObject(
        kind=local(node.tag), name=text(props, "Name"), synonyms=synonyms(props), file=str(path)
    )
    register_type = text(props, "RegisterType")
    if obj.kind == "AccumulationRegister":
        obj.register_type = "Turnovers" if register_type == "Turnovers" else "Balance"
    if obj.kind == "InformationRegister":
        obj.periodicity = text(props, "InformationRegisterPeriodicity", "Nonperiodical")
        obj.write_mode = text(props, "WriteMode", "Independent")
    obj.chart_of_accounts = text(props, "ChartOfAccounts") or None
    obj.register_records = [
        (i.text or "").strip() for i in children(child(props, "RegisterRecords"), "Item") if i.text
    ]
    kids = child(node, "ChildObjects")
    for item in kids if kids is not None else []:
        tag = local(item.tag)
        if tag in FIELD_TAGS:
            field = _field(item, FIELD_TAGS[tag])
            {
                "attribute": obj.attributes,
                "dimension": obj.dimensions,
                "resource": obj.resources,
                "enum_value": obj.enum_values,
            }[field.role].append(field)
        elif tag == "TabularSection":
            tprops = child(item, "Properties")
            section = TabularSection(name=text(tprops, "Name"), synonyms=synonyms(tprops))
            section.attributes = [
                _field(a, "attribute") for a in children(child(item, "ChildObjects"), "Attribute")
            ]
            obj.tabular_sections.append(section)
        elif tag == "Template":
            obj.templates.append((item.text or "").strip())
    folder = path.with_suffix("")
    predefined = folder / "Ext" / "Predefined.xml"
    if predefined.is_file():
        obj.predefined = read_predefined(predefined)
    if obj.kind == "Report":
        obj.queries = [
            q.text for q in configuration_queries(folder / "Templates") if q.file.endswith(".xml")
        ]
    return obj


def read_predefined(path: Path) -> list[MetaField]:
    """`Ext/Predefined.xml`: items with Name and Description (nested groups too)."""
    out = []
    for item in parse_file(path).iter():
        if local(item.tag) == "Item" and text(item, "Name"):
            description = text(item, "Description")
            out.append(
                MetaField(
                    name=text(item, "Name"),
                    role="predefined",
                    synonyms={"ru": description} if description else {},
                )
            )
    return out


def read_designer(root: Path) -> Configuration:
    """Read Configuration.xml and every object file it names; a missing file is a warning."""
    cfg_root = parse_file(root / "Configuration.xml")
    node = child(cfg_root, "Configuration")
    props = child(node, "Properties")
    config = Configuration(
        name=text(props, "Name"), format="designer", root=str(root), synonyms=synonyms(props)
    )
    for item in child(node, "ChildObjects") or []:
        kind_name, name = local(item.tag), (item.text or "").strip()
        config.listed.setdefault(kind_name, []).append(name)
        kind = KINDS.get(kind_name)
        if kind is None:
            continue  # languages, subsystems, roles, modules: not metadata a report reads
        path = root / kind.folder / f"{name}.xml"
        if not path.is_file():
            config.warnings.append(
                OneCWarning(
                    code="missing_file",
                    name=f"{kind_name}.{name}",
                    file=str(path),
                    message=f"{kind_name}.{name}: object file {path.name} not found",
                )
            )
            continue
        try:
            obj = read_object(path)
        except (ET.ParseError, StopIteration, OSError) as exc:
            config.warnings.append(
                OneCWarning(
                    code="unreadable_file",
                    name=f"{kind_name}.{name}",
                    file=str(path),
                    message=f"{path}: {exc}",
                )
            )
            continue
        config.objects[obj.full_name] = obj
    return config
