"""CLI: `vitrina board comment|answer|approve|reject|reassign` — a person on the board.

Thin: open the board, act through `team.people.People` (permissions by the board role,
audited, idempotent), print what happened and whether the build woke. Exit codes: 0 done,
1 a refusal (no such task, not allowed, a move the lifecycle forbids).
"""

from __future__ import annotations

import getpass
from collections.abc import Callable
from typing import Annotated, Any

import typer

from vitrina.team.commands import BoardUrl, _store, board_app, console, err

TaskArg = Annotated[int, typer.Argument(help="The task number (the # column of `vitrina board`).")]
Person = Annotated[str | None, typer.Option("--as", help="Who acts (default: the login name).")]
Role = Annotated[
    str,
    typer.Option(
        "--role", help="The board role: lead (every action), member (comment, answer), viewer."
    ),
]


def _act(board: str | None, task_id: int, person: str | None, role: str, do: Callable) -> None:
    from vitrina.team.errors import TeamError
    from vitrina.team.people import People
    from vitrina.team.roles import Roster

    store = _store(board)
    try:
        task = store.get_task(task_id)
        if task is None:
            err.print(f"no task {task_id} on this board: `vitrina board` lists them")
            raise typer.Exit(1)
        people = People(store, Roster.default(), task.build_id, person or getpass.getuser(), role)  # type: ignore[arg-type]
        try:
            outcome: Any = do(people)
        except TeamError as exc:
            err.print(str(exc), markup=False, highlight=False)
            raise typer.Exit(1) from None
        said = "done" if outcome.created else "already done (nothing changed)"
        console.print(f"{outcome.action} · task {outcome.task_id}: {said}", highlight=False)
        if outcome.woke:
            build = store.get_build(task.build_id)
            brief = build.brief_path if build and build.brief_path else "BRIEF"
            console.print(
                f"build {task.build_id} woke: run `vitrina build {brief}` to go on",
                highlight=False,
                markup=False,
            )
    finally:
        store.close()


@board_app.command("comment")
def comment_command(
    task_id: TaskArg,
    text: Annotated[str, typer.Argument(help="The comment (no HANDOFF or VERDICT blocks).")],
    person: Person = None,
    role: Role = "lead",
    board: BoardUrl = None,
) -> None:
    """A person's comment on a task."""
    _act(board, task_id, person, role, lambda p: p.comment(task_id, text))


@board_app.command("answer")
def answer_command(
    blocker_id: Annotated[int, typer.Argument(help="The blocker task's number.")],
    text: Annotated[str, typer.Argument(help="The answer.")],
    person: Person = None,
    role: Role = "lead",
    board: BoardUrl = None,
) -> None:
    """Answer a blocker: its task goes back to work with the answer, the build wakes."""
    _act(board, blocker_id, person, role, lambda p: p.answer(blocker_id, text))


@board_app.command("approve")
def approve_command(
    task_id: TaskArg,
    note: Annotated[str, typer.Option("--note", help="Why, for the audit log.")] = "",
    person: Person = None,
    role: Role = "lead",
    board: BoardUrl = None,
) -> None:
    """Accept a work task in review as it is."""
    _act(board, task_id, person, role, lambda p: p.approve(task_id, note))


@board_app.command("reject")
def reject_command(
    task_id: TaskArg,
    reasons: Annotated[list[str], typer.Argument(help="What must change (one or more).")],
    person: Person = None,
    role: Role = "lead",
    board: BoardUrl = None,
) -> None:
    """Send a work task back to its role with the reasons."""
    _act(board, task_id, person, role, lambda p: p.reject(task_id, reasons))


@board_app.command("reassign")
def reassign_command(
    task_id: TaskArg,
    to: Annotated[str, typer.Argument(help="The role to take the task (same kind).")],
    person: Person = None,
    role: Role = "lead",
    board: BoardUrl = None,
) -> None:
    """Give an open task to another role of the same kind."""
    _act(board, task_id, person, role, lambda p: p.reassign(task_id, to))
