"""The supervisor's own prefixes ("Задача:", "Task:", "отчёт:", "Report:"): they choose the
role and are no part of what the role is asked, so they are stripped before the hand-off
(a task planned from "Задача: ..." once made the word "Задача" its first step)."""

from __future__ import annotations

import re

# any case, the colon with or without spaces around it, at the very start of the request
PREFIX = re.compile(r"^\s*(задача|task|отч[её]т|report)\s*:\s*", re.IGNORECASE)


def strip_prefix(request: str) -> tuple[str | None, str]:
    """(the prefix word, lower case, or None; the request without it). A prefix with nothing
    after it is kept: the request is then the word itself.

    >>> strip_prefix("Задача: сравни платежи")
    ('задача', 'сравни платежи')
    >>> strip_prefix("REPORT:revenue by region"), strip_prefix("Task : x"), strip_prefix("Задача")
    (('report', 'revenue by region'), ('task', 'x'), (None, 'Задача'))
    """
    match = PREFIX.match(request)
    if match is None or not request[match.end() :].strip():
        return None, request.strip()
    return match.group(1).lower(), request[match.end() :].strip()
