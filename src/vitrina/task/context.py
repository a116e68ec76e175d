"""What every task node may use but never stores in state: services, tools, limits, prompts."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from vitrina.config import Settings
from vitrina.task.limits import TaskConfig
from vitrina.task.prompts import PromptStore


@dataclass
class TaskContext:
    settings: Settings
    config: TaskConfig
    prompts: PromptStore
    tools: dict[str, Any]  # name -> vitrina.task.tools.Tool
    catalog: Any = None  # vitrina.catalog.Catalog
    warehouse: Any = None  # vitrina.warehouse.Warehouse
    # question -> AskResult (the ask pipeline); called with policy= when the task has one
    ask: Callable[..., Any] | None = None
    # (plan, question=, lang=, policy=) -> AskResult: a step derived from an earlier one (the
    # same data for another period, a monthly series) is handed to ask as a changed plan
    run_plan: Callable[..., Any] | None = None
    llm: Any = None  # vitrina.llm.LLMClient; None = rules only
    today: date = field(default_factory=date.today)
    policy: Any = None  # the owner's row policy (vitrina.sql.policy.RowPolicy); None: all rows

    @property
    def limits(self) -> Any:
        return self.config.limits
