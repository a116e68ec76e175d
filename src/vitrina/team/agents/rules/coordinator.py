"""The coordinator's words by rules: what it did, why, and the hand-off block.

The step itself comes from the pre-wake step and is carried out by the runtime through the
coordinator's primitives; this writes the comment that explains it on the board.
"""

from __future__ import annotations

from typing import Any

from vitrina.team.agents.base import bullet_list, handoff
from vitrina.team.lifecycle import HandoffStatus
from vitrina.team.messages import text
from vitrina.team.prewake import NextStep

STATUS_OF = {
    "parse_brief": HandoffStatus.ASSIGNED,
    "open_review": HandoffStatus.REVIEW_OPENED,
    "return_for_rework": HandoffStatus.REWORK_REQUESTED,
    "process_amendments": HandoffStatus.AMENDMENTS_REQUESTED,
    "accept": HandoffStatus.ACCEPTED,
    "merge": HandoffStatus.MERGED,
    "next_step": HandoffStatus.ASSIGNED,
    "next_phase": HandoffStatus.PHASE_COMPLETE,
    "publish": HandoffStatus.PUBLISHED,
    "escalate": HandoffStatus.ESCALATED,
}


class CoordinatorRules:
    def say(self, step: NextStep, lang: str, facts: dict[str, Any]) -> str:
        """The comment for one executed step; ``facts`` are what the runtime did."""
        key = {
            "parse_brief": "c_parse_brief",
            "open_review": "c_open_review",
            "return_for_rework": "c_rework",
            "process_amendments": "c_amendments",
            "accept": "c_accept",
            "merge": "c_merge",
            "next_step": "c_next",
            "next_phase": "c_next",
            "publish": "c_publish",
            "escalate": "c_escalate",
        }[step.action]
        body = text(key, lang, **facts)
        if step.action == "next_phase":
            body = text("c_phase", lang, old=facts["old"], new=facts["new"]) + " " + body
        if facts.get("hint_note"):
            body += "\n" + facts["hint_note"]
        if step.amendments and step.action in (
            "return_for_rework",
            "process_amendments",
            "escalate",
        ):
            body += "\n" + bullet_list(step.amendments)
        return handoff(
            body,
            STATUS_OF[step.action],
            next_role=facts.get("next", "none"),
            next_phase=facts.get("phase"),
        )
