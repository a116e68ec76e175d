"""Object names: one normal form so that `[Fact].[Sale]`, `Fact.Sale` and `fact.sale` meet.

>>> normalize_name("[Fact].[Sale]")
'fact.sale'
>>> normalize_name("DimDate")
'dbo.dimdate'
>>> normalize_name("#Stage")
'#stage'
>>> normalize_name("MyDw..Orders")
'mydw.dbo.orders'
"""

from __future__ import annotations

from collections.abc import Sequence

DEFAULT_SCHEMA = "dbo"
SYSTEM_SCHEMAS = frozenset({"sys", "information_schema"})
# Pseudo tables of triggers and OUTPUT clauses: never real objects.
PSEUDO_TABLES = frozenset({"inserted", "deleted"})


def split_name(name: str) -> list[str]:
    """Split a possibly bracketed or quoted multi-part name into its bare parts.

    >>> split_name('[Dimension].[Stock Item]')
    ['Dimension', 'Stock Item']
    >>> split_name('"a.b".c')
    ['a.b', 'c']
    """
    parts: list[str] = []
    buf: list[str] = []
    i, n = 0, len(name)
    while i < n:
        ch = name[i]
        if ch in '["':
            close = "]" if ch == "[" else '"'
            i += 1
            while i < n:
                if name[i] == close:
                    if i + 1 < n and name[i + 1] == close:  # escaped ]] or ""
                        buf.append(close)
                        i += 2
                        continue
                    break
                buf.append(name[i])
                i += 1
            i += 1
            continue
        if ch == ".":
            parts.append("".join(buf).strip())
            buf = []
        else:
            buf.append(ch)
        i += 1
    parts.append("".join(buf).strip())
    return parts


def from_parts(parts: Sequence[str]) -> str:
    """Normal form from bare parts: lower case, `dbo` for a missing schema, locals kept bare."""
    clean = [p.strip().lower() for p in parts]
    if not clean or not clean[-1]:
        return ""
    if len(clean) == 1:
        if clean[0][:1] in ("#", "@"):
            return clean[0]
        return f"{DEFAULT_SCHEMA}.{clean[0]}"
    if not clean[-2]:  # `db..name` means the default schema
        clean[-2] = DEFAULT_SCHEMA
    return ".".join(clean)


def display_from_parts(parts: Sequence[str]) -> str:
    """The name as its definition writes it (`Fact.Sale`), `dbo` added when the schema is
    missing."""
    clean = [p.strip() for p in parts]
    if not clean or not clean[-1]:
        return ""
    if len(clean) == 1:
        return clean[0] if clean[0][:1] in ("#", "@") else f"{DEFAULT_SCHEMA}.{clean[0]}"
    if not clean[-2]:
        clean[-2] = DEFAULT_SCHEMA
    return ".".join(clean)


def normalize_name(name: str) -> str:
    """Normal form of a name as written in SQL or typed by a user."""
    return from_parts(split_name(name.strip()))


def is_local(name: str) -> bool:
    """Temp tables (`#t`, `##t`) and table variables (`@t`) live only inside one run."""
    return name[:1] in ("#", "@")


def is_system(name: str) -> bool:
    """Catalog views (`sys.*`, `information_schema.*`) are not lineage."""
    parts = name.split(".")
    return len(parts) >= 2 and parts[-2] in SYSTEM_SCHEMAS


def is_pseudo(name: str) -> bool:
    """`inserted` / `deleted` written unqualified."""
    return name in {f"{DEFAULT_SCHEMA}.{p}" for p in PSEUDO_TABLES}


def short(name: str) -> str:
    """Schema-and-name tail of a 3- or 4-part name."""
    parts = name.split(".")
    return ".".join(parts[-2:]) if len(parts) > 2 else name
