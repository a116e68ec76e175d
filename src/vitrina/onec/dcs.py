"""A data composition schema (СКД, `Template.xml` of a report) for a generated 1C query.

Holds the data set with the query and its fields (titled in Russian), the resources
(totals), the query's parameters and a default settings variant that selects every field
and groups by the first dimension, so a developer can paste it into a report as is.
"""

from __future__ import annotations

from xml.sax.saxutils import escape

from vitrina.onec.query import OneCQuery

HEADER = ('<?xml version="1.0" encoding="UTF-8"?>\n<DataCompositionSchema '
          'xmlns="http://v8.1c.ru/8.1/data-composition-system/schema" '
          'xmlns:dcscom="http://v8.1c.ru/8.1/data-composition-system/common" '
          'xmlns:dcscor="http://v8.1c.ru/8.1/data-composition-system/core" '
          'xmlns:dcsset="http://v8.1c.ru/8.1/data-composition-system/settings" '
          'xmlns:v8="http://v8.1c.ru/8.1/data/core" xmlns:xs="http://www.w3.org/2001/XMLSchema" '
          'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">')


def _title(text: str, indent: str) -> str:
    return (f'{indent}<title xsi:type="v8:LocalStringType">\n{indent}\t<v8:item>\n{indent}\t\t<v8:lang>ru</v8:lang>\n'
            f"{indent}\t\t<v8:content>{escape(text)}</v8:content>\n{indent}\t</v8:item>\n{indent}</title>\n")


def write_dcs(q: OneCQuery) -> str:
    """The schema XML for a query written by `write_query`."""
    out = [HEADER, "\t<dataSource>\n\t\t<name>ИсточникДанных1</name>\n\t\t<dataSourceType>Local</dataSourceType>\n\t</dataSource>",
           '\t<dataSet xsi:type="DataSetQuery">\n\t\t<name>НаборДанных1</name>']
    for alias, _role, title in q.fields:
        out.append(f'\t\t<field xsi:type="DataSetFieldField">\n\t\t\t<dataPath>{alias}</dataPath>\n'
                   f"\t\t\t<field>{alias}</field>\n" + _title(title, "\t\t\t") + "\t\t</field>")
    out.append(f"\t\t<dataSource>ИсточникДанных1</dataSource>\n\t\t<query>{escape(q.text)}</query>\n\t</dataSet>")
    for alias, role, _title_text in q.fields:
        if role == "resource":
            out.append(f"\t<totalField>\n\t\t<dataPath>{alias}</dataPath>\n\t\t<expression>Сумма({alias})</expression>\n"
                       "\t</totalField>")
    for name, meaning in q.parameters.items():
        out.append(f"\t<parameter>\n\t\t<name>{name}</name>\n" + _title(meaning.split(": ", 1)[-1], "\t\t")
                   + "\t\t<valueType>\n\t\t\t<v8:Type>xs:dateTime</v8:Type>\n\t\t\t<v8:DateQualifiers>\n"
                   "\t\t\t\t<v8:DateFractions>Date</v8:DateFractions>\n\t\t\t</v8:DateQualifiers>\n\t\t</valueType>\n"
                   '\t\t<value xsi:type="xs:dateTime">0001-01-01T00:00:00</value>\n'
                   "\t\t<useRestriction>false</useRestriction>\n\t</parameter>")
    group_by = next((a for a, role, _ in q.fields if role in ("dimension", "period")), None)
    selection = "".join(f'\t\t\t\t<dcsset:item xsi:type="dcsset:SelectedItemField">\n\t\t\t\t\t<dcsset:field>{a}</dcsset:field>\n'
                        "\t\t\t\t</dcsset:item>\n" for a, role, _ in q.fields if role != "presentation")
    group = ""
    if group_by:
        group = ('\t\t\t<dcsset:item xsi:type="dcsset:StructureItemGroup">\n\t\t\t\t<dcsset:groupItems>\n'
                 '\t\t\t\t\t<dcsset:item xsi:type="dcsset:GroupItemField">\n'
                 f"\t\t\t\t\t\t<dcsset:field>{group_by}</dcsset:field>\n\t\t\t\t\t\t<dcsset:groupType>Items</dcsset:groupType>\n"
                 "\t\t\t\t\t</dcsset:item>\n\t\t\t\t</dcsset:groupItems>\n"
                 '\t\t\t\t<dcsset:order>\n\t\t\t\t\t<dcsset:item xsi:type="dcsset:OrderItemAuto"/>\n\t\t\t\t</dcsset:order>\n'
                 '\t\t\t\t<dcsset:selection>\n\t\t\t\t\t<dcsset:item xsi:type="dcsset:SelectedItemAuto"/>\n'
                 "\t\t\t\t</dcsset:selection>\n\t\t\t</dcsset:item>\n")
    out.append("\t<settingsVariant>\n\t\t<dcsset:name>Основной</dcsset:name>\n"
               '\t\t<dcsset:presentation xsi:type="xs:string">Основной</dcsset:presentation>\n\t\t<dcsset:settings>\n'
               f"\t\t\t<dcsset:selection>\n{selection}\t\t\t</dcsset:selection>\n{group}\t\t</dcsset:settings>\n"
               "\t</settingsVariant>")
    out.append("</DataCompositionSchema>\n")
    return "\n".join(out)
