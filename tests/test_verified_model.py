"""The bank with a model configured (issue 37, decision 197), through `AskService` and the
compiled graph with a scripted model (vitrina.llm.fake) on Chinook:

* an exact bank match answers before the model path: no table choice, no SQL generation;
* a question close to an entry but not matched: the model picks one of the close entries
  and adapts it; the adapted SQL runs through the guard, EXPLAIN and the checks, the answer
  says "not verified, adapted from X", and the query waits in `verified/pending/`: it is
  never used as verified until a person accepts it (then it answers with no model call);
* an adaptation the guard refuses is not used and not queued.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.conftest import CHINOOK_TODAY, ROOT

DATA = ROOT / "tests" / "data" / "verified"
QUESTION = "Revenue by playlist in 2023 for customers from Germany"
ADAPTED = """
SELECT p.Name AS playlist, SUM(il.UnitPrice * il.Quantity) AS revenue
FROM playlist AS p
JOIN playlisttrack AS pt ON pt.PlaylistId = p.PlaylistId
JOIN invoiceline AS il ON il.TrackId = pt.TrackId
JOIN invoice AS i ON i.InvoiceId = il.InvoiceId
JOIN customer AS c ON c.CustomerId = i.CustomerId
WHERE i.InvoiceDate >= '2023-01-01' AND i.InvoiceDate < '2024-01-01' AND c.Country = 'Germany'
GROUP BY p.PlaylistId, p.Name
ORDER BY revenue DESC, p.PlaylistId
"""
REFERENCE = """
SELECT pl.Name, ROUND(SUM(il.UnitPrice * il.Quantity), 2) FROM invoice i
JOIN customer c USING (CustomerId) JOIN invoiceline il USING (InvoiceId)
JOIN playlisttrack pt USING (TrackId) JOIN playlist pl USING (PlaylistId)
WHERE substr(i.InvoiceDate, 1, 4) = '2023' AND c.Country = 'Germany' GROUP BY pl.PlaylistId
"""


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("VITRINA_HOME", str(tmp_path))
    shutil.copytree(DATA / "chinook", tmp_path / "verified")
    return tmp_path


@pytest.fixture
def make(home: Path, chinook: str) -> Iterator:
    """An AskService with a scripted model; every task without a script fails (so the
    rules' net answers, and a test sees each request the turn made)."""
    from vitrina.ask.service import AskService
    from vitrina.catalog import load_catalog
    from vitrina.config import load_settings
    from vitrina.llm.client import LLMClient
    from vitrina.llm.fake import ScriptedChatModel

    services = []

    def build(scripts: dict):
        model = ScriptedChatModel(scripts, every=RuntimeError("unscripted task"))
        client = LLMClient(model, timeout_s=5, max_retries=0, backoff_s=0, sleep=lambda _s: None)
        service = AskService(
            load_settings(db_url=f"sqlite:///file:{chinook}?mode=ro&uri=true"),
            catalog=load_catalog(ROOT / "suites" / "chinook"),
            today=CHINOOK_TODAY,
            llm=client,
            write_files=False,
        )
        services.append(service)
        return service, model

    yield build
    for service in services:
        service.close()


def _adapt(entry: str | None, sql: str = ADAPTED) -> str:
    return json.dumps(
        {"entry": entry, "sql": sql, "explanation": "the playlist query for one country"}
    )


def _tasks(model) -> list[str]:
    return [p.task for p in model.prompts]


def test_an_exact_bank_match_beats_the_models_sql(make) -> None:
    service, model = make({})
    result = service.ask("Revenue by playlist in 2023")
    assert result.status == "answered" and result.sql_source == "verified", result.answer
    assert "«revenue-by-playlist»" in result.answer
    banned = {"tables", "feasibility", "sql_generation", "verified_adapt", "answer"}
    assert not banned & set(_tasks(model))  # nor the wording: a bank answer is worded by code


def test_the_model_adapts_a_close_entry_shown_unverified_and_queued(
    make, home: Path, chinook: str
) -> None:
    from vitrina.query.verified.store import Bank

    bank = Bank(home / "verified")
    before = {e.id for e in bank.usable()}
    service, model = make({"verified_adapt": [_adapt("revenue-by-playlist")]})
    result = service.ask(QUESTION)
    assert result.status == "answered" and result.sql_source == "adapted", result.answer
    assert "adapted" in result.tags and "verified" not in result.tags
    assert result.answer.startswith(
        "Not verified: adapted by the model from the verified query «revenue-by-playlist»"
    )
    prompt = model.prompts_for("verified_adapt")[0].text
    assert "Entry revenue-by-playlist" in prompt and QUESTION in prompt
    assert not {"tables", "sql_generation"} & set(_tasks(model))  # the model's own SQL: not asked
    with sqlite3.connect(f"file:{chinook}?mode=ro", uri=True) as conn:
        want = sorted(conn.execute(REFERENCE).fetchall())
    got = sorted((r[0], round(float(r[1]), 2)) for r in result.rows)
    assert want and got == want
    [queued] = bank.entries(pending=True)
    assert queued.status == "pending" and queued.id in result.answer
    assert {p.name for p in queued.params} >= {"period_start", "period_until"}  # lifted by code
    assert {e.id for e in bank.usable()} == before  # never used as verified before review

    # before a person accepts it, a model that declines leaves no verified answer
    service2, model2 = make({"verified_adapt": [_adapt(None, "")]})
    again = service2.ask(QUESTION)
    assert again.sql_source not in ("verified", "adapted"), again.answer
    assert "verified_adapt" in _tasks(model2)  # asked, and it declined

    # accepted, it answers the question exactly, with no model call for it
    bank.accept(queued.id, "maria.ivanova", CHINOOK_TODAY)
    service3, model3 = make({})
    accepted = service3.ask(QUESTION)
    assert accepted.sql_source == "verified" and f"«{queued.id}»" in accepted.answer
    assert "verified_adapt" not in _tasks(model3)
    assert sorted((r[0], round(float(r[1]), 2)) for r in accepted.rows) == want


@pytest.mark.parametrize(
    ("entry", "sql", "why"),
    [
        ("revenue-by-playlist", "DELETE FROM invoice", "failed a check"),
        ("revenue-by-playlist", "SELECT Name FROM sqlite_master", "failed a check"),
        ("revenue-by-playlist", ADAPTED.replace("'Germany'", "{{country:value(x)}}"), "unusable"),
        ("not-shown-entry", ADAPTED, "unusable"),
    ],
)
def test_an_unusable_adaptation_is_neither_answered_nor_queued(
    make, home: Path, entry: str, sql: str, why: str
) -> None:
    from vitrina.query.verified.store import Bank

    service, _ = make({"verified_adapt": [_adapt(entry, sql)]})
    result = service.ask(QUESTION)
    assert result.sql_source not in ("verified", "adapted"), result.answer
    assert not Bank(home / "verified").entries(pending=True)
    assert any(e.node == "adapt_verified" and why in e.message for e in result.trace)


def test_adaptation_over_http_through_vitrina_ask(
    chinook: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    """The production stack: `vitrina ask` with VITRINA_LLM_* aimed at the local
    OpenAI-compatible server (tests/llm/openai_server.py), replies in the order the turn asks
    (topic, ambiguity, the adaptation; the answer's wording then falls back to rules): the
    answer is the adapted query, marked and queued, and its files are written."""
    from tests.conftest import cli_main

    from llm.openai_server import ServerState, serve
    from vitrina.query.verified.store import Bank

    cat = Path(shutil.copytree(ROOT / "suites" / "chinook", tmp_path / "chinook"))
    shutil.copytree(DATA / "chinook", cat / "verified")
    monkeypatch.setenv("VITRINA_HOME", str(tmp_path / "home"))
    state = ServerState()
    state.replies.extend(
        [
            json.dumps({"topic": "sales", "confidence": 0.9}),
            json.dumps({"ambiguous": False}),
            _adapt("revenue-by-playlist"),
        ]
    )
    with serve(state) as server:
        for key, value in (
            ("PROVIDER", "openai"), ("BASE_URL", server.base_url), ("MODEL", "test-model"),
            ("TIMEOUT_S", "5"), ("MAX_RETRIES", "0"),
        ):  # fmt: skip
            monkeypatch.setenv(f"VITRINA_LLM_{key}", value)
        code, out = cli_main(
            capsys, "ask", QUESTION, "--db", f"sqlite:///file:{chinook}?mode=ro&uri=true",
            "--catalog", str(cat), "--json",
        )  # fmt: skip
        asked = [r.body for r in server.state.chat_requests()]
    assert code == 0, out
    reply = json.loads(out[out.index("{") :])
    assert reply["sql_source"] == "adapted" and "adapted" in reply["tags"], reply["answer"]
    assert "«revenue-by-playlist»" in reply["answer"] and reply["excel"]
    assert any("Entry revenue-by-playlist" in json.dumps(b, ensure_ascii=False) for b in asked)
    [queued] = Bank(cat / "verified").entries(pending=True)
    assert queued.status == "pending" and "Germany" in queued.sql
