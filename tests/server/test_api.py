"""Every endpoint through the real app: dialogs, the SSE stream, runs, catalog, docs, health."""

from __future__ import annotations

import io

import openpyxl

from .helpers import ask, new_thread, new_token

QUESTION = "Сумма платежей по месяцам в 2025 году"


def test_health_and_ready(client):
    assert client.get("/healthz").json() == {"status": "ok"}
    ready = client.get("/readyz")
    assert ready.status_code == 200
    assert ready.json()["checks"] == {"warehouse": "ok", "checkpointer": "ok", "store": "ok"}


def test_readyz_reports_an_unreachable_warehouse(client, tmp_path):
    from vitrina.warehouse import Warehouse

    client.app.state.vitrina.service.warehouse = Warehouse(f"duckdb:///{tmp_path / 'gone.duckdb'}")
    ready = client.get("/readyz")
    assert ready.status_code == 503
    body = ready.json()["error"]
    assert body["code"] == "not_ready" and body["checks"]["warehouse"].startswith("error")


def test_openapi_lists_every_api_route(client):
    from vitrina.server.routes import ROUTES

    paths = client.get("/openapi.json").json()["paths"]
    for route in ROUTES:
        if route.api:
            assert route.method.lower() in paths[route.path], route.path
    assert (
        client.get("/docs").headers["content-type"].startswith("text/html")
    )  # our page, not Swagger's


def test_info_is_public(client):
    info = client.get("/api/info").json()
    assert info["auth"] is True and set(info["vendor"]) == {"chartjs", "mermaid"}


def test_a_question_streams_steps_then_the_result(client, auth):
    thread = new_thread(client, auth, segment="auto")
    events = ask(client, auth, thread, QUESTION)
    steps = [e for e in events if e["type"] == "step"]
    assert [s["step"] for s in steps][:2] == ["start_turn", "resolve_context"]
    assert {"generate_sql", "guard_sql", "execute", "answer"} <= {s["step"] for s in steps}
    assert all(isinstance(s["ms"], (int, float)) and s["ms"] >= 0 for s in steps)
    assert any(s["trace"] and s["trace"][0]["node"] == s["step"] for s in steps)
    final = events[-1]
    assert final["type"] == "result" and final["thread_id"] == thread
    result = final["result"]
    assert result["status"] == "answered" and final["run_id"] == result["run_id"]
    assert result["row_count"] == 12 and len(result["rows"]) == 12
    assert result["chart"]["type"] == "line" and result["table"]["total"] == 12
    assert result["excel_url"] == f"/api/runs/{final['run_id']}/excel"
    assert "excel" not in result and "chart_png" not in result  # no server paths leak


def test_dialog_history_keeps_every_turn(client, auth):
    thread = new_thread(client, auth)
    ask(client, auth, thread, "Сколько кошельков открыли в мае 2025?")
    ask(client, auth, thread, "а в декабре?")
    body = client.get(f"/api/threads/{thread}", headers=auth).json()
    assert body["title"] == "Сколько кошельков открыли в мае 2025?"
    turns = body["turns"]
    assert [t["status"] for t in turns] == ["answered", "answered"]
    assert "декабр" in turns[1]["rewritten_question"]
    assert turns[1]["sql"] and turns[1]["chart"] and turns[1]["trace"]
    assert turns[0]["run_id"] != turns[1]["run_id"]
    listed = client.get("/api/threads", headers=auth).json()
    assert [t["id"] for t in listed] == [thread]


def test_a_clarification_is_answered_on_the_same_dialog(client, auth):
    thread = new_thread(client, auth)
    events = ask(client, auth, thread, "Сколько открыли в мае 2025?")
    result = events[-1]["result"]
    assert result["status"] == "clarification"
    labels = [o["label"] for o in result["clarification"]["options"]]
    assert len(labels) >= 2
    pending = client.get(f"/api/threads/{thread}", headers=auth).json()["pending_clarification"]
    assert pending["options"] == result["clarification"]["options"]
    answered = ask(client, auth, thread, labels[0])[-1]["result"]
    assert answered["status"] == "answered"
    body = client.get(f"/api/threads/{thread}", headers=auth).json()
    assert [t["status"] for t in body["turns"]] == ["clarification", "answered"]
    assert body["pending_clarification"] is None


def test_run_files_excel_chart_and_png(client, auth):
    thread = new_thread(client, auth)
    run_id = ask(client, auth, thread, QUESTION)[-1]["run_id"]
    run_dir = client.app.state.vitrina.settings.outputs_dir / run_id
    assert not run_dir.exists(), "answering writes no file: the files are made on download"
    excel = client.get(f"/api/runs/{run_id}/excel", headers=auth)
    assert excel.status_code == 200
    sheet = openpyxl.load_workbook(io.BytesIO(excel.content)).active
    assert sheet.max_row == 13  # header + 12 months
    chart = client.get(f"/api/runs/{run_id}/chart", headers=auth).json()
    assert chart["type"] == "line" and len(chart["data"]["labels"]) == 12
    png = client.get(f"/api/runs/{run_id}/chart.png", headers=auth)
    assert png.headers["content-type"] == "image/png" and png.content[:8] == b"\x89PNG\r\n\x1a\n"
    missing = client.get("/api/runs/nope/excel", headers=auth)
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "run_not_found"
    assert sorted(p.name for p in run_dir.iterdir()) == [
        "chart.png",
        "result.xlsx",
    ]  # no temporary left


def test_a_download_is_made_once_and_reused(client, auth):
    thread = new_thread(client, auth)
    run_id = ask(client, auth, thread, QUESTION)[-1]["run_id"]
    first = client.get(f"/api/runs/{run_id}/chart.png", headers=auth)
    path = client.app.state.vitrina.settings.outputs_dir / run_id / "chart.png"
    path.write_bytes(first.content + b"cached")  # a second download serves the stored file
    again = client.get(f"/api/runs/{run_id}/chart.png", headers=auth)
    assert again.content == first.content + b"cached"


def test_an_older_run_of_a_dialog_is_still_downloadable(client, auth):
    thread = new_thread(client, auth)
    first = ask(client, auth, thread, "Сколько кошельков открыли в мае 2025?")[-1]["run_id"]
    ask(client, auth, thread, "а в декабре?")
    excel = client.get(f"/api/runs/{first}/excel", headers=auth)
    assert excel.status_code == 200
    sheet = openpyxl.load_workbook(io.BytesIO(excel.content)).active
    assert sheet.max_row == 2 and sheet.cell(2, 1).value == 2142  # May's figure, not December's


def test_a_refusal_has_no_files(client, auth):
    thread = new_thread(client, auth)
    result = ask(client, auth, thread, "Сколько ипотек выдали в 2025 году?")[-1]["result"]
    assert result["status"] == "refused" and "«ипотека»" in result["answer"]  # names it
    assert result["excel_url"] is None and result["rows"] == []


def test_dialog_options_segment_and_topics(client, auth):
    topics = client.get("/api/catalog/topics", headers=auth).json()
    ids = {t["id"] for t in topics}
    assert {"payments", "wallets", "cards"} <= ids
    assert all(t["name_ru"] and t["name_en"] for t in topics)
    thread = new_thread(client, auth, segment="B2B", topics=["wallets"])
    body = client.get(f"/api/threads/{thread}", headers=auth).json()
    assert body["segment"] == "b2b" and body["topics"] == ["wallets"]
    result = ask(client, auth, thread, "Сколько открыли в мае 2025?")[-1]["result"]
    assert (
        result["status"] == "answered" and result["topic"] == "wallets"
    )  # the explicit topic, no clarification
    bad = client.post("/api/threads", json={"topics": ["mortgages"]}, headers=auth)
    assert bad.status_code == 422 and bad.json()["error"]["code"] == "unknown_topic"
    bad = client.post("/api/threads", json={"segment": "vip"}, headers=auth)
    assert bad.status_code == 422 and bad.json()["error"]["code"] == "unknown_segment"
    assert bad.json()["error"]["known"] == ["auto", "b2b", "b2c"]  # the catalog's segments
    start = client.get("/api/catalog/start", headers=auth).json()
    assert [s["id"] for s in start["segments"]] == ["b2b", "b2c"]
    assert start["examples"]["ru"] and start["examples"]["en"]  # the catalog's examples


def test_catalog_tables(client, auth):
    tables = {t["name"]: t for t in client.get("/api/catalog/tables", headers=auth).json()}
    assert "dwh.fact_payment" in tables
    assert any(c["name"] == "amount_rub" for c in tables["dwh.fact_payment"]["columns"])


def test_docs_endpoints(make_client, docs_dir):
    client = make_client(docs_dir=docs_dir)
    auth = new_token(client)
    index = client.get("/api/docs", headers=auth).json()
    assert index["available"] and index["model"] == "SmallModel"
    names = [m["name"] for t in index["topics"] for m in t["measures"]]
    assert "Total Amount" in names
    manual = client.get("/api/docs/manual", headers=auth).json()
    assert manual["markdown"].startswith("# ") and '<pre class="mermaid">' in manual["html"]
    assert "&lt;a id=" not in manual["html"] and '<a id="topic-1"></a>' in manual["html"]
    measure = client.get("/api/docs/measures/[Amount per Customer]", headers=auth).json()
    assert measure["measure"] == "Amount per Customer"
    assert 'href="#measure=Customers"' in measure["html"]
    assert measure["lineage"]["nodes"] and measure["lineage"]["edges"]
    worded = client.get("/api/docs/measures/[Amount per Customer]?llm=true", headers=auth)
    assert worded.status_code == 409 and worded.json()["error"]["code"] == "llm_not_configured"
    missing = client.get("/api/docs/measures/Nope", headers=auth)
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "measure_not_found"


def test_docs_not_configured(client, auth):
    assert client.get("/api/docs", headers=auth).json()["available"] is False
    resp = client.get("/api/docs/manual", headers=auth)
    assert resp.status_code == 404 and resp.json()["error"]["code"] == "docs_not_configured"


def test_pages_and_static_files(client):
    page = client.get("/")
    assert page.status_code == 200 and 'id="conversation"' in page.text
    assert "cdn" not in page.text.lower() and "https://" not in page.text
    assert client.get("/static/app.js").status_code == 200
    docs = client.get("/docs")
    assert 'id="measure-nav"' in docs.text


def test_experiment_endpoint_is_mounted_behind_auth(client, auth, monkeypatch, demo_db) -> None:
    from pathlib import Path

    monkeypatch.setenv(
        "VITRINA_EVAL_SUITES_DIR", str(Path(__file__).resolve().parents[2] / "suites")
    )
    body = {"suite": "demo", "cases": ["ru_revenue_may_2025"], "config": {"name": "rules"}}
    assert client.post("/api/experiments", json=body).status_code == 401
    assert client.post("/api/experiments", json=body, headers=auth).status_code == 403  # an analyst
    admin = new_token(client, "boss", "admin")
    response = client.post("/api/experiments", json=body, headers=admin)
    assert response.status_code == 200, response.text
    run = response.json()
    assert run["kind"] == "run" and run["suite"] == "demo"
    assert client.get(f"/api/experiments/{run['id']}", headers=admin).status_code == 200
