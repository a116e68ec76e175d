"""Row policies through `vitrina serve` and `vitrina token`: a token limited to Moscow gets
Moscow's numbers in its dialogs (and the answer says so, also after a reload), a token without
one sees every region, dialogs stay their owner's; `token create --policy` checks the policy
against the catalog and `token list` shows it; a state database from before policies gets the
column."""

from __future__ import annotations

import sqlite3

import duckdb
import psycopg
import pytest
from typer.testing import CliRunner

from vitrina.catalog import load_catalog
from vitrina.server.store import Store
from vitrina.server.tokens import create_token, token_policy, verify_token
from vitrina.sql.policy import RowPolicy, parse_condition

from .helpers import ask, new_thread, new_token

QUESTION = "Сумма платежей по регионам в 2025 году"
MOSCOW_2025 = (
    "SELECT SUM(p.amount_rub) FROM dwh.fact_payment p JOIN dwh.dim_client c "
    "ON c.client_id = p.client_id JOIN dwh.dim_region r ON r.region_id = c.region_id "
    "WHERE r.region_name = 'Москва' AND p.status = 'success' "
    "AND p.payment_date >= DATE '2025-01-01' AND p.payment_date < DATE '2026-01-01'"
)


def _moscow() -> RowPolicy:
    return RowPolicy(conditions=[parse_condition("dim_region.region_name=Москва", load_catalog())])


def _policed(client) -> dict[str, str]:
    token = create_token(client.app.state.vitrina.store, "moscow", "viewer", _moscow())
    return {"Authorization": f"Bearer {token}"}


def test_a_policed_token_gets_moscow_over_http(client, demo_db):
    policed, everyone = _policed(client), new_token(client, "everyone", "viewer")
    mine = new_thread(client, policed)
    result = ask(client, policed, mine, QUESTION)[-1]["result"]
    other = ask(client, everyone, new_thread(client, everyone), QUESTION)[-1]["result"]
    with duckdb.connect(str(demo_db), read_only=True) as conn:
        want = float(conn.execute(MOSCOW_2025).fetchone()[0])
    assert result["status"] == "answered"
    assert [row[0] for row in result["rows"]] == ["Москва"]
    assert abs(float(result["rows"][0][1]) - want) < 0.01  # decimals travel as text
    assert "row_policy" in result["tags"] and "политика доступа" in result["answer"]
    assert "vp0" in result["sql"]
    assert len(other["rows"]) > 1 and "row_policy" not in other["tags"]
    # a reload of the dialog still says which rows the answer was read from
    turn = client.get(f"/api/threads/{mine}", headers=policed).json()["turns"][-1]
    assert {"check": "row_policy", "message": result["checks"][-1]["message"]} in turn["checks"]
    assert "политика доступа" in turn["answer"]
    # ownership is unchanged: the other token does not see the policed token's dialog
    assert client.get(f"/api/threads/{mine}", headers=everyone).status_code == 404


def test_token_create_with_a_policy_and_token_list(client):
    from vitrina.cli import app

    runner = CliRunner()
    made = runner.invoke(
        app, ["token", "create", "msk", "--policy", "dim_region.region_name=Москва,Санкт-Петербург"]
    )
    assert made.exit_code == 0, made.output
    store = Store.from_settings(client.app.state.vitrina.settings)
    try:
        record = verify_token(store, made.output.split()[-1])
        policy = token_policy(record)
    finally:
        store.close()
    assert policy is not None and policy.conditions[0].values == ["Москва", "Санкт-Петербург"]
    listed = runner.invoke(app, ["token", "list"]).output
    assert "msk" in listed and "dwh.dim_region.region_name IN (Москва, Санкт-Петербург)" in listed


def test_token_create_refuses_a_policy_the_catalog_cannot_hold(client):
    from vitrina.cli import app

    runner = CliRunner()
    for written, named in [
        ("dim_region.region=Москва", "dwh.dim_region.region"),
        ("dim_region.region_name=Moskva", "Moskva"),
        ("galaxy.region_name=Москва", "galaxy"),
    ]:
        result = runner.invoke(app, ["token", "create", "bad", "--policy", written])
        assert result.exit_code == 2, result.output
        assert named in result.output and "Traceback" not in result.output
    assert "bad" not in runner.invoke(app, ["token", "list"]).output


OLD_TOKENS = (
    "CREATE TABLE vitrina_tokens (id VARCHAR(32) PRIMARY KEY, name VARCHAR(200) NOT NULL, "
    "secret_sha256 VARCHAR(64) NOT NULL, created_at FLOAT NOT NULL, revoked_at FLOAT)"
)
OLD_TOKEN = "INSERT INTO vitrina_tokens VALUES ('abc', 'old', 'x', 0, NULL)"


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_a_state_database_from_before_policies_gets_the_column(backend, tmp_path, request):
    if backend == "sqlite":
        path = tmp_path / "old.sqlite"
        with sqlite3.connect(path) as conn:
            conn.execute(OLD_TOKENS)
            conn.execute(OLD_TOKEN)
        url = f"sqlite:///{path}"
    else:
        database = request.getfixturevalue("own_pg_database")
        with psycopg.connect(database, autocommit=True) as conn:
            conn.execute(OLD_TOKENS)
            conn.execute(OLD_TOKEN)
        url = database.replace("postgresql://", "postgresql+psycopg://", 1)
    store = Store(url)
    try:
        old = store.token("abc")
        create_token(store, "new", "viewer", _moscow())
        new = next(t for t in store.list_tokens() if t.name == "new")
    finally:
        store.close()
    assert old is not None and old.role == "analyst" and token_policy(old) is None
    assert token_policy(new) == _moscow()


def test_an_unreadable_stored_policy_refuses_rather_than_opens(client):
    store = client.app.state.vitrina.store
    store.add_token("broken123456", "broken", "0" * 64, "viewer", "{not json")
    policy = token_policy(store.token("broken123456"))
    assert policy  # never "no policy"
    from vitrina.sql.guard import guard_with_catalog

    result = guard_with_catalog(
        "SELECT 1 FROM dwh.dim_calendar", load_catalog(), dialect="duckdb", row_cap=1, policy=policy
    )
    assert not result.ok and result.violations[0].rule == "policy_invalid"


def test_a_policed_token_reads_no_dashboards_board_or_experiments(client):
    """Numbers computed for everyone (dashboards, the build board, experiments) are refused to a
    token with a policy, by name; a token without one is not refused there."""
    from vitrina.server.store import Store as _Store

    store: _Store = client.app.state.vitrina.store
    admin = {"Authorization": f"Bearer {create_token(store, 'msk-admin', 'admin', _moscow())}"}
    plain = new_token(client, "plain-admin", "admin")
    for method, path in [
        ("GET", "/api/dashboards/build-1"),
        ("GET", "/dashboards/build-1/dashboard.json"),
        ("GET", "/api/board/builds"),
        ("GET", "/api/board/builds/1"),
        ("GET", "/api/board/tasks/1"),
        ("GET", "/api/experiments/x1"),
    ]:
        refused = client.request(method, path, headers=admin)
        assert refused.status_code == 403, (path, refused.text)
        error = refused.json()["error"]
        assert error["code"] == "row_policy" and "политик" in error["message_ru"]
        assert client.request(method, path, headers=plain).status_code != 403, path


def _task_events(client, headers, task_id: str, after: int = 0) -> list[dict]:
    import json

    url = f"/api/tasks/{task_id}/events?after={after}"
    with client.stream("GET", url, headers=headers) as reply:
        body = "".join(reply.iter_text())
    return [json.loads(line[6:]) for line in body.splitlines() if line.startswith("data: ")]


def test_a_task_over_http_reads_through_its_owners_policy(client, demo_db):
    """The app's task router: a task of a policed analyst token runs its SQL step through the
    token's policy; the same step of another token reads every region."""
    store = client.app.state.vitrina.store
    policed = {"Authorization": f"Bearer {create_token(store, 'msk', 'analyst', _moscow())}"}
    plain = new_token(client, "plain", "analyst")
    sql = "SELECT COUNT(*) AS clients FROM dwh.dim_client"
    counts = {}
    for name, headers in (("policed", policed), ("plain", plain)):
        started = client.post("/api/tasks", json={"request": "Сколько клиентов"}, headers=headers)
        task_id = started.json()["task_id"]
        seen = _task_events(client, headers, task_id)
        steps = [{"title": "Клиенты", "tool": "run_sql", "args": {"sql": sql}}]
        for decision in ({"action": "edit", "steps": steps}, {"action": "approve"}):
            reply = client.post(f"/api/tasks/{task_id}/decision", json=decision, headers=headers)
            assert reply.status_code == 202, reply.text
            seen += _task_events(client, headers, task_id, after=len(seen))
        task = client.get(f"/api/tasks/{task_id}", headers=headers).json()
        output = task["pending"]["step"]["outputs"][-1]
        assert output["ok"], output
        counts[name] = output["preview"][0][0]
    with duckdb.connect(str(demo_db), read_only=True) as conn:
        moscow = conn.execute(
            "SELECT COUNT(*) FROM dwh.dim_client c JOIN dwh.dim_region r "
            "ON r.region_id = c.region_id WHERE r.region_name = 'Москва'"
        ).fetchone()[0]
        everyone = conn.execute("SELECT COUNT(*) FROM dwh.dim_client").fetchone()[0]
    assert counts == {"policed": moscow, "plain": everyone}
