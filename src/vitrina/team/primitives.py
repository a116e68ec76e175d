"""The board actions roles may take, each permission-checked, audited and idempotent.

A primitive called twice with the same arguments (a retry, a restart after a crash) finds
what the first call did and returns it with ``created=False``: no second review, no second
verdict, no second merge. A role calling a primitive it may not use gets PermissionDenied,
and the refusal is in the audit log.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from vitrina.team.board import BoardStore, Comment, Task
from vitrina.team.chain import PHASES, STEPS
from vitrina.team.errors import InvalidTransition, PermissionDenied, TeamError
from vitrina.team.lifecycle import HandoffStatus, TaskKind, TaskStatus, check_transition
from vitrina.team.permissions import require_assignee, require_move, require_primitive
from vitrina.team.protocol import Handoff, ParsedComment, VerdictKind, parse_comment
from vitrina.team.roles import RoleSpec, Roster
from vitrina.team.workspace import Workspace

S = TaskStatus
MARK_MERGED = "merged"
MARK_AMENDMENTS_APPLIED = "amendments_applied"
MARK_AMENDMENTS_REQUESTED = "amendments_requested"
MARK_REVIEWERS = "reviewers_requested"
MARK_REWORK = "rework_requested"


@dataclass
class Outcome:
    """What a primitive did: ``created`` is False when an earlier call had already done it."""

    action: str
    task_id: int | None
    created: bool
    detail: dict[str, Any] = field(default_factory=dict)
    task: Task | None = None
    comment: Comment | None = None


def branch_name(step_id: str) -> str:
    """A work task's branch: one per chain step of the build, named before the task exists, so
    the task row and its branch are written in one insert (a crash cannot leave one without the
    other)."""
    return f"task/{step_id}"


def review_key(parent: Task, reviewer: str, round: int) -> str:
    return f"review:{parent.id}:{reviewer}:{round}"


def verdict_of(comments: list[Comment]) -> Comment | None:
    """The verdict of a review task: the one comment keyed as its verdict."""
    return next((c for c in comments if c.key == "verdict" and c.verdict), None)


class Primitives:
    """The actions on one build's board, for any role; permissions are checked per call."""

    def __init__(
        self,
        store: BoardStore,
        roster: Roster,
        build_id: int,
        workspace: Workspace,
        *,
        on_action: Callable[[str, dict[str, Any]], None] | None = None,
    ) -> None:
        self.store = store
        self.roster = roster
        self.build_id = build_id
        self.workspace = workspace
        self.on_action = on_action

    # helpers ----------------------------------------------------------------------------
    def _role(self, actor: str, primitive: str, task: Task | None = None) -> RoleSpec:
        role = self.roster.get(actor)
        try:
            require_primitive(role, primitive)
            if task is not None:
                require_assignee(role, task.role, task.id)
        except PermissionDenied as exc:
            self._audit(actor, primitive, "denied", task.id if task else None, reason=str(exc))
            raise
        return role

    def _task(self, task_id: int) -> Task:
        task = self.store.get_task(task_id)
        if task is None or task.build_id != self.build_id:
            raise TeamError(f"no task {task_id} in build {self.build_id}")
        return task

    def _audit(
        self, actor: str, action: str, outcome: str, task_id: int | None, **detail: Any
    ) -> None:
        self.store.audit(
            build_id=self.build_id,
            actor=actor,
            action=action,
            outcome=outcome,
            task_id=task_id,
            **detail,
        )
        if self.on_action is not None:
            self.on_action(
                action, {"actor": actor, "outcome": outcome, "task_id": task_id, **detail}
            )

    def _done(
        self, actor: str, action: str, task: Task | None, created: bool, **detail: Any
    ) -> Outcome:
        self._audit(
            actor, action, "done" if created else "noop", task.id if task else None, **detail
        )
        fresh = self.store.get_task(task.id) if task else None
        return Outcome(action, task.id if task else None, created, detail, task=fresh)

    def _move(
        self, role: RoleSpec, task: Task, target: TaskStatus, action: str, **fields: Any
    ) -> bool:
        """Check and apply one transition (compare-and-set); False when already there."""
        if task.status is target:
            return False
        try:
            check_transition(task.kind, task.status, target, task_id=task.id)
            require_move(role, task.kind, task.status, target, task.id)
        except (InvalidTransition, PermissionDenied) as exc:
            self._audit(
                role.id,
                action,
                "denied" if isinstance(exc, PermissionDenied) else "invalid",
                task.id,
                reason=str(exc),
            )
            raise
        if not self.store.set_status(task.id, task.status, target, **fields):
            now = self._task(task.id)
            if now.status is target:
                return False
            raise InvalidTransition(task.id, task.kind, now.status, target)
        return True

    # the primitives ---------------------------------------------------------------------
    def comment(
        self, actor: str, task_id: int, text: str, *, key: str
    ) -> tuple[Comment, ParsedComment, bool]:
        """Post a comment; its blocks are parsed and stored with it. A verdict is allowed
        only from a reviewer on its own review task, once per task."""
        task = self._task(task_id)
        role = self._role(actor, "comment", task)
        parsed = parse_comment(
            text,
            roles=list(self.roster.roles),
            phases=PHASES,
            expect_verdict=task.kind is TaskKind.REVIEW and role.kind == "reviewer",
        )
        if parsed.verdict is not None:
            if role.kind != "reviewer" or task.kind is not TaskKind.REVIEW:
                self._audit(
                    actor, "comment", "denied", task.id, reason="only a reviewer gives a verdict"
                )
                raise PermissionDenied(
                    actor, "give a verdict", "only reviewers, on their own review task"
                )
            if parsed.ok:
                key = "verdict"
        comment, created = self.store.add_comment(
            task_id=task.id,
            key=key,
            author=actor,
            text=text,
            round=task.round,
            handoff=parsed.handoff.model_dump(mode="json") if parsed.handoff else None,
            verdict=parsed.verdict.model_dump(mode="json")
            if parsed.verdict and parsed.ok
            else None,
            problems=parsed.problems,
        )
        self._done(
            actor,
            "comment",
            task,
            created,
            comment_id=comment.id,
            problems=len(parsed.problems),
            verdict=parsed.verdict.verdict.value if parsed.verdict else None,
        )
        return comment, parsed, created

    def change_status(self, actor: str, task_id: int, target: TaskStatus) -> Outcome:
        task = self._task(task_id)
        role = self._role(actor, "change_status", task)
        if task.kind is TaskKind.WORK and target is S.DONE:
            problem = self.acceptance_problem(task)
            if problem:
                self._audit(actor, "change_status", "invalid", task.id, reason=problem)
                raise TeamError(f"task {task.id} cannot be accepted: {problem}")
        if (
            task.kind is TaskKind.REVIEW
            and target is S.DONE
            and verdict_of(self.store.comments(task.id)) is None
        ):
            self._audit(actor, "change_status", "invalid", task.id, reason="no verdict")
            raise TeamError(f"review {task.id} cannot be done without a verdict")
        moved = self._move(role, task, target, "change_status")
        return self._done(actor, "change_status", task, moved, status=str(target))

    def open_task(self, actor: str, step_id: str, *, body: str, lang: str) -> Outcome:
        """Open the work task of one chain step, assigned to the step's role (once per step)."""
        self._role(actor, "open_task")
        step = STEPS[step_id]
        task, created = self.store.create_task(
            build_id=self.build_id,
            key=f"step:{step.id}",
            kind=TaskKind.WORK,
            title=step.title(lang),
            role=step.role,
            phase=step.phase,
            step=step.id,
            body=body,
            branch=branch_name(step.id),
        )
        self.workspace.ensure_branch(branch_name(step.id))  # cut from main now; a repeat finds it
        return self._done(actor, "open_task", task, created, step=step.id, role=step.role)

    def open_blocker(self, actor: str, task_id: int, reason: str) -> Outcome:
        """A blocker task under ``task_id``; the task itself becomes blocked (once per reason)."""
        task = self._task(task_id)
        role = self._role(actor, "open_blocker", task)
        digest = hashlib.sha256(reason.encode("utf-8")).hexdigest()[:16]
        blocker, created = self.store.create_task(
            build_id=self.build_id,
            key=f"blocker:{task.id}:{digest}",
            kind=TaskKind.BLOCKER,
            title=reason.splitlines()[0][:200],
            body=reason,
            role="coordinator",
            phase=task.phase,
            step=task.step,
            parent_id=task.id,
            round=task.round,
        )
        if task.status is not S.BLOCKED and task.status is not S.DONE:
            self._move(role, task, S.BLOCKED, "open_blocker")
        self._done(actor, "open_blocker", task, created, blocker_id=blocker.id, reason=reason[:300])
        return Outcome("open_blocker", blocker.id, created, {"parent": task.id}, task=blocker)

    def create_review(self, actor: str, task_id: int, reviewer: str) -> Outcome:
        """The review task of one reviewer for the task's current round (once)."""
        task = self._task(task_id)
        self._role(actor, "create_review", task)
        if self.roster.get(reviewer).kind != "reviewer":
            self._audit(actor, "create_review", "invalid", task.id, reviewer=reviewer)
            raise TeamError(f"'{reviewer}' is not a reviewer role")
        if task.status is not S.REVIEW:
            self._audit(actor, "create_review", "invalid", task.id, status=str(task.status))
            raise InvalidTransition(
                task.id, task.kind, task.status, "review (a review needs a task in review)"
            )
        review, created = self.store.create_task(
            build_id=self.build_id,
            key=review_key(task, reviewer, task.round),
            kind=TaskKind.REVIEW,
            title=f"Review: {task.title}",
            role=reviewer,
            phase=task.phase,
            step=task.step,
            parent_id=task.id,
            round=task.round,
            branch=task.branch,
        )
        self._done(
            actor,
            "create_review",
            task,
            created,
            review_id=review.id,
            reviewer=reviewer,
            round=task.round,
        )
        return Outcome(
            "create_review",
            review.id,
            created,
            {"parent": task.id, "reviewer": reviewer},
            task=review,
        )

    def hand_off(self, actor: str, task_id: int, handoff: Handoff) -> Outcome:
        """An author's or builder's hand-off moves its task to review; the coordinator's
        hand-off reassigns a task to the role named by NEXT."""
        task = self._task(task_id)
        role = self._role(actor, "hand_off", task)
        if role.kind == "coordinator":
            target = handoff.next or task.role
            self.roster.get(target)
            created = target != task.role
            if created:
                self.store.update_task(task.id, role=target)
            if handoff.status is HandoffStatus.AMENDMENTS_REQUESTED:
                created = (
                    self.store.set_marker(task.id, MARK_AMENDMENTS_REQUESTED, task.round) or created
                )
            return self._done(
                actor, "hand_off", task, created, role=target, status=handoff.status.value
            )
        if handoff.reviewers_requested:  # first: a crash after the move must not lose the request
            self.store.set_marker(
                task.id, MARK_REVIEWERS, task.round, json.dumps(handoff.reviewers_requested)
            )
        moved = self._move(role, task, S.REVIEW, "hand_off")
        return self._done(
            actor,
            "hand_off",
            task,
            moved,
            status=handoff.status.value,
            reviewers=handoff.reviewers_requested,
        )

    def return_for_rework(self, actor: str, task_id: int, reasons: list[str]) -> Outcome:
        """Send a task in review back to its author with the reviewers' reasons; the round
        advances once per call, however often the call is repeated."""
        task = self._task(task_id)
        role = self._role(actor, "return_for_rework", task)
        if task.status is not S.REVIEW:  # already returned (a repeated call): nothing moves again
            return self._done(actor, "return_for_rework", task, False, round=task.round)
        # the reasons first, keyed by the round: a crash before the move repeats only the move
        self.store.set_marker(
            task.id, MARK_REWORK, task.round, json.dumps(reasons, ensure_ascii=False)
        )
        moved = self._move(role, task, S.REWORK, "return_for_rework", round=task.round + 1)
        return self._done(
            actor, "return_for_rework", task, moved, round=task.round + 1, reasons=reasons
        )

    def mark_amendments_applied(self, actor: str, task_id: int, note: str = "") -> Outcome:
        task = self._task(task_id)
        self._role(actor, "mark_amendments_applied", task)
        if self.store.marker(task.id, MARK_AMENDMENTS_REQUESTED, task.round) is None:
            self._audit(
                actor,
                "mark_amendments_applied",
                "invalid",
                task.id,
                reason="no amendments requested",
            )
            raise TeamError(f"task {task.id} has no amendments to apply in round {task.round}")
        created = self.store.set_marker(task.id, MARK_AMENDMENTS_APPLIED, task.round, note)
        return self._done(actor, "mark_amendments_applied", task, created, round=task.round)

    def merge(self, actor: str, task_id: int) -> Outcome:
        """Merge an accepted task's branch into main, once; the marker keeps the commit."""
        task = self._task(task_id)
        self._role(actor, "merge", task)
        if task.status is not S.DONE or task.kind is not TaskKind.WORK or not task.branch:
            self._audit(actor, "merge", "invalid", task.id, status=str(task.status))
            raise TeamError(f"task {task.id} is not an accepted work task: nothing to merge")
        marker = self.store.marker(task.id, MARK_MERGED, 0)
        if marker is not None:
            return self._done(actor, "merge", task, False, commit=marker.value)
        result = self.workspace.merge(
            task.branch, f"Merge {task.branch}: {task.title}", author=actor
        )
        if self.on_action is not None:
            self.on_action("git_merged", {"task_id": task.id, "commit": result.sha})
        created = self.store.set_marker(task.id, MARK_MERGED, 0, result.sha) and result.created
        return self._done(actor, "merge", task, created, commit=result.sha)

    # reading the state the primitives rely on ---------------------------------------------
    def reviews(self, task: Task, round: int | None = None) -> list[Task]:
        return [
            t
            for t in self.store.tasks(self.build_id, kind=TaskKind.REVIEW, parent_id=task.id)
            if round is None or t.round == round
        ]

    def acceptance_problem(self, task: Task) -> str | None:
        """Why the task's current round cannot be accepted yet (None when it can)."""
        reviews = self.reviews(task, task.round)
        if not reviews:
            return "no review in this round"
        amendments = False
        for review in reviews:
            verdict = verdict_of(self.store.comments(review.id))
            if verdict is None:
                return f"review {review.id} ({review.role}) has no verdict"
            kind = VerdictKind(verdict.verdict["verdict"]) if verdict.verdict else None
            if kind is VerdictKind.REQUESTS_REWORK:
                return f"review {review.id} ({review.role}) requests rework"
            amendments = amendments or kind is VerdictKind.APPROVED_WITH_AMENDMENTS
        if amendments and self.store.marker(task.id, MARK_AMENDMENTS_APPLIED, task.round) is None:
            return "the amendments of this round are not applied"
        return None
