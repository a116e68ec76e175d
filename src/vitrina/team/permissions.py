"""Who may do what: primitives and tools per role, and which status moves each kind may make.

The coordinator moves work but never edits artifacts; authors and builders build but never
accept (no merge, no review, no done); reviewers give verdicts but never reassign. Roles
other than the coordinator act only on tasks assigned to them.

>>> from vitrina.team.roles import Roster
>>> roster = Roster.default()
>>> may_move(roster.get("chart-builder"), "work", "review", "done")
False
>>> may_move(roster.get("coordinator"), "work", "review", "done")
True
"""

from __future__ import annotations

from vitrina.team.errors import PermissionDenied
from vitrina.team.lifecycle import TaskStatus as S
from vitrina.team.roles import RoleSpec

# (task kind, from, to) each kind of role may move a task along; "*" is any open status.
STATUS_RIGHTS: dict[str, frozenset[tuple[str, str, str]]] = {
    "coordinator": frozenset(
        {
            ("work", S.REVIEW, S.DONE),
            ("work", S.REVIEW, S.REWORK),
            ("work", S.BLOCKED, S.IN_PROGRESS),
            ("work", S.BLOCKED, S.REWORK),
            ("work", "*", S.BLOCKED),
            ("review", "*", S.BLOCKED),
            ("review", S.BLOCKED, S.IN_PROGRESS),
            ("blocker", S.NEW, S.DONE),
        }
    ),
    "author": frozenset(
        {
            ("work", S.NEW, S.IN_PROGRESS),
            ("work", S.IN_PROGRESS, S.REVIEW),
            ("work", S.REWORK, S.REVIEW),
            ("work", "*", S.BLOCKED),
        }
    ),
    "reviewer": frozenset(
        {
            ("review", S.NEW, S.IN_PROGRESS),
            ("review", S.IN_PROGRESS, S.DONE),
            ("review", "*", S.BLOCKED),
        }
    ),
}
STATUS_RIGHTS["builder"] = STATUS_RIGHTS["author"]


def may_move(role: RoleSpec, kind: str, current: str, target: str) -> bool:
    rights = STATUS_RIGHTS[role.kind]
    return (kind, str(current), str(target)) in rights or (kind, "*", str(target)) in rights


def require_primitive(role: RoleSpec, primitive: str) -> None:
    if primitive not in role.primitives:
        raise PermissionDenied(role.id, primitive, f"allowed: {', '.join(role.primitives)}")


def require_tool(role: RoleSpec, tool: str) -> None:
    if tool not in role.tools:
        raise PermissionDenied(role.id, f"use the tool {tool}", f"allowed: {', '.join(role.tools)}")


def require_assignee(role: RoleSpec, task_role: str, task_id: int) -> None:
    """Only the coordinator acts on other roles' tasks."""
    if role.kind != "coordinator" and task_role != role.id:
        raise PermissionDenied(role.id, f"act on task {task_id}", f"it is assigned to {task_role}")


def require_move(role: RoleSpec, kind: str, current: str, target: str, task_id: int) -> None:
    if not may_move(role, kind, current, target):
        raise PermissionDenied(role.id, f"move {kind} task {task_id} from {current} to {target}")
