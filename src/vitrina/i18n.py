"""User-facing texts in Russian and English: each job keeps its own table of texts, and
one lookup picks the question's language (English when a text has no such language)."""

from __future__ import annotations

from collections.abc import Mapping

Texts = Mapping[str, Mapping[str, str]]


class Messages:
    """`text = Messages(TEXTS)`; then `text("no_topic", "ru", topics=...)`."""

    def __init__(self, texts: Texts) -> None:
        self.texts = texts

    def __call__(self, key: str, lang: str, /, **values: object) -> str:
        entry = self.texts[key]
        return entry.get(lang, entry["en"]).format(**values)
