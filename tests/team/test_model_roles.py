"""Model-driven roles with a scripted fake model: each role's model path, a role's model
asking for a primitive it may not call, and a tool-call budget running out. The rules still
build, check and write the blocks, so the build ends the same way."""

from __future__ import annotations

from langchain_core.messages import ToolMessage

from vitrina.llm.client import LLMClient
from vitrina.llm.fake import ScriptedChatModel, Slow, calling
from vitrina.team.agents.model import MODEL_TOOLS, model_agents
from vitrina.team.agents.rules import rule_agents
from vitrina.team.lifecycle import TaskKind
from vitrina.team.roles import Roster

BRIEF = (
    "title: Карты 2025\nperiod: 2025 год\nkpis:\n  - name: Выпущено карт\n    by: месяц\n  - "
    "Новые клиенты\n"
)
ROSTER = Roster.default()


def reads_then_writes(messages):
    """Reads the spec once, then writes notes that quote what it read (and tries a block)."""
    if not any(isinstance(m, ToolMessage) for m in messages):
        return calling("read_spec")
    seen = next(m for m in messages if isinstance(m, ToolMessage)).content
    return (  # numbers only from data: it quotes what it read, never counts by itself
        f"Прочитано, начало символов спецификации: {seen[:40]}\n"
        "===HANDOFF===\nSTATUS: BUILD-COMPLETE\nNEXT: nobody\n===/HANDOFF==="
    )


def _agents(model: ScriptedChatModel, **limits: int) -> dict:
    return model_agents(
        LLMClient(model, timeout_s=5, sleep=lambda _s: None), rule_agents(), **limits
    )


def _model_comments(service, report) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for task in report.tasks:
        for comment in service.store.comments(task.id):
            if comment.text.startswith("Заметки модели"):
                out.setdefault(task.role, []).append(comment.text)
    return out


def test_every_role_writes_its_part_with_its_own_tools(run_build) -> None:
    model = ScriptedChatModel(every=reads_then_writes)
    service, report = run_build(BRIEF, agents=_agents(model))
    assert report.status == "done", report.blocked
    written = _model_comments(service, report)
    roles = {t.role for t in report.tasks if t.kind in (TaskKind.WORK, TaskKind.REVIEW)}
    assert roles - {"coordinator"} == set(written)  # every role's model wrote its part
    for role, bodies in written.items():
        assert all("Прочитано" in b and "символов спецификации" in b for b in bodies), role
        # the model's own block was dropped: exactly one HANDOFF, the rules'
        assert all(b.count("===HANDOFF===") == 1 for b in bodies)
        assert "NEXT: nobody" not in "".join(bodies)
    for prompt in model.prompts:  # each role was offered only what it may use
        role = ROSTER.get(prompt.task.removeprefix("team_").replace("_", "-"))
        allowed = set(role.tools) | set(role.primitives)
        needs = {t.name: t.needs for t in MODEL_TOOLS}
        assert {needs[name] for name in prompt.tool_names} <= allowed
        assert prompt.task != "team_coordinator"
    reviewer = [p for p in model.prompts if p.task == "team_dashboard_reviewer"]
    assert reviewer and "run_query" in reviewer[0].tool_names
    assert "search_catalog" not in reviewer[0].tool_names  # not in its tool list


def test_a_forbidden_primitive_is_refused_and_audited(run_build) -> None:
    def tries_to_merge(messages):
        if not any(isinstance(m, ToolMessage) for m in messages):
            return calling("merge", {"task": 1})
        refusal = next(m for m in messages if isinstance(m, ToolMessage)).content
        return f"Не смог: {refusal}"

    model = ScriptedChatModel(every=reads_then_writes)
    model.add("team_dashboard_reviewer", *([tries_to_merge] * 40))
    service, report = run_build(BRIEF, agents=_agents(model))
    assert report.status == "done", report.blocked
    refused = [
        e
        for e in service.store.audit_log(report.build.id)
        if e.action == "model:merge" and e.outcome == "refused"
    ]
    assert refused and all(e.actor == "dashboard-reviewer" for e in refused)
    notes = _model_comments(service, report)["dashboard-reviewer"]
    assert any("refused: merge is a primitive this role may not call" in n for n in notes)
    merges = [e for e in service.store.audit_log(report.build.id) if e.action == "merge"]
    assert merges and all(e.actor == "coordinator" for e in merges)


def test_a_tool_call_budget_running_out_stops_the_model_and_the_rules_stand(run_build) -> None:
    model = ScriptedChatModel(every=lambda _messages: calling("read_spec"))  # never stops asking
    service, report = run_build(BRIEF, agents=_agents(model, max_calls=3, max_requests=5))
    assert report.status == "done", report.blocked
    budget = [e for e in service.store.audit_log(report.build.id) if e.outcome == "budget"]
    assert budget
    # each turn: at most 5 requests, 3 tool calls run, the rest refused; no model text left
    assert not _model_comments(service, report)
    scoping = [p for p in model.prompts if p.task == "team_scoping"]
    first_turn = scoping[:5]
    assert len(first_turn) == 5
    ran = [
        m
        for m in first_turn[-1].messages
        if isinstance(m, ToolMessage) and not m.content.startswith("not run")
    ]
    assert len(ran) == 3


def test_a_failing_model_leaves_the_rules_comment(run_build) -> None:
    model = ScriptedChatModel(every=TimeoutError("the model is down"))
    service, report = run_build(BRIEF, agents=_agents(model))
    assert report.status == "done", report.blocked
    assert not _model_comments(service, report)
    # and it is not silent: every role's failure is in the report (`--json`), by the coordinator
    assert report.model_failures
    assert {f["role"] for f in report.model_failures} >= {"scoping", "dashboard-reviewer"}
    assert all(f["kind"] == "timeout" for f in report.model_failures), report.model_failures


def test_a_slow_model_costs_a_role_at_most_its_turn_budget(run_build) -> None:
    """All requests of one role's part draw on one turn budget (issue 11: a hanging or slow
    endpoint costs a turn its budget, not max_requests times the request deadline)."""
    model = ScriptedChatModel(every=Slow(calling("read_spec"), 0.2))  # slow, never stops asking
    client = LLMClient(model, timeout_s=5, turn_seconds=0.5, sleep=lambda _s: None)
    agents = model_agents(client, rule_agents(), max_calls=10, max_requests=5)
    _service, report = run_build(BRIEF, agents=agents)
    assert report.status == "done", report.blocked
    # a part's first request carries no tool result; count the requests of each part
    parts: list[int] = []
    for prompt in model.prompts:
        if not any(isinstance(m, ToolMessage) for m in prompt.messages):
            parts.append(0)
        parts[-1] += 1
    assert parts and max(parts) <= 3, parts  # 0.5 s of 0.2 s requests, not max_requests=5


def test_numbers_a_model_never_read_are_rejected_words_not_notes(run_build) -> None:
    """Principle 2: a model never writes a number. Notes with a figure no tool gave it are not
    published; the coordinator says why, in the report (`--json`) too."""
    model = ScriptedChatModel(every="Выручка выросла на 987 654 рубля, это рекорд квартала.")
    service, report = run_build(BRIEF, agents=_agents(model))
    assert report.status == "done", report.blocked
    assert not _model_comments(service, report)
    kinds = {f["kind"] for f in report.model_failures}
    assert kinds == {"rejected_words"}, report.model_failures
    assert all("987654" in f["detail"] for f in report.model_failures)
    said = [
        c.text
        for t in report.tasks
        for c in service.store.comments(t.id)
        if c.author == "coordinator" and "числа не из данных" in c.text
    ]
    assert said and not any("Выручка выросла" in t for t in said)
