"""Token roles: what a token may do, from least to most.

``viewer`` asks questions (dialogs, their files, the catalog, the manual); ``analyst`` also
runs tasks and raw SQL (``run_sql``); ``admin`` also runs experiments and evaluations. The
HTTP API and MCP over HTTP check the same table; a token without a stored role (created
before roles existed) is an ``analyst``.

>>> allows("analyst", "viewer"), allows("viewer", "analyst")
(True, False)
"""

from __future__ import annotations

from typing import Literal

Role = Literal["viewer", "analyst", "admin"]
ROLES: tuple[Role, ...] = ("viewer", "analyst", "admin")
DEFAULT_ROLE: Role = "analyst"


def allows(role: str, needed: Role) -> bool:
    """True when `role` is `needed` or above it; an unknown role allows nothing."""
    if role not in ROLES:
        return False
    return ROLES.index(role) >= ROLES.index(needed)


def check_role(role: str) -> Role:
    """`role` when it is one of ROLES, else ValueError naming the known ones."""
    if role not in ROLES:
        raise ValueError(f"unknown role {role!r}; choose one of {', '.join(ROLES)}")
    return role
