"""Errors of the eval harness that name the file and the item, in English and Russian."""

from __future__ import annotations

from pathlib import Path


class EvalError(Exception):
    """A suite, config or run problem the user can fix; the message says where."""

    def __init__(
        self,
        message: str,
        *,
        file: Path | str | None = None,
        where: str = "",
        message_ru: str | None = None,
    ) -> None:
        self.file = Path(file) if file is not None else None
        self.where = where
        self.detail = message
        self.message_ru = message_ru
        head = ": ".join(str(p) for p in (self.file, where) if p)
        text = f"{head}: {message}" if head else message
        super().__init__(f"{text} / {message_ru}" if message_ru else text)


class ConfigError(EvalError):
    """A problem of one configuration of a matrix: `index` (0-based) lets the caller that has
    the matrix file name its line."""

    def __init__(self, message: str, *, index: int, name: str, message_ru: str | None = None):
        super().__init__(message, where=f"configs[{index + 1}] ({name})", message_ru=message_ru)
        self.index = index
        self.name = name
