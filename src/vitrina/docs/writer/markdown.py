"""One Markdown document per measure, in Russian or English."""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote

from vitrina.docs.dax.format import format_dax
from vitrina.docs.lineage import MeasureLineage
from vitrina.docs.model import Measure
from vitrina.docs.writer.explain import Explainer, explanation
from vitrina.docs.writer.i18n import labels, translate_warning
from vitrina.docs.writer.mermaid import MAX_NODES, cut_count, mermaid
from vitrina.docs.writer.order import derivation_text, order_lines
from vitrina.trace import Trace

HASH_MARK = "<!-- vitrina-docs hash="
END_MARK = "<!-- vitrina-docs end -->"
_UNSAFE = re.compile(r"[^\w\-. ()]+", re.UNICODE)


def doc_filename(name: str, taken: set[str]) -> str:
    """A file name safe on every OS, unique in `taken` (case-insensitive), kept readable."""
    readable = name
    for sym, word in (("%", " pct "), ("#", " num "), ("&", " and "), ("+", " plus ")):
        readable = readable.replace(sym, word)
    base = _UNSAFE.sub("_", readable).strip(" ._") or "measure"
    base = re.sub(r"\s+", " ", base)[:80]
    candidate = base
    if candidate.lower() in taken or candidate.upper() in {"CON", "PRN", "AUX", "NUL"}:
        candidate = f"{base}-{hashlib.sha1(name.encode()).hexdigest()[:6]}"
    taken.add(candidate.lower())
    return candidate + ".md"


def anchor(file_name: str) -> str:
    return "m-" + hashlib.sha1(file_name.encode()).hexdigest()[:10]


def _cell(text: object) -> str:
    return str(text if text is not None else "").replace("|", "\\|").replace("\n", " ")


def _fence(body: str, lang: str) -> str:
    ticks = "```"
    while ticks in body:
        ticks += "`"
    return f"{ticks}{lang}\n{body}\n{ticks}"


def _rel(path: str | None, out_dir: Path | None) -> str:
    if not path:
        return ""
    if (
        out_dir is None
    ):  # already shown relative to its --sql folder (`warehouse/dwh/Views/vTrip.sql`)
        return Path(path).as_posix()
    try:
        return os.path.relpath(path, out_dir).replace(os.sep, "/")
    except ValueError:
        return path


def render_measure(
    lin: MeasureLineage,
    measure: Measure,
    *,
    topic: str,
    lang: str = "en",
    link: Callable[[str], str | None] = lambda name: None,
    explain: Explainer | None = None,
    trace: Trace | None = None,
    docs_dir: Path | None = None,
) -> str:
    """The document text. `link(measure name)` gives the relative target of another measure."""
    L = labels(lang)
    out: list[str] = [f"# [{measure.name}]"]
    out.append("")
    meta = [f"**{L['topic']}:** {topic}", f"**{L['table']}:** '{measure.table}'"]
    if measure.format_string:
        meta.append(f"**{L['format']}:** `{measure.format_string}`")
    if measure.display_folder:
        meta.append(f"**{L['folder']}:** {measure.display_folder}")
    out += [" · ".join(meta), ""]
    out += [f"## {L['description']}", "", measure.description or f"_{L['no_description']}_", ""]
    out += [f"## {L['formula']}", "", _fence(format_dax(measure.expression), "dax"), ""]
    out += [f"## {L['explanation']}", "", explanation(lin, lang, explain, trace), ""]

    def mref(name: str) -> str:
        target = link(name)
        return f"[[{name}]]({quote(target)})" if target else f"[{name}]"

    out += [f"## {L['dependencies']}", ""]
    out.append(
        f"- **{L['direct_measures']}:** "
        + (", ".join(mref(m) for m in lin.direct_measures) or L["none"])
    )
    indirect = [m for m in lin.all_measures if m not in lin.direct_measures]
    if indirect:
        out.append(f"- **{L['all_measures']}:** " + ", ".join(mref(m) for m in lin.all_measures))
    out.append(f"- **{L['columns']}:** " + (", ".join(f"`{c}`" for c in lin.columns) or L["none"]))
    out.append(
        f"- **{L['model_tables']}:** "
        + (", ".join(f"'{t}'" for t in lin.model_tables) or L["none"])
    )
    if lin.variables:
        out.append(f"- **{L['variables']}:** " + ", ".join(f"`{v}`" for v in lin.variables))
    out.append("")

    if lin.calculated:
        out += [f"## {L['calculated']}", ""]
        for item in lin.calculated:
            out += [
                f"**{L[item.kind]}** {item.name}:",
                "",
                _fence(format_dax(item.expression), "dax"),
                "",
            ]

    out += [
        f"## {L['lineage']}",
        "",
        L[f"level_{lin.level}"],
        "",
        _fence(mermaid(lin, lang), "mermaid"),
        "",
    ]
    if cut_count(lin):
        out += [L["diagram_cut"].format(shown=MAX_NODES, total=len(lin.nodes)), ""]
        if trace is not None:
            trace.rejected(
                "Mermaid diagram cut", measure=lin.measure, shown=MAX_NODES, total=len(lin.nodes)
            )

    out += [f"## {L['sources']}", ""]
    out += [
        f"### {L['partition_sources']}",
        "",
        f"| {L['table']} | {L['kind']} | {L['source']} | {L['via']} |",
        "| --- | --- | --- | --- |",
    ]
    for table, refs in lin.sources.items():
        for ref in refs:
            what = ", ".join(ref.objects) or ref.detail or "—"
            if ref.database:
                what += f" ({ref.database})"
            out.append(
                f"| '{_cell(table)}' | {ref.kind} | {_cell(what)} | {_cell(' → '.join(ref.via))} |"
            )
    out.append("")
    if lin.sql_objects:
        out += [
            f"### {L['warehouse']}",
            "",
            f"| {L['object']} | {L['kind']} | {L['file']} | {L['depth']} |",
            "| --- | --- | --- | --- |",
        ]
        for o in lin.sql_objects:
            where = (
                f"{_rel(o.file, docs_dir)}:{o.line}"
                if o.file and o.line
                else _rel(o.file, docs_dir) or (L["not_found"] if not o.found else "")
            )
            out.append(f"| {_cell(o.name)} | {o.kind} | {_cell(where)} | {o.depth} |")
        out.append("")
    if lin.column_links:
        out += [f"| {L['column']} | {L['source']} | {L['level']} |", "| --- | --- | --- |"]
        for cl in lin.column_links:
            src = cl.source + (f" ({L['via']} {', '.join(cl.via)})" if cl.via else "")
            out.append(f"| `{_cell(cl.model_column)}` | {_cell(src)} | {cl.level} |")
        out.append("")

    if lin.column_steps:
        out += [
            f"## {L['computed']}",
            "",
            f"| {L['column']} | {L['target']} | {L['expression']} | {L['procedure']} |",
            "| --- | --- | --- | --- |",
        ]
        for st in lin.column_steps:
            how = f"`{_cell(st.expression)}`" + ("" if st.computed else f" ({L['copied']})")
            how += "" if st.exact else f" ({L['normalised']})"
            how += "".join(f" ← {_cell(derivation_text(d, L))}" for d in st.steps)
            where = st.procedure + (f", {L['line']} {st.line}" if st.line else "")
            out.append(
                f"| `{_cell(st.model_column)}` | {_cell(st.target)}.{_cell(st.column)} | "
                f"{how} | {_cell(where)} |"
            )
        out.append("")

    if lin.procedures:
        out += [f"## {L['loaders']}", "", *order_lines(lin, L), ""]
        for p in lin.procedures:
            flags = [L["partial"]] if p.partial else []
            if p.dynamic_sql:
                flags.append(L["dynamic"])
            head = f"### {p.name}" + (f" ({', '.join(flags)})" if flags else "")
            out += [head, ""]
            if p.file:
                out.append(
                    f"- **{L['file']}:** `{_rel(p.file, docs_dir)}`"
                    + (f", {L['line']} {p.line}" if p.line else "")
                )
            if p.order is not None:
                basis = f" ({L['basis_' + p.order_basis]})" if p.order_basis else ""
                out.append(f"- **{L['order']}:** {p.order + 1}{basis}")
            if p.called_by:
                out.append(f"- **{L['called_by']}:** " + ", ".join(p.called_by))
            out.append(f"- **{L['writes']}:** " + (", ".join(p.writes) or L["none"]))
            out.append(f"- **{L['reads']}:** " + (", ".join(p.reads) or L["none"]))
            if p.external:
                out.append(f"- **{L['external']}:** " + ", ".join(f"`{e}`" for e in p.external))
            out.append("")
            for ex in p.excerpts:
                out.append(
                    f"{L['statement']} {ex.kind} → {ex.target}"
                    + (f" ({L['line']} {ex.line})" if ex.line else "")
                    + ":"
                )
                out += ["", _fence(ex.sql, "sql"), ""]

    out += [f"## {L['filters']}", ""]
    any_f = False
    for title, items in (
        (L["filter_changes"], lin.filters),
        (L["time_intel"], lin.time_intelligence),
        (L["relationships"], lin.relationships),
    ):
        if items:
            any_f = True
            out.append(f"- **{title}:**")
            out += [f"  - `{i}`" for i in items]
    if not any_f:
        out.append(L["none"])
    out.append("")

    warnings = list(lin.unresolved) + list(lin.warnings)
    out += [f"## {L['warnings']}", ""]
    out += [f"- {translate_warning(w, lang)}" for w in warnings] if warnings else [L["none"]]
    out.append("")
    return "\n".join(out)


def with_hash(text: str, digest: str) -> str:
    """The document as written: the content hash first, the end mark last."""
    return f"{HASH_MARK}{digest} -->\n{text.rstrip()}\n\n{END_MARK}\n"


def read_hash(path: Path) -> str | None:
    """The content hash of a complete earlier document; None when it is missing or cut short.

    A document without its end mark was cut (a kill mid-write by an older version, a full
    disk): it is never kept as unchanged.
    """
    try:
        with path.open("rb") as fh:
            first = fh.readline().decode("utf-8", "replace")
            size = fh.seek(0, 2)
            fh.seek(max(0, size - len(END_MARK) - 4))
            tail = fh.read().decode("utf-8", "replace")
    except OSError:
        return None
    if first.startswith(HASH_MARK) and tail.rstrip().endswith(END_MARK):
        return first[len(HASH_MARK) :].split(" ", 1)[0].strip()
    return None
