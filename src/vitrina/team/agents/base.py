"""The role agent contract and the pieces every rule agent writes its comment with."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Protocol

from vitrina.team.board import Build, Task
from vitrina.team.chain import Step
from vitrina.team.lifecycle import HandoffStatus
from vitrina.team.protocol import Handoff, Verdict, VerdictKind, render_comment

if TYPE_CHECKING:
    from vitrina.team.toolbox import Toolbox

Mode = Literal["work", "rework", "amendments", "review"]


@dataclass
class WorkItem:
    """What a woken role is asked to do."""

    build: Build
    task: Task  # the task the role acts on: a work task, or its own review task
    step: Step  # the chain step of the work (the reviewed step, for a review)
    mode: Mode
    lang: str
    subject: Task | None = None  # the work task under review
    amendments: list[str] = field(default_factory=list)  # what the reviews asked for
    attempt: int = 0
    reminder: str | None = None  # the post-comment guard's request for a valid block


class RoleAgent(Protocol):
    """Writes one comment for a work item, using only its toolbox."""

    def act(self, work: WorkItem, tools: Toolbox) -> str: ...


@dataclass(frozen=True)
class Finding:
    """One result of a reviewer's deterministic check; errors request rework."""

    code: str
    severity: Literal["error", "warning"]
    message: str

    def amendment(self) -> str:
        return f"[{self.code}] {self.message}"


def handoff(
    body: str,
    status: HandoffStatus,
    *,
    reviewers: list[str] | None = None,
    next_role: str = "coordinator",
    next_phase: str | None = None,
) -> str:
    return render_comment(
        body,
        Handoff(
            status=status,
            reviewers_requested=reviewers or [],
            next=next_role,
            next_phase=next_phase,
        ),
    )


def verdict_of(findings: list[Finding]) -> Verdict:
    errors = [f for f in findings if f.severity == "error"]
    warnings = [f for f in findings if f.severity == "warning"]
    if errors:
        return Verdict(
            verdict=VerdictKind.REQUESTS_REWORK,
            amendments=[f.amendment() for f in errors + warnings],
        )
    if warnings:
        return Verdict(
            verdict=VerdictKind.APPROVED_WITH_AMENDMENTS,
            amendments=[f.amendment() for f in warnings],
        )
    return Verdict(verdict=VerdictKind.APPROVED)


def review(body: str, findings: list[Finding]) -> str:
    """A reviewer's comment: the checks in words, the verdict, the hand-off to the coordinator."""
    return render_comment(
        body, Handoff(status=HandoffStatus.REVIEW_DONE, next="coordinator"), verdict_of(findings)
    )


def codes(amendments: list[str]) -> set[str]:
    """The check codes an amendment list names ("[DASH-001] ..." -> DASH-001)."""
    return {a[1 : a.index("]")] for a in amendments if a.startswith("[") and "]" in a}


def bullet_list(lines: list[str], limit: int = 12) -> str:
    shown = [f"- {line}" for line in lines[:limit]]
    if len(lines) > limit:
        shown.append(f"- … and {len(lines) - limit} more")
    return "\n".join(shown)
