"""The rule agent of every role: the whole build cycle with no model."""

from __future__ import annotations

from vitrina.team.agents.base import RoleAgent
from vitrina.team.agents.rules.bi_tech_lead import BiTechLeadRules
from vitrina.team.agents.rules.chart_builder import ChartBuilderRules
from vitrina.team.agents.rules.coordinator import CoordinatorRules
from vitrina.team.agents.rules.dashboard_builder import DashboardBuilderRules
from vitrina.team.agents.rules.dashboard_designer import DashboardDesignerRules
from vitrina.team.agents.rules.dashboard_reviewer import DashboardReviewerRules
from vitrina.team.agents.rules.data_engineer import DataEngineerRules
from vitrina.team.agents.rules.data_steward import DataStewardRules
from vitrina.team.agents.rules.dataset_architect import DatasetArchitectRules
from vitrina.team.agents.rules.scoping import ScopingRules

__all__ = ["CoordinatorRules", "rule_agents"]


def rule_agents() -> dict[str, RoleAgent]:
    """Role id -> its rule agent (the coordinator's words live in CoordinatorRules)."""
    return {
        "scoping": ScopingRules(),
        "dataset-architect": DatasetArchitectRules(),
        "dashboard-designer": DashboardDesignerRules(),
        "data-engineer": DataEngineerRules(),
        "chart-builder": ChartBuilderRules(),
        "dashboard-builder": DashboardBuilderRules(),
        "data-steward": DataStewardRules(),
        "bi-tech-lead": BiTechLeadRules(),
        "dashboard-reviewer": DashboardReviewerRules(),
    }
