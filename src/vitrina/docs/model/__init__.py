"""Tabular model readers (.bim and TMDL) into one internal model."""

from __future__ import annotations

from pathlib import Path

from vitrina.docs.errors import DocsInputError, ModelReadError
from vitrina.docs.model.types import (
    CalculationItem,
    Column,
    DataSource,
    Expression,
    Measure,
    Model,
    Partition,
    Relationship,
    Table,
)

__all__ = [
    "CalculationItem",
    "Column",
    "DataSource",
    "Expression",
    "Measure",
    "Model",
    "ModelReadError",
    "Partition",
    "Relationship",
    "Table",
    "load_model",
]


def load_model(path: Path | str) -> Model:
    """Read a .bim file, a TMDL `definition/` folder or a PBIP `*.SemanticModel` folder."""
    from vitrina.docs.model.bim import read_bim
    from vitrina.docs.model.tmdl import find_definition_dir, read_tmdl

    path = Path(path)
    if not path.exists():
        raise DocsInputError("model path does not exist", path=path)
    if path.is_file():
        if path.suffix.lower() in (".bim", ".json"):
            return read_bim(path)
        if path.suffix.lower() == ".tmdl":
            return read_tmdl(path.parent)
        raise DocsInputError("not a model: expected a .bim file or a TMDL folder", path=path)
    definition = find_definition_dir(path)
    if definition is not None:
        return read_tmdl(definition)
    bims = sorted(path.glob("*.bim"))
    if len(bims) == 1:
        return read_bim(bims[0])
    raise DocsInputError("folder holds neither a TMDL definition/ nor one .bim file", path=path)
