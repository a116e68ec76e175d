"""The experiment endpoint on a small app that mounts the router: a run, a matrix with the
same override schema as the CLI, the stored experiment read back, and clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from vitrina.eval.api import experiments_router

from .conftest import write_suite
from .helpers import scripted_model


@pytest.fixture
def client(tmp_path: Path, demo_db: Path) -> TestClient:
    suites = tmp_path / "suites"
    suites.mkdir()
    write_suite(suites, demo_db, name="golden")
    app = FastAPI()
    app.include_router(
        experiments_router(suites=suites, model_factory=lambda config, settings: scripted_model())
    )
    return TestClient(app)


def test_run_and_read_back(client: TestClient) -> None:
    body = {
        "suite": "golden",
        "cases": ["ru_revenue_may_2025", "ru_refuse_mortgage"],
        "config": {"name": "no-checks", "mode": "rules", "options": {"result_checks": False}},
    }
    created = client.post("/api/experiments", json=body)
    assert created.status_code == 200, created.text
    data = created.json()
    assert data["kind"] == "run" and data["suite"] == "golden"
    (run,) = data["runs"]
    assert (
        run["config_name"] == "no-checks"
        and run["summary"]["accuracy"] == 1.0
        and run["failures"] == []
    )
    assert run["summary"]["refusal_accuracy"] == 1.0 and run["cases"] is None

    read = client.get(f"/api/experiments/{data['id']}", params={"cases": "true"})
    assert read.status_code == 200
    cases = read.json()["runs"][0]["cases"]
    assert [c["case_id"] for c in cases] == ["ru_revenue_may_2025", "ru_refuse_mortgage"]
    assert cases[0]["sql"].startswith("SELECT") and cases[0]["expected"] == cases[0]["got"]


def test_matrix_with_virtual_topic(client: TestClient) -> None:
    topic = {
        "topic": {
            "id": "loyalty",
            "name_ru": "Лояльность",
            "name_en": "Loyalty",
            "keywords": {"кешбэк": 3, "cashback": 3},
            "tables": ["dwh.fact_payment"],
        }
    }
    body = {
        "suite": "golden",
        "cases": ["ru_revenue_may_2025", "ru_payment_count_q1_2025"],
        "matrix": {
            "base": {"options": {"chart": "off"}},
            "configs": [
                {"name": "rules", "mode": "rules"},
                {"name": "llm+topic", "mode": "llm", "virtual_topic": topic},
            ],
        },
    }
    created = client.post("/api/experiments", json=body)
    assert created.status_code == 200, created.text
    data = created.json()
    assert data["kind"] == "matrix" and [r["config_name"] for r in data["runs"]] == [
        "rules",
        "llm+topic",
    ]
    rules, llm = data["runs"]
    # both questions are read fully by the rules: the model is not asked (decision 174)
    assert rules["summary"]["llm_calls"] == 0 and llm["summary"]["llm_calls"] == 0
    assert llm["summary"]["accuracy"] == rules["summary"]["accuracy"] == 1.0
    # ranked by right over all cases, with the decided share beside the accuracy
    assert {rules["rank"], llm["rank"]} == {1, 2}
    assert rules["summary"]["right_over_all"] == llm["summary"]["right_over_all"]
    assert rules["summary"]["decided_share"] == 1.0
    read = client.get(f"/api/experiments/{data['id']}").json()
    assert read["kind"] == "matrix" and [r["id"] for r in read["runs"]] == [rules["id"], llm["id"]]


@pytest.mark.parametrize(
    ("body", "status", "text"),
    [
        ({"suite": "../etc/passwd"}, 400, "named, not a path"),
        ({"suite": "nope"}, 400, "no suite 'nope'"),
        (
            {"suite": "golden", "config": {"options": {"guard": False}}},
            400,
            "cannot be switched off",
        ),
        ({"suite": "golden", "config": {}, "matrix": {"configs": [{}]}}, 400, "not both"),
        ({"suite": "golden", "cases": ["missing"]}, 400, "no cases selected"),
        ({"suite": "golden", "unknown": 1}, 422, "unknown"),
    ],
)
def test_errors(client: TestClient, body: dict, status: int, text: str) -> None:
    response = client.post("/api/experiments", json=body)
    assert response.status_code == status
    assert text in response.text


def test_unknown_experiment(client: TestClient) -> None:
    response = client.get("/api/experiments/zzz")
    assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"
