"""Which relation path joins a table to the plan when several lead there.

A star with customer -> nation and supplier -> nation reaches a region two ways; taking the
shortest silently answers "revenue by region" by the supplier's region. The rules, in order:

1. a table the fact points at directly (one relation) is joined by that relation;
2. paths that agree with the joins the plan already has (a table is entered once);
3. of those, the paths through a table the question names ("customer region", "регион
   клиента", "supplier nations"), by its synonyms, its name or the words of its metrics;
4. else the paths whose last relation the catalog marks `default: true`, the shortest;
5. one path left: it; several: the question is ambiguous and is not answered by guessing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from vitrina.catalog import Catalog
from vitrina.catalog.model import Relation
from vitrina.language.morph import lemma
from vitrina.language.text import Word, phrase_stems, prefix_matches

GENERIC_NAME_PARTS = {"dim", "fact", "dwh", "main", "tbl", "stg"}


@dataclass
class PathChoice:
    path: list[Relation] | None
    ambiguous: list[list[Relation]] = field(
        default_factory=list
    )  # the candidates, when no rule decided
    reason: str = ""


def table_names(catalog: Catalog) -> dict[str, tuple[str, ...]]:
    """Single-word stems naming each table: its synonyms, its name's parts, its metrics' words."""
    if "table_names" not in catalog.cache:
        names: dict[str, set[str]] = {t: set() for t in catalog.tables}
        for name, table in catalog.tables.items():
            names[name] |= {s for syn in table.synonyms for s in phrase_stems(syn)}
            names[name] |= {
                p
                for p in table.short_name.split("_")
                if len(p) >= 4 and p not in GENERIC_NAME_PARTS
            }
        for metric in catalog.metrics.values():
            if metric.table in names:
                single = [phrase_stems(syn) for syn in metric.synonyms]
                names[metric.table] |= {
                    stems[0] for stems in single if len(stems) == 1 and len(stems[0]) >= 4
                }
        catalog.cache["table_names"] = {t: tuple(sorted(v)) for t, v in names.items()}
    built: dict[str, tuple[str, ...]] = catalog.cache["table_names"]
    return built


def stem_index(catalog: Catalog) -> dict[str, tuple[str, ...]]:
    """stem -> the tables it names (`table_names` inverted), built once per catalog: testing
    every table's stems against every word cost 99% of the planner at 10,000 tables."""
    if "table_stem_index" not in catalog.cache:
        index: dict[str, list[str]] = {}
        for table, stems in table_names(catalog).items():
            for stem in stems:
                index.setdefault(stem, []).append(table)
        catalog.cache["table_stem_index"] = {s: tuple(t) for s, t in index.items()}
    built: dict[str, tuple[str, ...]] = catalog.cache["table_stem_index"]
    return built


MAX_ENDING = 10  # the longest ending `stem_matches` lets a word have past its stem


def _stems_in(word: str, index: dict[str, tuple[str, ...]]) -> list[str]:
    """The stems of `index` that `word` starts with (ending short enough)."""
    return [
        word[:n]
        for n in range(max(1, len(word) - MAX_ENDING), len(word) + 1)
        if word[:n] in index and prefix_matches(word[:n], word)
    ]


def stems_matching(word: str, index: dict[str, tuple[str, ...]]) -> list[str]:
    """The stems of `index` that `stem_matches(stem, word)` holds for, looked up by the word's
    prefixes (and its lemma's, as stem_matches does) instead of testing every stem."""
    found = _stems_in(word, index)
    if not ("а" <= word[:1] <= "я"):
        return found
    base = lemma(word)
    if base == word or base[:1] != word[:1]:
        return found
    return found + _stems_in(base, index)


def tables_named(words: list[Word], catalog: Catalog) -> set[str]:
    """Tables a word of the question names (O(words) lookups in the stem index)."""
    index = stem_index(catalog)
    return {table for w in words for stem in stems_matching(w.text, index) for table in index[stem]}


def walk(base: str, path: list[Relation]) -> list[tuple[str, Relation]]:
    """(table entered, relation entering it) along a path from `base`."""
    out, current = [], base
    for rel in path:
        current = rel.right_table if rel.left_table == current else rel.left_table
        out.append((current, rel))
    return out


def _agrees(base: str, path: list[Relation], entered: dict[str, Relation]) -> bool:
    """No table on the path is entered by another relation than the one the plan used."""
    return all(entered.get(table, rel) == rel for table, rel in walk(base, path))


def choose_path(
    catalog: Catalog, base: str, goal: str, *, named: set[str], entered: dict[str, Relation]
) -> PathChoice:
    paths = catalog.join_paths(base, goal)
    if not paths:
        return PathChoice(None)
    if len(paths) == 1 or len(paths[0]) <= 1:
        return PathChoice(paths[0], reason="only path" if len(paths) == 1 else "direct relation")
    agreeing = [p for p in paths if _agrees(base, p, entered)] or paths
    if len(agreeing) == 1:
        return PathChoice(agreeing[0], reason="agrees with the joins already made")
    through = [p for p in agreeing if named & set(via_tables(base, p))]
    if through:
        shortest = [p for p in through if len(p) == len(through[0])]
        if len(shortest) == 1:
            return PathChoice(shortest[0], reason="through a table the question names")
        agreeing = shortest
    marked = [p for p in agreeing if p[-1].default]
    if marked:
        shortest = [p for p in marked if len(p) == len(marked[0])]
        if len(shortest) == 1:
            return PathChoice(shortest[0], reason="the catalog's default relation")
    return PathChoice(None, ambiguous=agreeing)


def via_tables(base: str, path: list[Relation]) -> list[str]:
    """The tables a path passes through on its way (not the start, not the goal)."""
    return [table for table, _ in walk(base, path)[:-1]]
