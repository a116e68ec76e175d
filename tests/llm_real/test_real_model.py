"""A real small model behind every job: bounded in time, never worse than rules.

gemma-3-270m (a base model, not instruction-tuned) in llama-cpp-python's JSON mode is the
rambling model of issue 20: it keeps adding keys until max_tokens, so replies are cut and
repaired, and the turn budget ends the model's part of a turn. Asserted for each job:
- no turn takes longer than the turn budget plus the rules' own time (plus a slack for a
  loaded machine: one request's deadline can start just before the budget ends);
- an answer the rules produced equals the `--no-llm` answer; anything else is an answer
  that passed the checks, a clarification or an honest refusal, and is counted.
"""

from __future__ import annotations

import time
from pathlib import Path

from vitrina.llm import build_client

from .conftest import TURN_BUDGET_S, record

SLACK_S = 5.0
QUESTIONS = [
    "Сумма платежей по картам в мае 2025",
    "Сколько клиентов в каждом регионе?",
    "Total payments by region in 2025",
    "Какая доля платежей приходится на Москву?",
]


def _answer(result) -> tuple:
    return (result.status, result.sql, result.answer, result.rows)


def test_config_sees_a_single_model_server_under_any_name(real_settings) -> None:
    from vitrina.llm.check import check_endpoint

    verdict = check_endpoint(real_settings(llm_model="any-name-at-all"), timeout_s=30)
    assert verdict.status == "ok", verdict.message
    assert (
        verdict.server == "llama-cpp-python server" and "answers under any name" in verdict.message
    )
    record("config", {"status": verdict.status, "message": verdict.message})


def test_ask_turns_are_bounded_and_fall_back_to_the_rules(real_settings, demo_db: Path) -> None:
    from vitrina.ask import AskService

    settings = real_settings(db_url=f"duckdb:///{demo_db}")
    rules = AskService(settings, write_files=False, use_llm=False)
    model = AskService(settings, write_files=False, llm=build_client(settings))
    rows = []
    try:
        for n, question in enumerate(QUESTIONS):
            start = time.perf_counter()
            expected = rules.ask(question, thread_id=f"r{n}")
            rules_s = time.perf_counter() - start
            start = time.perf_counter()
            got = model.ask(question, thread_id=f"m{n}")
            turn_s = time.perf_counter() - start
            same = _answer(got) == _answer(expected)
            usage = got.llm_usage
            rows.append(
                {
                    "question": question,
                    "rules_s": round(rules_s, 2),
                    "turn_s": round(turn_s, 2),
                    "status": got.status,
                    "sql_source": got.sql_source,
                    "same_as_rules": same,
                    "calls": usage["calls"],
                    "repairs": usage["repairs"],
                    "cut": usage["cut"],
                    "early_stops": usage["early_stops"],
                    "failures": usage["failures"],
                    "skipped": usage["skipped"],
                    "down": usage["down"],
                }
            )
            record("ask", rows)
            assert turn_s <= TURN_BUDGET_S + rules_s + SLACK_S, rows[-1]
            if got.sql_source == "rules" and got.status == expected.status == "answered":
                assert got.rows == expected.rows, (
                    "the rule plan's numbers never change with a model"
                )
            if not same:  # the model's own answer is still a whole one, never a bare status
                if got.status == "answered":
                    assert got.sql and got.columns and got.answer, rows[-1]
                else:
                    assert got.answer or got.clarification, rows[-1]
    finally:
        rules.close()
        model.close()


def test_route_decides_within_the_budget(real_settings, demo_db: Path) -> None:
    from vitrina.ask import AskService
    from vitrina.route import RouteService
    from vitrina.route.state import INTENTS

    settings = real_settings(db_url=f"duckdb:///{demo_db}")
    ask = AskService(settings, write_files=False, llm=build_client(settings))
    service = RouteService(ask_service=ask, write_files=False)
    try:
        start = time.perf_counter()
        result = service.handle("выручка москва")  # no rule matches: the model slot decides
        turn_s = time.perf_counter() - start
    finally:
        service.close()
    record(
        "route",
        {
            "intent": result.intent,
            "status": result.status,
            "turn_s": round(turn_s, 2),
            "llm_usage": {k: result.llm_usage.get(k) for k in ("calls", "repairs", "cut", "down")},
        },
    )
    assert result.intent in INTENTS
    assert turn_s <= 2 * TURN_BUDGET_S + SLACK_S + 30, (
        "the route turn, then the ask turn it hands to"
    )


def test_task_plan_with_a_failing_model_is_the_rule_template(real_settings, demo_db: Path) -> None:
    from vitrina.task import TaskService

    request = "Сравни сумму платежей по регионам за 2025 с прошлым годом и найди, где падение"
    settings = real_settings(db_url=f"duckdb:///{demo_db}")
    rules = TaskService(settings, use_llm=False)
    model = TaskService(settings, llm=build_client(settings))
    try:
        expected = rules.start(request)
        start = time.perf_counter()
        got = model.start(request)
        turn_s = time.perf_counter() - start
    finally:
        rules.close()
        model.close()
    record(
        "task",
        {
            "plan_source": got.plan_source,
            "steps": len(got.plan),
            "turn_s": round(turn_s, 2),
            "llm_usage": {k: got.llm_usage.get(k) for k in ("calls", "repairs", "cut", "down")},
        },
    )
    assert turn_s <= TURN_BUDGET_S + SLACK_S
    if got.plan_source == "template":
        assert [(s.title, s.tool) for s in got.plan] == [(s.title, s.tool) for s in expected.plan]


def test_docs_model_slots_are_bounded_per_measure(real_settings, tmp_path: Path) -> None:
    from vitrina.docs import make_request, run_docs
    from vitrina.docs.llm import measure_list_llm, wording_explainer
    from vitrina.llm.accounting import calls_summary

    fixtures = Path(__file__).parents[1] / "docs" / "fixtures"
    listing = tmp_path / "measures.md"
    listing.write_text(
        "Sales: Total Amount and [Average Price]\n# Stock\n## [Total Quantity]\n", encoding="utf-8"
    )
    settings = real_settings()
    client = build_client(settings)
    request = make_request(
        fixtures / "small.bim", [fixtures / "sql"], measures_file=listing, out=tmp_path / "out"
    )
    start = time.perf_counter()
    report = run_docs(
        request,
        settings=settings,
        explain=wording_explainer(client),
        list_llm=measure_list_llm(client),
    )
    usage = calls_summary(client.calls)
    seconds = time.perf_counter() - start
    slots = 1 + len(report.processed)  # the list, then one explanation per measure
    record(
        "docs",
        {
            "processed": report.processed,
            "missed": [m["measure"] for m in report.missed],
            "seconds": round(seconds, 2),
            "llm_usage": {
                k: usage.get(k) for k in ("calls", "failures", "repairs", "cut", "early_stops")
            },
        },
    )
    assert seconds <= slots * (TURN_BUDGET_S + SLACK_S)
    assert report.processed, "the regex parser (or the model) found the measures"


def test_short_prompts_ramble_to_max_tokens_and_are_repaired_or_dropped(real_settings) -> None:
    """Short prompts, so that the model's time goes to its reply: in JSON mode it keeps
    writing until max_tokens; each slot is then cut, asked once for a shorter answer, and
    either parsed or dropped, within the turn's budget."""
    from pydantic import BaseModel

    class Color(BaseModel):
        color: str

    client = build_client(real_settings(llm_max_tokens={"color": 48}))
    assert client is not None
    rows = []
    for prompt in ("Name one colour.", "Назови один цвет.", "What colour is the sky?"):
        turn = client.turn()
        start = time.perf_counter()
        reply = turn.structured("color", prompt, Color)
        seconds = time.perf_counter() - start
        usage = turn.usage()
        rows.append(
            {
                "prompt": prompt,
                "seconds": round(seconds, 2),
                "ok": reply.ok,
                "repaired": reply.repaired,
                "calls": usage["calls"],
                "cut": usage["cut"],
                "early_stops": usage["early_stops"],
                "tokens": usage["completion_tokens"],
                "request_ms": [c.latency_ms for c in turn.calls],  # vs seconds: time spent outside
                "error": reply.error,
            }
        )
        record("rambling", rows)
        assert seconds <= TURN_BUDGET_S + SLACK_S
        assert all(c.completion_tokens <= 48 + 2 for c in turn.calls), (
            "max_tokens reached the server"
        )
