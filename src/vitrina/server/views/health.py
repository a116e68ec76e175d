"""Liveness, readiness (warehouse and state database reachable) and what the UI needs to start."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends

from vitrina import __version__
from vitrina.server.assets import vendor_status
from vitrina.server.checkpointer import ping_checkpointer
from vitrina.server.errors import error_response
from vitrina.server.state import ServerState, server_state

State = Annotated[ServerState, Depends(server_state)]


def healthz() -> dict[str, str]:
    """The process is up (no dependency is checked)."""
    return {"status": "ok"}


def _check(fn: Any) -> str:
    try:
        fn()
    except Exception as exc:
        text = str(exc).strip().splitlines()
        return f"error: {text[0] if text else type(exc).__name__}"
    return "ok"


def readyz(state: State) -> Any:
    """200 when the warehouse answers and the state database (checkpoints, tokens) is reachable."""
    checks = {
        "warehouse": _check(lambda: state.service.warehouse.execute("SELECT 1", row_cap=1)),
        "checkpointer": _check(lambda: ping_checkpointer(state.service.checkpointer)),
        "store": _check(state.store.ping),
    }
    if all(v == "ok" for v in checks.values()):
        return {"status": "ready", "checks": checks}
    failed = ", ".join(k for k, v in checks.items() if v != "ok")
    return error_response(
        503,
        "not_ready",
        f"not ready: {failed} unreachable",
        f"не готов: недоступно — {failed}",
        checks=checks,
    )


def info(state: State) -> dict[str, Any]:
    """Public facts for the web UI: does it need a token, are the chart libraries installed."""
    return {
        "name": "Vitrina",
        "version": __version__,
        "auth": state.options.auth,
        "vendor": vendor_status(),
        "docs": state.docs() is not None,
        "segments": ["auto", *state.service.catalog.info.segment_ids()],
        "max_question_chars": state.options.max_question_chars,
    }
