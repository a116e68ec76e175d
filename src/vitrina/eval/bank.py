"""The clarification bank: stored answers to the clarifying questions a case meets.

An answer is keyed by suite, case and the option ids offered (so the same question worded
by another configuration finds the same answer). Answers come from the store, else from
the case's `answers` in the suite file (then stored); a question with no answer is stored
with an empty answer so `vitrina eval bank` can list it and a person can fill it in.
"""

from __future__ import annotations

from typing import Any

from vitrina.eval.store import BankEntry, EvalStore
from vitrina.eval.suite import Case

ANY = "*"


def bank_key(clarification: dict[str, Any] | None) -> str:
    """The option ids, in order, or the question's text when there are no options.

    >>> bank_key({"question": "Что именно?", "options": [{"id": "wallets"}, {"id": "cards"}]})
    'wallets,cards'
    """
    clarification = clarification or {}
    ids = [str(o.get("id")) for o in clarification.get("options") or []]
    return (
        ",".join(ids) if ids else " ".join(str(clarification.get("question", "")).lower().split())
    )


def bank_reply(
    store: EvalStore, suite: str, case: Case, clarification: dict[str, Any] | None
) -> str | None:
    """The stored or seeded reply to this clarification; None (and a stored request) if none."""
    key = bank_key(clarification)
    stored = store.bank_answer(suite, case.id, key)
    if stored:
        return stored
    clarification = clarification or {}
    seeded = case.answers.get(key) or case.answers.get(ANY)
    store.bank_put(
        BankEntry(
            suite=suite,
            case_id=case.id,
            key=key,
            question=str(clarification.get("question", "")),
            options=list(clarification.get("options") or []),
            answer=seeded,
            source="suite" if seeded else None,
        )
    )
    return seeded
