"""Building the index: files -> batches -> definitions -> statements -> reads and writes.

Each statement goes to sqlglot first; a statement sqlglot rejects is retried with table
hints removed, then read by the token scan and its object marked partial. Every such
fallback, every dynamic SQL site and every object whose body yields no reads or writes
writes a decision-trace event with the file and line, so nothing disappears silently.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import sqlglot
from sqlglot import exp

from vitrina.docs.sqlindex.batches import split_batches
from vitrina.docs.sqlindex.decode import read_sql_file
from vitrina.docs.sqlindex.extract import Extraction, extract
from vitrina.docs.sqlindex.headers import Header, ddl_header, module_header
from vitrina.docs.sqlindex.index import SqlIndex
from vitrina.docs.sqlindex.lexer import STRING, WORD, Tok, lex
from vitrina.docs.sqlindex.models import SqlObject, SqlStatementInfo
from vitrina.docs.sqlindex.names import is_system
from vitrina.docs.sqlindex.quote import place_quotes
from vitrina.docs.sqlindex.repair import strip_table_hints
from vitrina.docs.sqlindex.scan import looks_like_sql, scan_tokens
from vitrina.docs.sqlindex.statements import ALWAYS_START, RawStatement, split_statements
from vitrina.docs.sqlindex.temps import collapse
from vitrina.trace import Trace

NODE = "docs.sqlindex"
DIALECT = "tsql"
# A statement without any of these words cannot touch a table (SET NOCOUNT ON, RETURN 0).
_DATA_WORDS = frozenset(
    {
        "FROM",
        "JOIN",
        "INTO",
        "UPDATE",
        "DELETE",
        "MERGE",
        "TRUNCATE",
        "INSERT",
        "EXEC",
        "EXECUTE",
        "SELECT",
        "APPLY",
        "USING",
        "TABLE",
    }
)


@dataclass(slots=True)
class _File:
    """What one file contributes, plus where to report."""

    path: str
    text: str
    encoding: str
    trace: Trace
    objects: list[SqlObject] = field(default_factory=list)
    script: list[SqlStatementInfo] = field(default_factory=list)
    script_dynamic: list[int] = field(default_factory=list)


def build_index(
    paths: Sequence[Path],
    *,
    trace: Trace | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> SqlIndex:
    """Index every .sql file under `paths` (folders are searched recursively).

    >>> build_index([]).objects
    {}
    """
    trace = trace if trace is not None else Trace(NODE)
    started = time.perf_counter()
    index = SqlIndex()
    files = _collect(paths, index, trace)
    index.files = [str(f) for f in files]
    counts = {"sqlglot": 0, "split": 0, "scan": 0}
    with _quiet_sqlglot():
        for k, path in enumerate(files):
            _index_file(path, index, trace, counts)
            if progress is not None:
                progress(k + 1, len(files))
    kinds: dict[str, int] = {}
    for obj in index.objects.values():
        kinds[obj.kind] = kinds.get(obj.kind, 0) + 1
    trace.measurement(
        "SQL object index built",
        files=len(files),
        objects=len(index.objects),
        errors=len(index.errors),
        partial=sum(o.partial for o in index.objects.values()),
        ms=round((time.perf_counter() - started) * 1000, 1),
        statements_by_parser=counts,
        **kinds,
    )
    return index


def _collect(paths: Sequence[Path], index: SqlIndex, trace: Trace) -> list[Path]:
    files: dict[Path, None] = {}
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            for f in sorted(path.rglob("*")):
                if f.is_file() and f.suffix.lower() == ".sql":
                    files[f] = None
        elif path.is_file():
            files[path] = None
        else:
            index.errors.append({"file": str(path), "line": 0, "message": "path not found"})
            trace.warning("SQL path not found: nothing indexed from it", file=str(path))
    return list(files)


def _index_file(path: Path, index: SqlIndex, trace: Trace, counts: dict[str, int]) -> None:
    try:
        text, encoding = read_sql_file(path)
    except OSError as error:
        index.errors.append({"file": str(path), "line": 0, "message": f"cannot read: {error}"})
        trace.suppressed("SQL file could not be read; skipped", file=str(path), error=str(error))
        return
    if encoding == "cp1251":
        trace.branch("SQL file is not UTF-8; read as cp1251", file=str(path))
    ctx = _File(str(path), text, encoding, trace)
    lexed = lex(text)
    problem = not_sql(text, lexed.tokens)
    if problem is not None:
        index.errors.append({"file": str(path), "line": 0, "message": problem})
        trace.warning(f"SQL file skipped: {problem}", file=str(path))
        return
    for line, message in lexed.problems:
        index.errors.append({"file": ctx.path, "line": line, "message": message})
        trace.warning(f"SQL file problem: {message}", file=ctx.path, line=line)
    for batch in split_batches(lexed.tokens):
        raws = split_statements(batch.tokens)
        whole = len(raws) == 1
        for raw in raws:
            if raw.module:
                ctx.objects.append(_module(raw, ctx, index, counts))
                continue
            head = ddl_header(raw.tokens)
            if head is not None:
                ctx.objects.append(_ddl_object(raw, head, ctx, counts, whole=whole))
                continue
            info = _statement(raw, ctx, None, counts, whole=whole)
            if info is not None:
                ctx.script.append(info)
    for obj in ctx.objects:
        _add(index, obj, trace)
        _remember_names(index, obj.statements)
    _remember_names(index, ctx.script)
    if ctx.script:
        script = _script_object(ctx)
        if script.reads or script.writes or script.calls or script.dynamic_sql:
            index.scripts.append(script)


_SQL_OPENERS = ALWAYS_START | {
    "SELECT",
    "INSERT",
    "UPDATE",
    "DELETE",
    "WITH",
    "EXEC",
    "EXECUTE",
    "SET",
    "BEGIN",
    "GO",
    "END",
}


def not_sql(text: str, tokens: list[Tok]) -> str | None:
    """Why a .sql file is not SQL text (binary data, prose renamed .sql), or None when it is.

    >>> not_sql("Read me.", lex("Read me.").tokens)
    "no SQL statement: the file starts with 'Read me.' (a text file renamed .sql?)"
    """
    sample = text[:8000]
    bad = sum(1 for ch in sample if ch == "\ufffd" or (ord(ch) < 32 and ch not in "\t\n\r\f\v"))
    if sample and bad * 100 > len(sample):
        return (
            f"binary data, not SQL text ({bad} control or undecodable characters in the "
            f"first {len(sample)})"
        )
    first = next((t for t in tokens if t.kind != STRING), None)
    if first is None:
        return None  # empty, or comments only: nothing to index, nothing wrong
    if (first.kind == WORD and first.up in _SQL_OPENERS) or first.text in (":", "(", ";"):
        return None
    head = text[first.start :].split("\n", 1)[0].strip()[:60]
    return f"no SQL statement: the file starts with {head!r} (a text file renamed .sql?)"


def _remember_names(index: SqlIndex, statements: list[SqlStatementInfo]) -> None:
    """The case a statement writes a name in (`##StagedSnapshot`), for objects without a
    definition."""
    for st in statements:
        for name in (*st.targets, *st.sources):
            if name in index.names or ("." in name.lstrip("#@") and name in index.objects):
                continue
            parts = name.split(".")
            pattern = r"\s*\.\s*".join(rf"[\[\"]?{re.escape(p)}[\]\"]?" for p in parts[-2:])
            found = (
                re.search(pattern, st.sql, re.IGNORECASE) if len(index.names) < 200_000 else None
            )
            if found:
                shown = re.sub(r"[\[\]\"\s]", "", found.group(0))
                index.names[name] = shown if "." in shown or name[:1] in "#@" else f"dbo.{shown}"


def _add(index: SqlIndex, obj: SqlObject, trace: Trace) -> None:
    old = index.objects.get(obj.name)
    if old is not None:
        message = (
            f"{obj.name} is defined again: {old.file}:{old.line} and {obj.file}:{obj.line}; "
            "the later one is kept"
        )
        obj.warnings.append(message)
        trace.warning(message, file=obj.file, line=obj.line, object=obj.name)
    index.objects[obj.name] = obj


def _text(ctx: _File, tokens: list[Tok]) -> str:
    return ctx.text[tokens[0].start : tokens[-1].end] if tokens else ""


# --- data objects -----------------------------------------------------------------------


def _ddl_object(
    raw: RawStatement, head: Header, ctx: _File, counts: dict[str, int], *, whole: bool
) -> SqlObject:
    """Tables, sequences, types, synonyms: sqlglot for the columns, tokens when it fails."""
    definition = _text(ctx, raw.tokens)
    obj = SqlObject(
        name=head.name,
        kind=head.kind,
        file=ctx.path,
        line=head.line,
        end_line=raw.tokens[-1].end_line,
        columns=list(head.columns),
        definition=definition,
        parent=head.parent,
        encoding=ctx.encoding,
        display=head.display,
    )
    if head.parent:
        obj.reads.add(head.parent)
    if head.kind != "table":
        return obj
    try:
        parsed = sqlglot.parse_one(definition, read=DIALECT)
        schema = parsed.this if isinstance(parsed, exp.Create) else None
        if isinstance(schema, exp.Schema):
            cols = [c.name for c in schema.expressions if isinstance(c, exp.ColumnDef)]
            if cols:
                obj.columns = cols
        counts["sqlglot" if whole else "split"] += 1
    except Exception as error:  # any parser failure: the token columns stand
        counts["scan"] += 1
        ctx.trace.suppressed(
            "sqlglot could not parse CREATE TABLE; columns read from tokens",
            file=ctx.path,
            line=head.line,
            object=head.name,
            error=_first_line(error),
        )
    return obj


# --- modules ----------------------------------------------------------------------------


def _module(raw: RawStatement, ctx: _File, index: SqlIndex, counts: dict[str, int]) -> SqlObject:
    head = module_header(raw.tokens)
    assert head is not None  # split_statements marks only real module heads
    obj = SqlObject(
        name=head.name or f"<unnamed {head.kind} at line {head.line}>",
        kind=head.kind,
        file=ctx.path,
        line=head.line,
        end_line=raw.tokens[-1].end_line,
        definition=_text(ctx, raw.tokens),
        parent=head.parent,
        columns=list(head.columns),
        encoding=ctx.encoding,
        display=head.display,
    )
    if head.problem or head.body_start is None:
        message = head.problem or "definition has no body"
        obj.warnings.append(message)
        index.errors.append({"file": ctx.path, "line": head.line, "message": message})
        body = raw.tokens[1:]
    else:
        body = raw.tokens[head.body_start :]
    if head.kind == "view" and body:
        _view(obj, raw, body, ctx, counts)
    else:
        for st in split_statements(body):
            info = _statement(st, ctx, obj, counts, whole=False)
            if info is not None:
                obj.statements.append(info)
                if (
                    head.kind == "function"
                    and st.lead == "RETURN"
                    and info.kind == "select"
                    and not obj.query
                ):
                    obj.query = _query_text(st, ctx)
    _finish(obj, body, ctx)
    return obj


def _view(
    obj: SqlObject, raw: RawStatement, body: list[Tok], ctx: _File, counts: dict[str, int]
) -> None:
    """A view is one SELECT: sqlglot on the whole CREATE VIEW, then on the body, then scan."""
    obj.query = _text(ctx, body)
    line = body[0].line
    attempts: list[tuple[str, str]] = [(obj.definition, "sqlglot"), (obj.query, "split")]
    repaired = strip_table_hints(body, obj.query)
    if repaired:
        attempts.append((repaired, "split"))
    error: Exception | None = None
    for sql, parsed_by in attempts:
        try:
            parsed = [e for e in sqlglot.parse(sql, read=DIALECT) if e is not None]
            query = [e.expression if isinstance(e, exp.Create) else e for e in parsed]
            if not query or not all(isinstance(q, exp.Query) for q in query):
                continue  # e.g. ALTER VIEW, which sqlglot reads as a bare Alter: try the body
            found = extract(query)
        except Exception as exc:  # next attempt, then the scan
            error = error or exc
            continue
        counts[parsed_by] += 1
        found.kind = "select"
        found.targets = []
        obj.columns = obj.columns or found.columns
        obj.statements.append(_info(found, line, body, ctx, parsed_by))
        return
    counts["scan"] += 1
    found = scan_tokens(body)
    found.targets = []
    obj.statements.append(_info(found, line, body, ctx, "scan"))
    ctx.trace.suppressed(
        "sqlglot could not parse view; object names read by a token scan",
        file=ctx.path,
        line=line,
        object=obj.name,
        error=_first_line(error),
    )


def _query_text(st: RawStatement, ctx: _File) -> str:
    toks = st.tokens[1:] if st.tokens and st.tokens[0].up == "RETURN" else st.tokens
    return _text(ctx, toks)


# --- statements -------------------------------------------------------------------------


def _statement(
    raw: RawStatement, ctx: _File, obj: SqlObject | None, counts: dict[str, int], *, whole: bool
) -> SqlStatementInfo | None:
    """One statement through sqlglot, the hint repair, then the scan; None when it has no data."""
    toks = raw.tokens
    if not _may_touch_data(toks):
        return None
    text = _text(ctx, toks)
    sql, parse_toks = _sql_for_parser(raw, ctx)
    attempts: list[tuple[str, str]] = [(sql, "sqlglot" if whole and sql == text else "split")]
    repaired = strip_table_hints(parse_toks, sql)
    if repaired:
        attempts.append((repaired, "split"))
    error: Exception | None = None
    for candidate, parsed_by in attempts:
        try:
            found = extract(
                [e for e in sqlglot.parse(candidate, read=DIALECT) if e is not None], candidate
            )
        except Exception as exc:  # sqlglot raises several types; all mean "not parsed"
            error = error or exc
            continue
        counts[parsed_by] += 1
        place_quotes(found.assignments, candidate, text, toks[0].line)
        for note in found.notes:
            ctx.trace.suppressed(note, file=ctx.path, line=toks[0].line)
        if not (found.targets or found.sources or found.calls or found.dynamic):
            return None
        return _info(found, toks[0].line, toks, ctx, parsed_by)
    counts["scan"] += 1
    found = scan_tokens(toks if raw.lead not in ("IF", "WHILE") else toks[1:])
    if raw.lead in ("IF", "WHILE", "PRINT", "RETURN"):
        found.kind = "select" if found.sources else "other"
    if not (found.targets or found.sources or found.calls or found.dynamic):
        return None
    where = obj.name if obj is not None else f"script {ctx.path}"
    ctx.trace.suppressed(
        "sqlglot could not parse a statement; object names read by a token scan (partial)",
        file=ctx.path,
        line=toks[0].line,
        object=where,
        error=_first_line(error),
    )
    return _info(found, toks[0].line, toks, ctx, "scan")


def _may_touch_data(toks: list[Tok]) -> bool:
    """Data keywords, or a call of a user function (`schema.fn(`), anywhere in the statement."""
    for i, t in enumerate(toks):
        if t.kind == WORD and t.up in _DATA_WORDS:
            return True
        if t.text == "(" and i >= 2 and toks[i - 2].text == ".":
            return True
    return False


def _sql_for_parser(raw: RawStatement, ctx: _File) -> tuple[str, list[Tok]]:
    """Text sqlglot can take: IF/WHILE conditions become `SELECT 1 WHERE cond`, etc."""
    toks = raw.tokens
    lead = raw.lead
    if lead in ("IF", "WHILE") and len(toks) > 1:
        return "SELECT 1 WHERE " + _text(ctx, toks[1:]), toks[1:]
    if lead == "RETURN" and len(toks) > 1:
        rest = toks[1:]
        if rest[0].up in ("SELECT", "WITH") or rest[0].text == "(":
            return _text(ctx, rest), rest
        return "SELECT " + _text(ctx, rest), rest
    if lead == "PRINT" and len(toks) > 1:
        return "SELECT " + _text(ctx, toks[1:]), toks[1:]
    if lead == "DECLARE":
        for k, tok in enumerate(toks):
            if tok.up == "CURSOR":
                after = [j for j in range(k, len(toks)) if toks[j].up == "FOR"]
                if after and after[0] + 1 < len(toks):
                    rest = toks[after[0] + 1 :]
                    return _text(ctx, rest), rest
                break
    return _text(ctx, toks), toks


def _info(
    found: Extraction, line: int, toks: list[Tok], ctx: _File, parsed_by: str
) -> SqlStatementInfo:
    return SqlStatementInfo(
        kind=found.kind,
        targets=found.targets,
        sources=found.sources,
        calls=found.calls,
        line=line,
        end_line=toks[-1].end_line if toks else line,
        sql=_text(ctx, toks),
        parsed_by=parsed_by,
        assignments=found.assignments,
        external=found.external,
    )


# --- object summary ---------------------------------------------------------------------


def _finish(obj: SqlObject, body: list[Tok], ctx: _File) -> None:
    """Dynamic SQL strings, temp-table collapse, partial flag and the never-silent warnings."""
    dynamic_lines = [s.line for s in obj.statements if s.kind == "dynamic"]
    literal_ids: set[int] = set()
    if dynamic_lines:
        obj.dynamic_sql = True
        found = _scan_literals(body, ctx)
        literal_ids = {id(s) for s in found}
        obj.statements.extend(found)
        obj.statements.sort(key=lambda s: s.line)
        message = (
            f"dynamic SQL at line(s) {', '.join(map(str, dynamic_lines))}: the objects "
            "it touches are "
            f"known only at run time; {len(found)} SQL-like string literal(s) were "
            "scanned for names"
        )
        obj.warnings.append(message)
        ctx.trace.warning(message, file=ctx.path, line=dynamic_lines[0], object=obj.name)
    if obj.parent:  # only triggers have a parent among modules
        _trigger_pseudo_tables(obj)
    c = collapse(obj.statements)
    obj.reads |= c.reads - {obj.name}
    obj.writes |= c.writes
    obj.flows = c.flows
    obj.calls = _user_calls(obj.statements)
    obj.ordered_calls = _ordered_calls(obj.statements)
    obj.calls |= {c for c, _ in obj.ordered_calls}
    scanned = [s.line for s in obj.statements if s.parsed_by == "scan" and id(s) not in literal_ids]
    obj.partial = (
        obj.partial or bool(scanned) or bool(literal_ids)
    )  # dynamic SQL strings: said by their own warning
    if scanned:
        obj.warnings.append(
            f"statement(s) at line(s) {', '.join(map(str, scanned))} were read by a token scan: "
            "reads and writes may be incomplete"
        )
    if c.unfilled:
        message = (
            f"table variable(s) {', '.join(sorted(c.unfilled))} are read but not filled here "
            "(table-valued parameters: their rows come from the caller)"
        )
        obj.warnings.append(message)
        ctx.trace.warning(message, file=ctx.path, line=obj.line, object=obj.name)
    if obj.kind != "view" and not obj.reads and not obj.writes:
        reason = _empty_reason(obj)
        obj.warnings.append(reason)
        ctx.trace.warning(f"{obj.name}: {reason}", file=ctx.path, line=obj.line, object=obj.name)
    elif obj.kind == "view" and not obj.reads:
        reason = "view reads no table or view (constants or functions only)"
        obj.warnings.append(reason)
        ctx.trace.warning(f"{obj.name}: {reason}", file=ctx.path, line=obj.line, object=obj.name)


def _trigger_pseudo_tables(obj: SqlObject) -> None:
    """In a trigger, `inserted` and `deleted` hold rows of the table it fires on."""
    pseudo = {"dbo.inserted", "dbo.deleted"}
    for st in obj.statements:
        if pseudo & set(st.sources):
            st.sources = list(dict.fromkeys(obj.parent if s in pseudo else s for s in st.sources))  # type: ignore[misc]


def _empty_reason(obj: SqlObject) -> str:
    if obj.calls:
        return (
            f"no direct reads or writes: it calls {', '.join(sorted(obj.calls))}; "
            "its data lineage is that of the called modules"
        )
    if obj.dynamic_sql:
        return "no reads or writes found: its statements are dynamic SQL built at run time"
    touched = {n for s in obj.statements for n in s.targets + s.sources}
    if touched:
        return (
            "no reads or writes of user tables: it touches only temp tables, table variables "
            f"or catalog views ({', '.join(sorted(touched))})"
        )
    return (
        "no reads or writes: its body references no table (it works on parameters and "
        "variables only)"
    )


def _scan_literals(body: list[Tok], ctx: _File) -> list[SqlStatementInfo]:
    """SQL-like string literals of a module with dynamic SQL, scanned for object names."""
    out: list[SqlStatementInfo] = []
    for tok in body:
        if tok.kind != STRING:
            continue
        value = tok.value
        if not looks_like_sql(value):
            continue
        found = scan_tokens(lex(value).tokens)
        if not (found.targets or found.sources or found.calls):
            continue
        ctx.trace.suppressed(
            "dynamic SQL string scanned for object names (partial)",
            file=ctx.path,
            line=tok.line,
        )
        out.append(
            SqlStatementInfo(
                kind="dynamic",
                targets=found.targets,
                sources=found.sources,
                calls=found.calls,
                line=tok.line,
                end_line=tok.end_line,
                sql=value,
                parsed_by="scan",
            )
        )
    return out


def _script_object(ctx: _File) -> SqlObject:
    """Statements outside any definition (deployment scripts, data loads) as one pseudo object."""
    obj = SqlObject(
        name=f"script:{ctx.path}",
        kind="other",
        file=ctx.path,
        line=ctx.script[0].line,
        end_line=ctx.script[-1].end_line,
        statements=ctx.script,
        encoding=ctx.encoding,
    )
    c = collapse(obj.statements)
    obj.reads, obj.writes, obj.flows = c.reads, c.writes, c.flows
    obj.calls = _user_calls(obj.statements)
    obj.ordered_calls = _ordered_calls(obj.statements)
    obj.calls |= {c for c, _ in obj.ordered_calls}
    obj.dynamic_sql = any(s.kind == "dynamic" for s in obj.statements)
    obj.partial = any(s.parsed_by == "scan" for s in obj.statements)
    return obj


def _user_calls(statements: list[SqlStatementInfo]) -> set[str]:
    """Called modules, without system procedures (sys.*, sp_* / xp_* in dbo:
    sp_addextendedproperty)."""
    out: set[str] = set()
    for st in statements:
        for call in st.calls:
            schema, _, base = call.rpartition(".")
            if is_system(call) or (schema in ("dbo", "sys", "") and base[:3] in ("sp_", "xp_")):
                continue
            out.add(call)
    return out


def _ordered_calls(statements: list[SqlStatementInfo]) -> list[tuple[str, int]]:
    """User modules called, in statement order, with the line of each call (job steps included)."""
    out: list[tuple[str, int]] = []
    for st in statements:
        calls = list(st.calls)
        if any(c.rsplit(".", 1)[-1] == "sp_add_jobstep" for c in calls):
            calls += _job_step_calls(st.sql)
        for call in sorted(_user_calls([SqlStatementInfo(kind="exec", calls=calls, line=st.line)])):
            out.append((call, st.line))
    return out


_JOB_COMMAND = re.compile(r"@command\s*=\s*N?'((?:[^']|'')*)'", re.IGNORECASE)


def _job_step_calls(sql: str) -> list[str]:
    """`sp_add_jobstep @command = N'EXEC dbo.Load'`: an SQL Agent job step runs those procedures."""
    out: list[str] = []
    for m in _JOB_COMMAND.finditer(sql):
        out += scan_tokens(lex(m.group(1).replace("''", "'")).tokens).calls
    return out


def _first_line(error: Exception | None) -> str:
    if error is None:
        return ""
    text = str(error).strip()
    return text.splitlines()[0][:300] if text else type(error).__name__


class _CommandFallbackFilter(logging.Filter):
    """sqlglot logs each Command fallback; the index reports them itself, as trace events."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "Falling back to parsing as a 'Command'" not in record.getMessage()


@contextmanager
def _quiet_sqlglot() -> Iterator[None]:
    logger = logging.getLogger("sqlglot")
    flt = _CommandFallbackFilter()
    logger.addFilter(flt)
    try:
        yield
    finally:
        logger.removeFilter(flt)
