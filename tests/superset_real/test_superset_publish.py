"""A team-built dashboard published to a real Superset 6, re-published without duplicates,
reviewed in chromium with every chart drawn; a broken chart caught and sent back; the known
traps of Superset's import met on purpose and handled."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from vitrina.team.agents.base import WorkItem
from vitrina.team.agents.rules.dashboard_builder import DashboardBuilderRules
from vitrina.team.lifecycle import TaskKind
from vitrina.team.publish import DashboardBundle
from vitrina.team.publish.superset import SupersetPublisher
from vitrina.team.publish.superset_bundle import dashboard_slug, superset_name
from vitrina.team.toolbox import Toolbox

TODAY = date(2026, 11, 30)
BRIEF = (
    "title: Карты 2025\nperiod: 2025 год\nkpis:\n  - name: Выпущено карт\n    by: месяц\n"
    "  - name: Открыто кошельков\n    by: регион\n  - Новые клиенты\n"
)


def _build(tmp_path: Path, warehouse: dict, target, *, agents=None, brief: str = BRIEF):
    from vitrina.config import load_settings
    from vitrina.team.service import BuildService

    path = tmp_path / "brief.yaml"
    path.write_text(brief, encoding="utf-8")
    service = BuildService(
        load_settings(db_url=warehouse["vitrina_url"]),
        board=f"sqlite:///{tmp_path / 'board.sqlite'}",
        today=TODAY,
        agents=agents,
        browser=True,
        superset=target,
    )
    return service, service.run(path, out=tmp_path / "out")


def _count(client, kind: str, column: str, value: str) -> int:
    return len(client.find(kind, column, value))


def _dashboard_reviews(service, report):
    work = next(t for t in report.tasks if t.kind is TaskKind.WORK and t.step == "dashboard")
    return [t for t in service.store.tasks(report.build.id) if t.parent_id == work.id]


def test_a_team_build_is_published_reviewed_in_superset_and_republished_without_duplicates(
    tmp_path: Path, superset_warehouse: dict, superset_target, superset_client
) -> None:
    service, report = _build(tmp_path, superset_warehouse, superset_target)
    try:
        assert report.status == "done", report.blocked
        bundle = DashboardBundle.model_validate_json(
            (tmp_path / "out" / "dashboard.json").read_text()
        )
        (superset,) = [p for p in report.build.result["publications"] if p["target"] == "superset"]
        assert superset["location"].startswith(superset_target.url + "/superset/dashboard/")
        # the dashboard reviewer saw the Superset page with every chart drawn
        (review,) = _dashboard_reviews(service, report)
        names = [a.name for a in service.store.attachments(review.id)]
        assert "superset.png" in names and "screenshot.png" in names
        shot = next(a for a in service.store.attachments(review.id) if a.name == "superset.png")
        assert Path(shot.path).stat().st_size > 10_000
        dashboard = superset_client.get("dashboard", dashboard_slug(bundle))
        assert dashboard["published"] is True
        linked = {c["id"] for c in superset_client.dashboard_charts(dashboard["id"])}
        assert len(linked) == len(bundle.elements) == 5

        publisher = SupersetPublisher(superset_target)
        again = publisher.publish(bundle, {})
        assert again.location == superset["location"]
        assert publisher.last is not None and publisher.last.ok
        assert _count(superset_client, "dashboard", "slug", dashboard_slug(bundle)) == 1
        for element in bundle.elements:
            assert _count(superset_client, "chart", "uuid", element.uuid) == 1
        for dataset in bundle.datasets:
            name = superset_name(bundle.id, dataset.id, bundle.uuid)
            assert _count(superset_client, "dataset", "table_name", name) == 1
        assert {c["id"] for c in superset_client.dashboard_charts(dashboard["id"])} == linked
        names = [d["database_name"] for d in superset_client.databases()]
        assert names.count(superset_target.database.name) == 1
        # the numbers Superset shows are the warehouse's: the card's data call, in full
        card = next(e for e in bundle.elements if e.id == "new_clients__card")
        chart_id = superset_client.find("chart", "uuid", card.uuid)[0]["id"]
        status, body = superset_client.status("GET", f"/api/v1/chart/{chart_id}/data/")
        assert status == 200
        value = body["result"][0]["data"][0]["new_clients"]
        assert value == card.spec["data"]["items"][0]["raw"]
    finally:
        service.close()


class BreaksOneChartOnce:
    """The dashboard builder by rules, except that its first build names a metric the
    dataset does not have (Superset imports that silently)."""

    def __init__(self) -> None:
        self.rules = DashboardBuilderRules()
        self.broke = False

    def act(self, work: WorkItem, tools: Toolbox) -> str:
        comment = self.rules.act(work, tools)
        if work.mode == "work" and not self.broke:
            raw = json.loads(tools.read_artifact("dashboard/dashboard.json") or "{}")
            chart = next(e for e in raw["elements"] if e["kind"] == "chart")
            chart["metrics"] = ["no_such_metric"]
            tools.write_artifacts(
                {"dashboard/dashboard.json": json.dumps(raw, ensure_ascii=False)}, "a chart"
            )
            self.broke = True
        return comment


def test_a_chart_with_an_unknown_metric_is_caught_in_superset_and_sent_back(
    tmp_path: Path, superset_warehouse: dict, superset_target, superset_client
) -> None:
    brief = BRIEF.replace("Карты 2025", "Карты 2025 (ошибка)")
    service, report = _build(
        tmp_path,
        superset_warehouse,
        superset_target,
        agents={"dashboard-builder": BreaksOneChartOnce()},
        brief=brief,
    )
    try:
        assert report.status == "done", report.blocked
        first, second = _dashboard_reviews(service, report)
        verdicts = [c.text for c in service.store.comments(first.id) if "===VERDICT===" in c.text]
        assert verdicts and "REQUESTS-REWORK" in verdicts[-1]
        assert "[SUP-002]" in verdicts[-1] and "no_such_metric" in verdicts[-1]
        assert "[SUP-005]" in verdicts[-1]  # the page shows the error too ("Data error")
        assert "[SUP-006]" in verdicts[-1]  # and that chart is not drawn
        final = [c.text for c in service.store.comments(second.id) if "===VERDICT===" in c.text]
        assert "REVIEW-VERDICT: APPROVED" in final[-1]
        bundle = DashboardBundle.model_validate_json(
            (tmp_path / "out" / "dashboard.json").read_text()
        )
        assert all(e.metrics != ["no_such_metric"] for e in bundle.elements)
        for element in bundle.elements:  # the rework updated the draft's charts, no copies
            assert _count(superset_client, "chart", "uuid", element.uuid) == 1
    finally:
        service.close()


@pytest.fixture
def published(tmp_path: Path, superset_warehouse: dict, superset_target):
    """A bundle built by the team (HTML only) and published once to Superset by hand."""
    service, report = _build(
        tmp_path, superset_warehouse, None, brief=BRIEF.replace("2025", "2025 г.")
    )
    service.close()
    assert report.status == "done", report.blocked
    bundle = DashboardBundle.model_validate_json((tmp_path / "out" / "dashboard.json").read_text())
    publisher = SupersetPublisher(superset_target)
    publisher.publish(bundle, {})
    return bundle, publisher


def test_the_known_traps_are_met_and_handled(published, superset_client) -> None:
    bundle, publisher = published
    # 1. a dataset name Superset holds under another UUID: the import would fail
    renamed = bundle.model_copy(deep=True)
    renamed.datasets[0].uuid = "00000000-0000-4000-8000-000000000001"
    publisher.publish(renamed, {})
    assert any("[SUP-001]" in n for n in publisher.last.notes)
    name = superset_name(bundle.id, bundle.datasets[0].id, bundle.uuid)
    assert _count(superset_client, "dataset", "table_name", name) == 1
    # 2. a chart without its query_context: every data call fails until it is written again
    chart_id = superset_client.find("chart", "uuid", bundle.elements[-1].uuid)[0]["id"]
    superset_client.put("chart", chart_id, {"query_context": None})
    status, _ = superset_client.status("GET", f"/api/v1/chart/{chart_id}/data/")
    assert status == 400
    # 3. a chart taken off the dashboard's list
    superset_client.put("chart", chart_id, {"dashboards": []})
    dashboard = superset_client.get("dashboard", dashboard_slug(bundle))
    assert chart_id not in {c["id"] for c in superset_client.dashboard_charts(dashboard["id"])}
    with publisher.client() as client:
        client.login()
        ids = {
            d.uuid: superset_client.find("dataset", "uuid", d.uuid)[0]["id"]
            for d in bundle.datasets
        }
        verification = publisher.verify(client, bundle, ids, notes := [])
    assert verification.ok, verification
    assert any("[SUP-004]" in n for n in notes) and any("[SUP-003]" in n for n in notes)
    assert chart_id in {c["id"] for c in superset_client.dashboard_charts(dashboard["id"])}
    # 4. an unknown metric imports without a word; the verification after it does not
    broken = bundle.model_copy(deep=True)
    broken.elements[-1].metrics = ["no_such_metric"]
    verification = publisher.push(broken)
    assert not verification.ok
    assert [c.element for c in verification.failed] == [bundle.elements[-1].id]
    assert "no_such_metric" in verification.failed[0].message


def test_an_edited_brief_and_a_republish_update_the_same_superset_dashboard(
    tmp_path: Path, superset_warehouse: dict, superset_target, superset_client
) -> None:
    """Publish, edit the brief (a new title, one KPI more), build again, then `--republish`:
    one dashboard of the same UUID and slug, its title and charts updated, no chart or
    dataset twice (issue 31 item 4)."""
    from vitrina.team.republish import republish
    from vitrina.team.service import default_publishers

    service, first = _build(tmp_path, superset_warehouse, superset_target)
    service.close()
    assert first.status == "done", first.blocked
    before = DashboardBundle.model_validate_json((tmp_path / "out" / "dashboard.json").read_text())
    edited = BRIEF.replace("Карты 2025", "Карты 2025, правка") + "  - Сумма платежей\n"
    service, second = _build(tmp_path, superset_warehouse, superset_target, brief=edited)
    try:
        assert second.status == "done", second.blocked
        assert second.build.result["dashboard_of"] == first.build.id
        after = DashboardBundle.model_validate_json(
            (tmp_path / "out" / "dashboard.json").read_text()
        )
        assert after.uuid == before.uuid and after.version == 2
        assert len(after.elements) > len(before.elements)
        slug = dashboard_slug(after)
        assert _count(superset_client, "dashboard", "slug", slug) == 1
        dashboard = superset_client.get("dashboard", slug)
        assert dashboard["dashboard_title"] == after.title  # updated in place
        for element in after.elements:
            assert _count(superset_client, "chart", "uuid", element.uuid) == 1
        linked = {c["id"] for c in superset_client.dashboard_charts(dashboard["id"])}
        assert len(linked) >= len(after.elements)
        for dataset in after.datasets:
            name = superset_name(after.id, dataset.id, after.uuid)
            assert _count(superset_client, "dataset", "table_name", name) == 1
        again = republish(
            service.store,
            second.build.id,
            lambda b: default_publishers(service.settings, b, superset_target),
        )
        assert again.version == 3
        assert _count(superset_client, "dashboard", "slug", slug) == 1
        for element in after.elements:
            assert _count(superset_client, "chart", "uuid", element.uuid) == 1
    finally:
        service.close()
