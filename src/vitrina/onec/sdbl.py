"""Syntax check of 1C query texts with the SDBL grammar shipped in `tree-sitter-hbk`.

The package has two grammars: `Language()` for BSL modules and `SDBLLanguage()` for
standalone query texts; queries are checked with the second. Version 0.1.11 rejects some
valid 1C syntax. Where its error recovery is stable, a false alarm is a small named rule
below, applied only to error nodes of exactly that shape; where it is not (ОБЩИЕ first in
ИТОГИ ПО, the data composition braces), the text is rewritten first (`sdbl_rewrite`, same
length, so positions hold). Every forgiven error and every rewrite is a trace event.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from vitrina.onec.model import Configuration
from vitrina.onec.sdbl_rewrite import rewrite
from vitrina.trace import Trace

PARSER_PACKAGE = "tree-sitter-hbk"


@dataclass
class SyntaxIssue:
    line: int  # 1-based
    column: int  # 1-based
    text: str
    rule: str = ""  # the false-alarm rule that forgave it, if any
    missing: str = ""  # what the parser expected here, when something is missing
    problem: str = ""  # a source the configuration lacks (check_sources)

    def __str__(self) -> str:
        what = self.problem or (
            f"missing {self.missing}" if self.missing else f"unexpected {self.text!r}"
        )
        return f"line {self.line}, column {self.column}: {what}"


@dataclass
class QueryCheck:
    checked: bool  # False when the parser is not installed
    ok: bool
    errors: list[SyntaxIssue] = field(default_factory=list)
    forgiven: list[SyntaxIssue] = field(default_factory=list)
    virtual_tables: list[str] = field(
        default_factory=list
    )  # 'РегистрНакопления.Продажи.Обороты', from the tree
    parser: str = ""
    rewrites: list[str] = field(
        default_factory=list
    )  # rules of `sdbl_rewrite` applied before parsing


def _text(node: Any, source: bytes) -> str:
    return source[node.start_byte : node.end_byte].decode("utf-8", errors="replace")


def _inside(node: Any, kind: str) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.type == kind:
            return True
        parent = parent.parent
    return False


def empty_virtual_table_parameter(node: Any, source: bytes) -> bool:
    """1C lets any virtual-table parameter be omitted: `Обороты(&Н, &К, , Склад = &С)` and a
    trailing `Обороты(&Н, &К, Месяц, )` are valid (the Query Designer writes them). Grammar
    0.1.11 accepts an empty slot only in some positions and reports the bare commas."""
    return (
        _inside(node, "virtual_table_parameters")
        and not _text(node, source).replace(",", "").strip()
    )


FALSE_ALARMS: tuple[Callable[[Any, bytes], bool], ...] = (empty_virtual_table_parameter,)


# Reserved words of the query language (Russian and English) that grammar 0.1.11 reads as a
# name where a name is expected (`УПОРЯДОЧИТЬ ПО УБЫВ`); the platform never allows one as a name.
_RESERVED_WORDS = """выбрать разрешенные различные первые как пустаятаблица поместить из внутреннее левое
внешнее правое полное соединение где сгруппировать по имеющие объединить все упорядочить
автоупорядочивание итоги общие только иерархия периодами для изменения убыв возр индексировать
уничтожить и или не в иерархии между подобно спецсимвол есть выбор когда тогда иначе конец
select allowed distinct top as emptytable into from inner left outer right full join where group by
having union all order autoorder totals overall only hierarchy periods for update desc asc index drop
and or not in between like escape is case when then else end"""  # noqa: E501
RESERVED = frozenset(_RESERVED_WORDS.split())


def _errors(node: Any, out: list[Any], source: bytes) -> list[Any]:
    if (
        node.is_error
        or node.is_missing
        or (node.type == "identifier" and _text(node, source).lower() in RESERVED)
    ):
        out.append(node)
        return out
    for child in node.children:
        _errors(child, out, source)
    return out


def _virtual_tables(node: Any, source: bytes, out: list[str]) -> list[str]:
    if node.type == "virtual_table_source":
        name = node.child_by_field_name("name")
        out.append(_text(name if name is not None else node, source).strip())
    for child in node.children:
        _virtual_tables(child, source, out)
    return out


def _parser() -> tuple[Any, str] | None:
    try:
        from importlib.metadata import version

        import tree_sitter
        import tree_sitter_hbk
    except ImportError:
        return None
    return tree_sitter.Parser(
        tree_sitter_hbk.SDBLLanguage()
    ), f"{PARSER_PACKAGE} {version(PARSER_PACKAGE)}"


def _point(text: str, source: bytes, byte: int) -> tuple[int, int]:
    """1-based line and column in characters (tree-sitter counts bytes; Cyrillic is two)."""
    before = source[:byte].decode("utf-8", errors="replace")
    line = before.count("\n")
    return line + 1, len(before) - (before.rfind("\n") + 1) + 1


def check_query(text: str, *, trace: Trace | None = None) -> QueryCheck:
    """Parse a query text; errors are real syntax errors, `forgiven` the known false alarms."""
    trace = trace or Trace("onec_query_check")
    found = _parser()
    if found is None:
        trace.suppressed(f"{PARSER_PACKAGE} is not installed: the 1C query was not syntax-checked")
        return QueryCheck(checked=False, ok=True)
    parser, name = found
    rewritten = rewrite(text)
    for rule, offset in rewritten.applied:
        trace.suppressed(
            "1C syntax the grammar lacks rewritten before parsing", rule=rule, offset=offset
        )
    source = rewritten.text.encode("utf-8")
    tree = parser.parse(source)
    result = QueryCheck(
        checked=True,
        ok=True,
        parser=name,
        rewrites=[r for r, _ in rewritten.applied],
        virtual_tables=_virtual_tables(tree.root_node, source, []),
    )
    for node in _errors(tree.root_node, [], source):
        line, column = _point(text, source, node.start_byte)
        shown = text[len(source[: node.start_byte].decode("utf-8", errors="replace")) :][
            : max(1, len(_text(node, source)))
        ]
        issue = SyntaxIssue(
            line=line,
            column=column,
            text=shown.strip() or node.type,
            missing=node.type if node.is_missing else "",
        )
        rule = next(
            (r.__name__ for r in FALSE_ALARMS if not node.is_missing and r(node, source)), None
        )
        if rule:
            issue.rule = rule
            result.forgiven.append(issue)
            trace.suppressed("known parser false alarm forgiven", rule=rule, where=str(issue))
        else:
            result.errors.append(issue)
    result.ok = not result.errors
    if result.errors:
        trace.rejected("1C query has syntax errors", errors=[str(e) for e in result.errors])
    return result


# Virtual tables the platform offers per register kind (Russian and English names).
VIRTUAL_TABLES: dict[str, frozenset[str]] = {
    "Balance": frozenset(
        {"остатки", "обороты", "остаткииобороты", "balance", "turnovers", "balanceandturnovers"}
    ),
    "Turnovers": frozenset({"обороты", "turnovers"}),
    "InformationRegister": frozenset({"срезпоследних", "срезпервых", "slicelast", "slicefirst"}),
    "AccountingRegister": frozenset(
        {
            "остатки",
            "обороты",
            "остаткииобороты",
            "оборотыдткт",
            "движенияссубконто",
            "balance",
            "turnovers",
            "balanceandturnovers",
            "drcrturnovers",
            "recordswithextdimensions",
        }
    ),
}
SOURCE_PARENTS = ("table_source", "virtual_table_source", "join_clause")


def _sources(
    node: Any, source: bytes, out: list[tuple[str, bool, Any]]
) -> list[tuple[str, bool, Any]]:
    if (
        node.type == "dotted_identifier"
        and node.parent is not None
        and node.parent.type in SOURCE_PARENTS
    ):
        out.append((_text(node, source), node.parent.type == "virtual_table_source", node))
    for child in node.children:
        _sources(child, source, out)
    return out


def _source_problem(name: str, virtual: bool, config: Configuration) -> str | None:
    from vitrina.onec.kinds import kind_of

    kind, rest = kind_of(name)
    if kind is None:
        return None  # a temporary table or an alias: not metadata
    obj_name, _, tail = rest.partition(".")
    obj = config.get(f"{kind.name}.{obj_name}")
    if obj is None:
        return f"{kind.ru}.{obj_name} is not in the configuration"
    if not tail:
        return None
    if virtual:
        key = obj.register_type if obj.kind == "AccumulationRegister" else obj.kind
        allowed = VIRTUAL_TABLES.get(key or "")
        if obj.kind == "InformationRegister" and not obj.periodic:
            allowed = frozenset()
        if allowed is not None and tail.lower() not in allowed:
            return f"{obj.ru_name} has no virtual table {tail}"
        return None
    if obj.tabular_sections and tail.lower() not in {t.name.lower() for t in obj.tabular_sections}:
        return f"{obj.ru_name} has no tabular section {tail}"
    return None


def check_sources(
    text: str, config: Configuration, *, trace: Trace | None = None
) -> list[SyntaxIssue]:
    """Sources the platform would refuse for this configuration: an object it lacks, a virtual
    table the register does not have (Остатки of a turnovers register), a tabular section it
    lacks."""
    trace = trace or Trace("onec_query_check")
    found = _parser()
    if found is None:
        return []
    source = rewrite(text).text.encode("utf-8")
    tree = found[0].parse(source)
    issues = []
    for name, virtual, node in _sources(tree.root_node, source, []):
        problem = _source_problem(name, virtual, config)
        if problem:
            line, column = _point(text, source, node.start_byte)
            issues.append(SyntaxIssue(line=line, column=column, text=name, problem=problem))
            trace.rejected(
                "1C query reads what the configuration lacks", source=name, problem=problem
            )
    return issues
