"""What every route node may use but never stores in state: catalogs, services, limits, clock."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vitrina.catalog import Catalog
from vitrina.config import Settings

if TYPE_CHECKING:
    from vitrina.llm import ModelSlots
    from vitrina.warehouse import Warehouse

MAX_STEPS = 6  # metadata analyst: ReAct steps per request, whatever the search finds
PREVIEW_ROWS = 20


@dataclass
class RouteContext:
    settings: Settings
    catalog: Catalog  # the warehouse catalog, or the one built from a 1C configuration
    warehouse: Warehouse | None = None  # for warehouse reports; None for a 1C target
    ask: Callable[[str, str | None], Any] | None = None  # (question, thread_id) -> AskResult
    run_plan: Callable[..., Any] | None = (
        None  # AskService.run_plan(plan, question=, lang=) -> AskResult
    )
    onec: Any = None  # vitrina.onec.OneCSource when the target is a 1C configuration
    docs_model: Path | None = None  # a .bim / TMDL model for measure documentation
    docs_sql: list[Path] = field(default_factory=list)
    docs_index: Path | None = None  # index.json written by `vitrina docs`, for measure search
    task_runner: Callable[[str], dict[str, Any]] | None = None  # the task job, when it exists
    llm: ModelSlots | None = None  # a turn's model slots; None = rules only
    today: date = field(default_factory=date.today)
    write_files: bool = True
    max_steps: int = MAX_STEPS
    outputs_dir: Path | None = None

    @property
    def target(self) -> str:
        return "onec" if self.onec is not None else "warehouse"

    @property
    def dialect(self) -> str:
        return self.warehouse.dialect if self.warehouse is not None else "duckdb"
