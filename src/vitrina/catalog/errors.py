"""Catalog errors that say where: file, line and the object at fault."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class CatalogProblem:
    file: Path | None
    line: int | None
    where: str  # the object path, e.g. tables[2].columns[0].role
    message: str

    def __str__(self) -> str:
        place = str(self.file) if self.file else "<catalog>"
        if self.line:
            place += f":{self.line}"
        where = f" ({self.where})" if self.where else ""
        return f"{place}{where}: {self.message}"


class CatalogError(Exception):
    """Raised when a catalog cannot be used; carries every problem found, not just the first."""

    def __init__(self, problems: list[CatalogProblem]) -> None:
        self.problems = problems
        lines = "\n".join(f"  - {p}" for p in problems[:50])
        more = f"\n  ... and {len(problems) - 50} more" if len(problems) > 50 else ""
        super().__init__(f"catalog has {len(problems)} problem(s):\n{lines}{more}")
