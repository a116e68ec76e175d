"""A plain Markdown brief read by rules into a draft front matter the requester confirms.

A requester who writes prose ("# Платежи 2025 ... сумма платежей по регионам ... для
правления") gets a draft beside the brief: the title from the first heading, the KPIs the
text names (catalog metric names and synonyms, each with the breakdown written after it),
the period, the breakdown of every KPI and the audience. Nothing is built from a draft:
the requester checks it and runs the build on it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

import yaml

from vitrina.catalog import Catalog
from vitrina.catalog.model import Metric
from vitrina.language.detect import detect_lang
from vitrina.language.periods import extract_grain, extract_period
from vitrina.language.text import Word, find_phrase, normalize, phrase_stems, tokenize
from vitrina.team.data.brief import KpiRequest
from vitrina.team.data.scope import find_breakdown

MAX_LINES = 400  # a brief longer than this is read up to here
BY_WORDS = ("по", "by", "разрезе", "per")
AUDIENCES = {  # a word stem of the text -> the audience written in the draft
    "правлени": "правление",
    "руководств": "руководство",
    "директор": "руководство",
    "board": "board",
    "management": "management",
    "executive": "management",
    "аналитик": "аналитики",
    "analyst": "analysts",
}
HEADING = re.compile(r"^\s*#{1,6}\s+(.+?)\s*#*\s*$")


@dataclass
class Draft:
    data: dict[str, Any] = field(default_factory=dict)
    lang: str = "ru"

    @property
    def kpis(self) -> int:
        return len(self.data.get("kpis", []))


def _title(lines: list[str]) -> tuple[str, int]:
    """The first heading (else the first line) and its index, which is no KPI's line."""
    for i, line in enumerate(lines):
        heading = HEADING.match(line)
        if heading:
            return heading.group(1), i
    first = next((i for i, line in enumerate(lines) if line.strip()), 0)
    return (lines[first].strip()[:80] if lines else "Dashboard"), first


def _names(metric: Metric) -> list[tuple[str, ...]]:
    phrases = [metric.name_ru, metric.name_en, *metric.synonyms]
    return [stems for stems in (phrase_stems(p) for p in phrases) if stems]


def _mention(metric: Metric, words: list[Word]) -> tuple[int, int] | None:
    """(index, length) of the longest catalog phrase of the metric in ``words``."""
    best: tuple[int, int] | None = None
    for stems in _names(metric):
        at = find_phrase(stems, words, set())
        if at is not None and (best is None or len(stems) > best[1]):
            best = (at, len(stems))
    return best


def _breakdown_at(words: list[Word], end: int, catalog: Catalog, metric: Metric):
    """(the words after "по"/"by" that follow a KPI's name when they name a breakdown, the
    index of the word after them), or None."""
    for i in range(end, min(end + 3, len(words))):
        if words[i].text not in BY_WORDS:
            continue
        for n in (3, 2, 1):
            phrase = " ".join(w.original for w in words[i + 1 : i + 1 + n])
            if phrase and find_breakdown(phrase, catalog, metric) is not None:
                return phrase, min(i + 1 + n, len(words))
    return None


@dataclass(frozen=True)
class Mention:
    """A catalog metric named on one line: where its words are, as written, and the
    breakdown written after it ("сумма платежей по регионам": by "регионам")."""

    metric: Metric
    at: int  # index of its first word in the line's words
    length: int  # how many words: one is a bare synonym ("платежи"), ambiguous in prose
    words: str
    by: str | None
    through: int  # index of the word after the name and its breakdown


def kpi_mentions(words: list[Word], catalog: Catalog, taken: set[str] | None = None):
    """The metrics named on one line, in the order written: the longest catalog phrase
    wins where two overlap, a metric of ``taken`` is skipped. The draft and the gate's
    prose reading (prose.py) both read a line with this."""
    hits = [(m, _mention(m, words)) for m in catalog.metrics.values() if m.id not in (taken or ())]
    used: set[int] = set()
    kept: list[Mention] = []
    for metric, (at, n) in sorted(((m, a) for m, a in hits if a), key=lambda h: -h[1][1]):
        if used.isdisjoint(range(at, at + n)):
            used.update(range(at, at + n))
            said = " ".join(w.original for w in words[at : at + n])
            by = _breakdown_at(words, at + n, catalog, metric)
            said_by, through = by if by else (None, at + n)
            kept.append(Mention(metric, at, n, said, said_by, through))
    # a name inside another's breakdown is that breakdown's word ("по типу карты": no card KPI)
    inside = {i for m in kept for i in range(m.at + m.length, m.through)}
    return sorted((m for m in kept if m.at not in inside), key=lambda k: k.at)


def _kpis(lines: list[str], catalog: Catalog) -> list[dict[str, str]]:
    found: list[dict[str, str]] = []
    taken: set[str] = set()
    for line in lines:
        for mention in kpi_mentions(tokenize(line), catalog, taken):
            kpi = {"name": mention.words}
            if mention.by:
                kpi["by"] = mention.by
            kpi["metric"] = mention.metric.id
            found.append(kpi)
            taken.add(mention.metric.id)
    return found


def audience_words(words: list[Word]) -> list[tuple[int, str]]:
    """(index, the audience written in a draft) of each word naming an audience."""
    return [
        (i, name)
        for i, word in enumerate(words)
        for stem, name in AUDIENCES.items()
        if word.text.startswith(stem)
    ]


def _audience(text: str) -> str | None:
    """The first audience the text names, in the order of AUDIENCES (the board first)."""
    named = {name for _i, name in audience_words(tokenize(text))}
    return next((name for name in AUDIENCES.values() if name in named), None)


def _period(text: str, today: date) -> str | None:
    found = extract_period(text, today)
    return f"{found.start.isoformat()}..{found.end.isoformat()}" if found else None


def draft_brief(text: str, catalog: Catalog, today: date) -> Draft:
    """The front matter the rules read in a plain brief (only what they found)."""
    lines = text.splitlines()[:MAX_LINES]
    body = "\n".join(lines)
    lang = "ru" if detect_lang(body) == "ru" else "en"
    title, at = _title(lines)
    data: dict[str, Any] = {"title": title, "language": lang}
    audience, period = _audience(body), _period(body, today)
    if audience:
        data["audience"] = audience
    if period:
        data["period"] = period
    grain = extract_grain(normalize(body))
    if grain:
        data["by"] = str(grain)
    kpis = _kpis(lines[:at] + lines[at + 1 :], catalog)
    if kpis:
        data["kpis"] = [KpiRequest(**k).model_dump(exclude_defaults=True) for k in kpis]
    return Draft(data=data, lang=lang)


def draft_text(draft: Draft, original: str) -> str:
    """The draft file: the front matter with a note to check it, then the brief's text."""
    note = (
        "# Черновик, прочитанный правилами из текста брифа: проверьте каждую строку,\n"
        "# допишите недостающее и запустите vitrina build с этим файлом.\n"
        if draft.lang == "ru"
        else "# A draft the rules read from the brief's text: check every line, add what\n"
        "# is missing and run vitrina build on this file.\n"
    )
    front = yaml.safe_dump(draft.data, allow_unicode=True, sort_keys=False, width=100)
    return f"---\n{note}{front}---\n{original.strip()}\n"


def draft_path(brief: Path) -> Path:
    """BRIEF.md -> BRIEF.draft.md, beside the brief."""
    return brief.with_name(f"{brief.stem}.draft.md")


def write_draft(brief: Path, text: str, catalog: Catalog, today: date) -> str:
    """Write the draft beside a plain brief (an existing draft is kept: the requester may
    be editing it); the message for the requester, in the brief's language."""
    draft, path = draft_brief(text, catalog, today), draft_path(brief)
    kept = path.exists()
    if not kept:
        path.write_text(draft_text(draft, text), encoding="utf-8")
    found = ", ".join(k for k in ("period", "by", "audience") if k in draft.data)
    if draft.lang == "ru":
        head = "черновик уже есть (не перезаписан)" if kept else "черновик front matter записан"
        return (
            f"{brief}: в брифе нет YAML front matter — {head}: {path} (KPI найдено: "
            f"{draft.kpis}; {found or 'период и аудитория не найдены'}). Проверьте его и "
            f"запустите: vitrina build {path}"
        )
    head = "a draft already exists (not overwritten)" if kept else "a draft front matter is written"
    return (
        f"{brief}: the brief has no YAML front matter — {head}: {path} (KPIs found: "
        f"{draft.kpis}; {found or 'no period or audience found'}). Check it and run: "
        f"vitrina build {path}"
    )
