"""Plans without a model: the rule templates (also the plan when a model's plan fails)."""

from vitrina.task.plan.template import template_plan

__all__ = ["template_plan"]
