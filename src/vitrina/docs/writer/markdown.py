"""One Markdown document per measure, in Russian or English."""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from vitrina.docs.dax.format import format_dax
from vitrina.docs.lineage import MeasureLineage, ProcedureInfo
from vitrina.docs.model import Measure
from vitrina.docs.writer.explain import Explainer, explanation
from vitrina.docs.writer.i18n import kind_word, labels, object_word, translate_warning
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


@dataclass(frozen=True)
class _Doc:
    """What every section of one document reads: the lineage, the labels and the options."""

    lin: MeasureLineage
    measure: Measure
    lang: str
    L: dict[str, str]
    link: Callable[[str], str | None]
    docs_dir: Path | None

    def mref(self, name: str) -> str:
        target = self.link(name)
        return f"[[{name}]]({quote(target)})" if target else f"[{name}]"


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
    doc = _Doc(lin, measure, lang, labels(lang), link, docs_dir)
    out = _head(doc, topic)
    out += [f"## {doc.L['explanation']}", "", explanation(lin, lang, explain, trace), ""]
    out += _dependencies(doc)
    out += _calculated(doc)
    out += _lineage(doc, trace)
    out += _sources(doc)
    out += _computed(doc)
    out += _loaders(doc)
    out += _filters(doc)
    out += _warnings(doc)
    return "\n".join(out)


def _head(doc: _Doc, topic: str) -> list[str]:
    """Title, topic and table, description and the formula."""
    L, measure = doc.L, doc.measure
    meta = [f"**{L['topic']}:** {topic}", f"**{L['table']}:** '{measure.table}'"]
    if measure.format_string:
        meta.append(f"**{L['format']}:** `{measure.format_string}`")
    if measure.display_folder:
        meta.append(f"**{L['folder']}:** {measure.display_folder}")
    return [
        f"# [{measure.name}]",
        "",
        " · ".join(meta),
        "",
        f"## {L['description']}",
        "",
        measure.description or f"_{L['no_description']}_",
        "",
        f"## {L['formula']}",
        "",
        _fence(format_dax(measure.expression), "dax"),
        "",
    ]


def _dependencies(doc: _Doc) -> list[str]:
    L, lin = doc.L, doc.lin
    out = [f"## {L['dependencies']}", ""]
    out.append(
        f"- **{L['direct_measures']}:** "
        + (", ".join(doc.mref(m) for m in lin.direct_measures) or L["none"])
    )
    if any(m not in lin.direct_measures for m in lin.all_measures):
        out.append(
            f"- **{L['all_measures']}:** " + ", ".join(doc.mref(m) for m in lin.all_measures)
        )
    out.append(f"- **{L['columns']}:** " + (", ".join(f"`{c}`" for c in lin.columns) or L["none"]))
    out.append(
        f"- **{L['model_tables']}:** "
        + (", ".join(f"'{t}'" for t in lin.model_tables) or L["none"])
    )
    if lin.variables:
        out.append(f"- **{L['variables']}:** " + ", ".join(f"`{v}`" for v in lin.variables))
    out.append("")
    return out


def _calculated(doc: _Doc) -> list[str]:
    if not doc.lin.calculated:
        return []
    out = [f"## {doc.L['calculated']}", ""]
    for item in doc.lin.calculated:
        out += [
            f"**{doc.L[item.kind]}** {item.name}:",
            "",
            _fence(format_dax(item.expression), "dax"),
            "",
        ]
    return out


def _lineage(doc: _Doc, trace: Trace | None) -> list[str]:
    """The level and the Mermaid diagram (with a note when it is cut)."""
    L, lin = doc.L, doc.lin
    out = [f"## {L['lineage']}", "", L[f"level_{lin.level}"], ""]
    out += [_fence(mermaid(lin, doc.lang), "mermaid"), ""]
    if cut_count(lin):
        out += [L["diagram_cut"].format(shown=MAX_NODES, total=len(lin.nodes)), ""]
        if trace is not None:
            trace.rejected(
                "Mermaid diagram cut", measure=lin.measure, shown=MAX_NODES, total=len(lin.nodes)
            )
    return out


def _sources(doc: _Doc) -> list[str]:
    """Partition sources, warehouse objects and the column mapping."""
    L, lin = doc.L, doc.lin
    out = [f"## {L['sources']}", "", f"### {L['partition_sources']}", ""]
    out += [
        f"| {L['table']} | {L['kind']} | {L['source']} | {L['via']} |",
        "| --- | --- | --- | --- |",
    ]
    for table, refs in lin.sources.items():
        for ref in refs:
            what = ", ".join(ref.objects) or translate_warning(ref.detail, doc.lang) or "—"
            if ref.database:
                what += f" ({ref.database})"
            out.append(
                f"| '{_cell(table)}' | {kind_word(ref.kind, doc.lang)} | {_cell(what)} | "
                f"{_cell(' → '.join(ref.via))} |"
            )
    out.append("")
    out += _warehouse(doc)
    if lin.column_links:
        out += [f"| {L['column']} | {L['source']} | {L['level']} |", "| --- | --- | --- |"]
        for cl in lin.column_links:
            src = cl.source + (f" ({L['via']} {', '.join(cl.via)})" if cl.via else "")
            out.append(
                f"| `{_cell(cl.model_column)}` | {_cell(src)} | {kind_word(cl.level, doc.lang)} |"
            )
        out.append("")
    return out


def _warehouse(doc: _Doc) -> list[str]:
    L = doc.L
    if not doc.lin.sql_objects:
        return []
    out = [
        f"### {L['warehouse']}",
        "",
        f"| {L['object']} | {L['kind']} | {L['file']} | {L['depth']} |",
        "| --- | --- | --- | --- |",
    ]
    for o in doc.lin.sql_objects:
        where = (
            f"{_rel(o.file, doc.docs_dir)}:{o.line}"
            if o.file and o.line
            else _rel(o.file, doc.docs_dir) or (L["not_found"] if not o.found else "")
        )
        out.append(
            f"| {_cell(o.name)} | {kind_word(o.kind, doc.lang)} | {_cell(where)} | {o.depth} |"
        )
    out.append("")
    return out


def _computed(doc: _Doc) -> list[str]:
    """How the business columns are computed, quoted from the SQL."""
    L = doc.L
    if not doc.lin.column_steps:
        return []
    out = [
        f"## {L['computed']}",
        "",
        f"| {L['column']} | {L['target']} | {L['expression']} | {L['procedure']} |",
        "| --- | --- | --- | --- |",
    ]
    for st in doc.lin.column_steps:
        how = f"`{_cell(st.expression)}`" + ("" if st.computed else f" ({L['copied']})")
        how += "" if st.exact else f" ({L['normalised']})"
        how += "".join(f" ← {_cell(derivation_text(d, L))}" for d in st.steps)
        where = object_word(st.procedure, doc.lang) + (
            f", {L['line']} {st.line}" if st.line else ""
        )
        out.append(
            f"| `{_cell(st.model_column)}` | {_cell(st.target)}.{_cell(st.column)} | "
            f"{how} | {_cell(where)} |"
        )
    out.append("")
    return out


def _loaders(doc: _Doc) -> list[str]:
    """The loading procedures in execution order, each with the statements that write."""
    if not doc.lin.procedures:
        return []
    out = [f"## {doc.L['loaders']}", "", *order_lines(doc.lin, doc.L), ""]
    for p in doc.lin.procedures:
        out += _procedure(doc, p)
    return out


def _procedure(doc: _Doc, p: ProcedureInfo) -> list[str]:
    L, lang = doc.L, doc.lang
    flags = [L["partial"]] if p.partial else []
    if p.dynamic_sql:
        flags.append(L["dynamic"])
    head = f"### {object_word(p.name, lang)}" + (f" ({', '.join(flags)})" if flags else "")
    out = [head, ""]
    if p.file:
        out.append(
            f"- **{L['file']}:** `{_rel(p.file, doc.docs_dir)}`"
            + (f", {L['line']} {p.line}" if p.line else "")
        )
    if p.order is not None:
        basis = f" ({L['basis_' + p.order_basis]})" if p.order_basis else ""
        out.append(f"- **{L['order']}:** {p.order + 1}{basis}")
    if p.called_by:
        out.append(
            f"- **{L['called_by']}:** " + ", ".join(object_word(c, lang) for c in p.called_by)
        )
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
    return out


def _filters(doc: _Doc) -> list[str]:
    L, lin = doc.L, doc.lin
    out = [f"## {L['filters']}", ""]
    groups = (
        (L["filter_changes"], lin.filters),
        (L["time_intel"], lin.time_intelligence),
        (L["relationships"], lin.relationships),
    )
    for title, items in groups:
        if items:
            out.append(f"- **{title}:**")
            out += [f"  - `{i}`" for i in items]
    if not any(items for _, items in groups):
        out.append(L["none"])
    out.append("")
    return out


def _warnings(doc: _Doc) -> list[str]:
    warnings = [*doc.lin.unresolved, *doc.lin.warnings]
    out = [f"## {doc.L['warnings']}", ""]
    out += (
        [f"- {translate_warning(w, doc.lang)}" for w in warnings] if warnings else [doc.L["none"]]
    )
    out.append("")
    return out


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
