"""1C:Enterprise metadata: configurations dumped to files (Designer XML and EDT) as a catalog,
1C queries over register virtual tables checked with the SDBL grammar, data composition
schemas and navigation links. No 1C server is needed.

Public entry points: `read_configuration`, `to_catalog`, `write_catalog_yaml`, `OneCQuery`,
`write_query`, `check_query`, `check_sources`, `Condition`, `expand`, `KINDS`, `REGISTERS`,
`write_dcs`, `read_ask` (what a request asks for), `attributes_query`, `report_sources`,
`ODataClient`/`ODataError` (lazy), `list_link`, `report_link`, `OneCSource`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from vitrina.catalog import Catalog
from vitrina.lazy import lazy_exports
from vitrina.onec.catalog_yaml import write_catalog_yaml
from vitrina.onec.dcs import write_dcs
from vitrina.onec.describe import attributes_query, own_fields, report_sources
from vitrina.onec.grammar import Asked, read_ask
from vitrina.onec.kinds import KINDS, REGISTERS
from vitrina.onec.links import list_link, report_link, report_name
from vitrina.onec.model import Configuration, MetaField, MetaObject, OneCWarning, TabularSection
from vitrina.onec.query import Condition, OneCQuery, write_query
from vitrina.onec.reader import OneCInputError, read_configuration
from vitrina.onec.sdbl import QueryCheck, check_query, check_sources
from vitrina.onec.to_catalog import table_name, to_catalog
from vitrina.onec.vocabulary import expand
from vitrina.trace import Trace

__all__ = [
    "KINDS",
    "REGISTERS",
    "Asked",
    "Condition",
    "Configuration",
    "MetaField",
    "MetaObject",
    "ODataClient",
    "ODataError",
    "OneCInputError",
    "OneCQuery",
    "OneCSource",
    "OneCWarning",
    "QueryCheck",
    "TabularSection",
    "attributes_query",
    "check_query",
    "check_sources",
    "expand",
    "list_link",
    "own_fields",
    "read_ask",
    "read_configuration",
    "report_link",
    "report_name",
    "report_sources",
    "table_name",
    "to_catalog",
    "write_catalog_yaml",
    "write_dcs",
    "write_query",
]


# the OData client pulls in httpx: imported on first use
__getattr__ = lazy_exports(
    __name__, {"ODataClient": "vitrina.onec.odata", "ODataError": "vitrina.onec.odata"}
)


@dataclass
class OneCSource:
    """A configuration and the catalog built from it: what the route job needs for a 1C target."""

    config: Configuration
    catalog: Catalog

    @classmethod
    def load(cls, path: Path | str, *, trace: Trace | None = None) -> OneCSource:
        config = read_configuration(path, trace=trace)
        return cls(config=config, catalog=to_catalog(config, trace=trace))

    def object_of(self, table: str) -> MetaObject | None:
        """The metadata object behind a catalog table name (`регистрнакопления.продажи`)."""
        return next(
            (o for o in self.config.objects.values() if table_name(o) == table.lower()), None
        )


if TYPE_CHECKING:  # the lazy names, for type checkers and IDEs (tests/test_lazy_exports.py)
    from vitrina.onec.odata import ODataClient as ODataClient
    from vitrina.onec.odata import ODataError as ODataError
