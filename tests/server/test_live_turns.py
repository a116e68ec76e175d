"""Turns that survive the page (issue 34, item 2): a turn in flight is in the dialog's
detail and can be followed from the store (replayed, then to its end) by a reload or a
second tab; a second message meanwhile is refused in words, naming the question."""

from __future__ import annotations

import json
import threading
import time

import pytest

from vitrina.server import ServeOptions, create_app

from .helpers import hold_turns, instances_over_postgres, new_thread, new_token, sse_events

QUESTION = "Сумма платежей по месяцам в 2025 году"


@pytest.fixture
def gated(make_service):
    """A client over the real app whose turns wait at their second step until `gate` opens."""
    from fastapi.testclient import TestClient

    service = make_service(write_files=False)
    gate = threading.Event()
    hold_turns(service, gate)
    app = create_app(service.settings, ServeOptions(), service=service)
    with TestClient(app, raise_server_exceptions=False) as client:
        client.gate = gate
        try:
            yield client
        finally:
            gate.set()


def _in_background(fn):
    out: dict = {}
    worker = threading.Thread(target=lambda: out.setdefault("value", fn()), daemon=True)
    worker.start()
    return worker, out


def _wait_live(client, auth, thread_id):
    for _ in range(200):
        detail = client.get(f"/api/threads/{thread_id}", headers=auth).json()
        if detail["live"]:
            return detail
        time.sleep(0.05)
    raise AssertionError("the turn never showed as live")


def test_a_turn_in_flight_is_seen_and_followed_to_its_end(gated):
    auth = new_token(gated)
    thread_id = new_thread(gated, auth)
    asker, asked = _in_background(
        lambda: gated.post(
            f"/api/threads/{thread_id}/messages", json={"text": QUESTION}, headers=auth
        )
    )
    detail = _wait_live(gated, auth, thread_id)
    assert detail["live"]["question"] == QUESTION
    assert detail["title"] == QUESTION  # the sidebar names it while it runs
    assert detail["turns"] == []

    busy = gated.post(f"/api/threads/{thread_id}/messages", json={"text": "ещё"}, headers=auth)
    assert busy.status_code == 409
    error = busy.json()["error"]
    assert error["code"] == "thread_busy"
    assert QUESTION in error["message_ru"] and "текст сохранён" in error["message_ru"]

    follower, followed = _in_background(
        lambda: gated.get(f"/api/threads/{thread_id}/live", headers=auth)
    )
    time.sleep(0.5)
    gated.gate.set()
    asker.join(60)
    follower.join(60)
    live = sse_events(followed["value"].text)
    direct = sse_events(asked["value"].text)
    assert live[0] == {"type": "turn", "turn_id": live[0]["turn_id"], "question": QUESTION}
    steps = [e["step"] for e in live if e["type"] == "step"]
    assert steps == [e["step"] for e in direct if e["type"] == "step"]
    assert live[-2] == {"type": "result", "run_id": direct[-1]["run_id"], "kind": "ask"}
    assert live[-1] == {"type": "done"}
    ids = [line for line in followed["value"].text.splitlines() if line.startswith("id:")]
    assert len(ids) == len(live)

    detail = gated.get(f"/api/threads/{thread_id}", headers=auth).json()
    assert detail["live"] is None and detail["turns"][-1]["status"] == "answered"
    # a follower that comes late, resuming after the last id it saw, gets only the rest
    resumed = gated.get(f"/api/threads/{thread_id}/live?after={len(live) - 2}", headers=auth)
    assert sse_events(resumed.text) == [{"type": "done"}]
    idle = gated.get(f"/api/threads/{thread_id}/live?after={len(live) - 1}", headers=auth)
    assert sse_events(idle.text) == [{"type": "idle"}]


def test_another_token_cannot_follow(gated):
    gated.gate.set()
    auth = new_token(gated)
    thread_id = new_thread(gated, auth)
    other = new_token(gated, "someone else")
    resp = gated.get(f"/api/threads/{thread_id}/live", headers=other)
    assert resp.status_code == 404 and "не найден" in resp.json()["error"]["message_ru"]
    fresh = gated.get(f"/api/threads/{thread_id}/live", headers=auth)
    assert sse_events(fresh.text) == [{"type": "idle"}]


def test_a_turn_whose_process_died_is_gone_within_a_minute(tmp_path, monkeypatch):
    """A running turn beats; one that stops beating (its process died) is no longer "busy",
    and a follower is told in words that it stopped."""
    import asyncio

    from vitrina.server import live as live_module
    from vitrina.server.store import Store

    monkeypatch.setattr(live_module, "HEARTBEAT_S", 0.1)
    monkeypatch.setattr(live_module, "STALE_S", 0.5)
    monkeypatch.setattr(live_module, "POLL_S", 0.05)
    store = Store(f"sqlite:///{tmp_path / 'state.sqlite'}")
    log = live_module.LiveLog(store)
    try:
        log.begin("t1", "вопрос")
        time.sleep(1.0)  # twice STALE_S: alive only through its beats
        running = log.running("t1")
        assert running is not None and running.question == "вопрос"
        log.close()  # the process "dies": no beat, no end
        time.sleep(0.8)
        assert log.running("t1") is None

        async def read():
            return [e.data async for e in live_module.follow(log, "t1", 0)]

        events = [json.loads(d) for d in asyncio.run(read())]
        assert events[-1]["type"] == "error" and "прервался" in events[-1]["error"]["message_ru"]
        assert {e["type"] for e in events[:-1]} == {"beat"}
    finally:
        log.close()
        store.close()


def test_a_beat_taken_up_as_the_turn_ends_does_not_make_it_run_again(tmp_path):
    """The heartbeat takes the turns running here, then writes a beat to each; a turn that
    ended in between stays ended (a beat after its `done` made it "running" for STALE_S)."""
    from vitrina.server import live as live_module
    from vitrina.server.store import Store

    store = Store(f"sqlite:///{tmp_path / 'state.sqlite'}")
    log = live_module.LiveLog(store)
    try:
        turn = log.begin("t1", "вопрос")
        turn.finish()
        turn.add({"type": "beat"})  # the heartbeat's write, after the end
        state = log.current("t1")
        assert state is not None and state.done and log.running("t1") is None
        assert [e["type"] for _, e in log.events(state.turn_id, 0)] == ["done"]
    finally:
        log.close()
        store.close()


@pytest.mark.postgres
def test_two_processes_over_one_postgresql_share_the_turn(pg_url, demo_db, tmp_path, monkeypatch):
    """Two app instances (as two `--workers`) over one PostgreSQL state: a turn running on
    one is busy on the other (409 in words) and is followed from the other to its end."""
    monkeypatch.setenv("VITRINA_HOME", str(tmp_path / "home"))
    gate = threading.Event()
    with instances_over_postgres(pg_url, demo_db, gate, (True, False)) as clients:
        one, other = clients
        auth = new_token(one)
        thread_id = new_thread(one, auth)
        asker, asked = _in_background(
            lambda: one.post(
                f"/api/threads/{thread_id}/messages", json={"text": QUESTION}, headers=auth
            )
        )
        assert _wait_live(other, auth, thread_id)["live"]["question"] == QUESTION
        busy = other.post(f"/api/threads/{thread_id}/messages", json={"text": "ещё"}, headers=auth)
        assert busy.status_code == 409 and QUESTION in busy.json()["error"]["message_ru"]
        follower, followed = _in_background(
            lambda: other.get(f"/api/threads/{thread_id}/live", headers=auth)
        )
        time.sleep(0.5)
        gate.set()
        asker.join(60)
        follower.join(60)
        live = sse_events(followed["value"].text)
        assert live[0]["question"] == QUESTION and live[-1] == {"type": "done"}
        assert live[-2]["run_id"] == sse_events(asked["value"].text)[-1]["run_id"]
        detail = other.get(f"/api/threads/{thread_id}", headers=auth).json()
        assert detail["live"] is None and detail["turns"][-1]["status"] == "answered"
