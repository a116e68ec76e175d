"""Publishing in place (issue 31 item 4): `vitrina build --republish N` writes the same
dashboard folder again (one folder, the version recorded in the page's data and on the
board), an edited brief on a finished build is the next version of the same dashboard (the
same folder and UUIDs, the new content), and the Superset import bundle of both carries the
same UUIDs, so Superset's overwrite updates instead of duplicating."""

from __future__ import annotations

import io
import json
import os
import zipfile
from pathlib import Path

import pytest
import yaml
from tests.conftest import cli_main

from vitrina.team.publish import DashboardBundle
from vitrina.team.publish.superset_bundle import SupersetDatabase, import_zip
from vitrina.team.service import dashboards_dir

SMALL = "title: Карты 2025\nperiod: 2025 год\nkpis:\n  - name: Выпущено карт\n    by: тип карты\n"
EDITED = SMALL.replace("Карты 2025", "Карты 2025, правка").replace(
    "    by: тип карты\n", "    by: тип карты\n  - Новые клиенты\n"
)


def _bundle(folder: Path) -> DashboardBundle:
    return DashboardBundle.model_validate_json((folder / "dashboard.json").read_text("utf-8"))


def _uuids(zipped: bytes) -> dict[str, set[str]]:
    """Every object's UUID in a Superset import ZIP, by its folder (datasets, charts, ...)."""
    found: dict[str, set[str]] = {}
    with zipfile.ZipFile(io.BytesIO(zipped)) as archive:
        for name in archive.namelist():
            if name.endswith(".yaml") and not name.endswith("metadata.yaml"):
                doc = yaml.safe_load(archive.read(name))
                found.setdefault(name.split("/")[1], set()).add(doc["uuid"])
    return found


def test_republish_writes_the_same_folder_again_with_the_next_version(
    run_build, demo_db, capsys, tmp_path
) -> None:
    home = Path(os.environ["VITRINA_HOME"])
    board = f"sqlite:///{tmp_path / 'board.sqlite'}"
    service, report = run_build(SMALL, board=board)
    assert report.status == "done", report.blocked
    build = report.build.id
    folder = dashboards_dir(home) / f"build-{build}"
    assert _bundle(folder).version == 1 and report.build.result["version"] == 1
    (folder / "stale.txt").write_text("left from an earlier publication")
    args = ("--db", f"duckdb:///{demo_db}", "--board", board)
    code, out = cli_main(capsys, "build", "--republish", str(build), *args)
    assert code == 0 and f"build {build} · version 2" in out, out
    assert sorted(p.name for p in dashboards_dir(home).iterdir()) == [f"build-{build}"]
    assert not (folder / "stale.txt").exists()  # replaced whole, in place
    again = _bundle(folder)
    assert again.version == 2 and again.uuid == report.build.result["dashboard_uuid"]
    assert '"version": 2' in (folder / "index.html").read_text("utf-8")
    stored = service.store.get_build(build)
    assert stored.result["version"] == 2 and stored.result["location"] == str(folder / "index.html")
    assert [a.outcome for a in service.store.audit_log(build) if a.action == "republish"] == [
        "done"
    ]
    code, out = cli_main(capsys, "build", "--republish", "999", *args)
    assert code == 1 and "no build 999" in out
    code, out = cli_main(capsys, "build", "--json", "--republish", str(build), *args)
    assert code == 0 and json.loads(out)["version"] == 3


def test_republish_refuses_an_unfinished_build(run_build, demo_db, capsys, tmp_path) -> None:
    board = f"sqlite:///{tmp_path / 'board.sqlite'}"
    service, report = run_build(SMALL, board=board)
    service.store.update_build(report.build.id, status="running")
    code, out = cli_main(capsys, "build", "--republish", str(report.build.id),
                         "--db", f"duckdb:///{demo_db}", "--board", board)  # fmt: skip
    assert code == 1 and "not finished" in out and "vitrina build" in out
    code, out = cli_main(capsys, "build", "--board", board)  # neither a brief nor a build
    assert code == 1 and "a brief is needed" in out and "--republish N" in out


def test_an_edited_brief_is_the_next_version_of_the_same_dashboard(run_build, tmp_path) -> None:
    home = Path(os.environ["VITRINA_HOME"])
    board = f"sqlite:///{tmp_path / 'board.sqlite'}"
    brief = tmp_path / "cards.yaml"
    brief.write_text(SMALL, encoding="utf-8")
    _, first = run_build(brief, board=board)
    assert first.status == "done", first.blocked
    folder = dashboards_dir(home) / f"build-{first.build.id}"
    before = _bundle(folder)
    brief.write_text(EDITED, encoding="utf-8")  # the requester edits the finished brief
    service, second = run_build(brief, board=board)
    assert second.status == "done", second.blocked
    assert second.build.id != first.build.id  # its own board: tasks, reviews
    assert second.build.result["dashboard_of"] == first.build.id
    assert sorted(p.name for p in dashboards_dir(home).iterdir()) == [folder.name]
    after = _bundle(folder)
    assert after.version == 2 and after.title != before.title  # the new content, in place
    assert after.id == before.id and after.uuid == before.uuid
    shared = {e.id for e in before.elements} & {e.id for e in after.elements}
    assert shared and all(
        a.uuid == b.uuid for a in before.elements for b in after.elements if a.id == b.id
    )
    assert len(after.elements) > len(before.elements)  # the KPI the edit added
    assert second.location == str(folder / "index.html")
    # Superset: the import bundles of both versions carry the same dashboard and object UUIDs
    database = SupersetDatabase("Vitrina warehouse", "postgresql://reader@localhost/dwh")
    old, new = _uuids(import_zip(before, database)), _uuids(import_zip(after, database))
    assert old["dashboards"] == new["dashboards"] == {before.uuid}
    assert old["charts"] <= new["charts"] and old["datasets"] <= new["datasets"]
    assert old["databases"] == new["databases"]
    audit = [a.action for a in service.store.audit_log(second.build.id)]
    assert "new_version" in audit
    from vitrina.team.errors import TeamError
    from vitrina.team.republish import republish

    with pytest.raises(TeamError, match=f"newer version from build {second.build.id}"):
        republish(service.store, first.build.id, lambda b: [])  # would roll v2 back


def test_a_lead_publishes_again_from_the_board_page_and_a_viewer_cannot(
    run_build, make_service
) -> None:
    from fastapi.testclient import TestClient
    from playwright.sync_api import sync_playwright

    from vitrina.server import ServeOptions, create_app
    from vitrina.server.store import Store
    from vitrina.server.tokens import create_token
    from vitrina.team import board_url
    from vitrina.team.review.browser import CHROMIUM, CHROMIUM_ARGS, chromium_problem

    from .test_board_people_web import _serve

    if chromium_problem():
        pytest.skip(chromium_problem())
    home = Path(os.environ["VITRINA_HOME"])
    builder, report = run_build(SMALL, board=board_url(None, home))
    assert report.status == "done", report.blocked
    service = make_service()
    app = create_app(service.settings, ServeOptions(), service=service)
    store = Store.from_settings(service.settings)
    lead, viewer = create_token(store, "lead", "admin"), create_token(store, "eve", "viewer")
    store.close()
    url = f"/api/board/builds/{report.build.id}/republish"
    with TestClient(app) as client:
        refused = client.post(url, headers={"Authorization": f"Bearer {viewer}"})
        assert refused.status_code == 403 and refused.json()["error"]["code"] == "board_read_only"
    server, thread, port = _serve(app)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for token, can in ((viewer, False), (lead, True)):
                page = browser.new_page(viewport={"width": 1440, "height": 900})
                page.add_init_script(f"localStorage.setItem('vitrina.token', {token!r})")
                page.goto(f"http://127.0.0.1:{port}/board")
                page.wait_for_selector("body[data-ready='1']", state="attached", timeout=15000)
                page.wait_for_selector("#build-actions", state="attached", timeout=10000)
                button = page.locator("#build-actions button[data-action='republish']")
                assert button.count() == (1 if can else 0)
            button.click()
            page.wait_for_selector("body[data-acted='republish']", state="attached", timeout=20000)
            assert "v2" in page.locator("#republish-result").inner_text()
            browser.close()
    finally:
        server.should_exit = True  # type: ignore[attr-defined]
        thread.join(timeout=10)
    folder = dashboards_dir(home) / f"build-{report.build.id}"
    assert _bundle(folder).version == 2
    assert builder.store.get_build(report.build.id).result["version"] == 2
    denied = [a for a in builder.store.audit_log(report.build.id) if a.action == "republish"]
    assert [a.outcome for a in denied] == ["denied", "done"]
