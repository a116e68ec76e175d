"""Dashboard builder by rules: the designed elements on a 12-column grid, rendered as the
HTML dashboard with its local assets, written under dashboard/ in the branch."""

from __future__ import annotations

import json
from typing import Any

from vitrina.team.agents.base import WorkItem, codes, handoff
from vitrina.team.agents.rules.common import blocked, design_of, done, unchanged_rework
from vitrina.team.data.layout import WIDTHS, card_width, grid
from vitrina.team.lifecycle import HandoffStatus
from vitrina.team.messages import text
from vitrina.team.publish import DashboardBundle, DashboardElement, DatasetRef
from vitrina.team.publish.bundle import stable_uuid
from vitrina.team.republish import dashboard_owner, uuid_key
from vitrina.team.toolbox import Toolbox

KNOWN_FIXES = {"WEB-004"}


def _wider(width: int) -> int:
    return next((w for w in WIDTHS if w > width), 12)


def cut_elements(elements: list[dict[str, Any]], amendments: list[str]) -> list[dict[str, Any]]:
    """The cells whose title or value a WEB-004 amendment names (every card when none is named)."""
    cut = [a for a in amendments if "[WEB-004]" in a]

    def texts(e: dict[str, Any]) -> list[str]:
        values = [i["value"] for i in e["spec"]["data"]["items"]] if e["kind"] == "card" else []
        return [t[:40] for t in [e["title"], *values] if t]

    named = [e for e in elements if any(t in a for a in cut for t in texts(e))]
    return named or [e for e in elements if e["kind"] == "card"]


class DashboardBuilderRules:
    def act(self, work: WorkItem, tools: Toolbox) -> str:
        if work.mode == "amendments":
            unknown = [a for a in work.amendments if not (codes([a]) & KNOWN_FIXES)]
            if unknown:
                return blocked(text("cannot_apply", work.lang), unknown)
        spec = tools.read_spec()
        presentation = spec["presentation"]
        widen = work.mode == "amendments"
        elements: list[dict[str, Any]] = []
        for element in presentation["elements"]:
            raw = tools.read_artifact(f"charts/{element['id']}.json")
            if raw is None:
                return blocked(
                    text("data_blocked", work.lang), [f"[DASH-004] {element['id']}: no built chart"]
                )
            chart = json.loads(raw)["spec"]
            width = int(element["w"])
            if element["kind"] == "card":
                value = " ".join(item["value"] for item in chart["data"]["items"])
                width = max(width, card_width(value))
            notes = spec.get("build_notes", {}).get("dashboard-builder", {})
            width = max(width, int(notes.get("widths", {}).get(element["id"], 0)))
            elements.append({**element, "w": width, "spec": chart})
        if widen:
            for element in cut_elements(elements, work.amendments):
                element["w"] = _wider(int(element["w"]))
        cards = [e for e in elements if e["kind"] == "card"]
        if cards:  # one width for every card, so the rows of cards line up
            widest = max(int(e["w"]) for e in cards)
            for card in cards:
                card["w"] = widest
        placed = grid(elements)
        key = uuid_key(work.build)  # an edited brief's build keeps the dashboard's UUIDs
        datasets = [
            DatasetRef(
                id=v.id,
                uuid=stable_uuid(key, "dataset", v.id),
                sql=tools.read_artifact(f"datasets/{v.id}.sql") or v.sql,
                columns=v.columns,
            )
            for v in design_of(spec).views
        ]
        bundle = DashboardBundle(
            id=f"build-{dashboard_owner(work.build)}",
            uuid=stable_uuid(key, "dashboard"),
            title=presentation["title"],
            subtitle=presentation.get("subtitle", ""),
            language=presentation["language"],
            datasets=datasets,
            elements=[
                DashboardElement(
                    id=e["id"],
                    uuid=stable_uuid(key, "element", e["id"]),
                    kind=e["kind"],
                    kpi=e["kpi"],
                    view=e["view"],
                    title=e["title"],
                    subtitle=e.get("subtitle", ""),
                    caption=e.get("caption", ""),
                    chart_kind=e["decision"]["kind"],
                    spec=e["spec"],
                    x_column=e["decision"].get("x"),
                    metrics=list(e["decision"].get("y_columns") or []),
                    x=e["x"],
                    y=e["y"],
                    w=e["w"],
                    h=e["h"],
                )
                for e in placed
            ],
        )
        files = {f"dashboard/{name}": data for name, data in tools.render_dashboard(bundle).items()}
        changed = tools.write_artifacts(files, f"dashboard with {len(placed)} elements") is not None
        widths = {e["id"]: e["w"] for e in placed}
        changed = (
            tools.write_spec("build_notes", {"widths": widths, "elements": len(placed)}) is not None
        ) or changed
        if work.mode == "amendments":
            return handoff(
                f"{text('amendments_done', work.lang)}\n- [WEB-004] "
                + ", ".join(f"{k}: {v}" for k, v in widths.items()),
                HandoffStatus.AMENDMENTS_APPLIED,
            )
        if reply := unchanged_rework(work, changed):
            return reply
        return done(
            text("dashboard_done", work.lang, elements=len(placed)),
            HandoffStatus.BUILD_COMPLETE,
            work,
        )
