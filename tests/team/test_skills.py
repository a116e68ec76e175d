"""Skills are the shared rulebook: every code a check cites is documented, builders and their
reviewers share the pages, and every role has a persona."""

from __future__ import annotations

import re
from pathlib import Path

from vitrina.team.chain import CHAIN
from vitrina.team.roles import Roster
from vitrina.team.skills import SkillLibrary

SRC = Path(__file__).resolve().parents[2] / "src" / "vitrina" / "team"
LIBRARY = SkillLibrary.default()
ROSTER = Roster.default()
CITED = re.compile(r"""(?:Finding\(|Flag\(code=|\[)\s*"?\[?([A-Z]+-\d{3})""")


def test_every_cited_code_is_documented_in_a_skill() -> None:
    cited = {
        code
        for path in SRC.rglob("*.py")
        for code in CITED.findall(path.read_text(encoding="utf-8"))
    }
    assert len(cited) > 25
    assert cited - set(LIBRARY.codes()) == set()


def test_every_documented_code_is_checked_somewhere() -> None:
    text = "\n".join(p.read_text(encoding="utf-8") for p in SRC.rglob("*.py"))
    decided_by_the_chart_rules = {
        "CHART-001",
        "CHART-002",
        "CHART-003",
        "CHART-004",
    }  # checked by CHART-005
    documented = {
        c
        for c, skill in LIBRARY.codes().items()
        if skill not in ("artifact-rules", "review-rules", "known-errors")
    }
    documented -= decided_by_the_chart_rules
    unchecked = {c for c in documented if c not in text}
    assert unchecked == set()


def test_builders_and_their_reviewers_share_a_skill() -> None:
    for step in CHAIN:
        builder, reviewer = ROSTER.get(step.role), ROSTER.get(step.reviewer)
        shared = set(builder.skills) & set(reviewer.skills) - {"handoff-protocol"}
        assert shared, f"{step.role} and {step.reviewer} share no skill"


def test_every_role_has_a_persona_and_the_ten_roles_exist() -> None:
    assert sorted(ROSTER.roles) == sorted(
        [
            "coordinator",
            "scoping",
            "dataset-architect",
            "dashboard-designer",
            "data-engineer",
            "chart-builder",
            "dashboard-builder",
            "data-steward",
            "bi-tech-lead",
            "dashboard-reviewer",
        ]
    )
    for role in ROSTER.roles.values():
        assert role.persona_text().startswith("# ")
    assert LIBRARY.rule("SQL-001").startswith("No `SELECT *`")
