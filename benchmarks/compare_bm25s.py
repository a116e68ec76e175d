"""Vitrina's BM25 index against the same index built on bm25s (decision 015).

    .venv/bin/pip install bm25s && .venv/bin/python benchmarks/compare_bm25s.py [500 2000]

Not part of `make bench` (bm25s is not a dependency). The bm25s variant keeps every rule
that bm25s can express: the same index terms, field weights as repeated tokens (x10, with
k1 x10 so that BM25's saturation is unchanged), the same k1, b and Lucene idf, the same
prefix matching of question words, the same query weights. What it cannot express is
scored the nearest way: a question word matching several index terms takes the best of
their scores (bm25s sums per token; Vitrina scores the union as one term), and document
frequency is bm25s's hard count (Vitrina's is soft, see bm25.py). The explanations of a
hit (word -> term, field) still need Vitrina's postings.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections import defaultdict

import bench_retrieval
import bm25s
import numpy as np
from synthetic_catalog import synthetic_catalog

from vitrina.catalog.retrieval import rank
from vitrina.catalog.retrieval.bm25 import K1, B, BM25Index, Hit
from vitrina.catalog.retrieval.documents import WEIGHTS, Field, table_fields
from vitrina.catalog.retrieval.terms import (
    index_terms,
    matching_terms,
    query_weight,
    query_words,
)

SCALE = 10  # field weights 0.3 .. 3.0 as whole repetitions


class BM25sIndex:
    """The `BM25Index` interface (build, search) over a bm25s retriever."""

    def __init__(self, retriever: bm25s.BM25, own: BM25Index) -> None:
        self.retriever, self.own = retriever, own

    @classmethod
    def build(cls, documents: list[list[Field]]) -> BM25sIndex:
        corpus = []
        for fields in documents:
            tokens = []
            for fld in fields:
                tokens += [
                    t
                    for t in index_terms(fld.text)
                    for _ in range(round(WEIGHTS[fld.kind] * SCALE))
                ]
            corpus.append(tokens or ["<empty>"])
        retriever = bm25s.BM25(k1=K1 * SCALE, b=B, method="lucene")
        retriever.index(corpus, show_progress=False)
        return cls(retriever, BM25Index.build(documents))  # Vitrina's postings explain the hits

    def search(self, text: str) -> list[Hit]:
        scores = np.zeros(len(self.own.lengths))
        matched: dict[int, list[tuple[str, str, str]]] = defaultdict(list)
        for word in query_words(text):
            weight = query_weight(word)
            terms = matching_terms(word, self.retriever.vocab_dict) if weight else []
            if not terms:
                continue
            best = np.max([self.retriever.get_scores([t]) for t in terms], axis=0)
            scores += weight * best
            for doc in map(int, np.nonzero(best)[0]):
                postings = self.own.postings
                term = max(
                    (t for t in terms if doc in postings.get(t, {})), key=lambda t: postings[t][doc]
                )
                matched[doc].append((word, term, self.own.sources[(term, doc)]))
        ranked = sorted(
            (d for d in range(len(scores)) if scores[d] > 0), key=lambda d: (-scores[d], d)
        )
        return [Hit(d, float(scores[d]), tuple(matched[d])) for d in ranked]


def compare(n_tables: int) -> dict[str, float]:
    catalog = synthetic_catalog(n_tables)
    documents = [table_fields(catalog.tables[n], catalog) for n in catalog.tables]
    started = time.perf_counter()
    own = BM25Index.build(documents)
    own_build = time.perf_counter() - started
    started = time.perf_counter()
    other = BM25sIndex.build(documents)
    other_build = time.perf_counter() - started - own_build  # without the postings it reuses
    same_set = same_order = 0
    own_ms, other_ms = [], []
    for _, question, _ in bench_retrieval.golden_cases():
        started = time.perf_counter()
        a = [h.doc for h in own.search(question)[:12]]
        own_ms.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        b = [h.doc for h in other.search(question)[:12]]
        other_ms.append((time.perf_counter() - started) * 1000)
        same_set += set(a) == set(b)
        same_order += a == b
    figures = {
        "tables": float(n_tables),
        "own_build_ms": round(own_build * 1000),
        "bm25s_build_ms": round(other_build * 1000),
        "same_top12_set": float(same_set),
        "same_top12_order": float(same_order),
        "own_search_ms_median": round(statistics.median(own_ms), 3),
        "bm25s_search_ms_median": round(statistics.median(other_ms), 3),
    }
    for label, index_class in (("own", BM25Index), ("bm25s", BM25sIndex)):
        rank.BM25Index = index_class  # rank_tables, graph boost included, on either index
        result = bench_retrieval.run(n_tables)
        figures.update({f"{label}_{k}": v for k, v in result.items() if "recall" in k})
    rank.BM25Index = BM25Index
    return figures


if __name__ == "__main__":
    for n in map(int, sys.argv[1:] or ["500", "2000"]):
        for key, value in compare(n).items():
            print(f"{key:28} {value:>10g}")
