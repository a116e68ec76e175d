"""Every role calling every primitive it may not use is refused, and the refusal is audited.

Beyond the table: builders never accept, reviewers never reassign or act on another's task,
only reviewers give verdicts, and nothing is accepted before its reviews approve.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from vitrina.team.errors import PermissionDenied, TeamError
from vitrina.team.lifecycle import HandoffStatus, TaskStatus
from vitrina.team.primitives import Primitives
from vitrina.team.protocol import Handoff, Verdict, render_comment
from vitrina.team.roles import PRIMITIVES, Roster

from .helpers import REVIEW_DONE, give_verdict, task_in_review

ROSTER = Roster.default()
CALLS: dict[str, Callable[[Primitives, str, int], Any]] = {
    "comment": lambda p, actor, tid: p.comment(actor, tid, "text", key="k"),
    "change_status": lambda p, actor, tid: p.change_status(actor, tid, TaskStatus.IN_PROGRESS),
    "open_task": lambda p, actor, tid: p.open_task(actor, "dataset", body="", lang="en"),
    "open_blocker": lambda p, actor, tid: p.open_blocker(actor, tid, "reason"),
    "create_review": lambda p, actor, tid: p.create_review(actor, tid, "data-steward"),
    "hand_off": lambda p, actor, tid: p.hand_off(
        actor, tid, Handoff(status=HandoffStatus.READY_FOR_REVIEW)
    ),
    "return_for_rework": lambda p, actor, tid: p.return_for_rework(actor, tid, ["x"]),
    "mark_amendments_applied": lambda p, actor, tid: p.mark_amendments_applied(actor, tid),
    "merge": lambda p, actor, tid: p.merge(actor, tid),
}
FORBIDDEN = [
    (role.id, primitive)
    for role in ROSTER.roles.values()
    for primitive in PRIMITIVES
    if primitive not in role.primitives
]


def test_the_table_covers_every_primitive() -> None:
    assert set(CALLS) == set(PRIMITIVES)
    assert len(FORBIDDEN) >= 25  # builders, authors, reviewers and the coordinator all have limits


@pytest.mark.parametrize(("role", "primitive"), FORBIDDEN, ids=[f"{r}-{p}" for r, p in FORBIDDEN])
def test_forbidden_primitive_is_refused(env, role: str, primitive: str) -> None:
    work = env.prims.open_task("coordinator", "scoping", body="", lang="en").task
    env.store.update_task(
        work.id, role=role
    )  # the role's own task: refused for the primitive alone
    before = {t.id: t.status for t in env.store.tasks(env.build.id)}
    with pytest.raises(PermissionDenied, match=f"role '{role}' may not {primitive}"):
        CALLS[primitive](env.prims, role, work.id)
    assert {t.id: t.status for t in env.store.tasks(env.build.id)} == before
    denied = [e for e in env.store.audit_log(env.build.id) if e.outcome == "denied"]
    assert denied[-1].actor == role and denied[-1].action == primitive


def test_builders_never_accept_their_own_work(env) -> None:
    task = task_in_review(env.prims, "data")
    review = env.prims.create_review("coordinator", task.id, "bi-tech-lead").task
    give_verdict(env.prims, review, "APPROVED")
    with pytest.raises(PermissionDenied, match=r"move work task \d+ from review to done"):
        env.prims.change_status("data-engineer", task.id, TaskStatus.DONE)
    env.prims.change_status("coordinator", task.id, TaskStatus.DONE)  # the coordinator accepts


def test_only_reviewers_give_verdicts(env) -> None:
    task = task_in_review(env.prims, "data")
    text = render_comment("I approve myself", REVIEW_DONE, Verdict(verdict="APPROVED"))
    with pytest.raises(PermissionDenied, match="give a verdict"):
        env.prims.comment("data-engineer", task.id, text, key="self")
    with pytest.raises(PermissionDenied, match="give a verdict"):
        env.prims.comment("coordinator", task.id, text, key="self")


def test_roles_act_only_on_their_own_tasks(env) -> None:
    task = task_in_review(env.prims, "data")
    review = env.prims.create_review("coordinator", task.id, "bi-tech-lead").task
    with pytest.raises(PermissionDenied, match="assigned to bi-tech-lead"):
        env.prims.change_status("data-steward", review.id, TaskStatus.IN_PROGRESS)
    with pytest.raises(PermissionDenied, match="assigned to data-engineer"):
        env.prims.comment("chart-builder", task.id, "let me fix that", key="x")


def test_reviewers_never_reassign(env) -> None:
    task = task_in_review(env.prims, "scoping")
    review = env.prims.create_review("coordinator", task.id, "data-steward").task
    with pytest.raises(PermissionDenied, match="may not hand_off"):
        env.prims.hand_off(
            "data-steward", review.id, Handoff(status=HandoffStatus.REVIEW_DONE, next="scoping")
        )


def test_nothing_is_accepted_before_its_reviews_approve(env) -> None:
    task = task_in_review(env.prims, "scoping")
    with pytest.raises(TeamError, match="no review in this round"):
        env.prims.change_status("coordinator", task.id, TaskStatus.DONE)
    review = env.prims.create_review("coordinator", task.id, "data-steward").task
    with pytest.raises(TeamError, match="has no verdict"):
        env.prims.change_status("coordinator", task.id, TaskStatus.DONE)
    give_verdict(env.prims, review, "REQUESTS-REWORK", ["[KPI-002] payment_amount differs"])
    with pytest.raises(TeamError, match="requests rework"):
        env.prims.change_status("coordinator", task.id, TaskStatus.DONE)
