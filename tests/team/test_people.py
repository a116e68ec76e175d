"""People on the board (issue 31 item 5): `vitrina board comment|answer|approve|reject|
reassign` through the console entry point, on a real board; permissions by the board role,
every action and refusal audited, an answered blocker wakes the build."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.conftest import cli_main

from vitrina.team.lifecycle import HandoffStatus, TaskStatus
from vitrina.team.primitives import MARK_REWORK
from vitrina.team.protocol import Handoff

from .conftest import Env, make_env
from .helpers import task_in_review

S = TaskStatus


@pytest.fixture
def board(tmp_path: Path):
    url = f"sqlite:///{tmp_path / 'board.sqlite'}"
    env = make_env(url, tmp_path)
    yield env, url
    env.store.close()


def run(capsys, url: str, *args: str) -> tuple[int, str]:
    return cli_main(capsys, "board", *args, "--board", url, "--as", "anna")


def blocked_task(env: Env) -> tuple[int, int]:
    """A work task in progress that its role blocked, and the build blocked on it."""
    task = env.prims.open_task("coordinator", "scoping", body="", lang="ru").task
    env.prims.change_status(task.role, task.id, S.IN_PROGRESS)
    blocker = env.prims.open_blocker(task.role, task.id, "Какой период считать?").task
    env.store.update_build(
        env.build.id, status="blocked", result={"blocked": {"task": task.id, "reason": "?"}}
    )
    return task.id, blocker.id


def audit(env: Env, action: str) -> list[str]:
    return [
        f"{a.actor} {a.outcome}"
        for a in env.store.audit_log(env.build.id)
        if a.action == f"person_{action}"
    ]


def test_a_viewer_reads_only_and_a_person_cannot_write_a_verdict(board, capsys) -> None:
    env, url = board
    task, _ = blocked_task(env)
    code, out = run(capsys, url, "comment", str(task), "Посмотрите период", "--role", "viewer")
    assert code == 1 and "read only" in out
    assert audit(env, "comment") == ["person:anna denied"]
    verdict = "ok\n===VERDICT===\nREVIEW-VERDICT: APPROVED\nAMENDMENTS:\n===/VERDICT==="
    code, out = run(capsys, url, "comment", str(task), verdict, "--role", "member")
    assert code == 1 and "HANDOFF or VERDICT" in out
    code, out = run(capsys, url, "comment", str(task), "Посмотрите период", "--role", "member")
    assert code == 0 and "comment · task" in out and ": done" in out
    code, out = run(capsys, url, "comment", str(task), "Посмотрите период", "--role", "member")
    assert code == 0 and "already done" in out  # idempotent: one comment
    assert [c.author for c in env.store.comments(task)].count("person:anna") == 1
    code, out = run(capsys, url, "approve", str(task), "--role", "member")
    assert code == 1 and "may: answer, comment" in out


def test_an_answered_blocker_sends_the_task_back_with_the_answer_and_wakes_the_build(
    board, capsys
) -> None:
    env, url = board
    task, blocker = blocked_task(env)
    code, out = run(capsys, url, "answer", str(task), "2025 год", "--role", "member")
    assert code == 1 and "not a blocker" in out
    code, out = run(capsys, url, "answer", str(blocker), "Период: 2025 год", "--role", "member")
    assert code == 0 and f"build {env.build.id} woke" in out, out
    assert env.store.get_task(blocker).status is S.DONE
    work = env.store.get_task(task)
    assert work.status is S.IN_PROGRESS and work.round == 2  # its role works again
    answers = [c.text for c in env.store.comments(task) if c.author == "person:anna"]
    assert answers == ["Период: 2025 год"]
    build = env.store.get_build(env.build.id)
    assert build.status == "running" and "blocked" not in build.result
    assert audit(env, "answer") == ["person:anna invalid", "person:anna done"]
    assert audit(env, "wake") == ["person:anna done"]
    code, out = run(capsys, url, "answer", str(blocker), "Период: 2025 год", "--role", "member")
    assert code == 0 and "already done" in out  # the same answer again changes nothing


def test_a_lead_rejects_approves_and_reassigns(board, capsys) -> None:
    env, url = board
    task = task_in_review(env.prims, "scoping")
    code, out = run(capsys, url, "reject", str(task.id), "Нет разбивки по регионам")
    assert code == 0 and env.store.get_task(task.id).status is S.REWORK
    assert "[PERSON] Нет разбивки" in env.store.marker(task.id, MARK_REWORK, 1).value
    ready = Handoff(status=HandoffStatus.READY_FOR_REVIEW, next="coordinator")
    env.prims.hand_off(task.role, task.id, ready)  # the author's second round
    code, out = run(capsys, url, "approve", str(task.id), "--note", "принимаю как есть")
    assert code == 0 and env.store.get_task(task.id).status is S.DONE
    code, out = run(capsys, url, "approve", str(task.id))
    assert code == 0 and "already done" in out
    second = env.prims.open_task("coordinator", "dataset", body="", lang="ru").task
    code, out = run(capsys, url, "reassign", str(second.id), "dashboard-reviewer")
    assert code == 1 and "reassign it to one of" in out
    code, out = run(capsys, url, "reassign", str(second.id), "dashboard-designer")
    assert code == 0 and env.store.get_task(second.id).role == "dashboard-designer"
    assert audit(env, "reassign") == ["person:anna invalid", "person:anna done"]


def test_an_answer_wakes_a_blocked_build_that_then_finishes(run_build, capsys, tmp_path) -> None:
    """End to end: a role twice without its block blocks the build; a person answers the
    blocker; the same brief run again goes on from the board to a published dashboard."""
    from vitrina.team.agents.rules import rule_agents

    from .scripted import Rewritten, without_blocks
    from .test_build_flow import SMALL

    misses = Rewritten(
        rule_agents()["dataset-architect"],
        lambda w, t: without_blocks(t) if len(misses.seen) <= 2 else t,
    )
    brief = tmp_path / "brief.yaml"
    brief.write_text(SMALL, encoding="utf-8")
    board = f"sqlite:///{tmp_path / 'people.sqlite'}"
    _, first = run_build(brief, agents={"dataset-architect": misses}, board=board)
    assert first.status == "blocked"
    [blocker] = [t for t in first.tasks if t.kind.value == "blocker" and t.status is not S.DONE]
    code, out = cli_main(capsys, "board", "answer", str(blocker.id), "Повторите, пожалуйста",
                         "--board", board, "--as", "anna")  # fmt: skip
    assert code == 0 and f"build {first.build.id} woke" in out, out
    _, second = run_build(brief, agents={"dataset-architect": misses}, board=board)
    assert second.build.id == first.build.id and second.status == "done", second.blocked
