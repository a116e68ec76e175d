"""Every primitive is idempotent: a repeated call (a retry, a restart) does nothing new."""

from __future__ import annotations

from vitrina.team.lifecycle import HandoffStatus, TaskKind, TaskStatus
from vitrina.team.protocol import Handoff, Verdict, render_comment

from .helpers import REVIEW_DONE, give_verdict, task_in_review


def test_open_task_once_per_step(env) -> None:
    first = env.prims.open_task("coordinator", "scoping", body="brief", lang="ru")
    second = env.prims.open_task("coordinator", "scoping", body="brief", lang="ru")
    assert first.created and not second.created and first.task_id == second.task_id
    assert first.task.title == "Уточнить KPI и рамки" and first.task.branch == "task/scoping"
    assert env.workspace.tip(first.task.branch) is not None


def test_a_repeated_review_is_not_a_second_review(env) -> None:
    task = task_in_review(env.prims)
    first = env.prims.create_review("coordinator", task.id, "data-steward")
    second = env.prims.create_review("coordinator", task.id, "data-steward")
    assert first.created and not second.created and first.task_id == second.task_id
    assert len(env.store.tasks(env.build.id, kind=TaskKind.REVIEW)) == 1
    assert [
        e.outcome for e in env.store.audit_log(env.build.id) if e.action == "create_review"
    ] == ["done", "noop"]


def test_a_repeated_verdict_is_not_a_second_verdict(env) -> None:
    task = task_in_review(env.prims)
    review = env.prims.create_review("coordinator", task.id, "data-steward").task
    env.prims.change_status("data-steward", review.id, TaskStatus.IN_PROGRESS)
    approve = render_comment("fine", REVIEW_DONE, Verdict(verdict="APPROVED"))
    rework = render_comment(
        "changed my mind", REVIEW_DONE, Verdict(verdict="REQUESTS-REWORK", amendments=["x"])
    )
    _, _, created = env.prims.comment("data-steward", review.id, approve, key="attempt-1")
    comment, _, created2 = env.prims.comment("data-steward", review.id, rework, key="attempt-2")
    assert created and not created2 and comment.verdict["verdict"] == "APPROVED"
    assert sum(1 for c in env.store.comments(review.id) if c.verdict) == 1


def test_a_repeated_merge_merges_once(env) -> None:
    task = task_in_review(env.prims)
    env.workspace.write(task.branch, {"spec/scope.yaml": "kpis: []\n"}, "scope", author="scoping")
    give_verdict(
        env.prims, env.prims.create_review("coordinator", task.id, "data-steward").task, "APPROVED"
    )
    env.prims.change_status("coordinator", task.id, TaskStatus.DONE)
    first, second = env.prims.merge("coordinator", task.id), env.prims.merge("coordinator", task.id)
    assert (
        first.created and not second.created and first.detail["commit"] == second.detail["commit"]
    )
    assert env.workspace.merges() == [first.detail["commit"]]


def test_merge_after_a_crash_between_git_and_the_board(env) -> None:
    """git merged, the marker was never written: the retry finds the merge, makes no second."""
    task = task_in_review(env.prims)
    env.workspace.write(task.branch, {"spec/scope.yaml": "kpis: []\n"}, "scope", author="scoping")
    give_verdict(
        env.prims, env.prims.create_review("coordinator", task.id, "data-steward").task, "APPROVED"
    )
    env.prims.change_status("coordinator", task.id, TaskStatus.DONE)
    sha = env.workspace.merge(task.branch, "merged before the crash").sha
    outcome = env.prims.merge("coordinator", task.id)
    assert outcome.detail["commit"] == sha and env.workspace.merges() == [sha]


def test_rework_advances_the_round_once(env) -> None:
    task = task_in_review(env.prims)
    give_verdict(
        env.prims,
        env.prims.create_review("coordinator", task.id, "data-steward").task,
        "REQUESTS-REWORK",
        ["[KPI-001] no data"],
    )
    first = env.prims.return_for_rework("coordinator", task.id, ["[KPI-001] no data"])
    second = env.prims.return_for_rework("coordinator", task.id, ["[KPI-001] no data"])
    assert first.created and not second.created
    moved = env.store.get_task(task.id)
    assert moved.status is TaskStatus.REWORK and moved.round == 2


def test_blockers_and_amendments_once(env) -> None:
    task = task_in_review(env.prims)
    give_verdict(
        env.prims,
        env.prims.create_review("coordinator", task.id, "data-steward").task,
        "APPROVED-WITH-AMENDMENTS",
        ["[BRIEF-004] state the audience"],
    )
    env.prims.hand_off(
        "coordinator", task.id, Handoff(status=HandoffStatus.AMENDMENTS_REQUESTED, next="scoping")
    )
    assert env.prims.mark_amendments_applied("scoping", task.id).created
    assert not env.prims.mark_amendments_applied("scoping", task.id).created
    env.prims.change_status("coordinator", task.id, TaskStatus.DONE)

    other = env.prims.open_task("coordinator", "dataset", body="", lang="en").task
    a = env.prims.open_blocker("dataset-architect", other.id, "KPI nps is not in the catalog")
    b = env.prims.open_blocker("dataset-architect", other.id, "KPI nps is not in the catalog")
    assert a.created and not b.created and a.task_id == b.task_id
    assert env.store.get_task(other.id).status is TaskStatus.BLOCKED


def test_rework_after_a_crash_between_the_reasons_and_the_move(env) -> None:
    """The reasons were recorded, the task never moved: the retry moves it, once."""
    task = task_in_review(env.prims)
    give_verdict(
        env.prims,
        env.prims.create_review("coordinator", task.id, "data-steward").task,
        "REQUESTS-REWORK",
        ["[KPI-001] no data"],
    )
    env.store.set_marker(
        task.id, "rework_requested", 1, '["[KPI-001] no data"]'
    )  # what the crash left
    assert env.prims.return_for_rework("coordinator", task.id, ["[KPI-001] no data"]).created
    moved = env.store.get_task(task.id)
    assert moved.status is TaskStatus.REWORK and moved.round == 2


def test_requested_reviewers_survive_a_crash_after_the_hand_off(env) -> None:
    task = env.prims.open_task("coordinator", "data", body="", lang="en").task
    env.prims.change_status("data-engineer", task.id, TaskStatus.IN_PROGRESS)
    env.prims.hand_off(
        "data-engineer",
        task.id,
        Handoff(status=HandoffStatus.BUILD_COMPLETE, reviewers_requested=["data-steward"]),
    )
    from vitrina.team.prewake import required_reviewers

    assert required_reviewers(env.prims, env.store.get_task(task.id)) == [
        "bi-tech-lead",
        "data-steward",
    ]


def test_a_task_whose_branch_was_never_cut_gets_it_when_worked_on(env, tmp_path) -> None:
    """Killed between the task's insert and `git update-ref`: the role's tools cut the branch."""
    from vitrina.team.board import Task
    from vitrina.team.context import BuildContext
    from vitrina.team.toolbox import Toolbox

    task, _ = env.store.create_task(
        build_id=env.build.id,
        key="step:dataset",
        kind="work",
        title="Dataset",
        role="dataset-architect",
        phase="design",
        step="dataset",
        branch="task/dataset",
    )
    assert env.workspace.tip("task/dataset") is None
    ctx = BuildContext(
        store=env.store,
        roster=env.roster,
        skills=None,
        build=env.build,
        brief=None,
        catalog=None,
        warehouse=None,
        workspace=env.workspace,
        spec=None,
        prims=env.prims,
        agents={},
        today=None,
        row_cap=10,
        publishers=[],
        attachments_dir=tmp_path,
    )
    Toolbox(ctx, env.roster.get("dataset-architect"), Task.model_validate(task.model_dump()))
    assert env.workspace.tip("task/dataset") == env.workspace.tip("main")
