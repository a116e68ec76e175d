"""Errors of the build team, each worded for the person reading the board or the terminal."""

from __future__ import annotations


class TeamError(Exception):
    """Base of every error the team runtime raises on purpose."""


class PermissionDenied(TeamError):
    """A role called a primitive or a tool its role does not allow."""

    def __init__(self, role: str, action: str, reason: str = "") -> None:
        self.role = role
        self.action = action
        detail = f": {reason}" if reason else ""
        super().__init__(f"role '{role}' may not {action}{detail}")


class InvalidTransition(TeamError):
    """A task status change the lifecycle does not allow."""

    def __init__(self, task_id: int, kind: str, current: str, target: str) -> None:
        self.task_id, self.current, self.target = task_id, current, target
        super().__init__(
            f"task {task_id} ({kind}): {current} -> {target} is not an allowed transition"
        )


class SectionLocked(TeamError):
    """A write to a section of the shared specification that the role does not own."""

    def __init__(self, role: str, section: str, owners: tuple[str, ...]) -> None:
        self.role, self.section = role, section
        super().__init__(
            f"role '{role}' may not write spec section '{section}' "
            f"(owned by {', '.join(owners) or 'nobody'})"
        )


class StaleWrite(TeamError):
    """A spec section changed since the writer read it (optimistic locking)."""


class BriefError(TeamError):
    """A brief that cannot be read: names the file, the line and what to do."""


class PlainBrief(BriefError):
    """A Markdown brief without a front matter: the service drafts one for the requester."""

    def __init__(self, source: str, text: str) -> None:
        self.source, self.text = source, text
        super().__init__(f"{source}: the brief has no YAML front matter")


class WorkspaceError(TeamError):
    """A git operation in the artifact workspace failed."""
