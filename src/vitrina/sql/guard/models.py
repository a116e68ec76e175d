"""What the guard returns: typed, so nodes can put it in state and the CLI can print it."""

from __future__ import annotations

from pydantic import BaseModel, Field

from vitrina.sql.errors import GuardError
from vitrina.trace import TraceEvent


class GuardViolation(BaseModel):
    """One broken rule: what was wrong and what to do, in English and Russian."""

    rule: str
    message_en: str
    message_ru: str
    fragment: str | None = None


class GuardResult(BaseModel):
    """The verdict on one SQL text.

    ``sql`` is the normalised, pretty-printed query. When ``ok`` it is the text to run
    (row cap applied, allowed tables schema-qualified): always execute ``sql``, never the
    input, so that what runs is exactly what was checked.
    """

    ok: bool
    sql: str
    violations: list[GuardViolation] = Field(default_factory=list)
    tables: set[str] = Field(default_factory=set)
    policed: set[str] = Field(default_factory=set)  # tables a row policy filtered in ``sql``
    events: list[TraceEvent] = Field(default_factory=list)  # why it failed closed, if it did

    def raise_for_violations(self) -> None:
        """Raise :class:`GuardError` when the SQL was rejected."""
        if not self.ok:
            raise GuardError(self.violations)
