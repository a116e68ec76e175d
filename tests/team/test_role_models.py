"""A model per role (`[team.roles.NAME] model = ENDPOINT`, decision 208), through the real
seams: `vitrina build` read from vitrina.toml, ChatOpenAI + LLMClient over HTTP to two local
OpenAI-compatible servers (tests/llm/openai_server.py): one answers garbage, one hangs.

The build finishes by the rules for those roles, nothing of the garbage is published as
notes, the coordinator's comment names the role and the reason, the CLI prints it and
`--json` carries it; a role without a model sends no request and stays rules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from llm.openai_server import ServerState, serve
from vitrina.cli import app
from vitrina.config import load_settings
from vitrina.team.agents.role_models import role_models
from vitrina.team.errors import TeamError
from vitrina.team.roles import Roster

BRIEF = "title: Карты 2025\nperiod: 2025 год\nkpis:\n  - name: Выпущено карт\n    by: тип карты\n"
GARBAGE = "xqzv kjhgf ##!! @@ 0x3f zzzz qwrtp vbnm"
GARBLED_ROLE = "scoping"
STUCK_ROLE = "dashboard-reviewer"
GAVE_NOTHING = {"timeout", "unreachable"}


def _toml(tmp_path: Path, garbage_url: str, stuck_url: str) -> None:
    (tmp_path / "vitrina.toml").write_text(
        "[llm]\ntimeout_s = 1\nmax_retries = 0\nbreaker_failures = 2\n\n"
        f'[llm.endpoints.junk]\nbase_url = "{garbage_url}"\nmodel = "test-model"\n\n'
        f'[llm.endpoints.stuck]\nbase_url = "{stuck_url}"\nmodel = "test-model"\n\n'
        f'[team.roles.{GARBLED_ROLE}]\nmodel = "junk"\n\n'
        f'[team.roles.{STUCK_ROLE}]\nmodel = "stuck"\n',
        encoding="utf-8",
    )


def _build(tmp_path: Path, demo_db: Path, *extra: str) -> tuple[int, str]:
    brief = tmp_path / "brief.yaml"
    brief.write_text(BRIEF, encoding="utf-8")
    board = f"sqlite:///{tmp_path / 'board.sqlite'}"
    args = ["build", str(brief), "--db", f"duckdb:///{demo_db}", "--board", board]
    result = CliRunner().invoke(app, [*args, "--no-browser", *extra], env={"COLUMNS": "300"})
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.output


def test_failing_role_models_are_reported_and_the_rules_finish(
    demo_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    junk = ServerState(default_reply=GARBAGE)
    stuck = ServerState(default_mode="hang", hang_s=20)
    with serve(junk) as garbage_server, serve(stuck) as stuck_server:
        _toml(tmp_path, garbage_server.base_url, stuck_server.base_url)
        code, out = _build(tmp_path, demo_db, "--json")
        assert code == 0, out
        result = json.loads(out)
        # the same build again (resumed, finished): the CLI's lines, nothing asked twice
        requests = len(junk.chat_requests()) + len(stuck.chat_requests())
        code, text = _build(tmp_path, demo_db)
        assert len(junk.chat_requests()) + len(stuck.chat_requests()) == requests
    assert result["status"] == "done"
    failures = result["model_failures"]
    by_role = {f["role"]: f for f in failures}
    assert set(by_role) == {GARBLED_ROLE, STUCK_ROLE}, failures
    assert by_role[GARBLED_ROLE]["kind"] == "garbage"
    # two misses open the endpoint's breaker (breaker_failures = 2): the next review asks
    # nothing and is reported as such; the hang cost 2 misses, not one per review. A hung
    # server is a timeout, or, on a loaded machine, a connection that never completes
    # within the 1 s timeout ("unreachable"): both say the endpoint gave nothing
    stuck_kinds = [f["kind"] for f in failures if f["role"] == STUCK_ROLE]
    assert set(stuck_kinds[:2]) <= GAVE_NOTHING and len(stuck_kinds) > 2, stuck_kinds
    assert "breaker_open" in stuck_kinds[2:]
    assert len(stuck.chat_requests()) == 2
    # every request went to the role's own endpoint; a role without a model asked nothing
    assert junk.chat_requests() and stuck.chat_requests()
    asked = {
        r.body["messages"][0]["content"].split(" of a BI team")[0] for r in junk.chat_requests()
    }
    assert len(asked) == 1  # one role's persona only
    tasks = {t["id"]: t for t in result["tasks"]}
    assert all(tasks[f["task_id"]]["role"] == f["role"] for f in failures)
    # the board: the coordinator's comment names role and reason; no garbage as notes
    from vitrina.team.board import BoardStore

    store = BoardStore(f"sqlite:///{tmp_path / 'board.sqlite'}")
    try:
        comments = [c for t in tasks for c in store.comments(t)]
    finally:
        store.close()
    said = [c.text for c in comments if c.author == "coordinator" and "не дала заметок" in c.text]
    assert any(GARBLED_ROLE in t and "бессмысленный ответ" in t for t in said), said
    missed = ("время ответа вышло", "конечная точка недоступна")
    assert any(STUCK_ROLE in t and any(m in t for m in missed) for t in said), said
    assert any(STUCK_ROLE in t and "автомат конечной точки разомкнут" in t for t in said), said
    assert not any("Заметки модели" in c.text or "xqzv" in c.text for c in comments)
    # the CLI's lines
    assert code == 0, text
    assert f"model failed / модель не ответила · {GARBLED_ROLE}" in text
    assert f"{STUCK_ROLE} · task" in text and "breaker_open" in text
    assert any(kind in text for kind in GAVE_NOTHING)


def test_a_role_entry_that_cannot_work_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    roster = Roster.default()
    cases = {
        '[team.roles.dashbord-reviewer]\nmodel = "x"\n': "did you mean dashboard-reviewer?",
        '[team.roles.scoping]\nmodel = "nowhere"\n': "'nowhere' is not configured",
        '[team.roles.coordinator]\nmodel = "default"\n': "steps are code",
        '[team.roles.scoping]\nmodel = "default"\n': "no [llm] model is configured",
    }
    for toml, message in cases.items():
        (tmp_path / "vitrina.toml").write_text(toml, encoding="utf-8")
        with pytest.raises(TeamError, match=message.replace("[", r"\[").replace("?", r"\?")):
            role_models(load_settings(), roster, None)
    (tmp_path / "vitrina.toml").write_text('[team.roles.scoping]\nmodel = "rules"\n')
    models = role_models(load_settings(), roster, None)
    assert set(models.values()) == {None}


def test_team_roles_are_read_from_toml_and_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from vitrina.config import unknown_settings

    monkeypatch.chdir(tmp_path)
    (tmp_path / "vitrina.toml").write_text(
        '[team]\nrole = 1\n\n[team.roles.scoping]\nmodel = "rules"\n', encoding="utf-8"
    )
    assert load_settings().team_roles == {"scoping": {"model": "rules"}}
    assert any("'team.role'" in p and "team.roles" in p for p in unknown_settings())
    monkeypatch.setenv("VITRINA_TEAM_ROLES", '{"data-steward": {"model": "rules"}}')
    roles = load_settings().team_roles  # the environment's roles join the file's
    assert roles == {"data-steward": {"model": "rules"}, "scoping": {"model": "rules"}}
    (tmp_path / "vitrina.toml").write_text('[team.roles.scoping]\nmodle = "x"\n')
    monkeypatch.delenv("VITRINA_TEAM_ROLES")
    with pytest.raises(ValueError, match=r"team.roles.scoping: unknown keys \['modle'\]"):
        load_settings()
