"""Agents for the back-branch tests: the real rule agents, changed in one precise way.

Each keeps the RoleAgent contract (a work item and a toolbox in, a comment out) and works
through the same toolbox, so its permissions and the guard apply as to any agent.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from vitrina.team.agents.base import WorkItem
from vitrina.team.toolbox import Toolbox

BLOCKS = re.compile(r"===(HANDOFF|VERDICT)===.*?===/\1===", re.S)


class Sabotaged:
    """The rule agent's work, then damage done to it in the given round (a builder's mistake)."""

    def __init__(
        self, inner: object, damage: Callable[[WorkItem, Toolbox], None], *, round: int = 1
    ) -> None:
        self.inner, self.damage, self.round = inner, damage, round

    def act(self, work: WorkItem, tools: Toolbox) -> str:
        written = self.inner.act(work, tools)  # type: ignore[attr-defined]
        if work.task.round == self.round and work.mode in ("work", "rework"):
            self.damage(work, tools)
        return written


class Rewritten:
    """The rule agent's comment rewritten by ``change`` (attempt, text) -> text."""

    def __init__(self, inner: object, change: Callable[[WorkItem, str], str]) -> None:
        self.inner, self.change = inner, change
        self.seen: list[WorkItem] = []

    def act(self, work: WorkItem, tools: Toolbox) -> str:
        self.seen.append(work)
        return self.change(work, self.inner.act(work, tools))  # type: ignore[attr-defined]


def without_blocks(text: str) -> str:
    return BLOCKS.sub("", text).strip()


def drop_filter_from_data(work: WorkItem, tools: Toolbox) -> None:
    """The data engineer 'simplifies' the payment volume card: the success filter is lost."""
    view = "payment_amount_by_month__card"
    sql = tools.read_artifact(f"datasets/{view}.sql") or ""
    wrong = sql.replace("fp.status = 'success'\n  AND ", "")
    assert wrong != sql, sql
    result, ran = tools.run_query(wrong)
    from vitrina.team.data.results import encode_result

    tools.write_artifacts(
        {
            f"datasets/{view}.sql": ran + "\n",
            f"data/{view}.json": json.dumps(encode_result(result)) + "\n",
        },
        "simplified the card",
    )


def bar_instead_of_line(work: WorkItem, tools: Toolbox) -> None:
    """The chart builder draws the monthly series as bars although the design says line."""
    path = "charts/payment_amount_by_month__chart.json"
    chart = json.loads(tools.read_artifact(path) or "{}")
    assert chart["spec"]["type"] == "line"
    chart["spec"]["type"] = "bar"
    tools.write_artifacts({path: json.dumps(chart)}, "bars look better")
