"""The base chain: six steps, each built by one role and reviewed by another, in phases.

    scoping (data-steward) -> dataset-architect (bi-tech-lead) -> dashboard-designer
    (dashboard-reviewer) -> data-engineer (bi-tech-lead) -> chart-builder
    (dashboard-reviewer) -> dashboard-builder (dashboard-reviewer)

The order is code: a NEXT or NEXT-PHASE in a hand-off is a hint the coordinator checks
against this table, never a route.

>>> [s.id for s in CHAIN]
['scoping', 'dataset', 'presentation', 'data', 'charts', 'dashboard']
>>> next_step("presentation").id, next_step("dashboard")
('data', None)
"""

from __future__ import annotations

from dataclasses import dataclass

PHASES = ("scope", "design", "build", "publish")


@dataclass(frozen=True)
class Step:
    id: str
    role: str
    reviewer: str
    phase: str
    title_ru: str
    title_en: str

    def title(self, lang: str) -> str:
        return self.title_ru if lang == "ru" else self.title_en


CHAIN: tuple[Step, ...] = (
    Step(
        "scoping",
        "scoping",
        "data-steward",
        "scope",
        "Уточнить KPI и рамки",
        "Clarify the KPIs and the scope",
    ),
    Step(
        "dataset",
        "dataset-architect",
        "bi-tech-lead",
        "design",
        "Спроектировать набор данных",
        "Design the dataset",
    ),
    Step(
        "presentation",
        "dashboard-designer",
        "dashboard-reviewer",
        "design",
        "Спроектировать дашборд",
        "Design the dashboard",
    ),
    Step("data", "data-engineer", "bi-tech-lead", "build", "Собрать данные", "Build the data"),
    Step(
        "charts",
        "chart-builder",
        "dashboard-reviewer",
        "build",
        "Построить графики",
        "Build the charts",
    ),
    Step(
        "dashboard",
        "dashboard-builder",
        "dashboard-reviewer",
        "build",
        "Собрать дашборд",
        "Build the dashboard",
    ),
)
STEPS = {s.id: s for s in CHAIN}


def next_step(step_id: str) -> Step | None:
    """The step after ``step_id`` in the chain, or None after the last one."""
    ids = [s.id for s in CHAIN]
    i = ids.index(step_id)
    return CHAIN[i + 1] if i + 1 < len(CHAIN) else None
