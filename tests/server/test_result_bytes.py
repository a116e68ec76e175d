"""Byte budgets of the HTTP API (decision 146), through the real app: long text cells are cut
in the streamed result and in the dialog read back (the Excel download keeps them whole), and
while one token's query runs the other tokens are answered."""

from __future__ import annotations

import io
import threading
import time

import openpyxl
from fastapi.testclient import TestClient

from .helpers import ask, new_thread, new_token, sse_events

QUESTION = "Сумма платежей по регионам за 3 квартал 2026"
SLOW = (
    "SELECT max(r.region_name || m.merchant_name || k.month_name || p.payment_id::varchar) AS s "
    "FROM dwh.dim_region AS r CROSS JOIN dwh.dim_merchant AS m CROSS JOIN dwh.dim_calendar AS k "
    "CROSS JOIN dwh.fact_payment AS p"
)


def test_long_cells_are_cut_in_replies_and_whole_in_excel(make_client, long_names_db):
    client = make_client(f"duckdb:///{long_names_db}", settings={"result_cell_max_chars": 300})
    auth = new_token(client)
    thread = new_thread(client, auth)
    result = ask(client, auth, thread, QUESTION)[-1]["result"]
    assert result["status"] == "answered" and result["row_count"] == 12
    names = [row[0] for row in result["rows"]]
    assert all(n.endswith(" chars)") and "… (cut: " in n and len(n) < 400 for n in names)
    table_cells = [row[0] for row in result["table"]["rows"]]
    assert all("… (cut: " in cell for cell in table_cells)
    assert result["cells_cut"] == len(names) + len(table_cells)
    detail = client.get(f"/api/threads/{thread}", headers=auth).json()
    turn = detail["turns"][-1]
    assert turn["cells_cut"] == len(table_cells)
    assert all(len(row[0]) < 400 for row in turn["table"]["rows"])
    excel = client.get(f"/api/runs/{result['run_id']}/excel", headers=auth)
    sheet = openpyxl.load_workbook(io.BytesIO(excel.content)).active
    whole = [c.value for c in sheet["A"][1:] if isinstance(c.value, str)]
    assert len(whole) == 12 and all(len(v) > 10_000 for v in whole)


def _wait(client: TestClient, auth: dict, task_id: str, status: str) -> dict:
    for _ in range(600):  # a bounded wait for the task's pool to reach the state
        view = client.get(f"/api/tasks/{task_id}", headers=auth).json()
        if view["status"] == status and not view["running"]:
            return view
        time.sleep(0.05)
    raise AssertionError(f"task {task_id} never reached {status}: {view['status']}")


def test_other_tokens_are_answered_while_a_query_runs(make_client, monkeypatch):
    """One token's task step runs a four-way cross join (stopped by the timeout) while
    its event stream is open; another token's requests are all answered before it ends."""
    monkeypatch.setenv("VITRINA_STATEMENT_TIMEOUT_S", "4")
    client = make_client()
    owner, other = new_token(client, "owner"), new_token(client, "other")
    task_id = client.post(
        "/api/tasks", json={"request": "Посчитай всё по регионам"}, headers=owner
    ).json()["task_id"]
    _wait(client, owner, task_id, "awaiting_plan")
    edit = {
        "action": "edit",
        "steps": [{"title": "Тяжёлый", "tool": "run_sql", "args": {"sql": SLOW}}],
    }
    assert (
        client.post(f"/api/tasks/{task_id}/decision", json=edit, headers=owner).status_code == 202
    )
    _wait(client, owner, task_id, "awaiting_plan")
    done: list[str] = []
    events: list[dict] = []

    def heavy() -> None:
        approve = {"action": "approve"}
        client.post(f"/api/tasks/{task_id}/decision", json=approve, headers=owner)
        stream = client.get(f"/api/tasks/{task_id}/events?after=0", headers=owner)
        events.extend(sse_events(stream.text))
        done.append("heavy")

    worker = threading.Thread(target=heavy)
    worker.start()
    for _ in range(500):  # a bounded wait for the step to start: its query runs from then on
        if _running(client, owner, task_id):
            break
        time.sleep(0.02)
    else:
        raise AssertionError("the approved step never started")
    light = [
        client.get("/healthz"),
        client.get("/api/threads", headers=other),
        client.post("/api/threads", json={}, headers=other),
        client.get("/api/catalog/topics", headers=other),
    ]
    done.append("light")
    worker.join(timeout=120)
    assert done == ["light", "heavy"]
    assert all(r.status_code == 200 for r in light), [r.text for r in light]
    assert events[-1]["node"] == "idle"
    view = client.get(f"/api/tasks/{task_id}", headers=owner).json()
    assert "longer than 4 s" in (view["pending"] or {}).get("error", ""), view["pending"]


def _running(client: TestClient, auth: dict, task_id: str) -> bool:
    return bool(client.get(f"/api/tasks/{task_id}", headers=auth).json()["running"])
