"""User-facing errors of the docs job: each names the file (and line) at fault."""

from __future__ import annotations

from pathlib import Path


class DocsInputError(Exception):
    """A mistake in the user's input (missing path, broken file): shown as one line, exit 2."""

    def __init__(
        self,
        message: str,
        *,
        path: Path | str | None = None,
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        self.path = str(path) if path is not None else None
        self.line = line
        self.column = column
        self.reason = message
        where = ""
        if self.path:
            where = self.path
            if line is not None:
                where += f":{line}"
                if column is not None:
                    where += f":{column}"
            where += ": "
        super().__init__(where + message)


class ModelReadError(DocsInputError):
    """A .bim or TMDL file that cannot be read."""
