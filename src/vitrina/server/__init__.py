"""`vitrina serve`: the HTTP API, the web UI and the state they keep (tokens, dialog owners).

Shaped like Datasette: :func:`create_app` builds one app object from settings, the routes
live in one table (:mod:`vitrina.server.routes`), the views in :mod:`vitrina.server.views`.
"""

from vitrina.server.app import create_app
from vitrina.server.options import ServeOptions

__all__ = ["ServeOptions", "create_app"]
