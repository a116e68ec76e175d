"""Publishing a reviewed dashboard: the bundle every target reads, and the targets.

`DashboardBundle` is target-neutral (datasets with their SQL, charts with their kind,
axes and Chart.js config, a 12-column grid layout, stable UUIDs), so Vitrina's own HTML
page and a later Superset import are two `Publisher` implementations of one contract.
"""

from vitrina.team.publish.bundle import (
    DashboardBundle,
    DashboardElement,
    DatasetRef,
    Publication,
    Publisher,
)
from vitrina.team.publish.html import HtmlPublisher, render_html

__all__ = [
    "DashboardBundle",
    "DashboardElement",
    "DatasetRef",
    "HtmlPublisher",
    "Publication",
    "Publisher",
    "render_html",
]
