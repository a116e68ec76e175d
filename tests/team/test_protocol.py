"""The hand-off protocol parser, table-driven from data/comments.yaml."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from vitrina.team.protocol import Handoff, Verdict, parse_comment, render_comment
from vitrina.team.roles import Roster

CASES = yaml.safe_load(
    (Path(__file__).parent / "data" / "comments.yaml").read_text(encoding="utf-8")
)
ROLES = list(Roster.default().roles)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_comment_blocks(case: dict) -> None:
    parsed = parse_comment(case["text"], roles=ROLES)
    assert len(parsed.problems) == len(case["problems"]), parsed.problems
    for expected, found in zip(case["problems"], parsed.problems, strict=True):
        assert expected in found
    if "status" in case:
        assert parsed.handoff is not None and parsed.handoff.status.value == case["status"]
    if "next" in case:
        assert parsed.handoff.next == case["next"]
    if "next_phase" in case:
        assert parsed.handoff.next_phase == case["next_phase"]
    if "reviewers" in case:
        assert parsed.handoff.reviewers_requested == case["reviewers"]
    if "verdict" in case:
        assert parsed.verdict.verdict.value == case["verdict"]
        assert len(parsed.verdict.amendments) == case["amendments"]


def test_free_text_is_kept_for_people() -> None:
    parsed = parse_comment(CASES[0]["text"], roles=ROLES)
    assert parsed.body == "Scope written: 3 KPIs, period 2025."


def test_review_task_needs_a_verdict() -> None:
    text = "fine\n===HANDOFF===\nSTATUS: REVIEW-DONE\n===/HANDOFF==="
    assert parse_comment(text, expect_verdict=True).problems[0].startswith("no VERDICT block")


def test_rendered_comment_parses_back() -> None:
    handoff = Handoff(status="REVIEW-DONE", next="coordinator")
    verdict = Verdict(verdict="REQUESTS-REWORK", amendments=["[KPI-002] payment_amount: 10 != 12"])
    parsed = parse_comment(
        render_comment("Numbers differ.", handoff, verdict), roles=ROLES, expect_verdict=True
    )
    assert parsed.ok and parsed.handoff == handoff and parsed.verdict == verdict
    assert parsed.body == "Numbers differ."
