"""People on the board: comment, answer a blocker, approve, reject, reassign (issue 31 item 5).

Why a module beside the primitives: a person is not a role of the roster (no persona, no
tools, no spec section), but acts on the same board rows under the same rules: every status
move goes through the lifecycle's transition table, every action is permission-checked by the
person's board role and written to the audit log (refusals included), and every action is
idempotent (the same comment twice is one comment; an approved task approved again is a
no-op). A comment of a person never carries a HANDOFF or VERDICT block: a person cannot speak
for a role. An action that unblocks a task wakes the build (its status goes back to running,
so the next `vitrina build` of the brief, or a serving worker, goes on from the board).

>>> sorted(RIGHTS["member"]), RIGHTS["viewer"]
(['answer', 'comment'], frozenset())
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Literal

from vitrina.team.board import BoardStore, Task
from vitrina.team.chain import PHASES
from vitrina.team.errors import InvalidTransition, PermissionDenied, TeamError
from vitrina.team.lifecycle import TaskKind, TaskStatus, check_transition
from vitrina.team.primitives import MARK_REWORK
from vitrina.team.protocol import parse_comment
from vitrina.team.roles import Roster

S = TaskStatus
BoardRole = Literal["lead", "member", "viewer"]
Action = Literal["comment", "answer", "approve", "reject", "reassign"]
RIGHTS: dict[str, frozenset[str]] = {
    "lead": frozenset({"comment", "answer", "approve", "reject", "reassign"}),
    "member": frozenset({"comment", "answer"}),
    "viewer": frozenset(),  # reads the board only
}


@dataclass
class PersonOutcome:
    action: str
    task_id: int
    created: bool
    woke: bool = False  # the build went from blocked back to running


class People:
    """One person's actions on one build's board."""

    def __init__(
        self, store: BoardStore, roster: Roster, build_id: int, name: str, role: BoardRole
    ) -> None:
        if role not in RIGHTS:
            raise TeamError(f"unknown board role '{role}': one of {', '.join(RIGHTS)}")
        self.store, self.roster, self.build_id = store, roster, build_id
        self.actor = f"person:{name}"
        self.role = role

    # helpers ------------------------------------------------------------------------------
    def _audit(self, action: str, outcome: str, task_id: int | None, **detail: object) -> None:
        self.store.audit(
            build_id=self.build_id,
            actor=self.actor,
            action=f"person_{action}",
            outcome=outcome,
            task_id=task_id,
            board_role=self.role,
            **detail,
        )

    def _allowed(self, action: Action, task_id: int) -> Task:
        if action not in RIGHTS[self.role]:
            self._audit(action, "denied", task_id, reason=f"a {self.role} may not {action}")
            raise PermissionDenied(
                self.actor, action, f"the board role '{self.role}' may: "
                + (", ".join(sorted(RIGHTS[self.role])) or "read only")
            )  # fmt: skip
        task = self.store.get_task(task_id)
        if task is None or task.build_id != self.build_id:
            raise TeamError(
                f"no task {task_id} in build {self.build_id}: `vitrina board` lists them"
            )
        return task

    def _move(self, task: Task, target: TaskStatus, action: str, **fields: object) -> bool:
        if task.status is target:
            return False
        try:
            check_transition(task.kind, task.status, target, task_id=task.id)
        except InvalidTransition as exc:
            self._audit(action, "invalid", task.id, reason=str(exc))
            raise
        if not self.store.set_status(task.id, task.status, target, **fields):
            now = self.store.get_task(task.id)
            if now is not None and now.status is target:
                return False
            raise InvalidTransition(task.id, str(task.kind), str(task.status), str(target))
        return True

    def _note(self, task: Task, text: str, action: str) -> bool:
        parsed = parse_comment(text, roles=list(self.roster.roles), phases=PHASES)
        if parsed.handoff is not None or parsed.verdict is not None:
            self._audit(action, "denied", task.id, reason="a person's comment has no blocks")
            raise PermissionDenied(
                self.actor, "write a HANDOFF or VERDICT block", "those are the roles' own"
            )
        digest = hashlib.sha256(f"{action}\n{text}".encode()).hexdigest()[:16]
        _, created = self.store.add_comment(
            task_id=task.id,
            key=f"{self.actor}:{digest}",
            author=self.actor,
            text=text,
            round=task.round,
            handoff=None,
            verdict=None,
            problems=[],
        )
        return created

    def _close_blockers(self, task: Task) -> None:
        for blocker in self.store.tasks(self.build_id, kind=TaskKind.BLOCKER, parent_id=task.id):
            if blocker.status is not S.DONE:
                self._move(blocker, S.DONE, "close_blocker")

    def _wake(self) -> bool:
        """The build back to running once nothing blocks it."""
        build = self.store.get_build(self.build_id)
        if build is None or build.status != "blocked":
            return False
        open_blockers = [
            t
            for t in self.store.tasks(self.build_id, kind=TaskKind.BLOCKER)
            if t.status is not S.DONE
        ]
        if open_blockers or any(
            t.status is S.BLOCKED for t in self.store.tasks(self.build_id, kind=TaskKind.WORK)
        ):
            return False
        result = {k: v for k, v in build.result.items() if k != "blocked"}
        self.store.update_build(self.build_id, status="running", result=result)
        self._audit("wake", "done", None)
        return True

    def _rework(self, task: Task, reasons: list[str], action: str) -> bool:
        self.store.set_marker(
            task.id, MARK_REWORK, task.round, json.dumps(reasons, ensure_ascii=False)
        )
        return self._move(task, S.REWORK, action, round=task.round + 1)

    # the actions ----------------------------------------------------------------------------
    def comment(self, task_id: int, text: str) -> PersonOutcome:
        task = self._allowed("comment", task_id)
        created = self._note(task, text, "comment")
        self._audit("comment", "done" if created else "noop", task.id)
        return PersonOutcome("comment", task.id, created)

    def answer(self, blocker_id: int, text: str) -> PersonOutcome:
        """The answer on the blocker and on its task; the blocker done; the task back in
        progress in a new round (its role works again, the answer on the task's page; a change
        of what was built is `reject`, with reasons); the build woken."""
        blocker = self._allowed("answer", blocker_id)
        if blocker.kind is not TaskKind.BLOCKER or blocker.parent_id is None:
            self._audit("answer", "invalid", blocker.id, reason="not a blocker")
            raise TeamError(f"task {blocker.id} is not a blocker: answer the blocker under it")
        created = self._note(blocker, text, "answer")
        moved = self._move(blocker, S.DONE, "answer")
        parent = self.store.get_task(blocker.parent_id)
        if parent is not None and parent.status is S.BLOCKED:
            self._note(parent, text, "answer")  # where the woken role reads it
            # a work task starts a new round: the role's comments are keyed by the round, so
            # the same round would replay the comment that blocked it
            bump = {"round": parent.round + 1} if parent.kind is TaskKind.WORK else {}
            self._move(parent, S.IN_PROGRESS, "answer", **bump)
        woke = self._wake()
        self._audit("answer", "done" if created or moved else "noop", blocker.id, woke=woke)
        return PersonOutcome("answer", blocker.id, created or moved, woke)

    def approve(self, task_id: int, note: str = "") -> PersonOutcome:
        """A person accepts a work task in review as it is (the reviews' requests overruled,
        in the audit log); the coordinator merges it and goes on."""
        task = self._allowed("approve", task_id)
        if task.kind is not TaskKind.WORK:
            raise TeamError(f"task {task.id} is a {task.kind} task: approve a work task")
        if note:
            self._note(task, note, "approve")
        moved = self._move(task, S.DONE, "approve")
        self._close_blockers(task)
        woke = self._wake()
        self._audit("approve", "done" if moved else "noop", task.id, woke=woke)
        return PersonOutcome("approve", task.id, moved, woke)

    def reject(self, task_id: int, reasons: list[str]) -> PersonOutcome:
        """A work task in review (or blocked) back to its role with the person's reasons."""
        task = self._allowed("reject", task_id)
        if task.kind is not TaskKind.WORK:
            raise TeamError(f"task {task.id} is a {task.kind} task: reject a work task")
        if not reasons:
            raise TeamError("a rejection needs its reasons: what must change")
        moved = (
            self._rework(task, [f"[PERSON] {r}" for r in reasons], "reject")
            if task.status is not S.REWORK
            else False
        )
        self._close_blockers(task)
        woke = self._wake()
        self._audit("reject", "done" if moved else "noop", task.id, reasons=reasons, woke=woke)
        return PersonOutcome("reject", task.id, moved, woke)

    def reassign(self, task_id: int, role_id: str) -> PersonOutcome:
        """An open task to another role of the same kind (an author's work to an author)."""
        task = self._allowed("reassign", task_id)
        target = self.roster.roles.get(role_id)
        current = self.roster.roles.get(task.role)
        if target is None or current is None or target.kind != current.kind:
            kind = current.kind if current else "?"
            same = [r.id for r in self.roster.roles.values() if r.kind == kind]
            self._audit("reassign", "invalid", task.id, to=role_id)
            raise TeamError(
                f"task {task.id} is a {kind}'s task: reassign it to one of {', '.join(same)}"
            )
        if task.status is S.DONE:
            raise TeamError(f"task {task.id} is done: nothing to reassign")
        created = task.role != role_id
        if created:
            self.store.update_task(task.id, role=role_id)
        self._audit("reassign", "done" if created else "noop", task.id, to=role_id)
        return PersonOutcome("reassign", task.id, created)
