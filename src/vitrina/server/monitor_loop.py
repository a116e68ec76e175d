"""The board's monitor while `vitrina serve` runs (issue 31 item 7).

A background task of the app's lifespan: every `monitor_interval_s` seconds one
`team.watch.watch_pass` in a worker thread (the board is synchronous SQLAlchemy), then a
wait that the server's shutdown cuts short. It is bounded twice: one pass looks at a bounded
number of builds and signals, and the loop ends when the server stops (`stop()` sets the
event and waits for the pass in flight). A failed pass is logged and the next one runs: the
monitor never takes the server down. `monitor_interval_s = 0` turns it off.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vitrina.config import Settings

log = logging.getLogger("vitrina.server.monitor")


class MonitorLoop:
    """Start it in the lifespan, stop it on the way out."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.interval_s = float(settings.monitor_interval_s)
        self.passes = 0
        self.raised = 0
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self.interval_s > 0 and self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name="board-monitor")

    async def stop(self) -> None:
        self._stop.set()
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.wait_for(self._task, timeout=30)
            self._task = None

    async def _run(self) -> None:
        """Wait one interval, scan, again, until the server stops (the first pass waits too:
        a server started for a moment, as in a test, leaves the board as it was)."""
        while not self._stop.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stop.wait(), timeout=self.interval_s)
            if self._stop.is_set():
                break
            try:
                self.raised += len(await asyncio.to_thread(self._pass))
            except Exception:  # a broken board must not stop the server
                log.exception("board monitor pass failed")
            self.passes += 1

    def _pass(self) -> list[Any]:
        from vitrina.team import BoardStore, board_url, limits_from, notifier_from, watch_pass

        store = BoardStore(board_url(self.settings.state_url, self.settings.home))
        try:
            return watch_pass(
                store, limits_from(self.settings), notifier=notifier_from(self.settings)
            )
        finally:
            store.close()
