"""The model's score of candidate plans, added to the code's when a model is configured."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from vitrina.trace import Trace

if TYPE_CHECKING:
    from vitrina.llm import ModelSlots

MODEL_WEIGHT = 2.0  # at most this much is added to a code score of up to 12


class PlanScore(BaseModel):
    id: str
    score: float = Field(ge=0.0, le=1.0)
    reason: str = ""


class PlanScores(BaseModel):
    scores: list[PlanScore]


def model_scores(
    llm: ModelSlots | None, question: str, candidates: list[dict[str, Any]], trace: Trace
) -> dict[str, tuple[float, str]]:
    """id -> (added score, reason); empty when there is no model or it fails (rules decide)."""
    if llm is None:
        return {}
    listing = "\n".join(
        f"{c['id']}: {c['label']} (SQL: {c.get('sql') or c.get('query') or '-'})"
        for c in candidates
    )
    reply = llm.structured(
        "route_plan_score",
        [
            {
                "role": "system",
                "content": "Score each report plan 0..1 for how well it answers the request.",
            },
            {"role": "user", "content": f"Request: {question}\nPlans:\n{listing}"},
        ],
        PlanScores,
        trace=trace,
    )
    if reply.value is None:  # the model is optional: code scores stand
        trace.suppressed("model plan scoring failed: code scores stand", error=reply.error)
        return {}
    known = {c["id"] for c in candidates}
    out = {}
    for s in reply.value.scores:
        if s.id in known:
            out[s.id] = (round(MODEL_WEIGHT * s.score, 3), s.reason)
        else:
            trace.rejected("model scored an unknown plan", plan=s.id)
    return out
