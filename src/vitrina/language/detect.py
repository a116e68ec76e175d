"""The language of a text: the one detector every job uses to answer in the user's language.

Russian when Cyrillic letters are at least as many as Latin ones (and there is one), else
English: "Выручка по region_code за май" is Russian, "Revenue in Москва" is English.

>>> detect_lang("Выручка по region_code за май"), detect_lang("Revenue in Москва last year")
('ru', 'en')
>>> detect_lang("2025"), is_ru("Сколько карт?")
('en', True)
"""

from __future__ import annotations

import re
from typing import Literal

_CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)
_LATIN = re.compile(r"[a-z]", re.IGNORECASE)


def detect_lang(text: str) -> Literal["ru", "en"]:
    """'ru' when the text is mostly Cyrillic, else 'en'."""
    return (
        "ru"
        if len(_CYRILLIC.findall(text)) >= len(_LATIN.findall(text)) and _CYRILLIC.search(text)
        else "en"
    )


def is_ru(text: str) -> bool:
    """Whether `detect_lang` reads the text as Russian."""
    return detect_lang(text) == "ru"
