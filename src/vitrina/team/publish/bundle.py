"""The dashboard as every publisher sees it, and the publisher contract.

IDs are UUIDs derived from the build and the element (uuid5), so publishing the same build
again addresses the same dashboard, charts and datasets: a target that keys objects by
UUID (Superset's import bundle) updates instead of duplicating.
"""

from __future__ import annotations

import uuid
from typing import Any, Literal, Protocol

from pydantic import BaseModel, Field

NAMESPACE = uuid.UUID("6f1c0a52-6f5d-4a35-9a1e-6b7e5c1d2b10")


def stable_uuid(*parts: str) -> str:
    return str(uuid.uuid5(NAMESPACE, "/".join(parts)))


class DatasetRef(BaseModel):
    """One dataset view: its SQL and the meaning of its columns."""

    id: str
    uuid: str
    sql: str
    columns: list[dict[str, Any]]
    rows: int = 0


class DashboardElement(BaseModel):
    """A KPI card or a chart, placed on the 12-column grid."""

    id: str
    uuid: str
    kind: Literal["card", "chart"]
    kpi: str
    view: str  # the dataset view it reads
    title: str
    subtitle: str = ""
    caption: str = ""  # what a reader must know: points cut, rows without a dimension value
    chart_kind: str  # kpi, line, bar, grouped_bar, stacked_bar, pie
    spec: dict[str, Any]  # the Chart.js config (charts) or the KPI card spec (cards)
    # the columns drawn (a target that queries the view itself, Superset, reads these;
    # empty: the view's own period or dimension column and its metric columns)
    x_column: str | None = None
    metrics: list[str] = Field(default_factory=list)
    x: int
    y: int
    w: int
    h: int


class DashboardBundle(BaseModel):
    id: str
    uuid: str
    title: str
    subtitle: str = ""
    language: str
    datasets: list[DatasetRef] = Field(default_factory=list)
    elements: list[DashboardElement] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    # the publication's version: 1, one more on each re-publish or edited brief (decision 207)
    version: int = 1


class Publication(BaseModel):
    """Where a publisher put the dashboard."""

    target: str  # html, superset, ...
    dashboard_uuid: str
    location: str  # a folder or a URL
    files: list[str] = Field(default_factory=list)


class Publisher(Protocol):
    """A publishing target. ``publish`` is idempotent: the same bundle twice is one dashboard."""

    target: str

    def publish(self, bundle: DashboardBundle, files: dict[str, bytes]) -> Publication: ...
