"""`combined_manual.md` (by topic, with contents and a warnings section) and `index.json`.

Both are streamed from the run ledger and the documents on disk into temp files that are
renamed into place, so memory stays flat in the number of measures and a kill mid-write
never leaves a truncated manual. A measure listed under several topics is documented
once and listed in each; every warning of the run (unreadable SQL files, DAX syntax
errors, tables nobody writes, an empty model) is named in the warnings section.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import IO, Any
from urllib.parse import unquote

from vitrina.docs.runfiles import MANIFEST, RunFiles, atomic_open, atomic_write
from vitrina.docs.screen import failed_errors, failed_modules
from vitrina.docs.workspace import Workspace
from vitrina.docs.writer.i18n import labels, translate_warning
from vitrina.docs.writer.markdown import END_MARK, HASH_MARK, anchor

_LINK = re.compile(r"\]\(([^()\s]+\.md)\)")


def _demote(text: str, files: set[str], levels: int = 2, folder: str = "measures") -> str:
    """Headings pushed `levels` down (the manual nests them under topics); links made anchors.

    A link to a document outside the manual (kept from an earlier run) points into `folder`.
    """
    lines = []
    in_fence = False
    for line in text.splitlines():
        if line.startswith((HASH_MARK, END_MARK)):
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


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _missed_section(missed: list[dict[str, Any]], L: dict[str, str], lang: str) -> list[str]:
    """Measures asked for and not documented, with the reason: nothing is dropped silently."""
    if not missed:
        return []
    out = [
        '<a id="missed"></a>',
        "",
        f"## {L['missed']}",
        "",
        f"| {L['measure']} | {L['topic']} | {L['reason']} | {L['detail']} |",
        "| --- | --- | --- | --- |",
    ]
    for m in missed:
        reason = L.get(f"reason_{m.get('reason')}", str(m.get("reason", "")))
        detail = (
            translate_warning(m.get("detail", ""), lang) if m.get("reason") != "not found" else ""
        )
        if m.get("suggestions"):
            detail = f"{L['did_you_mean']} " + ", ".join(f"[{s}]" for s in m["suggestions"])
        cells = [f"[{m.get('measure', '')}]", str(m.get("topic", "")), reason, detail]
        out.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    out.append("")
    return out


def run_warnings(ws: Workspace, rows: list[dict[str, Any]]) -> list[str]:
    """Every run-level warning, each once: empty model, bad SQL files, per-measure ones."""
    out: list[str] = []
    if not ws.model.measures:
        out.append(
            "the model has no measures: there is nothing to document"
            + ("" if ws.model.tables else " (it has no tables either)")
        )
    index = ws.index
    failed = {(f.file, f.line) for f in failed_modules(ws).values()}  # errors, said there
    for err in index.errors if index is not None else []:
        where = ws.display_path(err["file"]) or err["file"]
        if (where, err.get("line")) in failed:
            continue
        out.append(
            f"{where}:{err['line']}: {err['message']}"
            if err.get("line")
            else f"{where}: {err['message']}"
        )
    for row in rows:
        out.extend(row.get("run_warnings") or [])
    return list(dict.fromkeys(out))


def collect(
    files: RunFiles,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]], list[str]]:
    """(documented rows in queue order, missed entries, all rows, topic order) of a run."""
    data = files.read_queue()
    rows_by_i = files.rows()
    documented: list[dict[str, Any]] = []
    missed = list(data["missed"])
    rows: list[dict[str, Any]] = []
    for i, item in enumerate(data["queue"]):
        row = rows_by_i.get(i)
        if row is None:  # the run stopped before it: say so rather than lose it
            row = {
                "i": i,
                "measure": item["measure"],
                "table": item["table"],
                "topics": item["topics"],
                "status": "missed",
                "reason": "error",
                "detail": "not reached",
                "suggestions": [],
            }
        rows.append(row)
        if row.get("status") in ("created", "unchanged"):
            documented.append(row)
        else:
            missed.append(
                {
                    "measure": row["measure"],
                    "topic": ", ".join(row.get("topics") or []),
                    "reason": row.get("reason", "error"),
                    "detail": row.get("detail", ""),
                    "suggestions": row.get("suggestions", []),
                }
            )
    order = list(
        dict.fromkeys(
            [*data["meta"].get("topics", []), *(t for r in documented for t in r["topics"])]
        )
    )
    return documented, missed, rows, order


def _generated(L: dict[str, str], request: dict[str, Any]) -> str:
    """Who wrote the texts: the rules, or an agent or a model checked against the facts."""
    if request.get("agent"):
        return L["generated_agent"].format(agent=request["agent"])
    if request.get("llm"):
        return L["generated_llm"].format(llm=request["llm"])
    return L["generated"]


def _contents(
    L: dict[str, str],
    topics: dict[str, list[tuple[dict[str, Any], bool]]],
    sections: list[tuple[str, list[Any]]],
) -> str:
    """The table of contents: topics with their measures, then errors, warnings, missed."""
    out = [f"## {L['contents']}\n\n"]
    n = 0
    for n, (topic, items) in enumerate(topics.items(), 1):
        out.append(f"{n}. [{topic}](#topic-{n})\n")
        out += [f"    - [[{row['measure']}]](#{anchor(row['file'])})\n" for row, _ in items]
    for name, lines in sections:
        if lines:
            n += 1
            out.append(f"{n}. [{L[name]}](#{name}) ({len(lines)})\n")
    return "".join(out) + "\n"


def _write_topics(
    fh: IO[str],
    L: dict[str, str],
    topics: dict[str, list[tuple[dict[str, Any], bool]]],
    measures_dir: Path,
    doc_files: set[str],
) -> None:
    """Each topic with its documents, read from disk one at a time."""
    for ti, (topic, items) in enumerate(topics.items(), 1):
        fh.write(f'<a id="topic-{ti}"></a>\n\n## {topic}\n\n')
        for row, first in items:
            if not first:  # documented under its first topic; listed here too
                fh.write(
                    f"- [[{row['measure']}]](#{anchor(row['file'])}): "
                    f"{L['see_topic'].format(topic=row['topics'][0])}\n\n"
                )
                continue
            path = measures_dir / row["file"]
            text = path.read_text(encoding="utf-8") if path.exists() else f"# [{row['measure']}]\n"
            fh.write(f'<a id="{anchor(row["file"])}"></a>\n\n{_demote(text, doc_files)}\n\n')


def write_combined(
    out_dir: Path, files: RunFiles, ws: Workspace, *, request: dict[str, Any]
) -> tuple[Path, Path]:
    """Write the manual, index.json and the manifest of the run; return the first two paths."""
    lang = request.get("lang", "en")
    L = labels(lang)
    out_dir.mkdir(parents=True, exist_ok=True)
    measures_dir = out_dir / "measures"
    documented, missed, rows, order = collect(files)
    warnings = run_warnings(ws, rows)
    errors = failed_errors(ws)
    topics: dict[str, list[tuple[dict[str, Any], bool]]] = {t: [] for t in order}
    for row in documented:
        for k, topic in enumerate(row["topics"]):
            topics[topic].append((row, k == 0))
    topics = {t: items for t, items in topics.items() if items}
    doc_files = {r["file"] for r in documented}
    manual = out_dir / "combined_manual.md"
    with atomic_open(manual) as fh:
        fh.write(f"# {L['manual']}: {ws.model.name}\n\n_{_generated(L, request)}_\n\n")
        if not ws.model.measures:
            fh.write(f"> {L['empty_model']}\n\n")
        sections = [("errors", errors), ("warnings", warnings), ("missed", missed)]
        fh.write(_contents(L, topics, sections))
        _write_topics(fh, L, topics, measures_dir, doc_files)
        for name, lines in sections[:2]:
            if lines:
                fh.write(f'<a id="{name}"></a>\n\n## {L[name]}\n\n')
                fh.write("".join(f"- {translate_warning(x, lang)}\n" for x in lines) + "\n")
        fh.write("\n".join(_missed_section(missed, L, lang)))
    index = out_dir / "index.json"
    head = {
        "model": ws.model.name,
        "model_path": str(request["model"]),
        "lang": lang,
        "input_hash": request.get("input_hash"),
        "errors": errors,
        "warnings": warnings,
        "sql_errors": [dict(e) for e in (ws.index.errors if ws.index is not None else [])],
    }
    with atomic_open(index) as fh, files.open_lineage() as lin_fh:
        fh.write(json.dumps(head, ensure_ascii=False)[:-1] + ', "measures": {')
        for k, row in enumerate(documented):
            raw = files.lineage_bytes(row, lin_fh)
            entry = {
                "topic": row["topics"][0],
                "topics": row["topics"],
                "measure": row["measure"],
                "table": row["table"],
                "file": f"measures/{row['file']}",
                "hash": row.get("hash"),
            }
            body = (
                json.dumps(entry, ensure_ascii=False)[:-1]
                + ', "lineage": '
                + (raw.decode("utf-8") if raw else "{}")
            )
            fh.write(
                ("," if k else "")
                + json.dumps(f"{row['table']}/{row['measure']}", ensure_ascii=False)
                + ": "
                + body
                + "}"
            )
        fh.write('}, "missed": ' + json.dumps(missed, ensure_ascii=False, default=str) + "}")
    _write_manifest(out_dir, request, documented, missed, warnings, errors)
    return manual, index


def _write_manifest(
    out_dir: Path,
    request: dict[str, Any],
    documented: list[dict[str, Any]],
    missed: list[dict[str, Any]],
    warnings: list[str],
    errors: list[str],
) -> None:
    """Sizes and times of every output file, for the no-work check of an unchanged rerun."""
    stats: dict[str, list[int]] = {}
    for name in (
        "combined_manual.md",
        "index.json",
        *(f"measures/{r['file']}" for r in documented),
    ):
        try:
            st = (out_dir / name).stat()
        except OSError:
            continue
        stats[name] = [st.st_size, st.st_mtime_ns]
    manifest = {
        "input_hash": request.get("input_hash"),
        "files": stats,
        "measures": [r["measure"] for r in documented],
        "missed": missed,
        "warnings": warnings,
        "errors": errors,
    }
    atomic_write(out_dir / MANIFEST, json.dumps(manifest, ensure_ascii=False, default=str))
