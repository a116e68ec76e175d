"""Data engineer by rules: every designed view compiled, guarded, EXPLAINed and run read-only;
the SQL that ran and its result stored in the branch, exactly as designed."""

from __future__ import annotations

import json

from vitrina.team.agents.base import WorkItem, bullet_list
from vitrina.team.agents.rules.common import blocked, design_of, done, unchanged_rework
from vitrina.team.data.results import encode_result
from vitrina.team.lifecycle import HandoffStatus
from vitrina.team.messages import text
from vitrina.team.toolbox import Toolbox, ToolError


class DataEngineerRules:
    def act(self, work: WorkItem, tools: Toolbox) -> str:
        if work.mode == "amendments":
            return blocked(text("cannot_apply", work.lang), work.amendments)
        design = design_of(tools.read_spec())
        files: dict[str, str | bytes] = {}
        notes: dict[str, dict[str, object]] = {}
        failures: list[str] = []
        rows = 0
        for view in design.views:
            sql = tools.compile_plan(view.query_plan())
            plan = tools.explain(sql)
            if not plan.ok:
                failures.append(f"[COST-001] {view.id}: {plan.error}")
                continue
            try:
                result, ran = tools.run_query(sql)
            except ToolError as exc:
                failures.append(f"[GUARD-001] {view.id}: {exc}")
                continue
            files[f"datasets/{view.id}.sql"] = ran + "\n"
            files[f"data/{view.id}.json"] = (
                json.dumps(encode_result(result), ensure_ascii=False, indent=1) + "\n"
            )
            notes[view.id] = {
                "rows": result.row_count,
                "truncated": result.truncated,
                "estimated_rows": plan.rows,
            }
            rows += result.row_count
            lint = tools.lint(ran)[1]
            if lint:
                notes[view.id]["lint"] = [f"[{f.code}] {f.message}" for f in lint]
        if failures:
            return blocked(text("data_blocked", work.lang), failures)
        changed = tools.write_artifacts(files, f"data of {len(design.views)} views") is not None
        changed = (tools.write_spec("build_notes", {"views": notes}) is not None) or changed
        if reply := unchanged_rework(work, changed):
            return reply
        lines = [f"{view_id}: {n['rows']} rows" for view_id, n in notes.items()]
        body = (
            f"{text('data_done', work.lang, views=len(notes), rows=rows)}\n"
            f"{bullet_list(lines, limit=24)}"
        )
        return done(body, HandoffStatus.BUILD_COMPLETE, work, reviewers=["data-steward"])
