"""The text a model sees for SQL generation and checks: the chosen tables (pruned, or full
on a retry), the join keys code found between them, relevant instructions and examples."""

from __future__ import annotations

from vitrina.ask.plan import Join
from vitrina.catalog import Catalog
from vitrina.catalog.model import ColumnRole
from vitrina.catalog.retrieval import rank_examples


def connect(catalog: Catalog, tables: list[str], extra: list[str]) -> tuple[list[str], list[Join]]:
    """Add the tables on the relation paths between the chosen ones (and required ones),
    with their join keys, so a model never guesses a join."""
    if not tables:
        return [], []
    base, everything, joins = tables[0], [tables[0]], []
    for table in [*tables[1:], *extra]:
        path = catalog.join_path(base, table) or catalog.join_path(base, table, many_to_one_only=False) or []
        for rel in path:
            for name in (rel.left_table, rel.right_table):
                if name not in everything:
                    everything.append(name)
            join = Join(left_table=rel.left_table, left_column=rel.left_column, right_table=rel.right_table,
                        right_column=rel.right_column)
            if join not in joins:
                joins.append(join)
        if table not in everything:
            everything.append(table)
    for req in catalog.requires:
        if req.when == "always" and req.table in everything and req.needs not in everything:
            return connect(catalog, tables, [*extra, req.needs])
    return everything, joins


def schema_text(catalog: Catalog, tables: list[str], joins: list[Join], *, full: bool,
                words: set[str] | None = None, instructions: bool = True, examples: bool = True,
                question: str = "") -> str:
    """Tables with their columns; pruned to keys, dates and columns the question's words
    touch unless `full` (a retry after an error gets the full schema)."""
    lines = ["Tables:"]
    for name in tables:
        table = catalog.tables[name]
        lines.append(f"- {name}: {table.description}")
        for col in table.columns:
            touched = words is None or any(w in f"{col.name} {' '.join(col.synonyms)} {col.description}".lower()
                                           for w in words)
            if full or col.role in (ColumnRole.KEY, ColumnRole.DATE, ColumnRole.MEASURE) or touched or \
                    col.role is ColumnRole.DIMENSION:
                extra = f" — {col.description}" if col.description else ""
                dic = catalog.dictionary_for(name, col.name)
                values = f" values: {', '.join(v.value for v in dic.values[:12])}" if dic else ""
                lines.append(f"    {col.name} {col.type} ({col.role.value}){extra}{values}")
    if joins:
        lines.append("Join keys:")
        lines += [f"- {j.left_table}.{j.left_column} = {j.right_table}.{j.right_column}" for j in joins]
    metrics = [m for m in catalog.metrics.values() if m.table in tables]
    if metrics:
        lines.append("Known metrics:")
        lines += [f"- {m.id} ({m.name_en}): {m.expression}" + (f" WHERE {m.filter}" if m.filter else "")
                  for m in metrics]
    rules = catalog.instructions_for(set(tables) | {m.topic for m in metrics if m.topic}) if instructions else []
    if rules:
        lines.append("Instructions:")
        lines += [f"- {i.text}" for i in rules]
    similar = rank_examples(question, catalog, k=3) if examples and question else []
    if similar:
        lines.append("Examples:")
        lines += [f"- Q: {e.question}\n  SQL: {' '.join(e.sql.split())}" for e in similar]
    return "\n".join(lines)
