"""A model adapts a close verified query to a question no entry matches (decision 197).

Only with a model, only among the entries `verified` found close (at most three), and never
as a verified answer: the adapted SQL runs through `run_checked` (guard with the allow-lists
and the row policy, EXPLAIN, the deterministic checks), the answer is marked "not verified,
adapted from entry X", and the query goes to the bank's review queue (`verified/pending/`)
through the import's own checks, where it waits until a person accepts it. A reply that
picks no entry, names an entry it was not shown, keeps a placeholder, or fails a check
leaves the turn where it was going (the model's own SQL path, or the refusal).
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime
from pydantic import BaseModel, Field

from vitrina.ask.context import AskContext
from vitrina.ask.llm.tasks import ask_model
from vitrina.ask.nodes.verified import bank_of, ran
from vitrina.ask.state import AskState
from vitrina.query.run import RunOptions, run_checked
from vitrina.query.verified.importer import Importer, Outcome
from vitrina.query.verified.store import Bank, BankError
from vitrina.trace import Trace

TEXT = {
    "queued": {
        "en": "Not verified: adapted by the model from the verified query «{id}» (verified by "
        "{who}); it waits for an analyst's review as «{queued}».",
        "ru": "Не проверено: модель адаптировала проверенный запрос «{id}» (проверил {who}); "
        "запрос ждёт проверки аналитиком как «{queued}».",
    },
    "not_queued": {
        "en": "Not verified: adapted by the model from the verified query «{id}» (verified by "
        "{who}); not queued for review: {why}.",
        "ru": "Не проверено: модель адаптировала проверенный запрос «{id}» (проверил {who}); "
        "в очередь на проверку не поставлен: {why}.",
    },
}


class Adaptation(BaseModel):
    """The model's reply: which entry it adapted and the SQL, or entry=None."""

    entry: str | None = Field(
        default=None, description="id of the verified query adapted; null when none fits"
    )
    sql: str = ""
    explanation: str = ""


def _queue(
    bank: Bank, ctx: AskContext, question: str, sql: str, run_id: str, entry: str
) -> Outcome:
    """The adapted query into the review queue, parameters proposed as for an import."""
    importer = Importer(
        bank, ctx.catalog, ctx.warehouse, today=ctx.today, row_cap=ctx.settings.row_cap
    )
    ticket = {"id": f"adapted-{entry}-{run_id}", "question": question, "sql": sql}
    return importer.one({**ticket, "author": f"a model, adapted from {entry}"}, 1)


def _done(trace: Trace) -> dict[str, Any]:
    """The node's update when it ends: the close entries spent, its trace."""
    return {"bank_close": [], "trace": trace.events}


def adapt_verified(state: AskState, runtime: Runtime[AskContext]) -> dict:
    trace = Trace("adapt_verified")
    ctx = runtime.context
    close = state.get("bank_close") or []
    if ctx.llm is None or not close:
        return {"bank_close": []}
    bank = bank_of(ctx)
    try:
        entries = {e.id: e for e in (bank.get(i) for i in close)}
    except BankError as exc:
        trace.suppressed("a close verified query could not be read", error=str(exc))
        return _done(trace)
    question = state.get("rewritten") or state.get("question") or ""
    shown = [{"id": e.id, "wordings": e.wordings, "sql": e.sql} for e in entries.values()]
    reply = ask_model(
        ctx.llm, "verified_adapt", Adaptation, trace, question=question, entries=shown
    )
    if reply is None or not reply.entry or not reply.sql.strip():
        trace.branch("the model adapted no verified query")
        return _done(trace)
    entry = entries.get(reply.entry)
    if entry is None or "{{" in reply.sql:
        trace.rejected("the model's adaptation is unusable", entry=reply.entry)
        return _done(trace)
    options = RunOptions(row_cap=ctx.settings.row_cap, policy=ctx.policy)
    checked = run_checked(reply.sql, ctx.catalog, ctx.warehouse, options, trace=trace)
    if not checked.ok or checked.result is None:
        trace.rejected("the adapted query failed a check: not used", error=checked.error)
        return _done(trace)
    outcome = _queue(bank, ctx, question, reply.sql, state["run_id"], entry.id)
    lang = "ru" if state.get("lang") == "ru" else "en"
    if outcome.accepted:
        text = TEXT["queued"][lang].format(
            id=entry.id, who=entry.verified_by, queued=outcome.entry_id
        )
    else:
        text = TEXT["not_queued"][lang].format(
            id=entry.id, who=entry.verified_by, why=outcome.said(lang)
        )
    trace.branch(
        "adapted verified query answered (not verified)",
        entry=entry.id,
        queued=outcome.entry_id,
        reason=outcome.reason,
    )
    note = {
        "entry": entry.id,
        "verified_by": entry.verified_by,
        "text": text,
        "adapted": True,
        "queued": outcome.entry_id,
        "explanation": reply.explanation or f"adapted from verified query {entry.id}",
    }
    return {**ran(ctx, checked, entry, "adapted", note), **_done(trace)}
