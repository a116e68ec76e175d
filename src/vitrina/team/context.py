"""What one build runs with: the board, the workspace, the warehouse, the agents and the bounds.

Passed to the graph as its runtime context (never in state), and to each role's toolbox.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vitrina.catalog import Catalog
from vitrina.team.board import BoardStore, Build
from vitrina.team.data.brief import Brief
from vitrina.team.primitives import Primitives
from vitrina.team.roles import Roster
from vitrina.team.skills import SkillLibrary
from vitrina.team.spec import Spec
from vitrina.team.workspace import Workspace
from vitrina.trace import TraceEvent
from vitrina.warehouse import Warehouse

if TYPE_CHECKING:
    from vitrina.team.agents.base import RoleAgent
    from vitrina.team.publish import Publisher
    from vitrina.team.publish.superset import SupersetTarget


@dataclass(frozen=True)
class Limits:
    """Every loop of a build has a hard bound in code."""

    max_steps: int = 200  # pre-wake steps of one run
    max_block_retries: int = (
        1  # a comment without a valid block is asked for once more, then escalated
    )
    max_turns_per_task: int = 3  # IN-PROGRESS hand-offs that keep control, per task and round
    max_tool_calls: int = 400  # tool calls of one role in one turn
    browser_timeout_s: float = 20.0
    superset_timeout_s: float = 120.0  # the Superset review: log in, open, draw every chart


@dataclass
class BuildContext:
    store: BoardStore
    roster: Roster
    skills: SkillLibrary
    build: Build
    brief: Brief
    catalog: Catalog
    warehouse: Warehouse
    workspace: Workspace
    spec: Spec
    prims: Primitives
    agents: dict[str, RoleAgent]
    today: date
    row_cap: int
    publishers: list[Publisher]
    attachments_dir: Path
    lang: str = "ru"
    browser: bool = True
    limits: Limits = field(default_factory=Limits)
    on_event: Callable[[str, dict[str, Any]], None] | None = None
    superset: SupersetTarget | None = None  # reviewed and published in Superset too
    events: list[TraceEvent] = field(default_factory=list)
    policy: Any = None  # a row policy (vitrina.sql.policy.RowPolicy): every query reads through it

    def refresh(self) -> Build:
        build = self.store.get_build(self.build.id)
        assert build is not None
        self.build = build
        return build

    def emit(self, kind: str, **detail: Any) -> None:
        if self.on_event is not None:
            self.on_event(kind, detail)
