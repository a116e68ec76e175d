"""`combined_manual.md` (grouped by topic, with a table of contents) and `index.json`."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from vitrina.docs.writer.i18n import labels
from vitrina.docs.writer.markdown import HASH_MARK, anchor

_LINK = re.compile(r"\]\(([^()\s]+\.md)\)")


@dataclass(frozen=True)
class Entry:
    topic: str
    measure: str
    table: str
    file: str  # file name inside the measures folder
    content_hash: str
    lineage: dict[str, Any]


def _demote(text: str, files: set[str], levels: int = 2, folder: str = "measures") -> str:
    """Headings pushed `levels` down (the manual nests them under topics); links made anchors.

    A link to a document outside the manual (kept from an earlier run) points into `folder`.
    """
    lines = []
    in_fence = False
    for line in text.splitlines():
        if line.startswith(HASH_MARK):
            continue
        if line.startswith("```"):
            in_fence = not in_fence
        if not in_fence and line.startswith("#"):
            line = "#" * levels + line
        lines.append(line)
    body = "\n".join(lines)
    def repl(m: re.Match[str]) -> str:
        target = unquote(m.group(1))
        return f"](#{anchor(target)})" if target in files else f"]({folder}/{m.group(1)})"

    return _LINK.sub(repl, body)


def _missed_section(missed: list[dict[str, Any]], L: dict[str, str]) -> list[str]:
    """Measures asked for and not documented, with the reason: nothing is dropped silently."""
    if not missed:
        return []
    out = ['<a id="missed"></a>', "", f"## {L['missed']}", "",
           f"| {L['measure']} | {L['topic']} | {L['reason']} | {L['detail']} |", "| --- | --- | --- | --- |"]
    for m in missed:
        reason = L.get(f"reason_{m.get('reason')}", str(m.get("reason", "")))
        detail = m.get("detail", "") if m.get("reason") != "not found" else ""
        if m.get("suggestions"):
            detail = f"{L['did_you_mean']} " + ", ".join(f"[{s}]" for s in m["suggestions"])
        cells = [f"[{m.get('measure', '')}]", str(m.get("topic", "")), reason, detail]
        out.append("| " + " | ".join(c.replace("|", "\\|").replace("\n", " ") for c in cells) + " |")
    out.append("")
    return out


def write_combined(out_dir: Path, measures_dir: Path, entries: list[Entry], *, lang: str, model_name: str,
                   model_path: str, missed: list[dict[str, Any]]) -> tuple[Path, Path]:
    """Write both files from the per-measure documents on disk; return their paths."""
    L = labels(lang)
    topics: dict[str, list[Entry]] = {}
    for e in entries:
        topics.setdefault(e.topic, []).append(e)
    files = {e.file for e in entries}
    out = [f"# {L['manual']}: {model_name}", "", f"_{L['generated']}_", "", f"## {L['contents']}", ""]
    for ti, (topic, items) in enumerate(topics.items(), 1):
        out.append(f"{ti}. [{topic}](#topic-{ti})")
        for e in items:
            out.append(f"    - [[{e.measure}]](#{anchor(e.file)})")
    if missed:
        out.append(f"{len(topics) + 1}. [{L['missed']}](#missed) ({len(missed)})")
    out.append("")
    for ti, (topic, items) in enumerate(topics.items(), 1):
        out += [f'<a id="topic-{ti}"></a>', "", f"## {topic}", ""]
        for e in items:
            path = measures_dir / e.file
            text = path.read_text(encoding="utf-8") if path.exists() else f"# [{e.measure}]\n"
            out += [f'<a id="{anchor(e.file)}"></a>', "", _demote(text, files, folder=measures_dir.name), ""]
    out += _missed_section(missed, L)
    manual = out_dir / "combined_manual.md"
    manual.write_text("\n".join(out), encoding="utf-8")
    index = {
        "model": model_name,
        "model_path": model_path,
        "lang": lang,
        "measures": {
            f"{e.table}/{e.measure}": {
                "topic": e.topic, "measure": e.measure, "table": e.table,
                "file": f"{measures_dir.name}/{e.file}", "hash": e.content_hash, "lineage": e.lineage,
            }
            for e in entries
        },
        "missed": missed,
    }
    index_path = out_dir / "index.json"
    index_path.write_text(json.dumps(index, ensure_ascii=False, default=str), encoding="utf-8")
    return manual, index_path
