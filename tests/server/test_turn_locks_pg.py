"""Two app instances over one PostgreSQL state receive a message for the same dialog at the
same moment: the dialog's advisory lock lets exactly one turn run, the other message gets
409 `thread_busy` naming the question that runs (issue 38 item 8, decision 168 addendum)."""

from __future__ import annotations

import threading

import pytest

from .helpers import instances_over_postgres, new_thread, new_token, sse_events

pytestmark = pytest.mark.postgres

QUESTIONS = ("Сумма платежей по месяцам в 2025 году", "Сумма платежей по регионам в 2025 году")


def test_one_of_two_messages_at_the_same_moment_runs(pg_url, demo_db, tmp_path, monkeypatch):
    monkeypatch.setenv("VITRINA_HOME", str(tmp_path / "home"))
    gate = threading.Event()  # a turn waits at its second step until the refusal is seen
    started: list[str] = []
    with instances_over_postgres(pg_url, demo_db, gate, (True, True), started=started) as clients:
        auth = new_token(clients[0])
        thread_id = new_thread(clients[0], auth)
        barrier = threading.Barrier(2)
        answers: list = [None, None]

        def send(i: int) -> None:
            barrier.wait(10)
            answers[i] = clients[i].post(
                f"/api/threads/{thread_id}/messages", json={"text": QUESTIONS[i]}, headers=auth
            )

        senders = [threading.Thread(target=send, args=(i,), daemon=True) for i in range(2)]
        for sender in senders:
            sender.start()
        refused = None
        for _ in range(600):  # the refusal comes while the other turn waits at the gate
            refused = next((a for a in answers if a is not None and a.status_code == 409), None)
            if refused is not None or all(a is not None for a in answers):
                break
            threading.Event().wait(0.05)
        gate.set()
        for sender in senders:
            sender.join(60)
        assert sorted(a.status_code for a in answers) == [200, 409], [a.text for a in answers]
        ran = next(i for i in range(2) if answers[i].status_code == 200)
        error = answers[1 - ran].json()["error"]
        assert error["code"] == "thread_busy"
        assert QUESTIONS[ran] in error["message_ru"] and QUESTIONS[ran] in error["message"]
        assert started == [QUESTIONS[ran]]  # exactly one turn ran
        assert sse_events(answers[ran].text)[-1]["type"] == "result"
        # the lock went with the turn: the next message is answered on either instance
        again = clients[1 - ran].post(
            f"/api/threads/{thread_id}/messages", json={"text": QUESTIONS[1 - ran]}, headers=auth
        )
        assert again.status_code == 200 and sse_events(again.text)[-1]["type"] == "result"


def test_turns_past_the_threads_queue_not_refused(pg_url, demo_db, tmp_path, monkeypatch):
    """Twelve dialogs at once on one process of 8 threads: 8 run, 4 wait their turn, none is
    refused. A lock per turn on a connection of its own bounded a process to min(threads + 2,
    10) turns: the rest got 503 (94% of messages at 32 clients on 3 processes; decision 212)."""
    monkeypatch.setenv("VITRINA_HOME", str(tmp_path / "home"))
    gate = threading.Event()
    started: list[str] = []
    with instances_over_postgres(pg_url, demo_db, gate, (True,), started=started) as (client,):
        auth = new_token(client)
        threads = [new_thread(client, auth) for _ in range(12)]
        answers: list = [None] * len(threads)

        def send(i: int) -> None:
            answers[i] = client.post(
                f"/api/threads/{threads[i]}/messages", json={"text": QUESTIONS[0]}, headers=auth
            )

        senders = [threading.Thread(target=send, args=(i,), daemon=True) for i in range(12)]
        for sender in senders:
            sender.start()
        for _ in range(600):  # 8 turns at the gate; a refusal would have come back by then
            if len(started) >= 8:
                break
            threading.Event().wait(0.05)
        threading.Event().wait(0.5)
        refused = [a.status_code for a in answers if a is not None]
        gate.set()
        for sender in senders:
            sender.join(120)
        assert refused == [], refused
        assert [a.status_code for a in answers] == [200] * 12
        assert all(sse_events(a.text)[-1]["type"] == "result" for a in answers)


def test_a_turn_lock_of_a_dead_process_is_free(pg_url):
    """The store's lock of a dialog whose process died (its backend terminated) is taken."""
    import psycopg

    from vitrina.config import load_settings
    from vitrina.server.store import Store, sqlalchemy_url
    from vitrina.server.turns import turn_locks

    url = sqlalchemy_url(load_settings(state_url=pg_url))
    one, two = Store(url), Store(url)
    try:
        mine, theirs = turn_locks(one), turn_locks(two)
        assert mine is not None and theirs is not None
        held = mine.try_hold("turn", "dialog-dead")
        assert held is not None and theirs.try_hold("turn", "dialog-dead") is None
        with psycopg.connect(pg_url, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (held.backend_pid,))
        taken = None
        for _ in range(50):
            taken = theirs.try_hold("turn", "dialog-dead")
            if taken is not None:
                break
            threading.Event().wait(0.05)
        assert taken is not None
        held.release()  # logged, its connection dropped from the pool
        taken.release()
    finally:
        one.close()
        two.close()
