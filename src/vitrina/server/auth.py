"""Who is asking: the API token of a request (or "local" under --no-auth), rate-limited,
and what its role lets it do (`require`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request

from vitrina.server.errors import ApiError
from vitrina.server.roles import Role, allows
from vitrina.server.state import ServerState, server_state
from vitrina.server.tokens import verify_token

LOCAL_OWNER = "local"


@dataclass(frozen=True)
class Principal:
    """The owner of the objects a request may see (a token id, or "local" without auth) and its
    role."""

    owner: str
    name: str
    role: str = "admin"


def _bearer(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()
    return request.headers.get("x-vitrina-token") or None


def principal(request: Request, state: Annotated[ServerState, Depends(server_state)]) -> Principal:
    """Resolve the token, then take one request from its bucket (429 with Retry-After when
    empty)."""
    if not state.options.auth:
        who = Principal(LOCAL_OWNER, LOCAL_OWNER, "admin")  # --no-auth binds loopback only
    else:
        presented = _bearer(request)
        if not presented:
            raise ApiError(
                401,
                "unauthorized",
                "an API token is required: send 'Authorization: Bearer TOKEN'",
                "нужен API-токен: передайте заголовок 'Authorization: Bearer ТОКЕН'",
                headers={"WWW-Authenticate": "Bearer"},
            )
        record = verify_token(state.store, presented)
        if record is None:
            raise ApiError(
                401,
                "invalid_token",
                "the API token is unknown or revoked",
                "API-токен неизвестен или отозван",
                headers={"WWW-Authenticate": "Bearer"},
            )
        who = Principal(record.id, record.name, record.role)
    wait = state.buckets.take(who.owner)
    if wait > 0:
        seconds = max(1, int(wait + 0.999))
        raise ApiError(
            429,
            "rate_limited",
            f"too many requests; retry in {seconds} s",
            f"слишком много запросов; повторите через {seconds} с",
            headers={"Retry-After": str(seconds)},
            retry_after=seconds,
        )
    return who


Who = Annotated[Principal, Depends(principal)]


def require(needed: Role) -> Callable[..., Principal]:
    """A dependency: the principal when its role is `needed` or above, else 403."""

    def dependency(who: Who) -> Principal:
        if not allows(who.role, needed):
            raise ApiError(
                403,
                "forbidden",
                f"this needs the {needed} role; the token is {who.role}",
                f"нужна роль {needed}; у токена роль {who.role}",
                needed=needed,
                role=who.role,
            )
        return who

    dependency.__name__ = f"require_{needed}"
    return dependency


def owner_id(who: Who) -> str:
    """A dependency: just the owner id (for routers of other jobs that store it with their
    objects)."""
    return who.owner
