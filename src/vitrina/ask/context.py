"""What every ask node may use but never stores in state: catalog, warehouse, settings, clock."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from vitrina.catalog import Catalog
from vitrina.config import Settings
from vitrina.warehouse import Warehouse

if TYPE_CHECKING:  # rules-only turns never load the model client
    from vitrina.llm.client import ModelTurn
    from vitrina.sql.policy import RowPolicy


@dataclass(frozen=True)
class AskOptions:
    """Switches for experiments (vitrina eval): validation layers, chart and answer modes,
    what context a model sees. The SQL guard is not among them: it cannot be switched off."""

    deterministic_checks: bool = True
    semantic_check: bool = True
    meaning_checks: bool = True  # the model's SQL held to the rules' reading (query/meaning)
    # experiments (the mutation bench): the model writes the SQL even for a question the rules
    # read fully; its SQL is then held to that whole reading
    model_writes_sql: bool = False
    result_checks: bool = True
    chart: Literal["auto", "rules", "off"] = "auto"  # auto: rules, then a model's proposal
    answer_writer: Literal["auto", "rules"] = "auto"  # auto: a model words it when configured
    instructions: bool = True
    examples: bool = True


@dataclass
class AskContext:
    catalog: Catalog
    warehouse: Warehouse
    settings: Settings
    today: date = field(default_factory=date.today)
    outputs_dir: Path | None = None
    llm: ModelTurn | None = None  # the model for this turn when configured; None = rules only
    write_files: bool = True  # Excel and PNG; turned off by benchmarks
    options: AskOptions = field(default_factory=AskOptions)
    policy: RowPolicy | None = None  # the asking token's row policy: the guard adds its filters

    @property
    def dialect(self) -> str:
        return self.warehouse.dialect
