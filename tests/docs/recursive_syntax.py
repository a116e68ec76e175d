"""The DAX syntax check as it was before issue 32 (recursive descent, depth-limited): kept
as the reference the stack-driven parser (`vitrina.docs.dax.syntax`) is compared with on
random expressions (tests/docs/test_deep_dax.py). Not used at run time.

Its original docstring follows.

A DAX syntax check: recursive descent over the lossless lexer's tokens.

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

from dataclasses import dataclass

from vitrina.docs.dax.lexer import Token, TokenKind, code_tokens, tokenize

MAX_DEPTH = 200  # nesting bound: deeper expressions are reported, never a RecursionError

_BINARY = [  # loosest first
    {"||"},
    {"&&"},
    {"IN"},
    {"=", "==", "<>", "<", ">", "<=", ">="},
    {"&"},
    {"+", "-"},
    {"*", "/"},
    {"^"},
]


@dataclass(frozen=True)
class DaxSyntaxError:
    line: int
    column: int
    message: str

    def text(self) -> str:
        return f"line {self.line}, column {self.column}: {self.message}"


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
        parser.expression(0)
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
    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens
        self.i = 0

    def peek(self) -> Token | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def word(self, tok: Token | None) -> str:
        return tok.text.upper() if tok is not None and tok.kind is TokenKind.IDENT else ""

    def expression(self, depth: int) -> None:
        if depth > MAX_DEPTH:
            raise _Fail(self.peek(), f"expression nested deeper than {MAX_DEPTH} levels")
        if self.word(self.peek()) == "VAR":
            self.var_block(depth)
            return
        self.binary(0, depth)

    def var_block(self, depth: int) -> None:
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
            self.expression(depth + 1)
        if self.word(self.peek()) != "RETURN":
            raise _Fail(self.peek(), "expected RETURN after the VAR definitions")
        self.i += 1
        self.expression(depth + 1)

    def binary(self, level: int, depth: int) -> None:
        if level == len(_BINARY):
            self.unary(depth)
            return
        self.binary(level + 1, depth)
        while True:
            tok = self.peek()
            op = (
                self.word(tok)
                if _BINARY[level] == {"IN"}
                else (tok.text if tok is not None and tok.kind is TokenKind.OPERATOR else "")
            )
            if op not in _BINARY[level]:
                return
            self.i += 1
            if self.peek() is None:
                raise _Fail(None, f"expected an expression after {tok.text!r}")  # type: ignore[union-attr]
            self.binary(level + 1, depth + 1)

    def unary(self, depth: int) -> None:
        tok = self.peek()
        if tok is not None and tok.kind is TokenKind.OPERATOR and tok.text in ("+", "-"):
            self.i += 1
            if self.peek() is None:
                raise _Fail(None, f"expected an expression after {tok.text!r}")
            self.unary(depth + 1)
            return
        nxt = self.tokens[self.i + 1] if self.i + 1 < len(self.tokens) else None
        if self.word(tok) == "NOT" and (nxt is None or nxt.kind is not TokenKind.LPAREN):
            self.i += 1
            self.binary(3, depth + 1)  # NOT binds looser than comparisons
            return
        self.primary(depth)

    def primary(self, depth: int) -> None:
        tok = self.peek()
        if tok is None:
            raise _Fail(None, "expected an expression before the end")
        kind = tok.kind
        if kind in (TokenKind.NUMBER, TokenKind.STRING, TokenKind.BRACKET):
            self.i += 1
            return
        if kind is TokenKind.TABLE:
            self.i += 1
            nxt = self.peek()
            if nxt is not None and nxt.kind is TokenKind.BRACKET:
                self.i += 1
            return
        if kind is TokenKind.IDENT:
            self.i += 1
            nxt = self.peek()
            if nxt is not None and nxt.kind is TokenKind.LPAREN:
                self.arguments(nxt, depth)
            elif nxt is not None and nxt.kind is TokenKind.BRACKET:
                self.i += 1
            return
        if kind is TokenKind.LPAREN:
            self.i += 1
            self.expression(depth + 1)
            while self.peek() is not None and self.peek().kind is TokenKind.COMMA:  # type: ignore[union-attr]
                self.i += 1  # a row of a table constructor: {(1, "a"), (2, "b")}
                self.expression(depth + 1)
            self.close(tok, TokenKind.RPAREN, ")")
            return
        if kind is TokenKind.LBRACE:
            self.i += 1
            if self.peek() is not None and self.peek().kind is TokenKind.RBRACE:  # type: ignore[union-attr]
                self.i += 1
                return
            self.expression(depth + 1)
            while self.peek() is not None and self.peek().kind is TokenKind.COMMA:  # type: ignore[union-attr]
                self.i += 1
                self.expression(depth + 1)
            self.close(tok, TokenKind.RBRACE, "}")
            return
        raise _Fail(
            tok, f"unexpected {tok.text!r}: expected a value, a reference or a function call"
        )

    def arguments(self, open_tok: Token, depth: int) -> None:
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
                    self.expression(depth + 1)
                continue
            if not first:
                raise _Fail(
                    tok, f"expected ',' or ')' in the arguments of {self.tokens[self.i - 1].text}"
                )
            self.expression(depth + 1)
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
