"""Publishing to Apache Superset 6 through its import bundles, then verifying what it did.

The order is what Superset's importers need: the datasets first (a dashboard import never
overwrites the datasets or charts it carries, so each kind is imported on its own with
``overwrite``), then their ids are looked up so the charts' ``query_context`` names the real
dataset, then the charts, then the dashboard, whose position links every chart by UUID.
A re-publish of the same bundle updates the same objects.

Known traps, each handled here and written to the publication's notes:
- a dataset name already taken by another UUID fails the import: the existing dataset of
  that name (ours: the name holds the bundle's UUID) lends its UUID to the bundle;
- an import does not check that a chart's metric exists: every chart's data endpoint is
  called after the import, and a chart that does not answer 200 is a finding;
- a chart without a saved query_context fails its data calls: it is written again;
- a chart missing from the dashboard's chart list is linked through the chart's API.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from vitrina.team.errors import TeamError
from vitrina.team.publish.bundle import DashboardBundle, Publication
from vitrina.team.publish.superset_bundle import (
    SupersetDatabase,
    chart_plans,
    dashboard_slug,
    database_file,
    import_zip,
    query_context,
    superset_name,
)
from vitrina.team.publish.superset_client import SupersetClient, SupersetError

MAX_ERRORS = 20  # chart problems kept in a verification


class PublishError(TeamError):
    """Superset refused the bundle or the published dashboard does not work."""


@dataclass
class SupersetTarget:
    """Where and as whom to publish (the password comes from settings, never from a file)."""

    url: str
    username: str
    password: str
    database: SupersetDatabase


@dataclass
class ChartCheck:
    element: str
    chart_id: int
    status: int
    message: str = ""


@dataclass
class Verification:
    dashboard_id: int
    url: str
    charts: list[ChartCheck] = field(default_factory=list)
    unlinked: list[str] = field(default_factory=list)  # element ids not on the dashboard
    notes: list[str] = field(default_factory=list)

    @property
    def failed(self) -> list[ChartCheck]:
        return [c for c in self.charts if c.status != 200]

    @property
    def ok(self) -> bool:
        return not self.failed and not self.unlinked and bool(self.charts)


def _resolve_datasets(
    client: SupersetClient, bundle: DashboardBundle, notes: list[str]
) -> DashboardBundle:
    """The bundle with each dataset's UUID replaced by the one Superset already has for its name."""
    datasets = []
    for dataset in bundle.datasets:
        name = superset_name(bundle.id, dataset.id, bundle.uuid)
        existing = client.find("dataset", "table_name", name)
        uuids = {str(d.get("uuid") or "") for d in existing}
        uuids.discard("")
        if uuids and dataset.uuid not in uuids:
            taken = sorted(uuids)[0]
            notes.append(
                f"[SUP-001] dataset {name} exists with UUID {taken}: re-used instead of "
                f"{dataset.uuid}"
            )
            dataset = dataset.model_copy(update={"uuid": taken})
        datasets.append(dataset)
    return bundle.model_copy(update={"datasets": datasets})


def _resolve_database(
    client: SupersetClient, database: SupersetDatabase, notes: list[str]
) -> SupersetDatabase:
    """A database of the same name keeps its UUID (its name is unique in Superset)."""
    for row in client.databases():
        if row.get("database_name") == database.name:
            uuid = str(client.get("database", row["id"]).get("uuid") or row.get("uuid") or "")
            if uuid and uuid != database.key():
                notes.append(
                    f"[SUP-001] database «{database.name}» exists with UUID {uuid}: re-used"
                )
                return SupersetDatabase(database.name, database.sqlalchemy_uri, uuid)
    return database


def dataset_ids(client: SupersetClient, bundle: DashboardBundle) -> dict[str, int]:
    """Superset's id of every dataset of the bundle, by the dataset's UUID."""
    out: dict[str, int] = {}
    for dataset in bundle.datasets:
        for row in client.find("dataset", "uuid", dataset.uuid):
            out[dataset.uuid] = int(row["id"])
    missing = [d.id for d in bundle.datasets if d.uuid not in out]
    if missing:
        raise PublishError(f"Superset has no dataset for the views {missing} after the import")
    return out


def chart_ids(client: SupersetClient, bundle: DashboardBundle) -> dict[str, int]:
    """Superset's id of every element's chart, by the element's UUID."""
    out: dict[str, int] = {}
    for element in bundle.elements:
        rows = client.find("chart", "uuid", element.uuid)
        if rows:
            out[element.uuid] = int(rows[0]["id"])
    return out


class SupersetPublisher:
    """`Publisher` for Superset: import, look up, repair the known traps, verify."""

    target = "superset"

    def __init__(self, target: SupersetTarget, *, published: bool = True) -> None:
        self.config = target
        self.published = published
        self.last: Verification | None = None

    def client(self) -> SupersetClient:
        return SupersetClient(self.config.url, self.config.username, self.config.password)

    def publish(self, bundle: DashboardBundle, files: dict[str, bytes]) -> Publication:
        verification = self.push(bundle)
        if not verification.ok:
            raise PublishError(describe(verification))
        return Publication(
            target=self.target,
            dashboard_uuid=bundle.uuid,
            location=verification.url,
            files=[f"notes: {n}" for n in verification.notes],
        )

    def push(self, bundle: DashboardBundle) -> Verification:
        """Import the bundle and verify it; the verification says what does not work."""
        with self.client() as client:
            try:
                client.login()
            except SupersetError as exc:
                raise PublishError(
                    f"cannot log in to Superset at {self.config.url}: {exc}"
                ) from exc
            notes: list[str] = []
            try:
                verification = self._push(client, bundle, notes)
            except SupersetError as exc:
                raise PublishError(f"Superset refused the dashboard: {exc}") from exc
            verification.notes = notes + verification.notes
            self.last = verification
            return verification

    def _push(
        self, client: SupersetClient, bundle: DashboardBundle, notes: list[str]
    ) -> Verification:
        database = _resolve_database(client, self.config.database, notes)
        bundle = _resolve_datasets(client, bundle, notes)
        _uri, password = database.masked()
        passwords = {database_file(database): password} if password else None
        client.import_bundle(
            "dataset", import_zip(bundle, database, kind="SqlaTable"), passwords=passwords
        )
        ids = dataset_ids(client, bundle)
        client.import_bundle(
            "chart",
            import_zip(bundle, database, kind="Slice", dataset_ids=ids),
            passwords=passwords,
        )
        charts = chart_ids(client, bundle)
        client.import_bundle(
            "dashboard",
            import_zip(
                bundle,
                database,
                kind="Dashboard",
                dataset_ids=ids,
                chart_ids=charts,
                published=self.published,
            ),
            passwords=passwords,
        )
        return self.verify(client, bundle, ids, notes)

    def verify(
        self,
        client: SupersetClient,
        bundle: DashboardBundle,
        ids: dict[str, int],
        notes: list[str],
    ) -> Verification:
        slug = dashboard_slug(bundle)
        dashboard = client.get("dashboard", slug)
        dashboard_id = int(dashboard["id"])
        verification = Verification(
            dashboard_id=dashboard_id, url=f"{client.url}/superset/dashboard/{dashboard_id}/"
        )
        charts = chart_ids(client, bundle)
        linked = {int(c["id"]) for c in client.dashboard_charts(dashboard_id)}
        plans = {p.element.uuid: p for p in chart_plans(bundle)}
        for element in bundle.elements:
            chart_id = charts.get(element.uuid)
            if chart_id is None:
                verification.charts.append(ChartCheck(element.id, 0, 404, "not imported"))
                continue
            if chart_id not in linked:  # trap: a chart outside the dashboard's list
                client.put("chart", chart_id, {"dashboards": [dashboard_id]})
                notes.append(
                    f"[SUP-003] chart {element.id} was not linked to the dashboard: linked"
                )
            status, body = client.status("GET", f"/api/v1/chart/{chart_id}/data/")
            if status == 400 and "query context" in _data_error(body).lower():
                # trap: a chart without a saved query fails every data call; write it, ask again
                plan = plans[element.uuid]
                context = query_context(plan, ids[plan.dataset.uuid])
                client.put("chart", chart_id, {"query_context": json.dumps(context)})
                notes.append(f"[SUP-004] chart {element.id} had no query_context: written")
                status, body = client.status("GET", f"/api/v1/chart/{chart_id}/data/")
            message = "" if status == 200 else _data_error(body)
            if status == 200 and _data_error(body):
                status, message = 422, _data_error(body)
            verification.charts.append(ChartCheck(element.id, chart_id, status, message))
        linked = {int(c["id"]) for c in client.dashboard_charts(dashboard_id)}
        verification.unlinked = [
            e.id for e in bundle.elements if charts.get(e.uuid) and charts[e.uuid] not in linked
        ]
        return verification


def _data_error(body: dict[str, Any]) -> str:
    """The error a chart data answer carries (a 200 with an error inside counts too)."""
    for result in body.get("result") or []:
        if isinstance(result, dict) and result.get("error"):
            return str(result["error"])[:300]
    for key in ("message", "errors"):
        if body.get(key):
            return str(body[key])[:300]
    return ""


def describe(verification: Verification) -> str:
    lines = [f"chart {c.element}: HTTP {c.status} {c.message}" for c in verification.failed]
    lines += [f"chart {e} is not on the dashboard" for e in verification.unlinked]
    if not verification.charts:
        lines.append("the dashboard has no charts")
    return "; ".join(lines[:MAX_ERRORS])
