"""Retrieval over large catalogs: which tables and examples a question most likely needs.

>>> from vitrina.catalog import load_catalog
>>> [t.name for t in rank_tables("Сколько кошельков открыли в мае?", load_catalog(), k=2)]
['dwh.fact_wallet_opening', 'dwh.dim_wallet']
"""

from vitrina.catalog.retrieval.embeddings import EmbeddingRanker, embeddings_available
from vitrina.catalog.retrieval.rank import (
    METHODS,
    RankedTable,
    rank_examples,
    rank_tables,
    retrieval_method,
)

__all__ = [
    "METHODS",
    "EmbeddingRanker",
    "RankedTable",
    "embeddings_available",
    "rank_examples",
    "rank_tables",
    "retrieval_method",
]
