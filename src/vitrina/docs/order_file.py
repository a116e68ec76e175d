"""An explicit load order (`vitrina docs --order FILE`): one procedure per line, in run order.

Blank lines and comments (`#` or `--`) are skipped; `EXEC dbo.Load` is read as `dbo.Load`.
Names the SQL folder does not define are reported with the file and line, never dropped
silently.

>>> parse_order_text("# nightly\\nEXEC dbo.LoadDim\\n\\ndbo.LoadFact -- facts last\\n")
[('dbo.LoadDim', 2), ('dbo.LoadFact', 4)]
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

_EXEC = re.compile(r"^(?:EXEC(?:UTE)?\s+)", re.IGNORECASE)


def parse_order_text(text: str) -> list[tuple[str, int]]:
    """(name, line) for every procedure named in an order file's text."""
    out: list[tuple[str, int]] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("--", 1)[0].strip().rstrip(";").strip()
        if not line or line.startswith("#"):
            continue
        name = _EXEC.sub("", line).split()[0] if _EXEC.sub("", line).split() else ""
        if name:
            out.append((name, number))
    return out


def apply_order_file(index: Any, path: Path) -> None:
    """Give the index the file's order; unknown names become file errors with their line."""
    text = path.read_text(encoding="utf-8-sig", errors="replace")
    names: list[str] = []
    for name, line in parse_order_text(text):
        if index.get(name) is None:
            index.errors.append(
                {
                    "file": str(path),
                    "line": line,
                    "message": f"the order file names {name}, which no .sql file defines: "
                    "check the name or add the procedure's file to --sql",
                }
            )
            continue
        names.append(index.resolve(name))
    index.set_explicit_order(names)
