"""The structured brief a requester writes: KPIs, breakdowns, period, filters, audience.

A YAML file (or Markdown with a YAML front matter between ``---`` lines). Errors name the
file and the line and say what to write instead; a brief that does not parse never starts
a build.

    title: Платежи 2025 — обзор для правления
    audience: правление
    period: 2025 год
    by: month                 # the breakdown of every KPI unless the KPI says otherwise
    kpis:
      - Сумма платежей        # a catalog metric by name, synonym or id
      - name: Средний чек
        by: регион
      - metric: paying_clients
        title: Платящие клиенты
    filters:
      - dimension: канал
        values: [app]
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from vitrina.language.detect import detect_lang
from vitrina.team.data.brief_keys import key_problems, missing_title
from vitrina.team.errors import BriefError, PlainBrief

MAX_KPIS = 24


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class KpiRequest(_Strict):
    name: str = ""
    metric: str | None = None
    by: str | None = None
    title: str | None = None
    description: str | None = None
    line: int = 0  # where the KPI is written in the brief

    @property
    def label(self) -> str:
        return self.title or self.name or self.metric or "?"


class FilterRequest(_Strict):
    dimension: str
    values: list[str]
    line: int = 0


class Brief(_Strict):
    title: str
    audience: str | None = None
    language: Literal["ru", "en"] | None = None
    period: str | None = None
    by: str | None = None
    kpis: list[KpiRequest] = Field(default_factory=list)
    filters: list[FilterRequest] = Field(default_factory=list)
    notes: str = ""
    prose: str = ""  # the Markdown text after the front matter, as written (prose.py reads it)
    prose_line: int = 0  # the brief's line of the prose's first line
    source: str = "<brief>"
    key_lines: dict[str, int] = Field(default_factory=dict)  # top-level key -> its line


def _front_matter(text: str) -> tuple[str, str, int]:
    """(yaml part, free text after it, line offset of the yaml part)."""
    lines = text.splitlines()
    if lines and lines[0].strip() == "---":
        for i, line in enumerate(lines[1:], start=1):
            if line.strip() == "---":
                return "\n".join(lines[1:i]), "\n".join(lines[i + 1 :]).strip(), 1
    return text, "", 0


def _prose(text: str) -> tuple[str, int]:
    """(the text after a front matter as written, the brief's line of its first line), so
    the gate can name the line of each requirement it reads there; ("", 0) without one."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        return "", 0
    for i, line in enumerate(lines[1:], start=1):
        if line.strip() == "---":
            return "\n".join(lines[i + 1 :]), i + 2
    return "", 0


def _lines(node: yaml.Node | None, key: str) -> list[int]:
    """1-based lines of the items of a top-level list (for messages)."""
    if not isinstance(node, yaml.MappingNode):
        return []
    for k, v in node.value:
        if getattr(k, "value", None) == key and isinstance(v, yaml.SequenceNode):
            return [item.start_mark.line + 1 for item in v.value]
    return []


def _is_prose(text: str, source: str, offset: int, data: Any = None) -> bool:
    """A plain Markdown brief: no front matter, and Markdown by name or a text, not a YAML
    mapping or list (a YAML brief starting with a comment is no prose)."""
    if offset or not text.strip():
        return False
    markdown = source.lower().endswith((".md", ".markdown", ".txt"))
    return (markdown and not isinstance(data, list)) or isinstance(data, str)


def _key_lines(node: yaml.Node | None, offset: int) -> dict[str, int]:
    if not isinstance(node, yaml.MappingNode):
        return {}
    return {str(k.value): k.start_mark.line + 1 + offset for k, _v in node.value}


def _load(text: str, source: str) -> tuple[yaml.Node | None, dict[str, Any], str, int]:
    """(YAML node, mapping, notes after the front matter, line offset); a plain Markdown
    brief is PlainBrief, any other unreadable one a BriefError naming the line."""
    body, notes, offset = _front_matter(text)
    try:
        node = yaml.compose(body)
        data: Any = yaml.safe_load(body)
    except yaml.YAMLError as exc:
        if _is_prose(text, source, offset):
            raise PlainBrief(source, text) from exc
        start = getattr(exc, "context_mark", None) or getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem_mark", None)
        where = f"{source}:{start.line + 1 + offset}" if start else source
        at = f" (line {problem.line + 1 + offset})" if problem and problem is not start else ""
        raise BriefError(
            f"{where}: the brief is not valid YAML: {getattr(exc, 'problem', exc)}{at}"
        ) from exc
    if not isinstance(data, dict) and _is_prose(text, source, offset, data):
        raise PlainBrief(source, text)
    if not isinstance(data, dict):
        raise BriefError(f"{source}: a brief is a YAML mapping with at least 'title' and 'kpis'")
    return node, data, notes, offset


def _kpi_items(items: list[Any], lines: list[int], source: str) -> list[dict[str, Any]]:
    kpis = []
    for i, item in enumerate(items):
        line = lines[i] if i < len(lines) else 0
        if isinstance(item, str):
            item = {"name": item}
        if not isinstance(item, dict):
            raise BriefError(
                f"{source}:{line}: a KPI is a name or a mapping (name, metric, by, title)"
            )
        kpis.append(
            {**{k: str(v) if v is not None else None for k, v in item.items()}, "line": line}
        )
    return kpis


def _filter_items(items: list[Any], lines: list[int], source: str) -> list[dict[str, Any]]:
    filters = []
    for i, item in enumerate(items):
        line = lines[i] if i < len(lines) else 0
        if not isinstance(item, dict) or "dimension" not in item:
            raise BriefError(
                f"{source}:{line}: a filter is a mapping: dimension: NAME, values: [V, ...]"
            )
        values = item.get("values")
        values = [values] if isinstance(values, str | int | float) else values or []
        filters.append(
            {"dimension": str(item["dimension"]), "values": [str(v) for v in values], "line": line}
        )
    return filters


def parse_brief(text: str, source: str = "<brief>") -> Brief:
    """Read a brief; BriefError names the file, the line and the fix."""
    node, data, notes, offset = _load(text, source)
    _check_keys(node, data, offset, source, text)
    kpi_lines = [n + offset for n in _lines(node, "kpis")]
    filter_lines = [n + offset for n in _lines(node, "filters")]
    kpis = _kpi_items(data.get("kpis") or [], kpi_lines, source)
    filters = _filter_items(data.get("filters") or [], filter_lines, source)
    raw = {**data, "kpis": kpis, "filters": filters, "source": source}
    raw["key_lines"] = _key_lines(node, offset)
    for key in ("period", "by", "audience", "title"):
        if raw.get(key) is not None:
            raw[key] = str(raw[key])
    if notes:
        raw["notes"] = (str(raw.get("notes") or "") + "\n" + notes).strip()
        raw["prose"], raw["prose_line"] = _prose(text)
    try:
        brief = Brief(**raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"])
        raise BriefError(f"{source}: field '{field}': {first['msg']}") from exc
    if len(brief.kpis) > MAX_KPIS:
        raise BriefError(
            f"{source}: {len(brief.kpis)} KPIs; a dashboard holds at most {MAX_KPIS}: "
            "split the brief"
        )
    return brief


def brief_lang(data: dict[str, Any], text: str) -> str:
    """The brief's language for its messages: stated, else the title's, else the text's."""
    stated = str(data.get("language") or "")
    if stated in ("ru", "en"):
        return stated
    return "ru" if detect_lang(str(data.get("title") or text)) == "ru" else "en"


def _check_keys(
    node: yaml.Node | None, data: dict[str, Any], offset: int, source: str, text: str
) -> None:
    """Unknown keys (with the nearest known one) and a missing title, with their lines."""
    lang = brief_lang(data, text)
    problems = [p.text(lang) for p in key_problems(node, offset)]
    title = missing_title(data, lang)
    if title:
        problems.append(title)
    if problems:
        raise BriefError(f"{source}: " + "\n".join(problems))


def load_brief(path: Path) -> Brief:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise BriefError(f"cannot read the brief {path}: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise BriefError(f"{path}: the brief is not UTF-8 text") from exc
    return parse_brief(text, str(path))
