"""Sample questions for `catalog check --questions`: a YAML list, `questions:`, an eval
suite's `cases:` (`question:`), or a text file with one question a line."""

from __future__ import annotations

from typing import Any

MAX_QUESTIONS = 1000  # a questions file longer than this is read up to here


def questions_in(text: str, *, is_yaml: bool) -> list[str]:
    """Questions from a YAML file (a list of strings, `questions:` or an eval suite's
    `cases:` with `question:`) or a text file (one per line, `#` comments).

    >>> questions_in("# sample\nRevenue in 2024\n\nВыручка по странам", is_yaml=False)
    ['Revenue in 2024', 'Выручка по странам']
    """
    import yaml

    data = yaml.safe_load(text) if is_yaml else None
    items: list[Any]
    if isinstance(data, dict):
        items = data.get("questions") or data.get("cases") or []
    elif isinstance(data, list):
        items = data
    else:
        items = [line for line in text.splitlines() if line.strip()]
    out = []
    for item in items[:MAX_QUESTIONS]:
        if isinstance(item, dict):
            item = item.get("question") or item.get("q")
        if isinstance(item, str) and item.strip() and not item.lstrip().startswith("#"):
            out.append(item.strip())
    return out
