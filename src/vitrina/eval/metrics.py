"""The numbers of a run, computed from its case records (manual verdicts included).

Definitions (docs/eval.md says the same):

* accuracy: right / scored; scored (decided) cases are right or wrong (pending ones are
  neither), so the accuracy alone flatters a run that left cases pending: it is always shown
  beside the decided share (scored / cases) and right over all (right / cases), and a
  matrix ranks its configurations by right over all;
* at once / after clarification: answer cases right with no clarifying question, and right
  after at least one, each over the scored answer cases (their sum is the answer accuracy);
* refusal accuracy: must-refuse cases refused / scored must-refuse cases;
* invented-number rate: answered results whose text holds a number not in the data / answered;
* clarification rate: cases in which the system asked at least one clarifying question / cases.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from pydantic import BaseModel

from vitrina.eval.records import CaseRecord


def percentile(values: Iterable[float], q: float) -> float:
    """Nearest-rank percentile (0 for no values).

    >>> percentile([10, 20, 30, 40], 50), percentile([10, 20, 30, 40], 95), percentile([], 50)
    (20, 40, 0.0)
    """
    data = sorted(values)
    if not data:
        return 0.0
    rank = max(1, math.ceil(q / 100 * len(data)))
    return data[rank - 1]


def _rate(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


class Summary(BaseModel):
    cases: int
    scored: int
    right: int
    wrong: int
    pending: int
    in_review: int
    accuracy: float | None
    decided_share: float | None
    right_over_all: float | None
    answer_cases: int
    right_at_once: int
    right_after_clarification: int
    accuracy_at_once: float | None
    accuracy_after_clarification: float | None
    refusal_cases: int
    refusal_right: int
    refusal_accuracy: float | None
    answered_results: int
    invented_answers: int
    invented_number_rate: float | None
    clarified_cases: int
    clarification_rate: float | None
    retries: int
    latency_p50_ms: float
    latency_p95_ms: float
    llm_calls: int
    prompt_tokens: int
    completion_tokens: int

    @property
    def right_of_all(self) -> str:
        """The right count over every case, e.g. "7/10"."""
        return f"{self.right}/{self.cases}"

    @property
    def decided_of_all(self) -> str:
        return f"{self.scored}/{self.cases}"

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


def summarize(cases: list[CaseRecord]) -> Summary:
    """Every metric of the report from the cases of one run."""
    scored = [c for c in cases if c.final != "pending"]
    right = [c for c in scored if c.final == "right"]
    answer = [c for c in scored if c.expect == "answered"]
    refusal = [c for c in scored if c.expect == "refused"]
    answered = [c for c in cases if c.status == "answered"]
    invented = [c for c in answered if c.invented]
    at_once = [c for c in answer if c.final == "right" and c.clarifications == 0]
    after = [c for c in answer if c.final == "right" and c.clarifications > 0]
    clarified = [c for c in cases if c.clarifications > 0]
    latencies = [c.latency_ms for c in cases]
    return Summary(
        cases=len(cases),
        scored=len(scored),
        right=len(right),
        wrong=len(scored) - len(right),
        pending=len(cases) - len(scored),
        in_review=sum(c.in_review and c.manual is None for c in cases),
        accuracy=_rate(len(right), len(scored)),
        decided_share=_rate(len(scored), len(cases)),
        right_over_all=_rate(len(right), len(cases)),
        answer_cases=len(answer),
        right_at_once=len(at_once),
        right_after_clarification=len(after),
        accuracy_at_once=_rate(len(at_once), len(answer)),
        accuracy_after_clarification=_rate(len(after), len(answer)),
        refusal_cases=len(refusal),
        refusal_right=sum(c.final == "right" for c in refusal),
        refusal_accuracy=_rate(sum(c.final == "right" for c in refusal), len(refusal)),
        answered_results=len(answered),
        invented_answers=len(invented),
        invented_number_rate=_rate(len(invented), len(answered)),
        clarified_cases=len(clarified),
        clarification_rate=_rate(len(clarified), len(cases)),
        retries=sum(c.retries for c in cases),
        latency_p50_ms=round(percentile(latencies, 50), 1),
        latency_p95_ms=round(percentile(latencies, 95), 1),
        llm_calls=sum(c.llm_calls for c in cases),
        prompt_tokens=sum(c.prompt_tokens for c in cases),
        completion_tokens=sum(c.completion_tokens for c in cases),
    )


def rank_key(summary: Summary) -> tuple[float, float, int]:
    """How a matrix orders its configurations: right over all cases first (a run cannot climb
    by leaving cases pending), then the accuracy over decided cases, then fewer pending."""
    return (-(summary.right_over_all or 0.0), -(summary.accuracy or 0.0), summary.pending)
