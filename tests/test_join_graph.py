"""The catalog's join graph: built once, its cached paths equal a plain search for each goal."""

from __future__ import annotations

from collections import deque

from synthetic_catalog import synthetic_catalog

from vitrina.catalog import Catalog
from vitrina.catalog.catalog import MAX_JOIN_DEPTH
from vitrina.catalog.model import Relation


def plain_join_path(
    cat: Catalog, start: str, goal: str, many_to_one_only: bool = True
) -> list[Relation] | None:
    """The search as it was before the graph was cached: every step scans every relation."""
    if start == goal:
        return []
    queue: deque[tuple[str, list[Relation]]] = deque([(start, [])])
    seen = {start}
    while queue:
        table, path = queue.popleft()
        if len(path) >= MAX_JOIN_DEPTH:
            continue
        for rel in cat.relations:
            if rel.left_table == table:
                other, forward = rel.right_table, True
            elif rel.right_table == table:
                other, forward = rel.left_table, False
            else:
                continue
            if other in seen or (many_to_one_only and not forward and rel.kind != "one_to_one"):
                continue
            if other == goal:
                return [*path, rel]
            seen.add(other)
            queue.append((other, [*path, rel]))
    return None


def test_cached_paths_equal_the_plain_search_on_a_large_catalog() -> None:
    cat = synthetic_catalog(300, seed=5)
    starts = sorted({m.table for m in cat.metrics.values()})[:40]
    goals = sorted(cat.tables)
    compared = reachable = 0
    for start in starts:
        for goal in goals:
            for one_way in (True, False):
                expected = plain_join_path(cat, start, goal, one_way)
                assert cat.join_path(start, goal, many_to_one_only=one_way) == expected, (
                    start,
                    goal,
                )
                compared += 1
                reachable += expected is not None and expected != []
    assert (
        compared > 10_000 and reachable > 100
    )  # the comparison covered real paths, not only misses


def test_join_paths_skip_only_goals_without_a_path() -> None:
    """join_paths answers "none" from the cached search before enumerating: exactly the
    goals the plain search (every relation scanned, no cache) reaches none of; enumerating
    them cost ~0.6 ms for each of hundreds."""
    cat = synthetic_catalog(300, seed=5)
    starts = sorted({m.table for m in cat.metrics.values()})[:20]
    reachable = 0
    for start in starts:
        for goal in sorted(cat.tables):
            if goal == start:
                continue
            has_path = plain_join_path(cat, start, goal) is not None
            assert bool(cat.join_paths(start, goal)) == has_path, (start, goal)
            reachable += has_path
    assert reachable > 20  # pairs with paths were compared, not only misses


def test_a_relation_added_later_is_seen() -> None:
    cat = synthetic_catalog(60, seed=3)
    fact = next(m.table for m in cat.metrics.values())
    lone = next(t for t in sorted(cat.tables) if cat.join_path(fact, t) is None and t != fact)
    assert cat.join_path(fact, lone) is None  # the graph is built and cached here
    key = cat.tables[lone].columns[0].name
    fact_col = cat.tables[fact].columns[0].name
    cat.relations.append(Relation(left=f"{fact}.{fact_col}", right=f"{lone}.{key}"))
    assert [r.right_table for r in cat.join_path(fact, lone) or []] == [lone]
