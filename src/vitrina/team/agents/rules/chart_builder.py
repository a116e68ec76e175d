"""Chart builder by rules: the designed chart of every element, from the built data only."""

from __future__ import annotations

import json
from typing import Any

from vitrina.present.charts import ChartDecision
from vitrina.team.agents.base import WorkItem
from vitrina.team.agents.rules.common import (
    blocked,
    design_of,
    done,
    metas_of,
    stored_result,
    unchanged_rework,
)
from vitrina.team.lifecycle import HandoffStatus
from vitrina.team.messages import text
from vitrina.team.publish.polish import polish
from vitrina.team.review.context import ReviewContext
from vitrina.team.toolbox import Toolbox


def review_context(tools: Toolbox, spec: dict[str, Any]) -> ReviewContext:
    """The dashboard's language, audience and the catalog's dictionaries (checklist, polish)."""
    return ReviewContext(
        language=spec.get("presentation", {}).get("language") or tools.ctx.lang,
        audience=str(spec.get("scope", {}).get("audience") or ""),
        dictionaries=list(tools.ctx.catalog.dictionaries.values()),
    )


def expected_spec(
    tools: Toolbox, element: dict[str, Any], spec: dict[str, Any]
) -> dict[str, Any] | None:
    """The chart the design and the built data give for one element (None without data),
    with the reviewer's checklist applied (labels, order, units, board formats)."""
    view = next((v for v in design_of(spec).views if v.id == element["view"]), None)
    result = stored_result(tools, element["view"]) if view else None
    if view is None or result is None:
        return None
    chart = tools.chart_spec(
        ChartDecision.model_validate(element["decision"]), result, metas_of(view)
    )
    return polish(chart, element, view.columns, review_context(tools, spec))


class ChartBuilderRules:
    def act(self, work: WorkItem, tools: Toolbox) -> str:
        if work.mode == "amendments":
            return blocked(text("cannot_apply", work.lang), work.amendments)
        spec = tools.read_spec()
        files: dict[str, str | bytes] = {}
        missing: list[str] = []
        for element in spec["presentation"]["elements"]:
            chart = expected_spec(tools, element, spec)
            if chart is None:
                missing.append(
                    f"[CHART-006] {element['id']}: no built data for view {element['view']}"
                )
                continue
            files[f"charts/{element['id']}.json"] = (
                json.dumps({"element": element["id"], "spec": chart}, ensure_ascii=False, indent=1)
                + "\n"
            )
        if missing:
            return blocked(text("data_blocked", work.lang), missing)
        changed = tools.write_artifacts(files, f"{len(files)} charts") is not None
        cards = sum(1 for e in spec["presentation"]["elements"] if e["kind"] == "card")
        changed = (
            tools.write_spec("build_notes", {"charts": sorted(files)}) is not None
        ) or changed
        if reply := unchanged_rework(work, changed):
            return reply
        body = text("charts_done", work.lang, charts=len(files) - cards, cards=cards)
        return done(body, HandoffStatus.BUILD_COMPLETE, work)
