"""A DAX syntax check: recursive descent over the lossless lexer's tokens, on an explicit stack.

It accepts what the DAX engine accepts at the level a document needs (calls, operators
with DAX precedence, VAR/RETURN blocks, table constructors, column and measure
references) and reports the first error with its line and column inside the expression.
pbi-parsers (the maintained Python DAX parser) agrees with it on every shared fixture and
on the broken-DAX fixtures (tests/docs/test_dax_syntax.py); it is not used at run time
because it costs about 20 ms a measure, which alone would break the 1,000-measure budget
(docs/decisions/030-dax-syntax-check.md).

>>> check("SUM('Sales'[Amount]")
DaxSyntaxError(line=1, column=4, message="'(' is never closed: expected ')' before the end")
>>> check("VAR x = 1 RETURN x + 2") is None
True
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass

from vitrina.docs.dax.lexer import Token, TokenKind, code_tokens, tokenize

# binary operators (IN is a word): precedence decides meaning, not validity, so one set
_OPERATORS = frozenset(
    {"||", "&&", "=", "==", "<>", "<", ">", "<=", ">=", "&", "+", "-", "*", "/", "^"}
)


@dataclass(frozen=True)
class DaxSyntaxError:
    line: int
    column: int
    message: str

    def text(self) -> str:
        return f"line {self.line}, column {self.column}: {self.message}"


_Rule = Generator["_Rule", None, None]  # a grammar rule: yields the sub-rules it needs


class _Fail(Exception):
    def __init__(self, token: Token | None, message: str) -> None:
        super().__init__(message)
        self.token = token
        self.message = message


def check(expression: str) -> DaxSyntaxError | None:
    """The first syntax error of a DAX expression, or None when it parses."""
    tokens = code_tokens(tokenize(expression))
    for t in tokens:
        if t.error:
            what = {
                TokenKind.STRING: "string is never closed: expected '\"'",
                TokenKind.BRACKET: "'[' is never closed: expected ']'",
                TokenKind.TABLE: 'quoted table name is never closed: expected "\'"',
                TokenKind.BLOCK_COMMENT: "comment is never closed: expected '*/'",
            }.get(t.kind, "bad token")
            return _at(expression, t, what)
        if t.kind is TokenKind.OTHER:
            return _at(expression, t, f"unexpected character {t.text!r}")
    if not tokens:
        return None  # an empty expression is reported by the model reader, not here
    parser = _Parser(tokens)
    try:
        parser.parse()
        if parser.i < len(tokens):
            tok = tokens[parser.i]
            raise _Fail(tok, f"unexpected {tok.text!r} after a complete expression")
    except _Fail as fail:
        if fail.token is None:
            last = tokens[-1]
            line, col = _position(expression, last.pos + len(last.text))
            return DaxSyntaxError(line, col, fail.message)
        return _at(expression, fail.token, fail.message)
    return None


def _position(text: str, pos: int) -> tuple[int, int]:
    line = text.count("\n", 0, pos) + 1
    return line, pos - (text.rfind("\n", 0, pos) + 1) + 1


def _at(text: str, token: Token, message: str) -> DaxSyntaxError:
    line, col = _position(text, token.pos)
    return DaxSyntaxError(line, col, message)


class _Parser:
    """Recursive descent written as generators run by an explicit stack (`_drive`).

    Each rule yields the sub-rules it needs instead of calling them, so nesting depth costs
    heap, not Python frames: 1,000 nested IFs or parentheses parse like a flat expression.
    Precedence does not change what is valid, so operators are read in one loop.
    """

    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens
        self.i = 0

    def peek(self) -> Token | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def word(self, tok: Token | None) -> str:
        return tok.text.upper() if tok is not None and tok.kind is TokenKind.IDENT else ""

    def parse(self) -> None:
        """The whole token list as one expression (a `_Fail` says where it is not)."""
        _drive(self.expression(), bound=16 * (len(self.tokens) + 1))

    def expression(self) -> _Rule:
        if self.word(self.peek()) == "VAR":
            yield self.var_block()
        else:
            yield self.operation()

    def var_block(self) -> _Rule:
        while self.word(self.peek()) == "VAR":
            self.i += 1
            name = self.peek()
            if name is None or name.kind is not TokenKind.IDENT:
                raise _Fail(name, "expected a variable name after VAR")
            self.i += 1
            eq = self.peek()
            if eq is None or eq.text != "=":
                raise _Fail(eq, f"expected '=' after VAR {name.text}")
            self.i += 1
            yield self.expression()
        if self.word(self.peek()) != "RETURN":
            raise _Fail(self.peek(), "expected RETURN after the VAR definitions")
        self.i += 1
        yield self.expression()

    def operation(self) -> _Rule:
        """operand (binary-operator operand)*"""
        yield self.operand()
        while _is_binary(self.peek()):
            tok = self.tokens[self.i]
            self.i += 1
            if self.peek() is None:
                raise _Fail(None, f"expected an expression after {tok.text!r}")
            yield self.operand()

    def operand(self) -> _Rule:
        """Prefix signs and NOT, then a value, a reference, a call or a group."""
        while True:
            tok = self.peek()
            if tok is not None and tok.kind is TokenKind.OPERATOR and tok.text in ("+", "-"):
                self.i += 1
                if self.peek() is None:
                    raise _Fail(None, f"expected an expression after {tok.text!r}")
                continue
            nxt = self.tokens[self.i + 1] if self.i + 1 < len(self.tokens) else None
            if self.word(tok) == "NOT" and (nxt is None or nxt.kind is not TokenKind.LPAREN):
                self.i += 1  # NOT binds looser than comparisons: the operators loop reads them
                continue
            break
        yield self.primary()

    def primary(self) -> _Rule:
        tok = self.peek()
        if tok is None:
            raise _Fail(None, "expected an expression before the end")
        kind = tok.kind
        self.i += 1
        if kind in (TokenKind.NUMBER, TokenKind.STRING, TokenKind.BRACKET):
            return
        nxt = self.peek()
        if kind is TokenKind.TABLE or kind is TokenKind.IDENT:
            if kind is TokenKind.IDENT and nxt is not None and nxt.kind is TokenKind.LPAREN:
                yield self.arguments(nxt)
            elif nxt is not None and nxt.kind is TokenKind.BRACKET:
                self.i += 1
            return
        if kind is TokenKind.LPAREN or kind is TokenKind.LBRACE:
            close = TokenKind.RPAREN if kind is TokenKind.LPAREN else TokenKind.RBRACE
            if kind is TokenKind.LBRACE and nxt is not None and nxt.kind is TokenKind.RBRACE:
                self.i += 1
                return
            yield self.expression()
            while self.peek() is not None and self.peek().kind is TokenKind.COMMA:  # type: ignore[union-attr]
                self.i += 1  # a row of a table constructor: {(1, "a"), (2, "b")}
                yield self.expression()
            self.close(tok, close, ")" if close is TokenKind.RPAREN else "}")
            return
        raise _Fail(
            tok, f"unexpected {tok.text!r}: expected a value, a reference or a function call"
        )

    def arguments(self, open_tok: Token) -> _Rule:
        """`(` arg, arg, ... `)`; an argument may be empty (`RANKX(t, [x], , DESC)`)."""
        self.i += 1
        first = True
        while True:
            tok = self.peek()
            if tok is None:
                break
            if tok.kind is TokenKind.RPAREN:
                self.i += 1
                return
            if tok.kind is TokenKind.COMMA:
                self.i += 1
                first = False
                nxt = self.peek()
                if nxt is not None and nxt.kind not in (TokenKind.COMMA, TokenKind.RPAREN):
                    yield self.expression()
                continue
            if not first:
                raise _Fail(
                    tok, f"expected ',' or ')' in the arguments of {self.tokens[self.i - 1].text}"
                )
            yield self.expression()
            first = False
            nxt = self.peek()
            if nxt is not None and nxt.kind not in (TokenKind.COMMA, TokenKind.RPAREN):
                raise _Fail(nxt, f"unexpected {nxt.text!r}: expected ',' or ')'")
        self.close(open_tok, TokenKind.RPAREN, ")")

    def close(self, open_tok: Token, kind: TokenKind, text: str) -> None:
        tok = self.peek()
        if tok is not None and tok.kind is kind:
            self.i += 1
            return
        if tok is None:
            raise _Fail(
                open_tok, f"{open_tok.text!r} is never closed: expected {text!r} before the end"
            )
        raise _Fail(tok, f"unexpected {tok.text!r}: expected {text!r} to close {open_tok.text!r}")


def _is_binary(tok: Token | None) -> bool:
    if tok is None:
        return False
    if tok.kind is TokenKind.OPERATOR:
        return tok.text in _OPERATORS
    return tok.kind is TokenKind.IDENT and tok.text.upper() == "IN"


def _drive(root: _Rule, *, bound: int) -> None:
    """Run a rule and every sub-rule it yields, depth first, on a list instead of the C stack.

    Every rule consumes a token before it yields again or ends, so the steps are bounded by
    the token count; `bound` turns a bug into a clear failure instead of a hang.
    """
    stack = [root]
    for _ in range(bound):
        if not stack:
            return
        try:
            stack.append(next(stack[-1]))
        except StopIteration:
            stack.pop()
    if stack:
        raise _Fail(None, "expression too complex to check")
