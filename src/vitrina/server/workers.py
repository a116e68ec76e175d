"""`vitrina serve --workers N`: N uvicorn processes, each listening on its own socket.

uvicorn's own supervisor shares one listening socket among its workers. A burst of
connections is then accepted by whichever worker wakes first, often all of them. A
keep-alive connection stays with the worker that accepted it, so we measured 8 clients on
one of two workers while the other stood idle. Here each worker binds its own socket with
SO_REUSEPORT, and the kernel spreads new connections across the sockets. That is the
"one socket per worker" layout of nginx's `reuseport` (decision 133).

A keep-alive connection stays with its worker, and a few connections often split unevenly;
a worker above its share of the open connections asks a client to reconnect
(`vitrina.server.rebalance`, decision 139).

The supervisor starts the workers, replaces one that dies (a bounded number of times), and
on SIGINT/SIGTERM stops them all: SIGTERM for a graceful shutdown, then SIGKILL for what is
left. A worker whose supervisor is gone stops itself, so no worker outlives `vitrina serve`.
Where the platform has no SO_REUSEPORT, `supported()` is False and the caller uses uvicorn's
supervisor instead.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger("vitrina.server")

APP = "vitrina.server.app:app_from_env"
POLL_S = 0.5  # how often the supervisor looks at its workers
STOP_GRACE_S = 15.0  # a worker's graceful shutdown before it is killed
RESUME_TASKS_ENV = "VITRINA_RESUME_TASKS"  # "0": this process resumes no interrupted task
MAX_RESTARTS = 5  # workers replaced within RESTART_WINDOW_S before the server gives up
RESTART_WINDOW_S = 60.0
PARENT_CHECK_S = 1.0  # how often a worker checks that its supervisor is still there


class WorkersError(RuntimeError):
    """The workers could not start or kept dying; the message says why, in one line."""


def supported() -> bool:
    """Whether this platform spreads connections over SO_REUSEPORT sockets (Linux does;
    macOS accepts the option without spreading, so only Linux counts)."""
    return hasattr(socket, "SO_REUSEPORT") and os.uname().sysname == "Linux"


def _family(host: str) -> socket.AddressFamily:
    return socket.AF_INET6 if ":" in host else socket.AF_INET


def check_port_free(host: str, port: int) -> None:
    """Refuse a port another program listens on. The workers' SO_REUSEPORT sockets would
    otherwise join a listener of the same user and share its traffic."""
    probe = socket.socket(_family(host), socket.SOCK_STREAM)
    probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # past TIME_WAIT, not a listener
    try:
        probe.bind((host, port))
    except OSError as exc:
        raise WorkersError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from exc
    finally:
        probe.close()


def reuseport_socket(host: str, port: int) -> socket.socket:
    """A bound (not yet listening) TCP socket in the port's SO_REUSEPORT group."""
    sock = socket.socket(_family(host), socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host, port))
    return sock


def _stop_when_orphaned(parent: int) -> None:
    """Ask this worker to shut down once its supervisor has gone (it was killed)."""
    while os.getppid() == parent:
        time.sleep(PARENT_CHECK_S)
    os.kill(os.getpid(), signal.SIGTERM)


def worker_main(
    host: str,
    port: int,
    options: dict[str, Any],
    counts: Any = None,
    slot: int = 0,
    resume: bool = False,
) -> None:
    """One worker process: its own socket, the app built from the environment; `counts`:
    the open connections of every worker, shared (`vitrina.server.rebalance`). Only the first
    worker of a starting server resumes tasks a crash left running (`resume`): a replaced
    worker must not take over a step a sibling is still running (decision 173)."""
    import uvicorn

    os.environ[RESUME_TASKS_ENV] = "1" if resume else "0"

    from vitrina.server import rebalance

    threading.Thread(target=_stop_when_orphaned, args=(os.getppid(),), daemon=True).start()
    sock = reuseport_socket(host, port)
    config = uvicorn.Config(APP, factory=True, host=host, port=port, **options)
    server = uvicorn.Server(config)
    if counts is not None:
        rebalance.install(rebalance.ConnectionShare(counts, slot, server.server_state.connections))
    server.run(sockets=[sock])


@dataclass
class Supervisor:
    """Keeps `workers` worker processes running until it is told to stop."""

    host: str
    port: int
    workers: int
    options: dict[str, Any] = field(default_factory=dict)
    processes: list[Any] = field(default_factory=list)
    restarts: list[float] = field(default_factory=list)
    stopping: threading.Event = field(default_factory=threading.Event)
    context: Any = field(default_factory=lambda: multiprocessing.get_context("spawn"))
    counts: Any = None  # each worker's open connections, shared with the workers

    def _start(self, slot: int, resume: bool = False) -> Any:
        if self.counts is None:
            self.counts = self.context.Array("i", self.workers, lock=False)
        self.counts[slot] = 0  # a replaced worker's connections died with it
        process = self.context.Process(
            target=worker_main,
            args=(self.host, self.port, self.options, self.counts, slot, resume),
            daemon=False,
        )
        process.start()
        return process

    def _replace(self, index: int) -> None:
        dead = self.processes[index]
        now = time.monotonic()
        self.restarts = [t for t in self.restarts if now - t < RESTART_WINDOW_S] + [now]
        if len(self.restarts) > MAX_RESTARTS:
            raise WorkersError(
                f"worker processes keep exiting ({len(self.restarts)} in "
                f"{RESTART_WINDOW_S:g} s, the last with code {dead.exitcode}); see the log above"
            )
        log.warning("worker process %s exited with %s; starting another", dead.pid, dead.exitcode)
        self.processes[index] = self._start(index)

    def run(self) -> None:
        """Start the workers and keep them running; return after SIGINT or SIGTERM."""
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *_: self.stopping.set())
        self.processes = [self._start(slot, resume=slot == 0) for slot in range(self.workers)]
        try:
            while not self.stopping.wait(POLL_S):
                for index, process in enumerate(self.processes):
                    if not process.is_alive() and not self.stopping.is_set():
                        self._replace(index)
        finally:
            self.stop()

    def stop(self) -> None:
        """SIGTERM to every worker, SIGKILL to those still running after the grace period."""
        for process in self.processes:
            if process.is_alive():
                process.terminate()
        deadline = time.monotonic() + STOP_GRACE_S
        for process in self.processes:
            process.join(max(0.0, deadline - time.monotonic()))
        for process in self.processes:
            if process.is_alive():
                process.kill()
                process.join(5)
