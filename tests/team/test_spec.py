"""The shared spec: everyone reads all of it, each role writes only its own section."""

from __future__ import annotations

from pathlib import Path

import pytest

from vitrina.team.errors import SectionLocked, StaleWrite
from vitrina.team.roles import Roster
from vitrina.team.spec import SECTIONS, Spec
from vitrina.team.workspace import Workspace

ROSTER = Roster.default()


@pytest.fixture
def spec(tmp_path: Path) -> Spec:
    return Spec(Workspace.open(tmp_path / "ws"), ROSTER)


def test_each_role_writes_its_own_section_and_reads_all(spec: Spec) -> None:
    branch = "task/1-scoping"
    spec.write("scoping", branch, "scope", {"kpis": [{"metric": "payment_amount"}]})
    spec.write("data-steward", branch, "data_notes", {"payment_amount": {"reference": "12.5"}})
    spec.write("data-steward", branch, "verdicts", {"verdict": "APPROVED"}, task_id=9)
    whole = spec.read_all(branch)
    assert whole["scope"]["kpis"][0]["metric"] == "payment_amount"
    assert whole["data_notes"]["payment_amount"]["reference"] == "12.5"
    assert whole["verdicts"] == {"task-9": {"verdict": "APPROVED"}}


@pytest.mark.parametrize(
    ("role", "section"),
    [
        (role, section)
        for role in ROSTER.roles
        for section in SECTIONS
        if section not in ROSTER.get(role).sections
    ],
)
def test_a_write_outside_ones_section_is_refused(spec: Spec, role: str, section: str) -> None:
    with pytest.raises(SectionLocked, match=f"may not write spec section '{section}'"):
        spec.write(role, "task/1-x", section, {"x": 1}, task_id=1)
    assert spec.workspace.tip("task/1-x") is None  # nothing was written, not even the branch


def test_builders_write_only_their_own_build_notes(spec: Spec) -> None:
    spec.write("data-engineer", "task/4-data", "build_notes", {"views": 3})
    spec.write("chart-builder", "task/4-data", "build_notes", {"charts": 2})
    assert sorted(spec.read_all("task/4-data")["build_notes"]) == ["chart-builder", "data-engineer"]


def test_a_stale_write_is_refused(spec: Spec) -> None:
    branch = "task/2-dataset"
    spec.write("dataset-architect", branch, "dataset", {"views": []})
    _content, version = spec.read(branch, "dataset")
    spec.write("dataset-architect", branch, "dataset", {"views": ["a"]}, expected_version=version)
    with pytest.raises(StaleWrite, match="changed on task/2-dataset since it was read"):
        spec.write(
            "dataset-architect", branch, "dataset", {"views": ["b"]}, expected_version=version
        )
    assert spec.read(branch, "dataset")[0] == {"views": ["a"]}
