"""A 1C configuration as a Vitrina catalog, so the metadata analyst searches it like a warehouse.

Every data object becomes a table named `<Russian kind>.<Name>` in lower case
(`регистрнакопления.товарынаскладах`), tabular sections become `<object>.<section>` tables;
dimensions are `dimension` columns, resources `measure` columns; accumulation and
accounting register resources become SUM metrics; each register is a topic whose keywords
are the stems of its name and synonyms plus words of its kind ("остатк" for balances,
"оборот" for turnovers); reference-typed fields become relations to the referenced
table's `ссылка`; enum values become value dictionaries.
"""

from __future__ import annotations

from pathlib import Path

from vitrina.catalog import Catalog
from vitrina.catalog.model import (
    CatalogInfo,
    Column,
    ColumnRole,
    Dictionary,
    DictionaryValue,
    Metric,
    Relation,
    Table,
    Topic,
)
from vitrina.language.names import phrase, split_name, stems
from vitrina.onec.kinds import KINDS
from vitrina.onec.model import Configuration, MetaField, MetaObject
from vitrina.trace import Trace

KIND_WORDS: dict[str, dict[str, float]] = {
    "Balance": {"остатк": 3, "остаток": 3, "наличи": 2, "balance": 3, "stock": 2, "on hand": 2},
    "Turnovers": {"оборот": 3, "движени": 1, "turnover": 3},
    "InformationRegister": {"сведени": 1},
    "AccountingRegister": {"проводк": 2, "бухгалтер": 2, "счет": 1, "posting": 2},
}
KIND_LABELS = {
    "Catalog": ("справочник", "catalog"),
    "Document": ("документ", "document"),
    "Enum": ("перечисление", "enum"),
    "InformationRegister": ("регистр сведений", "information register"),
    "AccumulationRegister": ("регистр накопления", "accumulation register"),
    "AccountingRegister": ("регистр бухгалтерии", "accounting register"),
}
MONEY_STEMS = ("сумм", "стоимост", "amount", "цен", "price", "выручк")


def table_name(obj: MetaObject) -> str:
    return obj.ru_name.lower()


def _label(name: str, synonyms: dict[str, str], lang: str) -> str:
    return synonyms.get(lang) or (split_name(name).capitalize() if lang == "ru" else name)


def _synonyms(name: str, synonyms: dict[str, str]) -> list[str]:
    return list(
        dict.fromkeys(p for p in (phrase(name), *(phrase(s) for s in synonyms.values())) if p)
    )


def _column(field: MetaField, role: ColumnRole) -> Column:
    kind = "decimal" if field.numeric else ("reference" if field.ref_target else "varchar")
    return Column(
        name=field.name.lower(),
        type=kind,
        role=role,
        label_ru=_label(field.name, field.synonyms, "ru"),
        label_en=_label(field.name, field.synonyms, "en"),
        synonyms=_synonyms(field.name, field.synonyms),
        dictionary=bool(field.ref_target and field.ref_target.startswith("Enum.")),
        description=", ".join(field.types),
    )


def _std(name: str, role: ColumnRole, ru: str, en: str, kind: str = "varchar") -> Column:
    return Column(
        name=name, type=kind, role=role, label_ru=ru, label_en=en, synonyms=[phrase(ru), phrase(en)]
    )


def _object_columns(obj: MetaObject) -> tuple[list[Column], str | None]:
    """Standard fields first (Ссылка, Период, ...), then dimensions, resources, attributes."""
    cols: list[Column] = []
    default_date = None
    if obj.kind in ("Catalog", "Document", "Enum"):
        cols.append(_std("ссылка", ColumnRole.KEY, "Ссылка", "Ref", "reference"))
    if obj.kind == "Catalog":
        cols += [
            _std("код", ColumnRole.ATTRIBUTE, "Код", "Code"),
            _std("наименование", ColumnRole.DIMENSION, "Наименование", "Description"),
        ]
    if obj.kind == "Document":
        cols += [
            _std("дата", ColumnRole.DATE, "Дата", "Date", "date"),
            _std("номер", ColumnRole.ATTRIBUTE, "Номер", "Number"),
            _std("проведен", ColumnRole.ATTRIBUTE, "Проведен", "Posted", "boolean"),
        ]
        default_date = "дата"
    if obj.periodic:
        cols.append(_std("период", ColumnRole.DATE, "Период", "Period", "date"))
        default_date = "период"
    if (
        obj.kind in ("AccumulationRegister", "AccountingRegister")
        or obj.write_mode == "RecorderSubordinate"
    ):
        cols.append(
            _std("регистратор", ColumnRole.ATTRIBUTE, "Регистратор", "Recorder", "reference")
        )
    if obj.kind == "AccountingRegister":
        cols.append(_std("счет", ColumnRole.DIMENSION, "Счет", "Account", "reference"))
    seen = {c.name for c in cols}
    for field, role in [
        *((d, ColumnRole.DIMENSION) for d in obj.dimensions),
        *((r, ColumnRole.MEASURE) for r in obj.resources),
        *(
            (a, ColumnRole.DIMENSION if a.ref_target else ColumnRole.ATTRIBUTE)
            for a in obj.attributes
        ),
    ]:
        if field.name.lower() not in seen:
            seen.add(field.name.lower())
            cols.append(_column(field, role))
    return cols, default_date


def _description(obj: MetaObject, config: Configuration) -> tuple[str, str]:
    ru_kind, en_kind = KIND_LABELS.get(obj.kind, (KINDS[obj.kind].ru, obj.kind))
    extra_ru, extra_en = [], []
    if obj.register_type:
        extra_ru.append("остатки и обороты" if obj.register_type == "Balance" else "обороты")
        extra_en.append("balances and turnovers" if obj.register_type == "Balance" else "turnovers")
    if obj.periodicity:
        extra_ru.append(f"периодичность {obj.periodicity}")
        extra_en.append(f"periodicity {obj.periodicity}")
    recorders = config.recorders(obj.full_name)
    if recorders:
        extra_ru.append("регистраторы: " + ", ".join(recorders))
        extra_en.append("recorders: " + ", ".join(recorders))
    if obj.register_records:
        extra_ru.append("движения: " + ", ".join(obj.register_records))
        extra_en.append("records into: " + ", ".join(obj.register_records))
    ru = f"{ru_kind.capitalize()} «{obj.synonym('ru')}» ({obj.ru_name})" + (
        f"; {'; '.join(extra_ru)}" if extra_ru else ""
    )
    en = f"{en_kind.capitalize()} '{obj.synonym('en')}' ({obj.full_name})" + (
        f"; {'; '.join(extra_en)}" if extra_en else ""
    )
    return ru, en


def _topic(obj: MetaObject) -> Topic:
    keywords: dict[str, float] = {}
    for text, weight in [(obj.name, 2.0), *((s, 1.0) for s in obj.synonyms.values())]:
        for s in stems(text):
            keywords[s] = max(keywords.get(s, 0), weight)
    hint = obj.register_type or obj.kind
    for stem_, weight in KIND_WORDS.get(hint, {}).items():
        keywords.setdefault(stem_, weight)
    return Topic(
        id=table_name(obj),
        name_ru=obj.synonyms.get("ru") or split_name(obj.name).capitalize(),
        name_en=obj.synonyms.get("en") or obj.name,
        keywords=keywords,
        tables=[table_name(obj)],
    )


def _metrics(obj: MetaObject) -> list[Metric]:
    if obj.kind not in ("AccumulationRegister", "AccountingRegister"):
        return []
    out = []
    for res in obj.resources:
        label_ru = _label(res.name, res.synonyms, "ru")
        money = any(s in res.name.lower() for s in MONEY_STEMS)
        out.append(
            Metric(
                id=f"{obj.name}_{res.name}".lower(),
                table=table_name(obj),
                expression=f"SUM({res.name.lower()})",
                name_ru=f"{label_ru} ({obj.synonym('ru')})",
                name_en=f"{_label(res.name, res.synonyms, 'en')} ({obj.synonym('en')})",
                format="money" if money else "number",
                topic=table_name(obj),
                non_negative=obj.register_type != "Balance",
                synonyms=list(
                    dict.fromkeys(
                        p
                        for p in (
                            phrase(f"{res.name} {obj.name}"),
                            *(phrase(f"{s} {obj.synonym(k)}") for k, s in res.synonyms.items()),
                        )
                        if p
                    )
                ),
                description=f"{obj.ru_name}.{res.name}",
            )
        )
    return out


def _enum_values(obj: MetaObject) -> list[DictionaryValue]:
    return [
        DictionaryValue(
            value=v.name, label_en=v.synonyms.get("en"), synonyms=_synonyms(v.name, v.synonyms)
        )
        for v in obj.enum_values
    ]


def to_catalog(config: Configuration, *, trace: Trace | None = None) -> Catalog:
    """Build (and cross-check) a Catalog from a configuration; broken items are problems, not
    errors."""
    trace = trace or Trace("onec")
    origin = Path(config.root)
    sections: dict[str, list] = {
        k: []
        for k in (
            "tables",
            "topics",
            "relations",
            "requires",
            "metrics",
            "dictionaries",
            "instructions",
            "examples",
        )
    }
    by_full = {o.full_name: o for o in config.objects.values() if KINDS[o.kind].data}
    fields_of: dict[str, dict[str, MetaField]] = {}  # table -> column -> the field it came from
    for obj in by_full.values():
        fields_of[table_name(obj)] = {
            f.name.lower(): f for f in (*obj.dimensions, *obj.resources, *obj.attributes)
        }
        cols, default_date = _object_columns(obj)
        ru, en = _description(obj, config)
        topic = _topic(obj)
        sections["tables"].append(
            (
                Table(
                    name=table_name(obj),
                    description=en,
                    description_ru=ru,
                    columns=cols,
                    default_date=default_date,
                    topics=[topic.id],
                ),
                origin,
                None,
            )
        )
        sections["topics"].append((topic, origin, None))
        sections["metrics"] += [(m, origin, None) for m in _metrics(obj)]
        for section in obj.tabular_sections:
            ts_cols = [
                _std("ссылка", ColumnRole.KEY, "Ссылка", "Ref", "reference"),
                _std("номерстроки", ColumnRole.ATTRIBUTE, "Номер строки", "Line number", "decimal"),
            ]
            ts_cols += [
                _column(
                    a,
                    ColumnRole.DIMENSION
                    if a.ref_target
                    else (ColumnRole.MEASURE if a.numeric else ColumnRole.ATTRIBUTE),
                )
                for a in section.attributes
                if a.name.lower() not in ("ссылка", "номерстроки")
            ]
            name = f"{table_name(obj)}.{section.name.lower()}"
            fields_of[name] = {a.name.lower(): a for a in section.attributes}
            sections["tables"].append(
                (
                    Table(
                        name=name,
                        columns=ts_cols,
                        topics=[topic.id],
                        description=f"Tabular section {section.name} of {obj.full_name}",
                        description_ru="Табличная часть "
                        f"«{_label(section.name, section.synonyms, 'ru')}» "
                        f"({obj.ru_name}.{section.name})",
                    ),
                    origin,
                    None,
                )
            )
            sections["relations"].append(
                (Relation(left=f"{name}.ссылка", right=f"{table_name(obj)}.ссылка"), origin, None)
            )
        if obj.kind == "Enum":
            sections["dictionaries"].append(
                (
                    Dictionary(column=f"{table_name(obj)}.ссылка", values=_enum_values(obj)),
                    origin,
                    None,
                )
            )
    for table, _, _ in list(sections["tables"]):
        for col in table.columns:
            field = fields_of.get(table.name, {}).get(col.name)
            target = by_full.get(field.ref_target) if field and field.ref_target else None
            if target is None:
                if field and field.ref_target:
                    trace.rejected(
                        "reference to an object that was not read: no relation",
                        column=f"{table.name}.{col.name}",
                        target=field.ref_target,
                    )
                continue
            if target.kind == "Enum":
                sections["dictionaries"].append(
                    (
                        Dictionary(column=f"{table.name}.{col.name}", values=_enum_values(target)),
                        origin,
                        None,
                    )
                )
            sections["relations"].append(
                (
                    Relation(left=f"{table.name}.{col.name}", right=f"{table_name(target)}.ссылка"),
                    origin,
                    None,
                )
            )
    info = CatalogInfo(
        name=f"1c-{config.name}",
        description=f"1C:Enterprise configuration {config.name} ({config.format})",
    )
    catalog = Catalog.build(info, sections, [])
    for problem in catalog.problems:
        trace.rejected("catalog item dropped", problem=str(problem))
    trace.measurement(
        "1C catalog built",
        tables=len(catalog.tables),
        metrics=len(catalog.metrics),
        relations=len(catalog.relations),
        dictionaries=len(catalog.dictionaries),
    )
    return catalog
