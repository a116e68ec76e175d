"""A question answered from the bank: match, bind, run with every check, and say so.

The answer names the verified query it used, who verified it and when, and each value it
substituted, so a reader can judge it. The SQL runs through `run_checked` (the guard with
the catalog's allow-lists and the token's row policy, EXPLAIN, the deterministic checks,
the read-only execution): a verified entry is trusted for its wording, never for safety.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING

from vitrina.i18n import Messages
from vitrina.query.run import Checked, RunOptions, run_checked
from vitrina.query.verified.check import catalog_stale
from vitrina.query.verified.match import Match, find_match
from vitrina.query.verified.model import Entry, ParamError
from vitrina.query.verified.params import bind
from vitrina.trace import Trace

if TYPE_CHECKING:
    from vitrina.catalog import Catalog
    from vitrina.sql.policy import RowPolicy
    from vitrina.warehouse import Warehouse

TEXTS = {
    "used": {
        "en": "Answered by the verified query «{id}» (verified by {who}{when}).",
        "ru": "Ответ дан проверенным запросом «{id}» (проверил {who}{when}).",
    },
    "substituted": {"en": "Substituted: {items}.", "ru": "Подставлено: {items}."},
    "nothing": {"en": "No values substituted.", "ru": "Значения не подставлялись."},
    "one": {"en": "Result: {value}.", "ru": "Результат: {value}."},
    "rows": {"en": "Rows: {n}.", "ru": "Строк: {n}."},
    "empty": {"en": "The query returned no rows.", "ru": "Запрос не вернул строк."},
}
text = Messages(TEXTS)


@dataclass
class VerifiedAnswer:
    """What the bank answered: the entry, the SQL that ran and its checked result."""

    match: Match
    sql: str
    checked: Checked
    text: str
    trace: Trace = field(default_factory=lambda: Trace("verified"))

    @property
    def entry(self) -> Entry:
        return self.match.entry

    @property
    def note(self) -> str:
        """Which query, who verified it and what was substituted (the answer's lead)."""
        return used_text(self.match, self.lang)

    lang: str = "en"


def usable_entries(entries: list[Entry], catalog: Catalog, trace: Trace) -> list[Entry]:
    """The verified entries that still fit the catalog; each stale one is said in the trace."""
    out = []
    for entry in entries:
        if not entry.usable():
            continue
        reason = catalog_stale(entry, catalog)
        if reason:
            trace.rejected("verified query is stale: not used", entry=entry.id, reason=reason)
            continue
        out.append(entry)
    return out


def _cell(value: object) -> str:
    if isinstance(value, float):
        return f"{value:,.2f}".replace(",", " ")
    return str(value)


def used_text(match: Match, lang: str) -> str:
    """Which query, who verified it and when, and each value substituted."""
    lang = "ru" if lang == "ru" else "en"
    entry = match.entry
    when = f", {entry.verified_at.isoformat()}" if entry.verified_at else ""
    items = ", ".join(f"{k} = {v}" for k, v in match.substituted.items())
    return " ".join(
        [
            text("used", lang, id=entry.id, who=entry.verified_by, when=when),
            text("substituted", lang, items=items) if items else text("nothing", lang),
        ]
    )


def answer_text(match: Match, checked: Checked, lang: str) -> str:
    """Which query, who verified it, what was substituted, and the result's size."""
    lang = "ru" if lang == "ru" else "en"
    parts = [used_text(match, lang)]
    result = checked.result
    if result is not None:
        if result.row_count == 0:
            parts.append(text("empty", lang))
        elif result.row_count == 1 and len(result.columns) == 1:
            parts.append(text("one", lang, value=_cell(result.rows[0][0])))
        else:
            parts.append(text("rows", lang, n=result.row_count))
    return " ".join(parts)


def answer_from_bank(
    question: str,
    entries: list[Entry],
    catalog: Catalog,
    warehouse: Warehouse,
    *,
    today: date,
    lang: str,
    row_cap: int,
    policy: RowPolicy | None = None,
    trace: Trace | None = None,
) -> VerifiedAnswer | None:
    """The bank's answer to `question`, or None when no verified entry fits it (`trace`
    says why: stale entries skipped, ties; a failed check is in the answer's `checked`)."""
    trace = trace if trace is not None else Trace("verified")
    found = find_match(question, usable_entries(entries, catalog, trace), catalog, today)
    if found.ambiguous:
        trace.rejected("several verified queries fit equally: none used", entries=found.ambiguous)
    if found.match is None:
        return None
    match = found.match
    try:
        sql = bind(match.entry.sql, match.values, warehouse.dialect)
    except ParamError as exc:
        trace.rejected(
            "verified query could not take the values", entry=match.entry.id, error=str(exc)
        )
        return None
    trace.branch("verified query matched", entry=match.entry.id, substituted=match.substituted)
    checked = run_checked(
        sql, catalog, warehouse, RunOptions(row_cap=row_cap, policy=policy), trace=trace
    )
    return VerifiedAnswer(
        match, checked.sql, checked, answer_text(match, checked, lang), trace, lang
    )
