"""The bank of verified queries as a node of the ask graph (decisions 195, 196).

A question the rules cannot plan (refused, or headed for the model path) is matched against
the catalog's verified queries before it is refused and before any model writes SQL: a
verified query beats a model's. The entry's SQL runs with the question's values through
`run_checked` (guard with the allow-lists and the token's row policy, EXPLAIN, the
deterministic checks); the node returns the result like `execute` would, and the turn goes
on through `check_result` and `answer`, so a verified answer has the same table, chart,
Excel file and checkpoint (with its follow-up snapshot) as any other. When nothing fits,
the node returns only its trace (and, with a model, the close entries a model may adapt:
`adapt_verified`), and the routing goes where it went before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from langgraph.runtime import Runtime

from vitrina.ask.context import AskContext
from vitrina.ask.state import AskState
from vitrina.present.infer_meta import infer_metas
from vitrina.query.verified.answer import answer_from_bank, usable_entries
from vitrina.query.verified.match import close_entries
from vitrina.query.verified.store import Bank, bank_dir
from vitrina.trace import Trace

if TYPE_CHECKING:
    from vitrina.present.columns import ColumnMeta
    from vitrina.query.run import Checked
    from vitrina.query.verified.model import Entry

MAX_CLOSE = 3  # entries a model is shown to pick from


def bank_of(ctx: AskContext) -> Bank:
    return Bank(bank_dir(ctx.settings.catalog_dir, ctx.settings.home))


def metas_of(ctx: AskContext, checked: Checked, entry: Entry | None) -> list[ColumnMeta]:
    """Column labels and formats inferred from the catalog, with the entry's own meanings
    of its columns (`columns:`) where the analyst wrote them."""
    assert checked.result is not None
    tables = sorted(checked.guard.tables) if checked.guard else []
    metas = infer_metas(checked.result, ctx.catalog, tables, None)
    meanings = {c.name.lower(): c for c in entry.columns} if entry else {}
    out = []
    for meta in metas:
        said = meanings.get(meta.name.lower())
        if said is not None:
            meta = meta.model_copy(
                update={"label_en": said.en or meta.label_en, "label_ru": said.ru or meta.label_ru}
            )
        out.append(meta)
    return out


def ran(
    ctx: AskContext, checked: Checked, entry: Entry, source: str, note: dict[str, Any]
) -> dict[str, Any]:
    """The state update of a bank query that ran: what `execute` returns, and what the answer
    says of it (`verified`: the note that leads the answer)."""
    assert checked.result is not None
    return {
        "sql": checked.sql,
        "sql_source": source,
        "sql_explanation": note["explanation"],
        "result": checked.result,
        "columns_meta": metas_of(ctx, checked, entry),
        "llm_tables": sorted(checked.guard.tables) if checked.guard else [],
        "context": {"joins": []},
        "checks": [*checked.flags],
        "reason": None,
        "verified": note,
    }


def verified(state: AskState, runtime: Runtime[AskContext]) -> dict:
    trace = Trace("verified")
    ctx = runtime.context
    entries = usable_entries(bank_of(ctx).usable(), ctx.catalog, trace)
    if not entries:
        return {"trace": trace.events}
    question = state.get("rewritten") or state.get("question") or ""
    got = answer_from_bank(
        question,
        entries,
        ctx.catalog,
        ctx.warehouse,
        today=ctx.today,
        lang=state.get("lang") or "en",
        row_cap=ctx.settings.row_cap,
        policy=ctx.policy,
        trace=trace,
    )
    if got is not None and got.checked.ok and got.checked.result is not None:
        note = {
            "entry": got.entry.id,
            "verified_by": got.entry.verified_by,
            "text": got.note,
            "explanation": f"verified query {got.entry.id} by {got.entry.verified_by}",
        }
        return {**ran(ctx, got.checked, got.entry, "verified", note), "trace": trace.events}
    if got is not None:
        trace.rejected("verified query failed a check: not used", entry=got.entry.id)
    if ctx.llm is None:
        return {"trace": trace.events}
    close = close_entries(question, entries, ctx.catalog, ctx.today, limit=MAX_CLOSE)
    if close:
        trace.branch("close verified queries for the model to adapt", entries=close)
    return {"bank_close": close, "trace": trace.events}
