"""Sources of a model table: one list of SourceRef per partition kind."""

from __future__ import annotations

from vitrina.docs.model.types import Model, Partition, Table
from vitrina.docs.sources.m import m_sources
from vitrina.docs.sources.sql import sql_source
from vitrina.docs.sources.types import SourceRef
from vitrina.trace import Trace


def partition_sources(
    partition: Partition, model: Model, *, trace: Trace | None = None
) -> list[SourceRef]:
    """What one partition reads. Never an empty list: an unknown source says why."""
    kind = partition.kind
    expr = partition.expression or ""
    if kind == "query":
        if not expr.strip():
            return [
                SourceRef(
                    kind="unknown",
                    detail="query partition without a query",
                    warnings=["query partition has no query text"],
                )
            ]
        ds = model.data_source(partition.data_source or "") if partition.data_source else None
        return [
            sql_source(
                expr,
                trace=trace,
                server=ds.server if ds else None,
                database=ds.database if ds else None,
            )
        ]
    if kind == "m":
        if not expr.strip():
            return [
                SourceRef(
                    kind="unknown",
                    detail="M partition without an expression",
                    warnings=["M partition has no expression"],
                )
            ]
        return m_sources(expr, model, trace=trace)
    if kind == "calculated":
        return [SourceRef(kind="calculated", detail="calculated table (DAX)", sql=None)]
    if kind == "calculationGroup":
        return [SourceRef(kind="calculation_group", detail="calculation group")]
    if trace is not None:
        trace.warning("partition kind not traced", partition=partition.name, kind=kind)
    return [
        SourceRef(
            kind="unknown",
            detail=f"partition of kind {kind!r}",
            warnings=[f"partition kind {kind!r} is not traced"],
        )
    ]


def table_sources(table: Table, model: Model, *, trace: Trace | None = None) -> list[SourceRef]:
    """All partitions' sources of a table, duplicates merged (several partitions, one view)."""
    out: list[SourceRef] = []
    seen: set[tuple[str, tuple[str, ...], str]] = set()
    for partition in table.partitions:
        for ref in partition_sources(partition, model, trace=trace):
            key = (ref.kind, tuple(ref.objects), ref.detail)
            if key not in seen:
                seen.add(key)
                out.append(ref)
    if not table.partitions:
        out.append(
            SourceRef(
                kind="unknown",
                detail="table without partitions",
                warnings=["table has no partitions"],
            )
        )
    return out
