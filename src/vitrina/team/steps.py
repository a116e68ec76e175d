"""The coordinator's steps, carried out with its primitives and explained on the board.

Each step is what the pre-wake step asked for; each is idempotent (its primitives are, and
its comment is keyed), so a restart after a crash repeats nothing that already happened.
"""

from __future__ import annotations

from typing import Any, Literal

from vitrina.team.agents.rules.coordinator import CoordinatorRules
from vitrina.team.chain import CHAIN, STEPS
from vitrina.team.context import BuildContext
from vitrina.team.errors import TeamError
from vitrina.team.lifecycle import HandoffStatus, TaskStatus
from vitrina.team.messages import text
from vitrina.team.prewake import NextStep
from vitrina.team.protocol import Handoff
from vitrina.trace import Trace

BuildStatus = Literal["running", "done", "blocked"]
WORDS = CoordinatorRules()


def _role_name(ctx: BuildContext, role: str) -> str:
    return ctx.roster.get(role).name(ctx.lang)


def execute(ctx: BuildContext, step: NextStep) -> BuildStatus:
    """Carry out one coordinator step; the build's status afterwards."""
    trace = Trace("coordinator")
    prims, store = ctx.prims, ctx.store
    task = store.get_task(step.task_id) if step.task_id else None
    facts: dict[str, Any] = {}
    status: BuildStatus = "running"
    target = task
    if step.action == "parse_brief":
        target = prims.open_task(
            "coordinator", CHAIN[0].id, body=ctx.build.brief, lang=ctx.lang
        ).task
        facts = {
            "kpis": len(ctx.brief.kpis),
            "role": _role_name(ctx, CHAIN[0].role),
            "next": CHAIN[0].role,
            "phase": CHAIN[0].phase,
        }
    elif step.action == "open_review":
        assert task is not None
        for reviewer in step.reviewers:
            prims.create_review("coordinator", task.id, reviewer)
        facts = {
            "reviewers": ", ".join(step.reviewers),
            "round": task.round,
            "next": step.reviewers[0],
        }
    elif step.action == "return_for_rework":
        assert task is not None
        prims.return_for_rework("coordinator", task.id, step.amendments)
        facts = {"round": task.round + 1, "next": task.role}
    elif step.action == "process_amendments":
        assert task is not None
        prims.hand_off(
            "coordinator",
            task.id,
            Handoff(status=HandoffStatus.AMENDMENTS_REQUESTED, next=task.role),
        )
        facts = {"role": _role_name(ctx, task.role), "next": task.role}
    elif step.action == "accept":
        assert task is not None
        prims.change_status("coordinator", task.id, TaskStatus.DONE)
    elif step.action == "merge":
        assert task is not None
        outcome = prims.merge("coordinator", task.id)
        facts = {"branch": task.branch, "commit": str(outcome.detail.get("commit", ""))[:10]}
    elif step.action in ("next_step", "next_phase"):
        following = STEPS[step.detail["step"]]
        target = prims.open_task("coordinator", following.id, body="", lang=ctx.lang).task
        facts = {
            "title": following.title(ctx.lang),
            "role": _role_name(ctx, following.role),
            "next": following.role,
            "phase": following.phase,
            "old": step.detail["from_phase"],
            "new": following.phase,
        }
        if step.action == "next_phase":
            store.update_build(ctx.build.id, phase=following.phase)
            trace.branch("phase complete", old=step.detail["from_phase"], new=following.phase)
        hint = step.detail.get("hinted_phase")
        if hint and hint != following.phase:
            trace.branch(
                "NEXT-PHASE ignored: the chain decides", hinted=hint, phase=following.phase
            )
            facts["hint_note"] = text("c_hint", ctx.lang, hint=hint, phase=following.phase)
    elif step.action == "publish":
        try:
            facts = {"location": publish(ctx)}
        except TeamError as exc:  # Superset refused it, or the published charts do not work
            reason = str(exc).splitlines()[0][:300]
            trace.rejected("publication refused", reason=reason)
            store.update_build(
                ctx.build.id,
                status="blocked",
                result={
                    **ctx.build.result,
                    "blocked": {"task": step.task_id, "reason": reason, "questions": str(exc)},
                },
            )
            facts = {"location": reason}
            status = "blocked"
    elif step.action == "escalate":
        reason = step.reason.splitlines()[0][:300]
        questions = step.reason if step.detail.get("blocker") else "\n".join(step.amendments)
        store.update_build(
            ctx.build.id,
            status="blocked",
            result={
                **ctx.build.result,
                "blocked": {"task": step.task_id, "reason": reason, "questions": questions},
            },
        )
        facts = {"reason": reason}
        status = "blocked"
    elif step.action == "finish":
        store.update_build(ctx.build.id, status="done", phase="publish")
        ctx.refresh()
        ctx.events.extend(trace.events)
        return "done"
    if target is not None:
        words = WORDS.say(step, ctx.lang, facts)
        prims.comment("coordinator", target.id, words, key=f"coord:{step.action}:r{target.round}")
    ctx.events.extend(trace.events)
    ctx.refresh()
    return status


def publish(ctx: BuildContext) -> str:
    """Hand main's dashboard to every publisher; remember where it went."""
    from vitrina.team.republish import publish_bundle

    version = int(ctx.build.result.get("version") or 1)  # an edited brief's next version
    bundle, publications = publish_bundle(ctx.workspace, ctx.publishers, version)
    location = publications[0]["location"] if publications else ""
    ctx.store.update_build(
        ctx.build.id,
        result={
            **ctx.build.result,
            "published": True,
            "location": location,
            "publications": publications,
            "dashboard_uuid": bundle.uuid,
            "version": version,
        },
    )
    return location
