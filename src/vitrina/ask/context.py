"""What every ask node may use but never stores in state: catalog, warehouse, settings, clock."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from vitrina.ask.llm.tasks import TurnModel
from vitrina.catalog import Catalog
from vitrina.config import Settings
from vitrina.warehouse import Warehouse


@dataclass
class AskContext:
    catalog: Catalog
    warehouse: Warehouse
    settings: Settings
    today: date = field(default_factory=date.today)
    outputs_dir: Path | None = None
    llm: TurnModel | None = None  # the model for this turn when configured; None = rules only
    write_files: bool = True  # Excel and PNG; turned off by benchmarks

    @property
    def dialect(self) -> str:
        return self.warehouse.dialect
