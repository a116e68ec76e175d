"""Period labels read back into time, so a reviewer can tell whether a time axis is in order.

The labels are the ones ``present.numbers.format_period`` writes (months, quarters, weeks,
years, dates in both languages); a label it cannot read gives None and no verdict.

>>> chronological_key("февраль 2025") < chronological_key("ноябрь 2025")
True
>>> chronological_key("Q4 2024") < chronological_key("II кв. 2025") < chronological_key("2026")
True
>>> chronological_key("Q4 2025") > chronological_key("Q1 2025")
True
>>> chronological_key("нед. 2025-W05 (27.01–02.02)"), chronological_key("Revenue")
((2025, 1, 5), None)
"""

from __future__ import annotations

import re

from vitrina.present.numbers import MONTHS_EN, MONTHS_RU, ROMAN

_MONTHS = {m.lower(): i + 1 for i, m in enumerate(MONTHS_RU)} | {
    m.lower(): i + 1 for i, m in enumerate(MONTHS_EN)
}
_MONTH = re.compile(r"^(\w+)\s+(\d{4})$")
_QUARTER_EN = re.compile(r"^Q([1-4])\s+(\d{4})$")
_QUARTER_RU = re.compile(r"^(I{1,3}|IV)\s*кв\.\s*(\d{4})$")
_WEEK = re.compile(r"(\d{4})-W(\d{2})")
_DATE_RU = re.compile(r"^(\d{2})\.(\d{2})\.(\d{4})")
_DATE_ISO = re.compile(r"^(\d{4})-(\d{2})-(\d{2})")
_YEAR = re.compile(r"^(\d{4})$")

Key = tuple[int, int, int]


def chronological_key(label: str) -> Key | None:
    """(year, month or quarter or week, day) of a period label, or None."""
    text = label.strip()
    if (m := _MONTH.match(text)) and m[1].lower() in _MONTHS:
        return (int(m[2]), _MONTHS[m[1].lower()], 0)
    if m := _QUARTER_EN.match(text):
        return (int(m[2]), int(m[1]) * 3, 0)
    if m := _QUARTER_RU.match(text):
        return (int(m[2]), (ROMAN.index(m[1]) + 1) * 3, 0)
    if m := _WEEK.search(text):
        return (int(m[1]), (int(m[2]) - 1) * 7 // 30 + 1, int(m[2]))
    if m := _DATE_RU.match(text):
        return (int(m[3]), int(m[2]), int(m[1]))
    if m := _DATE_ISO.match(text):
        return (int(m[1]), int(m[2]), int(m[3]))
    if m := _YEAR.match(text):
        return (int(m[1]), 0, 0)
    return None
