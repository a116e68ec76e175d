"""`vitrina serve`: the HTTP API, the web UI and the state they keep (tokens, dialog owners).

Shaped like Datasette: :func:`create_app` builds one app object from settings, the routes
live in one table (:mod:`vitrina.server.routes`), the views in :mod:`vitrina.server.views`.
"""

from typing import TYPE_CHECKING

from vitrina.lazy import lazy_exports

_EXPORTS = {"create_app": "vitrina.server.app", "ServeOptions": "vitrina.server.options"}

__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)


if TYPE_CHECKING:  # the lazy names, for type checkers and IDEs (tests/test_lazy_exports.py)
    from vitrina.server.app import create_app as create_app
    from vitrina.server.options import ServeOptions as ServeOptions
