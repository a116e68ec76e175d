"""A tolerant T-SQL lexer: every later step (GO, statements, scan) works on its tokens.

It never raises: an unterminated string, bracket or comment runs to the end of the text
and is reported in `problems`, so one broken file cannot stop an index build. Comments
are dropped; strings and `[bracketed]` names stay single tokens, so nothing inside them
is ever mistaken for a keyword.

>>> [t.text for t in lex("SELECT [a b] FROM t -- x\\nGO").tokens]
['SELECT', '[a b]', 'FROM', 't', 'GO']
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

WORD = "word"  # keywords and plain identifiers, @vars, #temps
QUOTED = "quoted"  # [name] or "name"
STRING = "string"  # 'text' or N'text'
NUMBER = "number"
OP = "op"

_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
   |(?P<line_comment>--[^\n]*)
   |(?P<block_comment>/\*)
   |(?P<string>[Nn]?'[^']*(?:''[^']*)*'?)
   |(?P<bracket>\[[^\]]*(?:\]\][^\]]*)*\]?)
   |(?P<dquote>"[^"]*(?:""[^"]*)*"?)
   |(?P<number>0[xX][0-9A-Fa-f]*|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)
   |(?P<word>(?:[^\W\d]|[@#$])[\w@#$]*)
   |(?P<op><>|!=|>=|<=|::|\+=|-=|\*=|/=|.)
    """,
    re.VERBOSE | re.DOTALL,
)
_COMMENT_EDGE = re.compile(r"/\*|\*/")


@dataclass(slots=True)
class Tok:
    """One token; `start`/`end` are offsets into the lexed text, `line` is 1-based."""

    kind: str
    text: str
    line: int
    start: int
    end: int
    up: str = ""  # upper-cased text for words, "" otherwise
    end_line: int = 0

    @property
    def value(self) -> str:
        """The bare value: brackets and quotes removed, escapes undone."""
        if self.kind == QUOTED:
            close = "]" if self.text[0] == "[" else '"'
            inner = (
                self.text[1:-1]
                if self.text.endswith(close) and len(self.text) > 1
                else self.text[1:]
            )
            return inner.replace(close * 2, close)
        if self.kind == STRING:
            body = self.text[1:] if self.text[:1] in "Nn" else self.text
            inner = body[1:-1] if len(body) > 1 and body.endswith("'") else body[1:]
            return inner.replace("''", "'")
        return self.text

    @property
    def is_name(self) -> bool:
        return self.kind in (WORD, QUOTED)


@dataclass(slots=True)
class LexResult:
    tokens: list[Tok]
    problems: list[tuple[int, str]] = field(default_factory=list)  # (line, message)


def lex(text: str, *, first_line: int = 1) -> LexResult:
    """Tokens of `text` with real line numbers (offset by `first_line - 1`)."""
    tokens: list[Tok] = []
    problems: list[tuple[int, str]] = []
    pos, n = 0, len(text)
    line = first_line
    counted = 0  # newlines are counted lazily up to `counted`
    match = _TOKEN.match
    while pos < n:
        m = match(text, pos)
        if m is None:  # pragma: no cover - the `.` alternative always matches
            break
        kind = m.lastgroup
        end = m.end()
        if kind == "ws" or kind == "line_comment":
            pos = end
            continue
        line += text.count("\n", counted, pos)
        counted = pos
        if kind == "block_comment":
            end = _skip_block_comment(text, pos)
            if end < 0:
                problems.append((line, "unterminated /* comment runs to the end of the file"))
                end = n
            pos = end
            continue
        tok_text = m.group()
        if kind == "string":
            if not tok_text.endswith("'") or tok_text in ("'", "N'", "n'"):
                problems.append((line, "unterminated string literal runs to the end of the file"))
            tokens.append(Tok(STRING, tok_text, line, pos, end))
        elif kind == "bracket" or kind == "dquote":
            close = "]" if kind == "bracket" else '"'
            if not tok_text.endswith(close) or len(tok_text) == 1:
                problems.append(
                    (line, f"unterminated {tok_text[0]}name{close} runs to the end of the file")
                )
            tokens.append(Tok(QUOTED, tok_text, line, pos, end))
        elif kind == "word":
            tokens.append(Tok(WORD, tok_text, line, pos, end, tok_text.upper()))
        elif kind == "number":
            tokens.append(Tok(NUMBER, tok_text, line, pos, end))
        else:
            tokens.append(Tok(OP, tok_text, line, pos, end))
        tok = tokens[-1]
        tok.end_line = line + (
            tok_text.count("\n") if kind in ("string", "bracket", "dquote") else 0
        )
        pos = end
    return LexResult(tokens, problems)


def _skip_block_comment(text: str, pos: int) -> int:
    """End offset of a (possibly nested) /* */ comment starting at `pos`, or -1."""
    depth = 0
    for m in _COMMENT_EDGE.finditer(text, pos):
        depth += 1 if m.group() == "/*" else -1
        if depth == 0:
            return m.end()
    return -1
