"""A DAX pretty-printer that only ever changes whitespace.

A call that fits in the line width stays on one line; a longer one puts each argument on
its own line, indented by four spaces per nesting level. `VAR` and `RETURN` start lines.
Comments are kept; a line comment always ends its line. Tokens are never changed:
`significant(tokenize(format_dax(x)))` equals `significant(tokenize(x))` (tested).

>>> print(format_dax("calculate(sum('T'[a]),all('T'))"))
calculate(sum('T'[a]), all('T'))
"""

from __future__ import annotations

from dataclasses import dataclass, field

from vitrina.docs.dax.lexer import Token, TokenKind, significant, tokenize

WIDTH = 80
STEP = 4
# deeper expressions are shown as written: laying them out costs time and width, and the
# printer's call-by-call layout is recursive (the reader, resolver and checks are not)
MAX_LAYOUT_DEPTH = 40


@dataclass
class _Call:
    head: Token | None  # function name, None for a bare ( ) or { } group
    open: Token
    args: list[list[_Item]] = field(default_factory=list)
    close: Token | None = None


_Item = Token | _Call


def _build(tokens: list[Token]) -> list[_Item]:
    """Group tokens into calls/groups with their comma-separated arguments."""
    root: list[_Item] = []
    stack: list[tuple[_Call, list[_Item]]] = []
    current = root
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if t.kind in (TokenKind.LPAREN, TokenKind.LBRACE):
            head = None
            if (
                t.kind is TokenKind.LPAREN
                and current
                and isinstance(current[-1], Token)
                and current[-1].kind is TokenKind.IDENT
            ):
                head = current.pop()
            call = _Call(head=head, open=t)
            current.append(call)
            arg: list[_Item] = []
            call.args.append(arg)
            stack.append((call, current))
            current = arg
        elif t.kind in (TokenKind.RPAREN, TokenKind.RBRACE) and stack:
            call, parent = stack.pop()
            call.close = t
            if len(call.args) == 1 and not call.args[0]:
                call.args = []
            current = parent
        elif t.kind is TokenKind.COMMA and stack:
            call = stack[-1][0]
            arg = []
            call.args.append(arg)
            current = arg
        else:
            current.append(t)
        i += 1
    return root


def _has_line_comment(items: list[_Item]) -> bool:
    """A comment that ends its line anywhere inside `items` (walked with a list, any depth)."""
    pending: list[list[_Item]] = [items]
    while pending:
        for it in pending.pop():
            if isinstance(it, Token):
                if it.kind is TokenKind.LINE_COMMENT or (it.is_comment and "\n" in it.text):
                    return True
            else:
                pending.extend(it.args)
    return False


def _is_keyword(it: _Item, word: str) -> bool:
    return isinstance(it, Token) and it.kind is TokenKind.IDENT and it.text.upper() == word


def _needs_space(prev: _Item | None, before_prev: _Item | None, cur: _Item) -> bool:
    if prev is None:
        return False
    if (
        isinstance(cur, Token)
        and cur.kind is TokenKind.BRACKET
        and isinstance(prev, Token)
        and prev.kind
        in (
            TokenKind.IDENT,
            TokenKind.TABLE,
        )
    ):
        return False
    if (
        isinstance(prev, Token)
        and prev.kind is TokenKind.OPERATOR
        and prev.text in "+-"
        and (
            before_prev is None
            or (
                isinstance(before_prev, Token)
                and (before_prev.kind is TokenKind.OPERATOR or _is_keyword(before_prev, "RETURN"))
            )
        )
    ):
        return isinstance(cur, Token) and cur.kind is TokenKind.OPERATOR  # keep "- -x" apart
    return True


@dataclass
class _Run:
    """One argument being flattened: its items, the next position and the spacing context."""

    items: list[_Item]
    call: _Call | None = None  # the call this argument belongs to (None: the top level)
    arg: int = 0
    pos: int = 0
    prev: _Item | None = None
    before: _Item | None = None


def _flat(items: list[_Item]) -> str:
    """One line for `items`, nested calls included, walked with a list (no depth limit)."""
    out: list[str] = []
    stack = [_Run(items)]
    while stack:
        run = stack[-1]
        if run.pos < len(run.items):
            it = run.items[run.pos]
            run.pos += 1
            if _needs_space(run.prev, run.before, it):
                out.append(" ")
            run.before, run.prev = run.prev, it
            if isinstance(it, Token):
                out.append(it.text)
            else:
                out.append((it.head.text if it.head else "") + it.open.text)
                _enter(stack, out, it, 0)
            continue
        stack.pop()
        if run.call is not None:
            if run.arg + 1 < len(run.call.args):
                out.append(", ")
            _enter(stack, out, run.call, run.arg + 1)
    return "".join(out)


def _enter(stack: list[_Run], out: list[str], call: _Call, arg: int) -> None:
    """Start the call's argument `arg`, or close the call after its last one."""
    if arg < len(call.args):
        stack.append(_Run(call.args[arg], call, arg))
    elif call.close is not None:
        out.append(call.close.text)


def _flat_call(call: _Call) -> str:
    return _flat([call])


def _nesting(tokens: list[Token]) -> int:
    """The deepest bracket nesting of a token run."""
    depth = deepest = 0
    for t in tokens:
        if t.kind in (TokenKind.LPAREN, TokenKind.LBRACE):
            depth += 1
            deepest = max(deepest, depth)
        elif t.kind in (TokenKind.RPAREN, TokenKind.RBRACE):
            depth -= 1
    return deepest


def _seq(items: list[_Item], indent: int) -> str:
    """Render a sequence of items starting at column `indent` (first line not prefixed)."""
    out: list[str] = []
    prev: _Item | None = None
    before: _Item | None = None
    pad = " " * indent
    inner_indent = indent
    for idx, it in enumerate(items):
        if (
            isinstance(it, Token)
            and (_is_keyword(it, "VAR") or _is_keyword(it, "RETURN"))
            and idx > 0
        ):
            inner_indent = indent
            if out and out[-1].startswith("\n") and not out[-1].strip():
                out.pop()
            out.append("\n" + pad)
        elif out and out[-1].endswith("\n" + " " * inner_indent):
            pass
        elif _needs_space(prev, before, it):
            out.append(" ")
        if isinstance(it, _Call):
            col = len("".join(out).rsplit("\n", 1)[-1]) + (
                indent if "\n" not in "".join(out) else 0
            )
            out.append(_call(it, inner_indent, col))
        else:
            out.append(it.text)
            ends_line = it.kind is TokenKind.LINE_COMMENT or (it.is_comment and "\n" in it.text)
            if ends_line and idx + 1 < len(items):  # a multi-line /* */ block ends its line too
                out.append("\n" + " " * inner_indent)
            elif _is_keyword(it, "RETURN") and idx + 1 < len(items):
                inner_indent = indent + STEP
                out.append("\n" + " " * inner_indent)
        before, prev = prev, it
    return "".join(out)


def _call(call: _Call, indent: int, col: int) -> str:
    if not _has_line_comment(call.args and [x for a in call.args for x in a]):
        flat = _flat_call(call)
        if col + len(flat) <= WIDTH:
            return flat
    head = call.head.text if call.head else ""
    inner = indent + STEP
    pad = " " * inner
    parts = [f"{head}{call.open.text}"]
    for k, arg in enumerate(call.args):
        parts.append("\n" + pad + _seq(arg, inner) + ("," if k + 1 < len(call.args) else ""))
    if call.close is not None:
        parts.append("\n" + " " * indent + call.close.text)
    return "".join(parts)


def flat_text(tokens: list[Token]) -> str:
    """One-line text of a token run, spaced as the printer spaces it."""
    return _flat(_build([t for t in tokens if t.kind is not TokenKind.WS]))


def format_dax(expression: str) -> str:
    """Pretty-print a DAX expression; on anything unexpected return it unchanged."""
    tokens = tokenize(expression)
    sig = significant(tokens)
    if not sig:
        return expression.strip()
    if _nesting(sig) > MAX_LAYOUT_DEPTH:
        return expression.strip()  # the author's layout: 4 spaces a level would not help
    text = _seq(_build(sig), 0)
    text = "\n".join(line.rstrip() for line in text.splitlines())
    if [t.text for t in significant(tokenize(text))] != [t.text for t in sig]:
        return expression.strip()  # a guard: never show DAX whose tokens differ
    return text
