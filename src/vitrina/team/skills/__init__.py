"""Skills: Markdown files shared by the role that builds and the role that reviews.

Each skill is a page of rules with codes in brackets (``[SQL-001]``); the deterministic
checks cite the same codes in their amendments, so a builder can look up what a reviewer
asked for. A later model-driven role reads the same pages as its instructions.

>>> library = SkillLibrary.default()
>>> "SQL-001" in library.get("sql-standards").codes
True
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

SKILLS_DIR = Path(__file__).resolve().parent
CODE = re.compile(r"\[([A-Z]+-\d{3}|RVW(?:-[A-Z]+)+)\]")  # DASH-001, RVW-TITLE-DUP


@dataclass(frozen=True)
class Skill:
    id: str
    title: str
    body: str
    path: Path

    @property
    def codes(self) -> list[str]:
        return CODE.findall(self.body)


class SkillLibrary:
    """Skills by id, read from one or more folders (a later folder overrides an earlier one)."""

    def __init__(self, skills: dict[str, Skill]) -> None:
        self.skills = skills

    @classmethod
    def load(cls, *folders: Path) -> SkillLibrary:
        skills: dict[str, Skill] = {}
        for folder in folders:
            for path in sorted(folder.glob("*.md")):
                body = path.read_text(encoding="utf-8")
                first = body.splitlines()[0] if body else path.stem
                skills[path.stem] = Skill(path.stem, first.lstrip("# ").strip(), body, path)
        return cls(skills)

    @classmethod
    def default(cls) -> SkillLibrary:
        return cls.load(SKILLS_DIR)

    def get(self, skill_id: str) -> Skill:
        if skill_id not in self.skills:
            raise KeyError(f"no skill '{skill_id}' (known: {', '.join(sorted(self.skills))})")
        return self.skills[skill_id]

    def rule(self, code: str) -> str | None:
        """The text of one coded rule, for an amendment a builder must apply."""
        for skill in self.skills.values():
            for line in skill.body.splitlines():
                if f"[{code}]" in line:
                    return line.split(f"[{code}]", 1)[1].strip()
        return None

    def codes(self) -> dict[str, str]:
        """Every documented code -> the skill that documents it."""
        return {code: skill.id for skill in self.skills.values() for code in skill.codes}
