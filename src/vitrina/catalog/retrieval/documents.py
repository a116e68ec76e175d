"""What a table "says" for retrieval: weighted text fields gathered from the whole catalog.

A table is found by its own words (name, descriptions, columns, labels, synonyms) and by
what the catalog says about it elsewhere: the metrics computed on it, the synonyms of
its dictionary values, the names of its topics. Field weights make a synonym or a name
count more than a word buried in a description.
"""

from __future__ import annotations

from dataclasses import dataclass

from vitrina.catalog.catalog import Catalog
from vitrina.catalog.model import ColumnRole, Example, Table

# field -> weight: how much one occurrence of a word in that field counts
WEIGHTS: dict[str, float] = {
    "name": 3.0,
    "metric": 2.5,
    "synonym": 2.0,
    "label": 1.5,
    "column": 1.0,
    "description": 1.0,
    "value": 1.0,
    "topic": 1.0,
    "keyword": 0.5,
    "key": 0.3,  # key columns name other tables ("ID региона" on a fact): weak evidence
}


@dataclass(frozen=True, slots=True)
class Field:
    kind: str  # a key of WEIGHTS
    text: str


def table_fields(table: Table, catalog: Catalog) -> list[Field]:
    """Every piece of text that names or describes `table`, tagged with its field kind."""
    fields = [
        Field("name", table.short_name),
        Field("description", table.description),
        Field("description", table.description_ru),
    ]
    for col in table.columns:
        is_key = col.role is ColumnRole.KEY
        fields.append(Field("key" if is_key else "column", col.name))
        fields += [
            Field("key" if is_key else "label", t) for t in (col.label_ru, col.label_en) if t
        ]
        fields += [Field("synonym", s) for s in col.synonyms]
        if col.description:
            fields.append(Field("description", col.description))
    for metric in catalog.metrics.values():
        if metric.table == table.name:
            fields += [Field("metric", metric.name_ru), Field("metric", metric.name_en)]
            fields += [Field("metric", s) for s in metric.synonyms]
    for dic in catalog.dictionaries.values():
        if dic.table == table.name:
            for value in dic.values:
                fields += [
                    Field("value", s) for s in (value.value, value.label_en, *value.synonyms) if s
                ]
    for topic_id in table.topics:
        topic = catalog.topics.get(topic_id)
        if topic is not None:
            fields += [Field("topic", topic.name_ru), Field("topic", topic.name_en)]
            fields += [Field("keyword", k) for k in topic.keywords]
    return fields


def example_fields(example: Example, catalog: Catalog) -> list[Field]:
    """An example is found by its question and, more weakly, by its topic's name."""
    fields = [Field("name", example.question)]
    topic = catalog.topics.get(example.topic or "")
    if topic is not None:
        fields += [Field("topic", topic.name_ru), Field("topic", topic.name_en)]
    return fields


def table_text(table: Table, catalog: Catalog) -> str:
    """One paragraph for a sentence-embedding model: names first, since models truncate."""
    metrics = [m.name_en for m in catalog.metrics.values() if m.table == table.name]
    cols = [col.label_en or col.name.replace("_", " ") for col in table.columns]
    parts = [
        table.short_name.replace("_", " "),
        table.description,
        table.description_ru,
        "metrics: " + ", ".join(metrics) if metrics else "",
        "columns: " + ", ".join(cols),
    ]
    return ". ".join(p for p in parts if p)
