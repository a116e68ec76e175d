"""The web UI's two pages: plain HTML files from static/, no build step on the user's machine."""

from __future__ import annotations

from fastapi.responses import FileResponse

from vitrina.server.assets import STATIC_DIR
from vitrina.server.headers import DOCS_CSP


def chat_page() -> FileResponse:
    return FileResponse(
        STATIC_DIR / "index.html", media_type="text/html", headers={"Cache-Control": "no-cache"}
    )


def docs_page() -> FileResponse:
    return FileResponse(
        STATIC_DIR / "docs.html",
        media_type="text/html",
        headers={"Cache-Control": "no-cache", "Content-Security-Policy": DOCS_CSP},
    )
