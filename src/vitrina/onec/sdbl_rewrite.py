"""Rewrites of a 1C query text into a shape grammar 0.1.11 of `tree-sitter-hbk` parses.

Each rewrite replaces characters by spaces (never inserts or removes one), so every
character keeps its line and column and an error the parser reports still points at the
user's text. A rewrite is only applied where the platform accepts the construct:

- `overall_first`: `ИТОГИ ... ПО ОБЩИЕ, Покупатель` (the Query Designer writes ОБЩИЕ first);
  the grammar only parses ОБЩИЕ last, and its error recovery differs with the next word
  (a name that starts with По... is read as a new BY), so the error shape cannot be trusted.
  `ОБЩИЕ,` is blanked: the grand total is implied by ИТОГИ anyway.
- `composition_block`: the data composition extension of the query language used in
  schemas (`{ВЫБРАТЬ ...}`, `{ГДЕ ...}`, `{(&НачалоПериода)}`, `{(Склад).*}`,
  `{ЛЕВОЕ СОЕДИНЕНИЕ ...}`): braces are blanked; a block of field declarations (a clause
  keyword or `.*` inside) is blanked whole, a join or an expression keeps its text so it is
  still checked.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field

TOKEN = re.compile(r'//[^\n]*|"(?:[^"]|"")*"?|&?[^\W\d]\w*|\d+(?:\.\d+)?|\S', re.UNICODE)
CLAUSE_WORDS = {
    "выбрать",
    "select",
    "где",
    "where",
    "упорядочить",
    "order",
    "сгруппировать",
    "group",
    "характеристики",
    "characteristics",
    "итоги",
    "totals",
}
JOIN_WORDS = {
    "левое",
    "правое",
    "внутреннее",
    "полное",
    "соединение",
    "left",
    "right",
    "inner",
    "full",
    "outer",
    "join",
}
OVERALL = {"общие", "overall"}


@dataclass
class Rewritten:
    text: str
    applied: list[tuple[str, int]] = field(default_factory=list)  # (rule, character offset)


def _tokens(text: str) -> list[re.Match[str]]:
    return [m for m in TOKEN.finditer(text) if not m.group().startswith("//")]


def _blank(chars: list[str], start: int, end: int) -> None:
    for i in range(start, end):
        if chars[i] not in "\r\n":
            chars[i] = " "


def _overall_first(tokens: list[re.Match[str]], chars: list[str], out: Rewritten) -> None:
    for i, tok in enumerate(tokens):
        if tok.group().lower() not in ("итоги", "totals"):
            continue
        depth = 0
        for j in range(i + 1, len(tokens) - 2):
            word = tokens[j].group().lower()
            depth += (word == "(") - (word == ")")
            if word == ";" and depth == 0:
                break
            if depth == 0 and word in ("по", "by"):
                nxt, comma = tokens[j + 1], tokens[j + 2]
                if nxt.group().lower() in OVERALL and comma.group() == ",":
                    _blank(chars, nxt.start(), comma.end())
                    out.applied.append(("overall_first", nxt.start()))
                break


def _closing(tokens: list[re.Match[str]], start: int) -> int | None:
    depth = 0
    for j in range(start, len(tokens)):
        word = tokens[j].group()
        depth += (word == "{") - (word == "}")
        if depth == 0:
            return j
    return None


def _composition_blocks(tokens: list[re.Match[str]], chars: list[str], out: Rewritten) -> None:
    i = 0
    while i < len(tokens):
        if tokens[i].group() != "{":
            i += 1
            continue
        end = _closing(tokens, i)
        if end is None:
            return  # an unclosed brace stays: the parser reports it
        inner = [t.group().lower() for t in tokens[i + 1 : end]]
        join = bool(inner) and inner[0] in JOIN_WORDS
        declarations = not join and (
            (bool(inner) and inner[0] in CLAUSE_WORDS)
            or any(a == "." and b == "*" for a, b in itertools.pairwise(inner))
        )
        out.applied.append(("composition_block", tokens[i].start()))
        if declarations:
            _blank(chars, tokens[i].start(), tokens[end].end())
            i = end + 1
        else:
            _blank(chars, tokens[i].start(), tokens[i].end())
            _blank(chars, tokens[end].start(), tokens[end].end())
            i += 1


def rewrite(text: str) -> Rewritten:
    """The text with the rewrites applied, the same length, and where each one applied."""
    out = Rewritten(text=text)
    tokens = _tokens(text)
    chars = list(text)
    _composition_blocks(tokens, chars, out)
    _overall_first(_tokens("".join(chars)), chars, out)
    out.text = "".join(chars)
    return out
