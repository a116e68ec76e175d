"""Skills that learn: a build's review findings become proposals; a person accepts or rejects
each; accepted entries are versioned and read by the next build (and its model's prompts)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from vitrina.team.agents.rules import rule_agents
from vitrina.team.learn import LearnError, SkillLearning, learned_dir

from .scripted import Sabotaged, bar_instead_of_line

SMALL = "title: Платежи 2025\nperiod: 2025 год\nkpis:\n  - name: Сумма платежей\n    by: месяц\n"


def test_review_findings_are_proposed_decided_versioned_and_used_next_time(run_build) -> None:
    agents = {"chart-builder": Sabotaged(rule_agents()["chart-builder"], bar_instead_of_line)}
    service, report = run_build(SMALL, agents=agents)
    assert report.status == "done", report.blocked
    learning = SkillLearning(learned_dir(Path(os.environ["VITRINA_HOME"])))
    proposals = learning.load()
    rework = [p for p in proposals if p.skill == "known-errors"]
    assert rework, proposals
    assert rework[0].text.startswith("built as a bar chart") and "(see CHART-007)" in rework[0].text
    assert "(charts), round 1: REQUESTS-REWORK by dashboard-reviewer" in rework[0].source
    assert learning.propose(service.store, report.build.id) == []  # each finding once

    accepted = learning.decide(rework[0].id, accept=True)
    assert accepted.status == "accepted" and accepted.code == "LRN-001"
    with pytest.raises(LearnError, match="already accepted"):
        learning.decide(rework[0].id, accept=False)
    with pytest.raises(LearnError, match="no skill proposal"):
        learning.decide("nope", accept=True)
    others = [p for p in proposals if p.id != rework[0].id]
    for other in others:
        learning.decide(other.id, accept=False)

    page = learning.library().get("known-errors")
    assert "[LRN-001] built as a bar chart" in page.body and "[ERR-001]" in page.body
    assert all(o.text not in page.body for o in others)
    assert (learning.folder / "versions" / "known-errors.v1.md").is_file()

    from vitrina.config import load_settings
    from vitrina.team.service import BuildService

    again = BuildService(load_settings(), board=f"sqlite:///{learning.folder / 'b.sqlite'}")
    try:
        assert "LRN-001" in again.skills.codes()  # the next build reads the accepted entry
        assert again.skills.rule("LRN-001").startswith("built as a bar chart")
    finally:
        again.close()


def repeated_chart_title(work, tools) -> None:
    """The dashboard builder's typo: the chart's title says "по месяцам" twice."""
    import json

    bundle = json.loads(tools.read_artifact("dashboard/dashboard.json") or "{}")
    chart = next(e for e in bundle["elements"] if e["kind"] == "chart")
    chart["title"] += " по месяцам"
    tools.write_artifacts(
        {"dashboard/dashboard.json": json.dumps(bundle, ensure_ascii=False)}, "a title"
    )


def test_the_reviewers_checklist_findings_are_proposed_with_their_code(run_build) -> None:
    """A checklist finding (RVW-TITLE-DUP) sends the dashboard back, the rework applies it,
    and the learned-skills loop records it with its code."""
    agents = {
        "dashboard-builder": Sabotaged(rule_agents()["dashboard-builder"], repeated_chart_title)
    }
    _, report = run_build(SMALL, agents=agents)
    assert report.status == "done", report.blocked
    learning = SkillLearning(learned_dir(Path(os.environ["VITRINA_HOME"])))
    found = [p for p in learning.load() if "(see RVW-TITLE-DUP)" in p.text]
    assert len(found) == 1 and found[0].skill == "known-errors", learning.load()
    assert "«по месяцам»" in found[0].text and "REQUESTS-REWORK by dashboard-reviewer" in (
        found[0].source
    )
