"""Replies encoded in the worker thread that made them, never on the event loop.

FastAPI runs a sync view on its thread pool but encodes what the view returns
(`jsonable_encoder`, then `json.dumps`) back on the event loop: a large reply (a long dialog,
a task with many steps) held every other client's request for as long as that took. A view
that may return a large body returns `rendered(value)`: a response whose bytes are already
made, which FastAPI sends as it is (decision 146).
"""

from __future__ import annotations

from typing import Any

from fastapi.encoders import jsonable_encoder
from fastapi.responses import JSONResponse


def rendered(value: Any, status_code: int = 200) -> Any:
    """``value`` (a pydantic model, a dict) as a JSON response, encoded now in this thread.
    Typed ``Any`` so a view keeps its declared model for the OpenAPI schema."""
    return JSONResponse(jsonable_encoder(value), status_code=status_code)
