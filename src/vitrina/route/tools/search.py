"""Catalog search by names, synonyms and descriptions, with a ranking that says why.

Scores: a topic keyword found counts its weight; a metric synonym or name counts 3 per
matched word (for the metric and for its table); a column synonym or label 2 per word (dimensions
and measures; attributes 1); the table's own name and description 1 per word. A table collects the
scores of its topic, metrics and columns; the best tables and metrics come first.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from vitrina.catalog import Catalog
from vitrina.catalog.model import ColumnRole
from vitrina.language.text import phrase_stems
from vitrina.route.tools.match import phrase_hits, text_stems

MAX_HITS = 5


@dataclass
class Hit:
    kind: str  # table | metric
    name: str
    score: float
    why: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {
            "kind": self.kind,
            "name": self.name,
            "score": round(self.score, 2),
            "why": self.why[:6],
        }


def _add(scores: dict[str, Hit], kind: str, name: str, points: float, why: str) -> None:
    hit = scores.setdefault(f"{kind}:{name}", Hit(kind, name, 0.0))
    hit.score += points
    if why not in hit.why:
        hit.why.append(why)


def search_catalog(catalog: Catalog, words: list[str], *, loose: bool = False) -> list[Hit]:
    """Tables and metrics that the request's words name, best first (at most MAX_HITS of each)."""
    scores: dict[str, Hit] = {}
    for topic in catalog.topics.values():
        for stem, weight in topic.keywords.items():
            n = phrase_hits(phrase_stems(stem), words, loose=loose)
            if n:
                for table in topic.tables:
                    _add(scores, "table", table, weight * n, f"topic keyword '{stem}'")
    for metric in catalog.metrics.values():
        best = max(
            (
                phrase_hits(phrase_stems(s), words, loose=loose)
                for s in (
                    *metric.synonyms,
                    *[" ".join(text_stems(n)) for n in (metric.name_ru, metric.name_en)],
                )
            ),
            default=0,
        )
        if best:
            _add(scores, "metric", metric.id, 3.0 * best, f"metric '{metric.name_ru}'")
            _add(scores, "table", metric.table, 3.0 * best, f"metric '{metric.id}'")
    for table in catalog.tables.values():
        own = max(
            phrase_hits(text_stems(t), words, loose=loose)
            for t in (table.short_name, table.description_ru or "_", table.description or "_")
        )
        own = max(
            own,
            max(
                (phrase_hits([s], words, loose=loose) for s in text_stems(table.short_name)),
                default=0,
            ),
        )
        if own:
            _add(scores, "table", table.name, 1.0 * own, "table name or description")
        for col in table.columns:
            weight = 2.0 if col.role in (ColumnRole.DIMENSION, ColumnRole.MEASURE) else 1.0
            labels = [
                *col.synonyms,
                " ".join(text_stems(col.label("ru"))),
                " ".join(text_stems(col.label("en"))),
            ]
            n = max(
                (phrase_hits(phrase_stems(s), words, loose=loose) for s in labels if s.strip()),
                default=0,
            )
            if n:
                _add(scores, "table", table.name, weight * n, f"column '{col.name}'")
    ranked = sorted(scores.values(), key=lambda h: (-h.score, h.kind, h.name))
    tables = [h for h in ranked if h.kind == "table"][:MAX_HITS]
    metrics = [h for h in ranked if h.kind == "metric"][:MAX_HITS]
    return [*tables, *metrics]
