"""The experiment endpoint: run a suite under a configuration or a matrix over HTTP.

    POST /api/experiments      {"suite": "demo", "config": {...}} or {"suite": ..., "matrix": {...}}
    GET  /api/experiments/{id} a stored run or matrix

The body takes the same override schema as `vitrina eval run --config/--matrix`; nothing is
written but the stored runs. Suites are named, never given as paths: they are read from
the suites folder (``$VITRINA_EVAL_SUITES_DIR``, else ./suites). Mount with
``app.include_router(experiments_router(owner=...))`` (add the app's auth dependency there):
every run and matrix is stored with its owner, and is read back by its exact id and owner
only (no id prefix, no `last`): another token's experiment is "not found".
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from vitrina.config import Settings, load_settings
from vitrina.eval.errors import EvalError
from vitrina.eval.experiment import parse_config, parse_matrix
from vitrina.eval.metrics import Summary, summarize
from vitrina.eval.overrides import ModelFactory
from vitrina.eval.records import CaseRecord, RunRecord
from vitrina.eval.store import EvalStore
from vitrina.eval.suite import Suite, load_suite

SUITE_NAME = re.compile(r"^[A-Za-z0-9_.-]+$")
LOCAL_OWNER = "local"
MAX_CASES = 500


class ExperimentRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    suite: str = Field(description="a suite name in the suites folder, e.g. demo")
    config: dict[str, Any] | None = Field(
        default=None, description="one run configuration (as --config)"
    )
    matrix: dict[str, Any] | None = Field(
        default=None, description="a matrix of configurations (as --matrix)"
    )
    cases: list[str] | None = None
    tags: list[str] | None = None
    limit: int | None = Field(default=None, ge=1, le=MAX_CASES)


class RunSummary(BaseModel):
    id: str
    config_name: str
    started_at: str
    finished_at: str | None
    summary: Summary
    failures: list[str]  # wrong, pending or in-review case ids
    rank: int | None = None  # in a matrix: 1 = the most cases right over all cases
    cases: list[CaseRecord] | None = None


class ExperimentResponse(BaseModel):
    id: str
    kind: str  # run | matrix
    suite: str
    runs: list[RunSummary]


def _matrix_summaries(runs: list[RunRecord], with_cases: bool) -> list[RunSummary]:
    """A matrix's runs best first by right over all cases, each with its rank."""
    from vitrina.eval.report_terminal import ranked

    return [
        _summary(run, with_cases).model_copy(update={"rank": n})
        for n, run in enumerate(ranked(runs), start=1)
    ]


def _summary(run: RunRecord, with_cases: bool) -> RunSummary:
    failing = [
        c.case_id for c in run.cases if c.final != "right" or (c.in_review and c.manual is None)
    ]
    return RunSummary(
        id=run.id,
        config_name=run.config_name,
        started_at=run.started_at,
        finished_at=run.finished_at,
        summary=summarize(run.cases),
        failures=failing,
        cases=run.cases if with_cases else None,
    )


def _error(status: int, code: str, exc: EvalError | str) -> JSONResponse:
    message = str(exc)
    message_ru = exc.message_ru if isinstance(exc, EvalError) and exc.message_ru else message
    return JSONResponse(
        {"error": {"code": code, "message": message, "message_ru": message_ru}}, status_code=status
    )


def suites_dir() -> Path:
    return Path(os.environ.get("VITRINA_EVAL_SUITES_DIR") or "suites")


def _local_owner() -> str:
    return LOCAL_OWNER


def experiments_router(
    *,
    suites: Path | None = None,
    settings: Callable[[Request], Settings] | None = None,
    model_factory: ModelFactory | None = None,
    owner: Callable[..., str] = _local_owner,
) -> APIRouter:
    """The router; `owner` is a dependency naming who asks (the app's token id); `suites`
    (folder), `settings` and `model_factory` are for tests and embedding."""
    router = APIRouter(prefix="/api/experiments", tags=["experiments"])
    Owner = Depends(owner)

    def settings_of(request: Request) -> Settings:
        if settings is not None:
            return settings(request)
        state = getattr(request.app.state, "vitrina", None)
        return getattr(state, "settings", None) or load_settings()

    def find_suite(name: str) -> Suite:
        if not SUITE_NAME.match(name):
            raise EvalError(
                "a suite is named, not a path", message_ru="набор указывается по имени, не путём"
            )
        folder = suites or suites_dir()
        path = folder / (name if name.endswith((".yaml", ".yml")) else f"{name}.yaml")
        if not path.is_file():
            raise EvalError(
                f"no suite {name!r} in {folder}", message_ru=f"набор {name!r} не найден"
            )
        return load_suite(path)

    @router.post("", response_model=ExperimentResponse)
    def create_experiment(body: ExperimentRequest, request: Request, who: str = Owner) -> Any:
        """Run a suite under one configuration or a matrix; returns the runs' summaries."""
        from vitrina.eval.runner import base_settings, run_matrix, run_suite

        if body.config is not None and body.matrix is not None:
            return _error(
                400,
                "bad_experiment",
                EvalError(
                    "give config or matrix, not both",
                    message_ru="укажите config или matrix, не оба",
                ),
            )
        try:
            suite = find_suite(body.suite).select(body.cases, body.tags, body.limit)
            if not suite.cases:
                raise EvalError("no cases selected", message_ru="не выбрано ни одного случая")
            app_settings = settings_of(request)
            store = EvalStore.from_settings(app_settings)
            try:
                base = base_settings(suite)
                if body.matrix is not None:
                    _, configs = parse_matrix(body.matrix)
                    matrix_id, runs = run_matrix(
                        suite,
                        configs,
                        store=store,
                        settings=base,
                        model_factory=model_factory,
                        owner=who,
                    )
                    return ExperimentResponse(
                        id=matrix_id,
                        kind="matrix",
                        suite=suite.name,
                        runs=_matrix_summaries(runs, False),
                    )
                config = parse_config(body.config or {})
                run = run_suite(
                    suite,
                    config,
                    store=store,
                    settings=base,
                    model_factory=model_factory,
                    owner=who,
                )
                return ExperimentResponse(
                    id=run.id, kind="run", suite=suite.name, runs=[_summary(run, False)]
                )
            finally:
                store.close()
        except EvalError as exc:
            return _error(400, "bad_experiment", exc)

    @router.get("/{experiment_id}", response_model=ExperimentResponse)
    def get_experiment(
        experiment_id: str, request: Request, cases: bool = False, who: str = Owner
    ) -> Any:
        """A stored run or matrix of this owner, by its exact id; `?cases=true` adds every case
        record."""
        store = EvalStore.from_settings(settings_of(request))
        try:
            run_ids = store.matrix_runs(experiment_id, owner=who)
            kind = "matrix" if run_ids else "run"
            runs = [store.load_run(i, owner=who) for i in (run_ids or [experiment_id])]
        except EvalError as exc:
            return _error(404, "not_found", exc)
        finally:
            store.close()
        return ExperimentResponse(
            id=experiment_id if kind == "matrix" else runs[0].id,
            kind=kind,
            suite=runs[0].suite,
            runs=_matrix_summaries(runs, cases)
            if kind == "matrix"
            else [_summary(r, cases) for r in runs],
        )

    return router
