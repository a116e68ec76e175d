"""Answer feedback from the web chat into the eval review queue, so real users feed the suite.

Every owner (API token) has one feedback run, `feedback-<owner>` of suite `user-feedback`;
each rated answer is a case of it, keyed by the ask run id, waiting in the review queue
(`vitrina eval review`). A person's verdict there, with its comment, makes the case a
candidate for a suite. Rating the same answer again replaces the case and reopens it.
"""

from __future__ import annotations

import re
from typing import Literal

from vitrina.eval.records import CaseRecord, RunRecord
from vitrina.eval.store import EvalStore, now

SUITE = "user-feedback"
Rating = Literal["up", "down"]
MAX_COMMENT = 2000
MAX_SQL = 20_000


def feedback_run_id(owner: str) -> str:
    """The owner's feedback run; only safe id characters (an owner is a token id or 'local')."""
    return "feedback-" + re.sub(r"[^A-Za-z0-9_-]", "_", owner)[:48]


def record_feedback(
    store: EvalStore,
    *,
    owner: str,
    thread_id: str,
    ask_run_id: str,
    rating: Rating,
    comment: str,
    question: str,
    answer: str,
    sql: str | None,
) -> str:
    """Put one rated answer into the review queue; returns its case id."""
    run_id = feedback_run_id(owner)
    comment = comment.strip()[:MAX_COMMENT]
    case = CaseRecord(
        case_id=f"fb-{ask_run_id}",
        kind="feedback",
        tags=[f"rating:{rating}", f"thread:{thread_id}"],
        question=question,
        expect=comment,
        status="answered",
        verdict="pending",
        reason=f"user said {'useful' if rating == 'up' else 'not right'}"
        + (f": {comment}" if comment else ""),
        sql=(sql or "")[:MAX_SQL] or None,
        in_review=True,
        judge_reason=answer[:MAX_COMMENT],
        fingerprint=f"{ask_run_id}:{rating}",
    )
    existing = store.load_run(run_id, owner) if store.resolve_owned(run_id, owner) else None
    cases = [c for c in (existing.cases if existing else []) if c.case_id != case.case_id] + [case]
    run = RunRecord(
        id=run_id,
        suite=SUITE,
        config_name="web chat",
        owner=owner,
        started_at=existing.started_at if existing else now(),
        finished_at=now(),
        cases=cases,
    )
    store.save_run(run)
    store.reopen(run_id, case.case_id, case.fingerprint)
    return case.case_id
