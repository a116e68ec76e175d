"""The shared specification: one file per section in the workspace, each written by its owner.

Every role reads the whole spec; a role writes only the sections ``roles.yaml`` gives it
(scoping: scope; data-steward: data notes; dataset-architect: dataset; dashboard-designer:
presentation; builders: their own build notes; reviewers: the verdict of their own review).
A write outside one's section raises SectionLocked. A write names the version it read
(the file's content id); if the section changed since, it raises StaleWrite instead of
overwriting someone else's change.
"""

from __future__ import annotations

from typing import Any

import yaml

from vitrina.team.errors import SectionLocked, StaleWrite
from vitrina.team.roles import Roster
from vitrina.team.workspace import Workspace

SECTIONS = ("scope", "data_notes", "dataset", "presentation", "build_notes", "verdicts")
FIXED_FILES = {
    "scope": "spec/scope.yaml",
    "data_notes": "spec/data_notes.yaml",
    "dataset": "spec/dataset.yaml",
    "presentation": "spec/presentation.yaml",
}
ANY = object()  # "do not check the version"


def section_path(section: str, *, role: str, task_id: int | None = None) -> str:
    """The file of a section; build notes are per role, verdicts per review task."""
    if section in FIXED_FILES:
        return FIXED_FILES[section]
    if section == "build_notes":
        return f"spec/build_notes/{role}.yaml"
    if section == "verdicts":
        if task_id is None:
            raise ValueError("a verdict is written for one review task: give task_id")
        return f"spec/verdicts/task-{task_id}.yaml"
    raise KeyError(f"no spec section '{section}' (sections: {', '.join(SECTIONS)})")


def _dump(content: dict[str, Any]) -> str:
    return yaml.safe_dump(content, allow_unicode=True, sort_keys=False, width=100)


class Spec:
    """The spec as one branch sees it."""

    def __init__(self, workspace: Workspace, roster: Roster) -> None:
        self.workspace = workspace
        self.roster = roster

    def read(
        self, branch: str, section: str, *, role: str = "", task_id: int | None = None
    ) -> tuple[dict[str, Any] | None, str | None]:
        """(content, version) of one section file; (None, None) when not written yet."""
        path = section_path(section, role=role, task_id=task_id)
        text = self.workspace.read(branch, path)
        if text is None:
            return None, None
        return yaml.safe_load(text) or {}, self.workspace.blob_id(branch, path)

    def read_all(self, branch: str) -> dict[str, Any]:
        """The whole spec: every section any role has written on this branch."""
        out: dict[str, Any] = {}
        for section, path in FIXED_FILES.items():
            text = self.workspace.read(branch, path)
            if text is not None:
                out[section] = yaml.safe_load(text) or {}
        for section, folder in (("build_notes", "spec/build_notes"), ("verdicts", "spec/verdicts")):
            files = [f for f in self.workspace.files(branch, "spec") if f.startswith(folder + "/")]
            if files:
                out[section] = {
                    f.rsplit("/", 1)[1].removesuffix(".yaml"): yaml.safe_load(
                        self.workspace.read(branch, f) or ""
                    )
                    or {}
                    for f in files
                }
        return out

    def write(
        self,
        role: str,
        branch: str,
        section: str,
        content: dict[str, Any],
        *,
        expected_version: object = ANY,
        task_id: int | None = None,
        message: str = "",
    ) -> str | None:
        """Write one section as ``role`` on ``branch``; the new commit, or None if unchanged."""
        owners = self.roster.section_owners(section)
        if section not in SECTIONS or role not in owners:
            raise SectionLocked(role, section, owners)
        path = section_path(section, role=role, task_id=task_id)
        if expected_version is not ANY:
            current = self.workspace.blob_id(branch, path)
            if current != expected_version:
                raise StaleWrite(
                    f"spec section {section} changed on {branch} since it was read "
                    f"(read {expected_version or 'nothing'}, now {current or 'nothing'}): "
                    "read it again and redo the change"
                )
        return self.workspace.write(
            branch, {path: _dump(content)}, message or f"{role}: {section}", author=role
        )
