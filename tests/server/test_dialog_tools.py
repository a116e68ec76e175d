"""The API under the web app's new flows: the supervisor in the chat, durations kept with the
dialog, rename and delete, a task's files as downloads (by index, never a client path)."""

from __future__ import annotations

from .helpers import ask, new_thread, new_token

COMPOUND = (
    "Сравни открытия кошельков за 3 квартал 2026 с прошлым годом по регионам, "
    "найди где падение и сделай прогноз на следующий квартал"
)


def test_a_data_question_keeps_its_step_durations(client, auth):
    thread = new_thread(client, auth)
    events = ask(client, auth, thread, "Сумма платежей по месяцам в 2025 году")
    live = [(e["step"], e["ms"]) for e in events if e["type"] == "step"]
    assert events[-1]["result"]["kind"] == "ask" and len(live) >= 10
    turn = client.get(f"/api/threads/{thread}", headers=auth).json()["turns"][0]
    assert [(s["step"], s["ms"]) for s in turn["steps"]] == live


def test_a_compound_request_starts_a_task_not_an_answer(client, auth):
    thread = new_thread(client, auth)
    result = ask(client, auth, thread, COMPOUND)[-1]["result"]
    assert result["kind"] == "route" and result["status"] == "task" and result["task_id"]
    task = client.get(f"/api/tasks/{result['task_id']}", headers=auth)
    assert task.status_code == 200 and task.json()["request"] == COMPOUND
    turns = client.get(f"/api/threads/{thread}", headers=auth).json()["turns"]
    assert [t["kind"] for t in turns] == ["route"] and turns[0]["task_id"] == result["task_id"]


def test_the_task_prefix_is_not_part_of_the_task(client, auth):
    thread = new_thread(client, auth)
    result = ask(client, auth, thread, "Задача: " + COMPOUND)[-1]["result"]
    assert result["status"] == "task" and result["task_id"]
    task = client.get(f"/api/tasks/{result['task_id']}", headers=auth).json()
    assert task["request"] == COMPOUND  # "Задача:" chose the role; the task is the rest


def test_a_metadata_search_goes_to_its_role_and_a_clarification_reply_to_ask(client, auth):
    thread = new_thread(client, auth)
    routed = ask(client, auth, thread, "В каких таблицах хранятся платежи?")[-1]["result"]
    assert routed["kind"] == "route" and routed["role"] == "metadata" and routed["answer_html"]
    assert "<script" not in routed["answer_html"]
    clarify = ask(client, auth, thread, "Сколько открыли в мае 2025?")[-1]["result"]
    assert clarify["status"] == "clarification"
    reply = ask(client, auth, thread, "1")[-1][
        "result"
    ]  # "1" matches no rule: still the pending question
    assert reply["kind"] == "ask" and reply["status"] == "answered"
    kinds = [t["kind"] for t in client.get(f"/api/threads/{thread}", headers=auth).json()["turns"]]
    assert kinds == ["route", "ask", "ask"]


def test_rename_and_delete_a_dialog_only_by_its_owner(client, auth):
    thread = new_thread(client, auth)
    ask(client, auth, thread, "Сумма платежей по месяцам в 2025 году")
    other = new_token(client, "other")
    assert (
        client.patch(f"/api/threads/{thread}", json={"title": "x"}, headers=other).status_code
        == 404
    )
    assert client.delete(f"/api/threads/{thread}", headers=other).status_code == 404
    assert (
        client.patch(f"/api/threads/{thread}", json={"title": "   "}, headers=auth).status_code
        == 422
    )
    renamed = client.patch(f"/api/threads/{thread}", json={"title": "Платежи 2025"}, headers=auth)
    assert renamed.status_code == 200 and renamed.json()["title"] == "Платежи 2025"
    assert client.delete(f"/api/threads/{thread}", headers=auth).json()["status"] == "deleted"
    assert client.get(f"/api/threads/{thread}", headers=auth).status_code == 404
    assert [t["id"] for t in client.get("/api/threads", headers=auth).json()] == []
    service = client.app.state.vitrina.service
    assert not list(service.graph.get_state_history({"configurable": {"thread_id": thread}}))


def test_task_files_are_downloads_by_index(client, auth):
    import time

    start = client.post(
        "/api/tasks", json={"request": "Сумма платежей по регионам за 3 квартал 2026"}, headers=auth
    )
    task_id = start.json()["task_id"]
    task = {}
    for _ in range(40):  # approve the plan and each step (bounded)
        time.sleep(0.5)
        task = client.get(f"/api/tasks/{task_id}", headers=auth).json()
        if task["status"] == "done" or task["running"]:
            continue
        if task["pending"]:
            client.post(f"/api/tasks/{task_id}/decision", json={"action": "approve"}, headers=auth)
        if task["status"] == "done":
            break
    assert task["status"] == "done", task["status"]
    assert "out_dir" not in task and task["summary_html"].startswith("<h1>")
    assert "Файлы" not in task["summary_html"]  # the file list is links, not server paths
    links = task["downloads"]
    assert links and all(link["url"].startswith(f"/api/tasks/{task_id}/files/") for link in links)
    got = client.get(links[0]["url"], headers=auth)
    assert (
        got.status_code == 200
        and got.content
        and "attachment" in got.headers["content-disposition"]
    )
    assert client.get(links[0]["url"]).status_code == 401  # behind the token like the rest
    for bad in (str(len(links)), "-1", "..%2F..%2Fetc%2Fpasswd", "0.5"):
        assert client.get(f"/api/tasks/{task_id}/files/{bad}", headers=auth).status_code in (
            404,
            422,
        ), bad
