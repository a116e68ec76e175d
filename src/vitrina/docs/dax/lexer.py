"""A lossless DAX lexer: joining the token texts gives back the input exactly.

Handles `//`, `--` and `/* */` comments, "strings" with "" escapes, 'quoted tables' with ''
escapes and [brackets] with ]] escapes. Unterminated literals become one token flagged
`error` instead of raising, so a broken measure still gets documented.

>>> [t.text for t in significant(tokenize("'Fact Sale'[Qty] // c"))]
["'Fact Sale'", '[Qty]', '// c']
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class TokenKind(StrEnum):
    WS = "ws"
    LINE_COMMENT = "line_comment"
    BLOCK_COMMENT = "block_comment"
    STRING = "string"
    TABLE = "table"  # 'quoted table name'
    BRACKET = "bracket"  # [column or measure]
    NUMBER = "number"
    IDENT = "ident"  # function, keyword, unquoted table, variable
    OPERATOR = "operator"
    LPAREN = "lparen"
    RPAREN = "rparen"
    LBRACE = "lbrace"
    RBRACE = "rbrace"
    COMMA = "comma"
    OTHER = "other"


@dataclass(frozen=True, slots=True)
class Token:
    kind: TokenKind
    text: str
    pos: int
    line: int
    error: bool = False

    @property
    def value(self) -> str:
        """The unescaped name of a TABLE or BRACKET token, or the string of a STRING."""
        t = self.text
        if self.kind is TokenKind.TABLE:
            body = t[1:-1] if t.endswith("'") and len(t) > 1 and not self.error else t[1:]
            return body.replace("''", "'")
        if self.kind is TokenKind.BRACKET:
            body = t[1:-1] if t.endswith("]") and len(t) > 1 and not self.error else t[1:]
            return body.replace("]]", "]")
        if self.kind is TokenKind.STRING:
            body = t[1:-1] if t.endswith('"') and len(t) > 1 and not self.error else t[1:]
            return body.replace('""', '"')
        return t

    @property
    def is_comment(self) -> bool:
        return self.kind in (TokenKind.LINE_COMMENT, TokenKind.BLOCK_COMMENT)


_TWO_CHAR_OPS = ("<=", ">=", "<>", "&&", "||", "==")
_ONE_CHAR_OPS = set("+-*/^&=<>!")


def _quoted(text: str, i: int, quote: str) -> tuple[int, bool]:
    """End index of a literal opened at i where a doubled quote is an escape."""
    j = i + 1
    n = len(text)
    while j < n:
        if text[j] == quote:
            if j + 1 < n and text[j + 1] == quote:
                j += 2
                continue
            return j + 1, False
        j += 1
    return n, True


def tokenize(text: str) -> list[Token]:
    """Split DAX into tokens; never raises."""
    tokens: list[Token] = []
    i, n, line = 0, len(text), 1
    while i < n:
        ch = text[i]
        start = i
        error = False
        if ch.isspace():
            while i < n and text[i].isspace():
                i += 1
            kind = TokenKind.WS
        elif text.startswith("//", i) or text.startswith("--", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
            kind = TokenKind.LINE_COMMENT
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            if j < 0:
                i, error = n, True
            else:
                i = j + 2
            kind = TokenKind.BLOCK_COMMENT
        elif ch == '"':
            i, error = _quoted(text, i, '"')
            kind = TokenKind.STRING
        elif ch == "'":
            i, error = _quoted(text, i, "'")
            kind = TokenKind.TABLE
        elif ch == "[":
            i, error = _quoted_bracket(text, i)
            kind = TokenKind.BRACKET
        elif ch.isdigit() or (ch == "." and i + 1 < n and text[i + 1].isdigit()):
            while i < n and (text[i].isdigit() or text[i] == "."):
                i += 1
            if (
                i < n
                and text[i] in "eE"
                and i + 1 < n
                and (text[i + 1].isdigit() or text[i + 1] in "+-")
            ):
                i += 2
                while i < n and text[i].isdigit():
                    i += 1
            kind = TokenKind.NUMBER
        elif ch.isalpha() or ch == "_":
            while i < n and (
                text[i].isalnum()
                or text[i] == "_"
                or (text[i] == "." and i + 1 < n and text[i + 1].isalpha())
            ):
                i += 1
            kind = TokenKind.IDENT
        elif text[i : i + 2] in _TWO_CHAR_OPS:
            i += 2
            kind = TokenKind.OPERATOR
        elif ch in _ONE_CHAR_OPS:
            i += 1
            kind = TokenKind.OPERATOR
        else:
            i += 1
            kind = {
                "(": TokenKind.LPAREN,
                ")": TokenKind.RPAREN,
                "{": TokenKind.LBRACE,
                "}": TokenKind.RBRACE,
                ",": TokenKind.COMMA,
            }.get(ch, TokenKind.OTHER)
        piece = text[start:i]
        tokens.append(Token(kind, piece, start, line, error))
        line += piece.count("\n")
    return tokens


def _quoted_bracket(text: str, i: int) -> tuple[int, bool]:
    j, n = i + 1, len(text)
    while j < n:
        if text[j] == "]":
            if j + 1 < n and text[j + 1] == "]":
                j += 2
                continue
            return j + 1, False
        j += 1
    return n, True


def significant(tokens: list[Token]) -> list[Token]:
    """Tokens without whitespace (comments kept: they are part of the measure's text)."""
    return [t for t in tokens if t.kind is not TokenKind.WS]


def code_tokens(tokens: list[Token]) -> list[Token]:
    """Tokens without whitespace and comments: what the DAX engine sees."""
    return [t for t in tokens if t.kind is not TokenKind.WS and not t.is_comment]
