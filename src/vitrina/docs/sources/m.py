"""Read Power Query M partition expressions for the warehouse objects they load.

Recognised: `Sql.Database("srv", "db" [, [Query="..."]])`, `Sql.Databases("srv")` with
`{[Name="db"]}[Data]`, navigation `Source{[Schema="Fact",Item="Sale"]}[Data]`,
`Value.NativeQuery(Source, "select ...")`, `#"Data source name"` (a structured data source
of the model), references to shared expressions (followed, depth-bounded) and parameters
(their literal value). Any other connector (Csv.Document, Web.Contents, Excel.Workbook...)
is reported as an unsupported source by name, never dropped.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from vitrina.docs.model.types import Model
from vitrina.docs.sources.sql import sql_source
from vitrina.docs.sources.types import SourceRef
from vitrina.trace import Trace

MAX_DEPTH = 8
SUPPORTED = {"Sql.Database", "Sql.Databases", "Value.NativeQuery"}
CONNECTOR_NAMESPACES = {
    "Csv",
    "Web",
    "Excel",
    "File",
    "Folder",
    "SharePoint",
    "OData",
    "Json",
    "Xml",
    "Odbc",
    "OleDb",
    "Oracle",
    "PostgreSQL",
    "MySQL",
    "Snowflake",
    "GoogleBigQuery",
    "AzureStorage",
    "AzureDataLakeStorage",
    "Databricks",
    "Lakehouse",
    "PowerPlatform",
    "AnalysisServices",
    "Access",
    "Sybase",
    "DB2",
    "Teradata",
    "Informix",
    "Exchange",
    "ActiveDirectory",
    "Salesforce",
    "Hdfs",
    "Spark",
    "Cdm",
    "PowerBI",
    "Dataflows",
    "AmazonRedshift",
    "Impala",
    "Vertica",
    "SapHana",
    "SapBusinessWarehouse",
    "Sql",
    "Pdf",
    "Hive",
    "Kusto",
    "AzureDataExplorer",
    "CommonDataService",
    "Fabric",
    "Binary",
}
NOT_CONNECTORS = {
    "Binary.Decompress",
    "Binary.FromText",
    "Binary.ToText",
    "Json.FromValue",
    "Xml.Tables",
}


# ---------------------------------------------------------------- tokens
@dataclass(frozen=True, slots=True)
class MToken:
    kind: str  # ident, string, qident, number, punct, op
    text: str

    @property
    def value(self) -> str:
        if self.kind == "string":
            return self.text[1:-1].replace('""', '"')
        if self.kind == "qident":
            return self.text[2:-1].replace('""', '"')
        return self.text


def m_tokenize(text: str) -> list[MToken]:
    """Tokens of an M expression without whitespace and comments."""
    out: list[MToken] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch.isspace():
            i += 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
        elif ch == '"' or text.startswith('#"', i):
            start = i
            i += 2 if ch == "#" else 1
            while i < n:
                if text[i] == '"':
                    if i + 1 < n and text[i + 1] == '"':
                        i += 2
                        continue
                    i += 1
                    break
                i += 1
            out.append(MToken("qident" if ch == "#" else "string", text[start:i]))
        elif ch.isalpha() or ch == "_" or (ch == "#" and i + 1 < n and text[i + 1].isalpha()):
            start = i
            i += 1
            while i < n and (text[i].isalnum() or text[i] in "_."):
                i += 1
            out.append(MToken("ident", text[start:i].rstrip(".")))
            if text[start:i].endswith("."):
                i -= 1
                out.append(MToken("punct", "."))
                i += 1
        elif ch.isdigit():
            start = i
            while i < n and (text[i].isdigit() or text[i] in ".eE"):
                i += 1
            out.append(MToken("number", text[start:i]))
        elif (
            text.startswith("=>", i)
            or text.startswith("<>", i)
            or text.startswith("<=", i)
            or text.startswith(">=", i)
        ):
            out.append(MToken("op", text[i : i + 2]))
            i += 2
        else:
            out.append(MToken("punct" if ch in "{}[](),;=" else "op", ch))
            i += 1
    return out


_OPEN = {"(": ")", "[": "]", "{": "}"}


def _split_top(tokens: list[MToken], sep: str = ",") -> list[list[MToken]]:
    parts: list[list[MToken]] = [[]]
    depth = 0
    for t in tokens:
        if (t.kind == "punct" and t.text in _OPEN) or (t.kind == "ident" and t.text == "let"):
            depth += 1
        elif (t.kind == "punct" and t.text in ")]}") or (
            t.kind == "ident" and t.text == "in" and depth > 0 and _let_open(parts)
        ):
            depth -= 1
        if t.kind == "punct" and t.text == sep and depth == 0:
            parts.append([])
            continue
        parts[-1].append(t)
    return [p for p in parts if p]


def _let_open(parts: list[list[MToken]]) -> bool:
    lets = sum(1 for p in parts for t in p if t.kind == "ident" and t.text == "let")
    ins = sum(1 for p in parts for t in p if t.kind == "ident" and t.text == "in")
    return lets > ins


def _match(tokens: list[MToken], i: int) -> int:
    """Index of the bracket closing the one at i."""
    want = _OPEN[tokens[i].text]
    depth = 0
    for j in range(i, len(tokens)):
        t = tokens[j]
        if t.kind == "punct" and t.text == tokens[i].text:
            depth += 1
        elif t.kind == "punct" and t.text == want:
            depth -= 1
            if depth == 0:
                return j
    return len(tokens) - 1


def _bindings(tokens: list[MToken]) -> tuple[list[tuple[str, list[MToken]]], list[MToken]]:
    """`let a = ..., b = ... in b` -> [(a, toks), (b, toks)], result toks."""
    if not tokens or not (tokens[0].kind == "ident" and tokens[0].text == "let"):
        return [], tokens
    depth = 0
    body_end = len(tokens)
    for j in range(1, len(tokens)):
        t = tokens[j]
        if (t.kind == "punct" and t.text in _OPEN) or (t.kind == "ident" and t.text == "let"):
            depth += 1
        elif t.kind == "punct" and t.text in ")]}":
            depth -= 1
        elif t.kind == "ident" and t.text == "in":
            if depth == 0:
                body_end = j
                break
            depth -= 1
    out: list[tuple[str, list[MToken]]] = []
    for part in _split_top(tokens[1:body_end]):
        if len(part) >= 2 and part[1].kind == "punct" and part[1].text == "=":
            out.append((part[0].value, part[2:]))
    return out, tokens[body_end + 1 :]


# ---------------------------------------------------------------- values
@dataclass
class _Val:
    kind: str  # literal, server, db, table, query, other
    server: str | None = None
    database: str | None = None
    schema: str | None = None
    name: str | None = None
    sql: str | None = None
    literal: str | None = None
    via: list[str] = field(default_factory=list)


@dataclass
class _Ctx:
    model: Model | None
    trace: Trace | None
    depth: int = 0
    via: list[str] = field(default_factory=list)
    found: list[SourceRef] = field(default_factory=list)
    seen_expressions: set[str] = field(default_factory=set)


def m_sources(
    expression: str, model: Model | None = None, *, trace: Trace | None = None
) -> list[SourceRef]:
    """Sources of one M expression, with shared expressions and parameters resolved."""
    ctx = _Ctx(model=model, trace=trace)
    _eval_document(expression, ctx)
    if not ctx.found:
        ctx.found.append(
            SourceRef(
                kind="unknown",
                detail="no data source recognised in the M expression",
                warnings=["no data source recognised in the M expression"],
            )
        )
        if trace is not None:
            trace.warning("M expression without a recognised source", expression=expression[:200])
    return _dedupe(ctx.found)


def _dedupe(refs: list[SourceRef]) -> list[SourceRef]:
    out: list[SourceRef] = []
    keys: set[tuple[str, tuple[str, ...], str, str]] = set()
    for r in refs:
        key = (r.kind, tuple(r.objects), r.detail, r.sql or "")
        if key not in keys:
            keys.add(key)
            out.append(r)
    return out


def _eval_document(expression: str, ctx: _Ctx) -> _Val:
    tokens = m_tokenize(expression)
    binds, result = _bindings(tokens)
    env: dict[str, _Val] = {}
    for name, toks in binds:
        env[name] = _eval(toks, env, ctx)
    return _eval(result, env, ctx) if result else _Val("other")


def _lookup(name: str, env: dict[str, _Val], ctx: _Ctx) -> _Val | None:
    if name in env:
        return env[name]
    model = ctx.model
    if model is None:
        return None
    ds = model.data_source(name)
    if ds is not None:
        return _Val("db", server=ds.server, database=ds.database)
    expr = model.expression(name)
    if expr is None:
        return None
    if expr.is_parameter:
        toks = m_tokenize(expr.expression)
        if toks and toks[0].kind in ("string", "number"):
            return _Val("literal", literal=toks[0].value)
        return _Val("literal", literal=expr.expression.split(" meta ")[0].strip())
    if expr.name in ctx.seen_expressions or ctx.depth >= MAX_DEPTH:
        if ctx.trace is not None:
            ctx.trace.rejected(
                "shared expression not followed (cycle or depth bound)", expression=expr.name
            )
        return _Val("other")
    ctx.seen_expressions.add(expr.name)
    ctx.depth += 1
    ctx.via.append(expr.name)
    try:
        val = _eval_document(expr.expression, ctx)
        return _Val(
            val.kind,
            val.server,
            val.database,
            val.schema,
            val.name,
            val.sql,
            val.literal,
            [expr.name, *val.via],
        )
    finally:
        ctx.via.pop()
        ctx.depth -= 1


def _arg_value(toks: list[MToken], env: dict[str, _Val], ctx: _Ctx) -> str | None:
    if len(toks) == 1 and toks[0].kind in ("string", "number"):
        return toks[0].value
    if len(toks) == 1 and toks[0].kind in ("ident", "qident"):
        v = _lookup(toks[0].value, env, ctx)
        if v is not None and v.kind == "literal":
            return v.literal
    return None


def _record(toks: list[MToken]) -> dict[str, str]:
    """`[Schema="Fact", Item="Sale"]` (tokens inside the brackets) -> fields with string values."""
    out: dict[str, str] = {}
    for part in _split_top(toks):
        if len(part) >= 3 and part[1].text == "=" and part[2].kind == "string":
            out[part[0].value.lower()] = part[2].value
    return out


def _eval(toks: list[MToken], env: dict[str, _Val], ctx: _Ctx) -> _Val:
    """Value of one binding; sources met on the way are appended to ctx.found."""
    value = _Val("other")
    i = 0
    n = len(toks)
    while i < n:
        t = toks[i]
        nxt = toks[i + 1] if i + 1 < n else None
        if t.kind == "ident" and nxt is not None and nxt.text == "(" and nxt.kind == "punct":
            close = _match(toks, i + 1)
            args = _split_top(toks[i + 2 : close])
            value = _call(t.text, args, env, ctx) or value
            if t.text in SUPPORTED or _is_connector(t.text):
                i = close + 1
                continue
            i += 2
            continue
        if (
            t.kind in ("ident", "qident")
            and nxt is not None
            and nxt.text == "{"
            and nxt.kind == "punct"
        ):
            base = _lookup(t.value, env, ctx)
            close = _match(toks, i + 1)
            inner = toks[i + 2 : close]
            if inner and inner[0].text == "[":
                fields = _record(inner[1 : _match(inner, 0)])
                nav = _navigate(base, fields, ctx)
                if nav is not None:
                    value = nav
            i = close + 1
            continue
        if t.kind in ("ident", "qident") and not _is_field_name(toks, i):
            # every reference is followed, not only the first: Table.Combine({Q1, Q2}),
            # Table.NestedJoin(Q1, ..., Q2, ...) read both shared expressions
            ref = env[t.value] if t.value in env else _lookup(t.value, env, ctx)
            if ref is not None and value.kind == "other":
                value = ref
        i += 1
    return value


def _is_field_name(toks: list[MToken], i: int) -> bool:
    """`[Data]` field access or `Name=` in a record: a field, never a query reference."""
    prev = toks[i - 1] if i > 0 else None
    nxt = toks[i + 1] if i + 1 < len(toks) else None
    if toks[i].kind == "ident" and prev is not None and prev.kind == "punct" and prev.text == "[":
        return True
    return (
        nxt is not None
        and nxt.kind == "punct"
        and nxt.text == "="
        and prev is not None
        and prev.text in "[,"
    )


def _call(fn: str, args: list[list[MToken]], env: dict[str, _Val], ctx: _Ctx) -> _Val | None:
    if fn == "Sql.Database":
        server = _arg_value(args[0], env, ctx) if args else None
        database = _arg_value(args[1], env, ctx) if len(args) > 1 else None
        if len(args) > 2 and args[2] and args[2][0].text == "[":
            opts = _record(args[2][1:-1])
            if "query" in opts:
                _add_query(opts["query"], server, database, ctx)
                return _Val("query", server=server, database=database, sql=opts["query"])
        return _Val("db", server=server, database=database)
    if fn == "Sql.Databases":
        return _Val("server", server=_arg_value(args[0], env, ctx) if args else None)
    if fn == "Value.NativeQuery":
        target = _eval(args[0], env, ctx) if args else _Val("other")
        sql = _arg_value(args[1], env, ctx) if len(args) > 1 else None
        if sql is None:
            ctx.found.append(
                SourceRef(
                    kind="unknown",
                    detail="Value.NativeQuery with a computed query text",
                    warnings=["the native query text is computed; its tables are unknown"],
                    via=list(ctx.via),
                )
            )
            return None
        _add_query(sql, target.server, target.database, ctx)
        return _Val("query", server=target.server, database=target.database, sql=sql)
    if fn == "#table":
        ctx.found.append(
            SourceRef(
                kind="inline", detail="#table(...) inline data in the model", via=list(ctx.via)
            )
        )
        return None
    if _is_connector(fn):
        detail = _describe(fn, args, env, ctx)
        ctx.found.append(
            SourceRef(
                kind="unsupported",
                detail=detail,
                via=list(ctx.via),
                warnings=[f"unsupported source {fn}: lineage stops here"],
            )
        )
        if ctx.trace is not None:
            ctx.trace.warning("unsupported M source", function=fn, detail=detail)
    return None


def _is_connector(fn: str) -> bool:
    ns = fn.split(".", 1)[0]
    return (
        "." in fn
        and ns in CONNECTOR_NAMESPACES
        and fn not in NOT_CONNECTORS
        and fn not in SUPPORTED
    )


def _describe(fn: str, args: list[list[MToken]], env: dict[str, _Val], ctx: _Ctx) -> str:
    """`Csv.Document(Web.Contents('https://...'))`: the connector chain a user recognises."""
    if not args:
        return f"{fn}()"
    first = args[0]
    if len(first) >= 2 and first[0].kind == "ident" and first[1].text == "(":
        close = _match(first, 1)
        inner = _split_top(first[2:close])
        return f"{fn}({_describe(first[0].text, inner, env, ctx)})"
    value = _arg_value(first, env, ctx)
    return f'{fn}("{value}")' if value else f"{fn}(...)"


def _navigate(base: _Val | None, fields: dict[str, str], ctx: _Ctx) -> _Val | None:
    if base is None:
        return None
    if "schema" in fields and "item" in fields:
        val = _Val(
            "table",
            server=base.server,
            database=base.database,
            schema=fields["schema"],
            name=fields["item"],
        )
    elif base.kind == "server" and "name" in fields:
        return _Val("db", server=base.server, database=fields["name"])
    elif base.kind == "db" and ("name" in fields or "item" in fields):
        raw = fields.get("item") or fields["name"]
        schema, _, name = raw.rpartition(".")
        val = _Val(
            "table", server=base.server, database=base.database, schema=schema or "dbo", name=name
        )
    else:
        return None
    via = list(ctx.via) + [v for v in base.via if v not in ctx.via]
    ctx.found.append(
        SourceRef(
            kind="table",
            objects=[f"{val.schema}.{val.name}".lower()],
            server=val.server,
            database=val.database,
            via=via,
        )
    )
    return val


def _add_query(sql: str, server: str | None, database: str | None, ctx: _Ctx) -> None:
    ref = sql_source(sql, trace=ctx.trace, server=server, database=database)
    ref.via = list(ctx.via)
    ctx.found.append(ref)
