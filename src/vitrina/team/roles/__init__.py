"""The ten roles: kind, persona, skills, allowed primitives, tools and spec sections.

Read from ``roles.yaml`` next to this file; personas are Markdown files in ``personas/``.

>>> roster = Roster.default()
>>> roster.get("chart-builder").kind, "merge" in roster.get("chart-builder").primitives
('builder', False)
>>> len(roster.roles)
10
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict

from vitrina.team.skills import SkillLibrary

ROLES_DIR = Path(__file__).resolve().parent
PRIMITIVES = (
    "comment",
    "change_status",
    "open_task",
    "open_blocker",
    "create_review",
    "hand_off",
    "return_for_rework",
    "mark_amendments_applied",
    "merge",
)
TOOLS = (
    "read_board",
    "read_brief",
    "read_spec",
    "write_spec",
    "search_catalog",
    "plan_query",
    "run_query",
    "explain_query",
    "lint_sql",
    "choose_chart",
    "render_dashboard",
    "browser_check",
    "superset_check",
    "attach",
    "read_artifact",
    "write_artifact",
    "publish",
)
RoleKind = Literal["coordinator", "author", "builder", "reviewer"]


class RoleSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    kind: RoleKind
    name_ru: str
    name_en: str
    persona: str
    skills: tuple[str, ...]
    primitives: tuple[str, ...]
    tools: tuple[str, ...]
    sections: tuple[str, ...]

    def name(self, lang: str) -> str:
        return self.name_ru if lang == "ru" else self.name_en

    def persona_text(self) -> str:
        return (ROLES_DIR / "personas" / self.persona).read_text(encoding="utf-8")


class Roster:
    """All roles of the team, checked against the primitives, tools and skills that exist."""

    def __init__(self, roles: dict[str, RoleSpec]) -> None:
        self.roles = roles

    @classmethod
    def load(cls, path: Path, skills: SkillLibrary | None = None) -> Roster:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        library = skills or SkillLibrary.default()
        roles: dict[str, RoleSpec] = {}
        for role_id, raw in (data.get("roles") or {}).items():
            spec = RoleSpec(id=role_id, **raw)
            for name, known, values in (
                ("primitive", PRIMITIVES, spec.primitives),
                ("tool", TOOLS, spec.tools),
                ("skill", tuple(library.skills), spec.skills),
            ):
                unknown = sorted(set(values) - set(known))
                if unknown:
                    raise ValueError(f"{path}: role {role_id}: unknown {name} {', '.join(unknown)}")
            if not (ROLES_DIR / "personas" / spec.persona).is_file():
                raise ValueError(f"{path}: role {role_id}: persona file {spec.persona} not found")
            roles[role_id] = spec
        return cls(roles)

    @classmethod
    def default(cls) -> Roster:
        return cls.load(ROLES_DIR / "roles.yaml")

    def get(self, role_id: str) -> RoleSpec:
        if role_id not in self.roles:
            raise KeyError(f"no role '{role_id}' (known: {', '.join(self.roles)})")
        return self.roles[role_id]

    def of_kind(self, kind: RoleKind) -> list[RoleSpec]:
        return [r for r in self.roles.values() if r.kind == kind]

    def section_owners(self, section: str) -> tuple[str, ...]:
        return tuple(r.id for r in self.roles.values() if section in r.sections)
