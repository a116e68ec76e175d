"""Ask's one seam to the bank of verified queries (vitrina.query.verified).

When the rules refuse a question, the bank is tried before the refusal is returned: a
question an analyst verified once (in another wording, for another period or value) is
answered by that query, which runs through the guard, EXPLAIN and the checks like any
other. A question the rules answer never reaches the bank, so rules answers stay as they
were. The refusal stands when no verified entry fits, or the one that fits fails a check.
"""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING

from vitrina.language.detect import detect_lang
from vitrina.query.messages import text
from vitrina.query.verified.answer import answer_from_bank
from vitrina.query.verified.store import Bank, bank_dir
from vitrina.trace import Trace

if TYPE_CHECKING:
    from vitrina.ask.service import AskResult, AskService
    from vitrina.present.columns import ColumnMeta
    from vitrina.query.verified.answer import VerifiedAnswer
    from vitrina.sql.policy import RowPolicy
    from vitrina.warehouse import QueryResult


def _metas(service: AskService, got: VerifiedAnswer, result: QueryResult) -> list[ColumnMeta]:
    """Column labels and formats inferred from the catalog, with the entry's own meanings
    of its columns (`columns:`) where the analyst wrote them."""
    from vitrina.present.infer_meta import infer_metas

    tables = sorted(got.checked.guard.tables) if got.checked.guard else []
    metas = infer_metas(result, service.catalog, tables, None)
    meanings = {c.name.lower(): c for c in got.entry.columns}
    out = []
    for meta in metas:
        said = meanings.get(meta.name.lower())
        if said is not None:
            meta = meta.model_copy(
                update={"label_en": said.en or meta.label_en, "label_ru": said.ru or meta.label_ru}
            )
        out.append(meta)
    return out


def from_bank(service: AskService, refused: AskResult, policy: RowPolicy | None) -> AskResult:
    """The refused turn answered from the bank, or the refusal as it was (with the reason the
    bank did not answer in its trace, when one fit and failed)."""
    bank = Bank(bank_dir(service.settings.catalog_dir, service.settings.home))
    entries = bank.usable()
    if not entries:
        return refused
    question = refused.rewritten_question or refused.question
    lang = detect_lang(question)
    trace = Trace("verified")
    got = answer_from_bank(
        question,
        entries,
        service.catalog,
        service.warehouse,
        today=service.today or date.today(),
        lang=lang,
        row_cap=service.settings.row_cap,
        policy=policy,
        trace=trace,
    )
    events = [*refused.trace, *trace.events]
    if got is None or not got.checked.ok:
        return refused.model_copy(update={"trace": events}) if trace.events else refused
    result = got.checked.result
    assert result is not None
    from vitrina.present.table import render_table

    view = render_table(
        result, _metas(service, got, result), lang, limit=service.settings.table_preview_rows
    )
    body, checks = got.text, list(refused.checks)
    if policy:
        notice = text("policy_applied", lang, policy=policy.describe(lang))
        body = f"{body}\n\n{notice}"
        checks.append({"check": "row_policy", "message": notice})
    return refused.model_copy(
        update={
            "status": "answered",
            "sql": got.sql,
            "run_id": None,  # no Excel or chart from the refused turn's state
            "sql_source": "verified",
            "sql_explanation": f"verified query {got.entry.id} by {got.entry.verified_by}",
            "columns": list(result.columns),
            "rows": [list(r) for r in result.rows],
            "row_count": result.row_count,
            "answer": body,
            "table": view.model_dump(),
            "checks": checks,
            "tags": [*refused.tags, "verified", *(["row_policy"] if policy else [])],
            "trace": events,
        }
    )
