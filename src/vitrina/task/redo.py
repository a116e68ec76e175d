"""Redo comments without a model: the comment is read into changes of the step's arguments.

What can change depends on the step's tool: a question's period ("за 2025 год") and its
breakdown ("по месяцам", "по регионам", "без разбивки"); a comparison's unit ("с прошлым
кварталом"); a series' length ("за 36 месяцев"); a forecast's horizon ("на 3 месяца",
"до конца года") and method ("линейный тренд", "без затухания"); a file's format. A comment
that names none of these is refused with the list of what the step can take: the step is
never silently rerun as it was.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from vitrina.language.periods import extract_grain, extract_period, strip_period
from vitrina.language.periods.compare import find_comparison
from vitrina.language.periods.grain import BREAKDOWN_WORDS
from vitrina.query import PeriodRef
from vitrina.task.horizon import read_horizon
from vitrina.task.state import Step

F = re.IGNORECASE
NO_BREAKDOWN = re.compile(
    r"без\s+(?:разбивк|группировк|разрез)\w*|(?:одним\s+)?итогом|"
    r"no\s+breakdown|without\s+(?:a\s+)?(?:breakdown|grouping)|(?:as\s+)?a\s+single\s+total",
    F,
)
BREAKDOWN = re.compile(r"(?:в\s+разрезе|по|by)\s+(?P<what>[\wё-]+(?:\s+[\wё-]+)?)", F)
SERIES = re.compile(
    r"(?:за|на|for|over)?\s*(?P<n>\d{1,2})\s*(?:полн\w+\s+)?(?:месяц\w*|мес\.?|months?)", F
)
METHODS = (
    (re.compile(r"линейн\w*|прям\w+|linear|straight\s+line", F), "linear"),
    (re.compile(r"без\s+затухан\w*|не\s*затуха\w*|undamped|no\s+damping|plain\s+holt", F), "holt"),
    (re.compile(r"с\s+затухан\w*|затухающ\w*|damped", F), "damped_holt"),
)
FORMATS = (
    (re.compile(r"\bcsv\b", F), "csv"),
    (re.compile(r"excel|xlsx|эксел\w*", F), "excel"),
    (re.compile(r"markdown|\bmd\b|маркдаун", F), "markdown"),
    (re.compile(r"график|chart|png", F), "chart"),
)
WHAT = {
    "ask": (
        "период («за 2025 год»), разбивку («по месяцам», «по регионам», «без разбивки»)",
        'the period ("for 2025"), the breakdown ("by month", "by region", "no breakdown")',
    ),
    "shift": (
        "период сравнения («с прошлым кварталом», «к прошлому месяцу»)",
        'the compared period ("vs the previous quarter", "vs last month")',
    ),
    "series": ("длину ряда («за 36 месяцев»)", 'the series\' length ("36 months")'),
    "forecast": (
        "горизонт («на 3 месяца», «до конца года»), метод («линейный тренд», «без затухания»)",
        'the horizon ("next 3 months", "until the end of the year"), the method ("linear", '
        '"undamped")',
    ),
    "write_file": (
        "формат файла (csv, excel, markdown, график)",
        "the file format (csv, excel, markdown, chart)",
    ),
}
EXAMPLE = {
    "ask": ("за 2025 год по месяцам", "for 2025 by month"),
    "shift": ("с прошлым кварталом", "vs the previous quarter"),
    "series": ("за 36 месяцев", "36 months"),
    "forecast": ("на 3 месяца, линейный тренд", "next 3 months, linear"),
    "write_file": ("csv", "csv"),
}


@dataclass
class Redo:
    """The step's new arguments and what changed, in words; `changes` empty = not understood."""

    args: dict[str, Any]
    changes: list[str] = field(default_factory=list)


def role(step: Step) -> str | None:
    """What a step's arguments are about: ask, shift, series, forecast, write_file."""
    if step.tool == "ask" or step.tool is None:
        if step.args.get("shift_from_step") is not None:
            return "shift"
        return "series" if step.args.get("series_from_step") is not None else "ask"
    if step.tool == "analyze" and step.args.get("kind") == "forecast":
        return "forecast"
    return step.tool if step.tool == "write_file" else None


def what_changes(step: Step, lang: str) -> tuple[str, str] | None:
    """(what the step can take, an example comment), for a refusal."""
    kind = role(step)
    if kind is None:
        return None
    li = 0 if lang == "ru" else 1
    return WHAT[kind][li], EXAMPLE[kind][li]


def _question(
    question: str, comment: str, today: date, lang: str, plan: dict[str, Any] | None = None
) -> tuple[str, list[str], dict[str, Any] | None]:
    """The step's question and, when its answer ran a rule plan, that plan changed the same
    way (the period, no breakdown, a time grain): ask then runs the plan, and no word of the
    question is cut out ("по платёжным системам" stays whole). A new breakdown named in
    words ("по регионам") needs the catalog's reading: the question is asked again."""
    changes: list[str] = []
    update: dict[str, Any] = {}
    new = extract_period(comment, today)
    if new is not None:
        old = extract_period(question, today)
        question = f"{strip_period(question, old) if old else question} {new.span.strip()}"
        changes.append(new.label_ru if lang == "ru" else new.label_en)
        update["period"] = PeriodRef.of(new).model_dump(mode="json")
    if NO_BREAKDOWN.search(comment):
        if plan is None:  # no plan to drop the breakdown from: not applied, never cut words
            return question, [], None
        words = "без разбивки" if lang == "ru" else "no breakdown"
        question = f"{question}, {words}"
        changes.append(words)
        update.update(dimensions=[], order=None, limit=None)
    grain = extract_grain(comment)
    if grain is not None and grain.value in BREAKDOWN_WORDS:
        words = BREAKDOWN_WORDS[grain.value][0 if lang == "ru" else 1]
        if words not in question:
            question = f"{question} {words}"
        changes.append(words)
        update["grain"] = grain.value
    elif not NO_BREAKDOWN.search(comment):
        rest = strip_period(comment, new) if new else comment
        found = BREAKDOWN.search(rest)
        if found and found.group(0) not in question:
            question = f"{question} {found.group(0).strip()}"
            changes.append(found.group(0).strip())
            plan = None  # a breakdown in words: the question is read again
    changed = {**plan, **update, "compared": None} if plan is not None and update else None
    return re.sub(r"\s{2,}", " ", question).strip(), changes, changed


def parse_redo(step: Step, comment: str, today: date, lang: str) -> Redo:
    """The step's arguments changed as the comment says (`changes` empty: nothing understood)."""
    args = dict(step.args)
    kind = role(step)
    changes: list[str] = []
    if kind == "ask":
        question = args.get("question") or step.title
        last = step.last_table()
        ran = (last.meta.get("plan") if last is not None else None) or args.get("plan")
        args["question"], changes, plan = _question(question, comment, today, lang, ran)
        args.pop("plan", None)
        if plan is not None:
            args["plan"] = plan  # vitrina.task.tools.ask runs it through run_plan
    elif kind == "shift":
        found = find_comparison(comment)
        if found is not None:
            args["unit"] = found.unit
            changes.append(found.span)
    elif kind == "series":
        m = SERIES.search(comment)
        if m and 3 <= int(m.group("n")) <= 60:
            args["months"] = int(m.group("n"))
            changes.append(m.group(0).strip())
    elif kind == "forecast":
        horizon = read_horizon(f"прогноз {comment}", today)
        if horizon.words:
            args["target"] = horizon.model_dump(mode="json")
            changes.append(horizon.words)
        method = next((name for pattern, name in METHODS if pattern.search(comment)), None)
        if method:
            args["method"] = method
            changes.append(method)
    elif kind == "write_file":
        fmt = next((name for pattern, name in FORMATS if pattern.search(comment)), None)
        if fmt:
            args["format"] = fmt
            changes.append(fmt)
    return Redo(args=args, changes=changes)
