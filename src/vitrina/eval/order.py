"""Does a question ask for an order? Top-N and explicit sorting make row order part of the answer.

>>> asks_for_order("Топ 5 мерчантов по выручке"), asks_for_order("Top 3 regions by cards")
(True, True)
>>> asks_for_order("Сумма платежей по регионам"), asks_for_order("Revenue by region, descending")
(False, True)
"""

from __future__ import annotations

import re

ORDER_WORDS = re.compile(
    r"(?i)(?<!\w)(?:топ|top)(?:[-\s]?\d+)?(?!\w)"
    r"|по убыванию|по возрастанию|отсортир|ранжир"
    r"|descending|ascending|\bsorted\b|\branked\b|\border(?:ed)? by\b"
)


def asks_for_order(question: str) -> bool:
    """True when the question asks for a top N or a sorted list."""
    return bool(ORDER_WORDS.search(question))
