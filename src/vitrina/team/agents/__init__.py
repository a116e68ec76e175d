"""Role agents: what each role writes when it is woken on a task.

`RoleAgent` is the contract (a work item and a toolbox in, a comment with its blocks out);
`rules/` has the rule agent of every role, so the whole cycle runs with no model. A
model-driven agent implements the same contract and keeps the rule agent as its fallback.
"""

from vitrina.team.agents.base import Finding, RoleAgent, WorkItem
from vitrina.team.agents.rules import rule_agents

__all__ = ["Finding", "RoleAgent", "WorkItem", "rule_agents"]
