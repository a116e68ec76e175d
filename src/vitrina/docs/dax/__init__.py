"""DAX: a lossless lexer, a dependency resolver (Tabular Editor's rules) and a pretty-printer."""

from vitrina.docs.dax.format import format_dax
from vitrina.docs.dax.lexer import Token, TokenKind, significant, tokenize
from vitrina.docs.dax.resolver import DaxDeps, FunctionUse, resolve

__all__ = [
    "DaxDeps",
    "FunctionUse",
    "Token",
    "TokenKind",
    "format_dax",
    "resolve",
    "significant",
    "tokenize",
]
