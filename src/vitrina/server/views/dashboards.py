"""Dashboards published by `vitrina build`: the page shell and its assets for everyone, the
data (dashboard.json) only with an API token. The page fetches the data with the token the
chat page stored, so nothing from the warehouse is served without one."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated

from fastapi import Depends
from fastapi.responses import FileResponse, RedirectResponse

from vitrina.server.auth import Who
from vitrina.server.errors import ApiError
from vitrina.server.row_policy import refuse_policed
from vitrina.server.state import ServerState, server_state

State = Annotated[ServerState, Depends(server_state)]
ASSETS = {
    "chart.umd.min.js": "text/javascript",
    "dashboard.js": "text/javascript",
    "dashboard.css": "text/css",
}
HEADERS = {
    "Cache-Control": "no-cache",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src "
    "'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'self'",
}


def _folder(state: ServerState, slug: str) -> Path:
    from vitrina.team import SLUG, dashboards_dir

    folder = dashboards_dir(state.settings.home) / slug
    if not SLUG.fullmatch(slug) or not (folder / "app.html").is_file():
        raise ApiError(
            404,
            "dashboard_not_found",
            f"dashboard {slug!r} not found",
            f"дашборд {slug!r} не найден",
        )
    return folder


def dashboard_redirect(slug: str) -> RedirectResponse:
    """`/dashboards/build-3` -> `/dashboards/build-3/`, so the page's relative links resolve."""
    return RedirectResponse(
        f"/dashboards/{slug}/" if re.fullmatch(r"build-[0-9]{1,9}", slug) else "/", 308
    )


def dashboard_page(slug: str, state: State) -> FileResponse:
    """The dashboard's page without data: it loads dashboard.json with the reader's token."""
    return FileResponse(_folder(state, slug) / "app.html", media_type="text/html", headers=HEADERS)


def dashboard_asset(slug: str, name: str, state: State) -> FileResponse:
    if name not in ASSETS:
        raise ApiError(404, "file_not_found", f"no asset {name!r}", f"нет файла {name!r}")
    path = _folder(state, slug) / "assets" / name
    if not path.is_file():
        raise ApiError(404, "file_not_found", f"no asset {name!r}", f"нет файла {name!r}")
    return FileResponse(path, media_type=ASSETS[name], headers=HEADERS)


def dashboard_data(slug: str, state: State, who: Who) -> FileResponse:
    """The published bundle: datasets, charts with their numbers, the layout."""
    refuse_policed(state, who.owner)
    return FileResponse(
        _folder(state, slug) / "dashboard.json",
        media_type="application/json",
        headers={**HEADERS, "Cache-Control": "no-store"},
    )
