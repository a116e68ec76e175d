"""Read a Tabular `.bim` (JSON, compatibility levels 1200-1600) into the internal model."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from vitrina.docs.errors import ModelReadError
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

_PARAM_RE = re.compile(r"\bmeta\s*\[[^\]]*IsParameterQuery\s*=\s*true", re.IGNORECASE)


def read_text(path: Path) -> str:
    """Decode UTF-8 with or without BOM (and UTF-16 with BOM, which SSDT sometimes writes)."""
    raw = path.read_bytes()
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        return raw.decode("utf-16")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise ModelReadError(f"not UTF-8 text ({exc.reason})", path=path, line=line) from exc


def text_of(value: Any) -> str:
    """An expression is a string or, when split by Tabular Editor / SSDT, a list of lines."""
    if value is None:
        return ""
    if isinstance(value, list):
        return "\n".join(str(v) for v in value)
    return str(value)


def _opt_text(value: Any) -> str | None:
    text = text_of(value)
    return text if text else None


def read_bim(path: Path | str) -> Model:
    """Parse a .bim file; JSON errors name the file, line and column."""
    path = Path(path)
    text = read_text(path)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ModelReadError(
            f"invalid JSON: {exc.msg}", path=path, line=exc.lineno, column=exc.colno
        ) from exc
    if not isinstance(data, dict):
        raise ModelReadError("invalid .bim: the top level is not a JSON object", path=path, line=1)
    model_data = data.get("model")
    if not isinstance(model_data, dict):
        raise ModelReadError('invalid .bim: no "model" object', path=path, line=1)
    return model_from_json(data, path=path)


def model_from_json(data: dict[str, Any], *, path: Path | str = "") -> Model:
    """Map the TOM JSON to the internal model (pure: no file access, tests use it directly)."""
    m = data.get("model", {})
    tables = [_table(t, str(path)) for t in m.get("tables", []) or []]
    relationships = [
        Relationship(
            name=r.get("name"),
            from_table=r.get("fromTable", ""),
            from_column=r.get("fromColumn", ""),
            to_table=r.get("toTable", ""),
            to_column=r.get("toColumn", ""),
            is_active=r.get("isActive", True),
            cross_filter=r.get("crossFilteringBehavior"),
        )
        for r in m.get("relationships", []) or []
        if r.get("fromTable") and r.get("toTable")
    ]
    return Model(
        name=str(data.get("name") or m.get("name") or Path(str(path)).stem or "Model"),
        path=str(path),
        format="bim",
        compatibility_level=data.get("compatibilityLevel"),
        tables=tables,
        relationships=relationships,
        data_sources=[_data_source(d) for d in m.get("dataSources", []) or []],
        expressions=[_expression(e) for e in m.get("expressions", []) or []],
    )


def _table(t: dict[str, Any], path: str) -> Table:
    name = t.get("name", "")
    columns = []
    for c in t.get("columns", []) or []:
        ctype = c.get("type", "data")
        if ctype == "rowNumber":
            continue
        columns.append(
            Column(
                name=c.get("name", ""),
                kind=ctype if ctype in ("calculated", "calculatedTableColumn") else "data",
                data_type=c.get("dataType"),
                source_column=c.get("sourceColumn"),
                expression=_opt_text(c.get("expression")),
                description=_opt_text(c.get("description")),
                display_folder=c.get("displayFolder"),
                is_hidden=bool(c.get("isHidden", False)),
            )
        )
    measures = [
        Measure(
            name=ms.get("name", ""),
            table=name,
            expression=text_of(ms.get("expression")),
            description=_opt_text(ms.get("description")),
            display_folder=ms.get("displayFolder"),
            format_string=ms.get("formatString"),
            is_hidden=bool(ms.get("isHidden", False)),
            file=path or None,
        )
        for ms in t.get("measures", []) or []
    ]
    partitions = [_partition(p) for p in t.get("partitions", []) or []]
    items = []
    group = t.get("calculationGroup")
    if isinstance(group, dict):
        items = [
            CalculationItem(name=i.get("name", ""), expression=text_of(i.get("expression")))
            for i in group.get("calculationItems", []) or []
        ]
    return Table(
        name=name,
        description=_opt_text(t.get("description")),
        columns=columns,
        measures=measures,
        partitions=partitions,
        calculation_items=items,
        is_hidden=bool(t.get("isHidden", False)),
    )


def _partition(p: dict[str, Any]) -> Partition:
    src = p.get("source") or {}
    kind = src.get("type", "query" if "query" in src else "unknown")
    if kind == "query":
        expression = text_of(src.get("query"))
    elif kind in ("m", "calculated", "policyRange"):
        expression = text_of(src.get("expression"))
    else:
        expression = text_of(src.get("expression") or src.get("query"))
    known = ("query", "m", "calculated", "calculationGroup", "entity", "policyRange")
    return Partition(
        name=p.get("name", ""),
        kind=kind if kind in known else "unknown",
        expression=expression or None,
        data_source=src.get("dataSource"),
        mode=p.get("mode"),
    )


def _data_source(d: dict[str, Any]) -> DataSource:
    if d.get("type") == "structured":
        details = d.get("connectionDetails") or {}
        address = details.get("address") or {}
        return DataSource(
            name=d.get("name", ""),
            kind="structured",
            protocol=details.get("protocol"),
            server=address.get("server"),
            database=address.get("database"),
        )
    conn = d.get("connectionString")
    server = database = None
    if conn:
        parts = dict(
            (k.strip().lower(), v.strip())
            for k, _, v in (kv.partition("=") for kv in conn.split(";") if "=" in kv)
        )
        server = parts.get("data source") or parts.get("server")
        database = parts.get("initial catalog") or parts.get("database")
    return DataSource(
        name=d.get("name", ""),
        kind="legacy",
        connection_string=conn,
        server=server,
        database=database,
    )


def _expression(e: dict[str, Any]) -> Expression:
    text = text_of(e.get("expression"))
    return Expression(
        name=e.get("name", ""),
        kind=e.get("kind", "m"),
        expression=text,
        description=_opt_text(e.get("description")),
        is_parameter=bool(_PARAM_RE.search(text)),
    )
