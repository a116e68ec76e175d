"""Read a catalog folder: every *.yaml file, each holding any of the known sections.

Each list item is validated alone, so one bad table is reported with its file and line
and the rest of the catalog still loads; `strict=True` (used by `vitrina catalog check`)
raises with every problem instead.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from vitrina.catalog.catalog import Catalog
from vitrina.catalog.errors import CatalogError, CatalogProblem
from vitrina.catalog.model import (
    CatalogInfo,
    Dictionary,
    Example,
    Instruction,
    Metric,
    Relation,
    Requirement,
    Table,
    Topic,
)
from vitrina.catalog.yaml_lines import LinePath, line_for, load_yaml_with_lines

LIST_SECTIONS: dict[str, type[BaseModel]] = {
    "topics": Topic,
    "tables": Table,
    "relations": Relation,
    "requires": Requirement,
    "metrics": Metric,
    "instructions": Instruction,
    "examples": Example,
    "dictionaries": Dictionary,
}
KNOWN = {*LIST_SECTIONS, "catalog"}
DEMO_CATALOG = Path(__file__).resolve().parent.parent / "demo_catalog"


def _pydantic_problems(
    exc: ValidationError, file: Path, lines: dict[LinePath, int], base: LinePath
) -> list[CatalogProblem]:
    problems = []
    for err in exc.errors():
        loc = tuple(p for p in err["loc"] if isinstance(p, str | int))
        path = (*base, *loc)
        where = ".".join(str(p) if isinstance(p, str) else f"[{p}]" for p in path).replace(
            ".[", "["
        )
        problems.append(CatalogProblem(file, line_for(lines, path), where, err["msg"]))
    return problems


def _read_file(
    file: Path,
    sections: dict[str, list[tuple[Any, Path, int | None]]],
    problems: list[CatalogProblem],
    info: dict[str, Any],
) -> None:
    try:
        data, lines = load_yaml_with_lines(file)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark else None
        problems.append(
            CatalogProblem(file, line, "", f"invalid YAML: {getattr(exc, 'problem', exc)}")
        )
        return
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(CatalogProblem(file, None, "", f"cannot read file: {exc}"))
        return
    if data is None:
        return
    if not isinstance(data, dict):
        problems.append(
            CatalogProblem(
                file, 1, "", f"top level must be a mapping of sections ({', '.join(sorted(KNOWN))})"
            )
        )
        return
    for key, value in data.items():
        if key not in KNOWN:
            problems.append(
                CatalogProblem(
                    file,
                    line_for(lines, (key,)),
                    key,
                    f"unknown section '{key}'; known: {', '.join(sorted(KNOWN))}",
                )
            )
            continue
        if key == "catalog":
            try:
                info.update(CatalogInfo.model_validate(value or {}).model_dump(exclude_unset=True))
            except ValidationError as exc:
                problems.extend(_pydantic_problems(exc, file, lines, ("catalog",)))
            continue
        if not isinstance(value, list):
            problems.append(CatalogProblem(file, line_for(lines, (key,)), key, "must be a list"))
            continue
        model = LIST_SECTIONS[key]
        for index, item in enumerate(value):
            try:
                obj = model.model_validate(item)
            except ValidationError as exc:
                problems.extend(_pydantic_problems(exc, file, lines, (key, index)))
                continue
            sections[key].append((obj, file, line_for(lines, (key, index))))


VERIFIED_DIR = "verified"  # the bank of verified queries (vitrina.query.verified): no sections


def load_catalog(directory: Path | str | None = None, *, strict: bool = False) -> Catalog:
    """Load and cross-check a catalog folder (None = the demo catalog shipped with Vitrina)."""
    root = Path(directory) if directory else DEMO_CATALOG
    if not root.exists():
        raise CatalogError(
            [
                CatalogProblem(
                    root,
                    None,
                    "",
                    "catalog folder not found: "
                    "pass --catalog DIR or create one with `vitrina catalog init`",
                )
            ]
        )
    files = (
        [root]
        if root.is_file()
        else sorted(
            p
            for p in root.rglob("*.y*ml")
            if p.is_file() and p.relative_to(root).parts[0] != VERIFIED_DIR
        )
    )
    if not files:
        raise CatalogError([CatalogProblem(root, None, "", "no .yaml files in the catalog folder")])
    sections: dict[str, list[tuple[Any, Path, int | None]]] = {k: [] for k in LIST_SECTIONS}
    problems: list[CatalogProblem] = []
    info: dict[str, Any] = {}
    for file in files:
        _read_file(file, sections, problems, info)
    catalog = Catalog.build(CatalogInfo.model_validate(info), sections, problems)
    if strict and catalog.problems:
        raise CatalogError(catalog.problems)
    if not catalog.tables:
        raise CatalogError(
            catalog.problems or [CatalogProblem(root, None, "", "the catalog defines no tables")]
        )
    return catalog
