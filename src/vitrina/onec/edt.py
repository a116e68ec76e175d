"""Reader of the EDT dump (`*.mdo`, namespace mdclass).

Layout: Configuration/Configuration.mdo lists objects as `<catalogs>Catalog.Name</catalogs>`;
each object lives in `<Folder>/<Name>/<Name>.mdo`. EDT omits properties at their default
value: an accumulation register without registerType is a balance register, an
information register without a periodicity is non-periodic.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from vitrina.onec.kinds import kind_of
from vitrina.onec.model import Configuration, MetaField, MetaObject, OneCWarning, TabularSection
from vitrina.onec.query_texts import configuration_queries
from vitrina.onec.xmlutil import child, children, local, parse_file, text

FIELD_TAGS = {
    "attributes": "attribute",
    "dimensions": "dimension",
    "resources": "resource",
    "enumValues": "enum_value",
}
LIST_TAGS = {"name", "synonym", "languages", "containedObjects", "defaultLanguage"}


def synonyms(node: ET.Element | None) -> dict[str, str]:
    """`<synonym><key>ru</key><value>...</value></synonym>` (repeated) -> {'ru': ...}."""
    out: dict[str, str] = {}
    for syn in children(node, "synonym"):
        key, value = text(syn, "key"), text(syn, "value")
        if key and value:
            out[key] = value
    return out


def _field(node: ET.Element, role: str) -> MetaField:
    types = [(t.text or "").strip() for t in children(child(node, "type"), "types") if t.text]
    return MetaField(name=text(node, "name"), role=role, synonyms=synonyms(node), types=types)  # type: ignore[arg-type]


def read_object(path: Path) -> MetaObject:
    node = parse_file(path)
    obj = MetaObject(
        kind=local(node.tag), name=text(node, "name"), synonyms=synonyms(node), file=str(path)
    )
    if obj.kind == "AccumulationRegister":
        obj.register_type = "Turnovers" if text(node, "registerType") == "Turnovers" else "Balance"
    if obj.kind == "InformationRegister":
        obj.periodicity = text(node, "informationRegisterPeriodicity", "Nonperiodical")
        obj.write_mode = text(node, "writeMode", "Independent")
    obj.chart_of_accounts = text(node, "chartOfAccounts") or None
    obj.register_records = [
        (r.text or "").strip() for r in children(node, "registerRecords") if r.text
    ]
    for item in node:
        tag = local(item.tag)
        if tag in FIELD_TAGS:
            field = _field(item, FIELD_TAGS[tag])
            {
                "attribute": obj.attributes,
                "dimension": obj.dimensions,
                "resource": obj.resources,
                "enum_value": obj.enum_values,
            }[field.role].append(field)
        elif tag == "tabularSections":
            section = TabularSection(name=text(item, "name"), synonyms=synonyms(item))
            section.attributes = [_field(a, "attribute") for a in children(item, "attributes")]
            obj.tabular_sections.append(section)
        elif tag == "templates":
            obj.templates.append(text(item, "name"))
        elif tag == "predefined":
            obj.predefined = [
                MetaField(
                    name=text(i, "name"),
                    role="predefined",
                    synonyms={"ru": text(i, "description")} if text(i, "description") else {},
                )
                for i in item.iter()
                if local(i.tag) == "items" and text(i, "name")
            ]
    if obj.kind == "Report":
        obj.queries = [q.text for q in configuration_queries(path.parent / "Templates")]
    return obj


def read_edt(root: Path) -> Configuration:
    """Read Configuration.mdo and every object it lists; a missing file is a warning."""
    node = parse_file(root / "Configuration" / "Configuration.mdo")
    config = Configuration(
        name=text(node, "name"), format="edt", root=str(root), synonyms=synonyms(node)
    )
    for item in node:
        if local(item.tag) in LIST_TAGS or not item.text or "." not in item.text:
            continue
        kind, name = kind_of(item.text.strip())
        kind_name = kind.name if kind else item.text.strip().partition(".")[0]
        config.listed.setdefault(kind_name, []).append(name or item.text.strip().partition(".")[2])
        if kind is None:
            continue
        path = root / kind.folder / name / f"{name}.mdo"
        if not path.is_file():
            config.warnings.append(
                OneCWarning(
                    code="missing_file",
                    name=f"{kind.name}.{name}",
                    file=str(path),
                    message=f"{kind.name}.{name}: object file {path.name} not found",
                )
            )
            continue
        try:
            obj = read_object(path)
        except (ET.ParseError, OSError) as exc:
            config.warnings.append(
                OneCWarning(
                    code="unreadable_file",
                    name=f"{kind.name}.{name}",
                    file=str(path),
                    message=f"{path}: {exc}",
                )
            )
            continue
        config.objects[obj.full_name] = obj
    return config
