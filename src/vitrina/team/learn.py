"""Skills that learn: a closed task's review findings proposed as new skill entries.

After a task is done, every amendment and rework reason its reviews gave becomes a
proposal: a rework reason for the known errors and workarounds (``known-errors``), an
amendment for the review rules (``review-rules``). A person accepts or rejects each one
(`vitrina`'s code never accepts on its own). Accepted entries are written, versioned, into
the learned-skills folder (``$VITRINA_HOME/team/skills``) as the shipped page plus the
accepted lines; `SkillLibrary.load(SKILLS_DIR, learned)` reads that folder after the
shipped one, so the next builds (and the model-driven roles' prompts) use them.

>>> entry_code(7)
'LRN-007'
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

from vitrina.team.board import BoardStore
from vitrina.team.errors import TeamError
from vitrina.team.lifecycle import TaskKind
from vitrina.team.skills import SKILLS_DIR, SkillLibrary

Status = Literal["pending", "accepted", "rejected"]
MAX_PROPOSALS = 200  # one build proposes at most this many
CODE = re.compile(r"^\[([A-Z]+(?:-[A-Z0-9]+)+)\]\s*")  # DASH-001, RVW-TITLE-DUP


def entry_code(n: int) -> str:
    return f"LRN-{n:03d}"


@dataclass
class Proposal:
    id: str  # a digest of the skill and the text: the same finding is proposed once
    skill: str
    text: str
    source: str  # "build 3, task 12 (charts), round 1: REQUESTS-REWORK"
    status: Status = "pending"
    code: str | None = None  # given on acceptance
    decided_at: float | None = None


class LearnError(TeamError):
    """A proposal id that does not exist, or one already decided."""


def learned_dir(home: Path) -> Path:
    return home / "team" / "skills"


def _generic(amendment: str) -> str:
    """The finding without its object's name where it starts with one ("x__chart: ...")."""
    text = CODE.sub("", amendment).strip()
    head, sep, rest = text.partition(": ")
    if sep and re.fullmatch(r"[\w.]+", head):
        text = rest
    return text[:300]


class SkillLearning:
    """Proposals, decisions and the learned pages, in one folder per Vitrina home."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.path = folder / "proposals.json"

    def load(self) -> list[Proposal]:
        if not self.path.is_file():
            return []
        return [Proposal(**p) for p in json.loads(self.path.read_text(encoding="utf-8"))]

    def _save(self, proposals: list[Proposal]) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.folder, prefix=".proposals-")
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump([asdict(p) for p in proposals], out, ensure_ascii=False, indent=1)
        os.replace(tmp, self.path)

    def propose(self, store: BoardStore, build_id: int) -> list[Proposal]:
        """New proposals from the reviews of the build's done work tasks (each finding once)."""
        proposals = self.load()
        known = {p.id for p in proposals}
        new: list[Proposal] = []
        tasks = store.tasks(build_id)
        for task in tasks:
            if task.kind is not TaskKind.WORK or task.is_open:
                continue
            for review in (
                t for t in tasks if t.parent_id == task.id and t.kind is TaskKind.REVIEW
            ):
                for comment in store.comments(review.id):
                    verdict = comment.verdict or {}
                    kind = verdict.get("verdict")
                    for amendment in verdict.get("amendments") or []:
                        skill = "known-errors" if kind == "REQUESTS-REWORK" else "review-rules"
                        cited = CODE.match(amendment)
                        text = _generic(amendment)
                        if cited:
                            text = f"{text} (see {cited[1]})"
                        digest = hashlib.sha256(f"{skill}\n{text}".encode()).hexdigest()[:12]
                        if digest in known or len(new) >= MAX_PROPOSALS:
                            continue
                        known.add(digest)
                        new.append(
                            Proposal(
                                digest,
                                skill,
                                text,
                                f"build {build_id}, task {task.id} ({task.step}), "
                                f"round {review.round}: {kind} by {review.role}",
                            )
                        )
        if new:
            self._save(proposals + new)
        return new

    def decide(self, proposal_id: str, accept: bool) -> Proposal:
        """A person's decision; an accepted entry gets its code and a new page version."""
        proposals = self.load()
        proposal = next((p for p in proposals if p.id == proposal_id), None)
        if proposal is None:
            raise LearnError(
                f"no skill proposal {proposal_id!r}: `vitrina board skills` lists them"
            )
        if proposal.status != "pending":
            raise LearnError(f"proposal {proposal_id} is already {proposal.status}")
        proposal.decided_at = time.time()
        if accept:
            proposal.status = "accepted"
            proposal.code = entry_code(sum(1 for p in proposals if p.code) + 1)
        else:
            proposal.status = "rejected"
        self._save(proposals)
        if accept:
            self._write_page(proposal.skill, proposals)
        return proposal

    def _write_page(self, skill: str, proposals: list[Proposal]) -> Path:
        """The shipped page plus every accepted entry of it; the old page kept as a version."""
        base = (SKILLS_DIR / f"{skill}.md").read_text(encoding="utf-8").rstrip("\n")
        accepted = [p for p in proposals if p.skill == skill and p.status == "accepted"]
        lines = [f"- [{p.code}] {p.text} (learned: {p.source})" for p in accepted]
        page = base + "\n\n## Learned from reviews\n\n" + "\n".join(lines) + "\n"
        versions = self.folder / "versions"
        versions.mkdir(parents=True, exist_ok=True)
        n = len(list(versions.glob(f"{skill}.v*.md"))) + 1
        (versions / f"{skill}.v{n}.md").write_text(page, encoding="utf-8")
        current = self.folder / f"{skill}.md"
        current.write_text(page, encoding="utf-8")
        return current

    def library(self) -> SkillLibrary:
        """The shipped skills with the accepted entries (what the next build reads)."""
        return SkillLibrary.load(SKILLS_DIR, self.folder)
