"""Test-only: pause a spawned `vitrina serve` at one boundary of each task's run, so that the
test can SIGKILL it exactly there (tests/server/test_task_resume.py). Not product code: it is
on the PYTHONPATH of the spawned server only, and inert unless PAUSE_AT_DIR is set.

It wraps LangGraph from outside, so the product carries no test hook: every node of a task
graph (`StateGraph.add_node`) and the SQLite checkpointer's `put` / `put_writes`.

PAUSE_AT is JSON, {owner id: boundary}: the task of that owner (the API token's id) pauses at

    begin:1    the plan is committed, step 1 not started
    work:K     step K's `execute` has done its work (queries run, files written) and returned;
               nothing of it is saved: a resume must run step K again
    saved:K    step K's work is saved as the node's pending writes, the checkpoint after it
               is not: a resume must use them and not run step K again
    step:K     the checkpoint after step K's `compress` is written: step K is committed with
               its history record, a resume starts at step K+1 (K = 8: at `finalize`)

At its boundary a task's run writes `paused-OWNER` (JSON: boundary, pid, task) into the pause
folder and sleeps (at most PAUSE_MAX_S, then goes on). Every task node that ends is appended
to `nodes.jsonl` there (pid, task, node, step), so the test counts how often each step ran.
"""

from __future__ import annotations

import functools
import json
import os
import threading
import time
from pathlib import Path
from typing import Any

PAUSE_MAX_S = 600.0  # a server nobody kills goes on after this (the test kills it long before)
SAVED_WAIT_S = 30.0  # how long `saved:K` waits for the step's pending writes to be saved
TASK_NODES = {"inject_step", "execute", "evaluate", "compress", "finalize", "approve_plan"}
TASKS_DB = "tasks.sqlite"

_folder = Path(os.environ.get("PAUSE_AT_DIR") or ".")
_spec: dict[str, str] = json.loads(os.environ.get("PAUSE_AT") or "{}")
_lock = threading.Condition()
_writes_saved: set[tuple[str, str]] = set()  # (thread id, checkpoint id) with a step's writes
_executed: dict[str, tuple[str, int]] = {}  # thread id -> (owner, step) whose `execute` ended


def _pause(owner: str, task_id: str, boundary: str) -> None:
    """Say where this run is (atomically: the test reads the file whole) and sleep."""
    if _spec.get(owner) != boundary:
        return
    tmp = _folder / f"paused-{owner}.tmp"
    tmp.write_text(json.dumps({"boundary": boundary, "pid": os.getpid(), "task": task_id}))
    os.replace(tmp, _folder / f"paused-{owner}")
    time.sleep(PAUSE_MAX_S)


def _log(task_id: str, node: str, step: int | None) -> None:
    line = json.dumps({"pid": os.getpid(), "task": task_id, "node": node, "step": step})
    with _lock, (_folder / "nodes.jsonl").open("a") as out:
        out.write(line + "\n")


def _step(state: dict[str, Any], current: Any) -> int | None:
    plan = state.get("plan") or []
    return plan[current].n if isinstance(current, int) and 0 <= current < len(plan) else None


def _watched(name: str, node: Any) -> Any:
    @functools.wraps(node)  # LangGraph reads the node's signature through __wrapped__
    def wrapper(state: Any, *args: Any, **kwargs: Any) -> Any:
        if not isinstance(state, dict) or "task_id" not in state:
            return node(state, *args, **kwargs)
        owner, task_id = str(state.get("owner")), state["task_id"]
        if name == "inject_step" and not state.get("history"):
            _pause(owner, task_id, "begin:1")
        update = node(state, *args, **kwargs)
        current = update.get("current") if name == "inject_step" else state.get("current")
        step = _step(state, current)
        _log(task_id, name, step)
        if name == "execute" and isinstance(update, dict) and update.get("step_done"):
            with _lock:
                _executed[task_id] = (owner, step or 0)
            _pause(owner, task_id, f"work:{step}")
        return update

    return wrapper


def _install() -> None:
    from langgraph.checkpoint.sqlite import SqliteSaver
    from langgraph.graph.state import StateGraph

    add_node = StateGraph.add_node

    @functools.wraps(add_node)
    def watched_add_node(self: Any, node: Any, action: Any = None, **kwargs: Any) -> Any:
        if isinstance(node, str) and node in TASK_NODES and callable(action):
            action = _watched(node, action)
        return add_node(self, node, action, **kwargs)

    put, put_writes = SqliteSaver.put, SqliteSaver.put_writes

    def _tasks_db(saver: Any) -> bool:
        return Path(str(getattr(saver, "_path", ""))).name == TASKS_DB

    @functools.wraps(put_writes)
    def watched_put_writes(
        self: Any, config: Any, writes: Any, task_id: str, task_path: str = ""
    ) -> None:
        put_writes(self, config, writes, task_id, task_path)
        if _tasks_db(self) and any(c == "step_done" and v for c, v in writes):
            conf = config["configurable"]
            with _lock:
                _writes_saved.add((conf["thread_id"], conf.get("checkpoint_id") or ""))
                _lock.notify_all()

    @functools.wraps(put)
    def watched_put(
        self: Any, config: Any, checkpoint: Any, metadata: Any, new_versions: Any
    ) -> Any:
        conf = config["configurable"]
        thread = conf.get("thread_id", "")
        with _lock:
            executed = _executed.pop(thread, None) if _tasks_db(self) else None
        if executed is not None and _spec.get(executed[0]) == f"saved:{executed[1]}":
            # the checkpoint after `execute`: wait until the step's writes are saved, then
            # stop before this checkpoint is
            key = (thread, conf.get("checkpoint_id") or "")
            deadline = time.monotonic() + SAVED_WAIT_S
            with _lock:
                while key not in _writes_saved and time.monotonic() < deadline:
                    _lock.wait(timeout=0.1)
            if key in _writes_saved:
                _pause(executed[0], thread, f"saved:{executed[1]}")
        saved = put(self, config, checkpoint, metadata, new_versions)
        if _tasks_db(self) and "history" in (new_versions or {}):
            values = checkpoint.get("channel_values") or {}
            history = values.get("history") or []
            if history:
                _pause(str(values.get("owner")), thread, f"step:{history[-1].get('n')}")
        return saved

    StateGraph.add_node = watched_add_node  # type: ignore[method-assign]
    SqliteSaver.put = watched_put  # type: ignore[method-assign]
    SqliteSaver.put_writes = watched_put_writes  # type: ignore[method-assign]


if os.environ.get("PAUSE_AT_DIR"):
    _install()
