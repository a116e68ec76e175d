"""The `docs` job: technical documentation of BI measures traced from DAX to the warehouse.

Public entry point: this package (other packages import docs only from here): `run_docs`
and `make_request` (the job), `DocsInputError`, `load_model` (the .bim / TMDL readers); `load_live`,
`LiveDocs`, `MeasureNotFound`, `reword` (documents straight from a model and SQL folder, for MCP and
the web); `vitrina.docs.commands.register` is the CLI. Names are imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

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


if TYPE_CHECKING:  # the lazy names, for type checkers and IDEs (tests/test_lazy_exports.py)
    from vitrina.docs.errors import DocsInputError as DocsInputError
    from vitrina.docs.live import LiveDocs as LiveDocs
    from vitrina.docs.live import MeasureNotFound as MeasureNotFound
    from vitrina.docs.live import load_live as load_live
    from vitrina.docs.live import reword as reword
    from vitrina.docs.model import load_model as load_model
    from vitrina.docs.run import make_request as make_request
    from vitrina.docs.run import run_docs as run_docs
