"""The Period value: what a question's time phrase resolved to."""

from __future__ import annotations

from datetime import date

from pydantic import BaseModel, ConfigDict

OPEN_START = date(1, 1, 1)  # "до 2024 года": no lower bound (the compiler writes none)


class Period(BaseModel):
    """An inclusive date range found in a question, with labels and the words it came from.

    Frozen and JSON-serialisable, so it can sit in graph state and checkpoints.
    ``corrected`` is set (in the question's language) whenever the dates differ from
    what was literally written: an impossible day clamped, or an inverted range swapped.
    """

    model_config = ConfigDict(frozen=True)

    start: date  # inclusive
    end: date  # inclusive (last day)
    label_ru: str  # "май 2025", "I квартал 2025", "01.01.2025–15.03.2025"
    label_en: str  # "May 2025", "Q1 2025", "2025-01-01 – 2025-03-15"
    span: str  # the exact substring of the question that produced it
    corrected: str | None = None

    @property
    def open_start(self) -> bool:
        return self.start == OPEN_START

    @property
    def days(self) -> int:
        """Number of days covered, both ends included."""
        return (self.end - self.start).days + 1
