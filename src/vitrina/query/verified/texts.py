"""Messages of the bank of verified queries in English and Russian (decision 198).

An error of the bank carries both texts (`Bilingual`): the CLI prints the one of `--lang`
(or of the wording / tickets it was given), a log or a model reads `str(exc)` (English).
"""

from __future__ import annotations


class Bilingual(ValueError):
    """An error whose message exists in English and Russian (Russian defaults to English
    when a detail has no translation, e.g. a database's own error text)."""

    def __init__(self, message_en: str, message_ru: str | None = None) -> None:
        super().__init__(message_en)
        self.message_en = message_en
        self.message_ru = message_ru or message_en

    def text(self, lang: str) -> str:
        return self.message_ru if lang == "ru" else self.message_en


def pick(lang: str, en: str, ru: str) -> str:
    """The text of the language (anything but ru: English)."""
    return ru if lang == "ru" else en
