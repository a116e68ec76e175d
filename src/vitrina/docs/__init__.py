"""The `docs` job: technical documentation of BI measures traced from DAX to the warehouse.

Public entry point: this package (other packages import docs only from here): `run_docs`
and `make_request` (the job), `DocsInputError`, `load_model` (the .bim / TMDL readers); `load_live`,
`LiveDocs`, `MeasureNotFound`, `reword` (documents straight from a model and SQL folder, for MCP and
the web); `vitrina.docs.commands.register` is the CLI. Names are imported on first use.
"""

from __future__ import annotations

from vitrina.lazy import lazy_exports

_EXPORTS = {
    "DocsInputError": "vitrina.docs.errors",
    "LiveDocs": "vitrina.docs.live",
    "MeasureNotFound": "vitrina.docs.live",
    "load_live": "vitrina.docs.live",
    "reword": "vitrina.docs.live",
    "load_model": "vitrina.docs.model",
    "make_request": "vitrina.docs.run",
    "run_docs": "vitrina.docs.run",
}

__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)
