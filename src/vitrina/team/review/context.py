"""What the reviewer's checklist and the builder's polish both read: the dashboard's language
and audience and the catalog's dictionaries (kept apart from the checks so the builder can
import it without the reviewer's rule table)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from vitrina.catalog.model import Dictionary

BOARD_STEMS = ("правлен", "совет директор", "руководств", "топ-менедж", "board", "executive")
ORDINAL_PREFIX = re.compile(r"^\s*(\d+)\s*[-.):]")


@dataclass
class ReviewContext:
    """What the checks need besides the bundle: the audience and the catalog's dictionaries."""

    language: str
    audience: str = ""
    dictionaries: list[Dictionary] = field(default_factory=list)

    @property
    def board_level(self) -> bool:
        audience = self.audience.lower()
        return any(stem in audience for stem in BOARD_STEMS)


def dictionary_of(column: str | None, labels: list[str], ctx: ReviewContext) -> Dictionary | None:
    """The dictionary of a chart's dimension: its column's name, the one its labels match best."""
    if not column:
        return None
    best, hits = None, 0
    for dic in ctx.dictionaries:
        if dic.column_name != column.lower():
            continue
        names = {v.value for v in dic.values} | {v.label(ctx.language) for v in dic.values}
        n = sum(1 for label in labels if label in names)
        if n > hits:
            best, hits = dic, n
    return best


def is_ordinal(dic: Dictionary) -> bool:
    """A dictionary whose values carry their rank ("1-URGENT", "2-HIGH"): its order is the order."""
    return len(dic.values) > 1 and all(ORDINAL_PREFIX.match(v.value) for v in dic.values)
