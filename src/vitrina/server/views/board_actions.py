"""People's actions on the build board over HTTP: comment, answer a blocker, approve, reject,
reassign (issue 31 item 5, the web half of `vitrina board comment|...`).

Why a module of its own: the board's read views stay as they are; these call the same
`team.people.People` as the CLI, so the permissions, the lifecycle's transitions, the audit
log and idempotence are one code path. The token's role decides the board role (decision
205): an admin token is a lead, an analyst a member, a viewer reads only; under --no-auth
the local user is a lead. A refusal is an error body in both languages, never a traceback.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import Depends
from pydantic import BaseModel, ConfigDict, Field

from vitrina.server.auth import Principal, Who
from vitrina.server.errors import ApiError
from vitrina.server.row_policy import refuse_policed
from vitrina.server.state import ServerState, server_state
from vitrina.server.views.board_store import board_store, task_or_404

State = Annotated[ServerState, Depends(server_state)]
BOARD_ROLE = {"admin": "lead", "analyst": "member", "viewer": "viewer"}
OPEN = ("new", "in_progress", "review", "rework", "blocked")


class BoardAction(BaseModel):
    """One person's action on one task: the text of a comment or an answer, the reasons of a
    rejection (one per line), the role a task is reassigned to."""

    model_config = ConfigDict(extra="forbid")
    action: Literal["comment", "answer", "approve", "reject", "reassign"]
    text: str = Field(default="", max_length=20_000)
    to: str = Field(default="", max_length=64)


def board_role(who: Principal) -> str:
    """The board role of a token's role (an unknown role reads only)."""
    return BOARD_ROLE.get(who.role, "viewer")


def applicable(kind: str, status: str) -> list[str]:
    """The actions the lifecycle allows on a task of this kind in this status.

    >>> applicable("work", "review"), applicable("blocker", "new"), applicable("work", "done")
    (['comment', 'approve', 'reject', 'reassign'], ['comment', 'answer'], ['comment'])
    """
    found = ["comment"]
    if kind == "blocker" and status != "done":
        found.append("answer")
    if kind == "work" and status == "review":
        found.append("approve")
    if kind == "work" and status in ("review", "blocked"):
        found.append("reject")
    if kind in ("work", "review") and status in OPEN:
        found.append("reassign")
    return found


def _forbidden(token_role: str, board: str, detail: str) -> ApiError:
    """403 in words: what the token's role allows on the board and what to ask for."""
    if board == "viewer":
        return ApiError(
            403,
            "board_read_only",
            f"the token's role is {token_role}: a viewer reads the board only; "
            "comments and answers need an analyst token, approvals an admin token",
            f"у токена роль {token_role}: наблюдатель только читает доску; "
            "для комментариев и ответов нужен токен analyst, для приёмки — admin",
            role=token_role,
        )
    return ApiError(
        403,
        "board_forbidden",
        f"{detail}; approve, reject and reassign need an admin token",
        f"роль токена {token_role} (на доске {board}) этого не разрешает; "
        "принять, вернуть и передать задачу может токен admin",
        role=token_role,
    )


def board_me(state: State, who: Who) -> dict[str, Any]:
    """This token's board role and what it may do (the page draws the buttons from it)."""
    from vitrina.team import RIGHTS

    refuse_policed(state, who.owner)
    role = board_role(who)
    return {"board_role": role, "rights": sorted(RIGHTS[role]), "republish": role == "lead"}


def board_task_actions(task_id: int, state: State, who: Who) -> dict[str, Any]:
    """What this token may do on this task (the page draws only these buttons)."""
    from vitrina.team import RIGHTS, Roster

    refuse_policed(state, who.owner)
    with board_store(state) as store:
        task = task_or_404(store, task_id)
        role = board_role(who)
        allowed = [a for a in applicable(str(task.kind), str(task.status)) if a in RIGHTS[role]]
        roster = Roster.default()
        current = roster.roles.get(task.role)
        peers = [r.id for r in roster.roles.values() if current and r.kind == current.kind]
        return {
            "board_role": role,
            "actions": allowed,
            "reassign_to": [r for r in peers if r != task.role] if "reassign" in allowed else [],
        }


def board_task_act(task_id: int, body: BoardAction, state: State, who: Who) -> dict[str, Any]:
    """Do one action as the token's person; 403 for a viewer, 409 for what the board refuses
    (a task already moved, not a blocker, a role of another kind), each said in words."""
    from vitrina.team import People, PermissionDenied, Roster, TeamError

    refuse_policed(state, who.owner)
    role = board_role(who)
    with board_store(state) as store:
        task = task_or_404(store, task_id)
        people = People(store, Roster.default(), task.build_id, who.name, role)  # type: ignore[arg-type]
        try:  # a viewer's attempt is refused and audited by People itself
            outcome = _do(people, task_id, body)
        except PermissionDenied as exc:
            raise _forbidden(who.role, role, str(exc)) from None
        except TeamError as exc:
            raise ApiError(409, "board_refused", str(exc), _ru(str(exc))) from None
        build = store.get_build(task.build_id)
        return {
            "action": outcome.action,
            "task_id": outcome.task_id,
            "changed": outcome.created,
            "woke": outcome.woke,
            "build_status": build.status if build else None,
        }


def _do(people: Any, task_id: int, body: BoardAction) -> Any:
    from vitrina.team import TeamError

    text = body.text.strip()
    if body.action in ("comment", "answer") and not text and people.role != "viewer":
        raise TeamError(f"the {body.action} needs its text")
    if body.action == "comment":
        return people.comment(task_id, text)
    if body.action == "answer":
        return people.answer(task_id, text)
    if body.action == "approve":
        return people.approve(task_id, text)
    if body.action == "reject":
        reasons = [line.strip() for line in text.splitlines() if line.strip()]
        return people.reject(task_id, reasons)
    return people.reassign(task_id, body.to)


def _ru(message: str) -> str:
    """The board's refusals are written in English by the team package; the Russian body
    says what happened and carries the English detail."""
    return f"доска отказала: {message}"


def board_build_republish(build_id: int, state: State, who: Who) -> dict[str, Any]:
    """Publish a finished build again, in place (`vitrina build --republish N`): a lead's
    action (an admin token); the same folder, the same Superset objects, version + 1."""
    from vitrina.team import TeamError, default_publishers, republish_build, superset_from

    refuse_policed(state, who.owner)
    role = board_role(who)
    with board_store(state) as store:
        if role != "lead":
            store.audit(build_id=build_id, actor=f"person:{who.name}", action="republish",
                        outcome="denied", board_role=role)  # fmt: skip
            raise _forbidden(who.role, role, f"a {role} may not publish again")
        try:
            superset = superset_from(state.settings)
            done = republish_build(
                store,
                build_id,
                lambda b: default_publishers(state.settings, b, superset),
                actor=f"person:{who.name}",
            )
        except TeamError as exc:
            raise ApiError(409, "board_refused", str(exc), _ru(str(exc))) from None
        return {"build_id": done.build_id, "version": done.version, "location": done.location}
