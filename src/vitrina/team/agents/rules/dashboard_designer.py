"""Dashboard designer by rules: a card per KPI and the chart the chart rules choose for each
breakdown, with titles, captions from the data notes, and cell widths on the grid."""

from __future__ import annotations

from typing import Any

from vitrina.present.charts import ChartDecision
from vitrina.team.agents.base import WorkItem, codes, handoff
from vitrina.team.agents.rules.common import (
    blocked,
    design_of,
    done,
    metas_of,
    scope_of,
    unchanged_rework,
)
from vitrina.team.data.layout import LONG_SERIES, fit_title, title_limit
from vitrina.team.data.scope import Scope
from vitrina.team.data.views import DatasetDesign
from vitrina.team.lifecycle import HandoffStatus
from vitrina.team.messages import text
from vitrina.team.toolbox import Toolbox

KNOWN_FIXES = {"DASH-001"}


def caveat_text(notes: dict[str, Any], kpi_id: str, lang: str) -> str:
    return " ".join(c[lang] for c in notes.get("caveats", {}).get(kpi_id, []) if lang in c)


def card_twin(kpi_id: str, scope: Scope, design: DatasetDesign) -> str | None:
    """An earlier KPI whose card shows the same number: the same card SQL (one metric asked
    by month and by region is one card and two charts; the reviewer's RVW-KPI-DUP)."""
    sql = {v.id: " ".join(v.sql.split()) for v in design.views if v.kind == "card"}
    mine = sql.get(f"{kpi_id}__card")
    for other in scope.kpis:
        if other.id == kpi_id:
            return None
        if mine is not None and sql.get(f"{other.id}__card") == mine:
            return str(other.id)
    return None


class DashboardDesignerRules:
    def act(self, work: WorkItem, tools: Toolbox) -> str:
        spec = tools.read_spec()
        if work.mode == "amendments":
            return self.amend(work, tools, spec)
        scope, design = scope_of(spec), design_of(spec)
        notes = spec.get("data_notes") or {}
        lang = scope.language
        period = scope.period.label_ru if lang == "ru" else scope.period.label_en
        elements: list[dict[str, Any]] = []
        charts = 0
        for kpi in scope.kpis:
            # the same number already on an earlier card (RVW-KPI-DUP): this KPI's chart only
            if card_twin(kpi.id, scope, design) is None:
                elements.append(
                    {
                        "id": f"{kpi.id}__card",
                        "kind": "card",
                        "kpi": kpi.id,
                        "view": f"{kpi.id}__card",
                        "title": kpi.title,
                        "subtitle": period,
                        "caption": "",
                        "w": 3,
                        "decision": ChartDecision(kind="kpi", y_columns=[kpi.metric]).model_dump(
                            mode="json"
                        ),
                    }
                )
            view = next(
                (v for v in design.views if v.kpi == kpi.id and v.kind == "breakdown"), None
            )
            if view is None or kpi.by is None:
                continue
            result, _ = tools.run_query(view.sql)
            decision = tools.choose_chart(result, metas_of(view))
            if decision.kind in ("none", "kpi"):
                continue
            caption = " ".join(
                p for p in (caveat_text(notes, kpi.id, lang), decision.cut or "") if p
            )
            width = 12 if decision.kind == "line" and result.row_count > LONG_SERIES else 6
            by = kpi.by.label_ru if lang == "ru" else kpi.by.label_en
            elements.append(
                {
                    "id": f"{kpi.id}__chart",
                    "kind": "chart",
                    "kpi": kpi.id,
                    "view": view.id,
                    "title": f"{kpi.title} {by}",
                    "subtitle": period,
                    "caption": caption,
                    "w": width,
                    "decision": decision.model_dump(mode="json"),
                }
            )
            charts += 1
        audience = f" · {scope.audience}" if scope.audience else ""
        presentation = {
            "title": scope.title,
            "subtitle": f"{period}{audience}",
            "language": lang,
            "elements": elements,
        }
        changed = tools.write_spec("presentation", presentation) is not None
        if reply := unchanged_rework(work, changed):
            return reply
        body = text("design_done", work.lang, cards=len(scope.kpis), charts=charts)
        return done(body, HandoffStatus.READY_FOR_REVIEW, work, next_phase="build")

    def amend(self, work: WorkItem, tools: Toolbox, spec: dict[str, Any]) -> str:
        unknown = [a for a in work.amendments if not (codes([a]) & KNOWN_FIXES)]
        if unknown:
            return blocked(text("cannot_apply", work.lang), unknown)
        presentation = dict(spec["presentation"])
        scope = scope_of(spec)
        names = {k.id: (k.name_ru if scope.language == "ru" else k.name_en, k) for k in scope.kpis}
        fixed = []
        for element in presentation["elements"]:
            limit = title_limit(element["kind"])
            if len(element["title"]) <= limit:
                continue
            name, kpi = names[element["kpi"]]
            short = (
                name
                if element["kind"] == "card" or kpi.by is None
                else f"{name} {kpi.by.label_ru if scope.language == 'ru' else kpi.by.label_en}"
            )
            element["subtitle"] = (
                f"{element['title']} · {element['subtitle']}"
                if element["subtitle"]
                else element["title"]
            )
            element["title"] = fit_title(short, limit)
            fixed.append(f"[DASH-001] {element['id']}: «{element['title']}»")
        tools.write_spec("presentation", presentation)
        body = f"{text('amendments_done', work.lang)}\n" + "\n".join(f"- {line}" for line in fixed)
        return handoff(body, HandoffStatus.AMENDMENTS_APPLIED)
