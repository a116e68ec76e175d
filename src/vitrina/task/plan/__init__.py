"""Plans without a model: rule templates, and the sentence fallback when a model's plan fails."""

from vitrina.task.plan.fallback import sentence_plan
from vitrina.task.plan.template import template_plan

__all__ = ["sentence_plan", "template_plan"]
