"""The last resort when the planner model fails twice: one step per sentence of the request."""

from __future__ import annotations

import re

from vitrina.task.state import Step

SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+")


def sentence_plan(request: str, max_steps: int) -> list[Step]:
    """>>> [s.title for s in sentence_plan("Get sales. Compare them! Save", 8)]
    ['Get sales.', 'Compare them!', 'Save']
    """
    parts = [p.strip() for p in SENTENCE.split(request.strip()) if len(p.strip()) > 1]
    return [Step(n=i, title=p[:300]) for i, p in enumerate(parts[:max_steps] or [request.strip()[:300]], start=1)]
