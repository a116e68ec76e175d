"""The build job: a team of BI role agents takes a brief to a reviewed, published dashboard.

This package is the job's one public entry point (the names load on first use):

    from vitrina.team import BuildService
    report = BuildService(settings).run(Path("brief.yaml"), out=Path("dashboard"))

* running builds: `BuildService`, `BuildReport`, `load_brief`, `BriefError`, `TeamError`;
* the board: `BoardStore`, `board_url`, `Workspace` (a build's artifacts and their diffs);
* extension points: `RoleAgent` / `WorkItem` (a role's agent), `rule_agents`, `Toolbox`,
  `Publisher` / `DashboardBundle` / `Publication` (a publishing target), `HtmlPublisher`;
* the served dashboards: `dashboards_dir`, `dashboard_slug`, `SLUG`;
* Superset: `SupersetPublisher`, `SupersetTarget`; monitoring and notifications: `scan`,
  `bottlenecks`, `Notifier`; learned skills: `SkillLearning`.

See docs/build.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from vitrina.lazy import lazy_exports

_EXPORTS = {
    "BuildService": "vitrina.team.service",
    "BuildReport": "vitrina.team.service",
    "dashboards_dir": "vitrina.team.service",
    "dashboard_slug": "vitrina.team.service",
    "SLUG": "vitrina.team.service",
    "load_brief": "vitrina.team.data.brief",
    "BriefError": "vitrina.team.errors",
    "TeamError": "vitrina.team.errors",
    "BoardStore": "vitrina.team.board",
    "board_url": "vitrina.team.board",
    "parse_comment": "vitrina.team.protocol",
    "Workspace": "vitrina.team.workspace",
    "SupersetPublisher": "vitrina.team.publish.superset",
    "SupersetTarget": "vitrina.team.publish.superset",
    "scan": "vitrina.team.monitor",
    "bottlenecks": "vitrina.team.monitor",
    "Notifier": "vitrina.team.notify",
    "SkillLearning": "vitrina.team.learn",
    "RoleAgent": "vitrina.team.agents.base",
    "WorkItem": "vitrina.team.agents.base",
    "rule_agents": "vitrina.team.agents.rules",
    "Toolbox": "vitrina.team.toolbox",
    "Publisher": "vitrina.team.publish",
    "DashboardBundle": "vitrina.team.publish",
    "Publication": "vitrina.team.publish",
    "HtmlPublisher": "vitrina.team.publish",
    # what the server's board actions and monitor use
    "notifier_from": "vitrina.team.service",
    "default_publishers": "vitrina.team.service",
    "superset_from": "vitrina.team.service",
    "limits_from": "vitrina.team.watch",
    "watch_pass": "vitrina.team.watch",
    "RIGHTS": "vitrina.team.people",
    "People": "vitrina.team.people",
    "Roster": "vitrina.team.roles",
    "PermissionDenied": "vitrina.team.errors",
    "republish_build": "vitrina.team.republish",
}

__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)


if TYPE_CHECKING:  # the lazy names, for type checkers and IDEs (tests/test_lazy_exports.py)
    from vitrina.team.agents.base import RoleAgent as RoleAgent
    from vitrina.team.agents.base import WorkItem as WorkItem
    from vitrina.team.agents.rules import rule_agents as rule_agents
    from vitrina.team.board import BoardStore as BoardStore
    from vitrina.team.board import board_url as board_url
    from vitrina.team.data.brief import load_brief as load_brief
    from vitrina.team.errors import BriefError as BriefError
    from vitrina.team.errors import PermissionDenied as PermissionDenied
    from vitrina.team.errors import TeamError as TeamError
    from vitrina.team.learn import SkillLearning as SkillLearning
    from vitrina.team.monitor import bottlenecks as bottlenecks
    from vitrina.team.monitor import scan as scan
    from vitrina.team.notify import Notifier as Notifier
    from vitrina.team.people import RIGHTS as RIGHTS
    from vitrina.team.people import People as People
    from vitrina.team.protocol import parse_comment as parse_comment
    from vitrina.team.publish import DashboardBundle as DashboardBundle
    from vitrina.team.publish import HtmlPublisher as HtmlPublisher
    from vitrina.team.publish import Publication as Publication
    from vitrina.team.publish import Publisher as Publisher
    from vitrina.team.publish.superset import SupersetPublisher as SupersetPublisher
    from vitrina.team.publish.superset import SupersetTarget as SupersetTarget
    from vitrina.team.republish import republish_build as republish_build
    from vitrina.team.roles import Roster as Roster
    from vitrina.team.service import SLUG as SLUG
    from vitrina.team.service import BuildReport as BuildReport
    from vitrina.team.service import BuildService as BuildService
    from vitrina.team.service import dashboard_slug as dashboard_slug
    from vitrina.team.service import dashboards_dir as dashboards_dir
    from vitrina.team.service import default_publishers as default_publishers
    from vitrina.team.service import notifier_from as notifier_from
    from vitrina.team.service import superset_from as superset_from
    from vitrina.team.toolbox import Toolbox as Toolbox
    from vitrina.team.watch import limits_from as limits_from
    from vitrina.team.watch import watch_pass as watch_pass
    from vitrina.team.workspace import Workspace as Workspace
