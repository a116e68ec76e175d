"""Everything one server process holds, built once by create_app and reached from views."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from fastapi import Request

from vitrina.config import Settings
from vitrina.server.docs_source import DocsSource, find_docs_dir
from vitrina.server.limits import TokenBuckets
from vitrina.server.options import ServeOptions
from vitrina.server.seams import AskServing
from vitrina.server.store import Store

if TYPE_CHECKING:
    from vitrina.server.turns import TurnRunner


@dataclass
class ServerState:
    settings: Settings
    options: ServeOptions
    service: AskServing
    store: Store
    runner: TurnRunner
    buckets: TokenBuckets

    def docs(self) -> DocsSource | None:
        root = find_docs_dir(self.options.docs_dir, self.settings.outputs_dir)
        return DocsSource(root) if root else None


async def server_state(request: Request) -> ServerState:
    """The process's state (async: FastAPI runs a plain `def` dependency in its thread pool,
    a thread hop per request for an attribute read)."""
    return request.app.state.vitrina
