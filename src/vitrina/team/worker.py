"""Waking a role on its task, and the post-comment guard that reads what it wrote.

The role's agent writes a comment; code parses its blocks. A comment without a valid block
(or with a status its kind of role may not use) is returned once with the expected form;
a second miss opens a blocker for the coordinator. A valid block is carried out through
the role's own primitives, so a forbidden move is refused there. Terminal statuses hand
control back to the coordinator whatever NEXT says, and the ignored NEXT is recorded.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from vitrina.team.agents.base import WorkItem, handoff
from vitrina.team.agents.failures import report
from vitrina.team.board import Comment, Task
from vitrina.team.chain import STEPS
from vitrina.team.context import BuildContext
from vitrina.team.errors import TeamError
from vitrina.team.lifecycle import (
    STATUSES_BY_KIND,
    TERMINAL,
    HandoffStatus,
    TaskKind,
    TaskStatus,
    control_after,
)
from vitrina.team.messages import text
from vitrina.team.prewake import NextStep
from vitrina.team.primitives import verdict_of
from vitrina.team.protocol import PROTOCOL_HELP, Handoff, parse_comment
from vitrina.team.toolbox import Toolbox
from vitrina.trace import Trace
from vitrina.warehouse import WarehouseError

Route = Literal["coordinator", "continue", "reask"]
ALLOWED_BY_MODE = {
    "work": {
        HandoffStatus.READY_FOR_REVIEW,
        HandoffStatus.BUILD_COMPLETE,
        HandoffStatus.BLOCKED,
        HandoffStatus.IN_PROGRESS,
    },
    "rework": {
        HandoffStatus.READY_FOR_REVIEW,
        HandoffStatus.BUILD_COMPLETE,
        HandoffStatus.BLOCKED,
        HandoffStatus.IN_PROGRESS,
    },
    "amendments": {
        HandoffStatus.AMENDMENTS_APPLIED,
        HandoffStatus.BLOCKED,
        HandoffStatus.IN_PROGRESS,
    },
    "review": {HandoffStatus.REVIEW_DONE, HandoffStatus.BLOCKED},
}


@dataclass
class GuardOutcome:
    route: Route
    problems: list[str]
    reminder: str | None = None


def _work_item(
    ctx: BuildContext, step: NextStep, task: Task, attempt: int, reminder: str | None
) -> WorkItem:
    subject = (
        ctx.store.get_task(task.parent_id)
        if task.kind is TaskKind.REVIEW and task.parent_id
        else None
    )
    return WorkItem(
        build=ctx.build,
        task=task,
        step=STEPS[task.step],
        mode=step.mode or "work",
        lang=ctx.lang,
        subject=subject,
        amendments=list(step.amendments),
        attempt=attempt,
        reminder=reminder,
    )


def comment_key(step: NextStep, task: Task, attempt: int, turn: int) -> str:
    return f"{step.mode}:r{task.round}:t{turn}:a{attempt}"


def wake(
    ctx: BuildContext, step: NextStep, *, attempt: int, turn: int, reminder: str | None
) -> Comment:
    """Run the role's agent on its task and post what it wrote (once per key)."""
    assert step.task_id is not None
    task = ctx.store.get_task(step.task_id)
    assert task is not None
    role = ctx.roster.get(step.role)
    trace = Trace(role.id)
    if task.status is TaskStatus.NEW:
        ctx.prims.change_status(role.id, task.id, TaskStatus.IN_PROGRESS)
        task = ctx.store.get_task(task.id) or task
    if task.kind is TaskKind.REVIEW:
        existing = verdict_of(ctx.store.comments(task.id))
        if (
            existing is not None
        ):  # the verdict was posted before a crash: finish it, never give a second one
            trace.branch("verdict already on the board: not asked again", review=task.id)
            ctx.events.extend(trace.events)
            return existing
    key = comment_key(step, task, attempt, turn)
    done = next((c for c in ctx.store.comments(task.id) if c.key == key), None)
    if done is not None:  # posted before a crash: the same comment, not a second one
        return done
    tools = Toolbox(ctx, role, task)
    work = _work_item(ctx, step, task, attempt, reminder)
    agent = ctx.agents[role.id]
    try:
        written = agent.act(work, tools)
    except (TeamError, WarehouseError, ValueError, KeyError) as exc:
        trace.error(
            "the role's work failed; the task is blocked", error=f"{type(exc).__name__}: {exc}"
        )
        written = handoff(
            text("c_agent_failed", ctx.lang, role=role.id, error=str(exc)[:500]),
            HandoffStatus.BLOCKED,
        )
    ctx.events.extend(tools.trace.events + trace.events)
    comment, _, _ = ctx.prims.comment(role.id, task.id, written, key=key)
    ctx.emit("comment", task_id=task.id, role=role.id, problems=comment.problems)
    if tools.model_failures:  # the role's model gave nothing publishable: the coordinator says so
        report(ctx, tools.model_failures, key)
    return comment


def _status_problems(ctx: BuildContext, step: NextStep, comment: Comment) -> list[str]:
    problems = list(comment.problems)
    if comment.handoff is None:
        return problems
    status = HandoffStatus(comment.handoff["status"])
    kind = ctx.roster.get(step.role).kind
    if status not in STATUSES_BY_KIND[kind]:
        problems.append(
            f"STATUS {status.value} is not a status of a {kind} "
            f"({', '.join(s.value for s in sorted(STATUSES_BY_KIND[kind]))})"
        )
    elif status not in ALLOWED_BY_MODE[step.mode or "work"]:
        allowed = ", ".join(
            s.value for s in sorted(ALLOWED_BY_MODE[step.mode or "work"] & STATUSES_BY_KIND[kind])
        )
        problems.append(
            f"STATUS {status.value} does not answer a {step.mode} request (expected {allowed})"
        )
    return problems


def post_comment_guard(
    ctx: BuildContext, step: NextStep, comment: Comment, *, attempt: int
) -> GuardOutcome:
    """Check the comment's blocks; carry out a valid hand-off; re-ask once; then escalate."""
    assert step.task_id is not None
    trace = Trace("post_comment_guard")
    problems = _status_problems(ctx, step, comment)
    if problems:
        if attempt < ctx.limits.max_block_retries:
            trace.rejected(
                "comment without a valid block: asked again", role=step.role, problems=problems
            )
            ctx.events.extend(trace.events)
            statuses = ", ".join(s.value for s in sorted(ALLOWED_BY_MODE[step.mode or "work"]))
            reminder = text(
                "reask",
                ctx.lang,
                problems="; ".join(problems),
                help=PROTOCOL_HELP.format(statuses=statuses),
            )
            return GuardOutcome("reask", problems, reminder)
        trace.error("no valid block after the retry: escalated", role=step.role, problems=problems)
        ctx.events.extend(trace.events)
        ctx.prims.open_blocker(
            "coordinator",
            step.task_id,
            text("c_no_block", ctx.lang, role=step.role, problems="; ".join(problems)),
        )
        return GuardOutcome("coordinator", problems)
    block = Handoff.model_validate(comment.handoff)
    if block.status in TERMINAL and block.next not in (None, "coordinator", "none"):
        trace.branch(
            "NEXT ignored: a terminal status returns control to the coordinator",
            role=step.role,
            status=block.status.value,
            next=block.next,
        )
        ctx.store.audit(
            build_id=ctx.build.id,
            actor=step.role,
            action="route",
            outcome="noop",
            task_id=step.task_id,
            ignored_next=block.next,
            status=block.status.value,
        )
    try:
        _carry_out(ctx, step, comment, block)
    except TeamError as exc:
        trace.error(
            "the hand-off could not be carried out: escalated", role=step.role, error=str(exc)
        )
        ctx.events.extend(trace.events)
        ctx.prims.open_blocker("coordinator", step.task_id, f"{step.role}: {exc}")
        return GuardOutcome("coordinator", [str(exc)])
    ctx.events.extend(trace.events)
    return GuardOutcome(control_after(block.status, next_role=block.next, role=step.role), [])


def _carry_out(ctx: BuildContext, step: NextStep, comment: Comment, block: Handoff) -> None:
    """The primitive a valid block asks for, called as the role itself."""
    assert step.task_id is not None
    role, task_id = step.role, step.task_id
    if block.status in (HandoffStatus.READY_FOR_REVIEW, HandoffStatus.BUILD_COMPLETE):
        ctx.prims.hand_off(role, task_id, block)
    elif block.status is HandoffStatus.AMENDMENTS_APPLIED:
        ctx.prims.mark_amendments_applied(
            role, task_id, note=parse_comment(comment.text).body[:2000]
        )
    elif block.status is HandoffStatus.BLOCKED:
        reason = parse_comment(comment.text).body or f"{role} is blocked"
        ctx.prims.open_blocker(role, task_id, reason)
    elif block.status is HandoffStatus.REVIEW_DONE:
        ctx.prims.change_status(role, task_id, TaskStatus.DONE)
