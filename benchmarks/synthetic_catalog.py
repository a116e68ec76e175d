"""A large synthetic catalog: the demo catalog plus distractor tables from other domains.

Test data, not product code: the retrieval and planner tests and benchmarks use it to check
that the right tables are still found, the plan still right and the prompt still small
when a warehouse has hundreds or thousands of tables. Tests import it through pytest's
`pythonpath` (benchmarks/), benchmarks from their own folder. The vocabulary (domains,
entities, measures, table variants, hard negatives) is data: synthetic_catalog.yaml.

Distractors look like a real bank/retail warehouse: HR, logistics, marketing, inventory,
support, loans, deposits, insurance, retail, finance, web analytics, fraud, IT,
procurement, loyalty, legal, facilities, travel, security, ESG and partners, each with
facts, dimensions, aggregates at every grain, staging and delta loads, history,
snapshots, reports, plans, forecasts, ML features, data-quality and rejected-row tables,
some described in Russian, with metrics, topics, dictionaries and relations. A few hard
negatives sit next to the demo tables (a staging copy of payments, daily payment
aggregates, chargebacks, cashback). Nothing here names what the demo catalog refuses
(mortgages, salaries, exchange rates).

Every table is distinct, with its own name, columns and descriptions (no renamed copies),
up to `max_tables()` (2,088); past it, regional branches' copies of the distractor schemas
(`<schema>_<branch>`, the copied table's own description plus the branch) make up to
25 times as many (10,000 tables for the planner benchmark). The original generator's 535
tables come first, drawn in the same order, so a catalog of up to 535 tables is the one the
figures were always measured on; larger catalogs add the extension (tests/test_retrieval.py
checks both).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from vitrina.catalog.catalog import Catalog
from vitrina.catalog.loader import load_catalog
from vitrina.catalog.model import (
    Column,
    ColumnRole,
    Dictionary,
    DictionaryValue,
    Metric,
    Relation,
    Table,
    Topic,
)

DEFAULT_SEED = 20261130
VOCABULARY = Path(__file__).with_suffix(".yaml")
KEY, DATE, MEASURE, DIMENSION = (
    ColumnRole.KEY,
    ColumnRole.DATE,
    ColumnRole.MEASURE,
    ColumnRole.DIMENSION,
)
PERIOD_COLUMNS = {
    "week": "week_start",
    "quarter": "quarter_start",
    "year": "year",
    "plan": "plan_month",
    "forecast": "week_start",
    "ytd": "as_of_date",
    "snapshot": "snapshot_date",
}
Candidates = tuple[list[Table], list[Topic], list[Metric], list[Relation], list[Dictionary]]


@dataclass(frozen=True)
class Entity:
    """A business event or object of a domain: becomes a fact table and its variants."""

    name: str  # snake_case, singular
    en: str  # "shipment"
    ru: str  # the phrase after "одна строка на ..."
    ru_syn: tuple[str, ...]  # stems, as a catalog author would write them
    measures: tuple[str, ...]  # keys of the vocabulary's measures
    dims: tuple[str, ...]  # keys of the vocabulary's dims


@dataclass(frozen=True)
class Domain:
    schema: str
    topic_ru: str
    topic_en: str
    keywords: tuple[str, ...]
    dims: tuple[str, ...]  # dimension tables of the domain (dim_<name>)
    entities: tuple[Entity, ...]


@dataclass(frozen=True)
class Vocabulary:
    measures: dict[str, tuple[str, str, str, tuple[str, ...]]]  # type, label_ru, label_en, synonyms
    dims: dict[str, tuple[str, str, tuple[str, ...]]]  # label_ru, label_en, synonyms
    domains: tuple[Domain, ...]
    extra_domains: tuple[Domain, ...]
    variants: tuple[tuple[str, str, str], ...]  # name pattern, description en, ru
    extra_variants: tuple[tuple[str, str, str, str], ...]  # ... and the column shape
    hard_negatives: tuple[Table, ...]


def _domain(raw: dict[str, Any]) -> Domain:
    entities = tuple(
        Entity(name, en, ru, tuple(syn.split(",")), tuple(ms.split()), tuple(ds.split()))
        for name, en, ru, syn, ms, ds in raw["entities"]
    )
    return Domain(
        raw["schema"], *raw["topic"], tuple(raw["keywords"]), tuple(raw["dims"]), entities
    )


@cache
def vocabulary() -> Vocabulary:
    raw = yaml.safe_load(VOCABULARY.read_text(encoding="utf-8"))
    return Vocabulary(
        measures={k: (t, ru, en, tuple(syn)) for k, (t, ru, en, syn) in raw["measures"].items()},
        dims={k: (ru, en, tuple(syn)) for k, (ru, en, syn) in raw["dims"].items()},
        domains=tuple(_domain(d) for d in raw["domains"]),
        extra_domains=tuple(_domain(d) for d in raw["extra_domains"]),
        variants=tuple(tuple(v) for v in raw["variants"]),
        extra_variants=tuple(tuple(v) for v in raw["extra_variants"]),
        hard_negatives=tuple(Table.model_validate(t) for t in raw["hard_negatives"]),
    )


def _measure(
    key: str, *, name: str | None = None, label_en: str | None = None, synonyms: bool = False
) -> Column:
    typ, ru, en, syn = vocabulary().measures[key]
    return Column(
        name=name or key,
        type=typ,
        role=MEASURE,
        label_ru=ru,
        label_en=label_en or en,
        synonyms=list(syn) if synonyms else [],
    )


def _dim(key: str, *, synonyms: bool = True) -> Column:
    ru, en, syn = vocabulary().dims[key]
    return Column(
        name=key, role=DIMENSION, label_ru=ru, label_en=en, synonyms=list(syn) if synonyms else []
    )


def _entity_key(entity: Entity) -> Column:
    return Column(
        name=f"{entity.name}_id",
        type="bigint",
        role=KEY,
        label_ru="ID",
        label_en=f"{entity.en.capitalize()} ID",
    )


def _region_key() -> Column:
    return Column(
        name="region_id", type="integer", role=KEY, label_ru="ID региона", label_en="Region ID"
    )


def _columns(entity: Entity, rng: random.Random) -> list[Column]:
    """The columns of an original variant: the event's key, date, measures and dimensions."""
    cols = [
        _entity_key(entity),
        Column(name="event_date", type="date", role=DATE, label_ru="Дата", label_en="Date"),
    ]
    cols += [_measure(key, synonyms=rng.random() < 0.5) for key in entity.measures]
    cols += [_dim(key) for key in entity.dims]
    if rng.random() < 0.4:
        cols.append(_region_key())
    cols.append(Column(name="load_ts", type="timestamp", description="Technical: load time"))
    return cols


def _variant_tables(domains: tuple[Domain, ...], rng: random.Random) -> Candidates:
    """The dimension tables of `domains` and the original variants of their entities."""
    voc = vocabulary()
    tables: list[Table] = []
    topics, metrics, relations, dictionaries = [], [], [], []
    for dom in domains:
        topic_id = f"syn_{dom.schema}"
        topics.append(
            Topic(
                id=topic_id,
                name_ru=dom.topic_ru,
                name_en=dom.topic_en,
                keywords={k: 2.0 for k in dom.keywords},
            )
        )
        for dim in dom.dims:
            words = dim.replace("_", " ")
            tables.append(
                Table(
                    name=f"{dom.schema}.dim_{dim}",
                    description=f"Reference list of {words}s.",
                    description_ru=f"Справочник: {words}." if rng.random() < 0.5 else "",
                    topics=[topic_id],
                    columns=[
                        Column(name=f"{dim}_id", type="integer", role=KEY),
                        Column(name=f"{dim}_name", role=DIMENSION, label_en=words.capitalize()),
                        Column(name="is_active", type="boolean"),
                    ],
                )
            )
        for ent in dom.entities:
            dim = ent.dims[0]
            for pattern, en, ru in voc.variants:
                name = f"{dom.schema}.{pattern.format(name=ent.name, dim=dim)}"
                cols = _columns(ent, rng)
                fk = dom.dims[len(tables) % len(dom.dims)]
                cols.append(Column(name=f"{fk}_id", type="integer", role=KEY))
                dim_ru = voc.dims[dim][0].lower()
                ru_text = ru.format(en=ent.en, ru=ent.ru, dim=dim_ru) if rng.random() < 0.6 else ""
                tables.append(
                    Table(
                        name=name,
                        description=en.format(en=ent.en + "s", dim=dim, ru=ent.ru),
                        description_ru=ru_text,
                        topics=[topic_id],
                        columns=cols,
                        default_date="event_date",
                    )
                )
                relations.append(
                    Relation(left=f"{name}.{fk}_id", right=f"{dom.schema}.dim_{fk}.{fk}_id")
                )
                if any(c.name == "region_id" for c in cols):
                    relations.append(
                        Relation(left=f"{name}.region_id", right="dwh.dim_region.region_id")
                    )
                if pattern == "fact_{name}":
                    metrics += _fact_metrics(dom, ent, name, topic_id)
                    dictionaries.append(
                        Dictionary(
                            column=f"{name}.{dim}",
                            values=[
                                DictionaryValue(
                                    value=f"{dim}_{i}", synonyms=[f"{voc.dims[dim][1].lower()} {i}"]
                                )
                                for i in range(1, 4)
                            ],
                        )
                    )
    return tables, topics, metrics, relations, dictionaries


def _fact_metrics(dom: Domain, ent: Entity, table: str, topic_id: str) -> list[Metric]:
    """A count and the sum of the first measure, as a catalog author writes them for a fact."""
    measure = ent.measures[0]
    _, ru, en, syn = vocabulary().measures[measure]
    return [
        Metric(
            id=f"{dom.schema}_{ent.name}_count",
            name_ru=f"Количество: {ent.ru}",
            name_en=f"Number of {ent.en}s",
            table=table,
            expression="COUNT(*)",
            format="count",
            topic=topic_id,
            synonyms=[*ent.ru_syn, f"{ent.en}s", ent.en],
        ),
        Metric(
            id=f"{dom.schema}_{ent.name}_{measure}",
            name_ru=f"{ru}: {ent.ru}",
            name_en=f"{en} of {ent.en}s",
            table=table,
            expression=f"SUM({measure})",
            topic=topic_id,
            synonyms=[f"{s} {ent.ru_syn[0]}" for s in syn],
        ),
    ]


def _totals(entity: Entity, measures: list[str]) -> list[Column]:
    return [
        _measure(m, name=f"total_{m}", label_en=f"Total {vocabulary().measures[m][2].lower()}")
        for m in measures
    ]


def _shaped_columns(entity: Entity, shape: str, rng: random.Random) -> list[Column]:
    """The columns of an extension variant: its own keys, period and measures, never a copy."""
    voc = vocabulary()
    measures = [m for m in entity.measures if rng.random() < 0.8] or list(entity.measures[:1])
    period = Column(
        name=PERIOD_COLUMNS.get(shape, "month"),
        type="date",
        role=DATE,
        label_ru="Период",
        label_en="Period",
    )
    if shape in ("week", "quarter", "year", "region", "ytd"):
        count = Column(
            name=f"{entity.name}s",
            type="bigint",
            role=MEASURE,
            label_ru="Количество",
            label_en="Count",
        )
        return [period, count, *_totals(entity, measures)] + (
            [_region_key()] if shape == "region" else []
        )
    if shape in ("plan", "forecast"):
        word = "план" if shape == "plan" else "прогноз"
        cols = [period]
        for m in measures:
            typ, ru, en, _ = voc.measures[m]
            cols.append(
                Column(
                    name=f"{shape}_{m}",
                    type=typ,
                    role=MEASURE,
                    label_ru=f"{ru} ({word})",
                    label_en=f"{en} ({shape})",
                )
            )
        if shape == "forecast":
            cols += [
                Column(name="lower_80", type="decimal"),
                Column(name="upper_80", type="decimal"),
            ]
        return cols
    if shape == "features":
        return [
            _entity_key(entity),
            Column(name="as_of_date", type="date", role=DATE),
            *(
                Column(name=f"{agg}_{m}_30d", type="decimal")
                for m in measures
                for agg in ("sum", "avg")
            ),
            Column(name="events_30d", type="integer"),
        ]
    if shape == "quality":
        return [
            Column(name="check_id", type="integer", role=KEY),
            Column(name="run_date", type="date", role=DATE),
            Column(name="check_name", role=DIMENSION, label_en="Check"),
            Column(name="failed_rows", type="bigint"),
            Column(name="passed", type="boolean"),
        ]
    if shape == "rejected":
        return [
            _entity_key(entity),
            Column(name="rejected_at", type="timestamp"),
            Column(name="error_code", role=DIMENSION, label_en="Error code"),
            Column(name="error_text"),
            Column(name="raw_payload"),
        ]
    # staging, snapshot, current: the event's own columns, reshaped
    cols = [
        _entity_key(entity),
        Column(name=PERIOD_COLUMNS.get(shape, "valid_from"), type="date", role=DATE),
    ]
    cols += [_measure(m) for m in measures]
    cols += [_dim(d, synonyms=False) for d in entity.dims if rng.random() < 0.7]
    if shape == "staging":
        cols += [
            Column(name="source_system"),
            Column(name="change_type"),
            Column(name="loaded_at", type="timestamp"),
        ]
    return cols


def _extension(rng: random.Random) -> Candidates:
    """More tables: the original variants for the extra domains, then the extra variants for all."""
    voc = vocabulary()
    tables, topics, metrics, relations, dictionaries = _variant_tables(voc.extra_domains, rng)
    for dom in voc.domains + voc.extra_domains:
        topic_id = f"syn_{dom.schema}"
        for ent in dom.entities:
            for pattern, en, ru, shape in voc.extra_variants:
                name = f"{dom.schema}.{pattern.format(name=ent.name)}"
                cols = _shaped_columns(ent, shape, rng)
                ru_text = ru.format(ru=ent.ru) if ru and rng.random() < 0.6 else ""
                tables.append(
                    Table(
                        name=name,
                        description=en.format(en=ent.en + "s", dim=ent.dims[-1]),
                        description_ru=ru_text,
                        topics=[topic_id],
                        columns=cols,
                        default_date=next((c.name for c in cols if c.role is DATE), None),
                    )
                )
                if shape == "region":
                    relations.append(
                        Relation(left=f"{name}.region_id", right="dwh.dim_region.region_id")
                    )
                if cols[0].name == f"{ent.name}_id":
                    relations.append(
                        Relation(
                            left=f"{name}.{ent.name}_id",
                            right=f"{dom.schema}.fact_{ent.name}.{ent.name}_id",
                        )
                    )
            fk = dom.dims[-1]
            for dim in ent.dims[1:]:  # a report per further dimension of the entity
                name = f"{dom.schema}.rpt_{ent.name}_by_{dim}"
                cols = [
                    Column(name="month", type="date", role=DATE),
                    _dim(dim, synonyms=False),
                    Column(name=f"{fk}_id", type="integer", role=KEY),
                    *_totals(ent, list(ent.measures)),
                ]
                tables.append(
                    Table(
                        name=name,
                        description=f"Monthly {ent.en}s by {dim.replace('_', ' ')}.",
                        topics=[topic_id],
                        columns=cols,
                        default_date="month",
                    )
                )
                relations.append(
                    Relation(left=f"{name}.{fk}_id", right=f"{dom.schema}.dim_{fk}.{fk}_id")
                )
    return tables, topics, metrics, relations, dictionaries


def max_tables() -> int:
    """The most tables `synthetic_catalog` can make (all distinct)."""
    rng = random.Random(DEFAULT_SEED)
    voc = vocabulary()
    original = _variant_tables(voc.domains, rng)[0]
    return (
        len(load_catalog().tables)
        + len(voc.hard_negatives)
        + len(original)
        + len(_extension(rng)[0])
    )


# regional branches whose warehouses keep their own copy of every distractor schema: the
# only way past max_tables() (a 10,000-table catalog, issue 38), and what many banks have
BRANCHES = (
    "msk", "spb", "kzn", "nsk", "ekb", "nnv", "sam", "omsk", "rnd", "ufa", "krs", "perm",
    "vrn", "vlg", "krd", "srt", "tmn", "tlt", "izh", "brn", "uln", "irk", "khb", "yar",
)  # fmt: skip


def _branch_copies(
    pool: list[Table], relations: list[Relation], wanted: int
) -> tuple[list[Table], list[Relation]]:
    """`wanted` more tables: each branch's copy of the distractors (schema `<schema>_<branch>`,
    its own description), with the relations among them; the demo tables are never copied."""
    names = {t.name for t in pool}
    tables: list[Table] = []
    copied: list[Relation] = []
    for branch in BRANCHES:
        renamed = {n: f"{n.split('.', 1)[0]}_{branch}.{n.split('.', 1)[1]}" for n in names}
        for table in pool[: wanted - len(tables)]:
            description = f"{table.description} Branch {branch.upper()}'s copy."
            tables.append(
                table.model_copy(update={"name": renamed[table.name], "description": description})
            )
        for rel in relations:
            left, right = rel.left_table, rel.right_table
            if left in renamed:
                right_name = renamed.get(right, right)
                copied.append(
                    rel.model_copy(
                        update={
                            "left": f"{renamed[left]}.{rel.left_column}",
                            "right": f"{right_name}.{rel.right_column}",
                        }
                    )
                )
        if len(tables) >= wanted:
            return tables, copied
    raise ValueError(f"the generator makes at most {max_tables() * (len(BRANCHES) + 1)} tables")


def synthetic_catalog(n_tables: int = 500, seed: int = DEFAULT_SEED) -> Catalog:
    """The demo catalog plus `n_tables - 9` distinct distractors; same seed, same catalog."""
    cat = load_catalog()
    voc = vocabulary()
    rng = random.Random(seed)
    tables, topics, metrics, relations, dictionaries = _variant_tables(voc.domains, rng)
    rng.shuffle(tables)
    wanted = max(0, n_tables - len(cat.tables))
    chosen = [t.model_copy(deep=True) for t in voc.hard_negatives][:wanted]
    chosen += tables[: wanted - len(chosen)]
    if len(chosen) < wanted:
        ext_rng = random.Random(seed + 1)
        more, *extra = _extension(ext_rng)
        ext_rng.shuffle(more)
        chosen += more[: wanted - len(chosen)]
        for mine, theirs in zip((topics, metrics, relations, dictionaries), extra, strict=True):
            mine += theirs
    if len(chosen) < wanted:
        copies, copied_relations = _branch_copies(chosen, relations, wanted - len(chosen))
        chosen += copies
        relations += copied_relations
    for table in chosen:
        cat.tables[table.name] = table
    cat.topics.update({t.id: t for t in topics})
    cat.metrics.update({m.id: m for m in metrics if m.table in cat.tables})
    cat.relations += [
        r for r in relations if r.left_table in cat.tables and r.right_table in cat.tables
    ]
    cat.dictionaries.update({d.column: d for d in dictionaries if d.table in cat.tables})
    return cat
