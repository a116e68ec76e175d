"""Suites: questions with reference answers, read from YAML (the format is in docs/eval.md).

A suite names its warehouse ("demo" or a SQLAlchemy URL, ``${VARS}`` expanded) and its
catalog ("demo" or a folder relative to the suite file), and holds cases; ``cases_from``
includes the cases of other files (the demo suite reuses tests/golden/questions.yaml).
"""

from __future__ import annotations

import os
import re
from datetime import date
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from vitrina.eval.errors import EvalError
from vitrina.eval.order import asks_for_order

_VARIABLE = re.compile(r"\$\{(\w+)\}")  # `${NAME}` left by expandvars: unset
Expect = Literal["answered", "refused", "clarification"]
Kind = Literal["plain", "followup", "clarification", "must_clarify", "must_refuse"]


class Turn(BaseModel):
    """One message of a dialog; `expect` and `options` check this turn's own outcome."""

    model_config = ConfigDict(extra="forbid")

    q: str
    expect: Expect | None = None
    options: list[str] | None = None


class Case(BaseModel):
    """One question or dialog and what its last turn must give."""

    model_config = ConfigDict(extra="forbid")

    id: str
    question: str | None = None
    turns: list[Turn | str] | None = None
    expect: Expect
    options: list[str] | None = None  # expect clarification: the option ids offered, in order
    reference_sql: str | None = None
    reference_rows: list[list[Any]] | None = None
    ordered: bool | None = None  # None: inferred from the question (top N, sorted)
    segment: str | None = None
    topics: list[str] = Field(default_factory=list)  # explicit topics, as `vitrina ask --topic`
    tags: list[str] = Field(default_factory=list)
    answers: dict[str, str] = Field(
        default_factory=dict
    )  # clarification bank seeds: options key -> reply
    xfail: str | None = None  # a known gap; reported, still scored

    @model_validator(mode="after")
    def _check(self) -> Case:
        if (self.question is None) == (self.turns is None):
            raise ValueError("give either `question` or `turns`")
        if self.turns is not None and not self.turns:
            raise ValueError("`turns` is empty")
        has_reference = self.reference_sql is not None or self.reference_rows is not None
        if self.expect == "answered" and not has_reference:
            raise ValueError("an answered case needs reference_sql or reference_rows")
        if self.expect != "answered" and has_reference:
            raise ValueError(f"a case that expects {self.expect} has no reference")
        return self

    @property
    def dialog(self) -> list[Turn]:
        """The turns in order; the last one carries the case's expectation and options."""
        raw = self.turns if self.turns is not None else [self.question or ""]
        turns = [Turn(q=t) if isinstance(t, str) else t for t in raw]
        last = turns[-1].model_copy(update={"expect": self.expect, "options": self.options})
        return [*turns[:-1], last]

    @property
    def kind(self) -> Kind:
        if self.expect == "refused":
            return "must_refuse"
        if self.expect == "clarification":
            return "must_clarify"
        dialog = self.dialog
        if any(t.expect == "clarification" for t in dialog) or self.answers:
            return "clarification"
        return "followup" if len(dialog) > 1 else "plain"

    @property
    def is_ordered(self) -> bool:
        return self.ordered if self.ordered is not None else asks_for_order(self.dialog[-1].q)


class Suite(BaseModel):
    """A named question set over one warehouse and catalog."""

    model_config = ConfigDict(extra="forbid")

    name: str
    description: str = ""
    warehouse: str = "demo"
    catalog: str = "demo"
    today: date | None = None  # "today" for relative periods; None: the real date
    segment: str = "auto"
    cases_from: list[str] = Field(default_factory=list)
    cases: list[Case] = Field(default_factory=list)
    path: Path | None = Field(default=None, exclude=True)

    def catalog_dir(self) -> Path | None:
        """The catalog folder (None: the demo catalog)."""
        if self.catalog in ("", "demo"):
            return None
        folder = Path(self._expanded("catalog", self.catalog)).expanduser()
        return folder if folder.is_absolute() or self.path is None else self.path.parent / folder

    def warehouse_url(self) -> str | None:
        """The warehouse URL (None: the embedded demo warehouse)."""
        if self.warehouse in ("", "demo"):
            return None
        return self._expanded("warehouse", self.warehouse)

    def _expanded(self, key: str, value: str) -> str:
        """``value`` with ``${VARS}`` expanded; a variable left unset is the user's to set, so
        it is named instead of becoming a path or URL that fails far from here."""
        out = os.path.expandvars(value)
        unset = sorted(set(_VARIABLE.findall(out)))
        if unset:
            names = ", ".join(unset)
            raise EvalError(
                f"{key} needs the environment variable(s) {names}: set them and run again",
                file=self.path,
                message_ru=f"для {key} нужны переменные окружения {names}: задайте их",
            )
        return out

    def select(
        self, ids: list[str] | None = None, tags: list[str] | None = None, limit: int | None = None
    ) -> Suite:
        """A copy with only some cases: by id, by tag (any of), then the first `limit`."""
        cases = [
            c
            for c in self.cases
            if (not ids or c.id in ids) and (not tags or set(tags) & set(c.tags))
        ]
        return self.model_copy(update={"cases": cases[:limit] if limit else cases})


def _read_yaml(path: Path) -> Any:
    if not path.is_file():
        raise EvalError("suite file not found", file=path, message_ru="файл набора не найден")
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        raise EvalError(f"invalid YAML: {exc}", file=path, message_ru="неверный YAML") from exc


def _cases(path: Path, raw_cases: Any) -> list[Case]:
    if not isinstance(raw_cases, list):
        raise EvalError(
            "`cases` must be a list", file=path, message_ru="`cases` должен быть списком"
        )
    cases = []
    for n, raw in enumerate(raw_cases, start=1):
        where = f"case {raw.get('id', f'#{n}') if isinstance(raw, dict) else f'#{n}'}"
        try:
            cases.append(Case.model_validate(raw))
        except ValidationError as exc:
            first = exc.errors()[0]
            loc = ".".join(str(p) for p in first["loc"])
            raise EvalError(
                f"{loc + ': ' if loc else ''}{first['msg']}", file=path, where=where
            ) from exc
    return cases


def load_suite(path: Path | str) -> Suite:
    """Read a suite file; a plain case file (only `cases`) is a suite named after the file."""
    path = Path(path).resolve()
    data = _read_yaml(path)
    if not isinstance(data, dict):
        raise EvalError(
            "top level must be a mapping",
            file=path,
            message_ru="верхний уровень должен быть словарём",
        )
    cases = _cases(path, data.get("cases", []))
    included: list[Case] = []
    for ref in data.get("cases_from") or []:
        other = (path.parent / os.path.expandvars(ref)).resolve()
        included += _cases(other, (_read_yaml(other) or {}).get("cases", []))
    head = {k: v for k, v in data.items() if k != "cases"}
    head.setdefault("name", path.stem)
    try:
        suite = Suite.model_validate({**head, "cases": []})
    except ValidationError as exc:
        first = exc.errors()[0]
        raise EvalError(
            f"{'.'.join(str(p) for p in first['loc'])}: {first['msg']}", file=path
        ) from exc
    all_cases = included + cases
    ids = [c.id for c in all_cases]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise EvalError(
            f"case ids must be unique; repeated: {', '.join(dupes)}",
            file=path,
            message_ru="идентификаторы случаев должны быть уникальны",
        )
    return suite.model_copy(update={"cases": all_cases, "path": path})
