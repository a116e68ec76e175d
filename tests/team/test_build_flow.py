"""End-to-end builds in rules mode on the demo warehouse: the happy path and every back branch.

Each test runs the real team (rule agents, board, git workspace, guard, warehouse); the back
branches change one agent in one precise way (tests/team/scripted.py) and check that the
lifecycle in code, not the agent, decides what happens next.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import duckdb
import pytest
import yaml

from vitrina.team.agents.rules import rule_agents
from vitrina.team.chain import CHAIN
from vitrina.team.lifecycle import TaskKind, TaskStatus
from vitrina.team.primitives import MARK_AMENDMENTS_APPLIED, verdict_of
from vitrina.team.workspace import Workspace

from .conftest import EXAMPLES
from .scripted import (
    Rewritten,
    Sabotaged,
    bar_instead_of_line,
    drop_filter_from_data,
    without_blocks,
)

PAYMENTS = EXAMPLES / "briefs" / "payments-2025.yaml"
SMALL = """title: Платежи 2025
period: 2025 год
kpis:
  - name: Сумма платежей
    by: месяц
  - name: Выпущено карт
    by: тип карты
"""


def work_tasks(report) -> list:
    return [t for t in report.tasks if t.kind is TaskKind.WORK]


def reviews_of(report, task) -> list:
    return [t for t in report.tasks if t.parent_id == task.id and t.kind is TaskKind.REVIEW]


def verdicts(service, report, step: str) -> list[str]:
    task = next(t for t in work_tasks(report) if t.step == step)
    return [
        verdict_of(service.store.comments(r.id)).verdict["verdict"]
        for r in reviews_of(report, task)
    ]


def own_sql(demo_db: Path, sql: str) -> Decimal:
    with duckdb.connect(str(demo_db), read_only=True) as conn:
        return Decimal(str(conn.execute(sql).fetchone()[0]))


def test_happy_path_six_kpis_reviewed_published_and_drawn(
    run_build, demo_db: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    service, report = run_build(PAYMENTS, browser=True, out=out)
    assert report.status == "done", report.blocked
    tasks = work_tasks(report)
    assert [(t.step, t.role, t.phase) for t in tasks] == [(s.id, s.role, s.phase) for s in CHAIN]
    assert all(t.status is TaskStatus.DONE and t.round == 1 for t in tasks)
    for task in tasks:  # every step reviewed by its chain reviewer, and approved
        roles = sorted(r.role for r in reviews_of(report, task))
        expected = {"data": ["bi-tech-lead", "data-steward"]}.get(
            task.step, [next(s.reviewer for s in CHAIN if s.id == task.step)]
        )
        assert roles == expected
        assert set(verdicts(service, report, task.step)) == {"APPROVED"}
    workspace = Workspace(Path(report.build.workspace))
    assert len(workspace.merges()) == 6 and all(workspace.is_merged(t.branch) for t in tasks)
    files = set(workspace.files("main"))
    for name in (
        "spec/scope.yaml",
        "spec/data_notes.yaml",
        "spec/dataset.yaml",
        "spec/presentation.yaml",
        "dashboard/index.html",
        "dashboard/assets/chart.umd.min.js",
        "spec/build_notes/data-engineer.yaml",
    ):
        assert name in files
    assert sum(1 for f in files if f.startswith("spec/verdicts/")) == 7

    # numbers come only from data: the card and the chart against my own SQL
    bundle = json.loads((out / "dashboard.json").read_text(encoding="utf-8"))
    card = next(e for e in bundle["elements"] if e["id"] == "payment_amount_by_month__card")
    expected = own_sql(
        demo_db,
        "SELECT SUM(amount_rub) FROM dwh.fact_payment WHERE status = 'success' "
        "AND payment_date BETWEEN DATE '2025-01-01' AND DATE '2025-12-31'",
    )
    assert Decimal(str(card["spec"]["data"]["items"][0]["raw"])) == expected
    chart = next(e for e in bundle["elements"] if e["id"] == "payment_amount_by_month__chart")
    assert chart["chart_kind"] == "line" and len(chart["spec"]["data"]["labels"]) == 12
    assert abs(
        Decimal(str(sum(chart["spec"]["data"]["datasets"][0]["data"]))) - expected
    ) < Decimal("0.01")
    paying = own_sql(
        demo_db,
        "SELECT COUNT(DISTINCT client_id) FROM dwh.fact_payment WHERE status = 'success' "
        "AND payment_date BETWEEN DATE '2025-01-01' AND DATE '2025-12-31'",
    )
    paying_card = next(e for e in bundle["elements"] if e["id"] == "paying_clients_by_month__card")
    assert (
        Decimal(str(paying_card["spec"]["data"]["items"][0]["raw"])) == paying
    )  # never a sum of months

    # the final review ran chromium: zero errors, every chart drawn, the screenshot attached
    final = reviews_of(report, tasks[-1])[0]
    record = yaml.safe_load(workspace.read("main", f"spec/verdicts/task-{final.id}.yaml"))
    browser = record["browser"]
    assert (
        browser["console_errors"] == []
        and browser["failed_requests"] == []
        and browser["cut_labels"] == []
    )
    assert browser["charts"] == browser["drawn"] == 6
    shots = {s.name: s for s in service.store.attachments(final.id)}
    assert set(shots) == {"screenshot.png", "screenshot-390.png"}  # a desktop and a phone
    for shot in shots.values():
        assert Path(shot.path).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert browser["widths"][390]["cut_labels"] == browser["widths"][1440]["cut_labels"] == []
    assert (out / "index.html").is_file() and Path(report.location).is_file()


def test_static_page_opens_from_disk_in_chromium(run_build, tmp_path: Path) -> None:
    """The --out files open straight from disk: no server, no CDN, every chart a Chart.js chart."""
    from playwright.sync_api import sync_playwright

    from vitrina.team.review.browser import CHROMIUM, CHROMIUM_ARGS, chromium_problem

    if chromium_problem():
        pytest.skip(chromium_problem())
    out = tmp_path / "out"
    _, report = run_build(SMALL, out=out)
    assert report.status == "done"
    errors, foreign = [], []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page()
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.route(
            "**/*",
            lambda r: (
                r.continue_()
                if r.request.url.startswith("file://")
                else (foreign.append(r.request.url), r.abort())
            ),
        )
        page.goto((out / "index.html").as_uri())
        page.wait_for_selector("body[data-ready='1']", state="attached", timeout=15000)
        charts = page.evaluate(
            "() => [...document.querySelectorAll('canvas')].filter(c => Chart.getChart(c)).length"
        )
        browser.close()
    assert errors == [] and foreign == [] and charts == 2


def test_amendments_are_applied_without_a_second_review(run_build) -> None:
    service, report = run_build(EXAMPLES / "briefs" / "app-payments.yaml")
    assert report.status == "done", report.blocked
    design = next(t for t in work_tasks(report) if t.step == "presentation")
    assert verdicts(service, report, "presentation") == ["APPROVED-WITH-AMENDMENTS"]
    assert len(reviews_of(report, design)) == 1 and design.round == 1
    assert service.store.marker(design.id, MARK_AMENDMENTS_APPLIED, 1) is not None
    author_blocks = [
        c.handoff["status"] for c in service.store.comments(design.id) if c.author == design.role
    ]
    assert author_blocks == ["READY-FOR-REVIEW", "AMENDMENTS-APPLIED"]
    presentation = yaml.safe_load(
        Workspace(Path(report.build.workspace)).read("main", "spec/presentation.yaml")
    )
    card = next(e for e in presentation["elements"] if e["id"] == "payment_amount_by_month__card")
    assert card["title"] == "Сумма платежей" and len(card["title"]) <= 32
    assert card["subtitle"].startswith(
        "Сумма успешных платежей клиентов через мобильное приложение банка"
    )


def test_rework_after_a_wrong_number(run_build, demo_db: Path) -> None:
    agents = {"data-engineer": Sabotaged(rule_agents()["data-engineer"], drop_filter_from_data)}
    service, report = run_build(SMALL, agents=agents)
    assert report.status == "done", report.blocked
    data = next(t for t in work_tasks(report) if t.step == "data")
    assert data.round == 2
    first = {
        r.role: verdict_of(service.store.comments(r.id)).verdict
        for r in reviews_of(report, data)
        if r.round == 1
    }
    assert first["data-steward"]["verdict"] == "REQUESTS-REWORK"
    assert any(
        "[KPI-002] KPI payment_amount_by_month" in a for a in first["data-steward"]["amendments"]
    )
    assert any("[DSN-005]" in a for a in first["bi-tech-lead"]["amendments"])
    second = [
        verdict_of(service.store.comments(r.id)).verdict["verdict"]
        for r in reviews_of(report, data)
        if r.round == 2
    ]
    assert sorted(second) == ["APPROVED", "APPROVED"]
    stored = json.loads(
        Workspace(Path(report.build.workspace)).read(
            "main", "data/payment_amount_by_month__card.json"
        )
    )
    expected = own_sql(
        demo_db,
        "SELECT SUM(amount_rub) FROM dwh.fact_payment WHERE status = 'success' "
        "AND payment_date >= DATE '2025-01-01' AND payment_date < DATE '2026-01-01'",
    )
    assert Decimal(stored["rows"][0][0]) == expected


def test_a_builders_deviation_from_the_design_is_sent_back(run_build) -> None:
    agents = {"chart-builder": Sabotaged(rule_agents()["chart-builder"], bar_instead_of_line)}
    service, report = run_build(SMALL, agents=agents)
    assert report.status == "done", report.blocked
    charts = next(t for t in work_tasks(report) if t.step == "charts")
    assert charts.round == 2
    [first] = [
        verdict_of(service.store.comments(r.id)).verdict
        for r in reviews_of(report, charts)
        if r.round == 1
    ]
    assert first["verdict"] == "REQUESTS-REWORK"
    assert first["amendments"][0].startswith(
        "[CHART-007] payment_amount_by_month__chart: built as a bar chart"
    )
    built = json.loads(
        Workspace(Path(report.build.workspace)).read(
            "main", "charts/payment_amount_by_month__chart.json"
        )
    )
    assert built["spec"]["type"] == "line"


def test_a_missing_kpi_blocks_the_build_with_a_question(run_build) -> None:
    """The manager gate asks before the coordinator opens any task (tests/team/test_gate.py)."""
    brief = SMALL + "  - name: NPS\n    by: месяц\n"
    _service, report = run_build(brief)
    assert report.status == "blocked"
    assert report.tasks == []  # nothing opened, let alone built, on a brief nobody can define
    assert "[BRIEF-001] KPI «NPS» is not a metric of the catalog" in report.blocked[
        "questions"
    ] or ("[BRIEF-001] KPI «NPS» не найден в каталоге" in report.blocked["questions"])


def test_an_unreachable_breakdown_is_the_gates_question(run_build) -> None:
    """A breakdown no join path reaches stops the build at the gate, with the KPI's line
    (issue 31 item 3), before scoping opens."""
    brief = SMALL + "  - name: Сумма платежей\n    by: цвет глаз\n"
    _service, report = run_build(brief)
    assert report.status == "blocked" and report.tasks == []
    assert "[BRIEF-002]" in report.blocked["questions"]
    assert "цвет глаз" in report.blocked["questions"]


def test_the_move_to_the_next_phase_follows_the_chain_not_the_hint(run_build) -> None:
    """Scoping proposes NEXT-PHASE: publish; the coordinator opens the design phase anyway and
    says so."""
    hinted = Rewritten(
        rule_agents()["scoping"],
        lambda w, t: t.replace("NEXT-PHASE: design", "NEXT-PHASE: publish"),
    )
    service, report = run_build(SMALL, agents={"scoping": hinted})
    assert report.status == "done", report.blocked
    tasks = work_tasks(report)
    assert [t.phase for t in tasks] == ["scope", "design", "design", "build", "build", "build"]
    opened = next(c for c in service.store.comments(tasks[1].id) if c.author == "coordinator")
    assert opened.handoff["status"] == "PHASE-COMPLETE" and opened.handoff["next_phase"] == "design"
    assert "NEXT-PHASE 'publish'" in opened.text or "NEXT-PHASE «publish»" in opened.text
    phase_moves = [
        c.handoff
        for t in tasks
        for c in service.store.comments(t.id)
        if c.author == "coordinator" and c.handoff["status"] == "PHASE-COMPLETE"
    ]
    assert [h["next_phase"] for h in phase_moves] == ["design", "build"]
    assert report.build.phase == "publish"


def test_a_comment_without_a_block_is_asked_again_once(run_build) -> None:
    first_try = Rewritten(
        rule_agents()["dataset-architect"], lambda w, t: without_blocks(t) if w.attempt == 0 else t
    )
    service, report = run_build(SMALL, agents={"dataset-architect": first_try})
    assert report.status == "done", report.blocked
    dataset = next(t for t in work_tasks(report) if t.step == "dataset")
    comments = [c for c in service.store.comments(dataset.id) if c.author == "dataset-architect"]
    assert [bool(c.problems) for c in comments] == [True, False]
    assert comments[0].problems[0].startswith("no HANDOFF block")
    assert first_try.seen[1].reminder and "===HANDOFF===" in first_try.seen[1].reminder
    assert len([w for w in first_try.seen if w.attempt > 0]) == 1


def test_a_role_that_never_writes_a_block_is_escalated(run_build) -> None:
    never = Rewritten(rule_agents()["dataset-architect"], lambda w, t: without_blocks(t))
    _service, report = run_build(SMALL, agents={"dataset-architect": never})
    assert report.status == "blocked"
    assert len(never.seen) == 2  # the first comment and one retry: bounded
    assert (
        "дважды не оставил(а) корректный блок передачи" in report.blocked["reason"]
    )  # the brief is Russian
    assert [t.step for t in work_tasks(report)] == ["scoping", "dataset"]


def test_a_wrong_next_on_a_terminal_status_is_ignored(run_build) -> None:
    wrong = Rewritten(
        rule_agents()["scoping"], lambda w, t: t.replace("NEXT: coordinator", "NEXT: chart-builder")
    )
    service, report = run_build(SMALL, agents={"scoping": wrong})
    assert report.status == "done", report.blocked
    scoping = work_tasks(report)[0]
    assert [r.role for r in reviews_of(report, scoping)] == ["data-steward"]  # the chain's reviewer
    ignored = [e for e in service.store.audit_log(report.build.id) if e.action == "route"]
    assert [(e.actor, e.detail["ignored_next"]) for e in ignored] == [("scoping", "chart-builder")]
    charts = next(t for t in work_tasks(report) if t.step == "charts")
    first_for_chart_builder = min(
        e.id for e in service.store.audit_log(report.build.id) if e.actor == "chart-builder"
    )
    assert first_for_chart_builder > max(
        e.id
        for e in service.store.audit_log(report.build.id, task_id=charts.id)
        if e.action == "open_task"
    )


def test_the_english_weekly_brief(run_build, demo_db: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    service, report = run_build(EXAMPLES / "briefs" / "wallets-cards-q3.yaml", out=out)
    assert report.status == "done", report.blocked
    bundle = json.loads((out / "dashboard.json").read_text(encoding="utf-8"))
    assert bundle["language"] == "en" and bundle["subtitle"] == "Q3 2026 · product team"
    weekly = next(e for e in bundle["elements"] if e["id"] == "wallets_opened_by_week__chart")
    assert (
        weekly["title"] == "Wallets opened by week" and len(weekly["spec"]["data"]["labels"]) == 14
    )
    expected = own_sql(
        demo_db,
        "SELECT COUNT(*) FROM dwh.fact_wallet_opening "
        "WHERE open_date BETWEEN DATE '2026-07-01' AND DATE '2026-09-30'",
    )
    card = next(e for e in bundle["elements"] if e["id"] == "wallets_opened_by_week__card")
    assert Decimal(str(card["spec"]["data"]["items"][0]["raw"])) == expected
    assert (
        sum(weekly["spec"]["data"]["datasets"][0]["data"]) == expected
    )  # weeks cut at the quarter's edges
    comments = [
        c for t in report.tasks for c in service.store.comments(t.id) if c.author == "coordinator"
    ]
    assert comments[0].text.startswith("Brief read: 3 KPIs.")
