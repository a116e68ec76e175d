"""A data composition schema (СКД, `Template.xml` of a report) for a generated 1C query.

The shape is the platform's, as in the configurations' own schemas: a local data source; a
query data set whose fields carry titles and roles (`dcscom:periodNumber` for the period,
`dcscom:dimension` for dimensions) and whose query text has no ИТОГИ (the schema totals
its resources itself); `totalField` resources; typed parameters; a settings variant
"Основной" with the selected fields, the request's filters, the parameter values and a
grouping by the first dimension with the details under it.
"""

from __future__ import annotations

from xml.sax.saxutils import escape

from vitrina.onec.model import MetaObject
from vitrina.onec.query import OneCQuery

HEADER = (
    '<?xml version="1.0" encoding="UTF-8"?>\n<DataCompositionSchema '
    'xmlns="http://v8.1c.ru/8.1/data-composition-system/schema" '
    'xmlns:dcscom="http://v8.1c.ru/8.1/data-composition-system/common" '
    'xmlns:dcscor="http://v8.1c.ru/8.1/data-composition-system/core" '
    'xmlns:dcsset="http://v8.1c.ru/8.1/data-composition-system/settings" '
    'xmlns:v8="http://v8.1c.ru/8.1/data/core" xmlns:v8ui="http://v8.1c.ru/8.1/data/ui" '
    'xmlns:xs="http://www.w3.org/2001/XMLSchema" '
    'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">'
)
SETTINGS_NS = (
    'xmlns:style="http://v8.1c.ru/8.1/data/ui/style" '
    'xmlns:sys="http://v8.1c.ru/8.1/data/ui/fonts/system" '
    'xmlns:web="http://v8.1c.ru/8.1/data/ui/colors/web" '
    'xmlns:win="http://v8.1c.ru/8.1/data/ui/colors/windows"'
)
CFG = 'xmlns:d5p1="http://v8.1c.ru/8.1/data/enterprise/current-config"'


def _title(tag: str, text: str, indent: str) -> str:
    return (
        f"{indent}<{tag} "
        f'xsi:type="v8:LocalStringType">\n{indent}\t<v8:item>\n{indent}\t\t<v8:lang>ru</v8:lang>\n'
        f"{indent}\t\t<v8:content>{escape(text)}</v8:content>\n{indent}\t</v8:item>\n{indent}</{tag}>\n"
    )


def _role(role: str, indent: str) -> str:
    if role == "period":
        return (
            f"{indent}<role>\n{indent}\t<dcscom:periodNumber>1</dcscom:periodNumber>\n"
            f"{indent}\t<dcscom:periodType>Main</dcscom:periodType>\n{indent}</role>\n"
        )
    if role == "dimension":
        return (
            f"{indent}<role>\n"
            f"{indent}\t<dcscom:dimension>true</dcscom:dimension>\n"
            f"{indent}</role>\n"
        )
    return ""


def _value_type(register: MetaObject, alias: str, role: str, indent: str) -> str:
    f = register.field(alias)
    if role == "period" or alias in ("Период", "Дата"):
        return (
            f"{indent}<valueType>\n{indent}\t<v8:Type>xs:dateTime</v8:Type>\n{indent}\t<v8:DateQualifiers>\n"
            f"{indent}\t\t<v8:DateFractions>DateTime</v8:DateFractions>\n{indent}\t</v8:DateQualifiers>\n"
            f"{indent}</valueType>\n"
        )
    if f is not None and f.ref_target:
        head, _, name = f.ref_target.partition(".")
        return (
            f"{indent}<valueType>\n{indent}\t<v8:Type "
            f"{CFG}>d5p1:{head}Ref.{name}</v8:Type>\n{indent}</valueType>\n"
        )
    return ""


def _parameter(name: str, meaning: str, value: str, indent: str) -> str:
    kind, _, says = meaning.partition(": ")
    value = value or ("" if kind == "Строка" else "0001-01-01T00:00:00")
    if kind in ("Дата", "Граница"):
        return (
            f"{indent}<parameter>\n{indent}\t<name>{name}</name>\n"
            + _title("title", says or name, indent + "\t")
            + f"{indent}\t<valueType>\n{indent}\t\t<v8:Type>xs:dateTime</v8:Type>\n"
            f"{indent}\t\t<v8:DateQualifiers>\n{indent}\t\t\t<v8:DateFractions>DateTime</v8:DateFractions>\n"
            f"{indent}\t\t</v8:DateQualifiers>\n{indent}\t</valueType>\n"
            f'{indent}\t<value xsi:type="xs:dateTime">{escape(value)}</value>\n'
            f"{indent}\t<useRestriction>false</useRestriction>\n{indent}</parameter>\n"
        )
    if kind == "Строка":  # a filter by a name the request typed ("на складе «Main»")
        return (
            f"{indent}<parameter>\n{indent}\t<name>{name}</name>\n"
            + _title("title", says or name, indent + "\t")
            + f"{indent}\t<valueType>\n{indent}\t\t<v8:Type>xs:string</v8:Type>\n"
            f"{indent}\t</valueType>\n"
            f'{indent}\t<value xsi:type="xs:string">{escape(value)}</value>\n'
            f"{indent}\t<useRestriction>false</useRestriction>\n{indent}</parameter>\n"
        )
    return (
        f"{indent}<parameter>\n{indent}\t<name>{name}</name>\n"
        + _title("title", says or name, indent + "\t")
        + f"{indent}\t<useRestriction>false</useRestriction>\n{indent}</parameter>\n"
    )


def _xs(meaning: str) -> str:
    return "xs:string" if meaning.partition(": ")[0] == "Строка" else "xs:dateTime"


def _settings(q: OneCQuery, values: dict[str, str]) -> str:
    i = "\t\t\t"
    selection = "".join(
        f'{i}\t<dcsset:item xsi:type="dcsset:SelectedItemField">\n{i}\t\t<dcsset:field>{a}'
        f"</dcsset:field>\n{i}\t</dcsset:item>\n"
        for a, role, _ in q.fields
        if role != "presentation"
    )
    params = "".join(
        f'{i}\t<dcscor:item xsi:type="dcsset:SettingsParameterValue">\n{i}\t\t<dcscor:parameter>{n}'
        f'</dcscor:parameter>\n{i}\t\t<dcscor:value xsi:type="{_xs(m)}">{escape(values[n])}'
        f"</dcscor:value>\n{i}\t</dcscor:item>\n"
        for n, m in q.parameters.items()
        if values.get(n)
    )
    group_by = next((a for a, role, _ in q.fields if role == "dimension"), None)
    group = ""
    if group_by:
        group = (
            f'{i}<dcsset:item xsi:type="dcsset:StructureItemGroup">\n{i}\t<dcsset:groupItems>\n'
            f"{i}\t\t<dcsset:item "
            f'xsi:type="dcsset:GroupItemField">\n{i}\t\t\t<dcsset:field>{group_by}'
            f"</dcsset:field>\n{i}\t\t\t<dcsset:groupType>Items</dcsset:groupType>\n"
            f"{i}\t\t\t<dcsset:periodAdditionType>None</dcsset:periodAdditionType>\n{i}\t\t</dcsset:item>\n"
            f"{i}\t</dcsset:groupItems>\n{i}\t<dcsset:order>\n{i}\t\t<dcsset:item "
            'xsi:type="dcsset:OrderItemAuto"/>\n'
            f"{i}\t</dcsset:order>\n{i}\t<dcsset:selection>\n{i}\t\t<dcsset:item "
            'xsi:type="dcsset:SelectedItemAuto"/>\n'
            f'{i}\t</dcsset:selection>\n{i}\t<dcsset:item xsi:type="dcsset:StructureItemGroup">\n'
            f"{i}\t\t<dcsset:order>\n{i}\t\t\t<dcsset:item "
            f'xsi:type="dcsset:OrderItemAuto"/>\n{i}\t\t</dcsset:order>\n'
            f"{i}\t\t<dcsset:selection>\n{i}\t\t\t<dcsset:item "
            'xsi:type="dcsset:SelectedItemAuto"/>\n'
            f"{i}\t\t</dcsset:selection>\n{i}\t</dcsset:item>\n{i}</dcsset:item>\n"
        )
    else:
        group = (
            f'{i}<dcsset:item xsi:type="dcsset:StructureItemGroup">\n{i}\t<dcsset:order>\n'
            f"{i}\t\t<dcsset:item "
            f'xsi:type="dcsset:OrderItemAuto"/>\n{i}\t</dcsset:order>\n{i}\t<dcsset:selection>\n'
            f"{i}\t\t<dcsset:item "
            f'xsi:type="dcsset:SelectedItemAuto"/>\n{i}\t</dcsset:selection>\n{i}</dcsset:item>\n'
        )
    return (
        "\t<settingsVariant>\n\t\t<dcsset:name>Основной</dcsset:name>\n"
        '\t\t<dcsset:presentation xsi:type="xs:string">Основной</dcsset:presentation>\n'
        f"\t\t<dcsset:settings {SETTINGS_NS}>\n"
        f"{i}<dcsset:selection>\n{selection}{i}</dcsset:selection>\n"
        + (f"{i}<dcsset:dataParameters>\n{params}{i}</dcsset:dataParameters>\n" if params else "")
        + f"{group}\t\t</dcsset:settings>\n\t</settingsVariant>\n"
    )


def write_dcs(q: OneCQuery, *, values: dict[str, str] | None = None) -> str:
    """The schema XML for a query written by `write_query` (its text has no ИТОГИ);
    `values` are the parameter values the settings variant starts with."""
    values = values or {}
    text = q.text.split("\nИТОГИ\n", 1)[0]
    out = [
        HEADER + "\n",
        "\t<dataSource>\n\t\t<name>ИсточникДанных1</name>\n"
        "\t\t<dataSourceType>Local</dataSourceType>\n\t</dataSource>\n",
        '\t<dataSet xsi:type="DataSetQuery">\n\t\t<name>НаборДанных1</name>\n',
    ]
    for alias, role, title in q.fields:
        if role == "presentation":
            continue
        out.append(
            f'\t\t<field xsi:type="DataSetFieldField">\n\t\t\t<dataPath>{alias}</dataPath>\n'
            f"\t\t\t<field>{alias}</field>\n"
            + _title("title", title, "\t\t\t")
            + _role(role, "\t\t\t")
            + _value_type(q.register, alias, role, "\t\t\t")
            + "\t\t</field>\n"
        )
    out.append(
        f"\t\t<dataSource>ИсточникДанных1</dataSource>\n\t\t<query>{escape(text)}</query>\n"
        "\t\t<autoFillFields>false</autoFillFields>\n\t</dataSet>\n"
    )
    for alias, role, _ in q.fields:
        if role == "resource":
            out.append(
                f"\t<totalField>\n\t\t<dataPath>{alias}</dataPath>\n\t\t<expression>Сумма({alias})</expression>\n"
                "\t</totalField>\n"
            )
    for name, meaning in q.parameters.items():
        out.append(_parameter(name, meaning, values.get(name, ""), "\t"))
    out.append(_settings(q, values))
    out.append("</DataCompositionSchema>\n")
    return "".join(out)
