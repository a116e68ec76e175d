"""A model per role of the build team: ``[team.roles.NAME] model = ENDPOINT`` (decision 208).

    [llm.endpoints.big]
    base_url = "http://gpu:8000/v1"
    model = "qwen2.5-72b"

    [team.roles.dashboard-reviewer]
    model = "big"          # an endpoint of [llm.endpoints], "default" ([llm]) or "rules"

A role without an entry takes the [llm] model when one is configured, else the rules. Every
role's rule agent still builds, checks and writes the blocks; a model only writes its part,
and a model that fails is reported by the coordinator (vitrina.team.agents.failures). One
client per endpoint: the roles that share an endpoint share its breaker and its accounting.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from typing import Any

from vitrina.config import Settings
from vitrina.llm import ModelSlots, build_client
from vitrina.llm.factory import endpoint_settings
from vitrina.team.agents.base import RoleAgent
from vitrina.team.agents.model import ModelRoleAgent
from vitrina.team.errors import TeamError
from vitrina.team.roles import Roster

DEFAULT = "default"
RULES = "rules"


def _role_name(name: str, roster: Roster) -> str:
    if name in roster.roles:
        return name
    close = difflib.get_close_matches(name, list(roster.roles), n=1, cutoff=0.6)
    hint = f" (did you mean {close[0]}?)" if close else ""
    raise TeamError(
        f"[team.roles.{name}] in vitrina.toml names no role{hint}; the roles: "
        f"{', '.join(sorted(roster.roles))}"
    )


def role_models(
    settings: Settings,
    roster: Roster,
    default: ModelSlots | None,
    *,
    client: Callable[[Settings], Any] = build_client,
) -> dict[str, ModelSlots | None]:
    """Each role's model: its own endpoint, the default, or None (rules). A bad entry is a
    TeamError naming the role and what to write instead."""
    chosen: dict[str, ModelSlots | None] = {role: default for role in roster.roles}
    chosen["coordinator"] = None  # the coordinator's steps are code
    clients: dict[str, ModelSlots | None] = {}
    for name, entry in settings.team_roles.items():
        role = _role_name(name, roster)
        model = str(entry.get("model") or "").strip()
        if not model:
            raise TeamError(f'[team.roles.{name}] has no model: write model = "ENDPOINT"')
        if role == "coordinator" and model != RULES:
            raise TeamError(
                "[team.roles.coordinator] cannot have a model: the coordinator's steps are code"
            )
        if model == RULES:
            chosen[role] = None
        elif model == DEFAULT:
            if default is None:
                raise TeamError(
                    f'[team.roles.{name}] model = "default" but no [llm] model is configured'
                )
            chosen[role] = default
        else:
            if model not in clients:
                try:
                    clients[model] = client(endpoint_settings(settings, model))
                except ValueError as exc:  # LLMSettingsError: an unknown or broken endpoint
                    raise TeamError(f"[team.roles.{name}]: {exc}") from exc
            chosen[role] = clients[model]
    return chosen


def agents_for(
    models: dict[str, ModelSlots | None], rules: dict[str, RoleAgent], **limits: int
) -> dict[str, RoleAgent]:
    """The rule agent of a role without a model; the model's agent over it otherwise."""
    out: dict[str, RoleAgent] = {}
    for role, agent in rules.items():
        model = models.get(role)
        out[role] = agent if model is None else ModelRoleAgent(model, agent, **limits)
    return out
