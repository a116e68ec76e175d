"""Suggested follow-ups from the catalog and answer feedback into the eval review queue:
the real ask service over the demo warehouse, the real app over HTTP (TestClient)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from vitrina.ask.service import AskService
from vitrina.config import load_settings
from vitrina.eval.store import EvalStore

from .helpers import ask, new_thread, new_token
from .test_model_unavailable_notice import TODAY


@pytest.fixture(scope="module")
def service(demo_db: Path, tmp_path_factory: pytest.TempPathFactory):
    home = tmp_path_factory.mktemp("suggest-home")
    settings = load_settings(db_url=f"duckdb:///{demo_db}").with_(home=home)
    svc = AskService(settings, today=TODAY, write_files=False)
    yield svc
    svc.close()


def test_suggestions_are_questions_the_rules_answer(service: AskService) -> None:
    first = service.ask("Сумма платежей в мае 2025", thread_id="s1")
    assert first.status == "answered"
    assert first.suggestions, "an answer over a catalog metric gets follow-ups"
    periods, dims = set(), set()
    for n, question in enumerate(first.suggestions):
        follow = service.ask(question, thread_id=f"s1-{n}")
        assert follow.status == "answered", (question, follow.answer)
        assert follow.topic == first.topic
        periods.add(follow.period["label_ru"])
        dims.add(tuple(follow.columns))
    assert {"апрель 2025", "июнь 2025"} <= periods, "previous and next month"
    assert ("channel", "payment_amount") in dims, "a breakdown the answer did not use"


def test_the_breakdown_is_kept_in_period_suggestions(service: AskService) -> None:
    result = service.ask("Сумма платежей по каналам в мае 2025", thread_id="s5")
    assert "Сумма платежей в разрезе «Канал платежа» за апрель 2025" in result.suggestions
    assert not any(q.endswith("за май 2025") and "Канал" in q for q in result.suggestions), (
        "not the same question"
    )


def test_no_next_period_that_has_not_begun(service: AskService) -> None:
    result = service.ask("Количество платежей в ноябре 2026", thread_id="s2")
    assert result.status == "answered"
    assert any("октябрь 2026" in q for q in result.suggestions)
    assert not any("декабрь 2026" in q for q in result.suggestions), "today is 30.11.2026"


def test_no_breakdown_by_the_column_the_metric_filters(service: AskService) -> None:
    """Payments count only status = 'success': a breakdown by status would count others."""
    result = service.ask("Сумма платежей в 2025 году", thread_id="s3")
    assert result.suggestions and not any("Статус" in q for q in result.suggestions)


def test_refusal_gets_no_suggestions(service: AskService) -> None:
    result = service.ask("Сколько весит слон", thread_id="s4")
    assert result.status != "answered" and result.suggestions == []


def _answered(client: TestClient, headers: dict[str, str]) -> tuple[str, str]:
    thread = new_thread(client, headers)
    events = ask(client, headers, thread, "Количество платежей в 2025 году")
    final = events[-1]
    assert final["type"] == "result" and final["result"]["status"] == "answered"
    assert final["result"]["suggestions"]
    return thread, final["result"]["run_id"]


def test_feedback_lands_in_the_owners_review_queue(client: TestClient) -> None:
    alice, bob = new_token(client, "alice"), new_token(client, "bob")
    thread, run_id = _answered(client, alice)
    resp = client.post(
        f"/api/threads/{thread}/feedback",
        headers=alice,
        json={"run_id": run_id, "rating": "down", "comment": "нужны только B2B клиенты"},
    )
    assert resp.status_code == 200, resp.text
    case_id = resp.json()["case_id"]
    settings = client.app.state.vitrina.settings
    alice_owner = client.app.state.vitrina.store.thread(thread).owner
    store = EvalStore.from_settings(settings)
    try:
        queue = store.open_reviews(owner=alice_owner)
        assert [i.case.case_id for i in queue] == [case_id]
        case = queue[0].case
        assert case.question == "Количество платежей в 2025 году" and case.sql
        assert "rating:down" in case.tags and "нужны только B2B клиенты" in case.reason
        # a verdict in the review closes it; rating again reopens it with the new rating
        store.decide(queue[0].run_id, case_id, "wrong", "confirmed: the user meant B2B")
        assert store.open_reviews(owner=alice_owner) == []
    finally:
        store.close()
    again = client.post(
        f"/api/threads/{thread}/feedback", headers=alice, json={"run_id": run_id, "rating": "up"}
    )
    assert again.status_code == 200
    store = EvalStore.from_settings(settings)
    try:
        queue = store.open_reviews(owner=alice_owner)
        assert len(queue) == 1 and "rating:up" in queue[0].case.tags
    finally:
        store.close()
    # another owner can neither rate this dialog nor see the case
    foreign = client.post(
        f"/api/threads/{thread}/feedback", headers=bob, json={"run_id": run_id, "rating": "down"}
    )
    assert foreign.status_code == 404


@pytest.mark.parametrize(
    "body",
    [
        {"run_id": "nope", "rating": "up"},
        {"run_id": "x/../y", "rating": "up"},
        {"run_id": "abc", "rating": "meh"},
        {"run_id": "abc", "rating": "up", "comment": "x" * 2001},
        {"run_id": "abc", "rating": "up", "extra": 1},
    ],
)
def test_feedback_bad_input(client: TestClient, body: dict) -> None:
    headers = new_token(client)
    thread, _ = _answered(client, headers)
    resp = client.post(f"/api/threads/{thread}/feedback", headers=headers, json=body)
    assert resp.status_code in (404, 422), resp.text
    assert "Traceback" not in resp.text
