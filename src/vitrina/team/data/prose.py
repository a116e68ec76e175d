"""The brief's prose read for requirements its front matter lacks, at the gate (BRIEF-010).

A Markdown brief keeps text under its front matter ("Отдельно покажите сумму возвратов по
регионам"), and nobody built from it: the team reads the keys. The rules now read that
text line by line with the plain brief's reader (``draft.kpi_mentions``: catalog metric
names and synonyms with the "по X"/"by X" after them; the period and grain readers of
``vitrina ask``; the draft's audience words) and compare each requirement with the front
matter. What the text asks and the keys lack is a question for the requester with the line,
the words quoted and what to change (docs/decisions/209):

* a KPI named in the text that no KPI of the front matter is (its metric);
* a breakdown written after a KPI of the front matter that none of that metric's KPIs has;
* a time grain asked on its own ("помесячно") that no KPI has;
* a period in the text outside the front matter's (or with none there: the default
  would replace it);
* an audience written "для X"/"for X" on the other side of the board line from the
  front matter's (the only thing the audience changes: board-level number formats).

The reading is conservative, because a false question costs a round: a bare one-word
synonym ("платежи", "cards") counts only on a line that asks for something (a list item or
a requirement word such as "нужно", "покажите", "need", "show"); a grain or a period only on
such a line; a metric right after "по"/"by" is a breakdown, one after or before a negation
("без", "не нужен", "not") is not asked, nor a one-word name just after "для"/"for" (an
audience's words: "for the sales managers"); a word ambiguous with a KPI the front matter
has counts as that KPI; a date after "к"/"до"/"by" is a deadline and a line comparing
names no period. Text the rules cannot read (context, wishes without a catalog word)
gives nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date

from vitrina.catalog import Catalog
from vitrina.catalog.model import Metric
from vitrina.language.periods import extract_period
from vitrina.language.periods.grain import BREAKDOWN_WORDS, find_grain
from vitrina.language.text import Word, normalize, phrase_stems, stem_matches, tokenize
from vitrina.team.data.brief import Brief, KpiRequest
from vitrina.team.data.contradictions import Contradiction, read_period
from vitrina.team.data.draft import (
    BY_WORDS,
    HEADING,
    MAX_LINES,
    Mention,
    audience_words,
    kpi_mentions,
)
from vitrina.team.data.scope import find_breakdown, find_metric
from vitrina.team.review.context import BOARD_STEMS

CODE = "BRIEF-010"
# words that make a line a requirement (what the requester asks, not context): word starts,
# then whole words (a third person's "хочет понять" or "wants" is background)
CUES = (
    "нуж", "надо", "необходим", "покаж", "показать", "показыв", "добав", "включ", "вывед",
    "отраз", "отдельн", "требует", "show", "add", "include", "display", "require", "cover",
    "separately", "break",
)  # fmt: skip
CUE_WORDS = frozenset(("хотим", "хотелось", "прошу", "want", "need", "please", "must", "should"))
NEGATIONS = frozenset(
    ("не", "без", "кроме", "нет", "ни", "not", "without", "except", "excluding", "no", "never",
     "don't", "doesn't", "dont")
)  # fmt: skip
FOR_WORDS = frozenset(("для", "for"))
# a date after these is a deadline ("к 1 декабря", "by December 1"), not the data's period
DEADLINE_WORDS = frozenset(("к", "ко", "до", "by", "before", "until", "till"))
# a period on a line comparing is the comparison's ("сравнить с прошлым годом"): the front
# matter has no key for it, so the rules do not ask
COMPARING = ("сравн", "compar", "против", "versus", "vs")
# a grain asked on its own is written as a breakdown ("по месяцам", "помесячно", "by week",
# "и месяцам"); "ежедневно", "weekly", "every month", "quarterly review" are a cadence or an
# adjective as often as a breakdown, and a grain on a line about refreshing or another
# report is no breakdown asked
GRAIN_FORMS = ("по", "в разрезе", "by ", "per ", "и ", "and ")
NOT_A_BREAKDOWN = ("обновл", "update", "refresh", "отчет", "report", "выгруз", "рассыл", "send")
LIST_ITEM = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)])\s+")
GRAIN_NAMES = {
    "day": "день",
    "week": "неделя",
    "month": "месяц",
    "quarter": "квартал",
    "year": "год",
}


@dataclass
class FrontMatter:
    """What the front matter asks, in the terms the prose is compared in."""

    kpis: dict[str, list[tuple[KpiRequest, str | None]]] = field(default_factory=dict)
    stems: set[str] = field(default_factory=set)  # the words of every metric it has
    grains: set[str] = field(default_factory=set)
    period: tuple[date, date] | None = None


def _by_key(text: str | None, catalog: Catalog, metric: Metric) -> str | None:
    """A breakdown as one comparable key (the grain or table.column), None when unread."""
    found = find_breakdown(text, catalog, metric) if text else None
    return (found.grain or found.column) if found else None


def front_matter(brief: Brief, catalog: Catalog, today: date) -> FrontMatter:
    fm = FrontMatter()
    for request in brief.kpis:
        metric = find_metric(request, catalog)
        if metric is None:
            continue  # BRIEF-001's
        by = _by_key(request.by or brief.by, catalog, metric)
        fm.kpis.setdefault(metric.id, []).append((request, by))
        names = [metric.name_ru, metric.name_en, metric.id, *metric.synonyms, request.name]
        fm.stems.update(s for name in names for s in phrase_stems(name or ""))
        if by in BREAKDOWN_WORDS:
            fm.grains.add(by)
    fm.period = read_period(brief.period, today) if brief.period else None
    return fm


def prose_lines(brief: Brief) -> list[tuple[int, str]]:
    """(line of the brief, text) of each prose line worth reading: no code block, comment,
    empty line or heading that repeats the title."""
    title = phrase_stems(brief.title)
    kept: list[tuple[int, str]] = []
    fenced = commented = False
    for i, line in enumerate(brief.prose.splitlines()[:MAX_LINES]):
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if stripped.startswith("<!--"):
            commented = "-->" not in stripped
            continue
        if commented:
            commented = "-->" not in stripped
            continue
        heading = HEADING.match(line)
        text = heading.group(1) if heading else line
        if fenced or not stripped or phrase_stems(text) == title:
            continue
        kept.append((brief.prose_line + i, text))
    return kept


def _starts(word: Word, stems: tuple[str, ...]) -> bool:
    return word.text.startswith(stems)


def asks(words: list[Word]) -> bool:
    """A line that asks for something: it has a requirement word."""
    return any(w.text in CUE_WORDS or _starts(w, CUES) for w in words)


def listed(line: str) -> bool:
    """A list item: under "Что показать:" a short item asks too."""
    return bool(LIST_ITEM.match(line))


def _negated(words: list[Word], mention: Mention) -> bool:
    before = words[max(0, mention.at - 3) : mention.at]
    after = words[mention.at + mention.length : mention.at + mention.length + 2]
    return any(w.text in NEGATIONS for w in (*before, *after))


def _kept(mention: Mention, words: list[Word], asking: bool, fm: FrontMatter) -> bool:
    """A mention the rules read as a KPI asked (see the module's docstring)."""
    if _negated(words, mention):
        return False
    if mention.at and words[mention.at - 1].text in BY_WORDS:
        return False  # "платежи по картам": a breakdown's words
    if mention.length > 1:
        return True
    if any(w.text in FOR_WORDS for w in words[max(0, mention.at - 2) : mention.at]):
        return False  # "for the sales managers": an audience's words
    word = words[mention.at].text  # one word: ambiguous with a KPI the front matter has?
    ambiguous = any(stem_matches(stem, word) for stem in fm.stems)
    return asking and not (mention.metric.id not in fm.kpis and ambiguous)


@dataclass(frozen=True)
class Said:
    """One prose line: its brief line, its words quoted in the question."""

    line: int
    words: str


def _question(said: Said, ru: str, en: str) -> Contradiction:
    return Contradiction(
        CODE,
        said.line,
        f"в тексте брифа «{said.words}» — {ru}",
        f"the brief's text says «{said.words}» — {en}",
    )


def _by_words(text: str | None, catalog: Catalog, metric: Metric) -> tuple[str, str]:
    """A breakdown as a brief's ``by`` is written (RU, EN): "месяц"/"month", a column's label."""
    found = find_breakdown(text, catalog, metric) if text else None
    if found is None:
        return text or "", text or ""
    if found.grain:
        return GRAIN_NAMES[found.grain], found.grain
    column = catalog.column(found.column or "")
    if column is None:
        return text or "", text or ""
    return column.label("ru").lower(), column.label("en").lower()


def _entry(name: str, by: str) -> str:
    """A KPI line to paste under ``kpis:`` (a flow mapping, valid YAML as it is)."""
    return f"- {{name: {name}, by: {by}}}" if by else f"- {name}"


def _missing_kpi(said: Said, mention: Mention, catalog: Catalog) -> Contradiction:
    metric = mention.metric
    by_ru, by_en = _by_words(mention.by, catalog, metric)
    return _question(
        said,
        f"это показатель каталога «{metric.name_ru}» ({metric.id}), а в kpis его нет: "
        f"добавьте в kpis «{_entry(metric.name_ru, by_ru)}» или уберите (переформулируйте) "
        "эту строку текста",
        f"that is the catalog metric «{metric.name_en}» ({metric.id}), and no KPI of "
        f"'kpis' is: add «{_entry(metric.name_en, by_en)}» to kpis, or remove (reword) "
        "this line of the text",
    )


def _missing_by(
    said: Said, mention: Mention, has: list[tuple[KpiRequest, str | None]], catalog: Catalog
) -> Contradiction:
    request = has[0][0]
    by_ru, by_en = _by_words(mention.by, catalog, mention.metric)
    shown_ru = ", ".join(f"«{r.by}»" if r.by else "нет (карточка)" for r, _by in has)
    shown_en = ", ".join(f"«{r.by}»" if r.by else "none (a card)" for r, _by in has)
    return _question(
        said,
        f"разрез «{by_ru}», а у KPI «{request.label}» (строка {request.line}) разрез "
        f"{shown_ru}: добавьте в kpis «{_entry(request.label, by_ru)}» или уберите "
        "разрез из текста",
        f"the breakdown «{by_en}», and KPI «{request.label}» (line {request.line}) is "
        f"by {shown_en}: add «{_entry(request.label, by_en)}» to kpis, or remove "
        "the breakdown from the text",
    )


def _quoted(text: str, words: list[Word], mention: Mention) -> str:
    """The mention's words and its breakdown's as written on the line."""
    return text[words[mention.at].start : words[mention.through - 1].end]


def _kpi_questions(
    line: int,
    text: str,
    words: list[Word],
    mentions: list[Mention],
    fm: FrontMatter,
    catalog: Catalog,
) -> list[Contradiction]:
    found = []
    for mention in mentions:
        said = Said(line, _quoted(text, words, mention))
        has = fm.kpis.get(mention.metric.id)
        if has is None:
            found.append(_missing_kpi(said, mention, catalog))
            continue
        wanted = _by_key(mention.by, catalog, mention.metric)
        if wanted is not None and wanted not in {by for _r, by in has}:
            found.append(_missing_by(said, mention, has, catalog))
    return found


def _grain_question(line: int, text: str, said_by: set[str | None], fm: FrontMatter):
    """A grain asked on the line, not after a KPI (``said_by``: the KPIs' breakdowns there)."""
    norm = normalize(text)
    found = find_grain(norm)
    if found is None or any(stem in norm for stem in NOT_A_BREAKDOWN):
        return []
    grain, (start, end) = found
    if not norm[start:end].startswith(GRAIN_FORMS):
        return []
    if str(grain) in fm.grains or str(grain) in said_by:
        return []
    ru, en = BREAKDOWN_WORDS[str(grain)][0], str(grain)
    first = next((has[0][0] for has in fm.kpis.values()), None)
    if first is None:  # no KPI the catalog knows: the brief-wide by is the one place
        do_ru, do_en = f"укажите by: {GRAIN_NAMES[str(grain)]}", f"write by: {en}"
    else:
        do_ru = f"добавьте в kpis «{_entry(first.label, GRAIN_NAMES[str(grain)])}»"
        do_en = f"add «{_entry(first.label, en)}» to kpis"
    return [
        _question(
            Said(line, text[start:end].strip()),
            f"разрез {ru}, а ни у одного KPI в front matter его нет: {do_ru} (или by у "
            "другого KPI), или уберите это из текста",
            f"a breakdown by {en}, and no KPI of the front matter has it: {do_en} (or "
            "another KPI's by), or remove it from the text",
        )
    ]


def _period_question(line: int, text: str, brief: Brief, fm: FrontMatter, today: date):
    found = extract_period(text, today)
    if found is None or (brief.period and fm.period is None):
        return []  # no period, or the front matter's does not read (BRIEF-003's)
    at = text.find(found.span)
    before = tokenize(text[: max(at, 0)])
    if (before and before[-1].text in DEADLINE_WORDS) or any(
        _starts(w, COMPARING) for w in tokenize(text)
    ):
        return []
    said = Said(line, found.span.strip(" .,;:!?") or text.strip())
    span = f"{found.start:%d.%m.%Y}–{found.end:%d.%m.%Y}"
    iso = f"{found.start.isoformat()}..{found.end.isoformat()}"
    if fm.period is None:
        return [
            _question(
                said,
                f"период {span}, а period в front matter не указан (будут последние "
                f"двенадцать полных месяцев): добавьте period: {iso} или уберите период "
                "из текста",
                f"the period {found.start} to {found.end}, and the front matter has no "
                f"period (the last twelve full months would apply): add period: {iso}, or "
                "remove the period from the text",
            )
        ]
    if fm.period[0] <= found.start and found.end <= fm.period[1]:
        return []  # a part of the front matter's period: its data are on the dashboard
    line_ = brief.key_lines.get("period", 0)
    return [
        _question(
            said,
            f"период {span}, а period в front matter «{brief.period}» (строка {line_}) "
            f"его не покрывает: исправьте period (например, period: {iso}) или текст",
            f"the period {found.start} to {found.end}, and the front matter's period "
            f"«{brief.period}» (line {line_}) does not cover it: change period (e.g. "
            f"period: {iso}) or the text",
        )
    ]


def _board(text: str) -> bool:
    folded = normalize(text)
    return any(stem in folded for stem in BOARD_STEMS)


def _audience_question(line: int, words: list[Word], brief: Brief) -> list[Contradiction]:
    for i, name in audience_words(words):
        start = next((k for k in range(max(0, i - 2), i) if words[k].text in FOR_WORDS), None)
        if start is None:
            continue  # "вопросы — отделу аналитики": no audience asked
        board = _board(name) or _board(words[i].text)
        said = Said(line, " ".join(w.original for w in words[start : i + 1]))
        if brief.audience is None and board:
            return [
                _question(
                    said,
                    f"дашборд для аудитории «{name}», а audience в front matter не указана "
                    f"(по умолчанию — аналитики): добавьте audience: {name} или уберите "
                    "это из текста",
                    f"a dashboard for «{name}», and the front matter has no audience (the "
                    f"default is analysts): add audience: {name}, or remove it from the text",
                )
            ]
        if brief.audience is not None and board != _board(brief.audience):
            line_ = brief.key_lines.get("audience", 0)
            return [
                _question(
                    said,
                    f"дашборд для аудитории «{name}», а audience в front matter "
                    f"«{brief.audience}» (строка {line_}): числа для правления и для "
                    "остальных оформляются по-разному — исправьте audience или текст",
                    f"a dashboard for «{name}», and the front matter's audience is "
                    f"«{brief.audience}» (line {line_}): numbers for a board and for others "
                    "are formatted differently — change audience or the text",
                )
            ]
    return []


def prose_questions(brief: Brief, catalog: Catalog, today: date) -> list[Contradiction]:
    """Each requirement of the brief's prose that its front matter lacks (BRIEF-010)."""
    if not brief.prose.strip():
        return []
    fm = front_matter(brief, catalog, today)
    found: list[Contradiction] = []
    for line, text in prose_lines(brief):
        words = tokenize(text)
        asking, items = asks(words), listed(text)
        mentions = [m for m in kpi_mentions(words, catalog) if _kept(m, words, asking, fm)]
        found += _kpi_questions(line, text, words, mentions, fm, catalog)
        if asking or items:
            said_by = {_by_key(m.by, catalog, m.metric) for m in mentions if m.by}
            found += _grain_question(line, text, said_by, fm)
        if asking or items or mentions:
            found += _period_question(line, text, brief, fm, today)
        found += _audience_question(line, words, brief)
    return found
