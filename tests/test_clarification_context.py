"""A clarification keeps the dialog's context (issue 34, item 6): the reply turn is the
clarified question, not the option's word, and a bare month right after a question about
2025 is that month of 2025 (the dialog's year), not of the current year."""

from __future__ import annotations

QUESTION = "сколько открыто в 2025 году"


def test_reply_keeps_the_question_and_the_next_month_keeps_the_year(make_service) -> None:
    service = make_service()  # today is 2026-11-30: "May" alone would be May 2026
    first = service.ask(QUESTION, thread_id="clarified")
    assert first.status == "clarification"
    assert [o["label"] for o in first.clarification["options"]] == ["Кошельки", "Карты"]
    reply = service.ask("Кошельки", thread_id="clarified")
    assert reply.status == "answered" and reply.topic == "wallets"
    assert reply.question == QUESTION and reply.rewritten_question == QUESTION
    month = service.ask("в мае", thread_id="clarified")
    assert month.status == "answered" and month.topic == "wallets"
    assert month.period["start"] == "2025-05-01" and month.period["end"] == "2025-05-31"
    assert "май 2025" in month.answer


def test_month_after_a_year_question_without_clarification(make_service) -> None:
    service = make_service()
    service.ask("Сумма платежей за 2025 год", thread_id="year")
    month = service.ask("в мае", thread_id="year")
    assert month.status == "answered"
    assert month.period["start"] == "2025-05-01", month.period
