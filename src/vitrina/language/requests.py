"""Requests to change data: "удали", "update", "increase prices by 10%".

Vitrina only reads, so such a request is refused before anything else reads it: answering
"Delete all invoices from 2021" with a count of those invoices would pretend the request
was understood. Russian imperatives and infinitives are distinctive forms, so they are
matched anywhere; English verbs that double as nouns ("set", "change", "increase") only
when they open the request (after "please", "can you"...), the imperative position.

>>> write_verb("Удали все платежи за 2024 год")
'удали'
>>> write_verb("Please increase the prices by 10%"), write_verb("What was the increase in revenue?")
('increase', None)
>>> write_verb("How many invoices were updated in 2024?") is None
True
"""

from __future__ import annotations

import re

RU_FORMS = frozenset(
    [
        "удали",
        "удалите",
        "удалить",
        "удаляй",
        "сотри",
        "сотрите",
        "стереть",
        "очисти",
        "очистите",
        "очистить",
        "измени",
        "измените",
        "изменить",
        "поменяй",
        "поменяйте",
        "поменять",
        "обнови",
        "обновите",
        "обновить",
        "увеличь",
        "увеличьте",
        "увеличить",
        "уменьши",
        "уменьшите",
        "уменьшить",
        "повысь",
        "повысьте",
        "повысить",
        "понизь",
        "понизьте",
        "понизить",
        "установи",
        "установите",
        "установить",
        "поставь",
        "поставьте",
        "добавь",
        "добавьте",
        "добавить",
        "вставь",
        "вставьте",
        "вставить",
        "перезапиши",
        "исправь",
        "исправьте",
        "исправить",
        "переименуй",
        "переименуйте",
        "переименовать",
        "сбрось",
        "сбросьте",
        "сбросить",
        "обнули",
        "обнулите",
        "обнулить",
    ]
)
EN_ANYWHERE = frozenset(["delete", "truncate", "insert", "overwrite"])
EN_OPENING = frozenset(
    [
        "update",
        "remove",
        "set",
        "change",
        "increase",
        "decrease",
        "raise",
        "lower",
        "reduce",
        "modify",
        "alter",
        "drop",
        "add",
        "rename",
        "reset",
        "replace",
        "erase",
        "assign",
    ]
)
POLITE = frozenset(
    ["please", "pls", "kindly", "can", "could", "would", "you", "will", "just", "now"]
)
_WORD = re.compile(r"[a-zа-яё]+", re.IGNORECASE)
MAX_OPENING = 4  # words of politeness looked past to find the imperative


def write_verb(question: str) -> str | None:
    """The word that asks to change data, or None for a read-only question."""
    words = [w.lower().replace("ё", "е") for w in _WORD.findall(question)]
    for word in words:
        if word in RU_FORMS or word in EN_ANYWHERE:
            return word
    for word in words[:MAX_OPENING]:
        if word in EN_OPENING:
            return word
        if word not in POLITE:
            break
    return None
