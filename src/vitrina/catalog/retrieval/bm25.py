"""A small BM25 index with weighted fields and prefix-matched query words.

Pure Python: built once per catalog (500 tables in tens of milliseconds) and queried in
well under a millisecond, because a question word is resolved against the vocabulary by
dictionary probes of its own prefixes, never by scanning the vocabulary.

A question word may match several index terms ("платежей" matches "платеж" and
"платежн"...). It is scored as one virtual term: its frequency in a document is the sum
of the matched terms' weighted frequencies, its document frequency is the size of the
union of their postings, so one word is never counted twice. Document frequency is soft:
a document counts min(1, weighted tf), so a word that many tables mention only in a key
column's label ("ID региона") keeps its weight for the table that is about it.
bm25s was measured against this index and not adopted: docs/decisions/015-bm25-kept.md.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from vitrina.catalog.retrieval.documents import WEIGHTS, Field
from vitrina.catalog.retrieval.terms import index_terms, matching_terms, query_weight, query_words

K1 = 1.2
B = 0.5  # mild length normalisation: wide fact tables should not vanish behind narrow ones


@dataclass(frozen=True, slots=True)
class Hit:
    """One document's score and the question words that earned it (word -> index term, field)."""

    doc: int
    score: float
    matched: tuple[tuple[str, str, str], ...]


@dataclass
class BM25Index:
    postings: dict[str, dict[int, float]] = field(
        default_factory=dict
    )  # term -> doc -> weighted tf
    sources: dict[tuple[str, int], str] = field(
        default_factory=dict
    )  # (term, doc) -> heaviest field kind
    lengths: list[float] = field(default_factory=list)
    avg_length: float = 1.0

    @classmethod
    def build(cls, documents: Sequence[Sequence[Field]]) -> BM25Index:
        postings: dict[str, dict[int, float]] = defaultdict(lambda: defaultdict(float))
        sources: dict[tuple[str, int], str] = {}
        lengths = []
        for doc, fields in enumerate(documents):
            length = 0.0
            for fld in fields:
                weight = WEIGHTS[fld.kind]
                for term in index_terms(fld.text):
                    postings[term][doc] += weight
                    length += weight
                    best = sources.get((term, doc))
                    if best is None or WEIGHTS[best] < weight:
                        sources[(term, doc)] = fld.kind
            lengths.append(length)
        avg = sum(lengths) / len(lengths) if lengths else 1.0
        return cls({t: dict(p) for t, p in postings.items()}, sources, lengths, avg or 1.0)

    def search(self, text: str) -> list[Hit]:
        """Documents with a positive score, best first (ties by document order)."""
        n = len(self.lengths)
        scores: dict[int, float] = defaultdict(float)
        matched: dict[int, list[tuple[str, str, str]]] = defaultdict(list)
        for word in query_words(text):
            weight = query_weight(word)
            terms = matching_terms(word, self.postings) if weight else []
            if not terms:
                continue
            tf: dict[int, float] = defaultdict(float)
            for term in terms:
                for doc, freq in self.postings[term].items():
                    tf[doc] += freq
            df = sum(min(1.0, f) for f in tf.values())  # soft: a key-column mention is a fraction
            idf = weight * math.log(1 + (n - df + 0.5) / (df + 0.5))
            for doc, freq in tf.items():
                norm = K1 * (1 - B + B * self.lengths[doc] / self.avg_length)
                scores[doc] += idf * freq * (K1 + 1) / (freq + norm)
                term = max(
                    (t for t in terms if doc in self.postings[t]),
                    key=lambda t: self.postings[t][doc],
                )
                matched[doc].append((word, term, self.sources[(term, doc)]))
        ranked = sorted(scores.items(), key=lambda item: (-item[1], item[0]))
        return [Hit(doc, score, tuple(matched[doc])) for doc, score in ranked]
