"""Run a suite under one configuration (or a matrix of them) and store what happened.

Each case is played turn by turn on its own thread; clarifying questions the script does
not expect are answered from the bank; the last turn is checked by kind (refusal,
clarification, result compared with the reference), answers are checked for invented
numbers, and disputed results go to the judge when a model is available.
"""

from __future__ import annotations

import hashlib
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vitrina.ask import AskResult, AskService
from vitrina.catalog import Catalog, load_catalog
from vitrina.config import Settings, load_settings
from vitrina.eval.bank import bank_key, bank_reply
from vitrina.eval.compare import compare_results, normalize_rows
from vitrina.eval.errors import ConfigError, EvalError
from vitrina.eval.experiment import RunConfig
from vitrina.eval.invented import invented_numbers
from vitrina.eval.judge import judge
from vitrina.eval.overrides import ModelFactory, catalog_for, client_for, settings_for
from vitrina.eval.records import CaseRecord, RunRecord, json_rows
from vitrina.eval.store import EvalStore, now
from vitrina.eval.suite import Case, Suite
from vitrina.llm.client import LLMClient

MAX_BANK_REPLIES = 3  # clarifications answered from the bank within one turn
TRACE_EVENTS = 60  # events of the last turn kept per case
Progress = Callable[[int, int, str], None]


@dataclass
class Reference:
    rows: list[tuple[Any, ...]] = field(default_factory=list)
    error: str | None = None


@dataclass
class Harness:
    """Everything one run needs."""

    run_id: str
    suite: Suite
    config: RunConfig
    service: AskService
    store: EvalStore
    judge: LLMClient | None
    references: dict[str, Reference]


def base_settings(
    suite: Suite, db_url: str | None = None, catalog_dir: Path | None = None
) -> Settings:
    """Settings for the suite's warehouse and catalog ("demo" means the demo, whatever is
    configured); `db_url` and `catalog_dir` run the suite on another warehouse."""
    if catalog_dir is not None and not catalog_dir.is_dir():
        raise EvalError(
            "catalog folder not found (give the folder that holds the catalog's YAML files)",
            file=catalog_dir,
            message_ru="папка каталога не найдена",
        )
    settings = load_settings()
    settings = settings.with_(
        catalog_dir=catalog_dir or suite.catalog_dir(), db_url=db_url or suite.warehouse_url()
    )
    if settings.db_url is None:
        from vitrina.warehouse.demo import ensure_demo_warehouse

        ensure_demo_warehouse(settings.demo_db_path)
    return settings


def _reference(h: Harness, case: Case) -> Reference:
    if case.reference_rows is not None:
        return Reference([tuple(r) for r in case.reference_rows])
    sql = case.reference_sql or ""
    key = f"{h.service.settings.warehouse_url}\n{sql}"
    if key not in h.references:
        try:
            h.references[key] = Reference(
                list(h.service.warehouse.execute(sql, row_cap=10_000_000).rows)
            )
        except Exception as exc:  # a broken reference is the suite's problem, never the system's
            h.references[key] = Reference(
                error=f"{type(exc).__name__}: {str(exc).splitlines()[0][:300]}"
            )
    return h.references[key]


def _fingerprint(case_id: str, expected: list[Any], got: list[Any]) -> str:
    def canon(rows: list[Any]) -> str:
        return repr(sorted(repr(r) for r in normalize_rows(rows)))

    return hashlib.sha1(f"{case_id}\n{canon(expected)}\n{canon(got)}".encode()).hexdigest()[:16]


def _trace(result: AskResult) -> list[dict[str, Any]]:
    out = []
    for event in result.trace[-TRACE_EVENTS:]:
        data = {
            k: (v if isinstance(v, int | float | bool) or v is None else str(v)[:200])
            for k, v in event.data.items()
        }
        out.append(
            {"node": event.node, "kind": str(event.kind), "message": event.message, "data": data}
        )
    return out


@dataclass
class _Played:
    results: list[AskResult] = field(default_factory=list)
    clarifications: int = 0
    pending: str | None = None
    failure: str | None = None


def _play(h: Harness, case: Case) -> _Played:
    """Ask every turn; answer unexpected clarifications from the bank."""
    played = _Played()
    thread = f"eval-{h.run_id}-{case.id}"
    segment = case.segment or h.suite.segment
    dialog = case.dialog
    for n, turn in enumerate(dialog, start=1):
        result = h.service.ask(
            turn.q, thread_id=thread, segment=segment, topics=case.topics or None
        )
        played.results.append(result)
        for _ in range(MAX_BANK_REPLIES):
            if result.status != "clarification" or turn.expect == "clarification":
                break
            played.clarifications += 1
            reply = bank_reply(h.store, h.suite.name, case, result.clarification)
            if reply is None:
                clar = result.clarification or {}
                played.pending = (
                    f"waiting for an answer to the clarification {clar.get('question', '')!r} "
                    f"(options {bank_key(clar)}): `vitrina eval bank --answer "
                    f"{h.suite.name}:{case.id} "
                    f"'{bank_key(clar)}' TEXT`"
                )
                return played
            result = h.service.ask(reply, thread_id=thread, segment=segment)
            played.results.append(result)
        if result.status == "clarification" and turn.expect == "clarification":
            played.clarifications += 1
        if n < len(dialog):
            problem = _turn_problem(turn.expect, turn.options, result)
            if problem:
                played.failure = f"turn {n}: {problem}"
                return played
    return played


def _turn_problem(expect: str | None, options: list[str] | None, result: AskResult) -> str | None:
    if expect is not None and result.status != expect:
        return f"expected {expect}, got {result.status}"
    if expect is None and result.status == "failed":
        return "failed"
    if options is not None:
        got = [o["id"] for o in (result.clarification or {}).get("options", [])]
        if got != options:
            return f"expected options {options}, got {got}"
    return None


def _case_fields(case: Case) -> dict[str, Any]:
    """What a case's record takes from the case itself, however the case ended."""
    return {
        "case_id": case.id,
        "kind": case.kind,
        "tags": case.tags,
        "question": case.dialog[-1].q,
        "turns": [t.q for t in case.dialog],
        "expect": case.expect,
        "xfail": case.xfail,
    }


def run_case(h: Harness, case: Case) -> CaseRecord:
    """Play one case and judge it."""
    start = time.perf_counter()
    played = _play(h, case)
    latency = (time.perf_counter() - start) * 1000
    last = played.results[-1]
    usage = [r.llm_usage for r in played.results]
    record = CaseRecord(
        **_case_fields(case),
        status=last.status,
        verdict="wrong",
        clarifications=played.clarifications,
        retries=sum(
            1 for r in played.results for e in r.trace if e.message == "retry after an error"
        ),
        latency_ms=round(latency, 1),
        llm_calls=sum(u.get("calls", 0) for u in usage),
        prompt_tokens=sum(u.get("prompt_tokens", 0) for u in usage),
        completion_tokens=sum(u.get("completion_tokens", 0) for u in usage),
        sql=last.sql,
        sql_source=last.sql_source,
        columns=last.columns,
        got=json_rows(last.rows),
        got_count=len(last.rows),
        answer=last.answer,
        trace=_trace(last),
    )
    if last.status == "answered":
        trusted = (
            [t.q for t in case.dialog]
            + [r.rewritten_question for r in played.results]
            + [last.topic]
        )
        record.invented = [
            str(n)
            for n in invented_numbers(
                last.answer,
                last.columns,
                last.rows,
                trusted=trusted,
                period=last.period,
                extra=[h.service.settings.table_preview_rows],
            )
        ]
    if played.pending:
        return record.model_copy(update={"verdict": "pending", "reason": played.pending})
    if played.failure:
        return record.model_copy(update={"reason": played.failure, "auto_ok": False})
    return _check_last(h, case, record, last)


def _check_last(h: Harness, case: Case, record: CaseRecord, last: AskResult) -> CaseRecord:
    problem = _turn_problem(case.expect, case.options, last)
    if case.expect != "answered" or problem:
        ok = problem is None
        reason = "" if ok else problem or ""
        if not ok and last.answer and last.status != "answered":
            reason += f": {' '.join(last.answer.split())[:160]}"
        return record.model_copy(
            update={"verdict": "right" if ok else "wrong", "auto_ok": ok, "reason": reason}
        )
    ref = _reference(h, case)
    if ref.error:
        return record.model_copy(
            update={"verdict": "pending", "reason": f"reference failed: {ref.error}"}
        )
    comparison = compare_results(ref.rows, last.rows, ordered=case.is_ordered)
    record = record.model_copy(
        update={
            "expected": json_rows(ref.rows),
            "expected_count": len(ref.rows),
            "auto_ok": comparison.ok,
            "diff": comparison.diff,
            "verdict": "right" if comparison.ok else "wrong",
            "reason": "" if comparison.ok else "different result",
        }
    )
    if comparison.ok:
        return record
    record.fingerprint = _fingerprint(case.id, ref.rows, last.rows)
    reused = h.store.manual_verdict(case.id, record.fingerprint)
    if reused is not None:
        return record.model_copy(
            update={"verdict": reused[0], "reason": f"manual verdict reused: {reused[1]}"}
        )
    if h.judge is None:
        return record
    verdict = judge(
        h.judge,
        question=" → ".join(record.turns),
        expected=record.expected,
        got=record.got,
        columns=record.columns,
        sql=record.sql,
        diff=record.diff,
        expected_count=record.expected_count,
        got_count=record.got_count,
    )
    if verdict is None:
        return record.model_copy(
            update={"reason": "different result (the judge gave no usable reply)"}
        )
    update: dict[str, Any] = {"judge_ok": verdict.equivalent, "judge_reason": verdict.reason}
    if verdict.equivalent:
        update |= {
            "in_review": True,
            "reason": "the judge disagrees with the automatic check: in review",
        }
    return record.model_copy(update=update)


def _safe_case(h: Harness, case: Case) -> CaseRecord:
    """run_case; a crash of the pipeline is a wrong answer with its error, not a lost run
    (AssertionError, a broken test script, still propagates)."""
    try:
        return run_case(h, case)
    except AssertionError:
        raise
    except Exception as exc:
        return CaseRecord(
            **_case_fields(case),
            status="failed",
            verdict="wrong",
            auto_ok=False,
            reason=f"crashed: {type(exc).__name__}: {str(exc)[:300]}",
        )


def _service(
    config: RunConfig,
    settings: Settings,
    catalog: Catalog,
    suite: Suite,
    model_factory: ModelFactory | None,
) -> AskService:
    from langgraph.checkpoint.memory import InMemorySaver

    from vitrina.checkpoint import serializer

    llm = client_for(config, settings, model_factory)
    return AskService(
        settings,
        catalog=catalog,
        today=suite.today,
        checkpointer=InMemorySaver(serde=serializer()),
        write_files=False,
        llm=llm,
        use_llm=llm is not None,
        options=config.ask_options(),
    )


def _judge_client(
    config: RunConfig, service: AskService, judge_client: LLMClient | None
) -> LLMClient | None:
    if not config.judge:
        return None
    if judge_client is not None:
        return judge_client
    base = service.llm
    if base is None:
        return None
    return LLMClient(
        base.model, timeout_s=base.timeout_s, max_retries=base.max_retries, backoff_s=base.backoff_s
    )


def run_suite(
    suite: Suite,
    config: RunConfig | None = None,
    *,
    store: EvalStore,
    settings: Settings | None = None,
    db_url: str | None = None,
    catalog: Catalog | None = None,
    model_factory: ModelFactory | None = None,
    judge_client: LLMClient | None = None,
    progress: Progress | None = None,
    matrix_id: str | None = None,
    references: dict[str, Reference] | None = None,
    owner: str = "local",
) -> RunRecord:
    """Run every case of `suite` under `config`, store the run and return it."""
    config = config or RunConfig()
    base = settings or base_settings(suite, db_url)
    run_settings = settings_for(config, base)
    base_catalog = catalog or load_catalog(base.catalog_dir)
    service = _service(
        config, run_settings, catalog_for(config, base_catalog), suite, model_factory
    )
    name = (
        config.name if config.name != "default" else ("llm" if service.llm is not None else "rules")
    )
    run = RunRecord(
        id=uuid.uuid4().hex[:10],
        suite=suite.name,
        config_name=name,
        config=config.model_dump(mode="json", exclude_defaults=True),
        matrix_id=matrix_id,
        owner=owner,
        started_at=now(),
    )
    h = Harness(
        run.id,
        suite,
        config,
        service,
        store,
        _judge_client(config, service, judge_client),
        references if references is not None else {},
    )
    try:
        for n, case in enumerate(suite.cases, start=1):
            run.cases.append(_safe_case(h, case))
            if progress is not None:
                progress(n, len(suite.cases), case.id)
    finally:
        service.close()
    run.finished_at = now()
    store.save_run(run)
    return run


def check_configs(
    configs: list[RunConfig],
    base: Settings,
    catalog: Catalog,
    model_factory: ModelFactory | None = None,
) -> None:
    """Every configuration applied once without running a case (settings, model endpoint,
    catalog additions, an `llm` mode that needs a model), so a bad one fails before any run."""
    for n, config in enumerate(configs):
        try:
            settings = settings_for(config, base)
            catalog_for(config, catalog)
            if config.mode == "llm" and model_factory is None:
                client_for(config, settings)
        except EvalError as exc:
            raise ConfigError(
                exc.detail, index=n, name=config.name, message_ru=exc.message_ru
            ) from exc


def run_matrix(
    suite: Suite,
    configs: list[RunConfig],
    *,
    store: EvalStore,
    settings: Settings | None = None,
    db_url: str | None = None,
    model_factory: ModelFactory | None = None,
    judge_client: LLMClient | None = None,
    progress: Callable[[str], Progress] | None = None,
    owner: str = "local",
) -> tuple[str, list[RunRecord]]:
    """Run `suite` under each configuration; returns the matrix id and the runs (in order)."""
    if not configs:
        raise EvalError(
            "a matrix needs at least one configuration", message_ru="в матрице нет конфигураций"
        )
    base = settings or base_settings(suite, db_url)
    catalog = load_catalog(base.catalog_dir)
    check_configs(configs, base, catalog, model_factory)
    matrix_id = "m" + uuid.uuid4().hex[:9]
    references: dict[str, Reference] = {}
    runs = [
        run_suite(
            suite,
            config,
            store=store,
            settings=base,
            catalog=catalog,
            model_factory=model_factory,
            judge_client=judge_client,
            matrix_id=matrix_id,
            references=references,
            progress=progress(config.name) if progress else None,
            owner=owner,
        )
        for config in configs
    ]
    store.save_matrix(matrix_id, suite.name, [r.id for r in runs], owner=owner)
    return matrix_id, runs
