"""Task fixtures: a TaskService over the demo warehouse with the ask pipeline on rules and,
optionally, a scripted model for the task's own nodes."""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from pathlib import Path

import pytest
from tests.conftest import IN_CI

TODAY = date(2026, 11, 30)  # the same "today" as tests/conftest.py


@pytest.fixture
def make_task(make_service, tmp_path: Path):
    """factory(model=None, **limits) -> TaskService; `model` is a ScriptedChatModel or None,
    `db_url` another warehouse than the demo's DuckDB file."""
    from vitrina.llm import LLMClient
    from vitrina.task.limits import TaskConfig, TaskLimits
    from vitrina.task.service import TaskService

    services = []

    def factory(
        model=None,
        *,
        state_path: Path | None = None,
        ask=None,
        run_plan=None,
        db_url: str | None = None,
        checkpointer=None,
        **limits,
    ):
        asker = make_service(db_url, write_files=True)
        config = TaskConfig(limits=replace(TaskLimits(), **limits))
        llm = (
            LLMClient(model, timeout_s=5, max_retries=0, sleep=lambda s: None)
            if model is not None
            else None
        )
        from vitrina.checkpoint import sqlite_checkpointer

        service = TaskService(
            asker.settings,
            catalog=asker.catalog,
            warehouse=asker.warehouse,
            ask=ask or asker.ask,
            run_plan=run_plan or asker.run_plan,  # step 1 and derived steps: plans
            llm=llm,
            use_llm=model is not None,
            today=TODAY,
            config=config,
            checkpointer=checkpointer
            or sqlite_checkpointer(state_path or tmp_path / "tasks.sqlite"),
        )
        services.append(service)
        return service

    yield factory
    for service in services:
        service.close()


@pytest.fixture(scope="module")
def sandbox_required() -> None:
    """Skip a module's sandbox tests where bubblewrap isolation is unavailable (fail under
    CI=true, where `make test` installs it)."""
    from vitrina.task.sandbox import isolation

    mode, why = isolation()
    if mode is None:
        if IN_CI:
            pytest.fail(f"CI=true but the sandbox is unavailable: {why}")
        pytest.skip(f"sandbox unavailable here: {why}")


@pytest.fixture(scope="module")
def sql(demo_db):
    """run(text) -> rows: SQL written apart from the planner, on the demo warehouse (read
    only), that a task's numbers are checked against."""
    import duckdb

    db = duckdb.connect(str(demo_db), read_only=True)
    yield lambda text: db.sql(text).fetchall()
    db.close()


class ProcessDied(BaseException):
    """What a task run sees of a SIGKILL: nothing after this point is written."""


def dying_in_step_2(asker) -> dict:
    """`ask` and `run_plan` for a TaskService over `asker` whose second call (step 2, before
    it commits, whether it asks a question or runs a plan) dies as a killed process would."""
    calls: list[str] = []

    def dying(run):
        def call(*args, **kwargs):
            calls.append(str(args[0]))
            if len(calls) == 2:
                raise ProcessDied
            return run(*args, **kwargs)

        return call

    return {"ask": dying(asker.ask), "run_plan": dying(asker.run_plan)}
